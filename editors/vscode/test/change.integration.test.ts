// Generate Change end to end, without VS Code: the extension's request
// builder, loop and model clients against the real ctxd (a temporary copy
// of testdata/example) and tools/fakemodel (OpenAI and Anthropic shapes,
// streamed). ctxd renders the prompt, the fake model answers, ctxd checks
// the answer, the loop retries with the rejection's error_context, and the
// accepted WorkspaceEdit applied to the text gives exactly the expected
// bytes.

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import { runChange, type ChangeOutcome } from "../src/change";
import { Commands } from "../src/contract.gen";
import { AnthropicChatModel, OpenAIChatModel } from "../src/model";
import { buildRequest, readSettings, type EditorState } from "../src/request";
import { advertises } from "../src/rpc";
import { applyTextEdits, planEdit, sha256Text } from "../src/workspaceEdit";
import { startFakeModel, type FakeModel } from "./fakeModel";
import { copyWorkspace, exampleWorkspace, fileUri, requireBinary, startServer, type Server } from "./harness";

const storeRel = "internal/store/store.go";
const oldComment = "// List returns all items sorted by SKU.";
const newComment = "// List returns all items, sorted by SKU.";

/** A model's answer: some prose and a fenced unified diff. */
function answer(diff: string): string {
  return `Here is the change.\n\n\`\`\`diff\n${diff}\`\`\`\n`;
}

/** A one-line unified diff of store.go replacing `from` (which must be line `line`, 1-based) by `to`, with a line of context on each side. */
function oneLineDiff(lines: string[], line: number, from: string, to: string): string {
  return [
    `--- a/${storeRel}`,
    `+++ b/${storeRel}`,
    `@@ -${line - 1},3 +${line - 1},3 @@`,
    ` ${lines[line - 2]}`,
    `-${from}`,
    `+${to}`,
    ` ${lines[line]}`,
    "",
  ].join("\n");
}

/** An AWS access key id made at run time: no credential is written in the source. */
function fakeAwsKey(): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let id = "AKIA";
  for (let i = 0; i < 16; i++) id += alphabet[(i * 7 + 3) % alphabet.length];
  return id;
}

describe("Generate Change against the real ctxd and the fake model", { timeout: 120_000 }, () => {
  let workspace = "";
  let store = "";
  let text = "";
  let lines: string[] = [];
  let commentLine = 0;
  let server: Server;
  const models: FakeModel[] = [];

  const request = () => {
    const state: EditorState = { uri: fileUri(store), languageId: "go", text, settings: readSettings(() => undefined) };
    return buildRequest(state, { scope: "file", encoding: server.encoding });
  };
  const fake = async (answers: string[]) => {
    const m = await startFakeModel({ answers, chunk: 23 });
    models.push(m);
    return m;
  };
  const openai = (m: FakeModel) => new OpenAIChatModel({ baseUrl: `${m.url}/v1`, model: "gpt-4o" });

  before(async () => {
    requireBinary();
    workspace = copyWorkspace(exampleWorkspace());
    store = path.join(workspace, storeRel);
    text = fs.readFileSync(store, "utf8");
    lines = text.split("\n");
    commentLine = lines.indexOf(oldComment) + 1;
    assert.ok(commentLine > 1, `${oldComment} is in ${storeRel}`);
    fs.writeFileSync(path.join(path.dirname(workspace), "outside.txt"), "outside\n");
    // UTF-8 positions: the edit's ranges are converted to VS Code's UTF-16.
    server = await startServer(workspace, ["utf-8", "utf-16"]);
    server.open(store, "go");
  });

  after(async () => {
    await server?.stop();
    await Promise.all(models.map((m) => m.stop()));
    if (workspace !== "") {
      fs.rmSync(workspace, { recursive: true, force: true });
      fs.rmSync(path.join(path.dirname(workspace), "outside.txt"), { force: true });
    }
  });

  it("ctxd advertises ctxd.checkChange", () => {
    assert.ok(advertises(server.initializeResult, Commands.checkChange));
  });

  let accepted: Extract<ChangeOutcome, { kind: "accepted" }>;

  it("openai, streamed: a wrong context is rejected, the retry carries its error_context, the second answer is accepted", async () => {
    const bad = oneLineDiff(lines, commentLine, "// List returns every item in no particular order.", newComment);
    const good = oneLineDiff(lines, commentLine, oldComment, newComment);
    const m = await fake([answer(bad), answer(good)]);
    const outcome = await runChange({ commands: server.commands, model: openai(m), request: request(), intent: "Put a comma in the comment of List", maxRetries: 2, maxOutputTokens: 4096 });
    assert.equal(outcome.kind, "accepted", JSON.stringify(outcome.attempts.map((a) => a.check.failure)));
    assert.equal(outcome.attempts.length, 2);

    const first = outcome.attempts[0]!.check;
    assert.equal(first.status, "rejected");
    assert.equal(first.failure?.code, "CHANGE_CONTEXT_MISMATCH");
    assert.equal(first.failure?.error_context.path, storeRel);

    const reqs = await m.requests();
    assert.equal(reqs.length, 2);
    assert.ok(reqs.every((r) => r.path === "/v1/chat/completions" && r.body.stream === true && r.body.model === "gpt-4o"));
    const prompt = (i: number) => reqs[i]!.body.messages!.map((x) => x.content).join("\n");
    assert.ok(prompt(0).includes(storeRel), "the first prompt carries the target");
    assert.ok(!prompt(0).includes(first.failure!.error_context.message.trim()));
    assert.ok(prompt(1).includes(first.failure!.error_context.message.trim()), "the second prompt carries the rejection's error_context");
    assert.deepEqual(reqs[0]!.body.messages!.map((x) => x.role), ["system", "user"]);

    assert.equal(outcome.kind === "accepted" && outcome.result.status, "accepted");
    if (outcome.kind === "accepted") {
      accepted = outcome;
    }
  });

  it("the accepted edit, applied to the document's text, gives exactly the expected bytes", async () => {
    const result = accepted.result;
    const expected = text.replace(oldComment + "\n", newComment + "\n");
    assert.notEqual(expected, text);
    assert.deepEqual(
      result.files.map((f) => [f.path, f.action, f.sha256_before, f.sha256_after]),
      [[storeRel, "modify", sha256Text(text), sha256Text(expected)]],
    );
    const dc = result.edit!.documentChanges;
    assert.equal(dc.length, 1);
    assert.equal(dc[0]!.textDocument?.uri, fileUri(store));
    assert.equal(dc[0]!.textDocument?.version, 1, "the open document's version");
    assert.equal(applyTextEdits(text, dc[0]!.edits!, server.encoding), expected);
    const plan = await planEdit(result, server.encoding, async (uri) => (uri === fileUri(store) ? { text, version: 1 } : undefined));
    assert.equal(plan.files[0]!.after, expected);
    assert.equal(applyTextEdits(text, plan.files[0]!.edits, "utf-16"), expected, "the UTF-16 edits VS Code applies");
    assert.equal(fs.readFileSync(store, "utf8"), text, "checkChange never writes");
    // A later version of the document: the plan is refused.
    await assert.rejects(planEdit(result, server.encoding, async () => ({ text, version: 2 })), /changed since ctxd checked the answer/);
  });

  it("anthropic, streamed: accepted on the first attempt", async () => {
    const m = await fake([answer(oneLineDiff(lines, commentLine, oldComment, newComment))]);
    const model = new AnthropicChatModel({ baseUrl: m.url, model: "claude-sonnet-4", maxOutputTokens: 2048 });
    const outcome = await runChange({ commands: server.commands, model, request: request(), intent: "Put a comma in the comment of List", maxRetries: 2, maxOutputTokens: 2048 });
    assert.equal(outcome.kind, "accepted");
    assert.equal(outcome.attempts.length, 1);
    const [req] = await m.requests();
    assert.equal(req!.path, "/v1/messages");
    assert.equal(req!.body.max_tokens, 2048);
    assert.ok((req!.body.system ?? "").length > 0, "the system message is the top-level system field");
    assert.deepEqual(req!.body.messages!.map((x) => x.role), ["user"]);
    assert.ok(req!.body.messages![0]!.content.includes("Put a comma in the comment of List"), "the intent is in the prompt");
  });

  it("an answer that adds a credential is rejected as CHANGE_SECRET", async () => {
    const key = fakeAwsKey();
    const diff = [
      `--- a/${storeRel}`,
      `+++ b/${storeRel}`,
      `@@ -${commentLine - 1},2 +${commentLine - 1},3 @@`,
      ` ${lines[commentLine - 2]}`,
      `+var awsAccessKeyID = "${key}"`,
      ` ${oldComment}`,
      "",
    ].join("\n");
    const m = await fake([answer(diff)]);
    const outcome = await runChange({ commands: server.commands, model: openai(m), request: request(), intent: "Add the AWS key", maxRetries: 0, maxOutputTokens: 1024 });
    assert.equal(outcome.kind, "rejected");
    const failure = outcome.attempts[0]!.check.failure!;
    assert.equal(failure.code, "CHANGE_SECRET");
    assert.ok(!JSON.stringify(failure).includes(key), "the rejection never carries the credential");
  });

  it("an answer that changes ../outside.txt is rejected as CHANGE_OUTSIDE_SANDBOX", async () => {
    const diff = ["--- a/../outside.txt", "+++ b/../outside.txt", "@@ -1 +1 @@", "-outside", "+changed", ""].join("\n");
    const m = await fake([answer(diff)]);
    const outcome = await runChange({ commands: server.commands, model: openai(m), request: request(), intent: "Change the file next door", maxRetries: 0, maxOutputTokens: 1024 });
    assert.equal(outcome.kind, "rejected");
    assert.equal(outcome.attempts[0]!.check.failure?.code, "CHANGE_OUTSIDE_SANDBOX");
    assert.equal(fs.readFileSync(path.join(path.dirname(workspace), "outside.txt"), "utf8"), "outside\n");
  });

  it("a loop that never converges stops after maxRetries + 1 attempts", async () => {
    const m = await fake([answer(oneLineDiff(lines, commentLine, "// not in the file", newComment))]);
    const outcome = await runChange({ commands: server.commands, model: openai(m), request: request(), intent: "Put a comma in the comment of List", maxRetries: 2, maxOutputTokens: 1024 });
    assert.equal(outcome.kind, "rejected");
    assert.equal(outcome.attempts.length, 3);
    assert.deepEqual(
      outcome.attempts.map((a) => a.check.failure?.code),
      ["CHANGE_CONTEXT_MISMATCH", "CHANGE_CONTEXT_MISMATCH", "CHANGE_CONTEXT_MISMATCH"],
    );
    assert.deepEqual(
      outcome.attempts.map((a) => [a.turnId, a.parentTurnId]),
      [
        ["attempt-1", undefined],
        ["attempt-2", "attempt-1"],
        ["attempt-3", "attempt-2"],
      ],
    );
    assert.equal((await m.requests()).length, 3, "exactly three model requests");
    assert.ok(outcome.attempts.every((a) => a.check.recorded !== undefined), "each verdict is recorded in the thread");
  });
});

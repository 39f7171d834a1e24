// The loop of Generate Change with a fake session and a fake model: the
// requests of each attempt (thread, turns, last_error), convergence on a
// retry, the bound, cancellation; and the settings, intent history and
// messages around it.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  attemptRequest,
  changeDetailsMarkdown,
  changeModel,
  failureNotice,
  filesToCreate,
  intentHistory,
  IntentHistorySize,
  newThreadId,
  progressMessage,
  readChangeSettings,
  rejectionCodes,
  rejectionNotice,
  rememberIntent,
  runChange,
  type ChangeCommands,
  type ChangeEvent,
} from "../src/change";
import type { BuildRequest, ChangeCode, CheckChangeArgs, CheckChangeResult, PromptResult } from "../src/contract.gen";
import type { CancelToken, ChatMessage, ChatModel } from "../src/model";
import { ModelError } from "../src/model";
import type { RenderPromptRequest } from "../src/request";
import { cancelSource } from "./fakeModel";

const base: BuildRequest = {
  purpose: "diff",
  active_file: "file:///w/internal/store/store.go",
  selection: { uri: "file:///w/internal/store/store.go", range: { start: { line: 49, character: 0 }, end: { line: 58, character: 1 } } },
  model: { max_input_tokens: 32000 },
};

function rejected(code: ChangeCode, n: number): CheckChangeResult {
  return {
    status: "rejected",
    format: "unified",
    files: [{ path: "internal/store/store.go", action: "modify", sha256_before: "sha256:" + "a".repeat(64), sha256_after: null }],
    failure: {
      code,
      message: `attempt ${n} failed with ${code}`,
      advice: "ask again",
      error_context: { message: `${code}: fix attempt ${n}`, path: "internal/store/store.go" },
    },
  };
}

const accepted: CheckChangeResult = {
  status: "accepted",
  format: "unified",
  files: [{ path: "internal/store/store.go", action: "modify", sha256_before: "sha256:" + "a".repeat(64), sha256_after: "sha256:" + "b".repeat(64) }],
  edit: { documentChanges: [] },
};

/** ctxd's two commands, scripted: a prompt per render, the verdicts in order. */
class FakeCommands implements ChangeCommands {
  readonly renders: RenderPromptRequest[] = [];
  readonly checks: CheckChangeArgs[] = [];
  constructor(private readonly verdicts: CheckChangeResult[]) {}

  async renderPrompt(request: RenderPromptRequest): Promise<PromptResult> {
    this.renders.push(request);
    const n = this.renders.length;
    const lastError = request.last_error ? `\n\nLast error: ${request.last_error.message}` : "";
    return {
      prompt: {
        schema: "ctxd.prompt.v1",
        template_id: "default-diff",
        template_sha256: "",
        bundle_id: `bundle-${n}`,
        bundle_fingerprint: "",
        correlation_id: "",
        purpose: "diff",
        model: { provider: "openai", model: "m", max_input_tokens: 1, max_output_tokens: 1, response_token_reserve: 0, soft_limit_threshold_pct: 80 },
        messages: [
          { role: "system", content: "rules" },
          { role: "user", content: `${request.intent?.text}${lastError}` },
        ],
        token_counts: { system: 1, user: 1, total: 100 + n, hard_limit: 1000, estimator: "o200k_base" },
      },
      prompt_artifact: "",
      context_artifact: "",
      manifest: null,
      redaction_report: null,
      budget_report: null,
    };
  }

  async checkChange(args: CheckChangeArgs): Promise<CheckChangeResult> {
    this.checks.push(args);
    return this.verdicts[Math.min(this.checks.length, this.verdicts.length) - 1]!;
  }
}

/** A model that answers "answer N" and remembers what it was sent. */
class FakeChat implements ChatModel {
  readonly provider = "fake";
  readonly model = "fake-1";
  readonly label = "fake model";
  readonly sent: ChatMessage[][] = [];
  constructor(readonly maxInputTokens?: number) {}
  async send(messages: readonly ChatMessage[], _token: CancelToken | undefined, onText?: (t: string) => void): Promise<string> {
    this.sent.push([...messages]);
    const answer = `answer ${this.sent.length}`;
    onText?.(answer.slice(0, 3));
    onText?.(answer.slice(3));
    return answer;
  }
}

describe("runChange", () => {
  it("converges on the second attempt: the retry carries the rejection's error_context in a new turn", async () => {
    const commands = new FakeCommands([rejected("CHANGE_CONTEXT_MISMATCH", 1), accepted]);
    const chat = new FakeChat();
    const events: ChangeEvent[] = [];
    const outcome = await runChange({ commands, model: chat, request: base, intent: "  sort by name  ", maxRetries: 2, maxOutputTokens: 4096, threadId: "change-t", onEvent: (e) => events.push(e) });
    assert.equal(outcome.kind, "accepted");
    assert.equal(outcome.attempts.length, 2);
    assert.equal(outcome.kind === "accepted" && outcome.result, accepted);

    const [first, second] = commands.renders;
    assert.deepEqual(first!.thread, { thread_id: "change-t", turn_id: "attempt-1", declared_refs: [] });
    assert.deepEqual(second!.thread, { thread_id: "change-t", turn_id: "attempt-2", parent_turn_id: "attempt-1", declared_refs: [] });
    assert.equal(first!.purpose, "diff");
    assert.deepEqual(first!.intent, { id: "change-t", text: "sort by name" });
    assert.equal(first!.last_error, undefined);
    assert.deepEqual(second!.last_error, { message: "CHANGE_CONTEXT_MISMATCH: fix attempt 1", path: "internal/store/store.go" });
    assert.deepEqual(first!.selection, base.selection, "the target is the base request's");
    assert.equal(first!.model?.provider, "fake");
    assert.equal(first!.model?.model, "fake-1");
    assert.equal(first!.model?.max_output_tokens, 4096);
    assert.equal(first!.model?.max_input_tokens, 32000, "the ctxd.model.* settings stay when the model reports no window");

    assert.deepEqual(commands.checks, [
      { answer: "answer 1", bundle_id: "bundle-1", thread_id: "change-t", turn_id: "attempt-1" },
      { answer: "answer 2", bundle_id: "bundle-2", thread_id: "change-t", turn_id: "attempt-2" },
    ]);
    assert.match(chat.sent[1]![1]!.content, /Last error: CHANGE_CONTEXT_MISMATCH: fix attempt 1/);

    assert.deepEqual(
      events.map((e) => e.kind),
      ["rendering", "asking", "receiving", "receiving", "checking", "rejected", "rendering", "asking", "receiving", "receiving", "checking", "accepted"],
    );
    const receiving = events.filter((e) => e.kind === "receiving").map((e) => (e.kind === "receiving" ? e.characters : 0));
    assert.deepEqual(receiving, [3, 8, 3, 8], "characters received so far");
  });

  it("a file created outside the bundle: the retry names it in plan_step.new_files, and the run converges", async () => {
    const notInBundle: CheckChangeResult = {
      status: "rejected",
      format: "unified",
      files: [
        { path: "internal/store/store.go", action: "modify", sha256_before: "sha256:" + "a".repeat(64), sha256_after: "sha256:" + "c".repeat(64) },
        { path: "pkg/new.go", action: "create", sha256_before: null, sha256_after: "sha256:" + "d".repeat(64) },
      ],
      failure: {
        code: "CHANGE_NOT_IN_BUNDLE",
        message: "pkg/new.go is not in the bundle",
        advice: "build a bundle that names the file",
        error_context: { message: "CHANGE_NOT_IN_BUNDLE: pkg/new.go", path: "pkg/new.go" },
      },
    };
    const commands = new FakeCommands([notInBundle, rejected("CHANGE_SYNTAX_ERROR", 2), accepted]);
    const outcome = await runChange({ commands, model: new FakeChat(), request: base, intent: " add a helper ", maxRetries: 2, maxOutputTokens: 100, threadId: "change-t" });
    assert.equal(outcome.kind, "accepted");
    assert.equal(outcome.attempts.length, 3, "the creation retry counts within maxRetries");
    const [first, second, third] = commands.renders;
    assert.equal(first!.plan_step, undefined);
    assert.deepEqual(second!.plan_step, { id: "change", text: "add a helper", new_files: ["pkg/new.go"] });
    assert.deepEqual(second!.last_error, { message: "CHANGE_NOT_IN_BUNDLE: pkg/new.go", path: "pkg/new.go" });
    assert.deepEqual(second!.selection, base.selection, "the selection stays the target");
    assert.equal(second!.active_file, base.active_file);
    assert.deepEqual(third!.plan_step?.new_files, ["pkg/new.go"], "later attempts keep the new files");
    assert.equal(third!.last_error?.message, "CHANGE_SYNTAX_ERROR: fix attempt 2");
    assert.equal(base.plan_step, undefined, "the base request is not changed");

    // Converges on attempt 2 when it is accepted; a base plan step is kept and merged.
    const step = { id: "symbols", text: "", target_symbols: ["Store.Get"], new_files: ["pkg/new.go", "pkg/other.go"] };
    const commands2 = new FakeCommands([notInBundle, accepted]);
    const outcome2 = await runChange({ commands: commands2, model: new FakeChat(), request: { ...base, plan_step: step }, intent: "add", maxRetries: 1, maxOutputTokens: 100, threadId: "t" });
    assert.equal(outcome2.kind, "accepted");
    assert.equal(outcome2.attempts.length, 2);
    assert.deepEqual(commands2.renders[0]!.plan_step, step);
    assert.deepEqual(commands2.renders[1]!.plan_step, { id: "symbols", text: "add", target_symbols: ["Store.Get"], new_files: ["pkg/new.go", "pkg/other.go"] });
    assert.deepEqual(step.new_files, ["pkg/new.go", "pkg/other.go"], "the base step is not changed");
  });

  it("a modified file outside the bundle adds no new_files", async () => {
    const modifyOnly = rejected("CHANGE_NOT_IN_BUNDLE", 1);
    const commands = new FakeCommands([modifyOnly, accepted]);
    const outcome = await runChange({ commands, model: new FakeChat(), request: base, intent: "x", maxRetries: 2, maxOutputTokens: 100, threadId: "t" });
    assert.equal(outcome.kind, "accepted");
    assert.equal(commands.renders[1]!.plan_step, undefined);
    assert.deepEqual(commands.renders[1]!.last_error, { message: "CHANGE_NOT_IN_BUNDLE: fix attempt 1", path: "internal/store/store.go" });

    assert.deepEqual(filesToCreate(modifyOnly), []);
    const created = { path: "pkg/new.go", action: "create" as const, sha256_before: null, sha256_after: null };
    assert.deepEqual(filesToCreate({ ...modifyOnly, files: [...modifyOnly.files, created] }), [], "the failure names a modified file outside the bundle");
    const other = rejected("CHANGE_SYNTAX_ERROR", 1);
    assert.deepEqual(filesToCreate({ ...other, files: [created] }), [], "another code adds nothing");
  });

  it("stops at the bound: maxRetries + 1 attempts, every code reported", async () => {
    const commands = new FakeCommands([rejected("CHANGE_CONTEXT_MISMATCH", 1), rejected("CHANGE_SYNTAX_ERROR", 2), rejected("CHANGE_SECRET", 3), accepted]);
    const outcome = await runChange({ commands, model: new FakeChat(), request: base, intent: "x", maxRetries: 2, maxOutputTokens: 100, threadId: "change-t" });
    assert.equal(outcome.kind, "rejected");
    assert.equal(outcome.attempts.length, 3);
    assert.equal(commands.checks.length, 3, "the accepted verdict after the bound is never reached");
    assert.equal(rejectionCodes(outcome.attempts), "1: CHANGE_CONTEXT_MISMATCH, 2: CHANGE_SYNTAX_ERROR, 3: CHANGE_SECRET");
    assert.equal(outcome.kind === "rejected" && failureNotice(outcome), "ctxd: no acceptable change after 3 attempts (1: CHANGE_CONTEXT_MISMATCH, 2: CHANGE_SYNTAX_ERROR, 3: CHANGE_SECRET). Last: CHANGE_SECRET: attempt 3 failed with CHANGE_SECRET");
    assert.equal(commands.renders[2]!.thread?.parent_turn_id, "attempt-2");
    assert.equal(commands.renders[2]!.last_error?.message, "CHANGE_SYNTAX_ERROR: fix attempt 2");

    const none = await runChange({ commands: new FakeCommands([rejected("CHANGE_MALFORMED", 1)]), model: new FakeChat(), request: base, intent: "x", maxRetries: 0, maxOutputTokens: 100 });
    assert.equal(none.attempts.length, 1, "maxRetries 0: one attempt");
    assert.match(none.threadId, /^change-\d{8}T\d{6}Z-[0-9a-f]{6}$/);
  });

  it("cancel stops it: between attempts, and during the model's answer", async () => {
    const source = cancelSource();
    const commands = new FakeCommands([rejected("CHANGE_CONTEXT_MISMATCH", 1), accepted]);
    const outcome = await runChange({
      commands,
      model: new FakeChat(),
      request: base,
      intent: "x",
      maxRetries: 5,
      maxOutputTokens: 100,
      token: source.token,
      onEvent: (e) => {
        if (e.kind === "rejected") source.cancel();
      },
    });
    assert.equal(outcome.kind, "cancelled");
    assert.equal(outcome.attempts.length, 1);
    assert.equal(commands.renders.length, 1, "no second prompt after the cancel");

    const mid = cancelSource();
    const cancelling: ChatModel = {
      provider: "p",
      model: "m",
      label: "l",
      send: async () => {
        mid.cancel();
        throw new ModelError("cancelled", "cancelled");
      },
    };
    const commands2 = new FakeCommands([accepted]);
    const outcome2 = await runChange({ commands: commands2, model: cancelling, request: base, intent: "x", maxRetries: 2, maxOutputTokens: 100, token: mid.token });
    assert.equal(outcome2.kind, "cancelled");
    assert.equal(commands2.checks.length, 0, "a cancelled answer is never checked");
  });

  it("errors of the model and of ctxd propagate", async () => {
    const failing: ChatModel = { provider: "p", model: "m", label: "l", send: async () => Promise.reject(new ModelError("http", "answered 500")) };
    await assert.rejects(runChange({ commands: new FakeCommands([accepted]), model: failing, request: base, intent: "x", maxRetries: 2, maxOutputTokens: 1 }), /answered 500/);
    const noPrompt: ChangeCommands = {
      renderPrompt: async () => ({ prompt: null, prompt_artifact: "", context_artifact: "", manifest: null, redaction_report: null, budget_report: null }),
      checkChange: async () => accepted,
    };
    await assert.rejects(runChange({ commands: noPrompt, model: new FakeChat(), request: base, intent: "x", maxRetries: 2, maxOutputTokens: 1 }), /without a prompt/);
  });
});

describe("the request of an attempt", () => {
  it("the model's own window sets max_input_tokens, with a 5% margin unless a reserve is set", () => {
    assert.deepEqual(changeModel(undefined, { provider: "copilot", model: "gpt-4o", maxInputTokens: 64000 }, 4096), {
      provider: "copilot",
      model: "gpt-4o",
      max_output_tokens: 4096,
      max_input_tokens: 64000,
      response_token_reserve: 3200,
    });
    assert.equal(changeModel({ response_token_reserve: 1000, soft_limit_threshold_pct: 90 }, { provider: "c", model: "m", maxInputTokens: 64000 }, 1).response_token_reserve, 1000);
    assert.equal(changeModel({ response_token_reserve: 99999 }, { provider: "c", model: "m", maxInputTokens: 8000 }, 1).response_token_reserve, 400, "a reserve that does not fit the window is replaced");
    assert.deepEqual(changeModel({ provider: "openai", model: "gpt-4o", soft_limit_threshold_pct: 90 }, { provider: "anthropic", model: "claude" }, 2048), {
      provider: "anthropic",
      model: "claude",
      soft_limit_threshold_pct: 90,
      max_output_tokens: 2048,
    });
  });

  it("attemptRequest keeps the target and drops a stale last_error", () => {
    const withError = { ...base, last_error: { message: "old" } };
    const req = attemptRequest(withError, { id: "t", text: "x" }, {}, "t", 1, undefined);
    assert.equal(req.last_error, undefined);
    assert.equal(req.active_file, base.active_file);
    assert.equal(attemptRequest(base, { id: "t", text: "x" }, {}, "t", 3, { message: "m" }).thread?.parent_turn_id, "attempt-2");
  });

  it("thread ids: change-<UTC time>-<random>", () => {
    assert.equal(newThreadId(new Date("2025-11-28T17:49:00.123Z"), () => 0.25), "change-20251128T174900Z-400000");
  });
});

describe("settings and history", () => {
  it("reads ctxd.change.* with defaults and bounds", () => {
    assert.deepEqual(readChangeSettings(() => undefined), { provider: "vscode-lm", maxRetries: 2, maxOutputTokens: 4096 });
    const values: Record<string, unknown> = {
      "change.provider": "anthropic",
      "change.baseUrl": " http://127.0.0.1:8080 ",
      "change.model": "claude",
      "change.lmVendor": "",
      "change.lmFamily": null,
      "change.maxRetries": 9,
      "change.maxOutputTokens": 1000,
    };
    assert.deepEqual(readChangeSettings((k) => values[k]), { provider: "anthropic", baseUrl: "http://127.0.0.1:8080", model: "claude", maxRetries: 5, maxOutputTokens: 1000 });
    assert.equal(readChangeSettings((k) => ({ "change.provider": "gemini", "change.maxRetries": 1.5 })[k]).provider, "vscode-lm");
  });

  it("keeps the last 20 intents, most recent first, without duplicates", () => {
    let h: string[] = [];
    for (let i = 0; i < 25; i++) h = rememberIntent(h, `intent ${i}`);
    assert.equal(h.length, IntentHistorySize);
    assert.equal(h[0], "intent 24");
    assert.equal(h[19], "intent 5");
    h = rememberIntent(h, " intent 10 ");
    assert.equal(h[0], "intent 10");
    assert.equal(h.filter((x) => x === "intent 10").length, 1);
    assert.deepEqual(rememberIntent(["a"], "   "), ["a"]);
    assert.deepEqual(intentHistory(["a", 3, "", null, "b"]), ["a", "b"]);
    assert.deepEqual(intentHistory(undefined), []);
  });
});

describe("messages", () => {
  it("progress: the attempt, the characters, and the earlier rejections", async () => {
    const commands = new FakeCommands([rejected("CHANGE_CONTEXT_MISMATCH", 1), accepted]);
    const outcome = await runChange({ commands, model: new FakeChat(), request: base, intent: "x", maxRetries: 2, maxOutputTokens: 1, threadId: "t" });
    const first = outcome.attempts.slice(0, 1);
    assert.equal(progressMessage({ kind: "receiving", attempt: 2, of: 3, characters: 12345 }, first, "m"), "attempt 2/3: 12,345 characters received (rejected: 1: CHANGE_CONTEXT_MISMATCH)");
    assert.equal(progressMessage({ kind: "asking", attempt: 1, of: 3, bundleId: "b" }, [], "gpt"), "attempt 1/3: asking gpt…");
  });

  it("a rejection's notification: code, the message's first line, the advice", () => {
    const failure = rejected("CHANGE_CONTEXT_MISMATCH", 1).failure!;
    failure.message = "store.go:48: the hunk does not match the file.\nThe closest lines are:\n48: x";
    failure.advice = "copy the lines exactly";
    assert.equal(rejectionNotice(1, 3, failure), "ctxd: attempt 1/3 rejected (CHANGE_CONTEXT_MISMATCH): store.go:48: the hunk does not match the file. Copy the lines exactly. Asking again…");
  });

  it("details: every attempt, its rejection and explanation; a secret-bearing answer is not shown", async () => {
    const commands = new FakeCommands([rejected("CHANGE_CONTEXT_MISMATCH", 1), rejected("CHANGE_SECRET", 2)]);
    const outcome = await runChange({ commands, model: new FakeChat(), request: base, intent: "add a key", maxRetries: 1, maxOutputTokens: 1, threadId: "t" });
    const md = changeDetailsMarkdown(outcome, "add a key", "fake model");
    assert.match(md, /^# ctxd: Generate Change\n/);
    assert.match(md, /## Attempt 1: rejected \(`CHANGE_CONTEXT_MISMATCH`\)/);
    assert.match(md, /## Attempt 2: rejected \(`CHANGE_SECRET`\)/);
    assert.match(md, /CHANGE_CONTEXT_MISMATCH: fix attempt 1\nLocation: internal\/store\/store.go/);
    assert.match(md, /> CHANGE_SECRET: the change adds a credential/);
    assert.ok(md.includes("answer 1"), "a rejected answer is shown");
    assert.ok(!md.includes("answer 2"), "the answer with a credential is not");
    assert.match(md, /The answer is not shown: it carries a credential\./);
  });
});

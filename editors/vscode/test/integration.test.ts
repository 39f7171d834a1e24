// The extension's request builders, command layer and renderers against the
// real ctxd on a temporary copy of testdata/example: what the extension
// sends is what the server accepts, and what it answers is what the
// extension shows.

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import { Commands } from "../src/contract.gen";
import type { BuildResult } from "../src/contract.gen";
import { bundleMarkdown, candidateItems, indexStatusMarkdown, promptText, refusalMarkdown, refusalNotice, statusBarModel } from "../src/render";
import { buildRequest, readSettings, renderPromptRequest, withUserSelectedTarget, type EditorState, type Settings } from "../src/request";
import { advertises, CtxdRefusalError } from "../src/rpc";
import { resultTree, treeText } from "../src/tree";
import { DidChangeWatchedFilesNotification, FileChangeType } from "vscode-languageserver-protocol/node";
import { copyWorkspace, exampleWorkspace, fileUri, requireBinary, startServer, type Server } from "./harness";

/** A second definition of Store.List, so that the name "List" is ambiguous. */
const legacyStore = `// Package legacy is the store before the rewrite.
package legacy

// Store keeps names.
type Store struct{ names []string }

// List returns the names.
func (s *Store) List() []string { return s.names }
`;

/** Two declarations on one line after CJK and emoji: only a correctly converted selection lands in Hello. */
const i18n = `package store

var note = "日本語😀日本語😀"; func Hello() string { return note }
`;

const defaults: Settings = readSettings(() => undefined);

/** The editor state of a workspace file, as editorState.ts would make it. */
function stateOf(file: string, selection?: EditorState["selection"], settings: Settings = defaults): EditorState {
  const text = fs.readFileSync(file, "utf8");
  const state: EditorState = { uri: fileUri(file), languageId: file.endsWith(".go") ? "go" : "plaintext", text, settings };
  if (selection !== undefined) {
    state.selection = selection;
  }
  return state;
}

/** The UTF-16 range of the first occurrence of `needle` on its line, as VS Code reports a selection. */
function selectionOf(file: string, needle: string): NonNullable<EditorState["selection"]> {
  const lines = fs.readFileSync(file, "utf8").split("\n");
  const line = lines.findIndex((l) => l.includes(needle));
  assert.notEqual(line, -1, `${needle} is in ${file}`);
  const character = lines[line]!.indexOf(needle);
  return { start: { line, character }, end: { line, character: character + needle.length } };
}

async function refusalOf(promise: Promise<unknown>): Promise<CtxdRefusalError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof CtxdRefusalError, `a refusal, got ${String(err)}`);
    return err;
  }
  assert.fail("the request was not refused");
}

describe("against the real ctxd", { timeout: 120_000 }, () => {
  let workspace = "";
  let store = "";
  let utf16: Server;
  let utf8: Server;

  before(async () => {
    requireBinary();
    workspace = copyWorkspace(exampleWorkspace());
    fs.mkdirSync(path.join(workspace, "internal", "legacy"), { recursive: true });
    fs.writeFileSync(path.join(workspace, "internal", "legacy", "store.go"), legacyStore);
    fs.writeFileSync(path.join(workspace, "internal", "store", "i18n.go"), i18n);
    store = path.join(workspace, "internal", "store", "store.go");
    utf16 = await startServer(workspace, ["utf-16"]);
    utf8 = await startServer(workspace, ["utf-8", "utf-16"]);
    utf16.open(store, "go");
  });

  after(async () => {
    await Promise.all([utf16?.stop(), utf8?.stop()]);
    if (workspace !== "") {
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  });

  it("negotiates the position encoding the extension offers", () => {
    assert.equal(utf16.encoding, "utf-16");
    assert.equal(utf8.encoding, "utf-8");
    for (const command of Object.values(Commands)) {
      assert.ok(advertises(utf16.initializeResult, command), `${command} is advertised`);
    }
  });

  let fileBuild: BuildResult;

  it("buildContext for the active file", async () => {
    const req = buildRequest(stateOf(store), { scope: "file", encoding: utf16.encoding });
    fileBuild = await utf16.commands.buildContext(req);
    assert.deepEqual(fileBuild.manifest?.selection.target_files, ["internal/store/store.go"]);
    const target = fileBuild.bundle?.blocks.find((b) => b.meta.path === "internal/store/store.go" && b.block_type === "file");
    assert.ok(target, "the target file is a block");
    assert.equal(target.priority, "P0");
    assert.equal(fileBuild.budget_report?.decision, "ok");
    assert.deepEqual(fileBuild.manifest?.selection.excluded_candidates, []);
    const tree = treeText(resultTree(fileBuild));
    assert.match(tree, /▾ P0 {2}— {2}\d+ blocks\n/);
    assert.ok(tree.includes("      file internal/store/store.go  —  "));
    assert.ok(bundleMarkdown(fileBuild).includes("### 3. P0 file: internal/store/store.go"));
  });

  it("buildContext for a selection targets the enclosing symbol", async () => {
    const req = buildRequest(stateOf(store, selectionOf(store, "sort.Slice")), { scope: "selection", encoding: utf16.encoding });
    assert.ok(req.selection, "the selection is sent");
    const result = await utf16.commands.buildContext(req);
    assert.deepEqual(result.manifest?.selection.target_symbols, ["Store.List"]);
    const hint = result.bundle?.blocks.find((b) => b.block_type === "diff_hint");
    assert.match(hint?.content ?? "", /internal\/store\/store\.go: lines 49-59 \(Store\.List\)/);
  });

  it("buildContext for a selection after CJK and emoji, negotiated in utf-8 and in utf-16", async () => {
    const file = path.join(workspace, "internal", "store", "i18n.go");
    const selection = selectionOf(file, "Hello");
    for (const server of [utf8, utf16]) {
      const req = buildRequest(stateOf(file, selection), { scope: "selection", encoding: server.encoding });
      const result = await server.commands.manifest(req);
      assert.deepEqual(result.manifest?.selection.target_symbols, ["Hello"], `${server.encoding}: ${JSON.stringify(req.selection)}`);
    }
    const utf8Range = buildRequest(stateOf(file, selection), { scope: "selection", encoding: "utf-8" }).selection?.range;
    assert.deepEqual(utf8Range, { start: { line: 2, character: 46 }, end: { line: 2, character: 51 } });
    // The same UTF-16 columns sent unconverted to the UTF-8 server land in the string before Hello.
    const raw = buildRequest(stateOf(file, selection), { scope: "selection", encoding: "utf-16" });
    const wrong = await utf8.commands.manifest(raw);
    assert.notDeepEqual(wrong.manifest?.selection.target_symbols, ["Hello"]);
  });

  it("budget and manifest agree with the build", async () => {
    const state = stateOf(store, { start: { line: 3, character: 0 }, end: { line: 3, character: 0 } });
    const req = buildRequest(state, { scope: "live", encoding: utf16.encoding });
    assert.equal(req.selection, undefined, "an empty selection is the file for the status bar");
    const budget = await utf16.commands.budget(req);
    assert.equal(budget.budget_report?.bundle_id, "");
    assert.equal(budget.budget_report?.estimated_input_tokens, fileBuild.budget_report?.estimated_input_tokens);
    assert.equal(budget.counts.target_files, 1);
    assert.equal(statusBarModel({ kind: "budget", result: budget, scope: "file" }).background, undefined);
    const manifest = await utf16.commands.manifest(req);
    assert.equal(manifest.manifest?.fingerprints.bundle_fingerprint, fileBuild.manifest?.fingerprints.bundle_fingerprint);
  });

  it("the model settings drive the budget: a warning, then a hard-limit refusal", async () => {
    const estimated = fileBuild.budget_report!.estimated_input_tokens;
    const warnSettings = readSettings((key) => ({ "model.maxInputTokens": estimated + 60, "model.responseTokenReserve": 10, "model.softLimitPct": 50 })[key]);
    const warn = await utf16.commands.budget(buildRequest(stateOf(store, undefined, warnSettings), { scope: "live", encoding: utf16.encoding }));
    assert.equal(warn.budget_report?.decision, "warn_soft_limit");
    assert.equal(warn.budget_report?.hard_limit_tokens, estimated + 50);
    const model = statusBarModel({ kind: "budget", result: warn, scope: "file" });
    assert.equal(model.background, "warning");
    assert.ok(model.text.startsWith("$(warning) "));

    const tightSettings = readSettings((key) => ({ "model.maxInputTokens": 200, "model.responseTokenReserve": 10 })[key]);
    const tight = buildRequest(stateOf(store, undefined, tightSettings), { scope: "live", encoding: utf16.encoding });
    const over = await utf16.commands.budget(tight);
    assert.equal(over.budget_report?.decision, "refuse_hard_limit");
    assert.equal(statusBarModel({ kind: "budget", result: over, scope: "file" }).background, "error");
    const refused = await refusalOf(utf16.commands.buildContext(tight));
    assert.equal(refused.refusal.code, "REFUSE_CONTEXT_TOO_LARGE");
  });

  it("renderPrompt, as Copy Prompt uses it", async () => {
    assert.ok(advertises(utf16.initializeResult, Commands.renderPrompt));
    const req = renderPromptRequest(buildRequest(stateOf(store), { scope: "file", encoding: utf16.encoding }));
    const result = await utf16.commands.renderPrompt(req);
    assert.equal(result.prompt?.schema, "ctxd.prompt.v1");
    assert.equal(result.prompt?.template_id, "default-diff");
    assert.deepEqual(result.prompt?.messages.map((m) => m.role), ["system", "user"]);
    const text = promptText(result.prompt!);
    assert.ok(text.includes("internal/store/store.go"));
    assert.ok(fs.existsSync(path.join(workspace, result.prompt_artifact)), "the prompt artifact was recorded");
  });

  it("a refusal: .env alone", async () => {
    const env = path.join(workspace, ".env");
    const refused = await refusalOf(utf16.commands.buildContext(buildRequest(stateOf(env), { scope: "file", encoding: utf16.encoding })));
    assert.match(refused.refusal.code, /^REFUSE_/);
    const notice = refusalNotice(refused.refusal);
    assert.ok(notice.message.startsWith(`ctxd refused (${refused.refusal.code}): `));
    assert.deepEqual(JSON.parse(notice.details), refused.refusal);
    assert.ok(!notice.details.includes("not-a-real-password"), "the refusal never carries the file's contents");
    const status = statusBarModel({ kind: "refusal", refusal: refused.refusal, scope: "file" });
    assert.equal(status.background, "error");
  });

  it("an ambiguous target, answered from the candidates and retried", async () => {
    const req = buildRequest(stateOf(store), { scope: "file", encoding: utf16.encoding, symbols: ["List"] });
    const refused = await refusalOf(utf16.commands.buildContext(req));
    assert.equal(refused.refusal.code, "REFUSE_AMBIGUOUS_TARGET");
    const items = candidateItems(refused.refusal.candidates ?? []);
    assert.deepEqual(
      items.map((i) => i.description),
      ["internal/legacy/store.go:8", "internal/store/store.go:50"],
    );
    // The details document names the same 1-based lines; its JSON keeps the server's 0-based ranges.
    const details = refusalMarkdown(refused.refusal);
    assert.match(details, /^\| `Store\.List` \| method \| `internal\/legacy\/store\.go` \| 8 \|$/m);
    assert.match(details, /^\| `Store\.List` \| method \| `internal\/store\/store\.go` \| 50(-\d+)? \|$/m);
    assert.match(details, /"line": 7,/);
    const retry = withUserSelectedTarget(req, items[0]!.candidate);
    assert.deepEqual(retry.user_selected_targets, [{ path: "internal/legacy/store.go", symbol: "Store.List" }]);
    const result = await utf16.commands.buildContext(retry);
    assert.deepEqual(result.manifest?.selection.target_files, ["internal/legacy/store.go"]);
    assert.deepEqual(result.manifest?.selection.target_symbols, ["Store.List"]);
  });

  it("index status", async () => {
    // VS Code's file watcher reports what the builds above recorded in .ctxd/ (audit trail, artifacts).
    const recorded = fs.readdirSync(path.join(workspace, ".ctxd"), { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    await utf16.connection.sendNotification(DidChangeWatchedFilesNotification.type, {
      changes: recorded.map((e) => ({ uri: fileUri(path.join(e.parentPath, e.name)), type: FileChangeType.Created })),
    });
    let status = await utf16.commands.indexStatus(true);
    for (let i = 0; i < 500 && status.index.state !== "ready"; i++) {
      await new Promise((r) => setTimeout(r, 20));
      status = await utf16.commands.indexStatus(true);
    }
    assert.equal(status.position_encoding, "utf-16");
    assert.equal(status.index.state, "ready");
    assert.ok(status.open_documents.some((d) => d.uri.endsWith("/internal/store/store.go")));
    const md = indexStatusMarkdown(status);
    assert.match(md, /^\| files \| bytes \| symbols \| parse errors \| open files \| skipped \|\n\|--:\|/m, "the counts have a header row");
    assert.match(md, /^\| `\.env` \| `deny_rule` \| deny:\d+: \.env \|$/m);
    assert.ok(!md.includes("\\_"), "no escaped underscores");
    // The builds above recorded into .ctxd/ (audit trail, artifacts), which the watcher reported: whatever
    // the server lists of ctxd's records (the folder, or its files), the document has one row for them.
    const records = status.index.roots.flatMap((r) => r.skipped_files ?? []).filter((f) => f.path.startsWith(".ctxd/"));
    assert.ok(records.length >= 1, "the server lists ctxd's records");
    assert.match(md, /^\| `\.ctxd\/` \| ctxd's own records \| [^|]*\|$/m);
    assert.doesNotMatch(md, /^\| `\.ctxd\/[^`]/m, "no row per record");
  });

  it("the same symbol request from any editor gives the same bundle: only the name, and the server's line counts", async () => {
    const req = buildRequest(stateOf(store), { scope: "file", encoding: utf16.encoding, symbols: ["Store.Get"] });
    // What docs/editors.md says every editor sends for a symbol, nothing more.
    const neutral = { purpose: "diff", active_file: fileUri(store), plan_step: { id: "symbols", target_symbols: ["Store.Get"] } };
    assert.deepEqual(req, neutral);
    const a = await utf16.commands.buildContext(req);
    const b = await utf16.commands.buildContext(JSON.parse(JSON.stringify(neutral)));
    assert.equal(a.bundle?.bundle_id, b.bundle?.bundle_id);
    assert.equal(a.budget_report?.estimated_input_tokens, b.budget_report?.estimated_input_tokens);
    const system = a.bundle!.blocks.find((bl) => bl.block_type === "system")!;
    assert.doesNotMatch(system.content, /Plan step/, "no plan-step line the user did not write");
    // Every line count shown is the server's: the file's block says meta.line_count, which counts
    // lines as the editor numbers them (a final line break starts one more, empty, line).
    const file = a.bundle!.blocks.find((bl) => bl.meta?.path === "internal/store/store.go")!;
    assert.equal(file.meta.line_count, fs.readFileSync(store, "utf8").split("\n").length);
    assert.ok(bundleMarkdown(a).includes(`\`internal/store/store.go\`, ${file.meta.line_count} lines,`), "the bundle document shows the server's count");
  });
});

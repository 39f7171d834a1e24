// The whole extension (activation, vscode-languageclient, commands, status
// bar, results view, API) against the real ctxd, with test/fakeVscode.ts in
// place of the `vscode` module since VS Code cannot run here. This checks
// the wiring the unit tests cannot: that the client starts the binary the
// settings name, that the contributed commands do not collide with the
// server's, and that what the user would see is what ctxd answered.

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import type { CtxdApi } from "../api";
import { Commands } from "../src/contract.gen";
import { ClientCommands, MarkdownPreviewEditor, ViewIds } from "../src/ids";
import type { TreeNode } from "../src/tree";
import * as fake from "./fakeVscode";
import { routeVscodeToFake, until } from "./fakeModule";
import { copyWorkspace, exampleWorkspace, extensionRoot, fileUri, requireBinary } from "./harness";

routeVscodeToFake();

interface Extension {
  activate(context: { extensionPath: string; subscriptions: { dispose(): unknown }[] }): CtxdApi;
  deactivate(): Promise<void>;
}


const legacyStore = "package legacy\n\n// Store keeps names.\ntype Store struct{ names []string }\n\n// List returns the names.\nfunc (s *Store) List() []string { return s.names }\n";

describe("the extension in a fake VS Code, against the real ctxd", { timeout: 120_000 }, () => {
  let workspace = "";
  let ext: Extension;
  let api: CtxdApi;
  const subscriptions: { dispose(): unknown }[] = [];
  let store: fake.FakeDocument;
  const status = () => fake.recorded.statusItems[fake.recorded.statusItems.length - 1];
  const treeRoots = (): TreeNode[] => fake.recorded.trees.get(ViewIds.results).getChildren();
  const docText = (docPath: string): string => fake.recorded.contentProviders.get("ctxd").provideTextDocumentContent(fake.Uri.from({ scheme: "ctxd", path: docPath }));

  before(async () => {
    const bin = requireBinary();
    workspace = copyWorkspace(exampleWorkspace());
    fs.mkdirSync(path.join(workspace, "internal", "legacy"), { recursive: true });
    fs.writeFileSync(path.join(workspace, "internal", "legacy", "store.go"), legacyStore);
    fake.workspace.workspaceFolders = [{ uri: fake.Uri.file(workspace), name: "example", index: 0 }];
    fake.settings.set("ctxd.server.path", bin);
    fake.settings.set("ctxd.server.extraArgs", ["--cache-dir", "off", "--log-level", "warn"]);
    const storePath = path.join(workspace, "internal", "store", "store.go");
    store = new fake.FakeDocument(fake.Uri.file(storePath), "go", fs.readFileSync(storePath, "utf8"));
    fake.openDocument(store);
    fake.setActiveEditor(store);
    // The intent question of the builds: none (Enter without typing).
    fake.answers.createdQuickPick = (_labels, title) => (title?.includes("intent") ? { pick: "No intent" } : undefined);
    ext = require("../src/extension") as Extension;
    api = ext.activate({ extensionPath: extensionRoot, subscriptions });
    await until("the status bar budget", () => /tokens$/.test(status()?.text ?? ""));
  });

  after(async () => {
    await ext?.deactivate();
    subscriptions.forEach((s) => s.dispose());
    if (workspace !== "") {
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  });

  it("starts ctxd from ctxd.server.path and registers its commands next to the server's", () => {
    const registered = fake.registeredCommands();
    for (const id of [...Object.values(ClientCommands), ...Object.values(Commands)]) {
      assert.ok(registered.includes(id), `${id} is registered`);
    }
    const log = fake.outputChannels[0].lines.join("\n");
    assert.match(log, /starting .*ctxd \(found by setting\): ctxd /);
    assert.match(log, /ctxd is running; position encoding utf-16/);
  });

  it("vscode-languageclient shows ctxd's indexing progress in the window's status bar", async () => {
    // The client announces window.workDoneProgress (the extension does not
    // turn it off), so ctxd sends its scan of the folder as work-done
    // progress, which vscode-languageclient shows with withProgress.
    const indexing = () => fake.recorded.progress.find((p) => p.options.title === "ctxd: indexing");
    await until("the indexing progress to end", () => indexing()?.done === true);
    const p = indexing()!;
    assert.equal(p.options.location, fake.ProgressLocation.Window);
    assert.equal(p.reports[0]?.message, "example", "the begin names the folder");
    assert.ok(p.reports.some((r) => /^(?:(?:listing|parsing) )?[\d,]+\/[\d,]+ files$/.test(r.message ?? "")), `a report of files done/total in ${JSON.stringify(p.reports)}`);
    // The begin says 0%, so the client follows the percentages: their
    // increments add up to the whole scan.
    assert.equal(p.reports.reduce((n, r) => n + (r.increment ?? 0), 0), 100, JSON.stringify(p.reports));
  });

  it("the status bar shows the file's budget and opens Show Budget", () => {
    const item = status();
    assert.match(item.text, /^\$\(pass\) [\d,]+\/124,000 tokens$/);
    assert.equal(item.backgroundColor, undefined);
    assert.equal(item.command, ClientCommands.showBudget);
    assert.match(item.tooltip.value, /^\*\*ctxd budget\*\* of the file: `ok`/);
    assert.equal(item.visible, true);
  });

  it("follows the selection and the edits", async () => {
    const before = status().text;
    const line = store.getText().split("\n").findIndex((l) => l.includes("sort.Slice"));
    fake.setSelection(new fake.Selection(line, 1, line, 20));
    await until("the selection's budget", () => /of the selection/.test(status().tooltip?.value ?? ""));
    assert.ok(status().tooltip.value.startsWith(`**ctxd budget** of the selection (line ${line + 1}): `), "the editor's 1-based line");
    fake.setSelection(new fake.Selection(0, 0, 0, 0));
    await until("the file's budget again", () => status().text === before);
    fake.editDocument(store, store.getText() + "\n// Count returns the number of items in the store, which a longer comment makes costlier.\n");
    await until("the edited file's budget", () => status().text !== before && /tokens$/.test(status().text));
  });

  it("a warning background for a model whose soft limit is exceeded", async () => {
    const tokens = Number(/ ([\d,]+)\//.exec(status().text)![1]!.replace(/,/g, ""));
    fake.settings.set("ctxd.model.maxInputTokens", tokens + 60);
    fake.settings.set("ctxd.model.responseTokenReserve", 10);
    fake.settings.set("ctxd.model.softLimitPct", 50);
    fake.setActiveEditor(store);
    await until("the warning", () => status().text.startsWith("$(warning)"));
    assert.equal(status().backgroundColor?.id, "statusBarItem.warningBackground");
    for (const key of ["ctxd.model.maxInputTokens", "ctxd.model.responseTokenReserve", "ctxd.model.softLimitPct"]) {
      fake.settings.delete(key);
    }
    fake.setActiveEditor(store);
    await until("ok again", () => status().text.startsWith("$(pass)"));
  });

  it("Build Context for Active File fills the results view and the bundle document", async () => {
    await fake.commands.executeCommand(ClientCommands.buildContextActiveFile);
    const labels = treeRoots().map((n) => n.label);
    assert.ok(labels.includes("P0") && labels.includes("Excluded") && labels.includes("Redactions"), labels.join(", "));
    const last = fake.recorded.messages[fake.recorded.messages.length - 1]!;
    assert.match(last.message, /^ctxd built \d+ blocks for internal\/store\/store\.go: [\d,]+\/124,000 tokens, within the soft limit\.$/);
    const bundle = fake.recorded.contentProviders.get("ctxd").provideTextDocumentContent(fake.Uri.from({ scheme: "ctxd", path: "/bundle.md" }));
    assert.match(bundle, /^# ctxd context bundle\n/);
    assert.ok(bundle.includes("// Count returns the number of items"), "the unsaved buffer is what was built");
  });

  it("a block opens its file", async () => {
    const p0 = treeRoots().find((n) => n.label === "P0")!;
    const file = p0.children.find((n) => n.open !== undefined)!;
    const item = fake.recorded.trees.get(ViewIds.results).getTreeItem(file);
    assert.equal(item.command.command, ClientCommands.openBlock);
    await fake.commands.executeCommand(item.command.command, ...item.command.arguments);
    assert.equal(fake.recorded.shownDocuments[fake.recorded.shownDocuments.length - 1], fileUri(path.join(workspace, "internal", "store", "store.go")));
  });

  it("Copy Prompt copies the rendered prompt", async () => {
    await fake.commands.executeCommand(ClientCommands.copyPrompt);
    assert.match(fake.recorded.clipboard, /internal\/store\/store\.go/);
    assert.match(fake.recorded.clipboard, /Write the unified diff\.\n$/);
    assert.match(fake.recorded.messages[fake.recorded.messages.length - 1]!.message, /^ctxd copied the prompt \(default-diff, /);
  });

  it("Show Budget, Show Manifest and Show Index Status open read-only documents", async () => {
    await fake.commands.executeCommand(ClientCommands.showBudget);
    await fake.commands.executeCommand(ClientCommands.showManifest);
    await fake.commands.executeCommand(ClientCommands.showIndexStatus);
    assert.deepEqual(fake.recorded.shownDocuments.slice(-3), ["ctxd:/budget.md", "ctxd:/manifest.md", "ctxd:/index-status.md"]);
    const shown = fake.recorded.shown.slice(-3);
    assert.deepEqual(
      shown.map((d) => d.editor),
      Array(3).fill(MarkdownPreviewEditor),
      "rendered, in the markdown preview editor",
    );
    assert.equal(new Set(shown.map((d) => d.column)).size, 1, "all three in one group");
    assert.equal(fake.editorGroups().length, 2, "the source's group and ctxd's");
    // vscode.openWith pins what it opens: a tab per document, which running its command again reuses.
    const ours = fake.editorGroups().find((g) => g.viewColumn === shown[0]!.column)!;
    const tabs = () => ours.tabs.map((t) => t.input.uri.toString()).filter((u) => u !== "ctxd:/bundle.md");
    assert.deepEqual(tabs(), ["ctxd:/budget.md", "ctxd:/manifest.md", "ctxd:/index-status.md"]);
    await fake.commands.executeCommand(ClientCommands.showBudget);
    assert.deepEqual(tabs(), ["ctxd:/budget.md", "ctxd:/manifest.md", "ctxd:/index-status.md"], "Show Budget again reuses its tab");
    assert.equal(ours.activeTab?.input.uri.toString(), "ctxd:/budget.md");
    const status = docText("/index-status.md");
    assert.match(status, /^\| files \| bytes \| symbols \| parse errors \| open files \| skipped \|$/m);
    assert.match(status, /- Skipped by reason: `deny_rule` \d+/);
  });

  it("ctxd's documents share one group; a block's file opens beside it, not over it", async () => {
    fake.resetEditorGroups();
    fake.setActiveEditor(store);
    await fake.commands.executeCommand(ClientCommands.openBundle);
    assert.deepEqual(fake.recorded.shown.at(-1), { uri: "ctxd:/bundle.md", editor: MarkdownPreviewEditor, asked: fake.ViewColumn.Beside, column: 2, preview: false });
    // Back to the source, then Index Status and Show Budget of a selection (0-based lines 57-58 as VS Code reports them).
    fake.setActiveEditor(store, new fake.Selection(57, 0, 59, 0));
    await fake.commands.executeCommand(ClientCommands.showIndexStatus);
    await fake.commands.executeCommand(ClientCommands.showBudget);
    assert.deepEqual(fake.recorded.shown.slice(-2).map((d) => [d.uri, d.asked, d.column]), [
      ["ctxd:/index-status.md", 2, 2],
      ["ctxd:/budget.md", 2, 2],
    ]);
    assert.equal(fake.editorGroups().length, 2, "two groups after Bundle, Index Status and Budget");
    assert.ok(docText("/budget.md").includes("Of the selection (lines 58-59) of `internal/store/store.go`."), "1-based lines");
    // The focus is on ctxd's group now: a block of the results view opens in the source's group.
    const p0 = treeRoots().find((n) => n.label === "P0")!;
    const file = p0.children.find((n) => n.open !== undefined)!;
    await fake.commands.executeCommand(ClientCommands.openBlock, file.open);
    assert.deepEqual(fake.recorded.shown.at(-1), { uri: store.uri.toString(), editor: "text", asked: 1, column: 1, preview: false });
    assert.equal(fake.editorGroups().length, 2);
    // Without the markdown preview editor the document opens as text, still in ctxd's group.
    fake.answers.openWith = () => {
      throw new Error("no editor vscode.markdown.preview.editor");
    };
    try {
      await fake.commands.executeCommand(ClientCommands.showIndexStatus);
    } finally {
      fake.answers.openWith = undefined;
    }
    assert.deepEqual(fake.recorded.shown.at(-1), { uri: "ctxd:/index-status.md", editor: "text", asked: 2, column: 2, preview: true });
    assert.match(fake.outputChannels[0].lines.join("\n"), /the markdown preview of ctxd:\/index-status\.md did not open/);
    fake.setActiveEditor(store);
  });

  it("with no editor open, ctxd's documents open in the empty group instead of leaving it empty beside them", async () => {
    fake.resetEditorGroups();
    fake.setActiveEditor(undefined);
    await fake.commands.executeCommand(ClientCommands.showIndexStatus);
    await fake.commands.executeCommand(ClientCommands.openBundle);
    assert.deepEqual(fake.recorded.shown.slice(-2), [
      { uri: "ctxd:/index-status.md", editor: MarkdownPreviewEditor, asked: fake.ViewColumn.Active, column: 1, preview: false },
      { uri: "ctxd:/bundle.md", editor: MarkdownPreviewEditor, asked: 1, column: 1, preview: false },
    ]);
    assert.equal(fake.editorGroups().length, 1, "one group, not an empty one and ctxd's");
    assert.deepEqual(fake.editorGroups()[0]!.tabs.map((t) => t.input.uri.toString()), ["ctxd:/index-status.md", "ctxd:/bundle.md"]);
    fake.setActiveEditor(store);
  });

  it("a refusal: the notification, its details, and a red status bar", async () => {
    const envPath = path.join(workspace, ".env");
    const env = new fake.FakeDocument(fake.Uri.file(envPath), "dotenv", fs.readFileSync(envPath, "utf8"));
    fake.openDocument(env);
    fake.answers.message = (message, actions) => (message.startsWith("ctxd refused") ? actions[0] : undefined);
    fake.setActiveEditor(env);
    await fake.commands.executeCommand(ClientCommands.buildContextActiveFile);
    const refusal = fake.recorded.messages.find((m) => m.message.startsWith("ctxd refused (REFUSE_UNSUPPORTED_TARGET): "));
    assert.ok(refusal, "the refusal was shown");
    assert.deepEqual(refusal.actions, ["Show details"]);
    assert.equal(fake.recorded.shownDocuments[fake.recorded.shownDocuments.length - 1], "ctxd:/refusal-REFUSE_UNSUPPORTED_TARGET.md");
    assert.match(docText("/refusal-REFUSE_UNSUPPORTED_TARGET.md"), /^# ctxd refused: `REFUSE_UNSUPPORTED_TARGET`\n/);
    await until("the refusal in the status bar", () => status().text === "$(error) ctxd: REFUSE_UNSUPPORTED_TARGET");
    assert.equal(status().backgroundColor?.id, "statusBarItem.errorBackground");
    // The results view says the latest build was refused, instead of showing the previous bundle as if it were the latest.
    const roots = treeRoots();
    assert.deepEqual(
      roots.map((n) => [n.kind, n.label]),
      [
        ["refusal", "Refused: REFUSE_UNSUPPORTED_TARGET"],
        ["history", "Earlier bundles"],
      ],
    );
    assert.equal(roots[0]!.children.length, 2, "its message and advice");
    // Open Bundle (the view's button) shows the refusal, not the older bundle.
    await fake.commands.executeCommand(ClientCommands.openBundle);
    assert.equal(fake.recorded.shownDocuments.at(-1), "ctxd:/refusal-REFUSE_UNSUPPORTED_TARGET.md");
    fake.answers.message = () => undefined;
    fake.setActiveEditor(store);
  });

  it("an ambiguous name typed: the quick pick of candidates, then the retry", async () => {
    fake.answers.createdQuickPick = (_labels, title) => (title?.includes("intent") ? { pick: "No intent" } : { type: "List" });
    let offered: string[] = [];
    let details: string[] = [];
    fake.answers.quickPick = (items) => {
      offered = items.map((i: { description: string }) => i.description);
      details = items.map((i: { detail: string }) => i.detail);
      return items[0];
    };
    await fake.commands.executeCommand(ClientCommands.buildContextSymbol);
    // 1-based, as the editor numbers lines: `func (s *Store) List` is on line 7 of legacy/store.go and line 50 of store/store.go.
    assert.deepEqual(offered, ["internal/legacy/store.go:7", "internal/store/store.go:50"]);
    assert.deepEqual(details, ["method at line 7 of internal/legacy/store.go", "method at line 50 of internal/store/store.go"]);
    const p0 = treeRoots().find((n) => n.label === "P0")!;
    assert.ok(p0.children.some((n) => n.label === "file internal/legacy/store.go"), "the chosen definition is the target");
    fake.answers.quickPick = (items) => items[0];
  });

  it("Build Context for Symbol: the workspace's symbols, the word at the cursor first; a chosen definition needs no second question", async () => {
    const line = store.getText().split("\n").findIndex((l) => l.startsWith("func (s *Store) List"));
    fake.setActiveEditor(store, new fake.Selection(line, 17, line, 17));
    fake.answers.createdQuickPick = (_labels, title) => (title?.includes("intent") ? { pick: "No intent" } : { pick: "Store.List" });
    let candidatesAsked = 0;
    fake.answers.quickPick = (items) => (candidatesAsked++, items[0]);
    const picks = fake.recorded.quickPicks.length;
    await fake.commands.executeCommand(ClientCommands.buildContextSymbol);
    const symbolPick = fake.recorded.quickPicks.slice(picks).find((p) => p.title === "ctxd: Build Context for Symbol");
    assert.ok(symbolPick, "the symbol pick was shown");
    // Prefilled with the word at the cursor: the server's exact matches first, the typed text last.
    assert.deepEqual(symbolPick.items.slice(0, 2), ["Store.List", "Store.List"]);
    assert.equal(symbolPick.items.at(-1), "List");
    assert.ok(symbolPick.items.includes("listItems"), "then the names that contain it");
    assert.equal(candidatesAsked, 0, "the definition chosen in the pick answered the ambiguity");
    const p0 = treeRoots().find((n) => n.label === "P0")!;
    assert.ok(p0.children.some((n) => n.label === "file internal/legacy/store.go"), "the first definition (legacy, in the server's order) is the target");
    fake.answers.quickPick = (items) => items[0];
    fake.answers.createdQuickPick = (_labels, title) => (title?.includes("intent") ? { pick: "No intent" } : undefined);
    fake.setActiveEditor(store);
  });

  it("every command builds from the last file of the workspace while a ctxd document has the focus", async () => {
    fake.setActiveEditor(store);
    await fake.commands.executeCommand(ClientCommands.openBundle);
    // The rendered bundle is a webview: no active text editor.
    fake.setActiveEditor(undefined);
    const warnings = () => fake.recorded.messages.filter((m) => m.message === "ctxd: open a file of the workspace first.").length;
    const before = warnings();
    await fake.commands.executeCommand(ClientCommands.showManifest);
    assert.equal(fake.recorded.shownDocuments.at(-1), "ctxd:/manifest.md");
    await fake.commands.executeCommand(ClientCommands.copyPrompt);
    assert.match(fake.recorded.clipboard, /internal\/store\/store\.go/);
    // A ctxd document shown as text (no markdown preview editor) has the focus: the same.
    const doc = await fake.workspace.openTextDocument(fake.Uri.from({ scheme: "ctxd", path: "/manifest.md" }));
    fake.setActiveEditor(doc);
    await fake.commands.executeCommand(ClientCommands.buildContextActiveFile);
    assert.match(fake.recorded.messages.at(-1)!.message, /^ctxd built \d+ blocks for internal\/store\/store\.go: /);
    await fake.commands.executeCommand(ClientCommands.showBudget);
    assert.equal(fake.recorded.shownDocuments.at(-1), "ctxd:/budget.md");
    assert.equal(warnings(), before, "no 'open a file first'");
    fake.setActiveEditor(store);
  });

  it("an intent given to a build is sent, and the recent bundles keep it", async () => {
    fake.answers.createdQuickPick = (_labels, title) => (title?.includes("intent") ? { type: "sort the items by name" } : undefined);
    await fake.commands.executeCommand(ClientCommands.buildContextActiveFile);
    assert.match(docText("/bundle.md"), /Intent \(user\):\nsort the items by name/);
    let items: { label: string; description: string }[] = [];
    fake.answers.quickPick = (offered) => {
      items = offered;
      return offered[1];
    };
    await fake.commands.executeCommand(ClientCommands.openRecentBundle);
    assert.deepEqual(items[0], { ...items[0], label: "internal/store/store.go", description: "intent: sort the items by name" });
    assert.ok(items.length >= 2 && items.length <= 10, `${items.length} recent bundles`);
    assert.doesNotMatch(docText("/bundle.md"), /Intent \(user\)/, "the older bundle, reopened");
    // The next intent question offers it again.
    let offeredIntents: string[] = [];
    fake.answers.createdQuickPick = (labels, title) => (title?.includes("intent") ? ((offeredIntents = labels), { pick: "No intent" }) : undefined);
    await fake.commands.executeCommand(ClientCommands.buildContextActiveFile);
    assert.deepEqual(offeredIntents, ["No intent", "sort the items by name"]);
    fake.answers.quickPick = (offered) => offered[0];
  });

  it("Escape at the intent question cancels the build", async () => {
    const messages = fake.recorded.messages.length;
    fake.answers.createdQuickPick = () => undefined;
    await fake.commands.executeCommand(ClientCommands.buildContextActiveFile);
    assert.equal(fake.recorded.messages.length, messages, "nothing built, nothing said");
    fake.answers.createdQuickPick = (_labels, title) => (title?.includes("intent") ? { pick: "No intent" } : undefined);
  });

  it("the status bar keeps the file's budget while a ctxd preview has the focus", async () => {
    fake.setActiveEditor(store);
    await until("the file's budget", () => status().visible && /tokens$/.test(status().text));
    const shown = status().text;
    // The rendered bundle is a webview: no active text editor.
    fake.setActiveEditor(undefined);
    await new Promise((r) => setTimeout(r, 600));
    assert.equal(status().visible, true, "still shown");
    assert.equal(status().text, shown, "the budget of the file the commands build from");
    // A ctxd document shown as text: the same.
    const doc = await fake.workspace.openTextDocument(fake.Uri.from({ scheme: "ctxd", path: "/budget.md" }));
    fake.setActiveEditor(doc);
    await new Promise((r) => setTimeout(r, 600));
    assert.equal(status().visible, true, "still shown for a ctxd document");
    assert.equal(status().text, shown);
    fake.setActiveEditor(store);
  });

  it("no status bar item for a file outside the workspace folders", async () => {
    const outside = fs.mkdtempSync(path.join(require("node:os").tmpdir(), "ctxd-user-"));
    try {
      const settingsPath = path.join(outside, "settings.json");
      fs.writeFileSync(settingsPath, "{}\n");
      const settingsDoc = new fake.FakeDocument(fake.Uri.file(settingsPath), "json", "{}\n");
      fake.openDocument(settingsDoc);
      fake.setActiveEditor(settingsDoc);
      await until("the item hidden", () => status().visible === false);
      await new Promise((r) => setTimeout(r, 600));
      assert.equal(status().visible, false, `still hidden, not ${status().text}`);
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
    fake.setActiveEditor(store);
    await until("the budget again", () => status().visible && /tokens$/.test(status().text));
  });

  it("the API for other extensions", async () => {
    const result = await api.budget({ purpose: "diff", active_file: store.uri.toString() });
    assert.equal(result.budget_report?.decision, "ok");
    await assert.rejects(api.buildContext({ purpose: "diff", active_file: fileUri(path.join(workspace, ".env")) }), (err: Error & { refusal?: { code: string } }) => {
      assert.equal(err.name, "CtxdRefusalError");
      assert.equal(err.refusal?.code, "REFUSE_UNSUPPORTED_TARGET");
      return true;
    });
  });

  it("Restart Server starts it again", async () => {
    await fake.commands.executeCommand(ClientCommands.restartServer);
    fake.setActiveEditor(store);
    await until("the budget after the restart", () => /tokens$/.test(status().text));
    const log = fake.outputChannels[0].lines.join("\n");
    assert.equal(log.match(/ctxd is running/g)?.length, 2);
  });

  it("a missing binary is reported with Open Settings and Show Output", async () => {
    await ext.deactivate();
    subscriptions.splice(0).forEach((s) => s.dispose());
    fake.settings.set("ctxd.server.path", path.join(workspace, "no-such-ctxd"));
    ext.activate({ extensionPath: extensionRoot, subscriptions });
    await until("the error", () => fake.recorded.messages.some((m) => m.message.startsWith("ctxd could not start: ")));
    const shown = fake.recorded.messages.find((m) => m.message.startsWith("ctxd could not start: "))!;
    assert.match(shown.message, /ctxd.server.path is set to ".*no-such-ctxd", but .* is not a file/);
    assert.deepEqual(shown.actions, ["Open Settings", "Show Output"]);
    await until("the stopped status", () => status().text === "$(circle-slash) ctxd");
    assert.equal(status().command, ClientCommands.showOutput);
  });

  it("a server of another protocol is refused with a notification", { skip: process.platform === "win32" }, async () => {
    await ext.deactivate();
    subscriptions.splice(0).forEach((s) => s.dispose());
    fake.recorded.messages.splice(0);
    // A stand-in binary that reports a release of another major and would
    // fail the test if it were ever started as the server.
    const other = path.join(workspace, "other-ctxd");
    fs.writeFileSync(
      other,
      '#!/bin/sh\nif [ "$1" = version ]; then\n  printf \'{"version": "v99.0.0", "commit": "abc", "platform": "linux/amd64"}\\n\'\n  exit 0\nfi\necho "started as a server" >&2\nexit 3\n',
      { mode: 0o755 },
    );
    fake.settings.set("ctxd.server.path", other);
    ext.activate({ extensionPath: extensionRoot, subscriptions });
    await until("the error", () => fake.recorded.messages.some((m) => m.message.startsWith("ctxd could not start: ")));
    const shown = fake.recorded.messages.find((m) => m.message.startsWith("ctxd could not start: "))!;
    assert.equal(shown.level, "error");
    assert.match(shown.message, /other-ctxd: ctxd v99\.0\.0 is a 99\.x release, but this extension speaks the protocol of ctxd 0\.x: set ctxd\.server\.path to a matching ctxd/);
    assert.deepEqual(shown.actions, ["Open Settings", "Show Output"]);
    const log = fake.outputChannels[fake.outputChannels.length - 1].lines.join("\n");
    assert.doesNotMatch(log, /starting .*other-ctxd/);
  });
});

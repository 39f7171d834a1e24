// "ctxd: Generate Change…" as the user runs it: the extension in the fake
// VS Code (test/fakeVscode.ts) against the real ctxd and tools/fakemodel.
// The target and intent pickers, the progress notification, the diff
// editor, Accept and Reject (and a refused Accept), the final error with
// its details, vscode.lm (absent, then a stand-in), and the model key in
// secret storage.

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import { ChangePendingContext, ChangeScheme, ClientCommands, IntentHistoryKey } from "../src/ids";
import * as fake from "./fakeVscode";
import { routeVscodeToFake, until } from "./fakeModule";
import { startFakeModel, type FakeModel } from "./fakeModel";
import { copyWorkspace, exampleWorkspace, extensionRoot, requireBinary } from "./harness";

routeVscodeToFake();

interface Extension {
  activate(context: object): unknown;
  deactivate(): Promise<void>;
}


const storeRel = "internal/store/store.go";
const comment = "// List returns all items sorted by SKU.";

/** A fenced one-line unified diff of store.go: `from` (an exact line of `text`) becomes `to`. */
function diff(text: string, from: string, to: string, wrongContext = false): string {
  const lines = text.split("\n");
  const i = lines.indexOf(from);
  assert.ok(i > 0, `${from} is in the text`);
  return [
    "```diff",
    `--- a/${storeRel}`,
    `+++ b/${storeRel}`,
    `@@ -${i},3 +${i},3 @@`,
    ` ${lines[i - 1]}`,
    `-${wrongContext ? "// a line the file does not have" : from}`,
    `+${to}`,
    ` ${lines[i + 1]}`,
    "```",
    "",
  ].join("\n");
}

describe("Generate Change in a fake VS Code, against the real ctxd and the fake model", { timeout: 120_000 }, () => {
  let workspace = "";
  let ext: Extension;
  let store: fake.FakeDocument;
  const subscriptions: { dispose(): unknown }[] = [];
  const globalState = fake.memento();
  const secrets = fake.secretStorage();
  const models: FakeModel[] = [];
  const intent = "Put a comma in the comment of List";
  const log = () => fake.outputChannels[0].lines.join("\n");
  const lastMessage = () => fake.recorded.messages[fake.recorded.messages.length - 1]!;
  const changeTabs = () => fake.editorGroups().flatMap((g) => g.tabs).filter((t) => t.input.modified?.scheme === ChangeScheme);
  const changeText = (uri: fake.Uri): string => fake.recorded.contentProviders.get(ChangeScheme).provideTextDocumentContent(uri);
  const fakeModel = async (answers: string[], key?: string) => {
    const m = await startFakeModel({ answers, chunk: 31, ...(key ? { key } : {}) });
    models.push(m);
    return m;
  };
  const useOpenAI = (m: FakeModel) => {
    fake.settings.set("ctxd.change.provider", "openai");
    fake.settings.set("ctxd.change.baseUrl", `${m.url}/v1`);
    fake.settings.set("ctxd.change.model", "gpt-4o");
  };
  /** Answers the pickers: the active file, then the intent typed. */
  const answerPickers = (typed = intent) => {
    fake.answers.quickPick = (items) => items.find((i: { scope?: string }) => i.scope === "file");
    fake.answers.createdQuickPick = () => ({ type: typed });
  };

  before(async () => {
    const bin = requireBinary();
    workspace = copyWorkspace(exampleWorkspace());
    fake.resetEditorGroups();
    fake.workspace.workspaceFolders = [{ uri: fake.Uri.file(workspace), name: "example", index: 0 }];
    fake.settings.set("ctxd.server.path", bin);
    fake.settings.set("ctxd.server.extraArgs", ["--cache-dir", "off", "--log-level", "warn"]);
    const storePath = path.join(workspace, storeRel);
    store = new fake.FakeDocument(fake.Uri.file(storePath), "go", fs.readFileSync(storePath, "utf8"));
    fake.openDocument(store);
    fake.setActiveEditor(store);
    ext = require("../src/extension") as Extension;
    ext.activate({ extensionPath: extensionRoot, subscriptions, globalState, secrets });
    await until("the status bar budget", () => /tokens$/.test(fake.recorded.statusItems.at(-1)?.text ?? ""));
  });

  after(async () => {
    await ext?.deactivate();
    subscriptions.forEach((s) => s.dispose());
    await Promise.all(models.map((m) => m.stop()));
    if (workspace !== "") {
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  });

  it("vscode-lm (the default) without the Language Model API: an error pointing at the other providers", async () => {
    answerPickers();
    fake.recorded.messages.splice(0);
    await fake.commands.executeCommand(ClientCommands.generateChange);
    const shown = lastMessage();
    assert.equal(shown.level, "error");
    assert.match(shown.message, /^ctxd: this VS Code \(1\.85\.0\) has no Language Model API \(vscode\.lm, VS Code 1\.90 or later\): update VS Code, or set ctxd\.change\.provider to openai or anthropic$/);
    assert.deepEqual(shown.actions, ["Open Settings", "Show Output"]);
    assert.deepEqual(globalState.get(IntentHistoryKey), [intent], "the intent is remembered");
  });

  it("openai: the rejection and the retry in the progress, the diff, then Accept applies the edit", async () => {
    const before = store.getText();
    const expected = before.replace(comment, "// List returns all items, sorted by SKU.");
    const m = await fakeModel([diff(before, comment, "// List returns all items, sorted by SKU.", true), diff(before, comment, "// List returns all items, sorted by SKU.")]);
    useOpenAI(m);
    answerPickers();
    const version = store.version;
    let offered: string[] = [];
    let rightSide = "";
    fake.answers.message = (_message, actions) => {
      if (actions.includes("Accept")) {
        offered = actions;
        rightSide = changeText(fake.recorded.diffs.at(-1)!.right);
        return "Accept";
      }
      return undefined;
    };
    await fake.commands.executeCommand(ClientCommands.generateChange);

    const progress = fake.recorded.progress.filter((p) => p.options.title === "ctxd: Generate Change").at(-1)!;
    assert.equal(progress.options.cancellable, true);
    assert.equal(progress.options.location, fake.ProgressLocation.Notification);
    const reports = progress.reports.map((r) => r.message ?? "");
    assert.ok(reports.includes("attempt 1/3: rendering the prompt…"), reports.join("\n"));
    assert.ok(reports.some((r) => /^attempt 1\/3: [\d,]+ characters received$/.test(r)), reports.join("\n"));
    assert.ok(reports.includes("attempt 1/3 rejected: CHANGE_CONTEXT_MISMATCH"), reports.join("\n"));
    assert.ok(reports.some((r) => /^attempt 2\/3: [\d,]+ characters received \(rejected: 1: CHANGE_CONTEXT_MISMATCH\)$/.test(r)), "the earlier rejection stays visible");
    assert.match(log(), /generate change change-\S+: attempt 1\/3 \(attempt-1, bundle \S+\) rejected CHANGE_CONTEXT_MISMATCH: /);
    const warning = fake.recorded.messages.find((x) => x.level === "warning" && x.message.startsWith("ctxd: attempt 1/3 rejected"));
    assert.ok(warning, "the rejection is a notification of its own");
    assert.match(warning.message, /^ctxd: attempt 1\/3 rejected \(CHANGE_CONTEXT_MISMATCH\): internal\/store\/store\.go:\d+: .*\. Asking again…$/);
    assert.deepEqual(warning.actions, ["Show Output"]);

    const d = fake.recorded.diffs.at(-1)!;
    assert.equal(d.left.toString(), store.uri.toString(), "the current document on the left");
    assert.equal(d.right.scheme, ChangeScheme);
    assert.match(d.right.path, /^\/change-[^/]+\/after\/internal\/store\/store\.go$/);
    assert.equal(d.title, "internal/store/store.go ↔ ctxd change");
    assert.equal(rightSide, expected, "the right side is the text after the edit");
    assert.equal(changeText(d.right), "", "forgotten once the change is resolved");
    assert.deepEqual(offered, ["Accept", "Reject", "Show Details"]);
    const notice = fake.recorded.messages.find((x) => x.actions.includes("Accept"))!;
    assert.match(notice.message, /^ctxd: attempt 2's change passed ctxd's checks \(modify internal\/store\/store\.go\); rejected before: 1: CHANGE_CONTEXT_MISMATCH\. /);

    assert.equal(store.getText(), expected, "applied");
    assert.equal(store.version, version + 1, "one edit");
    const applied = fake.recorded.appliedEdits.at(-1)!;
    assert.deepEqual(applied.operations.map((o) => o.kind), ["replace"]);
    assert.deepEqual(changeTabs(), [], "the diff is closed");
    assert.equal(fake.recorded.context.get(ChangePendingContext), false);
    assert.match(lastMessage().message, /^ctxd applied the change to 1 file \(not saved; Undo reverts it\)\.$/);
    assert.equal(fs.readFileSync(path.join(workspace, storeRel), "utf8"), before, "nothing is written to disk");
  });

  it("the intent history offers the last intent; Reject closes the diff and changes nothing", async () => {
    const before = store.getText();
    const line = "// List returns all items, sorted by SKU.";
    const m = await fakeModel([diff(before, line, "// List returns the items sorted by SKU.")]);
    useOpenAI(m);
    fake.answers.quickPick = (items) => items.find((i: { scope?: string }) => i.scope === "file");
    fake.answers.createdQuickPick = (labels) => ({ pick: labels[0]! });
    fake.answers.message = (_message, actions) => (actions.includes("Reject") ? "Reject" : undefined);
    await fake.commands.executeCommand(ClientCommands.generateChange);
    assert.deepEqual(fake.recorded.quickPicks.at(-1)!.items, [intent], "the recent intent is offered");
    const [req] = await m.requests();
    assert.ok(req!.body.messages!.some((x) => x.content.includes(intent)), "the picked intent is sent");
    assert.equal(fake.recorded.diffs.length, 2, "a second diff was shown");
    assert.equal(store.getText(), before, "nothing changed");
    assert.deepEqual(changeTabs(), []);
    assert.equal(fake.recorded.context.get(ChangePendingContext), false);
    assert.equal(lastMessage().message, "[status bar] ctxd: change rejected; nothing was changed");
  });

  it("a document edited after the check: Accept (from the diff's title bar) refuses and offers to generate again", async () => {
    const before = store.getText();
    const line = "// List returns all items, sorted by SKU.";
    const m = await fakeModel([diff(before, line, "// List returns the items sorted by SKU.")]);
    useOpenAI(m);
    answerPickers("Reword the comment of List");
    fake.answers.message = () => undefined; // the notification is dismissed: the change stays pending
    await fake.commands.executeCommand(ClientCommands.generateChange);
    assert.equal(fake.recorded.context.get(ChangePendingContext), true);
    assert.equal(changeTabs().length, 1, "the diff stays open");
    fake.editDocument(store, before + "// typed meanwhile\n");
    let offered: string[] = [];
    fake.answers.message = (_message, actions) => ((offered = actions), undefined);
    await fake.commands.executeCommand(ClientCommands.acceptChange);
    const warning = lastMessage();
    assert.equal(warning.level, "warning");
    assert.match(warning.message, /^ctxd: internal\/store\/store\.go changed since ctxd checked the answer \(the editor has version \d+, the change was made for version \d+\); the change was not applied\. Generate it again from the current text\?$/);
    assert.deepEqual(offered, ["Generate Again"]);
    assert.equal(store.getText(), before + "// typed meanwhile\n", "only the user's edit");
    assert.deepEqual(changeTabs(), []);
    assert.equal(fake.recorded.context.get(ChangePendingContext), false);
    fake.editDocument(store, before);
  });

  it("no acceptable change: an error with every attempt's code, and its details", async () => {
    const before = store.getText();
    const line = "// List returns all items, sorted by SKU.";
    const m = await fakeModel([diff(before, line, "// x", true)]);
    useOpenAI(m);
    fake.settings.set("ctxd.change.maxRetries", 1);
    answerPickers();
    fake.answers.message = (_message, actions) => (actions.includes("Show Details") && !actions.includes("Accept") ? "Show Details" : undefined);
    try {
      await fake.commands.executeCommand(ClientCommands.generateChange);
    } finally {
      fake.settings.delete("ctxd.change.maxRetries");
    }
    assert.equal((await m.requests()).length, 2, "maxRetries 1: two attempts");
    assert.equal(fake.recorded.messages.filter((x) => x.message.startsWith("ctxd: attempt 1/2 rejected (CHANGE_CONTEXT_MISMATCH)")).length, 1, "the first rejection as a warning");
    assert.equal(fake.recorded.messages.filter((x) => x.message.startsWith("ctxd: attempt 2/2 rejected")).length, 0, "the last one is the error");
    const error = fake.recorded.messages.filter((x) => x.level === "error").at(-1)!;
    assert.match(error.message, /^ctxd: no acceptable change after 2 attempts \(1: CHANGE_CONTEXT_MISMATCH, 2: CHANGE_CONTEXT_MISMATCH\)\. Last: CHANGE_CONTEXT_MISMATCH: internal\/store\/store\.go:\d+: /);
    assert.ok(!error.message.includes("\n"), "one line");
    assert.deepEqual(error.actions, ["Show Details", "Generate Again"]);
    const shown = fake.recorded.shownDocuments.at(-1)!;
    assert.match(shown, /^ctxd:\/change-\d{8}T\d{6}Z-[0-9a-f]{6}\.md$/);
    const details = fake.recorded.contentProviders.get("ctxd").provideTextDocumentContent(fake.Uri.parse(shown));
    assert.match(details, /## Attempt 1: rejected \(`CHANGE_CONTEXT_MISMATCH`\)/);
    assert.match(details, /## Attempt 2: rejected \(`CHANGE_CONTEXT_MISMATCH`\)/);
    assert.equal(store.getText(), before);
  });

  it("vscode-lm: the first chat model of vscode.lm answers", async () => {
    const before = store.getText();
    const line = "// List returns all items, sorted by SKU.";
    const sent: unknown[][] = [];
    const asked: unknown[] = [];
    fake.setLanguageModels({
      selectChatModels: async (selector?: unknown) => {
        asked.push(selector);
        return [
          {
            id: "fake-lm",
            name: "Fake LM",
            vendor: "fakevendor",
            family: "gpt-4o",
            version: "1",
            maxInputTokens: 50_000,
            sendRequest: async (messages: unknown[]) => {
              sent.push(messages);
              return {
                text: (async function* () {
                  yield diff(before, line, "// List returns the items sorted by SKU.");
                })(),
              };
            },
          },
        ];
      },
    });
    fake.settings.delete("ctxd.change.provider");
    fake.settings.set("ctxd.change.lmVendor", "fakevendor");
    answerPickers();
    fake.answers.message = (_message, actions) => (actions.includes("Reject") ? "Reject" : undefined);
    try {
      await fake.commands.executeCommand(ClientCommands.generateChange);
    } finally {
      fake.setLanguageModels(undefined);
      fake.settings.delete("ctxd.change.lmVendor");
    }
    assert.deepEqual(asked, [{ vendor: "fakevendor" }]);
    assert.equal(sent.length, 1);
    assert.deepEqual(
      (sent[0] as { role: string }[]).map((x) => x.role),
      ["user", "user"],
      "the system message goes first, as a user message",
    );
    assert.match(log(), /generate change: Fake LM \(fakevendor, VS Code language model\); up to 3 attempts/);
    assert.match(fake.recorded.diffs.at(-1)!.right.path, /\/after\/internal\/store\/store\.go$/);
    assert.equal(store.getText(), before);
  });

  it("Set Model API Key keeps the key in secret storage, never in settings; openai sends it; Clear removes it", async () => {
    const m = await fakeModel([diff(store.getText(), "// List returns all items, sorted by SKU.", "// List returns the items sorted by SKU.")], "sk-from-secret-storage");
    useOpenAI(m);
    fake.answers.inputBox = () => "sk-from-secret-storage";
    await fake.commands.executeCommand(ClientCommands.setModelApiKey);
    assert.deepEqual([...secrets.values.entries()], [["ctxd.change.apiKey.openai", "sk-from-secret-storage"]]);
    assert.ok(![...fake.settings.values()].some((v) => JSON.stringify(v ?? null).includes("sk-from-secret-storage")), "not in settings");
    answerPickers();
    fake.answers.message = (_message, actions) => (actions.includes("Reject") ? "Reject" : undefined);
    await fake.commands.executeCommand(ClientCommands.generateChange);
    const [req] = await m.requests();
    assert.equal(req!.headers.authorization, "Bearer sk-from-secret-storage");
    assert.ok(!log().includes("sk-from-secret-storage"), "the key is never logged");
    await fake.commands.executeCommand(ClientCommands.clearModelApiKey);
    assert.equal(secrets.values.size, 0);
    fake.answers.inputBox = (value) => value;
  });

  it("the command's arguments skip the pickers: a symbol and an intent", async () => {
    const m = await fakeModel([diff(store.getText(), "// List returns all items, sorted by SKU.", "// List returns the items sorted by SKU.")]);
    useOpenAI(m);
    let asked = 0;
    fake.answers.quickPick = () => (asked++, undefined);
    fake.answers.createdQuickPick = () => (asked++, undefined);
    fake.answers.message = (_message, actions) => (actions.includes("Reject") ? "Reject" : undefined);
    const diffs = fake.recorded.diffs.length;
    await fake.commands.executeCommand(ClientCommands.generateChange, { scope: "symbol", symbol: "Store.List", intent: "Reword the comment of Store.List" });
    assert.equal(asked, 0, "no picker");
    assert.equal(fake.recorded.diffs.length, diffs + 1, "the change was shown");
    const [req] = await m.requests();
    const prompt = req!.body.messages!.map((x) => x.content).join("\n");
    assert.ok(prompt.includes("Reword the comment of Store.List"));
    assert.match(prompt, /Store\.List/);
    assert.equal(globalState.get<string[]>(IntentHistoryKey)![0], "Reword the comment of Store.List");
  });

  it("a symbol target is chosen in the quick pick of the workspace's symbols, the word at the cursor first", async () => {
    const lines = store.getText().split("\n");
    const i = lines.findIndex((l) => l.startsWith("func (s *Store) List"));
    fake.setActiveEditor(store, new fake.Selection(i, 17, i, 17));
    fake.answers.quickPick = (items) => items.find((x: { scope?: string }) => x.scope === "symbol");
    let symbolItems: string[] = [];
    let intentAsked = false;
    fake.answers.createdQuickPick = (labels, title) => {
      if (title === "ctxd: Generate Change — symbol") {
        symbolItems = labels;
        return { pick: "Store.List" };
      }
      intentAsked = true;
      return undefined;
    };
    const diffs = fake.recorded.diffs.length;
    await fake.commands.executeCommand(ClientCommands.generateChange);
    const picked = fake.recorded.quickPicks.filter((q) => q.title === "ctxd: Generate Change — symbol").at(-1);
    assert.equal(picked?.items[0], "Store.List", "the server's definitions of the word at the cursor first");
    assert.equal(picked?.items.at(-1), "List", "then the word as typed");
    assert.ok(symbolItems.length > 0);
    assert.ok(intentAsked, "then the intent (cancelled here)");
    assert.equal(fake.recorded.diffs.length, diffs);
    fake.setActiveEditor(store);
  });

  it("the editor menu's command offers the selection first; cancelling the pick does nothing", async () => {
    const lines = store.getText().split("\n");
    const i = lines.indexOf("// List returns all items, sorted by SKU.");
    fake.setActiveEditor(store, new fake.Selection(i, 0, i + 2, 0));
    let labels: string[] = [];
    let descriptions: string[] = [];
    fake.answers.quickPick = (items) => {
      labels = items.map((x: { label: string }) => x.label);
      descriptions = items.map((x: { description: string }) => x.description);
      return undefined;
    };
    const diffs = fake.recorded.diffs.length;
    await fake.commands.executeCommand(ClientCommands.generateChangeFromEditor, store.uri);
    assert.deepEqual(labels, ["$(selection) Selection", "$(file) Active file", "$(symbol-method) Symbol…"]);
    assert.equal(descriptions[0], `lines ${i + 1}-${i + 2} of ${storeRel}`);
    assert.equal(fake.recorded.diffs.length, diffs);
    fake.setActiveEditor(store);
  });
});

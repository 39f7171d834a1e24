// The contributed commands: builds (active file, selection, symbol), the
// budget, manifest and index status previews, Copy Prompt, the results view's
// actions and the recent bundles, Generate Change (changeView.ts) with its
// Accept, Reject and model key commands, and the handling every command
// shares for refusals (a notification with details, or a quick pick for an
// ambiguous target). Every command builds from the active file of the
// workspace, else the last one that had the focus (fileEditors.ts).

import * as vscode from "vscode";
import type { ServerSession } from "./client";
import { Commands } from "./contract.gen";
import type { BuildRequest, BuildResult, Refusal } from "./contract.gen";
import { generateChangeArgs, type ChangeController } from "./changeView";
import { groupStates, viewColumnOf, type ResultDocuments } from "./documents";
import { maxDisambiguations, pickCandidate } from "./disambiguate";
import { displayPath, editorStateOf } from "./editorState";
import type { FileEditorTracker } from "./fileEditors";
import { bundleTarget, recentBundleItems, rememberBundle, type RecentBundle } from "./history";
import { ClientCommands, DocumentScheme, IntentHistoryKey, ViewIds } from "./ids";
import { rememberIntent } from "./change";
import { pickIntent, pickSymbol, type IntentAnswer } from "./pickers";
import { chosenCandidate } from "./symbols";
import { sourceColumn } from "./layout";
import {
  budgetMarkdown,
  bundleMarkdown,
  decisionText,
  formatCount,
  indexStatusMarkdown,
  manifestMarkdown,
  promptText,
  refusalMarkdown,
  refusalNotice,
} from "./render";
import { buildRequest, isEmptyRange, renderPromptRequest, withUserSelectedTarget, type RequestOptions, type Scope } from "./request";
import { errorMessage, isCancelled, refusalOf } from "./rpc";
import type { OpenTarget } from "./tree";
import type { ResultsTreeProvider } from "./treeView";

/** Document names of the extension's read-only documents. */
const Docs = {
  bundle: "bundle.md",
  manifest: "manifest.md",
  budget: "budget.md",
  indexStatus: "index-status.md",
} as const;


/** Where the intent history is kept: the extension's global state, shared with Generate Change. */
export interface IntentStore {
  get(key: string): unknown;
  update(key: string, value: unknown): Thenable<void>;
}

export class CommandHandlers {
  /** The window's recent bundles, newest first (history.ts). */
  private recent: RecentBundle[] = [];
  /** The intent history when the extension has no global state (tests). */
  private localIntents: unknown = [];

  constructor(
    private readonly session: ServerSession,
    private readonly docs: ResultDocuments,
    private readonly tree: ResultsTreeProvider,
    private readonly output: vscode.LogOutputChannel,
    private readonly change: ChangeController,
    private readonly editors: FileEditorTracker,
    private readonly intents: IntentStore | undefined = undefined,
  ) {}

  /** Registers every contributed command. */
  register(): vscode.Disposable[] {
    const c = ClientCommands;
    return [
      vscode.commands.registerCommand(c.buildContextActiveFile, () => this.buildFromEditor("file")),
      vscode.commands.registerCommand(c.buildContextSelection, () => this.buildFromEditor("selection")),
      vscode.commands.registerCommand(c.buildContextSelectionFromEditor, () => this.buildFromEditor("selection")),
      vscode.commands.registerCommand(c.buildContextSymbol, () => this.buildForSymbol()),
      vscode.commands.registerCommand(c.showBudget, () => this.showBudget()),
      vscode.commands.registerCommand(c.showManifest, () => this.showManifest()),
      vscode.commands.registerCommand(c.copyPrompt, () => this.copyPrompt()),
      vscode.commands.registerCommand(c.showIndexStatus, () => this.showIndexStatus()),
      vscode.commands.registerCommand(c.restartServer, () => this.session.restart()),
      vscode.commands.registerCommand(c.showOutput, () => this.output.show(true)),
      vscode.commands.registerCommand(c.openBundle, () => this.openBundle()),
      vscode.commands.registerCommand(c.openRecentBundle, () => this.openRecentBundle()),
      vscode.commands.registerCommand(c.openBlock, (target: OpenTarget) => this.openBlock(target)),
      vscode.commands.registerCommand(c.generateChange, (args?: unknown) => this.change.generate(generateChangeArgs(args))),
      vscode.commands.registerCommand(c.generateChangeFromEditor, () => this.change.generate({})),
      vscode.commands.registerCommand(c.acceptChange, () => this.change.accept()),
      vscode.commands.registerCommand(c.rejectChange, () => this.change.reject()),
      vscode.commands.registerCommand(c.setModelApiKey, () => this.change.setApiKey()),
      vscode.commands.registerCommand(c.clearModelApiKey, () => this.change.clearApiKey()),
    ];
  }

  /**
   * The editor to build from: the active file of the workspace, else the
   * last one that had the focus (a ctxd preview, the output or the results
   * view may have it now); otherwise says what to do and returns undefined.
   */
  private editor(): vscode.TextEditor | undefined {
    const editor = this.editors.target();
    if (editor === undefined) {
      void vscode.window.showWarningMessage("ctxd: open a file of the workspace first.");
    }
    return editor;
  }

  /**
   * Asks for the intent of a build or prompt (optional: Enter without text
   * is none; Escape cancels the command), unless ctxd.build.askForIntent is
   * off; a given intent goes first in the history.
   */
  private async intent(title: string): Promise<IntentAnswer> {
    if (vscode.workspace.getConfiguration("ctxd").get("build.askForIntent") === false) {
      return "";
    }
    const stored = this.intents ? this.intents.get(IntentHistoryKey) : this.localIntents;
    const answer = await pickIntent(title, stored);
    if (answer) {
      const next = rememberIntent(Array.isArray(stored) ? stored.filter((s): s is string => typeof s === "string") : [], answer);
      if (this.intents) {
        await this.intents.update(IntentHistoryKey, next);
      } else {
        this.localIntents = next;
      }
    }
    return answer;
  }

  /** The request for the active editor, or undefined (and a warning) without one. */
  private request(scope: Scope, extra: Omit<RequestOptions, "scope" | "encoding"> = {}): { request: BuildRequest; editor: vscode.TextEditor } | undefined {
    const editor = this.editor();
    if (editor === undefined) {
      return undefined;
    }
    const request = buildRequest(editorStateOf(editor), { scope, encoding: this.session.encoding, ...extra });
    return { request, editor };
  }

  private async buildFromEditor(scope: Scope): Promise<void> {
    const editor = this.editor();
    if (editor === undefined) {
      return;
    }
    const intent = await this.intent(scope === "selection" ? "ctxd: Build Context for Selection — intent (optional)" : "ctxd: Build Context for Active File — intent (optional)");
    if (intent === undefined) {
      return;
    }
    const request = buildRequest(editorStateOf(editor), { scope, encoding: this.session.encoding, intent });
    await this.build(request, editor.document.uri, intent);
  }

  /**
   * Builds for a symbol (a plan step's target symbol): a quick pick of the
   * workspace's symbols, prefilled with the word at the cursor, then the
   * intent. A definition chosen in the pick answers the ambiguity of its
   * name without a second question.
   */
  private async buildForSymbol(): Promise<void> {
    const editor = this.editor();
    if (editor === undefined) {
      return;
    }
    const wordRange = editor.document.getWordRangeAtPosition(editor.selection.active);
    const picked = await pickSymbol("ctxd: Build Context for Symbol", wordRange ? editor.document.getText(wordRange) : "", (query, token) =>
      this.session.workspaceSymbols(query, token),
    );
    if (picked === undefined) {
      return;
    }
    const intent = await this.intent("ctxd: Build Context for Symbol — intent (optional)");
    if (intent === undefined) {
      return;
    }
    const request = buildRequest(editorStateOf(editor), { scope: "file", encoding: this.session.encoding, symbols: [picked.name], intent });
    await this.build(request, editor.document.uri, intent, picked.path);
  }

  /**
   * Runs a build with progress, shows the result in the view and keeps it
   * in the recent bundles; a refusal replaces the view's result, so that
   * the view never shows an older bundle as the latest.
   */
  private async build(request: BuildRequest, source: vscode.Uri, intent: string, chosenPath?: string): Promise<void> {
    const result = await this.withRefusals(request, (req, token) => this.session.commands.buildContext(req, token), "Building context", {
      chosenPath,
      onRefused: (refusal) => this.showRefused(refusal),
    });
    if (result !== undefined) {
      this.showResult(result, source, intent);
      const report = result.budget_report;
      const blocks = result.bundle?.blocks.length ?? 0;
      const what = bundleTarget(result, displayPath(source));
      const summary = report
        ? `ctxd built ${blocks} blocks for ${what}: ${formatCount(report.estimated_input_tokens)}/${formatCount(report.hard_limit_tokens)} tokens, ${decisionText(report.decision)}.`
        : `ctxd built ${blocks} blocks for ${what}.`;
      const show = report?.decision === "warn_soft_limit" ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
      const choice = await show(summary, "Open Bundle");
      if (choice === "Open Bundle") {
        await this.openBundle();
      }
    }
  }

  /** Puts a build's result in the results view, the bundle document and the recent bundles. */
  private showResult(result: BuildResult, source: vscode.Uri, intent: string): void {
    const folder = vscode.workspace.getWorkspaceFolder(source)?.uri;
    this.tree.show({ result, folder });
    const entry: RecentBundle = { result, folder: folder?.toString(), target: bundleTarget(result, displayPath(source)) };
    if (intent !== "") {
      entry.intent = intent;
    }
    this.recent = rememberBundle(this.recent, entry);
    this.docs.set(Docs.bundle, bundleMarkdown(result));
    void vscode.commands.executeCommand(`${ViewIds.results}.focus`);
  }

  /** The results view after a refused build: the refusal, not the previous bundle (which the recent bundles keep). */
  private showRefused(refusal: Refusal): void {
    this.tree.showRefusal(refusal, this.recent.length);
    this.docs.set(refusalDocName(refusal), refusalMarkdown(refusal));
  }

  /**
   * Runs a command with progress in the window; a refusal is shown (and an
   * ambiguous target asked about, then retried with the answer), any other
   * error too. Resolves with the result, or undefined when there is none.
   */
  private async withRefusals<T>(
    request: BuildRequest,
    run: (req: BuildRequest, token: vscode.CancellationToken) => Promise<T>,
    title: string,
    options: { chosenPath?: string | undefined; onRefused?: (refusal: Refusal) => void } = {},
  ): Promise<T | undefined> {
    let req = request;
    for (let attempt = 0; attempt <= maxDisambiguations; attempt++) {
      try {
        return await vscode.window.withProgress(
          { location: vscode.ProgressLocation.Notification, title: `ctxd: ${title}…`, cancellable: true },
          (_progress, token) => run(req, token),
        );
      } catch (err) {
        if (isCancelled(err)) {
          return undefined;
        }
        const refusal = refusalOf(err);
        if (refusal === undefined) {
          this.output.error(`${title}: ${errorMessage(err)}`);
          const choice = await vscode.window.showErrorMessage(`ctxd: ${errorMessage(err)}`, "Show Output");
          if (choice === "Show Output") {
            this.output.show(true);
          }
          return undefined;
        }
        this.output.info(`${title}: refused ${refusal.code}`);
        const pick = chosenCandidate(refusal, options.chosenPath, attempt) ?? (await pickCandidate(refusal, attempt));
        if (pick === undefined) {
          return undefined;
        }
        if (pick !== null) {
          req = withUserSelectedTarget(req, pick);
          continue;
        }
        options.onRefused?.(refusal);
        await this.showRefusal(refusal);
        return undefined;
      }
    }
    return undefined;
  }

  private async showRefusal(refusal: Refusal): Promise<void> {
    const notice = refusalNotice(refusal);
    const choice = await vscode.window.showErrorMessage(notice.message, "Show details");
    if (choice === "Show details") {
      await this.docs.show(refusalDocName(refusal), refusalMarkdown(refusal));
    }
  }

  /** The scope a preview uses: the selection when there is one, else the file. */
  private previewScope(editor: vscode.TextEditor): "selection" | "file" {
    const s = editor.selection;
    return isEmptyRange({ start: s.start, end: s.end }) ? "file" : "selection";
  }

  private async showBudget(): Promise<void> {
    const r = this.request("live");
    if (r === undefined) {
      return;
    }
    const result = await this.withRefusals(r.request, (req, token) => this.session.commands.budget(req, token), "Counting the budget");
    if (result !== undefined) {
      const s = r.editor.selection;
      const range = { start: { line: s.start.line, character: s.start.character }, end: { line: s.end.line, character: s.end.character } };
      await this.docs.show(Docs.budget, budgetMarkdown(result, this.previewScope(r.editor), displayPath(r.editor.document.uri), range));
    }
  }

  private async showManifest(): Promise<void> {
    const r = this.request("live");
    if (r === undefined) {
      return;
    }
    const result = await this.withRefusals(r.request, (req, token) => this.session.commands.manifest(req, token), "Selecting context");
    if (result !== undefined) {
      await this.docs.show(Docs.manifest, manifestMarkdown(result));
    }
  }

  /**
   * Copies a prompt for the active file or selection: the server's rendered
   * prompt (ctxd.renderPrompt) when it has the command, else the built
   * bundle as markdown.
   */
  private async copyPrompt(): Promise<void> {
    const editor = this.editor();
    if (editor === undefined) {
      return;
    }
    const intent = await this.intent("ctxd: Copy Prompt — intent (optional)");
    if (intent === undefined) {
      return;
    }
    const r = { editor, request: buildRequest(editorStateOf(editor), { scope: "live", encoding: this.session.encoding, intent }) };
    if (this.session.advertises(Commands.renderPrompt)) {
      const result = await this.withRefusals(
        renderPromptRequest(r.request),
        (req, token) => this.session.commands.renderPrompt(renderPromptRequest(req), token),
        "Rendering the prompt",
      );
      if (result?.prompt) {
        await vscode.env.clipboard.writeText(promptText(result.prompt));
        const t = result.prompt.token_counts;
        void vscode.window.showInformationMessage(
          `ctxd copied the prompt (${result.prompt.template_id}, ${formatCount(t.total)} tokens of ${formatCount(t.hard_limit)}); recorded as ${result.prompt_artifact}.`,
        );
      }
      return;
    }
    const result = await this.withRefusals(r.request, (req, token) => this.session.commands.buildContext(req, token), "Building context", {
      onRefused: (refusal) => this.showRefused(refusal),
    });
    if (result !== undefined) {
      this.showResult(result, r.editor.document.uri, intent);
      await vscode.env.clipboard.writeText(bundleMarkdown(result));
      void vscode.window.showInformationMessage("ctxd copied the bundle as markdown (this server has no ctxd.renderPrompt).");
    }
  }

  private async showIndexStatus(): Promise<void> {
    try {
      const status = await this.session.commands.indexStatus(true);
      await this.docs.show(Docs.indexStatus, indexStatusMarkdown(status));
    } catch (err) {
      const choice = await vscode.window.showErrorMessage(`ctxd: ${errorMessage(err)}`, "Show Output");
      if (choice === "Show Output") {
        this.output.show(true);
      }
    }
  }

  /** Opens the view's bundle; after a refusal, the refusal's details (the view shows the refusal). */
  private async openBundle(): Promise<void> {
    const refused = this.tree.refusal;
    if (refused !== undefined) {
      await this.docs.show(refusalDocName(refused), refusalMarkdown(refused));
      return;
    }
    const current = this.tree.current;
    if (current === undefined) {
      void vscode.window.showInformationMessage("ctxd: no bundle yet; run ctxd: Build Context for Active File first.");
      return;
    }
    await this.docs.show(Docs.bundle, bundleMarkdown(current.result));
  }

  /** A quick pick of the window's recent bundles; the chosen one is shown in the view and opened. */
  private async openRecentBundle(): Promise<void> {
    if (this.recent.length === 0) {
      void vscode.window.showInformationMessage("ctxd: no bundle built in this window yet.");
      return;
    }
    const pick = await vscode.window.showQuickPick(recentBundleItems(this.recent), {
      title: "ctxd: recent bundles",
      placeHolder: "A bundle built in this window, newest first",
      matchOnDescription: true,
      matchOnDetail: true,
    });
    const entry = pick === undefined ? undefined : this.recent[pick.index];
    if (entry === undefined) {
      return;
    }
    this.tree.show({ result: entry.result, folder: entry.folder === undefined ? undefined : vscode.Uri.parse(entry.folder) });
    await this.docs.show(Docs.bundle, bundleMarkdown(entry.result));
  }

  /**
   * Opens a block's file, selecting the first line range its title names
   * (1-based, as the title writes it; VS Code's lines are 0-based), in a
   * group that is not showing a ctxd document.
   */
  private async openBlock(target: OpenTarget): Promise<void> {
    const uri = this.tree.resolve(target);
    if (uri === undefined) {
      void vscode.window.showWarningMessage(`ctxd: ${target.path} is not in a workspace folder.`);
      return;
    }
    const doc = await vscode.workspace.openTextDocument(uri);
    const first = target.ranges[0];
    let selection: vscode.Range | undefined;
    if (first !== undefined && doc.lineCount > 0) {
      const start = Math.min(Math.max(first.start - 1, 0), doc.lineCount - 1);
      const end = Math.min(Math.max(first.end - 1, start), doc.lineCount - 1);
      selection = new vscode.Range(start, 0, end, doc.lineAt(end).range.end.character);
    }
    const options: vscode.TextDocumentShowOptions = { preview: true, viewColumn: viewColumnOf(sourceColumn(groupStates(), DocumentScheme)) };
    if (selection) {
      options.selection = selection;
    }
    const editor = await vscode.window.showTextDocument(doc, options);
    if (selection) {
      editor.revealRange(selection, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    }
  }
}

/** The name of a refusal's details document. */
function refusalDocName(refusal: Refusal): string {
  return `refusal-${refusal.code}.md`;
}

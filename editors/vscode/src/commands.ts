// The contributed commands: builds (active file, selection, symbol), the
// budget, manifest and index status previews, Copy Prompt, the results view's
// actions, Generate Change (changeView.ts) with its Accept, Reject and model
// key commands, and the handling every command shares for refusals (a
// notification with details, or a quick pick for an ambiguous target).

import * as vscode from "vscode";
import type { ServerSession } from "./client";
import { Commands } from "./contract.gen";
import type { BuildRequest, BuildResult, Refusal } from "./contract.gen";
import { generateChangeArgs, type ChangeController } from "./changeView";
import { groupStates, viewColumnOf, type ResultDocuments } from "./documents";
import { maxDisambiguations, pickCandidate } from "./disambiguate";
import { displayPath, editorStateOf, isBuildable } from "./editorState";
import { ClientCommands, DocumentScheme, ViewIds } from "./ids";
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


export class CommandHandlers {
  constructor(
    private readonly session: ServerSession,
    private readonly docs: ResultDocuments,
    private readonly tree: ResultsTreeProvider,
    private readonly output: vscode.LogOutputChannel,
    private readonly change: ChangeController,
  ) {}

  /** Registers every contributed command. */
  register(): vscode.Disposable[] {
    const c = ClientCommands;
    return [
      vscode.commands.registerCommand(c.buildContextActiveFile, () => this.buildFromEditor("file")),
      vscode.commands.registerCommand(c.buildContextSelection, () => this.buildFromEditor("selection")),
      vscode.commands.registerCommand(c.buildContextSymbol, () => this.buildForSymbol()),
      vscode.commands.registerCommand(c.showBudget, () => this.showBudget()),
      vscode.commands.registerCommand(c.showManifest, () => this.showManifest()),
      vscode.commands.registerCommand(c.copyPrompt, () => this.copyPrompt()),
      vscode.commands.registerCommand(c.showIndexStatus, () => this.showIndexStatus()),
      vscode.commands.registerCommand(c.restartServer, () => this.session.restart()),
      vscode.commands.registerCommand(c.showOutput, () => this.output.show(true)),
      vscode.commands.registerCommand(c.openBundle, () => this.openBundle()),
      vscode.commands.registerCommand(c.openBlock, (target: OpenTarget) => this.openBlock(target)),
      vscode.commands.registerCommand(c.generateChange, (args?: unknown) => this.change.generate(generateChangeArgs(args))),
      vscode.commands.registerCommand(c.generateChangeFromEditor, () => this.change.generate({})),
      vscode.commands.registerCommand(c.acceptChange, () => this.change.accept()),
      vscode.commands.registerCommand(c.rejectChange, () => this.change.reject()),
      vscode.commands.registerCommand(c.setModelApiKey, () => this.change.setApiKey()),
      vscode.commands.registerCommand(c.clearModelApiKey, () => this.change.clearApiKey()),
    ];
  }

  /** The active editor when ctxd can build from it; otherwise says why and returns undefined. */
  private editor(): vscode.TextEditor | undefined {
    const editor = vscode.window.activeTextEditor;
    if (editor === undefined) {
      void vscode.window.showWarningMessage("ctxd: open a file of the workspace first.");
      return undefined;
    }
    if (!isBuildable(editor)) {
      void vscode.window.showWarningMessage(`ctxd builds from files on disk; this ${editor.document.uri.scheme} document is not one.`);
      return undefined;
    }
    return editor;
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

  private buildFromEditor(scope: Scope): Promise<void> {
    const r = this.request(scope);
    return r ? this.build(r.request, r.editor.document.uri) : Promise.resolve();
  }

  /** Builds for a symbol name (a plan step's target symbol), asked for with the word at the cursor as default. */
  private async buildForSymbol(): Promise<void> {
    const editor = this.editor();
    if (editor === undefined) {
      return;
    }
    const wordRange = editor.document.getWordRangeAtPosition(editor.selection.active);
    const name = await vscode.window.showInputBox({
      title: "ctxd: Build Context for Symbol",
      prompt: "A symbol name or qualified name (Type.Method), resolved in the whole workspace",
      value: wordRange ? editor.document.getText(wordRange) : "",
      validateInput: (v) => (v.trim() === "" ? "Enter a symbol name" : undefined),
    });
    if (name === undefined) {
      return;
    }
    const r = this.request("file", { symbols: [name] });
    if (r) {
      await this.build(r.request, r.editor.document.uri);
    }
  }

  /** Runs a build with progress, shows the result in the view, and handles refusals. */
  private async build(request: BuildRequest, source: vscode.Uri): Promise<void> {
    const result = await this.withRefusals(request, (req, token) => this.session.commands.buildContext(req, token), "Building context");
    if (result !== undefined) {
      this.showResult(result, source);
      const report = result.budget_report;
      const blocks = result.bundle?.blocks.length ?? 0;
      const summary = report
        ? `ctxd built ${blocks} blocks: ${formatCount(report.estimated_input_tokens)}/${formatCount(report.hard_limit_tokens)} tokens, ${decisionText(report.decision)}.`
        : `ctxd built ${blocks} blocks.`;
      const show = report?.decision === "warn_soft_limit" ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
      const choice = await show(summary, "Open Bundle");
      if (choice === "Open Bundle") {
        await this.openBundle();
      }
    }
  }

  /** Puts a build's result in the results view and the bundle document. */
  private showResult(result: BuildResult, source: vscode.Uri): void {
    this.tree.show({ result, folder: vscode.workspace.getWorkspaceFolder(source)?.uri });
    this.docs.set(Docs.bundle, bundleMarkdown(result));
    void vscode.commands.executeCommand(`${ViewIds.results}.focus`);
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
        const pick = await pickCandidate(refusal, attempt);
        if (pick === undefined) {
          return undefined;
        }
        if (pick !== null) {
          req = withUserSelectedTarget(req, pick);
          continue;
        }
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
      await this.docs.show(`refusal-${refusal.code}.md`, refusalMarkdown(refusal));
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
    const r = this.request("live");
    if (r === undefined) {
      return;
    }
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
    const result = await this.withRefusals(r.request, (req, token) => this.session.commands.buildContext(req, token), "Building context");
    if (result !== undefined) {
      this.showResult(result, r.editor.document.uri);
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

  private async openBundle(): Promise<void> {
    const current = this.tree.current;
    if (current === undefined) {
      void vscode.window.showInformationMessage("ctxd: no bundle yet; run ctxd: Build Context for Active File first.");
      return;
    }
    await this.docs.show(Docs.bundle, bundleMarkdown(current.result));
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

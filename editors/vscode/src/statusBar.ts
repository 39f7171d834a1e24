// The budget in the status bar: `ctxd.budget` of the active file of the
// workspace (or of its selection when there is one), re-asked 300 ms after
// the last edit,
// selection change or editor switch. An answer that is overtaken by a newer
// question is cancelled and never shown. While a ctxd preview, the output
// or a view has the focus it is the budget of the file the commands build
// from (the last file editor of the workspace, FileEditorTracker); a file
// outside the workspace folders shows nothing.

import * as vscode from "vscode";
import type { ServerSession } from "./client";
import { editorStateOf } from "./editorState";
import { isWorkspaceFile, type FileEditorTracker } from "./fileEditors";
import { ClientCommands } from "./ids";
import { displayLines, statusBarModel, type StatusBarModel, type StatusInput } from "./render";
import { buildRequest, isEmptyRange } from "./request";
import { errorMessage, isCancelled, refusalOf } from "./rpc";

/** Quiet time after the last change before the budget is asked again. */
export const debounceMs = 300;

export class BudgetStatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly disposables: vscode.Disposable[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private inFlight: vscode.CancellationTokenSource | undefined;
  private generation = 0;

  constructor(
    private readonly session: ServerSession,
    private readonly editors?: FileEditorTracker,
  ) {
    this.item = vscode.window.createStatusBarItem("ctxd.budget", vscode.StatusBarAlignment.Right, 100);
    this.item.name = "ctxd budget";
    this.disposables.push(
      this.item,
      vscode.window.onDidChangeActiveTextEditor(() => this.schedule()),
      vscode.window.onDidChangeTextEditorSelection((e) => {
        if (e.textEditor === vscode.window.activeTextEditor) {
          this.schedule();
        }
      }),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.length > 0 && e.document === vscode.window.activeTextEditor?.document) {
          this.schedule();
        }
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration("ctxd.model") || e.affectsConfiguration("ctxd.defaultPurpose")) {
          this.schedule();
        }
      }),
      session.onDidChangeState(() => this.schedule(0)),
    );
    this.schedule(0);
  }

  /** Asks again after the quiet time (or `delay` ms), replacing any pending question. */
  schedule(delay = debounceMs): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.update();
    }, delay);
  }

  private async update(): Promise<void> {
    const generation = ++this.generation;
    this.inFlight?.cancel();
    this.inFlight?.dispose();
    this.inFlight = undefined;
    const active = vscode.window.activeTextEditor;
    // Nothing for a file outside the workspace folders (the user's
    // settings.json): ctxd would only refuse it as outside its sandbox.
    // Any other editor (a ctxd: document, the output) or none (a webview
    // has the focus): the file the commands would build from.
    const editor =
      active !== undefined && active.document.uri.scheme === "file" && !isWorkspaceFile(active.document.uri)
        ? undefined
        : this.editors !== undefined
          ? this.editors.target()
          : active !== undefined && isWorkspaceFile(active.document.uri)
            ? active
            : undefined;
    if (editor === undefined) {
      this.item.hide();
      return;
    }
    switch (this.session.state) {
      case "starting":
        this.apply(statusBarModel({ kind: "starting" }), ClientCommands.showOutput);
        return;
      case "failed":
      case "stopped":
        this.apply(statusBarModel({ kind: "stopped", message: this.session.failure ?? "it was stopped" }), ClientCommands.showOutput);
        return;
      case "running":
        break;
    }
    const state = editorStateOf(editor);
    const scope = state.selection !== undefined && !isEmptyRange(state.selection) ? "selection" : "file";
    // The selection's lines as the editor numbers them (1-based), for the tooltip.
    const lines = scope === "selection" ? displayLines(state.selection) : undefined;
    const source = new vscode.CancellationTokenSource();
    this.inFlight = source;
    let input: StatusInput;
    try {
      const request = buildRequest(state, { scope: "live", encoding: this.session.encoding });
      const result = await this.session.commands.budget(request, source.token);
      input = { kind: "budget", result, scope, lines };
    } catch (err) {
      if (generation !== this.generation || isCancelled(err) || source.token.isCancellationRequested) {
        return;
      }
      const refusal = refusalOf(err);
      input = refusal !== undefined ? { kind: "refusal", refusal, scope, lines } : { kind: "error", message: errorMessage(err) };
    } finally {
      if (this.inFlight === source) {
        this.inFlight = undefined;
        source.dispose();
      }
    }
    if (generation === this.generation) {
      this.apply(statusBarModel(input), ClientCommands.showBudget);
    }
  }

  private apply(model: StatusBarModel, command: string): void {
    this.item.text = model.text;
    this.item.tooltip = new vscode.MarkdownString(model.tooltip);
    this.item.backgroundColor = model.background ? new vscode.ThemeColor(`statusBarItem.${model.background}Background`) : undefined;
    this.item.command = command;
    this.item.show();
  }

  dispose(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
    }
    this.inFlight?.cancel();
    this.inFlight?.dispose();
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}

// The editor ctxd's commands build from. The active editor is often not a
// file of the workspace when a command runs: the extension itself puts the
// focus on its rendered bundle, manifest or budget (a webview, so there is
// no active text editor), on a ctxd: document shown as text, or the user
// clicked the output panel or the results view. The commands then use the
// last file editor of the workspace that had the focus, as the Neovim
// plugin uses its last file window; only when there is none do they ask the
// user to open one.

import * as vscode from "vscode";

/**
 * Whether a document is a file ctxd can build from: on disk, and in a
 * workspace folder when the window has any (a file outside them, such as
 * the user's settings.json, is outside ctxd's sandbox).
 */
export function isWorkspaceFile(uri: vscode.Uri): boolean {
  if (uri.scheme !== "file") {
    return false;
  }
  const folders = vscode.workspace.workspaceFolders;
  return folders === undefined || folders.length === 0 || vscode.workspace.getWorkspaceFolder(uri) !== undefined;
}

/** Remembers the last focused file editor of the workspace. */
export class FileEditorTracker implements vscode.Disposable {
  private last: vscode.TextEditor | undefined;
  private readonly disposables: vscode.Disposable[];

  constructor() {
    this.note(vscode.window.activeTextEditor);
    this.disposables = [
      vscode.window.onDidChangeActiveTextEditor((e) => this.note(e)),
      // A selection made in an editor the focus is in; kept for the case
      // where VS Code hands out a new editor object for the same tab.
      vscode.window.onDidChangeTextEditorSelection((e) => this.note(e.textEditor)),
      vscode.workspace.onDidCloseTextDocument((doc) => {
        if (this.last?.document === doc) {
          this.last = undefined;
        }
      }),
    ];
  }

  private note(editor: vscode.TextEditor | undefined): void {
    if (editor !== undefined && isWorkspaceFile(editor.document.uri)) {
      this.last = editor;
    }
  }

  /**
   * The editor to build from: the active one when it is a file of the
   * workspace, else the last one that was, while its document is open (a
   * visible editor of that document first, whose selection is current).
   */
  target(): vscode.TextEditor | undefined {
    const active = vscode.window.activeTextEditor;
    if (active !== undefined && isWorkspaceFile(active.document.uri)) {
      return active;
    }
    const last = this.last;
    if (last === undefined || last.document.isClosed) {
      return undefined;
    }
    const visible = vscode.window.visibleTextEditors;
    return visible.includes(last) ? last : (visible.find((e) => e.document === last.document) ?? last);
  }

  dispose(): void {
    for (const d of this.disposables) {
      d.dispose();
    }
    this.last = undefined;
  }
}

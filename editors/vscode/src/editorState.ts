// The active editor and the settings as the pure request builder's input.

import * as vscode from "vscode";
import type { Purpose } from "./contract.gen";
import { readSettings, type EditorState, type Settings } from "./request";

/** The `ctxd.*` settings that shape requests, for a document's folder. */
export function currentSettings(scope?: vscode.Uri): Settings {
  const config = vscode.workspace.getConfiguration("ctxd", scope);
  return readSettings((key) => config.get(key));
}

/** Whether ctxd can build from an editor's document: a file on disk. */
export function isBuildable(editor: vscode.TextEditor): boolean {
  return editor.document.uri.scheme === "file";
}

/**
 * The editor as plain data. The text is read only if the request builder
 * needs it (a server that negotiated an encoding other than UTF-16).
 */
export function editorStateOf(editor: vscode.TextEditor, purpose?: Purpose): EditorState {
  const doc = editor.document;
  const sel = editor.selection;
  const state: EditorState = {
    uri: doc.uri.toString(),
    languageId: doc.languageId,
    selection: {
      start: { line: sel.start.line, character: sel.start.character },
      end: { line: sel.end.line, character: sel.end.character },
    },
    get text(): string {
      return doc.getText();
    },
    settings: currentSettings(doc.uri),
  };
  if (purpose !== undefined) {
    state.purpose = purpose;
  }
  return state;
}

/** The workspace-relative path of a document, for messages. */
export function displayPath(uri: vscode.Uri): string {
  return vscode.workspace.asRelativePath(uri, false);
}

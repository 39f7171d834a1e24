// The extension's read-only documents (scheme "ctxd"): the rendered
// bundle, the manifest, budget and index status previews, and refusal
// details. Content providers give VS Code documents that cannot be edited
// or saved, which is what a record of what ctxd decided should be.

import * as vscode from "vscode";
import { DocumentScheme } from "./ids";

/** Keeps the latest text of each named document and shows it on demand. */
export class ResultDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly contents = new Map<string, string>();
  private readonly changes = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changes.event;

  /** The URI of a named document; the name's extension gives its language (.md, .json). */
  static uri(name: string): vscode.Uri {
    return vscode.Uri.from({ scheme: DocumentScheme, path: "/" + name });
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.path) ?? "This ctxd document is no longer available: run its command again.\n";
  }

  /** Sets a document's text; an open editor of it updates in place. */
  set(name: string, content: string): vscode.Uri {
    const uri = ResultDocuments.uri(name);
    this.contents.set(uri.path, content);
    this.changes.fire(uri);
    return uri;
  }

  /** Whether a document has text. */
  has(name: string): boolean {
    return this.contents.has(ResultDocuments.uri(name).path);
  }

  /** Sets a document's text and shows it in a preview editor. */
  async show(name: string, content: string): Promise<void> {
    const uri = this.set(name, content);
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Beside, preserveFocus: false });
  }

  dispose(): void {
    this.changes.dispose();
    this.contents.clear();
  }
}

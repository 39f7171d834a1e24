// The extension's read-only documents (scheme "ctxd"): the rendered
// bundle, the manifest, budget and index status previews, and refusal
// details. Content providers give VS Code documents that cannot be edited
// or saved, which is what a record of what ctxd decided should be.
//
// A markdown document opens rendered, in the markdown preview editor that
// ships with VS Code (`vscode.openWith` with its custom editor), not as
// markdown source; the source is one "Reopen Editor With…" away. All of
// them open in one editor group (layout.ts), each in a tab of its own that
// its command reuses and updates: VS Code pins whatever `vscode.openWith`
// opens, so the `preview` option only applies to the source shown as text
// when the preview editor is unavailable.

import * as vscode from "vscode";
import { DocumentScheme, MarkdownPreviewEditor } from "./ids";
import { documentColumn, tabScheme, type ColumnChoice, type GroupState } from "./layout";

/** The editor groups as layout.ts reads them. */
export function groupStates(): GroupState[] {
  return vscode.window.tabGroups.all.map((g) => ({
    viewColumn: g.viewColumn,
    isActive: g.isActive,
    tabs: g.tabs.map((t) => ({ scheme: tabScheme(t.input), isActive: t.isActive })),
  }));
}

/** A layout choice as a ViewColumn. */
export function viewColumnOf(choice: ColumnChoice): vscode.ViewColumn {
  return choice === "beside" ? vscode.ViewColumn.Beside : choice === "active" ? vscode.ViewColumn.Active : choice;
}

/** Keeps the latest text of each named document and shows it on demand. */
export class ResultDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly contents = new Map<string, string>();
  private readonly changes = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changes.event;

  /** `log` hears why a rendered preview could not open (the document then opens as text). */
  constructor(private readonly log: (message: string) => void = () => undefined) {}

  /** The URI of a named document; the name's extension gives its language (.md, .json). */
  static uri(name: string): vscode.Uri {
    return vscode.Uri.from({ scheme: DocumentScheme, path: "/" + name });
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.path) ?? "This ctxd document is no longer available: run its command again.\n";
  }

  /** Sets a document's text; an open editor or preview of it updates in place. */
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

  /**
   * Sets a document's text and shows it in ctxd's editor group: markdown
   * rendered (in a pinned tab, as `vscode.openWith` always opens), anything
   * else (JSON), or markdown without the preview editor, as read-only text
   * in a preview tab.
   */
  async show(name: string, content: string): Promise<void> {
    const uri = this.set(name, content);
    const options: vscode.TextDocumentShowOptions = {
      preview: true,
      preserveFocus: false,
      viewColumn: viewColumnOf(documentColumn(groupStates(), DocumentScheme)),
    };
    if (name.endsWith(".md")) {
      try {
        await vscode.commands.executeCommand("vscode.openWith", uri, MarkdownPreviewEditor, options);
        return;
      } catch (err) {
        // The markdown extension is disabled or too old: show the source instead.
        this.log(`the markdown preview of ${uri.toString()} did not open (${err instanceof Error ? err.message : String(err)}); showing its source`);
      }
    }
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc, options);
  }

  dispose(): void {
    this.changes.dispose();
    this.contents.clear();
  }
}

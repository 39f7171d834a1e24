// The results view: tree.ts's nodes as VS Code tree items. Clicking a block
// of a file opens the file at the lines its title names.

import * as vscode from "vscode";
import type { BuildResult, Refusal } from "./contract.gen";
import { ClientCommands } from "./ids";
import { refusalTree, resultTree, type OpenTarget, type TreeNode } from "./tree";

/** The last build's result, with the folder its paths are relative to. */
export interface ShownResult {
  result: BuildResult;
  /** The workspace folder of the request's active file; undefined outside any folder. */
  folder: vscode.Uri | undefined;
}

export class ResultsTreeProvider implements vscode.TreeDataProvider<TreeNode>, vscode.Disposable {
  private nodes: TreeNode[] = [];
  private shown: ShownResult | undefined;
  private refused: Refusal | undefined;
  private readonly changes = new vscode.EventEmitter<TreeNode | undefined>();
  readonly onDidChangeTreeData = this.changes.event;

  /** The result on display, if any; undefined while a refusal is. */
  get current(): ShownResult | undefined {
    return this.refused === undefined ? this.shown : undefined;
  }

  /** The refusal on display: the latest build was refused. */
  get refusal(): Refusal | undefined {
    return this.refused;
  }

  /** Shows a result, replacing the previous one (or a refusal). */
  show(shown: ShownResult): void {
    this.shown = shown;
    this.refused = undefined;
    this.nodes = resultTree(shown.result);
    this.changes.fire(undefined);
  }

  /**
   * Shows that the latest build was refused, in place of the previous
   * result; `earlier` is how many recent bundles can be reopened.
   */
  showRefusal(refusal: Refusal, earlier: number): void {
    this.refused = refusal;
    this.nodes = refusalTree(refusal, earlier);
    this.changes.fire(undefined);
  }

  /** The file a target names, in the result's folder. */
  resolve(target: OpenTarget): vscode.Uri | undefined {
    const folder = this.current?.folder;
    return folder ? vscode.Uri.joinPath(folder, ...target.path.split("/")) : undefined;
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    const state =
      node.children.length === 0
        ? vscode.TreeItemCollapsibleState.None
        : node.kind === "group" || node.kind === "refusal"
          ? vscode.TreeItemCollapsibleState.Expanded
          : vscode.TreeItemCollapsibleState.Collapsed;
    const item = new vscode.TreeItem(node.label, state);
    item.id = node.id;
    item.contextValue = node.kind;
    if (node.description !== undefined) {
      item.description = node.description;
    }
    if (node.tooltip !== undefined) {
      item.tooltip = node.tooltip;
    }
    if (node.icon !== undefined) {
      item.iconPath = new vscode.ThemeIcon(node.icon);
    }
    if (node.open !== undefined) {
      item.command = { command: ClientCommands.openBlock, title: "Open", arguments: [node.open] };
    } else if (node.kind === "summary") {
      item.command = { command: ClientCommands.openBundle, title: "Open Rendered Bundle" };
    } else if (node.kind === "refusal") {
      // Open Bundle shows the refusal's details while the view shows a refusal.
      item.command = { command: ClientCommands.openBundle, title: "Show the Refusal's Details" };
    } else if (node.kind === "history") {
      item.command = { command: ClientCommands.openRecentBundle, title: "Open Recent Bundle" };
    }
    return item;
  }

  getChildren(node?: TreeNode): TreeNode[] {
    return node === undefined ? this.nodes : node.children;
  }

  dispose(): void {
    this.changes.dispose();
  }
}

// The results view: tree.ts's nodes as VS Code tree items. Clicking a block
// of a file opens the file at the lines its title names.

import * as vscode from "vscode";
import type { BuildResult } from "./contract.gen";
import { ClientCommands } from "./ids";
import { resultTree, type OpenTarget, type TreeNode } from "./tree";

/** The last build's result, with the folder its paths are relative to. */
export interface ShownResult {
  result: BuildResult;
  /** The workspace folder of the request's active file; undefined outside any folder. */
  folder: vscode.Uri | undefined;
}

export class ResultsTreeProvider implements vscode.TreeDataProvider<TreeNode>, vscode.Disposable {
  private nodes: TreeNode[] = [];
  private shown: ShownResult | undefined;
  private readonly changes = new vscode.EventEmitter<TreeNode | undefined>();
  readonly onDidChangeTreeData = this.changes.event;

  /** The result on display, if any. */
  get current(): ShownResult | undefined {
    return this.shown;
  }

  /** Shows a result, replacing the previous one. */
  show(shown: ShownResult): void {
    this.shown = shown;
    this.nodes = resultTree(shown.result);
    this.changes.fire(undefined);
  }

  /** The file a target names, in the result's folder. */
  resolve(target: OpenTarget): vscode.Uri | undefined {
    const folder = this.shown?.folder;
    return folder ? vscode.Uri.joinPath(folder, ...target.path.split("/")) : undefined;
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    const state =
      node.children.length === 0
        ? vscode.TreeItemCollapsibleState.None
        : node.kind === "group"
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

// Activation: wires the server session, the commands, the status bar, the
// results view, the read-only documents, Generate Change and the MCP
// servers of agent mode, and returns the API for other extensions (api.d.ts).

import * as vscode from "vscode";
import type { CtxdApi } from "../api";
import { ChangeController } from "./changeView";
import { ServerSession } from "./client";
import { CommandHandlers } from "./commands";
import { ResultDocuments } from "./documents";
import { FileEditorTracker } from "./fileEditors";
import { ClientCommands, DocumentScheme, ViewIds } from "./ids";
import { registerMcpServers } from "./mcpProvider";
import { BudgetStatusBar } from "./statusBar";
import { ResultsTreeProvider } from "./treeView";

let session: ServerSession | undefined;

export function activate(context: vscode.ExtensionContext): CtxdApi {
  const output = vscode.window.createOutputChannel("ctxd", { log: true });
  const server = new ServerSession(context.extensionPath, output);
  session = server;
  const docs = new ResultDocuments((message) => output.warn(message));
  const tree = new ResultsTreeProvider();
  // Before the commands: every command builds from the editor it tracks.
  const editors = new FileEditorTracker();
  const change = new ChangeController(server, output, docs, context, () => editors.target());
  const handlers = new CommandHandlers(server, docs, tree, output, change, editors, context.globalState);
  context.subscriptions.push(
    output,
    editors,
    server,
    docs,
    tree,
    change,
    vscode.workspace.registerTextDocumentContentProvider(DocumentScheme, docs),
    change.registerDocuments(),
    vscode.window.createTreeView(ViewIds.results, { treeDataProvider: tree, showCollapseAll: true }),
    ...handlers.register(),
    new BudgetStatusBar(server, editors),
    // VS Code 1.101+: `ctxd mcp` per folder for agent mode; nothing (and one log line) before.
    ...registerMcpServers(context.extensionPath, output),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration("ctxd.server")) {
        const choice = await vscode.window.showInformationMessage("ctxd: the server settings changed; restart the server to apply them.", "Restart Server");
        if (choice === "Restart Server") {
          await vscode.commands.executeCommand(ClientCommands.restartServer);
        }
      }
    }),
  );
  void server.start();
  return {
    buildContext: (request) => server.commands.buildContext(request),
    budget: (request) => server.commands.budget(request),
    renderPrompt: (request) => server.commands.renderPrompt(request),
  };
}

export async function deactivate(): Promise<void> {
  await session?.stop();
  session = undefined;
}

// Offers ctxd's MCP server (`ctxd mcp --root <folder>`) to VS Code's agent
// mode through vscode.lm.registerMcpServerDefinitionProvider, so that no
// .vscode/mcp.json is needed. That API is VS Code 1.101's; the extension
// still runs on 1.85, so the API is typed here as far as it is used (the
// declarations of @types/vscode 1.101, which this package does not depend
// on) and looked for at run time. src/mcpServers.ts decides what to offer.

import * as vscode from "vscode";
import { checkVersion, findServer } from "./client";
import { McpProviderId } from "./ids";
import { planMcpServers } from "./mcpServers";
import { errorMessage } from "./rpc";

/** vscode.McpStdioServerDefinition (VS Code 1.101+), as far as the extension uses it. */
export interface McpStdioServerDefinition {
  readonly label: string;
  command: string;
  args: string[];
  env: Record<string, string | number | null>;
  version?: string;
  cwd?: vscode.Uri;
}

/** The constructor of vscode.McpStdioServerDefinition. */
export type McpStdioServerDefinitionClass = new (
  label: string,
  command: string,
  args?: string[],
  env?: Record<string, string | number | null>,
  version?: string,
) => McpStdioServerDefinition;

/** vscode.McpServerDefinitionProvider, for stdio servers. */
export interface McpServerDefinitionProvider {
  readonly onDidChangeMcpServerDefinitions?: vscode.Event<void>;
  provideMcpServerDefinitions(token: vscode.CancellationToken): vscode.ProviderResult<McpStdioServerDefinition[]>;
}

/** The part of the `vscode` module the MCP API lives in; both members are absent before VS Code 1.101. */
export interface McpHost {
  lm?: {
    registerMcpServerDefinitionProvider?(id: string, provider: McpServerDefinitionProvider): vscode.Disposable;
  };
  McpStdioServerDefinition?: McpStdioServerDefinitionClass;
  version?: string;
}

/**
 * The provider: one `ctxd mcp` server per workspace folder, run by the
 * binary the language client would start, with that binary's version as
 * the definition's version (VS Code offers to refresh the tools when it
 * changes). Nothing when the setting opts out, no folder is open, or the
 * binary is missing or is not ctxd: the language client already shows
 * that error in a notification, so here it is only logged, and a message
 * only when it differs from the last one.
 */
export class McpServers implements McpServerDefinitionProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeMcpServerDefinitions = this.changed.event;
  /** `ctxd version` of each binary asked, until the next refresh. */
  private readonly versions = new Map<string, Promise<string>>();
  private lastLog: string | undefined;

  constructor(
    private readonly extensionPath: string,
    private readonly output: vscode.LogOutputChannel,
    private readonly Definition: McpStdioServerDefinitionClass,
  ) {}

  /** Tells VS Code to ask for the definitions again (folders or settings changed). */
  refresh(): void {
    this.versions.clear();
    this.changed.fire();
  }

  async provideMcpServerDefinitions(): Promise<McpStdioServerDefinition[]> {
    const plan = planMcpServers({
      enabled: vscode.workspace.getConfiguration("ctxd").get<unknown>("mcp.enabled", true),
      folders: (vscode.workspace.workspaceFolders ?? []).map((f) => ({ name: f.name, fsPath: f.uri.fsPath, scheme: f.uri.scheme })),
      binary: findServer(this.extensionPath),
    });
    if (plan.kind === "none") {
      this.log(plan.reason === "no-binary" ? "warn" : "info", plan.message);
      return [];
    }
    let version: string;
    try {
      version = await this.versionOf(plan.binary);
    } catch (err) {
      this.log("warn", `ctxd's MCP server is not offered to agent mode: ${errorMessage(err)}`);
      return [];
    }
    const labels = plan.servers.map((s) => `"${s.label}"`).join(", ");
    this.log("info", `ctxd's MCP server is offered to agent mode: ${labels}, each \`${plan.binary} mcp --root <folder>\` (ctxd ${version})`);
    return plan.servers.map((s) => {
      const definition = new this.Definition(s.label, s.command, s.args, {}, version);
      definition.cwd = vscode.Uri.file(s.cwd);
      return definition;
    });
  }

  private versionOf(binary: string): Promise<string> {
    let version = this.versions.get(binary);
    if (version === undefined) {
      version = checkVersion(binary).then((v) => v.report.version);
      this.versions.set(binary, version);
      // A failure is not remembered: the next request asks again.
      version.catch(() => this.versions.delete(binary));
    }
    return version;
  }

  private log(level: "info" | "warn", message: string): void {
    if (message !== this.lastLog) {
      this.lastLog = message;
      this.output[level](message);
    }
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/**
 * Registers the provider when this VS Code has the API, and keeps it
 * current: workspace folders added or removed, `ctxd.server.path` or
 * `ctxd.mcp.enabled` changed. Without the API (VS Code before 1.101) it
 * says so once in the output channel and registers nothing.
 */
export function registerMcpServers(extensionPath: string, output: vscode.LogOutputChannel, host: McpHost = vscode as unknown as McpHost): vscode.Disposable[] {
  const lm = host.lm;
  const Definition = host.McpStdioServerDefinition;
  if (typeof lm?.registerMcpServerDefinitionProvider !== "function" || typeof Definition !== "function") {
    output.info(
      `this VS Code${host.version ? ` (${host.version})` : ""} has no API for extensions' MCP servers (vscode.lm.registerMcpServerDefinitionProvider, VS Code 1.101 or later): ctxd's MCP server is not offered to agent mode; a .vscode/mcp.json can still name it`,
    );
    return [];
  }
  const servers = new McpServers(extensionPath, output, Definition);
  let registration: vscode.Disposable;
  try {
    registration = lm.registerMcpServerDefinitionProvider(McpProviderId, servers);
  } catch (err) {
    // VS Code refuses an id package.json does not contribute, and an API
    // still behind a proposal (1.99, 1.100) throws.
    output.error(`ctxd's MCP server could not be registered for agent mode: ${errorMessage(err)}`);
    servers.dispose();
    return [];
  }
  return [
    registration,
    servers,
    vscode.workspace.onDidChangeWorkspaceFolders(() => servers.refresh()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration("ctxd.server.path") || e.affectsConfiguration("ctxd.mcp.enabled")) {
        servers.refresh();
      }
    }),
  ];
}

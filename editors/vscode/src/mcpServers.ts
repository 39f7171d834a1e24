// ctxd's MCP server for VS Code's agent mode: which servers to offer, from
// the workspace folders, the binary lookup and the opt-out setting. Pure:
// src/mcpProvider.ts feeds it what VS Code and the file system say and
// turns its answer into vscode.McpStdioServerDefinition objects.

import type { LookupResult } from "./lookup";

/** A workspace folder, as far as the MCP servers need one. */
export interface McpFolder {
  /** WorkspaceFolder.name: the label's suffix. */
  name: string;
  /** WorkspaceFolder.uri.fsPath: `--root` and the working directory. */
  fsPath: string;
  /** WorkspaceFolder.uri.scheme: only "file" folders are on a disk ctxd can read. */
  scheme: string;
}

/** One `ctxd mcp` server, before it becomes a vscode.McpStdioServerDefinition. */
export interface McpServerSpec {
  /** "ctxd: <folder name>", made unique among the window's folders. */
  label: string;
  /** The ctxd binary: the one the language client starts. */
  command: string;
  args: string[];
  /** The folder, as the working directory. */
  cwd: string;
}

export interface McpPlanInput {
  /** `ctxd.mcp.enabled`; anything but `false` counts as enabled. */
  enabled: unknown;
  /** The window's workspace folders, in order. */
  folders: readonly McpFolder[];
  /** Where the binary is (lookup.ts's order), or why it was not found. */
  binary: LookupResult;
}

/**
 * What to offer: nothing, and why (the message is for the output channel;
 * a missing binary is a warning, the rest is information), or one server
 * per folder.
 */
export type McpPlan =
  | { kind: "none"; reason: "disabled" | "no-folder" | "no-binary"; message: string }
  | { kind: "servers"; binary: string; servers: McpServerSpec[] };

/** The arguments of the MCP server of a folder. */
export function mcpArgs(root: string): string[] {
  return ["mcp", "--root", root];
}

/**
 * The label of each folder's server: "ctxd: <name>", with " (2)", " (3)", …
 * after the second and later folders of a name already taken (VS Code
 * keys an extension's servers by label).
 */
export function mcpLabels(names: readonly string[]): string[] {
  const taken = new Set<string>();
  return names.map((name) => {
    const base = `ctxd: ${name}`;
    let label = base;
    for (let n = 2; taken.has(label); n++) {
      label = `${base} (${n})`;
    }
    taken.add(label);
    return label;
  });
}

/** Decides which MCP servers the window offers. */
export function planMcpServers(input: McpPlanInput): McpPlan {
  const none = (reason: "disabled" | "no-folder" | "no-binary", why: string): McpPlan => ({
    kind: "none",
    reason,
    message: `ctxd's MCP server is not offered to agent mode: ${why}`,
  });
  if (input.enabled === false) {
    return none("disabled", "ctxd.mcp.enabled is false");
  }
  const folders = input.folders.filter((f) => f.scheme === "file" && f.fsPath !== "");
  if (folders.length === 0) {
    return none("no-folder", "no workspace folder on disk is open");
  }
  if (!input.binary.ok) {
    return none("no-binary", input.binary.message);
  }
  const command = input.binary.path;
  const labels = mcpLabels(folders.map((f) => f.name));
  return {
    kind: "servers",
    binary: command,
    servers: folders.map((f, i) => ({ label: labels[i]!, command, args: mcpArgs(f.fsPath), cwd: f.fsPath })),
  };
}

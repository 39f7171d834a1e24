// Where the ctxd binary is: the `ctxd.server.path` setting, then a binary
// bundled in the extension (server/ctxd, server/ctxd.exe), then PATH. Pure:
// the file system is a function the caller passes, so the order and the
// messages are unit-tested without touching disk.

import * as path from "node:path";

/** Where a binary was found. */
export type BinarySource = "setting" | "bundled" | "PATH";

export interface LookupInput {
  /** `ctxd.server.path`; undefined, null or blank means unset. */
  configured?: string | null;
  /** The extension's install directory (ExtensionContext.extensionPath). */
  extensionPath: string;
  /** `process.platform`: decides the executable name and PATH's separator. */
  platform: string;
  /** The environment: PATH (or Path on Windows), HOME / USERPROFILE for "~". */
  env: Readonly<Record<string, string | undefined>>;
  /** The first workspace folder's path, for ${workspaceFolder} and relative settings. */
  workspaceFolder?: string;
  /** Whether a path is an existing regular file. */
  isFile: (p: string) => boolean;
}

export type LookupResult =
  | { ok: true; path: string; source: BinarySource }
  | { ok: false; message: string; tried: string[] };

/** The executable's file name on a platform. */
export function executableName(platform: string): string {
  return platform === "win32" ? "ctxd.exe" : "ctxd";
}

/**
 * Expands a configured path: "~" and "~/" to the home directory,
 * ${workspaceFolder} and ${userHome}; a relative result is resolved against
 * the workspace folder (a setting in .vscode/settings.json is written
 * relative to it). Undefined when it cannot be resolved.
 */
export function expandConfiguredPath(configured: string, input: Omit<LookupInput, "isFile" | "extensionPath">): string | undefined {
  const p = input.platform === "win32" ? path.win32 : path.posix;
  const home = input.platform === "win32" ? (input.env.USERPROFILE ?? input.env.HOME) : input.env.HOME;
  let value = configured.trim();
  if (value.includes("${workspaceFolder}")) {
    if (!input.workspaceFolder) {
      return undefined;
    }
    value = value.split("${workspaceFolder}").join(input.workspaceFolder);
  }
  if (value.includes("${userHome}")) {
    if (!home) {
      return undefined;
    }
    value = value.split("${userHome}").join(home);
  }
  if (value === "~" || value.startsWith("~/") || (input.platform === "win32" && value.startsWith("~\\"))) {
    if (!home) {
      return undefined;
    }
    value = p.join(home, value.slice(1));
  }
  if (!p.isAbsolute(value)) {
    if (!input.workspaceFolder) {
      return undefined;
    }
    value = p.resolve(input.workspaceFolder, value);
  }
  return value;
}

/** Looks the binary up in the documented order. */
export function lookupServer(input: LookupInput): LookupResult {
  const p = input.platform === "win32" ? path.win32 : path.posix;
  const name = executableName(input.platform);
  const configured = input.configured?.trim();
  if (configured) {
    const expanded = expandConfiguredPath(configured, input);
    if (expanded === undefined) {
      return {
        ok: false,
        message: `ctxd.server.path "${configured}" cannot be resolved: it is relative or uses \${workspaceFolder} or ~ without a workspace folder or home directory`,
        tried: [],
      };
    }
    if (input.isFile(expanded)) {
      return { ok: true, path: expanded, source: "setting" };
    }
    // An explicit setting that points nowhere is an error, never a reason to
    // run some other binary the user did not choose.
    return { ok: false, message: `ctxd.server.path is set to "${configured}", but ${expanded} is not a file`, tried: [expanded] };
  }
  const tried: string[] = [];
  const bundled = p.join(input.extensionPath, "server", name);
  tried.push(bundled);
  if (input.isFile(bundled)) {
    return { ok: true, path: bundled, source: "bundled" };
  }
  const pathVar = input.platform === "win32" ? (input.env.PATH ?? input.env.Path ?? "") : (input.env.PATH ?? "");
  const separator = input.platform === "win32" ? ";" : ":";
  for (const dir of pathVar.split(separator)) {
    if (dir.trim() === "") {
      continue;
    }
    const candidate = p.join(dir.trim(), name);
    tried.push(candidate);
    if (input.isFile(candidate)) {
      return { ok: true, path: candidate, source: "PATH" };
    }
  }
  return {
    ok: false,
    message: `no ${name} binary found: set ctxd.server.path, or put ${name} on PATH (build it with \`make build\` in the ctxd repository)`,
    tried,
  };
}

/**
 * The version line of `ctxd version`'s output ("ctxd 1.2.3 (commit …)"),
 * or undefined when the output is not ctxd's, which means the binary is
 * something else and must not be started as the server.
 */
export function parseVersion(stdout: string): string | undefined {
  const first = stdout.split(/\r?\n/)[0]?.trim() ?? "";
  return /^ctxd \S+/.test(first) ? first : undefined;
}

/**
 * The server's command line after the binary: LSP on stdio, then the
 * `ctxd.server.extraArgs` setting's strings (anything else in the setting
 * is ignored rather than stringified into a surprising argument).
 */
export function serverArgs(extraArgs: unknown): string[] {
  const extra = Array.isArray(extraArgs) ? extraArgs.filter((a): a is string => typeof a === "string") : [];
  return ["serve", "--stdio", ...extra];
}

// The ctxd server: finding the binary, checking it, and running it behind a
// vscode-languageclient LanguageClient over stdio. ServerSession owns the
// client's lifecycle (start, restart after a settings change, stop) and is
// the only place that sends requests, through CtxdCommands (and
// workspace/symbol, for the symbol pick).

import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as vscode from "vscode";
import {
  ExecuteCommandRequest,
  LanguageClient,
  RevealOutputChannelOn,
  State,
  type CancellationToken,
  type LanguageClientOptions,
  type ServerOptions,
} from "vscode-languageclient/node";
import { ClientId } from "./ids";
import { lookupServer, parseVersion, serverArgs, type BinarySource, type LookupResult } from "./lookup";
import { decideProtocol, parseVersionJson, versionWord, type VersionReport } from "./protocol";
import { negotiatedEncoding, type PositionEncoding } from "./encoding";
import { advertises, CtxdCommands, errorMessage } from "./rpc";
import type { WorkspaceSymbol } from "./symbols";

/** How long `ctxd version` may take before the binary is declared broken. */
const versionTimeoutMs = 5000;

/** How long a stopping server may take before it is killed. */
const stopTimeoutMs = 3000;

/** A binary that answered `ctxd version`. */
export interface ServerBinary {
  path: string;
  source: BinarySource;
  version: string;
}

/** A failure to find, check or start the server, with the message the user sees. */
export class ServerStartError extends Error {
  override readonly name = "ServerStartError";
  constructor(
    message: string,
    /** Whether the fix is a setting (the notification offers "Open Settings" first). */
    readonly settingsRelated: boolean,
  ) {
    super(message);
  }
}

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/** Runs `<binary> version [args]` with a timeout; rejects with the message the user sees. */
function runVersion(binary: string, args: string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(binary, ["version", ...args], { timeout: timeoutMs, windowsHide: true, killSignal: "SIGKILL" }, (err, stdout, stderr) => {
      if (err) {
        const e = err as NodeJS.ErrnoException & { killed?: boolean; signal?: string | null };
        if (e.code === "ENOENT") {
          reject(new ServerStartError(`${binary} does not exist`, true));
        } else if (e.code === "EACCES") {
          reject(new ServerStartError(`${binary} is not executable (chmod +x it)`, true));
        } else if (e.killed) {
          reject(new ServerStartError(`${binary} did not answer \`ctxd version\` within ${timeoutMs / 1000} s`, true));
        } else {
          const detail = String(stderr).trim().split(/\r?\n/)[0] || e.message;
          reject(new ServerStartError(`\`${binary} version${args.map((a) => " " + a).join("")}\` failed: ${detail}`, true));
        }
        return;
      }
      resolve(String(stdout));
    });
  });
}

/** What a binary said about itself. */
export interface VersionCheck {
  /** The line to log: "ctxd 1.2.3 (commit …, platform)". */
  line: string;
  report: VersionReport;
}

/**
 * Asks a binary `ctxd version --json`; a binary whose output is not that
 * JSON is asked plain `ctxd version`, whose line must be ctxd's.
 */
export async function checkVersion(binary: string, timeoutMs = versionTimeoutMs): Promise<VersionCheck> {
  let json: string | undefined;
  try {
    json = await runVersion(binary, ["--json"], timeoutMs);
  } catch (err) {
    // A missing, unrunnable or hanging binary fails the same way without
    // the flag; only a failed flag is worth a second try.
    if (!(err instanceof ServerStartError) || !/ failed: /.test(err.message)) {
      throw err;
    }
  }
  const report = json === undefined ? undefined : parseVersionJson(json);
  if (report !== undefined) {
    const extra = [report.commit === undefined ? undefined : `commit ${report.commit}`, report.platform].filter((x) => x !== undefined);
    return { line: `ctxd ${report.version}${extra.length > 0 ? ` (${extra.join(", ")})` : ""}`, report };
  }
  const line = parseVersion(await runVersion(binary, [], timeoutMs));
  const word = line === undefined ? undefined : versionWord(line);
  if (line === undefined || word === undefined) {
    throw new ServerStartError(`${binary} is not ctxd: \`version\` printed something else`, true);
  }
  return { line, report: { version: word } };
}

/**
 * Looks the binary up per the settings (lookup.ts's order) without running
 * it: the language client's binary, and the one the MCP servers run.
 */
export function findServer(extensionPath: string): LookupResult {
  const config = vscode.workspace.getConfiguration("ctxd");
  return lookupServer({
    configured: config.get<string | null>("server.path"),
    extensionPath,
    platform: process.platform,
    env: process.env,
    workspaceFolder: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
    isFile,
  });
}

/** Finds the binary per the settings, checks that it is a working ctxd and that the extension speaks its protocol. */
export async function resolveServer(extensionPath: string, output?: vscode.LogOutputChannel): Promise<ServerBinary> {
  const found = findServer(extensionPath);
  if (!found.ok) {
    throw new ServerStartError(found.message, true);
  }
  const checked = await checkVersion(found.path);
  const decision = decideProtocol(checked.report, found.source);
  if (decision.kind === "mismatch") {
    throw new ServerStartError(`${found.path}: ${decision.message}`, true);
  }
  if (decision.kind === "unknown") {
    output?.warn(`${found.path}: ${decision.message}`);
  }
  return { path: found.path, source: found.source, version: checked.line };
}

/** The language client for a binary. Nothing is started here. */
export function createClient(binary: ServerBinary, output: vscode.LogOutputChannel): LanguageClient {
  const config = vscode.workspace.getConfiguration("ctxd");
  const serverOptions: ServerOptions = {
    command: binary.path,
    // No `transport`: the client would append its own "--stdio" to args.
    args: serverArgs(config.get<unknown>("server.extraArgs")),
    options: { cwd: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath },
  };
  const clientOptions: LanguageClientOptions = {
    // Every file: ctxd reads open buffers as the truth for what it sends,
    // whatever their language.
    documentSelector: [{ scheme: "file" }],
    outputChannel: output,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    initializationFailedHandler: (error) => {
      output.error(`ctxd failed to initialize: ${errorMessage(error)}`);
      return false;
    },
  };
  return new LanguageClient(ClientId, "ctxd", serverOptions, clientOptions);
}

/** The session's state, for the status bar and the API. */
export type SessionState = "stopped" | "starting" | "running" | "failed";

/**
 * One ctxd server for the window. Requests wait while it starts and fail
 * with the start's error when it could not start.
 */
export class ServerSession implements vscode.Disposable {
  /** ctxd's context commands, sent through the running client. */
  readonly commands: CtxdCommands;
  private client: LanguageClient | undefined;
  private currentState: SessionState = "stopped";
  private lastFailure: string | undefined;
  private starting: Promise<void> | undefined;
  private encodingValue: PositionEncoding = "utf-16";
  private readonly stateEmitter = new vscode.EventEmitter<SessionState>();
  /** Fires after every state change. */
  readonly onDidChangeState = this.stateEmitter.event;
  private clientListener: vscode.Disposable | undefined;

  constructor(
    private readonly extensionPath: string,
    private readonly output: vscode.LogOutputChannel,
  ) {
    this.commands = new CtxdCommands((command, argument, token) => this.send(command, argument, token as CancellationToken | undefined));
  }

  get state(): SessionState {
    return this.currentState;
  }

  /** Why the server is not running, when it failed. */
  get failure(): string | undefined {
    return this.lastFailure;
  }

  /** The position encoding the running server negotiated (UTF-16 before one runs). */
  get encoding(): PositionEncoding {
    return this.encodingValue;
  }

  /** Whether the running server advertised a command. */
  advertises(command: string): boolean {
    return advertises(this.client?.initializeResult, command);
  }

  private setState(state: SessionState): void {
    if (state !== this.currentState) {
      this.currentState = state;
      this.stateEmitter.fire(state);
    }
  }

  /** Starts the server; a second call while starting shares the first. Never rejects: failures are shown and kept. */
  start(): Promise<void> {
    if (this.starting === undefined) {
      this.starting = this.doStart().finally(() => {
        this.starting = undefined;
      });
    }
    return this.starting;
  }

  private async doStart(): Promise<void> {
    this.lastFailure = undefined;
    this.setState("starting");
    let client: LanguageClient | undefined;
    try {
      const binary = await resolveServer(this.extensionPath, this.output);
      this.output.info(`starting ${binary.path} (found by ${binary.source}): ${binary.version}`);
      client = createClient(binary, this.output);
      this.client = client;
      const started = client;
      this.clientListener?.dispose();
      this.clientListener = started.onDidChangeState((e) => {
        if (this.client !== started) {
          return;
        }
        // The client restarts a crashed server a few times by itself;
        // mirror that, and report when it gives up.
        if (e.newState === State.Starting) {
          this.setState("starting");
        } else if (e.newState === State.Running) {
          try {
            this.running(started);
          } catch (err) {
            this.lastFailure = errorMessage(err);
            this.output.error(`ctxd cannot be used: ${this.lastFailure}`);
            this.setState("failed");
          }
        } else if (e.newState === State.Stopped && this.currentState !== "stopped") {
          this.lastFailure = "the ctxd server stopped; its output has the details";
          this.setState("failed");
        }
      });
      await client.start();
      this.running(client);
    } catch (err) {
      const message = errorMessage(err);
      this.lastFailure = message;
      this.output.error(`ctxd could not start: ${message}`);
      if (client !== undefined && this.client === client) {
        this.client = undefined;
        await client.stop(stopTimeoutMs).catch(() => undefined);
      }
      this.setState("failed");
      void this.showStartError(message, err instanceof ServerStartError ? err.settingsRelated : false);
    }
  }

  /**
   * Records a (re)started server: its position encoding first, so that no
   * request is built with a stale one once the state says "running".
   */
  private running(client: LanguageClient): void {
    const encoding = negotiatedEncoding(client.initializeResult?.capabilities.positionEncoding);
    if (this.currentState !== "running" || encoding !== this.encodingValue) {
      this.output.info(`ctxd is running; position encoding ${encoding}`);
    }
    this.encodingValue = encoding;
    this.setState("running");
  }

  private async showStartError(message: string, settingsFirst: boolean): Promise<void> {
    const actions = settingsFirst ? ["Open Settings", "Show Output"] : ["Show Output", "Open Settings"];
    const choice = await vscode.window.showErrorMessage(`ctxd could not start: ${message}`, ...actions);
    if (choice === "Open Settings") {
      await vscode.commands.executeCommand("workbench.action.openSettings", "ctxd.server");
    } else if (choice === "Show Output") {
      this.output.show(true);
    }
  }

  /** Stops the server, if one runs. */
  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.clientListener?.dispose();
    this.clientListener = undefined;
    this.setState("stopped");
    if (client !== undefined) {
      try {
        await client.stop(stopTimeoutMs);
      } catch (err) {
        this.output.warn(`stopping ctxd: ${errorMessage(err)}`);
      }
    }
  }

  /** Stops, then starts again with the current settings (the binary is looked up again). */
  async restart(): Promise<void> {
    await this.starting;
    await this.stop();
    await this.start();
  }

  /** The running client, waiting while the server starts. */
  async whenRunning(): Promise<LanguageClient> {
    if (this.starting !== undefined) {
      await this.starting;
    } else if (this.currentState === "starting") {
      // The client is restarting a crashed server by itself.
      await new Promise<void>((resolve) => {
        const listener = this.onDidChangeState((s) => {
          if (s !== "starting") {
            listener.dispose();
            resolve();
          }
        });
      });
    }
    if (this.currentState === "running" && this.client !== undefined) {
      return this.client;
    }
    throw new Error(`ctxd is not running: ${this.lastFailure ?? "it was stopped"}`);
  }

  /**
   * The server's workspace/symbol answer for a query: the symbols whose
   * name contains it, best first (handlers/workspace_symbol.go).
   */
  async workspaceSymbols(query: string, token?: vscode.CancellationToken): Promise<WorkspaceSymbol[]> {
    const client = await this.whenRunning();
    const result: unknown =
      token === undefined
        ? await client.sendRequest("workspace/symbol", { query })
        : await client.sendRequest("workspace/symbol", { query }, token as unknown as CancellationToken);
    return Array.isArray(result) ? (result as WorkspaceSymbol[]) : [];
  }

  private async send(command: string, argument: unknown, token: CancellationToken | undefined): Promise<unknown> {
    const client = await this.whenRunning();
    const params = { command, arguments: [argument] };
    return token === undefined
      ? client.sendRequest(ExecuteCommandRequest.type, params)
      : client.sendRequest(ExecuteCommandRequest.type, params, token);
  }

  dispose(): void {
    void this.stop();
    this.stateEmitter.dispose();
  }
}

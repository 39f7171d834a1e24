// Runs the real ctxd for the integration test and scripts/capture.mjs: a
// temporary copy of testdata/example, the binary over stdio, and a bare
// LSP connection whose workspace/executeCommand feeds the extension's own
// CtxdCommands. Nothing is ever written into testdata.

import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import {
  createProtocolConnection,
  DidOpenTextDocumentNotification,
  ExecuteCommandRequest,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  type InitializeResult,
  type ProtocolConnection,
} from "vscode-languageserver-protocol/node";
import { negotiatedEncoding, type PositionEncoding } from "../src/encoding";
import { CtxdCommands } from "../src/rpc";

/** The extension's directory (this file runs from out/test/). */
export const extensionRoot = path.resolve(__dirname, "..", "..");

/** The ctxd binary: $CTXD_BIN (relative to the working directory), else ../../bin/ctxd of the extension. */
export function ctxdBinary(): string {
  const fromEnv = process.env.CTXD_BIN;
  if (fromEnv !== undefined && fromEnv !== "") {
    return path.resolve(fromEnv);
  }
  return path.resolve(extensionRoot, "..", "..", "bin", process.platform === "win32" ? "ctxd.exe" : "ctxd");
}

/** The example workspace: $CTXD_EXAMPLE, else ../../testdata/example of the extension. */
export function exampleWorkspace(): string {
  const fromEnv = process.env.CTXD_EXAMPLE;
  return fromEnv ? path.resolve(fromEnv) : path.resolve(extensionRoot, "..", "..", "testdata", "example");
}

/** Fails with what to do when the binary is missing. */
export function requireBinary(): string {
  const bin = ctxdBinary();
  if (!fs.existsSync(bin)) {
    throw new Error(
      `the ctxd binary is missing at ${bin}: run \`make build\` in the repository root, or set CTXD_BIN to a ctxd binary`,
    );
  }
  return bin;
}

/**
 * Copies a workspace to a new temporary directory. Of .ctxd/ only what is
 * meant to be committed is copied (config.json, templates/): the recorded
 * state of earlier runs (artifacts, ledger, audit trail) stays behind.
 */
export function copyWorkspace(source: string): string {
  const target = fs.mkdtempSync(path.join(os.tmpdir(), "ctxd-vscode-"));
  const kept = new Set(["config.json", "templates", ".gitignore"]);
  fs.cpSync(source, target, {
    recursive: true,
    filter: (src) => {
      const rel = path.relative(source, src).split(path.sep);
      return !(rel[0] === ".ctxd" && rel.length > 1 && !kept.has(rel[1]!));
    },
  });
  return target;
}

/** A file URI as VS Code prints it. */
export function fileUri(p: string): string {
  return pathToFileURL(p).href;
}

/** A running ctxd with the extension's command layer over it. */
export interface Server {
  connection: ProtocolConnection;
  process: ChildProcess;
  initializeResult: InitializeResult;
  /** The encoding the server chose, as the extension reads it. */
  encoding: PositionEncoding;
  commands: CtxdCommands;
  /** Everything the server wrote to stderr (its log), for failure messages. */
  stderr: () => string;
  /** Sends didOpen for a workspace file, with its text on disk or the given one. */
  open: (file: string, languageId: string, text?: string) => void;
  stop: () => Promise<void>;
}

/** Starts ctxd on a workspace folder, offering the given position encodings. */
export async function startServer(workspace: string, positionEncodings: PositionEncoding[] = ["utf-16"]): Promise<Server> {
  const bin = requireBinary();
  // No index cache: the test must not read or leave state outside its temporary workspace.
  const child = spawn(bin, ["serve", "--stdio", "--log-level", "warn", "--cache-dir", "off"], { cwd: workspace, stdio: ["pipe", "pipe", "pipe"] });
  let log = "";
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (chunk: string) => {
    log += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const connection = createProtocolConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
  connection.listen();
  const root = fileUri(workspace);
  const initializeResult = await connection.sendRequest(InitializeRequest.type, {
    processId: process.pid,
    clientInfo: { name: "ctxd-vscode-test" },
    rootUri: root,
    workspaceFolders: [{ uri: root, name: path.basename(workspace) }],
    capabilities: { general: { positionEncodings } },
  });
  await connection.sendNotification(InitializedNotification.type, {});
  const commands = new CtxdCommands((command, argument) => connection.sendRequest(ExecuteCommandRequest.type, { command, arguments: [argument] }));
  let version = 0;
  return {
    connection,
    process: child,
    initializeResult,
    encoding: negotiatedEncoding(initializeResult.capabilities.positionEncoding),
    commands,
    stderr: () => log,
    open: (file, languageId, text) => {
      version++;
      void connection.sendNotification(DidOpenTextDocumentNotification.type, {
        textDocument: { uri: fileUri(file), languageId, version, text: text ?? fs.readFileSync(file, "utf8") },
      });
    },
    stop: async () => {
      try {
        await connection.sendRequest(ShutdownRequest.type);
        await connection.sendNotification(ExitNotification.type);
      } catch {
        // The process is gone already; the kill below is a no-op then.
      }
      const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(timer);
      connection.dispose();
    },
  };
}

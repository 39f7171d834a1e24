// Runs tools/fakemodel/fakemodel.mjs, the scripted fake model server, for
// the tests: on 127.0.0.1, port 0 (the server picks one), killed by stop().
// Nothing here reaches beyond 127.0.0.1.

import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { extensionRoot } from "./harness";

/** An answer of the script: a text, a failure, or a slow text. */
export type ScriptedAnswer = string | { status: number; body?: string } | { delay_ms: number; text: string };

export interface FakeModelScript {
  answers: ScriptedAnswer[];
  /** Characters per streamed piece (the server's default is 16). */
  chunk?: number;
  /** A key the requests must carry. */
  key?: string;
}

/** A request the server received. */
export interface ReceivedRequest {
  path: string;
  headers: Record<string, string>;
  body: {
    model?: string;
    stream?: boolean;
    max_tokens?: number;
    system?: string;
    messages?: { role: string; content: string }[];
  };
}

export interface FakeModel {
  /** http://127.0.0.1:PORT */
  url: string;
  /** What the server received so far (GET /__requests). */
  requests(): Promise<ReceivedRequest[]>;
  stop(): Promise<void>;
}

/** tools/fakemodel/fakemodel.mjs of the repository. */
export function fakeModelScript(): string {
  return path.resolve(extensionRoot, "..", "..", "tools", "fakemodel", "fakemodel.mjs");
}

/** Starts the fake model server with a script. */
export async function startFakeModel(script: FakeModelScript): Promise<FakeModel> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ctxd-fakemodel-"));
  const file = path.join(dir, "script.json");
  fs.writeFileSync(file, JSON.stringify(script));
  const child: ChildProcess = spawn(process.execPath, [fakeModelScript(), file, "0"], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (d: string) => (stderr += d));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.setEncoding("utf8");
    child.stdout!.on("data", (d: string) => {
      out += d;
      const m = /listening (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once("exit", (code) => reject(new Error(`the fake model server exited (${code}): ${stderr}`)));
  });
  return {
    url,
    async requests() {
      const res = await fetch(`${url}/__requests`);
      return (await res.json()) as ReceivedRequest[];
    },
    async stop() {
      // SIGKILL: the server's own SIGTERM handler waits for the client's
      // keep-alive connections to close, which takes seconds.
      child.kill("SIGKILL");
      await exited;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A cancellation token the tests drive. */
export function cancelSource(): { token: { readonly isCancellationRequested: boolean; onCancellationRequested(l: () => unknown): { dispose(): void } }; cancel(): void } {
  let cancelled = false;
  const listeners = new Set<() => unknown>();
  return {
    token: {
      get isCancellationRequested() {
        return cancelled;
      },
      onCancellationRequested(l: () => unknown) {
        listeners.add(l);
        return { dispose: () => listeners.delete(l) };
      },
    },
    cancel() {
      if (!cancelled) {
        cancelled = true;
        for (const l of [...listeners]) l();
      }
    },
  };
}

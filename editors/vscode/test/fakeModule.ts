// The extension tests' shared setup: `require("vscode")` routed to the
// fake (test/fakeVscode.ts), and waiting for what the real server answers
// asynchronously.

import assert from "node:assert/strict";
import Module from "node:module";
import * as path from "node:path";
import * as fake from "./fakeVscode";

let routed = false;

/**
 * Routes `require("vscode")` (the extension's and vscode-languageclient's)
 * to the fake: a module registered in the require cache under a name no
 * file has. Call it before the extension is loaded; calling it again does
 * nothing.
 */
export function routeVscodeToFake(): void {
  if (routed) {
    return;
  }
  routed = true;
  const fakeId = path.join(__dirname, "vscode (fake).js");
  const fakeModule = new Module(fakeId);
  fakeModule.filename = fakeId;
  fakeModule.loaded = true;
  fakeModule.exports = fake.vscodeModule(fake);
  require.cache[fakeId] = fakeModule;
  const loader = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
  const resolve = loader._resolveFilename;
  loader._resolveFilename = function (request: string, ...rest: unknown[]): string {
    return request === "vscode" ? fakeId : resolve.call(this, request, ...rest);
  };
}

/** Waits until a condition holds (the server answers asynchronously); fails with `what` after a generous bound. */
export async function until(what: string, condition: () => boolean): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (condition()) {
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`timed out waiting for ${what}`);
}

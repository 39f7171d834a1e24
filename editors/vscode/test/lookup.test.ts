import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { expandConfiguredPath, lookupServer, parseVersion, serverArgs, type LookupInput } from "../src/lookup";

function input(files: string[], over: Partial<LookupInput> = {}): LookupInput {
  const set = new Set(files);
  return {
    extensionPath: "/ext",
    platform: "linux",
    env: { PATH: "/usr/local/bin:/usr/bin", HOME: "/home/u" },
    workspaceFolder: "/work/app",
    isFile: (p) => set.has(p),
    ...over,
  };
}

describe("lookupServer", () => {
  it("the setting first", () => {
    assert.deepEqual(lookupServer(input(["/opt/ctxd", "/ext/server/ctxd"], { configured: "/opt/ctxd" })), { ok: true, path: "/opt/ctxd", source: "setting" });
  });
  it("a setting that points nowhere is an error, not a fallback", () => {
    const got = lookupServer(input(["/ext/server/ctxd"], { configured: "/opt/missing" }));
    assert.equal(got.ok, false);
    assert.match(got.ok ? "" : got.message, /ctxd.server.path is set to "\/opt\/missing", but \/opt\/missing is not a file/);
  });
  it("then the bundled binary", () => {
    assert.deepEqual(lookupServer(input(["/ext/server/ctxd", "/usr/bin/ctxd"], { configured: "  " })), { ok: true, path: "/ext/server/ctxd", source: "bundled" });
  });
  it("then PATH, in order", () => {
    assert.deepEqual(lookupServer(input(["/usr/bin/ctxd"])), { ok: true, path: "/usr/bin/ctxd", source: "PATH" });
  });
  it("windows: ctxd.exe, ; separator, Path spelling", () => {
    const got = lookupServer(input(["C:\\tools\\ctxd.exe"], { platform: "win32", extensionPath: "C:\\ext", env: { Path: "C:\\Windows;C:\\tools" } }));
    assert.deepEqual(got, { ok: true, path: "C:\\tools\\ctxd.exe", source: "PATH" });
  });
  it("nothing found: lists what was tried", () => {
    const got = lookupServer(input([]));
    assert.deepEqual(got.ok ? [] : got.tried, ["/ext/server/ctxd", "/usr/local/bin/ctxd", "/usr/bin/ctxd"]);
    assert.match(got.ok ? "" : got.message, /no ctxd binary found: set ctxd.server.path, or put ctxd on PATH/);
  });
});

describe("expandConfiguredPath", () => {
  const base = { platform: "linux", env: { HOME: "/home/u" }, workspaceFolder: "/work/app" };
  const cases: [string, string | undefined][] = [
    ["~/bin/ctxd", "/home/u/bin/ctxd"],
    ["${userHome}/bin/ctxd", "/home/u/bin/ctxd"],
    ["${workspaceFolder}/bin/ctxd", "/work/app/bin/ctxd"],
    ["bin/ctxd", "/work/app/bin/ctxd"],
    ["/abs/ctxd", "/abs/ctxd"],
  ];
  for (const [value, want] of cases) {
    it(value, () => assert.equal(expandConfiguredPath(value, base), want));
  }
  it("relative without a folder cannot be resolved", () => {
    assert.equal(expandConfiguredPath("bin/ctxd", { platform: "linux", env: {} }), undefined);
  });
});

describe("version and arguments", () => {
  it("parses ctxd version", () => {
    assert.equal(parseVersion("ctxd 5a5e5dd (commit 5a5e, go1.26, linux/amd64)\n"), "ctxd 5a5e5dd (commit 5a5e, go1.26, linux/amd64)");
    assert.equal(parseVersion("Python 3.12\n"), undefined);
    assert.equal(parseVersion(""), undefined);
  });
  it("server args: serve --stdio then the extra strings", () => {
    assert.deepEqual(serverArgs(["--log-level", "debug", 3]), ["serve", "--stdio", "--log-level", "debug"]);
    assert.deepEqual(serverArgs(undefined), ["serve", "--stdio"]);
    assert.deepEqual(serverArgs("--log-level debug"), ["serve", "--stdio"]);
  });
});

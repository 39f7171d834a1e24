import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { LookupResult } from "../src/lookup";
import { mcpArgs, mcpLabels, planMcpServers, type McpFolder } from "../src/mcpServers";

const found: LookupResult = { ok: true, path: "/ext/server/ctxd", source: "bundled" };
const missing: LookupResult = { ok: false, message: "no ctxd binary found: set ctxd.server.path, or put ctxd on PATH", tried: ["/ext/server/ctxd"] };

function folder(fsPath: string, name = fsPath.split("/").pop()!, scheme = "file"): McpFolder {
  return { name, fsPath, scheme };
}

describe("planMcpServers", () => {
  it("one server per folder, run by the binary found, rooted at the folder", () => {
    const plan = planMcpServers({ enabled: true, folders: [folder("/work/app")], binary: found });
    assert.deepEqual(plan, {
      kind: "servers",
      binary: "/ext/server/ctxd",
      servers: [{ label: "ctxd: app", command: "/ext/server/ctxd", args: ["mcp", "--root", "/work/app"], cwd: "/work/app" }],
    });
  });

  it("multi-root: one each, in the folders' order", () => {
    const plan = planMcpServers({ enabled: undefined, folders: [folder("/work/api"), folder("/work/web")], binary: { ok: true, path: "/usr/bin/ctxd", source: "PATH" } });
    assert.equal(plan.kind, "servers");
    assert.deepEqual(
      plan.kind === "servers" ? plan.servers.map((s) => [s.label, s.command, s.args, s.cwd]) : [],
      [
        ["ctxd: api", "/usr/bin/ctxd", ["mcp", "--root", "/work/api"], "/work/api"],
        ["ctxd: web", "/usr/bin/ctxd", ["mcp", "--root", "/work/web"], "/work/web"],
      ],
    );
  });

  it("Windows paths go through as they are", () => {
    const plan = planMcpServers({ enabled: true, folders: [folder("C:\\src\\app", "app")], binary: { ok: true, path: "C:\\tools\\ctxd.exe", source: "setting" } });
    assert.deepEqual(plan.kind === "servers" ? plan.servers[0] : undefined, { label: "ctxd: app", command: "C:\\tools\\ctxd.exe", args: ["mcp", "--root", "C:\\src\\app"], cwd: "C:\\src\\app" });
  });

  it("no folder open: nothing", () => {
    const plan = planMcpServers({ enabled: true, folders: [], binary: found });
    assert.equal(plan.kind, "none");
    assert.equal(plan.kind === "none" ? plan.reason : "", "no-folder");
  });

  it("folders that are not on disk (another URI scheme) are left out", () => {
    const plan = planMcpServers({ enabled: true, folders: [folder("/repo", "repo", "vscode-vfs"), folder("/work/app")], binary: found });
    assert.deepEqual(plan.kind === "servers" ? plan.servers.map((s) => s.label) : [], ["ctxd: app"]);
    assert.equal(planMcpServers({ enabled: true, folders: [folder("/repo", "repo", "vscode-vfs")], binary: found }).kind, "none");
  });

  it("ctxd.mcp.enabled false: nothing, whatever else holds; any other value counts as enabled", () => {
    const plan = planMcpServers({ enabled: false, folders: [folder("/work/app")], binary: found });
    assert.deepEqual(plan, { kind: "none", reason: "disabled", message: "ctxd's MCP server is not offered to agent mode: ctxd.mcp.enabled is false" });
    for (const enabled of [true, undefined, null, "false", 0]) {
      assert.equal(planMcpServers({ enabled, folders: [folder("/work/app")], binary: found }).kind, "servers", String(enabled));
    }
  });

  it("no binary: nothing, with the lookup's message to log", () => {
    const plan = planMcpServers({ enabled: true, folders: [folder("/work/app")], binary: missing });
    assert.deepEqual(plan, {
      kind: "none",
      reason: "no-binary",
      message: "ctxd's MCP server is not offered to agent mode: no ctxd binary found: set ctxd.server.path, or put ctxd on PATH",
    });
  });

  it("the opt-out and a missing folder are said before a missing binary", () => {
    const off = planMcpServers({ enabled: false, folders: [], binary: missing });
    assert.equal(off.kind === "none" ? off.reason : "", "disabled");
    const empty = planMcpServers({ enabled: true, folders: [], binary: missing });
    assert.equal(empty.kind === "none" ? empty.reason : "", "no-folder");
  });
});

describe("labels and arguments", () => {
  it("labels are unique: a name already taken gets (2), (3)", () => {
    assert.deepEqual(mcpLabels(["app", "lib", "app", "app"]), ["ctxd: app", "ctxd: lib", "ctxd: app (2)", "ctxd: app (3)"]);
    assert.deepEqual(mcpLabels(["app (2)", "app", "app"]), ["ctxd: app (2)", "ctxd: app", "ctxd: app (3)"]);
    assert.deepEqual(mcpLabels([]), []);
  });
  it("mcp --root <folder>", () => {
    assert.deepEqual(mcpArgs("/work/my app"), ["mcp", "--root", "/work/my app"]);
  });
});

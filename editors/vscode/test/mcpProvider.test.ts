// Agent mode's MCP servers as the extension registers them: the whole
// extension activated in the fake VS Code (test/fakeVscode.ts), with the
// MCP API of VS Code 1.101 installed or absent, and the real ctxd as the
// binary (the language client starts it too, as in a real window).

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import { McpProviderId } from "../src/ids";
import * as fake from "./fakeVscode";
import { routeVscodeToFake, until } from "./fakeModule";
import { copyWorkspace, exampleWorkspace, extensionRoot, requireBinary } from "./harness";

routeVscodeToFake();

interface Extension {
  activate(context: { extensionPath: string; subscriptions: { dispose(): unknown }[] }): unknown;
  deactivate(): Promise<void>;
}


/** A definition as the assertions compare it: its cwd as a path. */
function plain(d: fake.FakeMcpStdioServerDefinition): { label: string; command: string; args: string[]; env: object; version: string | undefined; cwd: string | undefined } {
  return { label: d.label, command: d.command, args: d.args, env: d.env, version: d.version, cwd: d.cwd?.fsPath };
}

describe("agent mode's MCP servers, in a fake VS Code", { timeout: 120_000 }, () => {
  let bin = "";
  let version = "";
  let app = "";
  let lib = "";
  let ext: Extension;
  const subscriptions: { dispose(): unknown }[] = [];
  const token = new fake.CancellationTokenSource().token;
  const log = () => fake.outputChannels.at(-1)!.lines.join("\n");
  const provider = () => fake.recorded.mcpProviders.get(McpProviderId);
  const definitions = async (): Promise<ReturnType<typeof plain>[]> => ((await provider().provideMcpServerDefinitions(token)) as fake.FakeMcpStdioServerDefinition[]).map(plain);
  const serverFor = (dir: string, label: string) => ({ label, command: bin, args: ["mcp", "--root", dir], env: {}, version, cwd: dir });

  async function activate(): Promise<void> {
    ext.activate({ extensionPath: extensionRoot, subscriptions });
    await until("the language server to start or fail", () => /ctxd is running|ctxd could not start/.test(log()));
  }

  async function deactivate(): Promise<void> {
    await ext.deactivate();
    subscriptions.splice(0).forEach((s) => s.dispose());
  }

  before(() => {
    bin = requireBinary();
    version = (JSON.parse(execFileSync(bin, ["version", "--json"], { encoding: "utf8" })) as { version: string }).version;
    app = copyWorkspace(exampleWorkspace());
    lib = fs.mkdtempSync(path.join(os.tmpdir(), "ctxd-vscode-lib-"));
    fake.settings.set("ctxd.server.path", bin);
    fake.settings.set("ctxd.server.extraArgs", ["--cache-dir", "off", "--log-level", "warn"]);
    fake.workspace.workspaceFolders = fake.workspaceFolders([app], ["app"]);
    ext = require("../src/extension") as Extension;
  });

  after(async () => {
    await ext?.deactivate();
    subscriptions.splice(0).forEach((s) => s.dispose());
    for (const dir of [app, lib]) {
      if (dir !== "") {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }
  });

  describe("VS Code 1.101 or later", () => {
    let fired = 0;

    before(async () => {
      fake.setMcpApi(true);
      await activate();
      provider().onDidChangeMcpServerDefinitions(() => fired++);
    });

    after(deactivate);

    it("registers the provider package.json contributes", () => {
      assert.ok(provider(), `a provider under ${McpProviderId}`);
      assert.equal(typeof provider().onDidChangeMcpServerDefinitions, "function");
    });

    it("one stdio server for the folder: the language server's binary, mcp --root <folder>, in the folder, with the binary's version", async () => {
      assert.deepEqual(await definitions(), [serverFor(app, "ctxd: app")]);
      assert.match(log(), new RegExp(`\\[info\\] ctxd's MCP server is offered to agent mode: "ctxd: app", each \`.*ctxd mcp --root <folder>\` \\(ctxd ${version}\\)`));
    });

    it("multi-root: one server per folder, labels made unique; a change of folders fires the change event", async () => {
      const before = fired;
      fake.setWorkspaceFolders(fake.workspaceFolders([app, lib], ["app", "app"]));
      assert.equal(fired, before + 1);
      assert.deepEqual(await definitions(), [serverFor(app, "ctxd: app"), serverFor(lib, "ctxd: app (2)")]);
    });

    it("no folder open: no servers", async () => {
      const before = fired;
      fake.setWorkspaceFolders(undefined);
      assert.equal(fired, before + 1);
      assert.deepEqual(await definitions(), []);
      fake.setWorkspaceFolders(fake.workspaceFolders([app], ["app"]));
      assert.equal(fired, before + 2);
      assert.deepEqual(await definitions(), [serverFor(app, "ctxd: app")]);
    });

    it("ctxd.mcp.enabled false: no servers, and back when it is true again; other settings fire nothing", async () => {
      const before = fired;
      fake.updateSetting("ctxd.model.name", "gpt-4o");
      fake.updateSetting("ctxd.model.name", undefined);
      assert.equal(fired, before, "a model setting is not the MCP servers' business");
      fake.updateSetting("ctxd.mcp.enabled", false);
      assert.equal(fired, before + 1);
      assert.deepEqual(await definitions(), []);
      assert.match(log(), /\[info\] ctxd's MCP server is not offered to agent mode: ctxd\.mcp\.enabled is false/);
      fake.updateSetting("ctxd.mcp.enabled", undefined);
      assert.equal(fired, before + 2);
      assert.deepEqual(await definitions(), [serverFor(app, "ctxd: app")]);
    });

    it("ctxd.server.path changes: the event fires and the new binary runs the servers; one that is missing gives none, logged, with no notification", async () => {
      const errorsBefore = fake.recorded.messages.filter((m) => m.level === "error").length;
      const before = fired;
      const missing = path.join(lib, "no-such-ctxd");
      fake.updateSetting("ctxd.server.path", missing);
      assert.equal(fired, before + 1);
      assert.deepEqual(await definitions(), []);
      assert.deepEqual(await definitions(), []);
      const warning = `[warn] ctxd's MCP server is not offered to agent mode: ctxd.server.path is set to "${missing}", but ${missing} is not a file`;
      assert.equal(fake.outputChannels.at(-1)!.lines.filter((l: string) => l === warning).length, 1, "logged once, however often VS Code asks");
      assert.equal(fake.recorded.messages.filter((m) => m.level === "error").length, errorsBefore, "no error notification");
      assert.ok(!fake.recorded.messages.some((m) => /MCP/.test(m.message)), "no notification about MCP at all");
      // A copy of the binary elsewhere: the definitions follow the setting.
      const copy = path.join(lib, "bin", path.basename(bin));
      fs.mkdirSync(path.dirname(copy), { recursive: true });
      fs.copyFileSync(bin, copy);
      fs.chmodSync(copy, 0o755);
      fake.updateSetting("ctxd.server.path", copy);
      assert.equal(fired, before + 2);
      assert.deepEqual(await definitions(), [{ ...serverFor(app, "ctxd: app"), command: copy }]);
      fake.updateSetting("ctxd.server.path", bin);
      assert.deepEqual(await definitions(), [serverFor(app, "ctxd: app")]);
    });

    it("a binary that is not ctxd gives no server", { skip: process.platform === "win32" }, async () => {
      const other = path.join(lib, "not-ctxd");
      fs.writeFileSync(other, "#!/bin/sh\necho 'Python 3.12'\n", { mode: 0o755 });
      fake.updateSetting("ctxd.server.path", other);
      assert.deepEqual(await definitions(), []);
      assert.match(log(), /\[warn\] ctxd's MCP server is not offered to agent mode: .*not-ctxd is not ctxd/);
      fake.updateSetting("ctxd.server.path", bin);
      assert.deepEqual(await definitions(), [serverFor(app, "ctxd: app")]);
    });

    it("the registration ends with the extension", async () => {
      await deactivate();
      assert.equal(provider(), undefined);
      await activate();
      provider().onDidChangeMcpServerDefinitions(() => fired++);
      assert.deepEqual(await definitions(), [serverFor(app, "ctxd: app")]);
    });
  });

  describe("a missing binary at activation", () => {
    before(async () => {
      fake.setMcpApi(true);
      fake.recorded.messages.splice(0);
      fake.settings.set("ctxd.server.path", path.join(lib, "no-such-ctxd"));
      await activate();
    });

    after(async () => {
      await deactivate();
      fake.settings.set("ctxd.server.path", bin);
    });

    it("the language client's notification is the only one; the MCP provider offers nothing and logs", async () => {
      assert.deepEqual(await definitions(), []);
      await until("the language client's notification", () => fake.recorded.messages.length > 0);
      assert.deepEqual(
        fake.recorded.messages.map((m) => [m.level, m.message.replace(/".*"/, '"…"').replace(/, but .*/, ", but …")]),
        [["error", 'ctxd could not start: ctxd.server.path is set to "…", but …']],
      );
      assert.match(log(), /\[warn\] ctxd's MCP server is not offered to agent mode: ctxd\.server\.path is set to ".*no-such-ctxd", but .* is not a file/);
    });
  });

  describe("VS Code before 1.101 (no MCP API)", () => {
    before(async () => {
      fake.setMcpApi(false);
      fake.recorded.messages.splice(0);
      await activate();
    });

    after(deactivate);

    it("activates without it: the language server runs, nothing is registered, and the output says why once", () => {
      assert.equal(fake.lm, undefined);
      assert.equal(fake.McpStdioServerDefinition, undefined);
      assert.equal(fake.recorded.mcpProviders.size, 0);
      assert.match(log(), /ctxd is running/);
      const lines = fake.outputChannels.at(-1)!.lines.filter((l: string) => l.includes("MCP"));
      assert.deepEqual(lines, [
        "[info] this VS Code (1.85.0) has no API for extensions' MCP servers (vscode.lm.registerMcpServerDefinitionProvider, VS Code 1.101 or later): ctxd's MCP server is not offered to agent mode; a .vscode/mcp.json can still name it",
      ]);
      assert.deepEqual(fake.recorded.messages, [], "no notification");
    });

    it("a folder change or an MCP setting change is harmless without it", () => {
      fake.setWorkspaceFolders(fake.workspaceFolders([app, lib]));
      fake.updateSetting("ctxd.mcp.enabled", false);
      fake.updateSetting("ctxd.mcp.enabled", undefined);
      fake.setWorkspaceFolders(fake.workspaceFolders([app], ["app"]));
      assert.equal(fake.recorded.mcpProviders.size, 0);
    });

    it("VS Code 1.90 to 1.100: vscode.lm without the MCP function counts as absent", async () => {
      await deactivate();
      fake.setLanguageModels({ selectChatModels: async () => [] });
      await activate();
      assert.equal(fake.recorded.mcpProviders.size, 0);
      assert.match(log(), /\[info\] this VS Code \(1\.85\.0\) has no API for extensions' MCP servers/);
      fake.setLanguageModels(undefined);
    });

    it("a registration VS Code refuses (an id package.json lacks, an API behind a proposal) is logged, not thrown", async () => {
      await deactivate();
      fake.setMcpApi(true);
      fake.setLanguageModels({
        selectChatModels: async () => [],
        registerMcpServerDefinitionProvider: (id: string) => {
          throw new Error(`MCP configuration providers must be registered in the contributes.mcpServerDefinitionProviders array within your package.json, but "${id}" was not`);
        },
      } as { selectChatModels(): Promise<unknown[]> });
      fake.recorded.messages.splice(0);
      await activate();
      assert.match(log(), /\[error\] ctxd's MCP server could not be registered for agent mode: MCP configuration providers must be registered .* but "ctxd\.mcp" was not/);
      assert.match(log(), /ctxd is running/);
      assert.deepEqual(fake.recorded.messages, [], "no notification");
      fake.setLanguageModels(undefined);
      fake.setMcpApi(false);
    });
  });
});

// package.json against the code: every contributed command is registered
// under "ctxd.client." (never a server command name), every setting the
// code reads is contributed and documented.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { Commands } from "../src/contract.gen";
import {
  ChangePendingContext,
  ChangeScheme,
  ClientCommands,
  ClientId,
  InternalCommands,
  KeybindingKeys,
  KeybindingPrefix,
  McpProviderId,
  MenuOnlyCommands,
  PendingChangeCommands,
  ViewIds,
} from "../src/ids";

const root = join(__dirname, "..", "..");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

describe("package.json", () => {
  const contributed: { command: string; title: string; category?: string }[] = pkg.contributes.commands;
  it("contributes exactly the client's commands", () => {
    assert.deepEqual(contributed.map((c) => c.command).sort(), Object.values(ClientCommands).sort());
  });
  it("never a server command name (vscode-languageclient registers those)", () => {
    const server = new Set<string>(Object.values(Commands));
    assert.deepEqual(contributed.filter((c) => server.has(c.command) || !c.command.startsWith("ctxd.client.")), []);
  });
  it("palette commands are in category ctxd; internal ones are hidden", () => {
    assert.deepEqual(contributed.filter((c) => c.category !== "ctxd").map((c) => c.command), []);
    const hidden = (pkg.contributes.menus.commandPalette as { command: string; when: string }[]).filter((m) => m.when === "false").map((m) => m.command);
    assert.deepEqual(hidden.sort(), [...InternalCommands, ...MenuOnlyCommands].sort());
  });
  it("Generate Change: in the palette and, with its ctxd: prefix, the editor menu; Accept and Reject while a change is pending", () => {
    const title = (id: string) => contributed.find((c) => c.command === id)?.title;
    assert.equal(title(ClientCommands.generateChange), "Generate Change…");
    assert.equal(title(ClientCommands.generateChangeFromEditor), "ctxd: Generate Change…", "a menu shows the title without the category");
    const menus = pkg.contributes.menus as Record<string, { command: string; when?: string; group?: string }[]>;
    assert.ok(menus["editor/context"]!.some((m) => m.command === ClientCommands.generateChangeFromEditor && m.when === "resourceScheme == file"));
    assert.equal(menus.commandPalette!.find((m) => m.command === ClientCommands.generateChange)?.when, "editorIsOpen");
    for (const id of PendingChangeCommands) {
      assert.equal(menus.commandPalette!.find((m) => m.command === id)?.when, ChangePendingContext);
      assert.equal(menus["editor/title"]!.find((m) => m.command === id)?.when, `${ChangePendingContext} && resourceScheme == ${ChangeScheme}`);
    }
  });
  it("the editor's context menu names ctxd in every entry: menus show no category", () => {
    const menus = pkg.contributes.menus as Record<string, { command: string; when?: string }[]>;
    const title = (id: string) => contributed.find((c) => c.command === id)?.title ?? "";
    const entries = menus["editor/context"]!.map((m) => title(m.command));
    assert.deepEqual(entries, ["ctxd: Build Context for Selection", "ctxd: Generate Change…"]);
    assert.equal(title(ClientCommands.buildContextSelection), "Build Context for Selection", "the palette's twin has the category");
  });
  it("keybindings: one chord after Ctrl+Alt+X (Cmd+Alt+X) per main command, no second key twice", () => {
    const bindings = pkg.contributes.keybindings as { command: string; key: string; mac: string; when?: string }[];
    const want = Object.entries(KeybindingKeys)
      .map(([command, key]) => ({ command, key: `${KeybindingPrefix.key} ${key}`, mac: `${KeybindingPrefix.mac} ${key}` }))
      .sort((a, b) => a.command.localeCompare(b.command));
    assert.deepEqual([...bindings].sort((a, b) => a.command.localeCompare(b.command)), want);
    const seconds = Object.values(KeybindingKeys);
    assert.equal(new Set(seconds).size, seconds.length);
    for (const b of bindings) {
      assert.ok(Object.values(ClientCommands).includes(b.command as never), `${b.command} is contributed`);
    }
  });
  it("the model endpoint is restricted in untrusted workspaces, like the server path", () => {
    assert.deepEqual(pkg.capabilities.untrustedWorkspaces.restrictedConfigurations, ["ctxd.server.path", "ctxd.server.extraArgs", "ctxd.change.baseUrl"]);
    const props = pkg.contributes.configuration.properties;
    assert.deepEqual(props["ctxd.change.provider"].enum, ["vscode-lm", "openai", "anthropic"]);
    assert.equal(props["ctxd.change.provider"].default, "vscode-lm");
    assert.deepEqual([props["ctxd.change.maxRetries"].minimum, props["ctxd.change.maxRetries"].maximum, props["ctxd.change.maxRetries"].default], [0, 5, 2]);
    assert.equal(props["ctxd.change.maxOutputTokens"].default, 4096);
    assert.equal(props["ctxd.change.baseUrl"].scope, "application", "the key's destination is a user setting: a workspace cannot redirect it");
    assert.ok(!Object.keys(props).some((k) => /key|secret|token$/i.test(k) && !/Tokens$/.test(k)), "no setting holds a key");
  });
  it("contributes and documents every setting", () => {
    const props = pkg.contributes.configuration.properties as Record<string, { description?: string; markdownDescription?: string }>;
    const want = [
      "ctxd.server.path",
      "ctxd.server.extraArgs",
      "ctxd.mcp.enabled",
      "ctxd.model.provider",
      "ctxd.model.name",
      "ctxd.model.maxInputTokens",
      "ctxd.model.maxOutputTokens",
      "ctxd.model.responseTokenReserve",
      "ctxd.model.softLimitPct",
      "ctxd.defaultPurpose",
      "ctxd.build.askForIntent",
      `${ClientId}.trace.server`,
      "ctxd.change.provider",
      "ctxd.change.baseUrl",
      "ctxd.change.model",
      "ctxd.change.lmVendor",
      "ctxd.change.lmFamily",
      "ctxd.change.maxRetries",
      "ctxd.change.maxOutputTokens",
    ];
    assert.deepEqual(Object.keys(props).sort(), want.sort());
    for (const key of want) {
      assert.ok((props[key]!.description ?? props[key]!.markdownDescription ?? "").length > 20, `${key} is documented`);
    }
  });
  it("contributes the MCP server definition provider the extension registers, and its opt-out", () => {
    // VS Code refuses vscode.lm.registerMcpServerDefinitionProvider for an id
    // this list lacks; before 1.101 the contribution point is unknown and ignored.
    assert.deepEqual(pkg.contributes.mcpServerDefinitionProviders, [{ id: McpProviderId, label: "ctxd" }]);
    const enabled = pkg.contributes.configuration.properties["ctxd.mcp.enabled"];
    assert.deepEqual([enabled.type, enabled.default], ["boolean", true]);
    assert.equal(pkg.devDependencies["@types/vscode"], "~1.85.0", "the MCP API is typed locally (src/mcpProvider.ts), not by newer @types/vscode");
  });
  it("the results view lives in the ctxd view container", () => {
    assert.equal(pkg.contributes.viewsContainers.activitybar[0].id, ViewIds.container);
    assert.equal(pkg.contributes.views[ViewIds.container][0].id, ViewIds.results);
  });
  it("ships the bundle and the API types", () => {
    assert.equal(pkg.main, "./dist/extension.js");
    assert.equal(pkg.types, "./api.d.ts");
    assert.equal(pkg.engines.vscode, "^1.85.0");
  });
});

// package.json against the code: every contributed command is registered
// under "ctxd.client." (never a server command name), every setting the
// code reads is contributed and documented.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { Commands } from "../src/contract.gen";
import { ClientCommands, ClientId, InternalCommands, ViewIds } from "../src/ids";

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
    assert.deepEqual(hidden.sort(), [...InternalCommands].sort());
  });
  it("contributes and documents every setting", () => {
    const props = pkg.contributes.configuration.properties as Record<string, { description?: string; markdownDescription?: string }>;
    const want = [
      "ctxd.server.path",
      "ctxd.server.extraArgs",
      "ctxd.model.provider",
      "ctxd.model.name",
      "ctxd.model.maxInputTokens",
      "ctxd.model.maxOutputTokens",
      "ctxd.model.responseTokenReserve",
      "ctxd.model.softLimitPct",
      "ctxd.defaultPurpose",
      `${ClientId}.trace.server`,
    ];
    assert.deepEqual(Object.keys(props).sort(), want.sort());
    for (const key of want) {
      assert.ok((props[key]!.description ?? props[key]!.markdownDescription ?? "").length > 20, `${key} is documented`);
    }
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

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Commands } from "../src/contract.gen";
import { advertises, CtxdCommandError, CtxdCommands, CtxdRefusalError, errorMessage, isCancelled, refusalOf } from "../src/rpc";
import { ambiguousRefusal } from "./fixtures";

/** A JSON-RPC error as vscode-jsonrpc's ResponseError carries it. */
function rpcError(code: number, message: string, data?: unknown) {
  return Object.assign(new Error(message), { code, data });
}

describe("errors", () => {
  it("a -32803 with a refusal as data is a refusal", () => {
    const refusal = ambiguousRefusal();
    assert.deepEqual(refusalOf(rpcError(-32803, "REFUSE_AMBIGUOUS_TARGET: …", refusal)), refusal);
  });
  it("anything else is not", () => {
    assert.equal(refusalOf(rpcError(-32602, "invalid params", { code: "X", message: "m", advice: "a" })), undefined);
    assert.equal(refusalOf(rpcError(-32803, "no data")), undefined);
    assert.equal(refusalOf(rpcError(-32803, "bad data", { code: 1 })), undefined);
    assert.equal(refusalOf("boom"), undefined);
  });
  it("cancellation and messages", () => {
    assert.equal(isCancelled(rpcError(-32800, "cancelled")), true);
    assert.equal(isCancelled(rpcError(-32603, "internal")), false);
    assert.equal(errorMessage(rpcError(-32803, "x", ambiguousRefusal())), 'REFUSE_AMBIGUOUS_TARGET: target symbol "List" has 2 definitions; ctxd does not guess which one is meant');
    assert.equal(errorMessage({ message: "plain" }), "plain");
  });
  it("advertises reads executeCommandProvider.commands", () => {
    const init = { capabilities: { executeCommandProvider: { commands: [Commands.buildContext, Commands.renderPrompt] } } };
    assert.equal(advertises(init, Commands.renderPrompt), true);
    assert.equal(advertises({ capabilities: { executeCommandProvider: { commands: [Commands.buildContext] } } }, Commands.renderPrompt), false);
    assert.equal(advertises(undefined, Commands.renderPrompt), false);
  });
});

describe("CtxdCommands", () => {
  it("sends each command with its one argument and the token", async () => {
    const sent: unknown[][] = [];
    const api = new CtxdCommands(async (command, argument, token) => {
      sent.push([command, argument, token]);
      return { ok: true };
    });
    await api.buildContext({ purpose: "diff" });
    await api.manifest({ purpose: "plan" }, "t");
    await api.budget({ purpose: "intent" });
    await api.renderPrompt({ purpose: "diff", template_id: "default-diff" });
    await api.indexStatus(true);
    assert.deepEqual(sent, [
      [Commands.buildContext, { purpose: "diff" }, undefined],
      [Commands.manifest, { purpose: "plan" }, "t"],
      [Commands.budget, { purpose: "intent" }, undefined],
      [Commands.renderPrompt, { purpose: "diff", template_id: "default-diff" }, undefined],
      [Commands.indexStatus, { skipped: true }, undefined],
    ]);
  });
  it("rejects a refusal with CtxdRefusalError", async () => {
    const api = new CtxdCommands(async () => {
      throw rpcError(-32803, "refused", ambiguousRefusal());
    });
    await assert.rejects(api.buildContext({ purpose: "diff" }), (err: unknown) => {
      assert.ok(err instanceof CtxdRefusalError);
      assert.equal(err.name, "CtxdRefusalError");
      assert.equal(err.refusal.code, "REFUSE_AMBIGUOUS_TARGET");
      assert.deepEqual(refusalOf(err), ambiguousRefusal());
      return true;
    });
  });
  it("rejects other errors with CtxdCommandError keeping the code", async () => {
    const api = new CtxdCommands(async () => {
      throw rpcError(-32602, 'invalid build request: unknown field "bogus"');
    });
    await assert.rejects(api.budget({ purpose: "diff" }), (err: unknown) => {
      assert.ok(err instanceof CtxdCommandError);
      assert.equal(err.code, -32602);
      assert.equal(err.message, 'ctxd.budget failed: invalid build request: unknown field "bogus"');
      return true;
    });
  });
  it("rejects a result that is not an object", async () => {
    const api = new CtxdCommands(async () => null);
    await assert.rejects(api.budget({ purpose: "diff" }), /ctxd.budget answered null/);
  });
});

// End-to-end test of `ctxd mcp` with the official MCP TypeScript SDK's
// client, as a coding agent's host runs it: the binary ($CTXD_BIN) on a
// copy of testdata/example over stdio. Once it has listed the tools (the
// first test; node's runner runs a suite's tests in order), the client
// validates every structuredContent against the tool's declared output
// schema on its own, so a result that does not match its schema fails
// the call.
//
// Run it with `make mcp-test` (which builds bin/ctxd and installs the
// pinned SDK with npm ci), or `CTXD_BIN=/path/to/ctxd npm test` here.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const example = path.resolve(here, "../../../testdata/example");

// The .env of the example holds this fake credential: no result, error
// or log may ever show it.
const envSecret = "not-a-real-password";

const tools = ["budget", "build_context", "check_change", "index_status", "manifest", "record_execution", "render_prompt", "verify"];

/** A diff request for the store, named by path as an agent does. */
function storeRequest(files = ["internal/store/store.go", ".env"], symbols = ["List"]) {
  return {
    purpose: "diff",
    intent: { id: "i1", text: "List returns the items sorted by name, then SKU" },
    plan_step: { id: "s1", text: "sort the items", target_files: files, target_symbols: symbols },
  };
}

/** The texts of a tool result. */
function texts(result) {
  return result.content.filter((c) => c.type === "text").map((c) => c.text);
}

describe("ctxd mcp", () => {
  const bin = process.env.CTXD_BIN;
  let tmp;
  let client;
  let transport;
  let stderr = "";
  // Everything the server sent back, for the leak check.
  const seen = [];

  async function call(name, args) {
    const result = await client.callTool({ name, arguments: args });
    seen.push(JSON.stringify(result));
    return result;
  }

  before(async () => {
    assert.ok(bin, "set CTXD_BIN to the ctxd binary (make mcp-test does)");
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ctxd-mcpclient-"));
    const root = path.join(tmp, "example");
    fs.cpSync(example, root, { recursive: true });
    // Records a build left in testdata stay out of the copy.
    for (const generated of ["artifacts", "ledger", "audit.jsonl", "audit.jsonl.lock", "ledger.sqlite"]) {
      fs.rmSync(path.join(root, ".ctxd", generated), { recursive: true, force: true });
    }
    transport = new StdioClientTransport({
      command: bin,
      args: ["mcp", "--root", root, "--cache-dir", path.join(tmp, "cache"), "--log-level", "debug"],
      // Pinned clock for byte-identical bundles; a fresh config directory
      // keeps the user's own secret rules out.
      env: { PATH: process.env.PATH ?? "", HOME: tmp, XDG_CONFIG_HOME: path.join(tmp, "config"), SOURCE_DATE_EPOCH: "1700000000" },
      stderr: "pipe",
    });
    transport.stderr.on("data", (chunk) => {
      stderr += chunk.toString();
    });
    client = new Client({ name: "ctxd-mcpclient-test", version: "1.0.0" });
    await client.connect(transport);
  });

  after(async () => {
    await client?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  test("lists the eight tools with their schemas", async () => {
    const { tools: listed } = await client.listTools();
    assert.deepEqual(listed.map((t) => t.name).sort(), tools);
    for (const tool of listed) {
      assert.equal(tool.inputSchema.type, "object", `${tool.name} input schema`);
      assert.equal(tool.outputSchema?.type, "object", `${tool.name} output schema`);
      assert.ok(tool.description.length > 200, `${tool.name} description says when to call it`);
      const input = JSON.stringify(tool.inputSchema);
      for (const editorField of ['"active_file"', '"selection"', '"workspace_folder"']) {
        assert.ok(!input.includes(editorField), `${tool.name} input schema has ${editorField}`);
      }
    }
    const build = listed.find((t) => t.name === "build_context");
    assert.deepEqual(build.inputSchema.required, ["purpose"]);
    assert.deepEqual(build.inputSchema.properties.purpose.enum, ["intent", "plan", "diff"]);
    const step = build.inputSchema.properties.plan_step.properties;
    assert.equal(step.target_files.items.type, "string");
    assert.equal(step.target_symbols.items.type, "string");
    assert.ok(build.inputSchema.properties.user_selected_targets);
    assert.deepEqual(Object.keys(build.outputSchema.properties).sort(), ["budget_report", "bundle", "manifest", "redaction_report"]);
    assert.match(build.description, /REFUSE_AMBIGUOUS_TARGET/);
  });

  test("builds a bundle for a file by path", async () => {
    const result = await call("build_context", storeRequest());
    assert.ok(!result.isError, texts(result).join("\n"));
    const { bundle, manifest, redaction_report, budget_report } = result.structuredContent;
    assert.ok(bundle.blocks.length > 0);
    assert.ok(manifest.selection.target_files.includes("internal/store/store.go"));
    assert.ok(
      manifest.selection.excluded_candidates.some((e) => e.path === ".env" && e.reason === "deny_rule"),
      "the never-send .env is excluded as deny_rule",
    );
    assert.equal(redaction_report.bundle_id, bundle.bundle_id);
    assert.equal(budget_report.decision, "ok");
    const [markdown] = texts(result);
    assert.match(markdown, /^# ctxd context bundle \(diff\)/);
    assert.match(markdown, /internal\/store\/store\.go/);

    // The session's last bundle is a resource.
    const resource = await client.readResource({ uri: "ctxd://session/bundle.json" });
    seen.push(JSON.stringify(resource));
    assert.deepEqual(JSON.parse(resource.contents[0].text), bundle);
  });

  test("gives the same fingerprint and bytes twice", async () => {
    const first = await call("build_context", storeRequest());
    const second = await call("build_context", storeRequest());
    const fp = (r) => r.structuredContent.manifest.fingerprints.bundle_fingerprint;
    assert.match(fp(first), /^[0-9a-f]{64}$/);
    assert.equal(fp(second), fp(first));
    assert.equal(JSON.stringify(second.structuredContent.bundle), JSON.stringify(first.structuredContent.bundle));
    const manifest = await call("manifest", storeRequest());
    assert.equal(fp(manifest), fp(first));
  });

  test("refuses a path outside the root as a tool error to act on", async () => {
    const result = await call("build_context", storeRequest(["../outside.go"], []));
    assert.equal(result.isError, true);
    assert.equal(result.structuredContent, undefined);
    const [reader, json] = texts(result);
    assert.match(reader, /REFUSE_OUTSIDE_SANDBOX/);
    assert.match(reader, /advice: /);
    const { refusal } = JSON.parse(json);
    assert.equal(refusal.code, "REFUSE_OUTSIDE_SANDBOX");
    assert.ok(refusal.message.length > 0 && refusal.advice.length > 0);
  });

  test("refuses a never-send target", async () => {
    const result = await call("build_context", storeRequest([".env"], []));
    assert.equal(result.isError, true);
    assert.equal(JSON.parse(texts(result)[1]).refusal.code, "REFUSE_UNSUPPORTED_TARGET");
  });

  test("names the field of an invalid argument", async () => {
    for (const [args, field] of [
      [{ purpose: "poem" }, '"purpose"'],
      [{ purpose: "plan", nope: 1 }, "nope"],
      [{ purpose: "diff", active_file: "file:///tmp/x.go" }, '"active_file"'],
    ]) {
      const result = await call("build_context", args);
      assert.equal(result.isError, true, JSON.stringify(args));
      const [message, json] = texts(result);
      assert.ok(message.includes(field), `${message} names ${field}`);
      assert.equal(JSON.parse(json).error.kind, "invalid_arguments");
    }
  });

  test("checks a model's change against the bundle it answered", async () => {
    const built = await call("build_context", storeRequest());
    const bundleID = built.structuredContent.bundle.bundle_id;
    const answer = [
      "Sorting by name:",
      "",
      "```diff",
      "--- a/internal/store/store.go",
      "+++ b/internal/store/store.go",
      "@@ @@",
      "-\tsort.Slice(out, func(i, j int) bool { return out[i].SKU < out[j].SKU })",
      "+\tsort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })",
      "```",
      "",
    ].join("\n");
    const ok = await call("check_change", { answer, bundle_id: bundleID });
    assert.ok(!ok.isError, texts(ok).join("\n"));
    assert.equal(ok.structuredContent.status, "accepted");
    assert.equal(ok.structuredContent.format, "unified");
    assert.equal(ok.structuredContent.files[0].path, "internal/store/store.go");
    assert.match(ok.structuredContent.files[0].sha256_after, /^sha256:[0-9a-f]{64}$/);

    const env = await call("check_change", { answer: "--- a/.env\n+++ b/.env\n@@ @@\n-x\n+y\n" });
    assert.ok(!env.isError, "a rejection is a result, not a tool error");
    assert.equal(env.structuredContent.status, "rejected");
    assert.equal(env.structuredContent.failure.code, "CHANGE_NEVER_SEND_PATH");
    assert.ok(env.structuredContent.failure.error_context.message.length > 0);
  });

  test("reports the index and verifies the records", async () => {
    const status = await call("index_status", { skipped: true });
    assert.ok(!status.isError);
    assert.equal(status.structuredContent.index.state, "ready");
    const verify = await call("verify", {});
    assert.ok(!verify.isError);
    assert.equal(verify.structuredContent.ok, true);
  });

  test("offers the prompt templates", async () => {
    const { prompts } = await client.listPrompts();
    assert.deepEqual(prompts.map((p) => p.name).sort(), ["default-diff", "default-intent", "default-plan"]);
    const prompt = await client.getPrompt({ name: "default-diff", arguments: { target_files: "internal/store/store.go", intent: "sort by name" } });
    seen.push(JSON.stringify(prompt));
    assert.equal(prompt.messages.length, 2);
    assert.match(prompt.messages[0].content.text, /internal\/store\/store\.go/);
  });

  test("never shows a secret, and logs only on stderr", () => {
    for (const output of seen) {
      assert.ok(!output.includes(envSecret), "a result holds the .env's content");
    }
    assert.ok(!stderr.includes(envSecret), "the log holds the .env's content");
    assert.match(stderr, /ctxd serving MCP on stdio/);
  });
});

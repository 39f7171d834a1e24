// End-to-end test of `ctxd mcp` with the official MCP TypeScript SDK's
// client, as a coding agent's host runs it: the binary ($CTXD_BIN) on a
// copy of testdata/example over stdio (lib/workspace.mjs). Node's runner
// runs a suite's tests in order, so later tests may use the records of
// earlier ones.
//
// The other files of test/ drive the result budget on a large file
// (size.test.mjs), the agent read tools (agent.test.mjs) and malformed
// JSON-RPC lines (transport.test.mjs).
//
// Run it with `make mcp-test` (which builds bin/ctxd and installs the
// pinned SDK with npm ci), or `CTXD_BIN=/path/to/ctxd npm test` here.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";

import {
  anyFlag,
  blockNumbers,
  cliFlags,
  defaultMaxResultTokens,
  envSecret,
  errorJSON,
  jsonBytesFor,
  jsonSize,
  links,
  openWorkspace,
  resultBudgetBounds,
  storeRequest,
  texts,
} from "../lib/workspace.mjs";

// The tools of the issue "MCP for real agents": the eight LSP commands,
// then the four read tools an agent explores the workspace with.
const coreTools = ["budget", "build_context", "check_change", "index_status", "manifest", "record_execution", "render_prompt", "verify"];
const agentTools = ["find_references", "list_files", "read_file", "search_symbols"];
// Tools whose result has a summary and a full detail.
const detailTools = ["budget", "build_context", "manifest", "render_prompt"];

// tools/list is sent in every conversation: its result stays within 12 KB.
const toolsListMaxBytes = 12 * 1024;

describe("ctxd mcp", () => {
  let ws;
  let call;
  // The smallest max_result_tokens a call may ask for, as the server says.
  let minBudget;

  before(async () => {
    ws = await openWorkspace();
    call = ws.call;
    minBudget = (await resultBudgetBounds(ws)).min;
  });

  after(async () => {
    await ws?.close();
  });

  test("lists the tools with their input schemas only, within 12 KB", async () => {
    const { tools: listed } = await ws.client.listTools();
    const names = listed.map((t) => t.name).sort();
    for (const name of coreTools) assert.ok(names.includes(name), `${name} is listed`);
    for (const name of names) {
      assert.ok(coreTools.includes(name) || agentTools.includes(name), `${name} is a tool of the issue`);
    }
    const raw = ws.lastResult((r) => Array.isArray(r.tools));
    assert.ok(raw, "the server answered tools/list");
    const size = jsonSize(raw);
    assert.ok(size <= toolsListMaxBytes, `tools/list is ${size} bytes of JSON, over ${toolsListMaxBytes}`);

    for (const tool of listed) {
      assert.equal(tool.outputSchema, undefined, `${tool.name} declares no output schema`);
      assert.equal(tool.inputSchema.type, "object", `${tool.name} input schema`);
      assert.ok(tool.description.length > 80, `${tool.name} description says when to call it`);
      const input = JSON.stringify(tool.inputSchema);
      for (const editorField of ['"active_file"', '"selection"', '"workspace_folder"']) {
        assert.ok(!input.includes(editorField), `${tool.name} input schema has ${editorField}`);
      }
      const max = tool.inputSchema.properties.max_result_tokens;
      assert.equal(max?.type, "integer", `${tool.name} takes max_result_tokens`);
      // The bounds may be left to the server's error, to keep tools/list
      // short; declared, they are the server's.
      if (max.minimum !== undefined) assert.equal(max.minimum, minBudget, `${tool.name} max_result_tokens minimum`);
      if (max.maximum !== undefined) assert.equal(max.maximum, 1000000, `${tool.name} max_result_tokens maximum`);
      const detail = tool.inputSchema.properties.detail;
      if (detailTools.includes(tool.name)) {
        assert.deepEqual(detail?.enum, ["summary", "full"], `${tool.name} takes detail`);
        assert.equal(tool.inputSchema.properties.page?.type, "integer", `${tool.name} takes page`);
      } else {
        assert.equal(detail, undefined, `${tool.name} has no detail levels`);
      }
    }
    const build = listed.find((t) => t.name === "build_context");
    assert.deepEqual(build.inputSchema.required, ["purpose"]);
    assert.deepEqual(build.inputSchema.properties.purpose.enum, ["intent", "plan", "diff"]);
    const step = build.inputSchema.properties.plan_step.properties;
    assert.equal(step.target_files.items.type, "string");
    assert.equal(step.target_symbols.items.type, "string");
    assert.ok(build.inputSchema.properties.user_selected_targets);
    assert.match(build.description, /resource/, "build_context says where the blocks it does not show are");
  });

  test("builds a bundle for a file by path: a summary within the budget", async () => {
    const result = await call("build_context", storeRequest());
    assert.ok(!result.isError, texts(result).join("\n"));
    assert.ok(jsonSize(result) <= jsonBytesFor(defaultMaxResultTokens), `the result is ${jsonSize(result)} bytes`);

    const sum = result.structuredContent;
    assert.deepEqual(Object.keys(sum).sort(), [
      "blocks",
      "budget_report",
      "bundle_id",
      "correlation_id",
      "manifest",
      "max_result_tokens",
      "purpose",
      "redaction_report",
    ]);
    const id = sum.bundle_id;
    assert.match(id, /^[0-9a-f-]{36}$/);
    assert.equal(sum.purpose, "diff");
    assert.equal(sum.max_result_tokens, defaultMaxResultTokens);
    const base = `ctxd://bundles/${id}`;

    assert.equal(sum.budget_report.decision, "ok");
    assert.equal(typeof sum.budget_report.notes, "number", "the budget notes are counted");
    assert.equal(sum.budget_report.uri, `${base}/budget`);

    const man = sum.manifest;
    assert.ok(man.target_files.includes("internal/store/store.go"));
    assert.deepEqual(man.target_symbols, ["Store.List"]);
    assert.equal(typeof man.included_files, "number");
    assert.equal(man.included_by_reason.target, 1);
    assert.equal(typeof man.excluded_candidates, "number");
    assert.ok(man.excluded_by_reason.deny_rule >= 1, "the never-send .env is excluded as deny_rule");
    assert.match(man.fingerprints.bundle_fingerprint, /^[0-9a-f]{64}$/);
    assert.equal(man.uri, `${base}/manifest`);

    assert.equal(typeof sum.redaction_report.redactions, "number");
    assert.equal(typeof sum.redaction_report.by_type, "object");
    assert.equal(sum.redaction_report.uri, `${base}/redactions`);

    // A small bundle is shown whole: every block in the text, none linked.
    const blocks = sum.blocks;
    assert.ok(blocks.total > 0 && blocks.tokens > 0);
    const shown = blockNumbers(blocks.shown);
    assert.deepEqual(shown, Array.from({ length: blocks.total }, (_, i) => i + 1));
    assert.equal(blocks.linked, 0);
    assert.equal(blocks.uri, `${base}/blocks`);

    const [markdown] = texts(result);
    assert.equal(result.content[0].type, "text");
    assert.match(markdown, /^# ctxd context bundle \(diff\)/);
    assert.match(markdown, /## internal\/store\/store\.go/);
    assert.match(markdown, /func \(s \*Store\) List\(\) \[\]Item/);
    assert.match(markdown, /\n## Manifest\n/);
    assert.doesNotMatch(markdown, /## Not shown here/);
    // Only the index and the manifest are linked.
    assert.deepEqual(
      links(result).map((l) => l.uri),
      [`${base}/blocks`, `${base}/manifest`],
    );
    for (const link of links(result)) assert.equal(link.mimeType, "text/markdown");

    // Each part of the recorded bundle is a Markdown resource.
    for (const part of ["blocks", "manifest", "redactions", "budget", ...shown.map((n) => `blocks/${n}`)]) {
      const uri = `${base}/${part}`;
      const read = await ws.read(uri);
      assert.equal(read.contents.length, 1, uri);
      const [c] = read.contents;
      assert.equal(c.uri, uri);
      assert.equal(c.mimeType, "text/markdown", uri);
      assert.match(c.text, /^# /, `${uri} is Markdown`);
      assert.doesNotMatch(c.text, /Next page:/, `${uri} is one page`);
    }
    const manifest = (await ws.read(`${base}/manifest`)).contents[0].text;
    assert.match(manifest, /included `internal\/store\/store\.go`: target/);
    assert.match(manifest, /excluded `\.env`: deny_rule/);
    const index = (await ws.read(`${base}/blocks`)).contents[0].text;
    for (let n = 1; n <= blocks.total; n++) assert.ok(index.includes(`${base}/blocks/${n}`), `the index links block ${n}`);
    const storeN = shown.find((n) => index.includes(`${n}. P0 file \`internal/store/store.go\``));
    assert.ok(storeN, `the index lists the store's file block:\n${index}`);
    const storeBlock = (await ws.read(`${base}/blocks/${storeN}`)).contents[0].text;
    assert.match(storeBlock, /sort\.Slice\(out, func\(i, j int\) bool \{ return out\[i\]\.SKU < out\[j\]\.SKU \}\)/);
  });

  test("serves a bundle's parts from one resource template, and no session resources", async () => {
    const { resourceTemplates } = await ws.client.listResourceTemplates();
    assert.deepEqual(
      resourceTemplates.map((t) => t.uriTemplate),
      ["ctxd://bundles/{bundle_id}/{+part}"],
    );
    assert.equal(resourceTemplates[0].mimeType, "text/markdown");
    const { resources } = await ws.client.listResources();
    assert.deepEqual(resources, []);
    for (const gone of ["ctxd://session/bundle.json", "ctxd://session/manifest.json"]) {
      await assert.rejects(ws.read(gone), `${gone} is gone`);
    }
    await assert.rejects(ws.read("ctxd://bundles/00000000-0000-0000-0000-000000000000/blocks"), /no bundle/, "a bundle never recorded");
    const built = await call("build_context", storeRequest());
    const base = `ctxd://bundles/${built.structuredContent.bundle_id}`;
    const total = built.structuredContent.blocks.total;
    await assert.rejects(ws.read(`${base}/blocks/${total + 1}`), new RegExp(`blocks 1 to ${total}`));
    await assert.rejects(ws.read(`${base}/blocks/1/pages/2`), /page/, "a page past the last");
    await assert.rejects(ws.read(`${base}/everything`), /everything/, "a part a bundle does not have");
  });

  test("gives the same fingerprint and bytes twice", async () => {
    const first = await call("build_context", storeRequest());
    const second = await call("build_context", storeRequest());
    const fp = (r) => r.structuredContent.manifest.fingerprints.bundle_fingerprint;
    assert.match(fp(first), /^[0-9a-f]{64}$/);
    assert.equal(fp(second), fp(first));
    assert.equal(texts(second)[0], texts(first)[0], "the same Markdown");
    assert.deepEqual(second.structuredContent, first.structuredContent);
    const manifest = await call("manifest", storeRequest());
    assert.ok(!manifest.isError, texts(manifest).join("\n"));
    assert.equal(fp(manifest), fp(first));
    const full = await call("build_context", storeRequest(undefined, undefined, { detail: "full" }));
    const again = await call("build_context", storeRequest(undefined, undefined, { detail: "full" }));
    assert.equal(JSON.stringify(again.structuredContent.bundle), JSON.stringify(full.structuredContent.bundle));
    assert.equal(full.structuredContent.manifest.fingerprints.bundle_fingerprint, fp(first));
  });

  test("returns the whole canonical result in full detail", async () => {
    const summary = await call("build_context", storeRequest());
    const result = await call("build_context", storeRequest(undefined, undefined, { detail: "full" }));
    assert.ok(!result.isError, texts(result).join("\n"));
    const { bundle, manifest, redaction_report, budget_report } = result.structuredContent;
    assert.deepEqual(Object.keys(result.structuredContent).sort(), ["budget_report", "bundle", "manifest", "redaction_report"]);
    assert.equal(bundle.bundle_id, summary.structuredContent.bundle_id);
    assert.equal(bundle.blocks.length, summary.structuredContent.blocks.total);
    assert.ok(manifest.selection.target_files.includes("internal/store/store.go"));
    assert.ok(
      manifest.selection.excluded_candidates.some((e) => e.path === ".env" && e.reason === "deny_rule"),
      "the never-send .env is excluded as deny_rule",
    );
    assert.equal(redaction_report.bundle_id, bundle.bundle_id);
    assert.equal(budget_report.decision, "ok");
    assert.ok(Array.isArray(budget_report.notes) && budget_report.notes.length === summary.structuredContent.budget_report.notes);
    // The whole Markdown, and nothing linked.
    assert.equal(links(result).length, 0);
    const [markdown] = texts(result);
    assert.match(markdown, /^# ctxd context bundle \(diff\)/);
    for (const note of budget_report.notes) assert.ok(markdown.includes(note), `the Markdown has the budget note ${note}`);
    // A block resource holds the recorded block's content.
    for (const [i, block] of bundle.blocks.entries()) {
      const read = await ws.read(`ctxd://bundles/${bundle.bundle_id}/blocks/${i + 1}`);
      assert.ok(read.contents[0].text.includes(block.content), `block ${i + 1} as recorded`);
    }

    for (const name of ["manifest", "budget", "render_prompt"]) {
      const full = await call(name, storeRequest(undefined, undefined, { detail: "full" }));
      assert.ok(!full.isError, `${name}: ${texts(full).join("\n")}`);
    }
    const manifestFull = await call("manifest", storeRequest(undefined, undefined, { detail: "full" }));
    assert.deepEqual(manifestFull.structuredContent.manifest.selection, manifest.selection);
  });

  test("refuses a path outside the root as a tool error to act on", async () => {
    const result = await call("build_context", storeRequest(["../outside.go"], []));
    assert.equal(result.isError, true);
    assert.equal(result.structuredContent, undefined);
    const [reader] = texts(result);
    assert.match(reader, /^ctxd refused build_context: REFUSE_OUTSIDE_SANDBOX: /);
    assert.match(reader, /\nadvice: /);
    const { refusal } = errorJSON(result);
    assert.equal(refusal.code, "REFUSE_OUTSIDE_SANDBOX");
    assert.ok(refusal.message.length > 0 && refusal.advice.length > 0);
    assert.doesNotMatch(refusal.advice, anyFlag);
  });

  test("refuses a never-send target", async () => {
    const result = await call("build_context", storeRequest([".env"], []));
    assert.equal(errorJSON(result).refusal.code, "REFUSE_UNSUPPORTED_TARGET");
    assert.match(texts(result)[0], /^ctxd refused build_context: REFUSE_UNSUPPORTED_TARGET: /);
  });

  test("refuses an ambiguous symbol with candidates to retry with, in MCP terms", async () => {
    const request = storeRequest([], ["Item"]);
    const result = await call("build_context", request);
    const [reader] = texts(result);
    assert.match(reader, /^ctxd refused build_context: REFUSE_AMBIGUOUS_TARGET: [^\n]+\nadvice: [^\n]+/);
    assert.match(reader, /user_selected_targets/);
    assert.doesNotMatch(reader, cliFlags);
    const json = errorJSON(result);
    const { refusal } = json;
    assert.equal(refusal.code, "REFUSE_AMBIGUOUS_TARGET");
    assert.ok(refusal.message.length > 0);
    assert.match(refusal.advice, /user_selected_targets/);
    assert.doesNotMatch(refusal.advice, anyFlag);
    assert.doesNotMatch(texts(result)[1], cliFlags);
    assert.deepEqual(refusal.candidates.map((c) => `${c.path}#${c.symbol}`).sort(), ["internal/store/store.go#Item", "web/src/api.ts#Item"]);
    for (const c of refusal.candidates) assert.ok(reader.includes(JSON.stringify({ path: c.path, symbol: c.symbol })), `the text names ${c.path}`);
    if (json.page) assert.equal(json.page.total, 2);

    // The candidates' page past the last is an invalid argument.
    const past = await call("build_context", { ...request, page: 2 });
    const { error } = errorJSON(past);
    assert.equal(error.kind, "invalid_arguments");
    assert.match(error.message, /"page"/);

    // Following the advice: the same call with a candidate selected.
    const ts = refusal.candidates.find((c) => c.path === "web/src/api.ts");
    const retried = await call("build_context", { ...request, user_selected_targets: [{ path: ts.path, symbol: ts.symbol }] });
    assert.ok(!retried.isError, texts(retried).join("\n"));
    assert.match(texts(retried)[0], /## web\/src\/api\.ts/);
    assert.doesNotMatch(texts(retried)[0], /## internal\/store\/store\.go/);
  });

  test("refuses a bundle over the model's window, with a summary and MCP advice", async () => {
    const request = storeRequest(["internal/store/store.go"], [], {
      model: { max_input_tokens: 400, max_output_tokens: 100, response_token_reserve: 100 },
    });
    const result = await call("build_context", request);
    const [reader] = texts(result);
    assert.match(reader, /^ctxd refused build_context: REFUSE_CONTEXT_TOO_LARGE: [^\n]+\nadvice: /);
    assert.doesNotMatch(reader, cliFlags);
    assert.doesNotMatch(texts(result)[1], cliFlags);
    const { refusal } = errorJSON(result);
    assert.equal(refusal.code, "REFUSE_CONTEXT_TOO_LARGE");
    assert.doesNotMatch(refusal.advice, anyFlag);
    assert.match(refusal.advice, /model\.max_input_tokens|plan_step\.target_files/);
    // The reports are summaries: counts, not the lists.
    const br = refusal.budget_report;
    assert.equal(br.decision, "refuse_hard_limit");
    assert.equal(br.max_input_tokens, 400);
    assert.ok(br.estimated_input_tokens > br.hard_limit_tokens);
    assert.equal(typeof br.notes, "number");
    if (refusal.redaction_report) {
      assert.equal(typeof refusal.redaction_report.redactions, "number");
      assert.equal(typeof refusal.redaction_report.by_type, "object");
    }
    // The preview tools refuse the same way.
    for (const name of ["budget", "manifest", "render_prompt"]) {
      const other = await call(name, request);
      if (other.isError) {
        assert.equal(errorJSON(other).refusal?.code, "REFUSE_CONTEXT_TOO_LARGE", name);
        assert.doesNotMatch(texts(other).join("\n"), cliFlags, name);
      } else {
        assert.equal(other.structuredContent.budget_report.decision, "refuse_hard_limit", name);
      }
    }
  });

  test("bounds max_result_tokens", async () => {
    const { min, max } = await resultBudgetBounds(ws);
    // The issue says 1000; the server may ask for more, never more than
    // its default.
    assert.ok(min >= 1000 && min <= defaultMaxResultTokens, `the smallest budget is ${min}`);
    assert.equal(max, 1000000);
    for (const [value, ok] of [
      [min - 1, false],
      [min, true],
      [max, true],
      [max + 1, false],
    ]) {
      const result = await call("budget", { ...storeRequest(), max_result_tokens: value });
      if (ok) {
        assert.ok(!result.isError, `max_result_tokens ${value}: ${texts(result)[0]}`);
      } else {
        assert.equal(errorJSON(result).error.kind, "invalid_arguments", `max_result_tokens ${value}`);
        assert.match(texts(result)[0], /"max_result_tokens"/);
      }
    }
  });

  test("names the field of an invalid argument", async () => {
    for (const [name, args, field] of [
      ["build_context", { purpose: "poem" }, '"purpose"'],
      ["build_context", { purpose: "plan", nope: 1 }, "nope"],
      ["build_context", { purpose: "diff", active_file: "file:///tmp/x.go" }, '"active_file"'],
      ["build_context", { ...storeRequest(), max_result_tokens: 999 }, '"max_result_tokens"'],
      ["manifest", { ...storeRequest(), max_result_tokens: minBudget - 1 }, '"max_result_tokens"'],
      ["build_context", { ...storeRequest(), max_result_tokens: 1000001 }, '"max_result_tokens"'],
      ["build_context", { ...storeRequest(), max_result_tokens: "8000" }, '"max_result_tokens"'],
      ["build_context", { ...storeRequest(), detail: "medium" }, '"detail"'],
      ["manifest", { ...storeRequest(), page: 0 }, '"page"'],
      ["check_change", { answer: "x", detail: "full" }, '"detail"'],
      ["record_execution", { thread_id: "t", turn_id: "u", output: "x", page: 2 }, '"page"'],
      ["verify", { workspace_folder: "file:///tmp" }, "workspace_folder"],
    ]) {
      const result = await call(name, args);
      assert.equal(result.isError, true, `${name} ${JSON.stringify(args)}`);
      const [message] = texts(result);
      assert.ok(message.includes(field), `${message} names ${field}`);
      assert.equal(errorJSON(result).error.kind, "invalid_arguments", message);
    }
  });

  test("answers a page past the end with an invalid-argument error", async () => {
    const first = await call("manifest", storeRequest());
    assert.ok(!first.isError, texts(first).join("\n"));
    const { page } = first.structuredContent;
    assert.equal(page.page, 1);
    assert.ok(page.pages >= 1 && page.total >= page.shown);
    assert.equal(first.structuredContent.included_files.length + first.structuredContent.excluded_candidates.length, page.shown);
    for (const name of ["manifest", "budget", "render_prompt", "index_status", "verify"]) {
      const args = { index_status: { skipped: true }, verify: {} }[name] ?? storeRequest();
      const ok = await call(name, args);
      assert.ok(!ok.isError, `${name}: ${texts(ok).join("\n")}`);
      const pages = ok.structuredContent.page?.pages ?? 1;
      const past = await call(name, { ...args, page: pages + 1 });
      const { error } = errorJSON(past);
      assert.equal(error.kind, "invalid_arguments", name);
      assert.match(error.message, /"page"/, name);
      assert.match(error.message, /past the last page/, name);
    }
  });

  test("fits every tool's result to max_result_tokens", async () => {
    const small = minBudget;
    const cases = [
      ["build_context", storeRequest()],
      ["manifest", storeRequest()],
      ["budget", storeRequest()],
      ["render_prompt", storeRequest()],
      ["index_status", { skipped: true }],
      ["verify", {}],
    ];
    for (const [name, args] of cases) {
      const result = await call(name, { ...args, max_result_tokens: small });
      const size = jsonSize(result);
      assert.ok(size <= jsonBytesFor(small), `${name} with max_result_tokens ${small} is ${size} bytes of JSON`);
      if (result.isError) {
        // Only a result that cannot be cut says so, with what it needs.
        assert.equal(errorJSON(result).error.kind, "result_too_large", `${name}: ${texts(result)[0]}`);
        assert.match(texts(result)[0], /max_result_tokens/);
      }
    }
    // render_prompt pages its messages: reading every page gives the
    // whole prompt.
    const budget = 2000;
    const whole = await call("render_prompt", { ...storeRequest(), detail: "full", max_result_tokens: 100000 });
    assert.ok(!whole.isError, texts(whole).join("\n"));
    const messages = whole.structuredContent.prompt.messages.map((m) => m.content);
    const parts = messages.map(() => "");
    let pageNo = 1;
    for (;;) {
      const page = await call("render_prompt", { ...storeRequest(), max_result_tokens: budget, page: pageNo });
      assert.ok(!page.isError, `page ${pageNo}: ${texts(page)[0]}`);
      assert.ok(jsonSize(page) <= jsonBytesFor(budget));
      for (const part of page.structuredContent.prompt.parts) parts[part.message] += part.text;
      if (pageNo >= page.structuredContent.page.pages) break;
      assert.match(page.structuredContent.page.next, /"page": \d+/);
      pageNo++;
    }
    assert.ok(pageNo > 1, "the prompt does not fit one small page");
    assert.deepEqual(parts, messages);
  });

  test("answers the preview and build tools at the smallest budget", async () => {
    for (const name of ["build_context", "manifest", "budget", "render_prompt"]) {
      const result = await call(name, { ...storeRequest(), max_result_tokens: minBudget });
      assert.ok(!result.isError, `${name} at max_result_tokens ${minBudget}: ${texts(result)[0]}`);
    }
  });

  test(
    "answers a page past the end of a result without a list to page with an invalid-argument error",
    async () => {
      for (const [name, args] of [
        ["build_context", storeRequest()],
        ["index_status", {}],
      ]) {
        const result = await call(name, { ...args, page: 2 });
        assert.equal(result.isError, true, `${name} with page 2: ${texts(result)[0].slice(0, 100)}`);
        assert.equal(errorJSON(result).error.kind, "invalid_arguments", name);
      }
    },
  );

  test("checks a model's change against the bundle it answered", async () => {
    const built = await call("build_context", storeRequest());
    const bundleID = built.structuredContent.bundle_id;
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

  test("records a turn's output once", async () => {
    const thread = { thread_id: "th-mcpclient", turn_id: "turn-1" };
    const built = await call("build_context", storeRequest(undefined, undefined, { thread }));
    assert.ok(!built.isError, texts(built).join("\n"));

    const missing = await call("record_execution", { ...thread });
    const { error } = errorJSON(missing);
    assert.equal(error.kind, "invalid_arguments");
    assert.match(error.message, /"output"/);

    const recorded = await call("record_execution", { ...thread, output: "the model's answer" });
    assert.ok(!recorded.isError, texts(recorded).join("\n"));
    assert.equal(recorded.structuredContent.ref_id, "execution:turn-1");
    assert.match(recorded.structuredContent.output_digest, /^sha256:[0-9a-f]{64}$/);

    const again = await call("record_execution", { ...thread, output: "another answer" });
    assert.match(texts(again)[0], /^ctxd refused record_execution: EXECUTION_ALREADY_RECORDED: [^\n]+\nadvice: /);
    const { refusal } = errorJSON(again);
    assert.equal(refusal.code, "EXECUTION_ALREADY_RECORDED");
    assert.ok(refusal.advice.length > 0);
    assert.doesNotMatch(refusal.advice, anyFlag);
  });

  test("reports the index and verifies the records", async () => {
    const status = await call("index_status", { skipped: true });
    assert.ok(!status.isError, texts(status).join("\n"));
    assert.equal(status.structuredContent.index.state, "ready");
    const verify = await call("verify", {});
    assert.ok(!verify.isError, texts(verify).join("\n"));
    assert.equal(verify.structuredContent.ok, true);
    assert.equal(JSON.parse(texts(verify)[0]).ok, true, "the text is the same JSON");
  });

  test("offers the prompt templates", async () => {
    const { prompts } = await ws.client.listPrompts();
    assert.deepEqual(prompts.map((p) => p.name).sort(), ["default-diff", "default-intent", "default-plan"]);
    for (const p of prompts) {
      assert.ok(
        p.arguments.some((a) => a.name === "user_selected_targets"),
        `${p.name} takes user_selected_targets`,
      );
    }
    const prompt = await ws.client.getPrompt({ name: "default-diff", arguments: { target_files: "internal/store/store.go", intent: "sort by name" } });
    assert.equal(prompt.messages.length, 2);
    assert.match(prompt.messages[0].content.text, /internal\/store\/store\.go/);
  });

  test("answers an ambiguous prompt with the selected targets", async () => {
    const ambiguous = { intent: "add a field", target_symbols: "Item" };
    await assert.rejects(ws.client.getPrompt({ name: "default-diff", arguments: ambiguous }), (err) => {
      assert.equal(err.code, -32803);
      assert.match(err.message, /REFUSE_AMBIGUOUS_TARGET/);
      assert.match(err.message, /user_selected_targets/);
      assert.doesNotMatch(err.message, cliFlags);
      const data = typeof err.data === "string" ? JSON.parse(err.data) : err.data;
      if (data) assert.equal(data.code, "REFUSE_AMBIGUOUS_TARGET");
      return true;
    });

    const asJSON = await ws.client.getPrompt({
      name: "default-diff",
      arguments: { ...ambiguous, user_selected_targets: JSON.stringify([{ path: "internal/store/store.go", symbol: "Item" }]) },
    });
    assert.match(asJSON.messages[0].content.text, /### internal\/store\/store\.go/);
    assert.doesNotMatch(asJSON.messages[0].content.text, /### web\/src\/api\.ts/);

    const asList = await ws.client.getPrompt({ name: "default-diff", arguments: { ...ambiguous, user_selected_targets: "web/src/api.ts#Item" } });
    assert.match(asList.messages[0].content.text, /### web\/src\/api\.ts/);
    assert.doesNotMatch(asList.messages[0].content.text, /### internal\/store\/store\.go/);

    await assert.rejects(
      ws.client.getPrompt({ name: "default-diff", arguments: { ...ambiguous, user_selected_targets: "no-symbol-here" } }),
      (err) => err.code === -32602 && /user_selected_targets/.test(err.message),
    );
  });

  test("never shows a secret, and logs only on stderr", () => {
    assert.ok(ws.received.length > 20, "the server's messages were kept");
    for (const message of ws.received) {
      assert.ok(!JSON.stringify(message).includes(envSecret), "a message holds the .env's content");
    }
    assert.ok(!ws.stderr.includes(envSecret), "the log holds the .env's content");
    assert.match(ws.stderr, /ctxd serving MCP on stdio/);
  });
});

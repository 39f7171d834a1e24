// The read tools an agent explores the workspace with (search_symbols,
// find_references, read_file, list_files) stay inside ctxd's boundary: the
// sandbox, the never-send rules and the redaction of every secret. The
// checks hold whatever the exact fields of a result are (JSON text,
// structuredContent or Markdown): what the agent is shown is searched as
// a whole.
//
// A tool not in tools/list yet is skipped, decided when the suite starts,
// so that each test runs as soon as the server registers its tool.

import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";

import {
  bigGoLines,
  credentialFile,
  defaultMaxResultTokens,
  envSecret,
  everything,
  freshCredentials,
  jsonBytesFor,
  jsonSize,
  openWorkspace,
  resultBudgetBounds,
  texts,
} from "../lib/workspace.mjs";

const credentials = freshCredentials();
const credentialPath = "internal/deploy/config.go";
const bigPath = "internal/big/big.go";
const bigLines = bigGoLines(1000);
// A file next to the served root: no tool may read it.
const outsideName = "outside.txt";
const outsideText = "outside-the-root-marker-9f3c";

const ws = await openWorkspace({
  plant: (root, tmp) => {
    fs.mkdirSync(path.join(root, path.dirname(credentialPath)), { recursive: true });
    fs.writeFileSync(path.join(root, credentialPath), credentialFile(credentials));
    fs.mkdirSync(path.join(root, path.dirname(bigPath)), { recursive: true });
    fs.writeFileSync(path.join(root, bigPath), bigLines.join("\n"));
    fs.writeFileSync(path.join(tmp, outsideName), `${outsideText}\n`);
  },
});
const listed = await ws.toolNames();
// The smallest max_result_tokens a call may ask for, as the server says.
const { min: minBudget } = await resultBudgetBounds(ws);

/** The skip option of a test of tool name: skipped until it is listed. */
function needs(...names) {
  return { skip: names.every((n) => listed.includes(n)) ? false : "agent tools not registered yet" };
}

// What no answer may hold.
const secrets = [envSecret, credentials.awsKeyID, credentials.awsSecret, credentials.password, outsideText];

/** Asserts that a result shows none of the secrets. */
function assertNoSecret(result, what) {
  const shown = JSON.stringify(result);
  for (const s of secrets) assert.ok(!shown.includes(s), `${what} shows a secret or an outside file`);
}

/** Asserts a tool error whose text names a REFUSE_ code, and returns the code. */
function assertRefused(result, what) {
  assert.equal(result.isError, true, `${what} is a tool error: ${texts(result)[0]?.slice(0, 200)}`);
  const code = texts(result).join("\n").match(/\bREFUSE_[A-Z_]+\b/)?.[0];
  assert.ok(code, `${what}: the error names a REFUSE_ code: ${texts(result)[0]}`);
  assertNoSecret(result, what);
  return code;
}

/** The JSON values a result holds: structuredContent and the texts that are JSON. */
function jsonValues(result) {
  const out = result.structuredContent === undefined ? [] : [result.structuredContent];
  for (const t of texts(result)) {
    try {
      out.push(JSON.parse(t));
    } catch {
      // Markdown or plain text.
    }
  }
  return out;
}

/** The objects with .path === p in a result's JSON, with the key of the list or member holding each. */
function entriesOf(result, p) {
  const found = [];
  const walk = (v, key) => {
    if (Array.isArray(v)) {
      for (const x of v) walk(x, key);
    } else if (v && typeof v === "object") {
      if (v.path === p) found.push({ key, entry: v });
      for (const [k, x] of Object.entries(v)) walk(x, k);
    }
  };
  for (const v of jsonValues(result)) walk(v, "");
  return found;
}

describe("ctxd mcp agent tools", () => {
  after(async () => {
    await ws.close();
  });

  test("lists the agent tools' arguments", needs("search_symbols", "find_references", "read_file", "list_files"), async () => {
    const { tools } = await ws.client.listTools();
    const props = (name) => Object.keys(tools.find((t) => t.name === name).inputSchema.properties);
    for (const [name, args] of [
      ["search_symbols", ["query", "kind", "limit"]],
      ["find_references", ["symbol", "path"]],
      ["read_file", ["path", "start_line", "end_line"]],
      ["list_files", ["path", "glob"]],
    ]) {
      for (const arg of args) assert.ok(props(name).includes(arg), `${name} takes ${arg}`);
      assert.ok(props(name).includes("max_result_tokens"), `${name} takes max_result_tokens`);
      for (const editorField of ["workspace_folder", "active_file", "selection"]) {
        assert.ok(!props(name).includes(editorField), `${name} has ${editorField}`);
      }
    }
  });

  test("search_symbols finds a declaration by name, without file text", needs("search_symbols"), async () => {
    const result = await ws.call("search_symbols", { query: "List" });
    assert.ok(!result.isError, texts(result).join("\n"));
    const shown = everything(result);
    assert.match(shown, /internal\/store\/store\.go/);
    assert.match(shown, /\bList\b/);
    assert.doesNotMatch(shown, /out\[i\]\.SKU < out\[j\]\.SKU/, "no file text");
    assert.ok(jsonSize(result) <= jsonBytesFor(defaultMaxResultTokens));

    const methods = await ws.call("search_symbols", { query: "List", kind: "method" });
    assert.ok(!methods.isError, texts(methods).join("\n"));
    assert.match(everything(methods), /internal\/store\/store\.go/);

    const planted = await ws.call("search_symbols", { query: "Production" });
    assert.ok(!planted.isError, texts(planted).join("\n"));
    assert.match(everything(planted), new RegExp(credentialPath.replace(/[./]/g, "\\$&")));
    assertNoSecret(planted, "search_symbols Production");

    const badKind = await ws.call("search_symbols", { query: "List", kind: "no-such-kind" });
    assert.equal(badKind.isError, true);
    assert.match(texts(badKind)[0], /"kind"/);
  });

  test("find_references finds the callers of a method", needs("find_references"), async () => {
    const result = await ws.call("find_references", { symbol: "Store.List" });
    assert.ok(!result.isError, texts(result).join("\n"));
    const shown = everything(result);
    assert.match(shown, /internal\/store\/store\.go/, "the definition");
    assert.match(shown, /cmd\/inventory\/main\.go/, "the caller");
    assert.doesNotMatch(shown, /json\.NewEncoder\(w\)\.Encode\(s\.List\(\)\)/, "no file text");

    const inFile = await ws.call("find_references", { symbol: "Store.List", path: "internal/store/store.go" });
    assert.ok(!inFile.isError, texts(inFile).join("\n"));
    assert.match(everything(inFile), /cmd\/inventory\/main\.go/);

    const unknown = await ws.call("find_references", { symbol: "NoSuchSymbolAnywhere" });
    assert.equal(unknown.isError, true);
    assert.match(texts(unknown).join("\n"), /REFUSE_TARGET_NOT_FOUND/);
  });

  test("read_file reads a file's lines", needs("read_file"), async () => {
    const whole = await ws.call("read_file", { path: "internal/store/store.go" });
    assert.ok(!whole.isError, texts(whole).join("\n"));
    assert.match(everything(whole), /package store/);
    assert.match(everything(whole), /func \(s \*Store\) List\(\) \[\]Item/);

    const lines = await ws.call("read_file", { path: "internal/store/store.go", start_line: 49, end_line: 59 });
    assert.ok(!lines.isError, texts(lines).join("\n"));
    const shown = everything(lines);
    assert.match(shown, /func \(s \*Store\) List\(\) \[\]Item/);
    assert.doesNotMatch(shown, /func New\(\) \*Store/, "only the lines asked for");

    const part = await ws.call("read_file", { path: bigPath, start_line: 1001, end_line: 1010 });
    assert.ok(!part.isError, texts(part).join("\n"));
    for (const line of bigLines.slice(1000, 1010).filter((l) => l !== "")) assert.ok(everything(part).includes(line), `line "${line}"`);
    const after = bigLines.slice(1012).find((l) => l !== "");
    assert.ok(!everything(part).includes(after), `a line after the range: "${after}"`);
  });

  test("read_file refuses the never-send .env and paths outside the root", needs("read_file"), async () => {
    assertRefused(await ws.call("read_file", { path: ".env" }), "read_file .env");
    assertRefused(await ws.call("read_file", { path: "./.env" }), "read_file ./.env");
    const outside = assertRefused(await ws.call("read_file", { path: `../${outsideName}` }), `read_file ../${outsideName}`);
    assert.equal(outside, "REFUSE_OUTSIDE_SANDBOX");
    assertRefused(await ws.call("read_file", { path: path.join(ws.tmp, outsideName) }), "read_file of an absolute path outside");
  });

  test("read_file redacts a planted credential", needs("read_file"), async () => {
    const result = await ws.call("read_file", { path: credentialPath });
    assert.ok(!result.isError, texts(result).join("\n"));
    assertNoSecret(result, `read_file ${credentialPath}`);
    const shown = everything(result);
    assert.match(shown, /package deploy/, "the rest of the file is shown");
    assert.match(shown, /eu-west-1/);
    assert.match(shown, /\[REDACTED:[a-z0-9._-]+\]/, "the secrets are marked as removed");
  });

  test("read_file keeps a large file within the result budget", needs("read_file"), async () => {
    for (const budget of [defaultMaxResultTokens, minBudget]) {
      const args = budget === defaultMaxResultTokens ? { path: bigPath } : { path: bigPath, max_result_tokens: budget };
      const result = await ws.call("read_file", args);
      const size = jsonSize(result);
      assert.ok(size <= jsonBytesFor(budget), `read_file of ${bigPath} at ${budget} tokens is ${size} bytes of JSON`);
      if (result.isError) {
        assert.match(texts(result).join("\n"), /result_too_large|REFUSE_CONTEXT_TOO_LARGE|max_result_tokens|start_line/, texts(result)[0]);
      }
    }
  });

  test(
    "read_file of a file over the budget shows its first lines and where the rest is",
    needs("read_file"),
    async () => {
      const result = await ws.call("read_file", { path: bigPath });
      assert.ok(jsonSize(result) <= jsonBytesFor(defaultMaxResultTokens));
      if (result.isError) {
        // At least its advice converges: the budget it names is enough.
        const named = Number(texts(result)[0].match(/max_result_tokens (\d+) or more/)?.[1]);
        assert.ok(named, texts(result)[0]);
        const retried = await ws.call("read_file", { path: bigPath, max_result_tokens: named });
        assert.ok(!retried.isError, `retried with max_result_tokens ${named}: ${texts(retried)[0]}`);
      }
      assert.ok(!result.isError, texts(result)[0]);
      const shown = everything(result);
      assert.ok(shown.includes(bigLines[0]), "the first line");
      assert.match(shown, /start_line/, "how to read on");
    },
  );

  test("list_files names .env as excluded and never shows its content", needs("list_files"), async () => {
    const result = await ws.call("list_files", {});
    assert.ok(!result.isError, texts(result).join("\n"));
    assertNoSecret(result, "list_files");
    const shown = everything(result);
    assert.match(shown, /internal\/store\/store\.go/);
    assert.match(shown, new RegExp(credentialPath.replace(/[./]/g, "\\$&")), "a file with a secret is listed (its content is not)");

    const env = entriesOf(result, ".env");
    if (env.length > 0) {
      assert.ok(
        env.every(({ key }) => /exclu|skip|denied|hidden/i.test(key)),
        `.env is listed as a file: ${JSON.stringify(env)}`,
      );
      assert.ok(
        env.some(({ entry }) => /deny|never/i.test(JSON.stringify(entry))),
        `.env's entry says the rule: ${JSON.stringify(env)}`,
      );
    } else {
      // Markdown: a line naming .env and why.
      const line = shown.split("\n").find((l) => /(^|[\s`"'/])\.env\b/.test(l));
      assert.ok(line, "list_files names .env");
      assert.match(line, /exclu|deny|never/i);
    }

    const goFiles = await ws.call("list_files", { glob: "**/*.go" });
    assert.ok(!goFiles.isError, texts(goFiles).join("\n"));
    assert.match(everything(goFiles), /internal\/store\/store\.go/);
    assert.doesNotMatch(everything(goFiles), /web\/src\/api\.ts/);

    const sub = await ws.call("list_files", { path: "internal/store" });
    assert.ok(!sub.isError, texts(sub).join("\n"));
    assert.match(everything(sub), /internal\/store\/store\.go/);
    assert.doesNotMatch(everything(sub), /cmd\/inventory\/main\.go/);

    const small = await ws.call("list_files", { max_result_tokens: minBudget });
    assert.ok(!small.isError || /result_too_large/.test(texts(small)[1] ?? ""), texts(small)[0]);
    assert.ok(jsonSize(small) <= jsonBytesFor(minBudget), `list_files at ${minBudget} tokens is ${jsonSize(small)} bytes`);

    assertRefused(await ws.call("list_files", { path: ".." }), "list_files ..");
  });

  test("never shows a secret, nor the outside file", () => {
    for (const message of ws.received) {
      const raw = JSON.stringify(message);
      for (const s of secrets) assert.ok(!raw.includes(s), "a message holds a secret or the outside file");
    }
    for (const s of secrets) assert.ok(!ws.stderr.includes(s), "the log holds a secret or the outside file");
  });
});

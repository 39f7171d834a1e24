// The result budget on a file far larger than one tool result: a
// generated Go file of 3000 lines (about 18k tokens) planted in the
// example workspace. build_context shows what fits and links the rest as
// resources; a block over the budget is read page by page; detail "full"
// says how large the whole result is instead of sending it.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";

import {
  bigGoLines,
  blockNumbers,
  defaultMaxResultTokens,
  envSecret,
  errorJSON,
  jsonBytesFor,
  jsonSize,
  links,
  openWorkspace,
  texts,
} from "../lib/workspace.mjs";

const bigPath = "internal/big/big.go";
const bigLines = bigGoLines(1000);

/** A diff request for the big file. */
function bigRequest(extra = {}) {
  return {
    purpose: "diff",
    intent: { id: "i1", text: "F0500 returns its number times two" },
    plan_step: { id: "s1", text: "double F0500", target_files: [bigPath] },
    ...extra,
  };
}

/** The code lines of a block's Markdown page: inside its fence. */
function fencedLines(markdown) {
  const lines = markdown.split("\n");
  const open = lines.findIndex((l) => /^`{3,}[\w.+-]*$/.test(l));
  assert.ok(open >= 0, "the page has a fenced block");
  const fence = lines[open].match(/^`+/)[0];
  const close = lines.findIndex((l, i) => i > open && l === fence);
  assert.ok(close > open, "the fence is closed");
  return lines.slice(open + 1, close);
}

describe("ctxd mcp result budget", () => {
  let ws;
  // Every resources/read answer: the server's budget applies to each.
  const reads = [];

  before(async () => {
    ws = await openWorkspace({
      plant: (root) => {
        fs.mkdirSync(path.join(root, path.dirname(bigPath)), { recursive: true });
        fs.writeFileSync(path.join(root, bigPath), bigLines.join("\n"));
      },
    });
  });

  after(async () => {
    await ws?.close();
  });

  /** Reads a resource, checking that the answer is within the server's budget. */
  async function read(uri) {
    const result = await ws.read(uri);
    reads.push(result);
    const size = jsonSize(result);
    assert.ok(size <= jsonBytesFor(defaultMaxResultTokens), `${uri} is ${size} bytes of JSON, over the budget`);
    assert.equal(result.contents.length, 1, uri);
    assert.equal(result.contents[0].uri, uri);
    assert.equal(result.contents[0].mimeType, "text/markdown", uri);
    return result.contents[0].text;
  }

  /** Reads every page of a part, from its first; returns the pages' texts. */
  async function readPages(uri) {
    const pages = [];
    let next = uri;
    while (next) {
      assert.ok(pages.length < 100, "the pages end");
      const text = await read(next);
      pages.push(text);
      const named = text.match(/\nNext page: (\S+)\n?$/);
      if (named) assert.equal(named[1], `${uri}/pages/${pages.length + 1}`, "the next page's URI");
      next = named?.[1];
    }
    return pages;
  }

  for (const [maxResultTokens, args] of [
    [defaultMaxResultTokens, {}],
    [4000, { max_result_tokens: 4000 }],
  ]) {
    test(`keeps build_context within ${maxResultTokens} tokens and links the rest`, async () => {
      const result = await ws.call("build_context", bigRequest(args));
      assert.ok(!result.isError, texts(result).join("\n"));
      const size = jsonSize(result);
      assert.ok(size <= jsonBytesFor(maxResultTokens), `the result is ${size} bytes of JSON, over ${jsonBytesFor(maxResultTokens)}`);

      const sum = result.structuredContent;
      assert.equal(sum.max_result_tokens, maxResultTokens);
      const { blocks } = sum;
      assert.ok(blocks.tokens > maxResultTokens, `the bundle (${blocks.tokens} tokens) is larger than the result`);
      assert.ok(blocks.linked >= 1, "a block is not shown");
      const shown = blockNumbers(blocks.shown);
      assert.equal(shown.length + blocks.linked, blocks.total);

      const [markdown] = texts(result);
      assert.equal(result.content[0].type, "text");
      assert.match(markdown, /^# ctxd context bundle \(diff\)/);
      assert.match(markdown, /\n## Not shown here\n/);
      assert.match(markdown, /\n## Manifest\n/);
      assert.ok(markdown.indexOf("## Not shown here") < markdown.indexOf("## Manifest"));
      assert.ok(markdown.includes(`max_result_tokens ${maxResultTokens}`), "the text says the budget");
      assert.doesNotMatch(markdown, /func F0500\(\)/, "the big block is not in the text");

      // The links: each block not shown, then the index, then the manifest.
      const base = `ctxd://bundles/${sum.bundle_id}`;
      const uris = links(result).map((l) => l.uri);
      assert.deepEqual(uris.slice(-2), [`${base}/blocks`, `${base}/manifest`]);
      const blockLinks = uris.slice(0, -2);
      assert.ok(blockLinks.length >= 1, "the block not shown is linked");
      for (const uri of blockLinks) {
        const n = Number(uri.slice(`${base}/blocks/`.length));
        assert.ok(uri.startsWith(`${base}/blocks/`) && Number.isInteger(n), uri);
        assert.ok(!shown.includes(n), `block ${n} is shown and linked`);
      }
      for (const link of links(result)) {
        assert.equal(link.type, "resource_link");
        assert.equal(link.mimeType, "text/markdown");
        assert.ok(link.name.length > 0);
      }

      // Every link reads, each page within the budget.
      for (const uri of uris) {
        const pages = await readPages(uri);
        assert.match(pages[0], /^# /, `${uri} is Markdown`);
      }
      // So do the other parts the summary names.
      for (const uri of [sum.budget_report.uri, sum.redaction_report.uri, sum.manifest.uri, blocks.uri]) {
        await readPages(uri);
      }
      const index = (await readPages(blocks.uri)).join("\n");
      for (let n = 1; n <= blocks.total; n++) assert.ok(index.includes(`${base}/blocks/${n}`), `the index links block ${n}`);
    });
  }

  test("pages a block over the budget, and its pages hold all of its lines", async () => {
    const result = await ws.call("build_context", bigRequest());
    const base = `ctxd://bundles/${result.structuredContent.bundle_id}`;
    const link = links(result).find((l) => l.title?.includes(bigPath) || l.description?.includes(bigPath));
    const uri =
      link?.uri ??
      // Else find the block in the index.
      `${base}/blocks/${(await read(`${base}/blocks`)).match(new RegExp(`(\\d+)\\. \\S+ file \`${bigPath}\``))[1]}`;
    assert.match(uri, /\/blocks\/\d+$/);

    const first = await read(uri);
    assert.match(first, new RegExp(`\\nNext page: ${uri.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}/pages/2\\n?$`), "the first page names the next");
    const pages = await readPages(uri);
    assert.ok(pages.length >= 2);
    assert.equal(pages[0], first, "the part's URI is its first page");
    // The block is about 18k tokens: no page may hold more than the budget.
    const tokens = Number(link?.description?.match(/(\d+) tokens/)?.[1] ?? 0);
    if (tokens) assert.ok(pages.length >= Math.ceil(tokens / defaultMaxResultTokens), `${tokens} tokens in ${pages.length} pages`);
    assert.doesNotMatch(pages.at(-1), /Next page:/, "the last page names no next");

    const got = [];
    let expectFirst = 1;
    for (const [i, page] of pages.entries()) {
      assert.match(page, new RegExp(`\\(page ${i + 1} of ${pages.length}\\)`));
      const range = page.match(/lines (\d+)-(\d+) of (\d+)/);
      assert.ok(range, `page ${i + 1} says which lines it holds`);
      const [lo, hi, total] = range.slice(1).map(Number);
      assert.equal(lo, expectFirst, `page ${i + 1} starts where the previous ended`);
      const lines = fencedLines(page);
      assert.equal(lines.length, hi - lo + 1, `page ${i + 1} holds lines ${lo}-${hi}`);
      got.push(...lines);
      expectFirst = hi + 1;
      if (i === pages.length - 1) assert.equal(hi, total);
    }
    // The file ends with a line break: its last "line" is empty.
    assert.deepEqual(got, bigLines.slice(0, -1));

    // A page past the last is not found.
    await assert.rejects(ws.read(`${uri}/pages/${pages.length + 1}`), new RegExp(`${pages.length} pages`));
  });

  test("answers detail full over the budget with result_too_large, and within a larger one", async () => {
    const result = await ws.call("build_context", bigRequest({ detail: "full" }));
    assert.equal(result.isError, true);
    assert.equal(result.structuredContent, undefined);
    const { error } = errorJSON(result);
    assert.equal(error.kind, "result_too_large");
    const [message] = texts(result);
    assert.equal(message, error.message);
    const [, size] = message.match(/is (\d+) tokens, over max_result_tokens 8000/) ?? [];
    assert.ok(size, `the error says the size: ${message}`);
    assert.ok(Number(size) > defaultMaxResultTokens);
    assert.match(message, /detail": "summary"/);
    assert.ok(jsonSize(result) <= jsonBytesFor(defaultMaxResultTokens));

    // Following the error: the size it named as the budget.
    const whole = await ws.call("build_context", bigRequest({ detail: "full", max_result_tokens: Number(size) }));
    assert.ok(!whole.isError, texts(whole)[0]);
    assert.equal(links(whole).length, 0);
    const { bundle } = whole.structuredContent;
    const block = bundle.blocks.find((b) => b.meta?.path === bigPath);
    assert.ok(block, "the big file's block");
    assert.equal(block.content, bigLines.join("\n"));
    assert.ok(texts(whole)[0].includes("func F1000() int { return 1000 }"));
  });

  test("never shows a secret", () => {
    for (const message of ws.received) {
      assert.ok(!JSON.stringify(message).includes(envSecret), "a message holds the .env's content");
    }
    assert.ok(reads.length > 0);
  });
});

describe("ctxd mcp --max-result-tokens", () => {
  // The server's budget: of a call that sets none, and of every read.
  const serverBudget = 3000;
  let ws;

  before(async () => {
    ws = await openWorkspace({
      args: ["--max-result-tokens", String(serverBudget)],
      plant: (root) => {
        fs.mkdirSync(path.join(root, path.dirname(bigPath)), { recursive: true });
        fs.writeFileSync(path.join(root, bigPath), bigLines.join("\n"));
      },
    });
  });

  after(async () => {
    await ws?.close();
  });

  test("is the budget of a call that sets none, and of every page read", async () => {
    const result = await ws.call("build_context", bigRequest());
    assert.ok(!result.isError, texts(result)[0]);
    assert.equal(result.structuredContent.max_result_tokens, serverBudget);
    assert.ok(jsonSize(result) <= jsonBytesFor(serverBudget), `the result is ${jsonSize(result)} bytes of JSON`);
    const link = links(result).find((l) => l.title?.includes(bigPath));
    assert.ok(link, "the big block is linked");

    let uri = link.uri;
    const lines = [];
    let pages = 0;
    while (uri) {
      const read = await ws.read(uri);
      const size = jsonSize(read);
      assert.ok(size <= jsonBytesFor(serverBudget), `${uri} is ${size} bytes of JSON, over ${jsonBytesFor(serverBudget)}`);
      const text = read.contents[0].text;
      lines.push(...fencedLines(text));
      pages++;
      uri = text.match(/\nNext page: (\S+)\n?$/)?.[1];
    }
    const tokens = Number(link.description?.match(/(\d+) tokens/)?.[1] ?? 0);
    if (tokens) assert.ok(pages >= Math.ceil(tokens / serverBudget), `${tokens} tokens in ${pages} pages`);
    assert.deepEqual(lines, bigLines.slice(0, -1));

    // A call's own budget overrides the server's.
    const larger = await ws.call("build_context", bigRequest({ max_result_tokens: 6000 }));
    assert.ok(!larger.isError, texts(larger)[0]);
    assert.equal(larger.structuredContent.max_result_tokens, 6000);
  });
});

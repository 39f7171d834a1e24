// ctxd's documents as VS Code's markdown preview shows them: rendered by
// markdown-it 14, the renderer of the preview (markdown-language-features),
// with the preview's default options (html on, linkify on without fuzzy
// links, typographer and breaks off).
// What the user reads is the HTML, so the checks are on the HTML: every
// table has a header row whose cells are not empty, no code element holds a
// backslash that the data does not have, the prose shows no escape
// artefact (`deny\_rule`), and line numbers read 1-based.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { IndexStatusResult } from "../src/contract.gen";
import { budgetMarkdown, bundleMarkdown, indexStatusMarkdown, manifestMarkdown, refusalMarkdown } from "../src/render";
import { ambiguousRefusal, budgetResult, fullResult } from "./fixtures";

interface MarkdownRenderer {
  render(source: string): string;
  linkify: { set(options: { fuzzyLink: boolean }): void };
}

// markdown-it ships no types; its constructor is all the test needs.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const MarkdownIt = require("markdown-it") as new (options: { html: boolean; linkify: boolean; typographer: boolean; breaks: boolean }) => MarkdownRenderer;

/** The markdown preview's renderer, configured as markdown-language-features configures it by default. */
const preview = new MarkdownIt({ html: true, linkify: true, typographer: false, breaks: false });
// The preview links only URLs with a scheme (`docs/contract.md` is no link to a .md domain).
preview.linkify.set({ fuzzyLink: false });

/** HTML text with its entities decoded, as the preview displays it. */
function decode(html: string): string {
  return html
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/&amp;/g, "&");
}

/** The texts of the elements of a tag (`code`, `th`, `td`), decoded; inner tags are dropped. */
function texts(html: string, tag: string): string[] {
  return [...html.matchAll(new RegExp(`<${tag}(?: [^>]*)?>([\\s\\S]*?)</${tag}>`, "g"))].map((m) => decode(m[1]!.replace(/<[^>]+>/g, "")));
}

/** The tables of the HTML, each as its header cells and its rows of cells. */
function tables(html: string): { head: string[]; rows: string[][] }[] {
  return [...html.matchAll(/<table>([\s\S]*?)<\/table>/g)].map((t) => {
    const body = t[1]!;
    const head = /<thead>([\s\S]*?)<\/thead>/.exec(body);
    const rows = /<tbody>([\s\S]*?)<\/tbody>/.exec(body)?.[1] ?? "";
    return {
      head: head ? texts(head[1]!, "th") : [],
      rows: [...rows.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((r) => texts(r[1]!, "td")),
    };
  });
}

/** The visible text outside code blocks and code spans, decoded. */
function prose(html: string): string {
  return decode(html.replace(/<pre>[\s\S]*?<\/pre>/g, "").replace(/<code>[\s\S]*?<\/code>/g, "").replace(/<[^>]+>/g, ""));
}

/** The checks every rendered document passes. */
function assertCleanRendering(name: string, html: string): void {
  for (const table of tables(html)) {
    assert.ok(table.head.length > 0, `${name}: a table without a header row`);
    assert.deepEqual(
      table.head.filter((h) => h.trim() === ""),
      [],
      `${name}: a table whose header has an empty cell: ${JSON.stringify(table.head)}`,
    );
    for (const row of table.rows) {
      assert.equal(row.length, table.head.length, `${name}: a row split into the wrong number of cells: ${JSON.stringify(row)}`);
    }
  }
  for (const c of texts(html.replace(/<pre>[\s\S]*?<\/pre>/g, ""), "code")) {
    assert.ok(!c.includes("\\"), `${name}: an escape shows in the code span ${JSON.stringify(c)}`);
  }
  const p = prose(html);
  assert.ok(!/\\[\\`*_[\]<>|~#-]/.test(p), `${name}: an escape artefact shows in ${JSON.stringify(/.{0,30}\\[\s\S]{0,30}/.exec(p)?.[0])}`);
}

/** An index status whose names hold every character markdown could take for syntax. */
function indexStatus(): IndexStatusResult {
  return {
    server: { name: "ctxd", version: "1.0_rc*1" },
    position_encoding: "utf-16",
    workspace_folders: [{ uri: "file:///w/my_project", name: "my_project" }],
    open_documents: [{ uri: "file:///w/my_project/cmd/main_test.go", language_id: "go", version: 2, byte_size: 10, line_count: 1, sha256: "0", saved: true, out_of_sync: false }],
    index: {
      state: "indexing",
      snapshot_version: 3,
      project_index_fingerprint: "f",
      index_format_version: 1,
      roots: [
        {
          uri: "file:///w/my_project",
          name: "_my_project_",
          state: "indexing",
          error: "reading <root>/a*b|c: permission denied",
          progress: { done: 1200, total: 3400 },
          fingerprint: "g",
          files: 6,
          bytes: 2171,
          files_by_language: { text: 3, go: 2, objective_c: 1 },
          symbols: 18,
          parse_errors: 0,
          open_files: 1,
          skipped: 4,
          skipped_by_reason: { too_large: 1, deny_rule: 2, gitignore: 1 },
          skipped_files: [
            { path: ".env", reason: "deny_rule", detail: "deny:21: .env" },
            { path: "secrets/**_key.pem", reason: "deny_rule", detail: "deny:3: **/*_key.pem" },
            { path: "a|b `x`.bin", reason: "too_large", detail: "size > 1 MiB | limit" },
            { path: "build/out_dir/", reason: "gitignore" },
          ],
        },
      ],
    },
  };
}

describe("documents as the markdown preview renders them", () => {
  it("index status: headed tables, names as code without escapes, nothing escaped in the prose", () => {
    const html = preview.render(indexStatusMarkdown(indexStatus()));
    assertCleanRendering("index status", html);
    const [counts, skipped] = tables(html);
    assert.deepEqual(counts, {
      head: ["files", "bytes", "symbols", "parse errors", "open files", "skipped"],
      rows: [["6", "2,171", "18", "0", "1", "4"]],
    });
    assert.deepEqual(skipped, {
      head: ["skipped path", "reason", "detail"],
      rows: [
        [".env", "deny_rule", "deny:21: .env"],
        ["secrets/**_key.pem", "deny_rule", "deny:3: **/*_key.pem"],
        ["a|b `x`.bin", "too_large", "size > 1 MiB | limit"],
        ["build/out_dir/", "gitignore", ""],
      ],
    });
    const codes = texts(html, "code");
    for (const name of ["deny_rule", "too_large", "objective_c", "utf-16", "indexing"]) {
      assert.ok(codes.includes(name), `${name} is a code span: ${JSON.stringify(codes)}`);
    }
    const p = prose(html);
    assert.ok(/_my_project_: +\(1,200\/3,400\)/.test(p), "the folder's name reads as it is, not in italics");
    assert.ok(p.includes("Server: ctxd 1.0_rc*1"));
    assert.ok(p.includes("Error: reading <root>/a*b|c: permission denied"));
    assert.ok(!html.includes("<em>"), "no name turns into emphasis");
  });

  it("bundle, manifest, budget and refusal details", () => {
    const r = fullResult();
    r.bundle!.blocks[4]!.meta.symbol = "snake_case_name";
    const docs: Record<string, string> = {
      bundle: bundleMarkdown(r),
      manifest: manifestMarkdown({ manifest: r.manifest, redaction_report: r.redaction_report, budget_report: r.budget_report }),
      budget: budgetMarkdown(budgetResult("warn_soft_limit", 100000), "selection", "internal/my_store/store_test.go", {
        start: { line: 0, character: 0 },
        end: { line: 9, character: 0 },
      }),
      refusal: refusalMarkdown(ambiguousRefusal()),
    };
    for (const [name, md] of Object.entries(docs)) {
      assertCleanRendering(name, preview.render(md));
    }
    const budget = preview.render(docs.budget!);
    assert.ok(prose(budget).includes("Of the selection (lines 1-9) of "), "a selection from line 0 to the start of line 9 is lines 1-9");
    assert.deepEqual(tables(budget)[0]!.head, ["budget", "tokens"]);
  });

  it("the candidates of an ambiguous target read 1-based in the rendered table; the JSON as sent keeps 0-based lines", () => {
    const refusal = ambiguousRefusal();
    const html = preview.render(refusalMarkdown(refusal));
    const [candidates] = tables(html);
    assert.deepEqual(candidates!.head, ["symbol", "kind", "file", "lines"]);
    const want = (refusal.candidates ?? []).map((c) => {
      const end = c.range.end.character === 0 && c.range.end.line > c.range.start.line ? c.range.end.line : c.range.end.line + 1;
      const start = c.range.start.line + 1;
      return start === end ? `${start}` : `${start}-${end}`;
    });
    assert.deepEqual(candidates!.rows.map((row) => row[3]), want);
    const json = /<pre><code class="language-json">([\s\S]*?)<\/code><\/pre>/.exec(html);
    assert.ok(json, "the refusal as sent is a JSON code block");
    assert.deepEqual(JSON.parse(decode(json[1]!)), refusal);
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { BlockTypes } from "../src/contract.gen";
import type { IndexStatusResult } from "../src/contract.gen";
import {
  budgetMarkdown,
  bundleMarkdown,
  candidateItems,
  code,
  compactCount,
  displayLines,
  escapeMarkdown,
  fence,
  formatCount,
  indexStatusMarkdown,
  languageOf,
  manifestMarkdown,
  promptText,
  refusalMarkdown,
  refusalNotice,
  statusBarModel,
  utf8Length,
} from "../src/render";
import { ambiguousRefusal, budgetReport, budgetResult, estimator, fullResult } from "./fixtures";

/** The estimator note as markdown shows it: an underscore inside a word (o200k_base) needs no escape. */
const estimatorMd = estimator;

/** The index status the tests render: one folder with two skipped files, one open document. */
function indexStatus(): IndexStatusResult {
  return {
    server: { name: "ctxd", version: "1.0" },
    position_encoding: "utf-16",
    workspace_folders: [{ uri: "file:///w", name: "w" }],
    open_documents: [{ uri: "file:///w/a.go", language_id: "go", version: 2, byte_size: 10, line_count: 1, sha256: "0", saved: false, out_of_sync: true }],
    index: {
      state: "ready",
      snapshot_version: 3,
      project_index_fingerprint: "f",
      index_format_version: 1,
      roots: [
        {
          uri: "file:///w",
          name: "w",
          state: "ready",
          fingerprint: "g",
          files: 6,
          bytes: 2171,
          files_by_language: { text: 3, go: 2 },
          symbols: 18,
          parse_errors: 0,
          open_files: 1,
          skipped: 2,
          skipped_by_reason: { too_large: 1, deny_rule: 1 },
          skipped_files: [
            { path: ".env", reason: "deny_rule", detail: "deny:21: .env" },
            { path: "a|b.bin", reason: "too_large" },
          ],
        },
      ],
    },
  };
}

/** The code spans of a markdown text that hold a backslash escape other than a table's `\|`. */
function escapedCodeSpans(md: string): string[] {
  const spans = [...md.replace(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1\s*$/gm, "").matchAll(/(`+)([\s\S]*?[^`])\1(?!`)/g)].map((m) => m[0]);
  return spans.filter((span) => /\\[^|]/.test(span));
}

/** The header rows of the markdown tables of a text that have an empty cell. */
function emptyHeaderCells(md: string): string[] {
  const lines = md.split("\n");
  return lines.filter((line, i) => line.startsWith("|") && /^\|(\s*:?-+:?\s*\|)+$/.test(lines[i + 1] ?? "") && line.split("|").slice(1, -1).some((c) => c.trim() === ""));
}

describe("helpers", () => {
  it("formats counts without the locale", () => {
    assert.deepEqual([0, 999, 1000, 124000, 1234567, -4000].map(formatCount), ["0", "999", "1,000", "124,000", "1,234,567", "-4,000"]);
  });
  it("fences content longer than any backtick run", () => {
    assert.equal(fence("a\n```go\nb\n", "go"), "````go\na\n```go\nb\n````");
    assert.equal(fence("x", ""), "```\nx\n```");
  });
  it("code spans survive backticks", () => {
    assert.equal(code("a`b"), "``a`b``");
    assert.equal(code("`x"), "`` `x ``");
  });
  it("languages by extension", () => {
    assert.deepEqual(["a/b.go", "go.mod", "x.TS", "README", ".env", null].map(languageOf), ["go", "go-mod", "typescript", "", "", ""]);
  });
  it("escapes markdown prose, but not an underscore inside a word", () => {
    assert.equal(escapeMarkdown("deny_rule o200k_base 日本_語 x2_y"), "deny_rule o200k_base 日本_語 x2_y");
    assert.equal(escapeMarkdown("_lead trail_ a__b __init__ a_ _b"), "\\_lead trail\\_ a\\_\\_b \\_\\_init\\_\\_ a\\_ \\_b");
    assert.equal(escapeMarkdown("a*b `c` [d](e) <f> g|h ~i \\"), "a\\*b \\`c\\` \\[d\\](e) \\<f\\> g\\|h \\~i \\\\");
  });
  it("compact counts for short labels", () => {
    assert.deepEqual(
      [0, 582, 9999, 10000, 99200, 99960, 124000, 128000, 999499, 999500, 1500000, -4000, -124000].map(compactCount),
      ["0", "582", "9,999", "10k", "99.2k", "100k", "124k", "128k", "999k", "1M", "1.5M", "-4,000", "-124k"],
    );
  });
  it("display lines: 0-based LSP ranges as 1-based editor lines", () => {
    assert.deepEqual(displayLines({ start: { line: 0, character: 0 }, end: { line: 0, character: 4 } }), { start: 1, end: 1 });
    assert.deepEqual(displayLines({ start: { line: 49, character: 0 }, end: { line: 58, character: 1 } }), { start: 50, end: 59 });
    // A range that ends at the start of a line (a whole-line selection) does not cover that line.
    assert.deepEqual(displayLines({ start: { line: 57, character: 0 }, end: { line: 59, character: 0 } }), { start: 58, end: 59 });
    assert.deepEqual(displayLines({ start: { line: 7, character: 0 }, end: { line: 7, character: 0 } }), { start: 8, end: 8 });
    assert.equal(displayLines(undefined), undefined);
    assert.equal(displayLines({ start: { line: -1, character: 0 }, end: { line: 0, character: 0 } }), undefined);
  });
  it("utf-8 length", () => {
    assert.equal(utf8Length("aé日😀"), 1 + 2 + 3 + 4);
  });
});

describe("bundleMarkdown", () => {
  const md = bundleMarkdown(fullResult());
  it("has every block type of the contract, in bundle order, with its content fenced", () => {
    const result = fullResult();
    const types = new Set(result.bundle!.blocks.map((b) => b.block_type));
    assert.deepEqual([...BlockTypes].filter((t) => !types.has(t)), [], "the fixture covers every block type");
    let last = -1;
    for (const [i, b] of result.bundle!.blocks.entries()) {
      const heading = md.indexOf(`### ${i + 1}. ${b.priority} ${b.block_type}: `);
      assert.ok(heading > last, `block ${i + 1} (${b.block_type}) is after block ${i}`);
      assert.ok(md.indexOf(b.content.trimEnd(), heading) > heading, `block ${i + 1}'s content follows its heading`);
      last = heading;
    }
  });
  it("fences a content with a fence inside with a longer fence", () => {
    assert.match(md, /````go\nfunc \(s \*Store\) List\(\) \[\]Item \{\n\treturn nil \/\/ ```go fence inside\n\}\n````/);
  });
  it("summarizes model, budget, selection, redactions and fingerprints", () => {
    for (const want of [
      "- Purpose: diff",
      "- Model: openai gpt-4o (max input 128,000, max output 16,000, reserve 4,000, soft limit 80%)",
      "- Budget: 626 of 124,000 tokens, `ok` (within the soft limit)",
      "- Target files: `internal/store/store.go`",
      "- Target symbols: `Store.List`",
      "| `internal/store/store.go` | target | 1,138 | ascii |",
      "- `.env`: deny_rule",
      "- path_excluded `.env`: deny_rule (deny:21: .env)",
      "- pattern_redacted `internal/store/store.go`: secret (rule aws-access-key-id at line 12)",
      "- bundle: `" + "3".repeat(64) + "`",
      "| estimated input | 626 |",
      "- " + estimatorMd,
    ]) {
      assert.ok(md.includes(want), `markdown contains ${JSON.stringify(want)}`);
    }
  });
  it("is deterministic", () => {
    assert.equal(bundleMarkdown(fullResult()), md);
  });
  it("copes with the generated contract's nulls", () => {
    const r = fullResult();
    assert.equal(bundleMarkdown({ bundle: null, manifest: null, redaction_report: null, budget_report: null } as unknown as typeof r).includes("(none)"), true);
  });
});

describe("other documents", () => {
  it("manifest", () => {
    const r = fullResult();
    const md = manifestMarkdown({ manifest: r.manifest, redaction_report: r.redaction_report, budget_report: r.budget_report });
    assert.ok(md.startsWith("# ctxd manifest\n"));
    assert.ok(md.includes("### Included files"));
    assert.ok(!md.includes("## Blocks"), "a manifest has no block contents");
  });
  it("budget", () => {
    const md = budgetMarkdown(budgetResult("warn_soft_limit", 100000), "selection", "internal/store/store.go");
    assert.ok(md.includes("Of the selection of `internal/store/store.go`."));
    assert.ok(md.includes("`warn_soft_limit`: over the soft limit"));
    assert.ok(md.includes("| P1 blocks | 1 |"));
  });
  it("index status: identifiers as code, a header row on every table, nothing escaped in code", () => {
    const md = indexStatusMarkdown(indexStatus());
    assert.equal(
      md,
      [
        "# ctxd index status",
        "",
        "- Server: ctxd 1.0",
        "- Position encoding: `utf-16`",
        "- Index: `ready`, snapshot 3, format 1",
        "- Project fingerprint: `f`",
        "",
        "## Folders",
        "",
        "### w: `ready`",
        "",
        "`file:///w`",
        "",
        "| files | bytes | symbols | parse errors | open files | skipped |",
        "|--:|--:|--:|--:|--:|--:|",
        "| 6 | 2,171 | 18 | 0 | 1 | 2 |",
        "",
        "- By language: `go` 2, `text` 3",
        "- Skipped by reason: `deny_rule` 1, `too_large` 1",
        "- Fingerprint: `g`",
        "",
        "| skipped path | reason | detail |",
        "|:--|:--|:--|",
        "| `.env` | `deny_rule` | deny:21: .env |",
        "| `a\\|b.bin` | `too_large` |  |",
        "",
        "## Open documents",
        "",
        "- `file:///w/a.go` v2, `go`, 1 line, unsaved, OUT OF SYNC",
        "",
      ].join("\n"),
    );
    assert.deepEqual(emptyHeaderCells(md), []);
    assert.deepEqual(escapedCodeSpans(md), []);
  });
  it("index status: ctxd's own records are one row, where the first of them was", () => {
    const status = indexStatus();
    const root = status.index.roots[0]!;
    root.skipped_files = [
      { path: ".ctxd/", reason: "deny_rule", detail: "deny:7: .ctxd" },
      { path: ".ctxd/artifacts/bundle/1.json", reason: "deny_rule", detail: "deny:3: .ctxd/" },
      { path: ".ctxd/audit.jsonl", reason: "deny_rule", detail: "deny:3: .ctxd/" },
      { path: ".ctxdignore.bak", reason: "binary" },
      { path: ".env", reason: "deny_rule", detail: "deny:21: .env" },
      { path: ".ctxd/ledger/x", reason: "deny_rule" },
      { path: "sub/.ctxd/audit.jsonl", reason: "deny_rule" },
    ];
    const md = indexStatusMarkdown(status);
    const rows = md.split("\n").filter((l) => l.startsWith("| `"));
    assert.deepEqual(rows, [
      "| `.ctxd/` | ctxd's own records | 3 paths (audit trail, artifacts, ledger) |",
      "| `.ctxdignore.bak` | `binary` |  |",
      "| `.env` | `deny_rule` | deny:21: .env |",
      "| `sub/.ctxd/audit.jsonl` | `deny_rule` |  |",
    ]);
    assert.ok(md.includes("- Skipped by reason: `deny_rule` 1, `too_large` 1"), "the counts stay the server's");
    // The folder alone, as ctxd lists a skipped folder once.
    root.skipped_files = [{ path: ".ctxd/", reason: "deny_rule", detail: "deny:7: .ctxd" }];
    assert.ok(indexStatusMarkdown(status).includes("| `.ctxd/` | ctxd's own records | audit trail, artifacts, ledger |"));
  });
  it("index status without folders or documents", () => {
    const status = indexStatus();
    status.index.roots = [];
    status.open_documents = [];
    const md = indexStatusMarkdown(status);
    assert.ok(md.includes("## Folders\n\n(none)\n\n## Open documents\n\n(none)\n"), md);
  });
  it("budget of a selection names its lines 1-based", () => {
    const selection = { start: { line: 57, character: 1 }, end: { line: 59, character: 0 } };
    const md = budgetMarkdown(budgetResult("ok", 626), "selection", "internal/store/store.go", selection);
    assert.ok(md.includes("Of the selection (lines 58-59) of `internal/store/store.go`."), md);
    const one = budgetMarkdown(budgetResult("ok", 626), "selection", "a.go", { start: { line: 0, character: 2 }, end: { line: 0, character: 9 } });
    assert.ok(one.includes("Of the selection (line 1) of `a.go`."), one);
    const file = budgetMarkdown(budgetResult("ok", 626), "file", "a.go", selection);
    assert.ok(file.includes("Of the file of `a.go`."), file);
  });
  it("no document escapes the text of a code span or has a table without a header", () => {
    const r = fullResult();
    r.bundle!.blocks[4]!.meta.symbol = "snake_case_name";
    const docs = {
      bundle: bundleMarkdown(r),
      manifest: manifestMarkdown({ manifest: r.manifest, redaction_report: r.redaction_report, budget_report: r.budget_report }),
      budget: budgetMarkdown(budgetResult("warn_soft_limit", 100000), "file", "internal/my_store/store_test.go"),
      indexStatus: indexStatusMarkdown(indexStatus()),
      refusal: refusalMarkdown(ambiguousRefusal()),
    };
    for (const [name, md] of Object.entries(docs)) {
      assert.deepEqual(escapedCodeSpans(md), [], name);
      assert.deepEqual(emptyHeaderCells(md), [], `${name}: every table has a header row`);
    }
    assert.ok(docs.bundle.includes("`snake_case_name`"));
    assert.ok(docs.budget.includes("`internal/my_store/store_test.go`"));
  });
  it("prompt text for the clipboard: system, blank line, user", () => {
    const text = promptText({
      schema: "ctxd.prompt.v1",
      template_id: "default-diff",
      template_sha256: "0",
      bundle_id: "b",
      bundle_fingerprint: "f",
      correlation_id: "c",
      purpose: "diff",
      model: { provider: "openai", model: "gpt-4o", max_input_tokens: 1, max_output_tokens: 1, response_token_reserve: 0, soft_limit_threshold_pct: 80 },
      messages: [
        { role: "system", content: "rules\n\n# Context\n" },
        { role: "user", content: "Write the unified diff." },
      ],
      token_counts: { system: 1, user: 1, total: 2, hard_limit: 10, estimator: "o200k_base" },
    });
    assert.equal(text, "rules\n\n# Context\n\nWrite the unified diff.\n");
  });
});

describe("refusals", () => {
  it("notification: code, message and advice as sentences; details are the refusal as JSON", () => {
    const refusal = {
      code: "REFUSE_UNSUPPORTED_TARGET" as const,
      message: "every target is excluded by a never-send rule",
      advice: "choose a target that is not a secret-bearing or generated path",
      redaction_report: { bundle_id: "", redactions: [{ type: "path_excluded", target: ".env", reason: "deny_rule", details: "deny:21: .env" }] },
    };
    const notice = refusalNotice(refusal);
    assert.equal(
      notice.message,
      "ctxd refused (REFUSE_UNSUPPORTED_TARGET): Every target is excluded by a never-send rule. Choose a target that is not a secret-bearing or generated path.",
    );
    assert.deepEqual(JSON.parse(notice.details), refusal);
    assert.ok(notice.details.endsWith("}\n"));
  });
  it("candidates for the quick pick, 1-based lines, in the server's order", () => {
    const items = candidateItems(ambiguousRefusal().candidates!);
    assert.deepEqual(
      items.map(({ label, description, detail }) => ({ label, description, detail })),
      [
        { label: "Store.List", description: "internal/legacy/store.go:8", detail: "method at line 8 of internal/legacy/store.go" },
        { label: "Store.List", description: "internal/store/store.go:50", detail: "method at line 50 of internal/store/store.go" },
      ],
    );
  });
  it("a candidate on the first line is line 1, not 0", () => {
    const first = { path: "a.go", symbol: "List", kind: "func", range: { start: { line: 0, character: 5 }, end: { line: 0, character: 9 } } };
    const [item] = candidateItems([first]);
    assert.equal(item!.description, "a.go:1");
    assert.equal(item!.detail, "func at line 1 of a.go");
    assert.equal(item!.candidate, first, "the answer carries the candidate as the server sent it");
  });
});

describe("refusal details document", () => {
  it("an ambiguous target: the candidates with 1-based lines, then the refusal as sent", () => {
    const refusal = ambiguousRefusal();
    const md = refusalMarkdown(refusal);
    assert.ok(md.startsWith("# ctxd refused: `REFUSE_AMBIGUOUS_TARGET`\n\nTarget symbol \"List\" has 2 definitions; ctxd does not guess which one is meant.\n"), md);
    assert.ok(md.includes("**Advice:** Choose one of the candidates and retry with it in user_selected_targets ({path, symbol}).\n"), md);
    assert.ok(
      md.includes(
        [
          "| symbol | kind | file | lines |",
          "|:--|:--|:--|--:|",
          "| `Store.List` | method | `internal/legacy/store.go` | 8 |",
          "| `Store.List` | method | `internal/store/store.go` | 50-59 |",
        ].join("\n"),
      ),
      md,
    );
    const json = /```json\n([\s\S]*)\n```\n$/.exec(md);
    assert.ok(json, "ends with the JSON");
    assert.deepEqual(JSON.parse(json[1]!), refusal, "the JSON is the refusal, 0-based ranges untouched");
    assert.deepEqual(emptyHeaderCells(md), []);
  });
  it("a refusal with a redaction report and a budget", () => {
    const md = refusalMarkdown({
      code: "REFUSE_CONTEXT_TOO_LARGE",
      message: "the bundle needs 130000 tokens",
      advice: "narrow the selection",
      budget_report: budgetReport("refuse_hard_limit", 130000),
      redaction_report: { bundle_id: "", redactions: [{ type: "path_excluded", target: ".env", reason: "deny_rule", details: "deny:21: .env" }] },
    });
    assert.ok(!md.includes("## Candidates"));
    assert.ok(md.includes("## Redactions\n\n- path_excluded `.env`: deny_rule (deny:21: .env)\n"), md);
    assert.ok(md.includes("| estimated input | 130,000 |"), md);
  });
});

describe("statusBarModel", () => {
  const cases: { name: string; model: ReturnType<typeof statusBarModel>; text: string; background: "warning" | "error" | undefined; tooltip: string[] }[] = [
    {
      name: "ok",
      model: statusBarModel({ kind: "budget", result: budgetResult("ok", 626), scope: "file" }),
      text: "$(pass) 626/124,000 tokens",
      background: undefined,
      tooltip: ["**ctxd budget** of the file: `ok`, within the soft limit", "| soft limit | 99,200 |", "| hard limit | 124,000 |", estimatorMd, "Blocks P0 4 · P1 1 · P2 2 · P3 0"],
    },
    {
      name: "warn_soft_limit",
      model: statusBarModel({ kind: "budget", result: budgetResult("warn_soft_limit", 100500), scope: "selection" }),
      text: "$(warning) 100,500/124,000 tokens",
      background: "warning",
      tooltip: ["**ctxd budget** of the selection: `warn_soft_limit`, over the soft limit"],
    },
    {
      name: "a selection names its lines 1-based (0-based lines 57 to the start of 59 are lines 58-59)",
      model: statusBarModel({
        kind: "budget",
        result: budgetResult("ok", 626),
        scope: "selection",
        lines: displayLines({ start: { line: 57, character: 1 }, end: { line: 59, character: 0 } }),
      }),
      text: "$(pass) 626/124,000 tokens",
      background: undefined,
      tooltip: ["**ctxd budget** of the selection (lines 58-59): `ok`"],
    },
    {
      name: "a refused selection on the first line is line 1",
      model: statusBarModel({
        kind: "refusal",
        refusal: ambiguousRefusal(),
        scope: "selection",
        lines: displayLines({ start: { line: 0, character: 4 }, end: { line: 0, character: 9 } }),
      }),
      text: "$(error) ctxd: REFUSE_AMBIGUOUS_TARGET",
      background: "error",
      tooltip: ["**ctxd refuses** the selection (line 1): `REFUSE_AMBIGUOUS_TARGET`"],
    },
    {
      name: "refuse_hard_limit",
      model: statusBarModel({ kind: "budget", result: budgetResult("refuse_hard_limit", 130000), scope: "file" }),
      text: "$(error) 130,000/124,000 tokens",
      background: "error",
      tooltip: ["`refuse_hard_limit`, over the hard limit: a build is refused (REFUSE_CONTEXT_TOO_LARGE)"],
    },
    {
      name: "refusal",
      model: statusBarModel({ kind: "refusal", refusal: ambiguousRefusal(), scope: "file" }),
      text: "$(error) ctxd: REFUSE_AMBIGUOUS_TARGET",
      background: "error",
      tooltip: ["**ctxd refuses** the file: `REFUSE_AMBIGUOUS_TARGET`", "*choose one of the candidates"],
    },
    {
      name: "error",
      model: statusBarModel({ kind: "error", message: "invalid build request: unknown field \"bogus\"" }),
      text: "$(error) ctxd",
      background: "error",
      tooltip: ["**ctxd budget failed**", "unknown field"],
    },
    {
      name: "stopped",
      model: statusBarModel({ kind: "stopped", message: "no ctxd binary found" }),
      text: "$(circle-slash) ctxd",
      background: "error",
      tooltip: ["**ctxd is not running**", "no ctxd binary found"],
    },
    {
      name: "starting",
      model: statusBarModel({ kind: "starting" }),
      text: "$(loading~spin) ctxd",
      background: undefined,
      tooltip: ["is starting"],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.equal(c.model.text, c.text);
      assert.equal(c.model.background, c.background);
      for (const want of c.tooltip) {
        assert.ok(c.model.tooltip.includes(want), `tooltip contains ${JSON.stringify(want)}:\n${c.model.tooltip}`);
      }
    });
  }
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { BlockTypes } from "../src/contract.gen";
import {
  budgetMarkdown,
  bundleMarkdown,
  candidateItems,
  code,
  fence,
  formatCount,
  indexStatusMarkdown,
  languageOf,
  manifestMarkdown,
  promptText,
  refusalNotice,
  statusBarModel,
  utf8Length,
} from "../src/render";
import { ambiguousRefusal, budgetResult, estimator, fullResult } from "./fixtures";

/** The estimator note as markdown shows it (underscores escaped). */
const estimatorMd = estimator.replace(/_/g, "\\_");

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
      const heading = md.indexOf(`### ${i + 1}. ${b.priority} ${b.block_type.replace(/_/g, "\\_")}: `);
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
      "- `.env`: deny\\_rule",
      "- path\\_excluded `.env`: deny\\_rule (deny:21: .env)",
      "- pattern\\_redacted `internal/store/store.go`: secret (rule aws-access-key-id at line 12)",
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
  it("index status", () => {
    const md = indexStatusMarkdown({
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
            skipped: 1,
            skipped_by_reason: { deny_rule: 1 },
            skipped_files: [{ path: ".env", reason: "deny_rule", detail: "deny:21: .env" }],
          },
        ],
      },
    });
    assert.ok(md.includes("- By language: go 2, text 3"));
    assert.ok(md.includes("- skipped `.env`: deny\\_rule (deny:21: .env)"));
    assert.ok(md.includes("unsaved, OUT OF SYNC"));
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
      name: "refuse_hard_limit",
      model: statusBarModel({ kind: "budget", result: budgetResult("refuse_hard_limit", 130000), scope: "file" }),
      text: "$(error) 130,000/124,000 tokens",
      background: "error",
      tooltip: ["`refuse_hard_limit`, over the hard limit: a build is refused (REFUSE\\_CONTEXT\\_TOO\\_LARGE)"],
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

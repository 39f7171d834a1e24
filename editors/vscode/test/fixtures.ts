// Results shaped like ctxd's (docs/schemas), with every block type, for the
// unit tests of the pure modules.

import type { Block, BudgetReport, BudgetResult, BuildResult, Refusal } from "../src/contract.gen";

const hash = (c: string) => c.repeat(64);

function block(i: number, fields: Partial<Block> & Pick<Block, "block_type" | "priority" | "title" | "content">, meta: Partial<Block["meta"]> = {}): Block {
  return {
    block_id: `00000000-0000-8000-8000-${String(i).padStart(12, "0")}`,
    ...fields,
    meta: {
      path: null,
      symbol: null,
      hash: null,
      encoding: "utf-8",
      byte_size: fields.content.length,
      line_count: fields.content.split("\n").length,
      source: "system",
      ...meta,
    },
  };
}

export const estimator = "estimator: tiktoken-go/tokenizer v0.10.0 o200k_base (BPE, exact count of the rendered blocks)";

export function budgetReport(decision: BudgetReport["decision"], estimated: number, bundleId = ""): BudgetReport {
  return {
    bundle_id: bundleId,
    estimated_input_tokens: estimated,
    max_input_tokens: 128000,
    soft_limit_tokens: 99200,
    hard_limit_tokens: 124000,
    reserve_output_tokens: 4000,
    decision,
    notes: [estimator],
  };
}

export function budgetResult(decision: BudgetReport["decision"], estimated: number): BudgetResult {
  return {
    budget_report: budgetReport(decision, estimated),
    counts: { blocks: { P0: 4, P1: 1, P2: 2, P3: 0 }, files: 4, excluded: 1, redactions: 2, target_files: 1 },
  };
}

export const bundleId = "fb62cfa8-91b1-816d-9a78-cbfde6b6e4d4";

/** A build with one block of every type, an excluded path and three kinds of redaction. */
export function fullResult(): BuildResult {
  const blocks: Block[] = [
    block(1, { block_type: "system", priority: "P0", title: "System rules (diff)", content: "You generate a unified diff." }),
    block(2, { block_type: "constraints", priority: "P0", title: "Constraints", content: "- [user] c1: MUST_NOT add dependencies" }, { source: "user" }),
    block(3, { block_type: "project_meta", priority: "P0", title: "Project metadata", content: "languages: go 2" }, { source: "index" }),
    block(4, { block_type: "error_context", priority: "P0", title: "Last error", content: "store.go:3: undefined: x" }, { source: "user" }),
    block(
      5,
      {
        block_type: "file",
        priority: "P0",
        title: "internal/store/store.go (TARGET_REGION_ONLY: lines 49-59, 60 of 60)",
        content: "func (s *Store) List() []Item {\n\treturn nil // ```go fence inside\n}\n",
      },
      { path: "internal/store/store.go", hash: hash("a"), encoding: "ascii", byte_size: 1138, line_count: 60, source: "filesystem" },
    ),
    block(6, { block_type: "diff_hint", priority: "P0", title: "Target regions", content: "- internal/store/store.go: lines 49-59 (Store.List)" }),
    block(
      7,
      { block_type: "symbol", priority: "P1", title: "method Store.Get in internal/store/store.go (lines 38-46)", content: "func (s *Store) Get(sku string) (Item, error) {}" },
      { path: "internal/store/store.go", symbol: "Store.Get", hash: hash("a"), byte_size: 1138, line_count: 60, source: "index" },
    ),
    block(
      8,
      { block_type: "file", priority: "P2", title: "web/src/api.ts (SIGNATURES_ONLY)", content: "export async function listItems(base: string): Promise<Item[]>" },
      { path: "web/src/api.ts", hash: hash("b"), byte_size: 300, line_count: 14, source: "filesystem" },
    ),
    block(
      9,
      { block_type: "file", priority: "P2", title: "go.mod", content: "module example.com/inventory\n\ngo 1.22\n" },
      { path: "go.mod", hash: hash("c"), encoding: "ascii", byte_size: 38, line_count: 4, source: "filesystem" },
    ),
    block(
      10,
      { block_type: "file", priority: "P3", title: "docs/日本語 notes.md (L3-L7)", content: "# 日本語 😀\n" },
      { path: "docs/日本語 notes.md", hash: hash("d"), byte_size: 20, line_count: 8, source: "filesystem" },
    ),
  ];
  return {
    bundle: {
      bundle_id: bundleId,
      bundle_version: 1,
      created_at: "2025-01-01T12:00:00Z",
      purpose: "diff",
      correlation_id: "77b2ea82-79b2-8043-a434-88737543ee13",
      model: { provider: "openai", model: "gpt-4o", max_input_tokens: 128000, max_output_tokens: 16000, response_token_reserve: 4000, soft_limit_threshold_pct: 80 },
      blocks,
    },
    manifest: {
      bundle_id: bundleId,
      correlation_id: "77b2ea82-79b2-8043-a434-88737543ee13",
      purpose: "diff",
      selection: {
        target_files: ["internal/store/store.go"],
        target_symbols: ["Store.List"],
        included_files: [
          { path: "go.mod", hash: hash("c"), encoding: "ascii", byte_size: 38, reason: "config" },
          { path: "internal/store/store.go", hash: hash("a"), encoding: "ascii", byte_size: 1138, reason: "target" },
        ],
        excluded_candidates: [{ path: ".env", reason: "deny_rule" }],
      },
      fingerprints: { project_index_fingerprint: hash("1"), config_fingerprint: hash("2"), bundle_fingerprint: hash("3") },
    },
    redaction_report: {
      bundle_id: bundleId,
      redactions: [
        { type: "path_excluded", target: ".env", reason: "deny_rule", details: "deny:21: .env" },
        { type: "pattern_redacted", target: "internal/store/store.go", reason: "secret", details: "rule aws-access-key-id at line 12" },
        { type: "content_sliced", target: "web/src/api.ts", reason: "budget", details: "SIGNATURES_ONLY: caller, 2 declarations of 14" },
      ],
    },
    budget_report: budgetReport("ok", 626, bundleId),
  };
}

export function ambiguousRefusal(): Refusal {
  return {
    code: "REFUSE_AMBIGUOUS_TARGET",
    message: 'target symbol "List" has 2 definitions; ctxd does not guess which one is meant',
    advice: "choose one of the candidates and retry with it in user_selected_targets ({path, symbol})",
    candidates: [
      { path: "internal/legacy/store.go", symbol: "Store.List", kind: "method", range: { start: { line: 7, character: 0 }, end: { line: 7, character: 50 } } },
      { path: "internal/store/store.go", symbol: "Store.List", kind: "method", range: { start: { line: 49, character: 0 }, end: { line: 58, character: 1 } } },
    ],
  };
}

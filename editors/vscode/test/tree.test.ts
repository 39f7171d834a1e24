import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { resultTree, ruleIdOf, slicingLevel, titleLineRanges, treeText, type TreeNode } from "../src/tree";
import type { BudgetReport } from "../src/contract.gen";
import { formatCount } from "../src/render";
import { budgetReport, bundleId, fullResult } from "./fixtures";

describe("titles", () => {
  const cases: { title: string; level: string | undefined; ranges: { start: number; end: number }[] }[] = [
    { title: "internal/store/store.go", level: undefined, ranges: [] },
    { title: "internal/store/store.go (TARGET_REGION_ONLY: lines 49-59, 60 of 60)", level: "TARGET_REGION_ONLY", ranges: [{ start: 49, end: 59 }, { start: 60, end: 60 }] },
    { title: "a.go (TARGET_REGION_ONLY: line 4 of 9)", level: "TARGET_REGION_ONLY", ranges: [{ start: 4, end: 4 }] },
    { title: "web/src/api.ts (SIGNATURES_ONLY)", level: "SIGNATURES_ONLY", ranges: [] },
    { title: "method Store.Get in internal/store/store.go (lines 38-46)", level: undefined, ranges: [{ start: 38, end: 46 }] },
    { title: "method Store.Get in store.go (lines 38-40, 44-46) (SIGNATURES_ONLY)", level: "SIGNATURES_ONLY", ranges: [{ start: 38, end: 40 }, { start: 44, end: 46 }] },
    { title: "docs/notes.md (L3-L7)", level: undefined, ranges: [{ start: 3, end: 7 }] },
    { title: "x.go L9-L2 and L12", level: undefined, ranges: [{ start: 2, end: 9 }, { start: 12, end: 12 }] },
    { title: "odd (lines 1-2) dir/file (lines 5-6)", level: undefined, ranges: [{ start: 5, end: 6 }] },
    { title: "System rules (diff)", level: undefined, ranges: [] },
  ];
  for (const c of cases) {
    it(c.title, () => {
      assert.equal(slicingLevel(c.title), c.level);
      assert.deepEqual(titleLineRanges(c.title), c.ranges);
    });
  }
});

describe("ruleIdOf", () => {
  const cases: [string | undefined, string | undefined][] = [
    ["rule aws-access-key-id at line 12", "aws-access-key-id"],
    ["rule generic-api-key, joined by removing hidden characters", "generic-api-key"],
    ["deny:21: .env", "deny:21"],
    ["sub/.gitignore:3: build/", "sub/.gitignore:3"],
    ["deny: **/*.env", "deny"],
    ["SIGNATURES_ONLY: caller, 2 declarations of 14", undefined],
    ["", undefined],
    [undefined, undefined],
  ];
  for (const [details, want] of cases) {
    it(JSON.stringify(details) ?? "undefined", () => assert.equal(ruleIdOf(details), want));
  }
});

function find(nodes: TreeNode[], label: string): TreeNode {
  for (const n of nodes) {
    if (n.label === label) return n;
    const inner = n.children.length > 0 ? findOrUndefined(n.children, label) : undefined;
    if (inner) return inner;
  }
  throw new Error(`no node ${label}`);
}

function findOrUndefined(nodes: TreeNode[], label: string): TreeNode | undefined {
  try {
    return find(nodes, label);
  } catch {
    return undefined;
  }
}

describe("resultTree", () => {
  const nodes = resultTree(fullResult());
  it("groups blocks by priority in P0..P3 order, then Excluded and Redactions", () => {
    assert.deepEqual(
      nodes.map((n) => [n.label, n.description]),
      [
        ["626/124k tokens", "ok"],
        ["P0", "6 blocks"],
        ["P1", "1 block"],
        ["P2", "2 blocks"],
        ["P3", "1 block"],
        ["Excluded", "1 path"],
        ["Redactions", "3 redactions"],
      ],
    );
    assert.deepEqual(
      nodes[1]!.children.map((n) => n.label),
      ["system: System rules (diff)", "constraints: Constraints", "project_meta: Project metadata", "error_context: Last error", "file internal/store/store.go", "diff_hint: Target regions"],
    );
  });
  it("the header is short: tokens as the label, the decision as the description, the rest in the tooltip", () => {
    const summary = nodes[0]!;
    assert.equal(summary.kind, "summary");
    assert.equal(summary.icon, "pass");
    assert.equal(
      summary.tooltip,
      [
        `diff bundle ${bundleId}`,
        "626 of 124,000 tokens (soft limit 99,200, max input 128,000)",
        "ok: within the soft limit",
        "Click to open the rendered bundle.",
      ].join("\n"),
    );
  });
  it("the header fits the sidebar's default width for every decision", () => {
    // About 40 characters of label and description fit beside the icon at
    // the default width (the report: "582/124,000 tok…" was cut after 37).
    const cases: [BudgetReport["decision"], number, number, string, string, string][] = [
      ["ok", 582, 124000, "582/124k tokens", "ok", "pass"],
      ["warn_soft_limit", 100500, 124000, "101k/124k tokens", "warn_soft_limit", "warning"],
      ["refuse_hard_limit", 1234567, 1000000, "1.2M/1M tokens", "refuse_hard_limit", "error"],
      ["ok", 9999, 12000, "9,999/12k tokens", "ok", "pass"],
    ];
    for (const [decision, estimated, hard, label, description, icon] of cases) {
      const r = fullResult();
      r.budget_report = { ...budgetReport(decision, estimated, bundleId), hard_limit_tokens: hard };
      const summary = resultTree(r)[0]!;
      assert.deepEqual([summary.label, summary.description, summary.icon], [label, description, icon]);
      assert.ok(`${summary.label}  ${summary.description}`.length <= 36, `${summary.label}  ${summary.description}`);
      assert.ok(summary.tooltip!.includes(`${formatCount(estimated)} of ${formatCount(hard)} tokens`));
    }
  });
  it("the header without a budget report: the purpose and the short bundle id", () => {
    const r = fullResult();
    r.budget_report = null;
    const summary = resultTree(r)[0]!;
    assert.deepEqual([summary.label, summary.description, summary.icon], ["diff bundle", "fb62cfa8", "package"]);
  });
  it("block descriptions: slicing level, lines, bytes sent", () => {
    assert.equal(find(nodes, "file internal/store/store.go").description, "TARGET_REGION_ONLY · L49-L59, L60 · 68 bytes");
    assert.equal(find(nodes, "file web/src/api.ts").description, "SIGNATURES_ONLY · 62 bytes");
    assert.equal(find(nodes, "file go.mod").description, "38 bytes");
    assert.equal(find(nodes, "symbol Store.Get in internal/store/store.go").description, "L38-L46 · 48 bytes");
  });
  it("click targets: path and the title's line ranges", () => {
    assert.deepEqual(find(nodes, "file internal/store/store.go").open, { path: "internal/store/store.go", ranges: [{ start: 49, end: 59 }, { start: 60, end: 60 }] });
    assert.deepEqual(find(nodes, "symbol Store.Get in internal/store/store.go").open, { path: "internal/store/store.go", ranges: [{ start: 38, end: 46 }] });
    assert.deepEqual(find(nodes, "file go.mod").open, { path: "go.mod", ranges: [] });
    assert.deepEqual(find(nodes, "file docs/日本語 notes.md").open, { path: "docs/日本語 notes.md", ranges: [{ start: 3, end: 7 }] });
    assert.equal(find(nodes, "system: System rules (diff)").open, undefined, "a block without a path opens nothing");
  });
  it("excluded: path: reason", () => {
    assert.deepEqual(find(nodes, "Excluded").children.map((n) => n.label), [".env: deny_rule"]);
  });
  it("redactions: type, target, reason and rule id", () => {
    assert.deepEqual(
      find(nodes, "Redactions").children.map((n) => [n.label, n.description]),
      [
        ["path_excluded .env", "deny_rule · deny:21"],
        ["pattern_redacted internal/store/store.go", "secret · aws-access-key-id"],
        ["content_sliced web/src/api.ts", "budget"],
      ],
    );
  });
  it("empty groups say (none)", () => {
    const r = fullResult();
    r.manifest!.selection.excluded_candidates = [];
    r.redaction_report!.redactions = [];
    const empty = resultTree(r);
    assert.deepEqual(find(empty, "Excluded").children.map((n) => n.label), ["(none)"]);
    assert.deepEqual(find(empty, "Redactions").children.map((n) => n.label), ["(none)"]);
  });
  it("ids are unique", () => {
    const ids: string[] = [];
    const walk = (ns: TreeNode[]) => ns.forEach((n) => (ids.push(n.id), walk(n.children)));
    walk(nodes);
    assert.equal(new Set(ids).size, ids.length);
  });
  it("renders as indented text", () => {
    const text = treeText(nodes);
    assert.ok(text.includes("▾ P0  —  6 blocks\n"));
    assert.ok(text.includes("      file internal/store/store.go  —  TARGET_REGION_ONLY · L49-L59, L60 · 68 bytes  -> internal/store/store.go:49-59\n"));
  });
});

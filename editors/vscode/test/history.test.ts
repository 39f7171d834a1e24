import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { bundleTarget, recentBundleItems, RecentBundlesSize, rememberBundle, type RecentBundle } from "../src/history";
import { refusalTree, treeText } from "../src/tree";
import { ambiguousRefusal, fullResult } from "./fixtures";

function entry(id: string, intent?: string): RecentBundle {
  const result = fullResult();
  result.bundle!.bundle_id = id;
  const e: RecentBundle = { result, folder: "file:///w", target: bundleTarget(result, "a.go") };
  if (intent !== undefined) e.intent = intent;
  return e;
}

describe("recent bundles", () => {
  it("newest first, one entry per bundle id, at most RecentBundlesSize", () => {
    let h: RecentBundle[] = [];
    for (let i = 0; i < RecentBundlesSize + 3; i++) {
      h = rememberBundle(h, entry(`id-${i}`));
    }
    assert.equal(h.length, RecentBundlesSize);
    assert.equal(h[0]!.result.bundle!.bundle_id, `id-${RecentBundlesSize + 2}`);
    h = rememberBundle(h, entry("id-5", "again"));
    assert.equal(h.length, RecentBundlesSize);
    assert.deepEqual(h.filter((e) => e.result.bundle!.bundle_id === "id-5").map((e) => e.intent), ["again"]);
  });
  it("entries: the server's targets, the intent, purpose, tokens and time", () => {
    const items = recentBundleItems([entry("fb62cfa8-91b1", "sort by name"), entry("0123456789")]);
    assert.deepEqual(items[0], {
      label: "symbol Store.List",
      description: "intent: sort by name",
      detail: `diff bundle fb62cfa8 · 626/124k tokens · ${fullResult().bundle!.created_at}`,
      index: 0,
    });
    assert.equal(items[1]!.description, "no intent");
  });
  it("the target: symbols, else files, else the editor's file", () => {
    const r = fullResult();
    assert.equal(bundleTarget(r, "x.go"), "symbol Store.List");
    r.manifest!.selection.target_symbols = [];
    assert.equal(bundleTarget(r, "x.go"), "internal/store/store.go");
    r.manifest!.selection.target_files = [];
    assert.equal(bundleTarget(r, "x.go"), "x.go");
  });
});

describe("refusalTree", () => {
  it("the refusal in place of the bundle, with its message and advice, and the earlier bundles", () => {
    const r = ambiguousRefusal();
    assert.equal(
      treeText(refusalTree(r, 2)),
      [
        "▾ Refused: REFUSE_AMBIGUOUS_TARGET  —  the latest build",
        `      ${r.message}`,
        `      ${r.advice}`,
        "  Earlier bundles  —  2 to reopen",
        "",
      ].join("\n"),
    );
    assert.deepEqual(refusalTree(r, 0).map((n) => n.kind), ["refusal"], "no history row without one");
  });
});

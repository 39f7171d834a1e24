// The recent bundles of the window, which ctxd: Open Recent Bundle… offers
// again: each build's result with what it was asked for (the target and
// the intent). Pure (no `vscode` import): the entries keep the folder as a
// string, and the quick pick's items are plain data.

import type { BuildResult } from "./contract.gen";
import { compactCount } from "./render";

/** How many bundles the history keeps. */
export const RecentBundlesSize = 10;

/** One built bundle, as the history keeps it. */
export interface RecentBundle {
  result: BuildResult;
  /** The workspace folder the result's paths are relative to (a URI string); undefined outside any folder. */
  folder: string | undefined;
  /** What the build was for, in a few words (bundleTarget). */
  target: string;
  /** The intent the user gave, if any. */
  intent?: string;
}

/**
 * What a build was for, as the server's manifest says: its target symbols,
 * else its target files, else `fallback` (the editor's file).
 */
export function bundleTarget(result: BuildResult, fallback: string): string {
  const sel = result.manifest?.selection;
  const symbols = sel?.target_symbols ?? [];
  if (symbols.length > 0) {
    return `${symbols.length === 1 ? "symbol" : "symbols"} ${symbols.join(", ")}`;
  }
  const files = sel?.target_files ?? [];
  return files.length > 0 ? files.join(", ") : fallback;
}

/** The history after a build: it first, an earlier entry of the same bundle id dropped, at most RecentBundlesSize. */
export function rememberBundle(history: readonly RecentBundle[], entry: RecentBundle): RecentBundle[] {
  const id = entry.result.bundle?.bundle_id;
  const rest = id === undefined ? history : history.filter((h) => h.result.bundle?.bundle_id !== id);
  return [entry, ...rest].slice(0, RecentBundlesSize);
}

/** One quick pick entry of the history. */
export interface RecentBundleItem {
  label: string;
  description: string;
  detail: string;
  index: number;
}

/**
 * The quick pick entries of the history, newest first: the target, then
 * the intent (or "no intent"), then the purpose, tokens and bundle id as
 * the server gave them.
 */
export function recentBundleItems(history: readonly RecentBundle[]): RecentBundleItem[] {
  return history.map((h, index) => {
    const bundle = h.result.bundle;
    const report = h.result.budget_report;
    const tokens = report ? `${compactCount(report.estimated_input_tokens)}/${compactCount(report.hard_limit_tokens)} tokens` : "";
    const detail = [bundle ? `${bundle.purpose} bundle ${bundle.bundle_id.slice(0, 8)}` : "bundle", tokens, bundle?.created_at ?? ""].filter((p) => p !== "").join(" · ");
    return {
      label: h.target,
      description: h.intent ? `intent: ${h.intent}` : "no intent",
      detail,
      index,
    };
  });
}

// The results view's model: the last build's blocks grouped by priority,
// the excluded candidates and the redactions, as plain nodes. Pure (no
// `vscode` import); treeView.ts turns nodes into TreeItems.

import { Priorities } from "./contract.gen";
import type { Block, BuildResult, Excluded, Redaction, Refusal } from "./contract.gen";
import { compactCount, decisionText, formatCount, utf8Length } from "./render";

/** Lines L<start> to L<end> of a file, 1-based and inclusive. */
export interface LineRange {
  start: number;
  end: number;
}

/** What clicking a node opens: a workspace-relative path, at its first range when it has one. */
export interface OpenTarget {
  path: string;
  ranges: LineRange[];
}

/** What a node is, for its icon and context menu. */
export type NodeKind = "summary" | "group" | "block" | "excluded" | "redaction" | "empty" | "refusal" | "history";

/** One row of the results view. */
export interface TreeNode {
  /** Unique in the tree and stable for the same result, so VS Code keeps expansion state. */
  id: string;
  kind: NodeKind;
  label: string;
  description?: string;
  tooltip?: string;
  /** A codicon name. */
  icon?: string;
  children: TreeNode[];
  /** Set on nodes that open a file when clicked. */
  open?: OpenTarget;
}

/** The slicing levels ctxd names in block titles. */
const slicingLevels = ["TARGET_REGION_ONLY", "SIGNATURES_ONLY"] as const;

/** The slicing level a block title names (TARGET_REGION_ONLY, SIGNATURES_ONLY), if any. */
export function slicingLevel(title: string): string | undefined {
  for (const level of slicingLevels) {
    if (title.includes(`(${level}`)) {
      return level;
    }
  }
  return undefined;
}

/**
 * The line ranges a block title names, 1-based and inclusive:
 * `L<a>-L<b>` anywhere, or the "(line N)" / "(lines A-B, C)" lists ctxd
 * writes in region and symbol titles (`store.go (TARGET_REGION_ONLY: lines
 * 49-59, 60 of 60)`, `method Store.List in store.go (lines 49-59)`). Empty
 * when the title names none. Only the last parenthesised list is read, so
 * a path that contains parentheses cannot be mistaken for one.
 */
export function titleLineRanges(title: string): LineRange[] {
  const explicit = [...title.matchAll(/\bL(\d+)(?:-L(\d+))?\b/g)];
  if (explicit.length > 0) {
    return explicit.map((m) => ordered(Number(m[1]), Number(m[2] ?? m[1])));
  }
  const lists = [...title.matchAll(/\((?:TARGET_REGION_ONLY: )?lines? (\d+(?:-\d+)?(?:, \d+(?:-\d+)?)*)(?: of \d+)?\)/g)];
  const last = lists[lists.length - 1];
  if (last === undefined) {
    return [];
  }
  return last[1]!.split(", ").map((part) => {
    const [a, b] = part.split("-");
    return ordered(Number(a), Number(b ?? a));
  });
}

function ordered(a: number, b: number): LineRange {
  return a <= b ? { start: a, end: b } : { start: b, end: a };
}

/**
 * The rule a redaction's details name: "rule <id> …" (secret patterns),
 * "<source>:<line>: <pattern>" (deny and ignore rules, e.g. "deny:21" or
 * "sub/.gitignore:3"), or undefined when the details name no rule.
 */
export function ruleIdOf(details: string | undefined): string | undefined {
  if (!details) {
    return undefined;
  }
  const rule = /^rule ([^\s,]+)/.exec(details);
  if (rule) {
    return rule[1];
  }
  const source = /^([^\s:]+:\d+): /.exec(details);
  if (source) {
    return source[1];
  }
  const bare = /^([a-z]+): /.exec(details);
  return bare && bare[1] === "deny" ? "deny" : undefined;
}

/** A block's label: its type and where it comes from. */
function blockLabel(block: Block): string {
  const path = block.meta?.path;
  if (block.block_type === "symbol" && path && block.meta.symbol) {
    return `symbol ${block.meta.symbol} in ${path}`;
  }
  return path ? `${block.block_type} ${path}` : `${block.block_type}: ${block.title}`;
}

/** A block's description: slicing level, what the title says of its lines, and its size. */
function blockDescription(block: Block): string {
  const parts: string[] = [];
  const level = slicingLevel(block.title);
  if (level) {
    parts.push(level);
  }
  const ranges = block.meta?.path && block.title !== block.meta.path ? titleLineRanges(block.title) : [];
  if (ranges.length > 0) {
    parts.push("L" + ranges.map((r) => (r.start === r.end ? `${r.start}` : `${r.start}-L${r.end}`)).join(", L"));
  }
  parts.push(`${formatCount(utf8Length(block.content))} bytes`);
  return parts.join(" · ");
}

function blockTooltip(block: Block): string {
  const m = block.meta;
  const lines = [block.title, `${block.priority} ${block.block_type} · block ${block.block_id}`];
  if (m) {
    if (m.path) {
      lines.push(`file ${m.path}: ${formatCount(m.byte_size)} bytes, ${formatCount(m.line_count)} lines, ${m.encoding}`);
    }
    if (m.hash) {
      lines.push(`sha256 ${m.hash}`);
    }
    lines.push(`source ${m.source}`);
  }
  return lines.join("\n");
}

function blockNode(block: Block, index: number): TreeNode {
  const node: TreeNode = {
    id: `block:${index}:${block.block_id}`,
    kind: "block",
    label: blockLabel(block),
    description: blockDescription(block),
    tooltip: blockTooltip(block),
    icon: blockIcon(block.block_type),
    children: [],
  };
  const path = block.meta?.path;
  if (path) {
    node.open = { path, ranges: block.title === path ? [] : titleLineRanges(block.title) };
  }
  return node;
}

function blockIcon(type: string): string {
  switch (type) {
    case "file":
      return "file-code";
    case "symbol":
      return "symbol-method";
    case "system":
      return "gear";
    case "constraints":
      return "law";
    case "project_meta":
      return "info";
    case "diff_hint":
      return "diff";
    case "error_context":
      return "error";
    default:
      return "symbol-misc";
  }
}

function excludedNode(e: Excluded, index: number): TreeNode {
  return { id: `excluded:${index}:${e.path}`, kind: "excluded", label: `${e.path}: ${e.reason}`, icon: "circle-slash", children: [] };
}

function redactionNode(r: Redaction, index: number): TreeNode {
  const rule = ruleIdOf(r.details);
  return {
    id: `redaction:${index}:${r.target}`,
    kind: "redaction",
    label: `${r.type} ${r.target}`,
    description: rule ? `${r.reason} · ${rule}` : r.reason,
    tooltip: [`${r.type} ${r.target}`, `reason: ${r.reason}`, rule ? `rule: ${rule}` : "", r.details ? `details: ${r.details}` : ""]
      .filter((l) => l !== "")
      .join("\n"),
    icon: "shield",
    children: [],
  };
}

function group(id: string, label: string, children: TreeNode[], unit: string): TreeNode {
  const node: TreeNode = {
    id,
    kind: "group",
    label,
    description: `${formatCount(children.length)} ${unit}${children.length === 1 ? "" : "s"}`,
    children,
  };
  if (children.length === 0) {
    node.children = [{ id: `${id}:none`, kind: "empty", label: "(none)", children: [] }];
  }
  return node;
}

/** The icon of a budget decision, as the status bar shows it. */
function decisionIcon(decision: string): string {
  switch (decision) {
    case "ok":
      return "pass";
    case "warn_soft_limit":
      return "warning";
    default:
      return "error";
  }
}

/**
 * The results view's first row. Its label is only the tokens
 * ("582/124k tokens") and its description only the decision, so that both
 * fit at the sidebar's default width; the exact counts, the limits, the
 * purpose and the bundle id are in the tooltip. Clicking it opens the
 * rendered bundle.
 */
function summaryNode(result: BuildResult): TreeNode {
  const bundle = result.bundle;
  const budget = result.budget_report;
  const about = bundle ? `${bundle.purpose} bundle ${bundle.bundle_id}` : "ctxd bundle";
  if (!budget) {
    return {
      id: "summary",
      kind: "summary",
      label: bundle ? `${bundle.purpose} bundle` : "bundle",
      description: bundle?.bundle_id.slice(0, 8) ?? "",
      tooltip: `${about}\nClick to open the rendered bundle.`,
      icon: "package",
      children: [],
    };
  }
  return {
    id: "summary",
    kind: "summary",
    label: `${compactCount(budget.estimated_input_tokens)}/${compactCount(budget.hard_limit_tokens)} tokens`,
    description: budget.decision,
    tooltip: [
      about,
      `${formatCount(budget.estimated_input_tokens)} of ${formatCount(budget.hard_limit_tokens)} tokens (soft limit ${formatCount(budget.soft_limit_tokens)}, max input ${formatCount(budget.max_input_tokens)})`,
      `${budget.decision}: ${decisionText(budget.decision)}`,
      "Click to open the rendered bundle.",
    ].join("\n"),
    icon: decisionIcon(budget.decision),
    children: [],
  };
}

/**
 * The results view of a build: a summary node, one group per priority that
 * has blocks (in P0…P3 order, blocks in bundle order), then "Excluded"
 * (path: reason) and "Redactions" (type, target, reason, rule), which are
 * shown even when empty so that "none" is visible.
 */
export function resultTree(result: BuildResult): TreeNode[] {
  const nodes: TreeNode[] = [];
  const bundle = result.bundle;
  const budget = result.budget_report;
  if (bundle || budget) {
    nodes.push(summaryNode(result));
  }
  const blocks = bundle?.blocks ?? [];
  const known = new Set<string>(Priorities);
  const priorities: string[] = [...Priorities, ...[...new Set(blocks.map((b) => b.priority))].filter((p) => !known.has(p)).sort()];
  for (const p of priorities) {
    const children = blocks.map((b, i) => ({ b, i })).filter(({ b }) => b.priority === p).map(({ b, i }) => blockNode(b, i));
    if (children.length > 0) {
      nodes.push(group(`priority:${p}`, p, children, "block"));
    }
  }
  const excluded = result.manifest?.selection?.excluded_candidates ?? [];
  nodes.push(group("excluded", "Excluded", excluded.map(excludedNode), "path"));
  const redactions = result.redaction_report?.redactions ?? [];
  nodes.push(group("redactions", "Redactions", redactions.map(redactionNode), "redaction"));
  return nodes;
}

/**
 * The tree as indented text, as the view shows it (label, then the
 * description after "  —  "), for tests and captures.
 */
export function treeText(nodes: readonly TreeNode[], indent = ""): string {
  let out = "";
  for (const n of nodes) {
    const open = n.open ? `  -> ${n.open.path}${n.open.ranges.length > 0 ? `:${n.open.ranges[0]!.start}-${n.open.ranges[0]!.end}` : ""}` : "";
    out += `${indent}${n.children.length > 0 ? "▾ " : "  "}${n.label}${n.description ? `  —  ${n.description}` : ""}${open}\n`;
    out += treeText(n.children, indent + "    ");
  }
  return out;
}

/**
 * The results view after a refused build: the refusal replaces the previous
 * bundle, so that the view never shows an older result as if it were the
 * latest. Its first row names the code and opens the refusal's details;
 * its children are the message and the advice. `earlier` is how many
 * recent bundles can be reopened (ctxd: Open Recent Bundle…); a row says so
 * when there is one.
 */
export function refusalTree(refusal: Refusal, earlier: number): TreeNode[] {
  const text = (t: string) => t.replace(/\s+/g, " ").trim();
  const children: TreeNode[] = [];
  if (text(refusal.message) !== "") {
    children.push({ id: "refusal:message", kind: "empty", label: text(refusal.message), tooltip: refusal.message, icon: "info", children: [] });
  }
  if (text(refusal.advice) !== "") {
    children.push({ id: "refusal:advice", kind: "empty", label: text(refusal.advice), tooltip: refusal.advice, icon: "lightbulb", children: [] });
  }
  const nodes: TreeNode[] = [
    {
      id: "refusal",
      kind: "refusal",
      label: `Refused: ${refusal.code}`,
      description: "the latest build",
      tooltip: [`The latest build was refused: ${refusal.code}`, refusal.message, refusal.advice, "Click to show the refusal's details."]
        .filter((l) => l.trim() !== "")
        .join("\n"),
      icon: "error",
      children,
    },
  ];
  if (earlier > 0) {
    nodes.push({
      id: "history",
      kind: "history",
      label: "Earlier bundles",
      description: `${formatCount(earlier)} to reopen`,
      tooltip: "ctxd: Open Recent Bundle… reopens one of the recent bundles of this window.",
      icon: "history",
      children: [],
    });
  }
  return nodes;
}

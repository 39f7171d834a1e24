// Text the extension shows, computed from ctxd's results: the rendered
// bundle (markdown), the manifest, budget and index status documents, the
// refusal notification and the status bar model. Pure: no `vscode` import,
// no clock, no locale, so the same result always renders the same text.

import type {
  Block,
  BudgetReport,
  BudgetResult,
  BuildResult,
  Candidate,
  IndexStatusResult,
  Manifest,
  ManifestResult,
  Prompt,
  RedactionReport,
  Refusal,
} from "./contract.gen";
import { RefusalExplanations } from "./refusals.gen";

/** Formats a count with "," every three digits, independent of the locale. */
export function formatCount(n: number): string {
  if (!Number.isFinite(n)) {
    return String(n);
  }
  const sign = n < 0 ? "-" : "";
  const digits = String(Math.abs(Math.trunc(n)));
  return sign + digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/**
 * Escapes text for markdown prose (not code): the characters that start
 * emphasis, code, links, HTML or table cells. An underscore between two
 * letters or digits (`deny_rule`, `o200k_base`) cannot start or end
 * emphasis in CommonMark, so it stays as it is and the raw text reads as
 * it renders. Escaped text never starts a line, so block markers (#, -, 1.)
 * need no escaping. Never apply it to the text of a code span: use code().
 */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_[\]<>|~]/g, (c, i: number, all: string) =>
    c === "_" && isWordChar(all[i - 1]) && isWordChar(all[i + 1]) ? c : "\\" + c,
  );
}

function isWordChar(c: string | undefined): boolean {
  return c !== undefined && /[\p{L}\p{N}]/u.test(c);
}

/**
 * A count in at most four digits and a unit, for labels that must stay
 * short: 582, 9,999, 99.2k, 124k, 1.5M. Exact below 10,000; the exact
 * count belongs in the tooltip.
 */
export function compactCount(n: number): string {
  if (!Number.isFinite(n) || Math.abs(n) < 10000) {
    return formatCount(n);
  }
  const sign = n < 0 ? "-" : "";
  let value = Math.abs(n);
  for (const unit of ["k", "M", "G"]) {
    value /= 1000;
    const text = value < 99.95 ? (Math.round(value * 10) / 10).toFixed(1).replace(/\.0$/, "") : String(Math.round(value));
    if (Number(text) < 1000 || unit === "G") {
      return sign + text + unit;
    }
  }
  return formatCount(n);
}

/** A count and a noun, plural unless the count is 1 ("1 file", "2 files"). */
export function plural(n: number, noun: string): string {
  return `${formatCount(n)} ${noun}${n === 1 ? "" : "s"}`;
}

/** Escapes text for one cell of a markdown table. */
function cell(text: string): string {
  return escapeMarkdown(text).replace(/\r?\n|\r/g, " ");
}

/**
 * A code span in a cell of a markdown table: a "|" splits a GFM table cell
 * even inside a code span unless it is escaped (the table, not the span,
 * removes the backslash).
 */
function codeCell(text: string): string {
  return code(text).replace(/\|/g, "\\|");
}

/** An inline code span holding any text, backticks included. */
export function code(text: string): string {
  const flat = text.replace(/\r?\n|\r/g, " ");
  let longest = 0;
  for (const run of flat.match(/`+/g) ?? []) {
    longest = Math.max(longest, run.length);
  }
  const ticks = "`".repeat(longest + 1);
  const pad = flat.startsWith("`") || flat.endsWith("`") || flat === "" ? " " : "";
  return ticks + pad + flat + pad + ticks;
}

/** A fenced code block whose fence is longer than any backtick run of the content. */
export function fence(content: string, language = ""): string {
  let longest = 2;
  for (const run of content.match(/`{3,}/g) ?? []) {
    longest = Math.max(longest, run.length);
  }
  const ticks = "`".repeat(longest + 1);
  const body = content.endsWith("\n") ? content : content + "\n";
  return `${ticks}${language}\n${body}${ticks}`;
}

/** Markdown fence languages by file extension. Unknown extensions get none. */
const languages: Record<string, string> = {
  c: "c", cc: "cpp", cpp: "cpp", cs: "csharp", css: "css", go: "go", h: "c", hpp: "cpp", html: "html",
  java: "java", js: "javascript", json: "json", jsx: "jsx", kt: "kotlin", lua: "lua", md: "markdown",
  mjs: "javascript", php: "php", py: "python", rb: "ruby", rs: "rust", sh: "sh", sql: "sql",
  swift: "swift", toml: "toml", ts: "typescript", tsx: "tsx", yaml: "yaml", yml: "yaml",
};

/** The fence language of a path, or "" when unknown. */
export function languageOf(path: string | null | undefined): string {
  if (!path) {
    return "";
  }
  const base = path.slice(path.lastIndexOf("/") + 1);
  if (base === "go.mod") {
    return "go-mod";
  }
  const dot = base.lastIndexOf(".");
  return dot > 0 ? (languages[base.slice(dot + 1).toLowerCase()] ?? "") : "";
}

/** UTF-8 size of a string, without Buffer (the module stays platform-neutral). */
export function utf8Length(text: string): number {
  let n = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    n += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  }
  return n;
}

/** What a budget decision means, in words. */
export function decisionText(decision: string): string {
  switch (decision) {
    case "ok":
      return "within the soft limit";
    case "warn_soft_limit":
      return "over the soft limit: it builds, but consider narrowing the selection";
    case "refuse_hard_limit":
      return "over the hard limit: a build is refused (REFUSE_CONTEXT_TOO_LARGE)";
    default:
      return decision;
  }
}

/** The estimator notes of a report ("estimator: …"), then any other notes. */
function notesOf(report: BudgetReport): string[] {
  const notes = report.notes ?? [];
  return [...notes.filter((n) => n.startsWith("estimator:")), ...notes.filter((n) => !n.startsWith("estimator:"))];
}

/** A budget report as a markdown table with its notes. */
export function budgetTable(report: BudgetReport): string {
  const lines = [
    "| budget | tokens |",
    "|:--|--:|",
    `| estimated input | ${formatCount(report.estimated_input_tokens)} |`,
    `| soft limit | ${formatCount(report.soft_limit_tokens)} |`,
    `| hard limit | ${formatCount(report.hard_limit_tokens)} |`,
    `| max input | ${formatCount(report.max_input_tokens)} |`,
    `| reserved for output | ${formatCount(report.reserve_output_tokens)} |`,
  ];
  const notes = notesOf(report);
  if (notes.length > 0) {
    lines.push("", ...notes.map((n) => `- ${escapeMarkdown(n)}`));
  }
  return lines.join("\n");
}

/** Where the status bar's tokens come from. */
export type StatusScope = "file" | "selection";

/** The status bar item as plain data; statusBar.ts applies it. */
export interface StatusBarModel {
  /** Text with codicons (`$(name)`). */
  text: string;
  /** Background theme colour: warning or error; undefined for none. */
  background?: "warning" | "error";
  /** A markdown tooltip. */
  tooltip: string;
}

/**
 * What the status bar shows. `lines` are the selection's lines, 1-based
 * (displayLines of the editor's 0-based selection), when the scope is the
 * selection.
 */
export type StatusInput =
  | { kind: "budget"; result: BudgetResult; scope: StatusScope; lines?: DisplayLines }
  | { kind: "refusal"; refusal: Refusal; scope: StatusScope; lines?: DisplayLines }
  | { kind: "error"; message: string }
  | { kind: "starting" }
  | { kind: "stopped"; message: string };

const clickHint = "Click to show the budget (ctxd: Show Budget).";

/** "the file", "the selection" or "the selection (lines 58-59)". */
function scopeText(scope: StatusScope, lines: DisplayLines | undefined): string {
  return scope === "selection" && lines !== undefined ? `the selection (${linesText(lines)})` : `the ${scope}`;
}

/** The status bar item for a budget, a refusal, an error or the server's state. */
export function statusBarModel(input: StatusInput): StatusBarModel {
  switch (input.kind) {
    case "budget": {
      const report = input.result.budget_report;
      if (!report) {
        return { text: "$(error) ctxd", background: "error", tooltip: "**ctxd budget**: the server sent no budget report.\n\n" + clickHint };
      }
      const icon = report.decision === "ok" ? "$(pass)" : report.decision === "warn_soft_limit" ? "$(warning)" : "$(error)";
      const background = report.decision === "warn_soft_limit" ? "warning" : report.decision === "refuse_hard_limit" ? "error" : undefined;
      const counts = input.result.counts;
      const blocks = ["P0", "P1", "P2", "P3"].map((p) => `${p} ${formatCount(counts?.blocks?.[p] ?? 0)}`).join(" · ");
      const tooltip = [
        `**ctxd budget** of ${scopeText(input.scope, input.lines)}: \`${report.decision}\`, ${escapeMarkdown(decisionText(report.decision))}`,
        "",
        budgetTable(report),
        "",
        counts
          ? `Blocks ${blocks}; ${plural(counts.files, "file")}, ${plural(counts.target_files, "target")}, ${formatCount(counts.excluded)} excluded, ${plural(counts.redactions, "redaction")}.`
          : "",
        "",
        clickHint,
      ];
      const model: StatusBarModel = {
        text: `${icon} ${formatCount(report.estimated_input_tokens)}/${formatCount(report.hard_limit_tokens)} tokens`,
        tooltip: tooltip.filter((l, i, all) => !(l === "" && all[i - 1] === "")).join("\n"),
      };
      if (background) {
        model.background = background;
      }
      return model;
    }
    case "refusal": {
      const r = input.refusal;
      const lines = [
        `**ctxd refuses** ${scopeText(input.scope, input.lines)}: \`${r.code}\``,
        "",
        escapeMarkdown(r.message),
        "",
        `*${escapeMarkdown(r.advice)}*`,
      ];
      if (r.budget_report) {
        lines.push("", budgetTable(r.budget_report));
      }
      lines.push("", clickHint);
      return { text: `$(error) ctxd: ${r.code}`, background: "error", tooltip: lines.join("\n") };
    }
    case "error":
      return {
        text: "$(error) ctxd",
        background: "error",
        tooltip: `**ctxd budget failed**\n\n${escapeMarkdown(input.message)}\n\n${clickHint}`,
      };
    case "starting":
      return { text: "$(loading~spin) ctxd", tooltip: "**ctxd** is starting and indexing the workspace." };
    case "stopped":
      return {
        text: "$(circle-slash) ctxd",
        background: "error",
        tooltip: `**ctxd is not running**\n\n${escapeMarkdown(input.message)}\n\nClick to show the output.`,
      };
  }
}

/** The text of a refusal's notification and the details document. */
export interface RefusalNotice {
  /** message + advice, for `showErrorMessage`. */
  message: string;
  /** The refusal as indented JSON, as the server sent it (refusalMarkdown ends with it). */
  details: string;
}

function sentence(text: string): string {
  const t = text.trim();
  if (t === "") {
    return "";
  }
  const first = t.charAt(0).toUpperCase() + t.slice(1);
  return /[.!?:]$/.test(first) ? first : first + ".";
}

/** The notification of a refusal: "ctxd refused (CODE): message. Advice." */
export function refusalNotice(refusal: Refusal): RefusalNotice {
  const parts = [sentence(refusal.message), sentence(refusal.advice)].filter((p) => p !== "");
  return {
    message: `ctxd refused (${refusal.code}): ${parts.join(" ")}`,
    details: JSON.stringify(refusal, null, 2) + "\n",
  };
}

/** A position of a server result or an editor: an LSP position, 0-based. */
interface LinePosition {
  line: number;
  character: number;
}

/** A range's lines as people count them, 1-based and inclusive: the first and the last line it covers. */
export interface DisplayLines {
  start: number;
  end: number;
}

/**
 * The lines of an LSP range (0-based lines) as an editor numbers them
 * (1-based): a range that ends at the start of a line does not cover that
 * line, unless it is empty. Undefined without a valid range.
 */
export function displayLines(range: { start: LinePosition; end: LinePosition } | null | undefined): DisplayLines | undefined {
  const start = range?.start?.line;
  const end = range?.end?.line;
  if (typeof start !== "number" || !Number.isInteger(start) || start < 0) {
    return undefined;
  }
  let last = typeof end === "number" && Number.isInteger(end) && end >= start ? end : start;
  if (last > start && range!.end.character === 0) {
    last--;
  }
  return { start: start + 1, end: last + 1 };
}

/** "line 8" or "lines 50-59". */
export function linesText(lines: DisplayLines): string {
  return lines.start === lines.end ? `line ${lines.start}` : `lines ${lines.start}-${lines.end}`;
}

/** One entry of the ambiguous-target quick pick. */
export interface CandidateItem {
  label: string;
  description: string;
  detail: string;
  candidate: Candidate;
}

/**
 * The quick pick entries of a REFUSE_AMBIGUOUS_TARGET's candidates, in the
 * server's order. The server's ranges are 0-based (LSP); the entries show
 * the 1-based line an editor shows, `path:line` as VS Code writes it.
 */
export function candidateItems(candidates: readonly Candidate[]): CandidateItem[] {
  return candidates.map((c) => {
    const lines = displayLines(c.range);
    return {
      label: c.symbol || c.path,
      description: lines ? `${c.path}:${lines.start}` : c.path,
      detail: lines ? `${c.kind} at line ${lines.start} of ${c.path}` : `${c.kind} in ${c.path}`,
      candidate: c,
    };
  });
}

/**
 * A refusal as a markdown document, for its *Show details* action: the
 * message and advice, the candidates of an ambiguous target with 1-based
 * lines, the redactions and the budget, then the refusal as the server sent
 * it (JSON, whose ranges stay 0-based LSP ranges).
 */
export function refusalMarkdown(refusal: Refusal): string {
  const out = [`# ctxd refused: ${code(refusal.code)}`, ""];
  const message = sentence(refusal.message);
  if (message !== "") {
    out.push(escapeMarkdown(message), "");
  }
  const advice = sentence(refusal.advice);
  if (advice !== "") {
    out.push(`**Advice:** ${escapeMarkdown(advice)}`, "");
  }
  const candidates = refusal.candidates ?? [];
  if (candidates.length > 0) {
    out.push("## Candidates", "", "| symbol | kind | file | lines |", "|:--|:--|:--|--:|");
    for (const c of candidates) {
      const lines = displayLines(c.range);
      const where = lines ? (lines.start === lines.end ? `${lines.start}` : `${lines.start}-${lines.end}`) : "";
      out.push(`| ${c.symbol ? codeCell(c.symbol) : ""} | ${cell(c.kind)} | ${codeCell(c.path)} | ${where} |`);
    }
    out.push("");
  }
  if ((refusal.redaction_report?.redactions ?? []).length > 0) {
    out.push(...redactionsMarkdown(refusal.redaction_report), "");
  }
  if (refusal.budget_report) {
    out.push("## Budget", "", budgetTable(refusal.budget_report), "");
  }
  // The long explanation, generated from the table `ctxd explain CODE` prints.
  const explanation = Object.hasOwn(RefusalExplanations, refusal.code) ? RefusalExplanations[refusal.code] : undefined;
  if (explanation) {
    out.push(`## About ${code(refusal.code)}`, "", ...explanation.paragraphs.flatMap((p) => [escapeMarkdown(p), ""]));
  }
  out.push(
    "## As sent",
    "",
    "The refusal as the server sent it; its ranges are LSP ranges (0-based lines).",
    "",
    fence(JSON.stringify(refusal, null, 2), "json"),
  );
  return out.join("\n") + "\n";
}

/** The selection part of a manifest (targets, included, excluded). */
function selectionMarkdown(manifest: Manifest): string[] {
  const sel = manifest.selection;
  const list = (items: readonly string[]) => (items.length > 0 ? items.map(code).join(", ") : "(none)");
  const out = [
    "## Selection",
    "",
    `- Target files: ${list(sel?.target_files ?? [])}`,
    `- Target symbols: ${list(sel?.target_symbols ?? [])}`,
    "",
    "### Included files",
    "",
  ];
  const included = sel?.included_files ?? [];
  if (included.length === 0) {
    out.push("(none)");
  } else {
    out.push("| path | reason | bytes | encoding |", "|:--|:--|--:|:--|");
    for (const f of included) {
      out.push(`| ${code(f.path)} | ${cell(f.reason)} | ${formatCount(f.byte_size)} | ${cell(f.encoding)} |`);
    }
  }
  out.push("", "### Excluded", "");
  const excluded = sel?.excluded_candidates ?? [];
  if (excluded.length === 0) {
    out.push("(none)");
  } else {
    for (const e of excluded) {
      out.push(`- ${code(e.path)}: ${escapeMarkdown(e.reason)}`);
    }
  }
  return out;
}

/** The redaction report as a markdown list. */
function redactionsMarkdown(report: RedactionReport | null | undefined): string[] {
  const out = ["## Redactions", ""];
  const items = report?.redactions ?? [];
  if (items.length === 0) {
    out.push("(none)");
    return out;
  }
  for (const r of items) {
    const details = r.details ? ` (${escapeMarkdown(r.details)})` : "";
    out.push(`- ${escapeMarkdown(r.type)} ${code(r.target)}: ${escapeMarkdown(r.reason)}${details}`);
  }
  return out;
}

function fingerprintsMarkdown(manifest: Manifest): string[] {
  const f = manifest.fingerprints;
  if (!f) {
    return [];
  }
  return [
    "## Fingerprints",
    "",
    `- bundle: ${code(f.bundle_fingerprint)}`,
    `- project index: ${code(f.project_index_fingerprint)}`,
    `- config: ${code(f.config_fingerprint)}`,
  ];
}

/** A block's heading: its position, priority, type and title. */
function blockHeading(block: Block, index: number): string {
  return `### ${index + 1}. ${escapeMarkdown(block.priority)} ${escapeMarkdown(block.block_type)}: ${escapeMarkdown(block.title)}`;
}

/**
 * A built bundle as one markdown document: summary, every block with its
 * content fenced, then the manifest's selection, redactions and
 * fingerprints. This is also what Copy Prompt copies when the server has
 * no ctxd.renderPrompt.
 */
export function bundleMarkdown(result: BuildResult): string {
  const bundle = result.bundle;
  const out: string[] = ["# ctxd context bundle", ""];
  if (bundle) {
    const m = bundle.model;
    out.push(
      `- Purpose: ${escapeMarkdown(bundle.purpose)}`,
      `- Bundle: ${code(bundle.bundle_id)} (version ${bundle.bundle_version})`,
      `- Correlation: ${code(bundle.correlation_id)}`,
      `- Created: ${escapeMarkdown(bundle.created_at)}`,
    );
    if (m) {
      out.push(
        `- Model: ${escapeMarkdown(m.provider)} ${escapeMarkdown(m.model)} (max input ${formatCount(m.max_input_tokens)}, max output ${formatCount(m.max_output_tokens)}, reserve ${formatCount(m.response_token_reserve)}, soft limit ${m.soft_limit_threshold_pct}%)`,
      );
    }
  }
  if (result.budget_report) {
    const b = result.budget_report;
    out.push(
      `- Budget: ${formatCount(b.estimated_input_tokens)} of ${formatCount(b.hard_limit_tokens)} tokens, \`${b.decision}\` (${escapeMarkdown(decisionText(b.decision))})`,
    );
  }
  out.push("", "## Blocks", "");
  const blocks = bundle?.blocks ?? [];
  if (blocks.length === 0) {
    out.push("(none)", "");
  }
  blocks.forEach((block, i) => {
    out.push(blockHeading(block, i), "");
    const meta = block.meta;
    if (meta?.path) {
      const sym = meta.symbol ? `, symbol ${code(meta.symbol)}` : "";
      out.push(`${code(meta.path)}${sym}, ${formatCount(meta.line_count)} lines, ${meta.encoding}, source ${meta.source}`, "");
    }
    out.push(fence(block.content, languageOf(meta?.path)), "");
  });
  if (result.manifest) {
    out.push(...selectionMarkdown(result.manifest), "");
  }
  out.push(...redactionsMarkdown(result.redaction_report), "");
  if (result.budget_report) {
    out.push("## Budget", "", budgetTable(result.budget_report), "");
  }
  if (result.manifest) {
    out.push(...fingerprintsMarkdown(result.manifest), "");
  }
  return out.join("\n").replace(/\n+$/, "\n");
}

/** A manifest preview (ctxd.manifest) as markdown. */
export function manifestMarkdown(result: ManifestResult): string {
  const out: string[] = ["# ctxd manifest", ""];
  const m = result.manifest;
  if (m) {
    out.push(
      `- Purpose: ${escapeMarkdown(m.purpose)}`,
      `- Bundle: ${code(m.bundle_id)}`,
      `- Correlation: ${code(m.correlation_id)}`,
      "",
      ...selectionMarkdown(m),
      "",
    );
  }
  out.push(...redactionsMarkdown(result.redaction_report), "");
  if (result.budget_report) {
    out.push("## Budget", "", `\`${result.budget_report.decision}\`: ${escapeMarkdown(decisionText(result.budget_report.decision))}`, "", budgetTable(result.budget_report), "");
  }
  if (m) {
    out.push(...fingerprintsMarkdown(m), "");
  }
  return out.join("\n").replace(/\n+$/, "\n");
}

/**
 * A budget result (ctxd.budget) as markdown. `selection` is the editor's
 * selection (0-based, as VS Code and LSP give it) when the scope is the
 * selection; the document names its lines 1-based.
 */
export function budgetMarkdown(result: BudgetResult, scope: StatusScope, file: string, selection?: { start: LinePosition; end: LinePosition }): string {
  const lines = scope === "selection" ? displayLines(selection) : undefined;
  const what = lines ? `the selection (${linesText(lines)})` : `the ${scope}`;
  const out = ["# ctxd budget", "", `Of ${what} of ${code(file)}.`, ""];
  const r = result.budget_report;
  if (r) {
    out.push(`\`${r.decision}\`: ${escapeMarkdown(decisionText(r.decision))}`, "", budgetTable(r), "");
  }
  const c = result.counts;
  if (c) {
    out.push(
      "## Counts",
      "",
      "| counted | count |",
      "|:--|--:|",
      ...["P0", "P1", "P2", "P3"].map((p) => `| ${p} blocks | ${formatCount(c.blocks?.[p] ?? 0)} |`),
      `| files | ${formatCount(c.files)} |`,
      `| target files | ${formatCount(c.target_files)} |`,
      `| excluded | ${formatCount(c.excluded)} |`,
      `| redactions | ${formatCount(c.redactions)} |`,
      "",
    );
  }
  return out.join("\n").replace(/\n+$/, "\n");
}

/** "go 2, text 3": the counts of a map by sorted key, each key as code; "(none)" when empty. */
function countsList(counts: Record<string, number> | null | undefined): string {
  const keys = Object.keys(counts ?? {}).sort();
  return keys.length > 0 ? keys.map((k) => `${code(k)} ${formatCount(counts![k]!)}`).join(", ") : "(none)";
}

/** The records folder ctxd keeps in each workspace folder. */
const RecordsDir = ".ctxd";

/** Marks where the one row of ctxd's records goes while the table is written. */
const RecordsRowPlaceholder = "\u0000ctxd-records\u0000";

/** Whether a folder-relative path is in ctxd's records folder (`.ctxd/…`), which the index always skips. */
export function isRecordsPath(path: string): boolean {
  return path === RecordsDir || path.startsWith(RecordsDir + "/");
}

/**
 * The index status (ctxd.indexStatus) as markdown. The skipped files of
 * ctxd's own records folder (`.ctxd/audit.jsonl`, artifacts, the ledger)
 * are one row, not one per record: they grow with every build and are
 * never context. No file contents are in
 * it. Names the server defines (states, reasons, encodings, language ids)
 * are code spans, so they read the same raw and rendered; every table has a
 * header row.
 */
export function indexStatusMarkdown(status: IndexStatusResult): string {
  const out = [
    "# ctxd index status",
    "",
    `- Server: ${escapeMarkdown(`${status.server?.name ?? ""} ${status.server?.version ?? ""}`.trim())}`,
    `- Position encoding: ${code(status.position_encoding)}`,
  ];
  const index = status.index;
  if (index) {
    out.push(
      `- Index: ${code(index.state)}, snapshot ${index.snapshot_version}, format ${index.index_format_version}`,
      `- Project fingerprint: ${code(index.project_index_fingerprint)}`,
    );
  }
  out.push("", "## Folders", "");
  const roots = index?.roots ?? [];
  if (roots.length === 0) {
    out.push("(none)", "");
  }
  for (const root of roots) {
    const progress = root.progress ? ` (${formatCount(root.progress.done)}/${formatCount(root.progress.total)})` : "";
    out.push(`### ${escapeMarkdown(root.name)}: ${code(root.state)}${progress}`, "", code(root.uri), "");
    if (root.error) {
      out.push(`Error: ${escapeMarkdown(root.error)}`, "");
    }
    out.push(
      "| files | bytes | symbols | parse errors | open files | skipped |",
      "|--:|--:|--:|--:|--:|--:|",
      `| ${[root.files, root.bytes, root.symbols, root.parse_errors, root.open_files, root.skipped].map(formatCount).join(" | ")} |`,
      "",
      `- By language: ${countsList(root.files_by_language)}`,
      `- Skipped by reason: ${countsList(root.skipped_by_reason)}`,
      `- Fingerprint: ${code(root.fingerprint)}`,
      "",
    );
    const skipped = root.skipped_files ?? [];
    if (skipped.length > 0) {
      out.push("| skipped path | reason | detail |", "|:--|:--|:--|");
      let records = 0;
      let inside = 0;
      for (const f of skipped) {
        if (isRecordsPath(f.path)) {
          // One row for all of them, where the first one was: they are ctxd's own, not the user's files.
          if (records++ === 0) {
            out.push(RecordsRowPlaceholder);
          }
          if (f.path.replace(/\/$/, "") !== RecordsDir) {
            inside++;
          }
          continue;
        }
        out.push(`| ${codeCell(f.path)} | ${codeCell(f.reason)} | ${f.detail ? cell(f.detail) : ""} |`);
      }
      const at = out.indexOf(RecordsRowPlaceholder);
      if (at >= 0) {
        // The folder itself says no more; the files in it are counted.
        const detail = inside > 0 ? `${plural(inside, "path")} (audit trail, artifacts, ledger)` : "audit trail, artifacts, ledger";
        out[at] = `| ${code(RecordsDir + "/")} | ctxd's own records | ${detail} |`;
      }
      out.push("");
    }
  }
  out.push("## Open documents", "");
  const docs = status.open_documents ?? [];
  if (docs.length === 0) {
    out.push("(none)");
  }
  for (const d of docs) {
    const flags = [d.saved ? "saved" : "unsaved", d.out_of_sync ? "OUT OF SYNC" : ""].filter((f) => f !== "").join(", ");
    out.push(`- ${code(d.uri)} v${d.version}, ${code(d.language_id)}, ${plural(d.line_count, "line")}, ${flags}`);
  }
  return out.join("\n").replace(/\n*$/, "\n");
}

/**
 * A rendered prompt as text for the clipboard: the system message (rules
 * and context) and the user message (the task), separated by a blank line,
 * ready to paste into a chat.
 */
export function promptText(prompt: Prompt): string {
  return (prompt.messages ?? []).map((m) => m.content.replace(/\s+$/, "")).join("\n\n") + "\n";
}

// The quick pick of Build Context for Symbol…: the server's workspace/symbol
// answer as entries, and the name a chosen entry sends. Pure (no `vscode`
// import), so that the unit tests check the entries of a recorded answer.

import type { Candidate, Refusal } from "./contract.gen";
import { displayLines } from "./render";

/** An LSP SymbolInformation, as ctxd's workspace/symbol answers it (handlers/workspace_symbol.go). */
export interface WorkspaceSymbol {
  name: string;
  kind: number;
  containerName?: string;
  location: { uri: string; range: { start: { line: number; character: number }; end: { line: number; character: number } } };
}

/** LSP SymbolKind names, by their number (1-based). */
const kindNames = [
  "file", "module", "namespace", "package", "class", "method", "property", "field", "constructor", "enum",
  "interface", "function", "variable", "constant", "string", "number", "boolean", "array", "object", "key",
  "null", "enum member", "struct", "event", "operator", "type parameter",
];

/** The name of an LSP SymbolKind ("method"), or "symbol" for a number LSP does not define. */
export function symbolKindName(kind: number): string {
  return kindNames[kind - 1] ?? "symbol";
}

/** The name a symbol is built by: its qualified name (`Store.List`), the form ctxd resolves in the whole workspace. */
export function qualifiedName(s: Pick<WorkspaceSymbol, "name" | "containerName">): string {
  return s.containerName ? `${s.containerName}.${s.name}` : s.name;
}

/** One entry of the symbol quick pick. */
export interface SymbolItem {
  label: string;
  description: string;
  /** Shown whatever the filter says (the entry of the typed text). */
  alwaysShow?: boolean;
  /** The name to build for. */
  name: string;
  /** The folder-relative path of the definition the entry is, when it is one. */
  path?: string;
}

/**
 * The entries of an answer, in the server's order (exact names first, then
 * prefixes; see index.Snapshot.FindSymbols), each described by its kind
 * and `path:line`, the line 1-based as the editor numbers it. `relative` turns a URI into the path
 * shown (undefined: outside the workspace; the entry is left out, ctxd
 * cannot build it). When `typed` is not blank, an entry to build for the
 * typed text as it is comes last: a name the index does not have still
 * gets ctxd's own answer (a refusal that says why).
 */
export function symbolItems(symbols: readonly WorkspaceSymbol[], relative: (uri: string) => string | undefined, typed: string): SymbolItem[] {
  const items: SymbolItem[] = [];
  for (const s of symbols) {
    const path = relative(s.location.uri);
    if (path === undefined) {
      continue;
    }
    const lines = displayLines(s.location.range);
    items.push({
      label: qualifiedName(s),
      description: `${symbolKindName(s.kind)} · ${lines ? `${path}:${lines.start}` : path}`,
      name: qualifiedName(s),
      path,
    });
  }
  const text = typed.trim();
  if (text !== "" && !items.some((i) => i.name === text)) {
    items.push({ label: text, description: "build for this name as typed", alwaysShow: true, name: text });
  }
  return items;
}

/**
 * The candidate of an ambiguous name that the user already chose in the
 * symbol pick (the definition at `path`), so that the build is not asked
 * about twice; undefined when the refusal is another one or no candidate
 * is at that path.
 */
export function chosenCandidate(refusal: Refusal, path: string | undefined, answered: number): Candidate | undefined {
  if (path === undefined || answered > 0 || refusal.code !== "REFUSE_AMBIGUOUS_TARGET") {
    return undefined;
  }
  const matching = (refusal.candidates ?? []).filter((c) => c.path === path);
  return matching.length === 1 ? matching[0] : undefined;
}

// Where the extension opens what it shows, from the editor groups as plain
// data. Pure (no `vscode` import); documents.ts and commands.ts read
// `window.tabGroups` into GroupState and map the choice to a ViewColumn.
//
// The rule: ctxd's documents (scheme "ctxd": bundle, manifest, budget,
// index status, refusal details) share one editor group. The first opens
// beside the active editor, or in the active group when that group is
// empty (no editor open: a group beside it would leave it empty on the
// left); every later one goes to the group that already shows a ctxd
// document, so running Open Bundle, Show Budget and Show Index Status one
// after the other leaves two groups, not four. A workspace file
// opened from the results view goes to a group that is not showing a ctxd
// document, so that it does not cover the bundle.

/** A tab of an editor group: the URI scheme of what it shows, when it shows a resource. */
export interface TabState {
  scheme: string | undefined;
  isActive: boolean;
}

/** An editor group: its column (1-based, as ViewColumn numbers them) and its tabs. */
export interface GroupState {
  viewColumn: number;
  isActive: boolean;
  tabs: TabState[];
}

/** Where to open: a group's column, beside the active group, or the active group. */
export type ColumnChoice = number | "beside" | "active";

/**
 * The URI scheme of a tab's input, when it shows a resource: a text editor
 * or a custom editor (`uri`, e.g. the markdown preview of a ctxd document),
 * a diff (`modified`) or a notebook (`uri`). Undefined for webviews,
 * terminals and the like. Duck-typed, so it needs no `vscode` classes.
 */
export function tabScheme(input: unknown): string | undefined {
  if (typeof input !== "object" || input === null) {
    return undefined;
  }
  const i = input as { uri?: unknown; modified?: unknown };
  for (const candidate of [i.uri, i.modified]) {
    if (typeof candidate === "object" && candidate !== null) {
      const scheme = (candidate as { scheme?: unknown }).scheme;
      if (typeof scheme === "string") {
        return scheme;
      }
    }
  }
  return undefined;
}

/** Whether a group's visible (active) tab shows a document of the scheme. */
function showing(group: GroupState, scheme: string): boolean {
  return group.tabs.some((t) => t.isActive && t.scheme === scheme);
}

/** Whether a group has a tab, visible or not, of the scheme. */
function holding(group: GroupState, scheme: string): boolean {
  return group.tabs.some((t) => t.scheme === scheme);
}

/**
 * The group for a ctxd document: the one that shows a ctxd document (the
 * active group when it is one of several, else the rightmost), else one
 * that holds a ctxd tab in the background, else beside the active group,
 * which opens the ctxd group the first time. An empty active group (a
 * window with no editor open) is used as it is: VS Code would add a group
 * beside it and leave it empty.
 */
export function documentColumn(groups: readonly GroupState[], scheme: string): ColumnChoice {
  for (const has of [showing, holding]) {
    const ours = groups.filter((g) => has(g, scheme));
    if (ours.length > 0) {
      const active = ours.find((g) => g.isActive);
      return (active ?? ours.reduce((a, b) => (b.viewColumn > a.viewColumn ? b : a))).viewColumn;
    }
  }
  const active = groups.find((g) => g.isActive);
  return active === undefined || active.tabs.length > 0 ? "beside" : "active";
}

/**
 * The group for a workspace file opened from the results view: the active
 * group unless it shows a ctxd document, else the leftmost group that does
 * not, else (every group shows one) beside the active group.
 */
export function sourceColumn(groups: readonly GroupState[], scheme: string): ColumnChoice {
  const active = groups.find((g) => g.isActive);
  if (active === undefined || !showing(active, scheme)) {
    return "active";
  }
  const others = groups.filter((g) => !showing(g, scheme)).sort((a, b) => a.viewColumn - b.viewColumn);
  return others[0]?.viewColumn ?? "beside";
}

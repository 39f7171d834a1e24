// Where ctxd's documents and the files opened from the results view go:
// one editor group for ctxd's documents, and files beside it, never on it.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { documentColumn, sourceColumn, tabScheme, type GroupState, type TabState } from "../src/layout";

const ctxd = "ctxd";

/** A tab showing a document of a scheme; the first tab of a group is its active one unless one says "*". */
function tab(scheme: string | undefined, active = false): TabState {
  return { scheme, isActive: active };
}

function group(viewColumn: number, isActive: boolean, ...tabs: TabState[]): GroupState {
  return { viewColumn, isActive, tabs };
}

describe("tabScheme", () => {
  it("reads the scheme of text, custom, diff and notebook tabs, and nothing else", () => {
    assert.equal(tabScheme({ uri: { scheme: "ctxd", path: "/bundle.md" } }), "ctxd");
    assert.equal(tabScheme({ uri: { scheme: "ctxd", path: "/index-status.md" }, viewType: "vscode.markdown.preview.editor" }), "ctxd");
    assert.equal(tabScheme({ original: { scheme: "git" }, modified: { scheme: "file" } }), "file");
    assert.equal(tabScheme({ viewType: "mainThreadWebview-markdown.preview" }), undefined);
    assert.equal(tabScheme(undefined), undefined);
    assert.equal(tabScheme({ uri: "ctxd:/x" }), undefined);
  });
});

describe("documentColumn", () => {
  it("the first ctxd document opens beside the active editor", () => {
    assert.equal(documentColumn([], ctxd), "beside");
    assert.equal(documentColumn([group(1, true, tab("file", true))], ctxd), "beside");
    assert.equal(documentColumn([group(1, false, tab("file", true)), group(2, true, tab("git", true))], ctxd), "beside");
  });
  it("with no editor open, in the empty active group rather than beside it", () => {
    assert.equal(documentColumn([group(1, true)], ctxd), "active");
    assert.equal(documentColumn([group(1, false, tab("file", true)), group(2, true)], ctxd), "active", "an empty group the user left open is filled");
    assert.equal(documentColumn([group(1, true), group(2, false, tab("file", true), tab(ctxd))], ctxd), 2, "a group that holds a ctxd tab comes first");
  });
  it("later ones go to the group that shows a ctxd document, wherever the focus is", () => {
    const groups = [group(1, true, tab("file", true)), group(2, false, tab(ctxd, true))];
    assert.equal(documentColumn(groups, ctxd), 2);
    groups[0]!.isActive = false;
    groups[1]!.isActive = true;
    assert.equal(documentColumn(groups, ctxd), 2);
  });
  it("Bundle, then Index Status, then Budget: two groups, not four", () => {
    // Replays the report: each document opens where documentColumn says,
    // beside meaning the group right of the active one (a new one at the edge).
    const groups: GroupState[] = [group(1, true, tab("file", true))];
    for (let i = 0; i < 3; i++) {
      const choice = documentColumn(groups, ctxd);
      const active = groups.find((g) => g.isActive)!;
      const column = choice === "beside" ? active.viewColumn + 1 : choice === "active" ? active.viewColumn : choice;
      let target = groups.find((g) => g.viewColumn === column);
      if (target === undefined) {
        target = group(column, false);
        groups.push(target);
      }
      target.tabs.forEach((t) => (t.isActive = false));
      target.tabs.push(tab(ctxd, true));
      groups.forEach((g) => (g.isActive = g === target));
    }
    assert.equal(groups.length, 2);
    assert.equal(groups[1]!.tabs.length, 3);
  });
  it("prefers a visible ctxd document to one in the background, and the active group among several", () => {
    const background = [group(1, true, tab("file", true), tab(ctxd)), group(2, false, tab("file", true))];
    assert.equal(documentColumn(background, ctxd), 1);
    const both = [group(1, false, tab(ctxd, true)), group(2, false, tab("file", true), tab(ctxd)), group(3, true, tab(ctxd, true))];
    assert.equal(documentColumn(both, ctxd), 3);
    both[2]!.isActive = false;
    both[1]!.isActive = true;
    assert.equal(documentColumn(both, ctxd), 3, "the rightmost visible one when the active group does not show one");
  });
});

describe("sourceColumn", () => {
  it("the active group when it is not ctxd's", () => {
    assert.equal(sourceColumn([], ctxd), "active");
    assert.equal(sourceColumn([group(1, true, tab("file", true)), group(2, false, tab(ctxd, true))], ctxd), "active");
  });
  it("not over a ctxd document: the leftmost other group", () => {
    const groups = [group(1, false, tab("file", true)), group(2, true, tab(ctxd, true)), group(3, false, tab("file", true))];
    assert.equal(sourceColumn(groups, ctxd), 1);
  });
  it("beside it when every group shows a ctxd document", () => {
    assert.equal(sourceColumn([group(1, true, tab(ctxd, true))], ctxd), "beside");
  });
  it("a group that only holds a ctxd tab in the background is a fine place", () => {
    assert.equal(sourceColumn([group(1, true, tab("file", true), tab(ctxd))], ctxd), "active");
  });
});

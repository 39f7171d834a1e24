import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { chosenCandidate, qualifiedName, symbolItems, symbolKindName, type WorkspaceSymbol } from "../src/symbols";
import { ambiguousRefusal } from "./fixtures";

const range = (line: number) => ({ start: { line, character: 0 }, end: { line: line + 3, character: 1 } });
const sym = (name: string, kind: number, uri: string, line: number, containerName?: string): WorkspaceSymbol =>
  containerName ? { name, kind, containerName, location: { uri, range: range(line) } } : { name, kind, location: { uri, range: range(line) } };
const root = "file:///w/";
const relative = (uri: string) => (uri.startsWith(root) ? uri.slice(root.length) : undefined);

describe("symbolItems", () => {
  // As ctxd answers workspace/symbol for "List": exact names first, then the names that contain it.
  const answer = [
    sym("List", 6, `${root}internal/legacy/store.go`, 6, "Store"),
    sym("List", 6, `${root}internal/store/store.go`, 49, "Store"),
    sym("listItems", 12, `${root}web/src/api.ts`, 11),
    sym("List", 12, "file:///elsewhere/x.go", 1),
  ];
  it("the server's order, qualified names, kind and path:line 1-based; outside the workspace left out; the typed text last", () => {
    assert.deepEqual(symbolItems(answer, relative, " List "), [
      { label: "Store.List", description: "method · internal/legacy/store.go:7", name: "Store.List", path: "internal/legacy/store.go" },
      { label: "Store.List", description: "method · internal/store/store.go:50", name: "Store.List", path: "internal/store/store.go" },
      { label: "listItems", description: "function · web/src/api.ts:12", name: "listItems", path: "web/src/api.ts" },
      { label: "List", description: "build for this name as typed", alwaysShow: true, name: "List" },
    ]);
  });
  it("no typed entry when blank or when an entry has that name", () => {
    assert.equal(symbolItems(answer, relative, "  ").at(-1)!.label, "listItems");
    assert.equal(symbolItems(answer, relative, "Store.List").filter((i) => i.label === "Store.List").length, 2);
  });
  it("an empty answer still offers the typed text", () => {
    assert.deepEqual(symbolItems([], relative, "NoSuchThing").map((i) => i.name), ["NoSuchThing"]);
  });
  it("names and kinds", () => {
    assert.equal(qualifiedName({ name: "Get" }), "Get");
    assert.equal(qualifiedName({ name: "Get", containerName: "a.B" }), "a.B.Get");
    assert.equal(symbolKindName(23), "struct");
    assert.equal(symbolKindName(99), "symbol");
  });
});

describe("chosenCandidate", () => {
  it("the candidate at the chosen definition's path, on the first answer only", () => {
    const r = ambiguousRefusal();
    assert.equal(chosenCandidate(r, "internal/store/store.go", 0)?.path, "internal/store/store.go");
    assert.equal(chosenCandidate(r, "internal/store/store.go", 1), undefined, "a later ambiguity is asked");
    assert.equal(chosenCandidate(r, undefined, 0), undefined, "a typed name is asked");
    assert.equal(chosenCandidate(r, "other.go", 0), undefined);
    assert.equal(chosenCandidate({ ...r, code: "REFUSE_CONTEXT_TOO_LARGE" }, "internal/store/store.go", 0), undefined);
    const two = { ...r, candidates: [r.candidates![1]!, { ...r.candidates![1]!, symbol: "Other.List" }] };
    assert.equal(chosenCandidate(two, "internal/store/store.go", 0), undefined, "two at that path: asked");
  });
});

// ctxd.checkChange's WorkspaceEdit as the extension applies it: edits in
// UTF-8, UTF-16 and UTF-32 positions over CJK, emoji and CRLF text, the
// plan (versions, digests before and after, creations and deletions) and
// its operations for vscode.WorkspaceEdit.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CheckChangeResult, Range, TextEdit } from "../src/contract.gen";
import {
  applyTextEdits,
  EditError,
  emitEdit,
  LineIndex,
  planEdit,
  sha256Text,
  StaleChangeError,
  textMatches,
  type CurrentText,
} from "../src/workspaceEdit";

const r = (l1: number, c1: number, l2: number, c2: number): Range => ({ start: { line: l1, character: c1 }, end: { line: l2, character: c2 } });
const edit = (range: Range, newText: string): TextEdit => ({ range, newText });

describe("applyTextEdits", () => {
  const text = "a 日本 😀 x\nsecond\n";

  it("UTF-16 positions, as VS Code counts (the emoji is two units)", () => {
    assert.equal(applyTextEdits(text, [edit(r(0, 8, 0, 9), "y")], "utf-16"), "a 日本 😀 y\nsecond\n");
  });

  it("the same edit in UTF-8 bytes and in code points", () => {
    // "a 日本 😀 " is 1+1+3+3+1+4+1 = 14 bytes, 7 code points.
    assert.equal(applyTextEdits(text, [edit(r(0, 14, 0, 15), "y")], "utf-8"), "a 日本 😀 y\nsecond\n");
    assert.equal(applyTextEdits(text, [edit(r(0, 7, 0, 8), "y")], "utf-32"), "a 日本 😀 y\nsecond\n");
  });

  it("several edits, given in any order; insertions at one place keep their order", () => {
    const out = applyTextEdits(text, [edit(r(1, 0, 1, 6), "2nd"), edit(r(0, 0, 0, 1), "A"), edit(r(2, 0, 2, 0), "p"), edit(r(2, 0, 2, 0), "q")], "utf-16");
    assert.equal(out, "A 日本 😀 x\n2nd\npq");
  });

  it("CRLF text: lines end after \\r\\n, a range to the next line's start takes the break", () => {
    const crlf = "one\r\ntwo\r\nthree\r\n";
    assert.equal(applyTextEdits(crlf, [edit(r(1, 0, 2, 0), "TWO\r\n")], "utf-16"), "one\r\nTWO\r\nthree\r\n");
    assert.equal(applyTextEdits(crlf, [edit(r(1, 3, 1, 99), "!")], "utf-8"), "one\r\ntwo!\r\nthree\r\n", "a character past the end is the end of the line, before \\r\\n");
    assert.equal(applyTextEdits(crlf, [edit(r(2, 0, 9, 0), "")], "utf-16"), "one\r\ntwo\r\n", "a line past the last is the end of the text");
    assert.equal(applyTextEdits("a\rb", [edit(r(1, 0, 1, 1), "B")], "utf-16"), "a\rB", "a lone \\r ends a line");
  });

  it("overlapping edits are refused", () => {
    assert.throws(() => applyTextEdits(text, [edit(r(0, 0, 0, 3), "x"), edit(r(0, 2, 0, 4), "y")], "utf-16"), EditError);
  });

  it("LineIndex converts a range to UTF-16 and back", () => {
    const idx = new LineIndex("x😀\r\ny");
    assert.deepEqual(idx.toUtf16(r(0, 5, 1, 1), "utf-8"), r(0, 3, 1, 1));
    assert.deepEqual(idx.positionAt(idx.text.length), { line: 1, character: 1 });
    assert.equal(idx.lineCount, 2);
  });
});

describe("planEdit", () => {
  const before = "package store\r\n\r\n// 日本語 😀 List\r\nfunc List() {}\r\n";
  const after = "package store\r\n\r\n// 日本語 😀 Names\r\nfunc Names() {}\r\n";
  const uri = "file:///w/internal/store/store.go";
  // In UTF-8: "// 日本語 😀 " is 3+9+1+4+1 = 18 bytes.
  const edits: TextEdit[] = [edit(r(2, 18, 2, 22), "Names"), edit(r(3, 5, 3, 9), "Names")];

  function result(over: Partial<CheckChangeResult> = {}, version: number | null = 4): CheckChangeResult {
    return {
      status: "accepted",
      format: "unified",
      files: [{ path: "internal/store/store.go", action: "modify", sha256_before: sha256Text(before), sha256_after: sha256Text(after) }],
      edit: { documentChanges: [{ textDocument: { uri, version }, edits }] },
      ...over,
    };
  }
  const current =
    (files: Record<string, CurrentText>) =>
    async (u: string): Promise<CurrentText | undefined> =>
      files[u];

  it("a modification: the text after, and UTF-16 edits that give it", async () => {
    const plan = await planEdit(result(), "utf-8", current({ [uri]: { text: before, version: 4 } }));
    assert.equal(plan.files.length, 1);
    const f = plan.files[0]!;
    assert.equal(f.action, "modify");
    assert.equal(f.path, "internal/store/store.go");
    assert.equal(f.after, after);
    assert.deepEqual(f.edits.map((e) => e.range), [r(2, 10, 2, 14), r(3, 5, 3, 9)], "UTF-16 columns: 3 CJK characters are 3 units, the emoji 2");
    assert.equal(applyTextEdits(before, f.edits, "utf-16"), after, "the converted edits give the same text");
  });

  it("a document whose version moved on is refused", async () => {
    await assert.rejects(planEdit(result(), "utf-8", current({ [uri]: { text: before, version: 5 } })), (err: unknown) => {
      assert.ok(err instanceof StaleChangeError);
      assert.match(err.message, /internal\/store\/store\.go changed since ctxd checked the answer \(the editor has version 5, the change was made for version 4\)/);
      return true;
    });
  });

  it("a file on disk (version null) whose bytes are not the checked ones is refused", async () => {
    await assert.rejects(planEdit(result({}, null), "utf-8", current({ [uri]: { text: before + "// more\r\n" } })), StaleChangeError);
    const plan = await planEdit(result({}, null), "utf-8", current({ [uri]: { text: before } }));
    assert.equal(plan.files[0]!.version, null);
  });

  it("an edit that does not give the accepted bytes is refused", async () => {
    const wrong = result();
    wrong.files[0]!.sha256_after = sha256Text("something else");
    await assert.rejects(planEdit(wrong, "utf-8", current({ [uri]: { text: before, version: 4 } })), EditError);
  });

  it("a creation and a deletion, as operations in order", async () => {
    const created = "file:///w/internal/store/new.go";
    const deleted = "file:///w/internal/store/old.go";
    const res: CheckChangeResult = {
      status: "accepted",
      format: "unified",
      files: [
        { path: "internal/store/new.go", action: "create", sha256_before: null, sha256_after: sha256Text("package store\n") },
        { path: "internal/store/old.go", action: "delete", sha256_before: sha256Text("package old\n"), sha256_after: null },
      ],
      edit: {
        documentChanges: [
          { kind: "create", uri: created, options: {} },
          { textDocument: { uri: created, version: null }, edits: [edit(r(0, 0, 0, 0), "package store\n")] },
          { kind: "delete", uri: deleted },
        ],
      },
    };
    const plan = await planEdit(res, "utf-16", current({ [deleted]: { text: "package old\n" } }));
    assert.deepEqual(
      plan.files.map((f) => [f.action, f.path, f.before, f.after]),
      [
        ["create", "internal/store/new.go", undefined, "package store\n"],
        ["delete", "internal/store/old.go", "package old\n", undefined],
      ],
    );
    const ops: string[] = [];
    emitEdit(plan, {
      createFile: (u, o) => ops.push(`create ${u} ${JSON.stringify(o)}`),
      deleteFile: (u) => ops.push(`delete ${u}`),
      replace: (u, range, text) => ops.push(`replace ${u} ${range.start.line}:${range.start.character}-${range.end.line}:${range.end.character} ${JSON.stringify(text)}`),
    });
    assert.deepEqual(ops, [`create ${created} {}`, `replace ${created} 0:0-0:0 "package store\\n"`, `delete ${deleted}`]);
    await assert.rejects(planEdit(res, "utf-16", current({})), /old\.go no longer exists/);
  });

  it("an accepted check without an edit cannot be applied", async () => {
    const res = result();
    delete res.edit;
    await assert.rejects(planEdit(res, "utf-16", current({})), EditError);
  });

  it("digests tolerate the BOM VS Code hides", () => {
    assert.ok(textMatches("x", sha256Text("\ufeffx")));
    assert.ok(textMatches("x", sha256Text("x").slice("sha256:".length)));
    assert.ok(!textMatches("x", null));
  });
});

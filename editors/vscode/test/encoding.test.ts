import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  convertCharacter,
  convertPosition,
  convertRange,
  lineAt,
  lineCount,
  lineLength,
  negotiatedEncoding,
  UnknownEncodingError,
  type PositionEncoding,
} from "../src/encoding";

// "a😀b": 😀 is U+1F600, two UTF-16 units, four UTF-8 bytes, one code point.
// "日本語": three BMP characters of three UTF-8 bytes each.
// "é": U+00E9, two UTF-8 bytes.
const emoji = "a😀b";
const cjk = "日本語x";
const accented = "héllo";

describe("negotiatedEncoding", () => {
  const cases: { name: string; value: unknown; want: PositionEncoding }[] = [
    { name: "absent means utf-16 (LSP default)", value: undefined, want: "utf-16" },
    { name: "null means utf-16", value: null, want: "utf-16" },
    { name: "utf-8", value: "utf-8", want: "utf-8" },
    { name: "utf-16", value: "utf-16", want: "utf-16" },
    { name: "utf-32", value: "utf-32", want: "utf-32" },
  ];
  for (const c of cases) {
    it(c.name, () => assert.equal(negotiatedEncoding(c.value), c.want));
  }
  it("rejects an unknown encoding", () => {
    assert.throws(() => negotiatedEncoding("latin-1"), UnknownEncodingError);
  });
});

describe("convertCharacter", () => {
  const cases: { name: string; line: string; character: number; from: PositionEncoding; to: PositionEncoding; want: number }[] = [
    { name: "ascii is the same everywhere", line: "hello", character: 3, from: "utf-16", to: "utf-8", want: 3 },
    { name: "after é in utf-8", line: accented, character: 2, from: "utf-16", to: "utf-8", want: 3 },
    { name: "end of héllo in utf-8", line: accented, character: 5, from: "utf-16", to: "utf-8", want: 6 },
    { name: "utf-8 back to utf-16 after é", line: accented, character: 3, from: "utf-8", to: "utf-16", want: 2 },
    { name: "inside é's bytes rounds down", line: accented, character: 2, from: "utf-8", to: "utf-16", want: 1 },
    { name: "before the emoji", line: emoji, character: 1, from: "utf-16", to: "utf-8", want: 1 },
    { name: "after the emoji in utf-8", line: emoji, character: 3, from: "utf-16", to: "utf-8", want: 5 },
    { name: "after the emoji in utf-32", line: emoji, character: 3, from: "utf-16", to: "utf-32", want: 2 },
    { name: "between the surrogate halves rounds down (utf-8)", line: emoji, character: 2, from: "utf-16", to: "utf-8", want: 1 },
    { name: "between the surrogate halves rounds down (utf-16)", line: emoji, character: 2, from: "utf-16", to: "utf-16", want: 1 },
    { name: "utf-8 after the emoji to utf-16", line: emoji, character: 5, from: "utf-8", to: "utf-16", want: 3 },
    { name: "inside the emoji's bytes rounds down", line: emoji, character: 3, from: "utf-8", to: "utf-16", want: 1 },
    { name: "utf-32 after the emoji to utf-16", line: emoji, character: 2, from: "utf-32", to: "utf-16", want: 3 },
    { name: "CJK: after two characters in utf-8", line: cjk, character: 2, from: "utf-16", to: "utf-8", want: 6 },
    { name: "CJK: after 語 in utf-8", line: cjk, character: 3, from: "utf-16", to: "utf-8", want: 9 },
    { name: "CJK: utf-8 back", line: cjk, character: 9, from: "utf-8", to: "utf-16", want: 3 },
    { name: "CJK: inside 本's bytes rounds down", line: cjk, character: 4, from: "utf-8", to: "utf-16", want: 1 },
    { name: "past the end clamps (utf-8)", line: cjk, character: 99, from: "utf-16", to: "utf-8", want: 10 },
    { name: "past the end clamps (utf-16)", line: emoji, character: 99, from: "utf-16", to: "utf-16", want: 4 },
    { name: "negative is 0", line: cjk, character: -1, from: "utf-16", to: "utf-8", want: 0 },
    { name: "empty line", line: "", character: 4, from: "utf-16", to: "utf-8", want: 0 },
    { name: "mixed line", line: "é😀日x", character: 5, from: "utf-16", to: "utf-8", want: 2 + 4 + 3 + 1 },
  ];
  for (const c of cases) {
    it(c.name, () => assert.equal(convertCharacter(c.line, c.character, c.from, c.to), c.want));
  }
});

describe("lines", () => {
  it("splits at \\n, \\r\\n and \\r", () => {
    const text = "a\nb\r\nc\rd";
    assert.deepEqual([0, 1, 2, 3, 4].map((i) => lineAt(text, i)), ["a", "b", "c", "d", undefined]);
    assert.equal(lineCount(text), 4);
  });
  it("a trailing break makes an empty last line", () => {
    assert.equal(lineAt("a\n", 1), "");
    assert.equal(lineCount("a\n"), 2);
  });
  it("lengths per encoding", () => {
    assert.deepEqual(
      (["utf-8", "utf-16", "utf-32"] as const).map((e) => lineLength("é😀日", e)),
      [2 + 4 + 3, 1 + 2 + 1, 3],
    );
  });
});

describe("convertPosition and convertRange", () => {
  const text = "package x\r\n// 日本語 😀 ok\nvar s = \"héllo\"\n";
  it("converts a selection on a CJK and emoji line to utf-8", () => {
    // "// 日本語 😀 ok": "ok" starts at UTF-16 column 10 (😀 is two units).
    const got = convertRange(text, { start: { line: 1, character: 3 }, end: { line: 1, character: 10 } }, "utf-16", "utf-8");
    assert.deepEqual(got, { start: { line: 1, character: 3 }, end: { line: 1, character: 3 + 9 + 1 + 4 + 1 } });
  });
  it("round-trips utf-16 -> utf-8 -> utf-16", () => {
    const r = { start: { line: 2, character: 10 }, end: { line: 2, character: 14 } };
    const back = convertRange(text, convertRange(text, r, "utf-16", "utf-8"), "utf-8", "utf-16");
    assert.deepEqual(back, r);
  });
  it("a line past the end is the end of the document", () => {
    assert.deepEqual(convertPosition(text, { line: 9, character: 0 }, "utf-16", "utf-8"), { line: 3, character: 0 });
    assert.deepEqual(convertPosition("x\n日本", { line: 5, character: 0 }, "utf-16", "utf-8"), { line: 1, character: 6 });
  });
  it("orders a reversed range", () => {
    const got = convertRange(text, { start: { line: 2, character: 4 }, end: { line: 0, character: 1 } }, "utf-16", "utf-16");
    assert.deepEqual(got, { start: { line: 0, character: 1 }, end: { line: 2, character: 4 } });
  });
});

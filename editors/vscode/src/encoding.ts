// Position encodings (LSP 3.17 `positionEncoding`): VS Code counts a line's
// characters in UTF-16 code units, ctxd may have negotiated UTF-8 bytes or
// code points instead. This module converts between them given the text, and
// does not import `vscode` so that it can be tested in plain node.
//
// The rules follow docs/protocol.md "Position encodings", so a position means
// the same character on both sides:
// - lines end at "\n", "\r\n" or "\r"; a line's length excludes its break;
// - a character past the end of its line means the end of the line, a line
//   past the last line means the end of the document;
// - a position inside a character (between the halves of a surrogate pair,
//   inside a multi-byte UTF-8 sequence) is rounded down to its start.

import type { Position, Range } from "./contract.gen";

/** The encodings ctxd supports, by their LSP names. */
export const PositionEncodings = ["utf-8", "utf-16", "utf-32"] as const;
export type PositionEncoding = (typeof PositionEncodings)[number];

/** Thrown when a server names an encoding that cannot be converted to. */
export class UnknownEncodingError extends Error {
  constructor(readonly encoding: string) {
    super(`the server negotiated the position encoding "${encoding}", which the extension does not know`);
    this.name = "UnknownEncodingError";
  }
}

/**
 * The encoding a server chose, from its `capabilities.positionEncoding`.
 * Absent (an LSP 3.16 server) means UTF-16, the protocol's default.
 */
export function negotiatedEncoding(value: unknown): PositionEncoding {
  if (value === undefined || value === null) {
    return "utf-16";
  }
  if (typeof value === "string" && (PositionEncodings as readonly string[]).includes(value)) {
    return value as PositionEncoding;
  }
  throw new UnknownEncodingError(String(value));
}

/** Units one code point takes in an encoding. */
function units(codePoint: number, encoding: PositionEncoding): number {
  switch (encoding) {
    case "utf-16":
      return codePoint > 0xffff ? 2 : 1;
    case "utf-32":
      return 1;
    case "utf-8":
      // A lone surrogate cannot be encoded; editors write it as U+FFFD,
      // which is three bytes, so it counts as three here too.
      if (codePoint < 0x80) return 1;
      if (codePoint < 0x800) return 2;
      if (codePoint < 0x10000) return 3;
      return 4;
  }
}

/** Length of a line (without its break) in an encoding. */
export function lineLength(lineText: string, encoding: PositionEncoding): number {
  if (encoding === "utf-16") {
    return lineText.length;
  }
  let n = 0;
  for (const ch of lineText) {
    n += units(ch.codePointAt(0)!, encoding);
  }
  return n;
}

/**
 * Converts a column of one line from one encoding to another. A column
 * inside a character is rounded down to the character's start; one past the
 * end of the line is the end of the line.
 */
export function convertCharacter(
  lineText: string,
  character: number,
  from: PositionEncoding,
  to: PositionEncoding,
): number {
  if (!Number.isFinite(character) || character <= 0) {
    return 0;
  }
  if (from === "utf-16" && to === "utf-16") {
    // The common case in VS Code: no walk, only the clamping and rounding.
    const c = Math.min(Math.floor(character), lineText.length);
    return splitsSurrogate(lineText, c) ? c - 1 : c;
  }
  let seen = 0; // units of `from` before the current character
  let out = 0; // units of `to` before the current character
  for (const ch of lineText) {
    const cp = ch.codePointAt(0)!;
    const step = units(cp, from);
    if (seen + step > character) {
      return out;
    }
    seen += step;
    out += units(cp, to);
  }
  return out;
}

/** Whether a UTF-16 column falls between the halves of a surrogate pair. */
function splitsSurrogate(lineText: string, character: number): boolean {
  if (character >= lineText.length) {
    return false;
  }
  const hi = lineText.charCodeAt(character - 1);
  const lo = lineText.charCodeAt(character);
  return hi >= 0xd800 && hi <= 0xdbff && lo >= 0xdc00 && lo <= 0xdfff;
}

/**
 * The text of a line (0-based) without its line break, or undefined past
 * the last line. A text that ends with a line break has an empty last line,
 * as in every editor.
 */
export function lineAt(text: string, line: number): string | undefined {
  if (!Number.isInteger(line) || line < 0) {
    return undefined;
  }
  let start = 0;
  for (let current = 0; ; current++) {
    const end = nextBreak(text, start);
    if (current === line) {
      return text.slice(start, end);
    }
    if (end >= text.length) {
      return undefined;
    }
    start = end + (text.startsWith("\r\n", end) ? 2 : 1);
  }
}

/** Index of the next "\n" or "\r" at or after `from`, or the text's length. */
function nextBreak(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13) {
      return i;
    }
  }
  return text.length;
}

/** Number of lines of a text: line breaks plus one. */
export function lineCount(text: string): number {
  let n = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) {
      n++;
    } else if (c === 13) {
      n++;
      if (text.charCodeAt(i + 1) === 10) {
        i++;
      }
    }
  }
  return n;
}

/**
 * Converts a position in `text` between encodings. A line past the last
 * line becomes the end of the document.
 */
export function convertPosition(
  text: string,
  position: Position,
  from: PositionEncoding,
  to: PositionEncoding,
): Position {
  const lineText = lineAt(text, position.line);
  if (lineText === undefined) {
    const last = lineCount(text) - 1;
    return { line: last, character: lineLength(lineAt(text, last) ?? "", to) };
  }
  return { line: position.line, character: convertCharacter(lineText, position.character, from, to) };
}

/** Converts both ends of a range; an end before its start is swapped. */
export function convertRange(text: string, range: Range, from: PositionEncoding, to: PositionEncoding): Range {
  const ordered = isBefore(range.end, range.start) ? { start: range.end, end: range.start } : range;
  return {
    start: convertPosition(text, ordered.start, from, to),
    end: convertPosition(text, ordered.end, from, to),
  };
}

/** Whether a position comes strictly before another. */
export function isBefore(a: Position, b: Position): boolean {
  return a.line < b.line || (a.line === b.line && a.character < b.character);
}

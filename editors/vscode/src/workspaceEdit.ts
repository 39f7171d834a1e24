// ctxd.checkChange's WorkspaceEdit as the extension applies it. Pure (no
// `vscode` import): the edit's positions are in the negotiated encoding and
// are converted to VS Code's UTF-16 here, the text after the change is
// computed for the diff editor, and the plan is checked against what
// ctxd checked (document versions, the sha256 before and after) before
// anything is applied. changeView.ts turns a plan into a vscode.WorkspaceEdit.

import { createHash } from "node:crypto";
import type { CheckChangeResult, CheckedFile, Position, Range, TextEdit, WorkspaceEdit } from "./contract.gen";
import { convertCharacter, type PositionEncoding } from "./encoding";

/** The start offset (UTF-16) of every line of a text; lines end at "\n", "\r\n" or "\r". */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 13) {
      if (text.charCodeAt(i + 1) === 10) {
        i++;
      }
      starts.push(i + 1);
    } else if (c === 10) {
      starts.push(i + 1);
    }
  }
  return starts;
}

/** A text with its line table, for many position lookups. */
export class LineIndex {
  private readonly starts: number[];

  constructor(readonly text: string) {
    this.starts = lineStarts(text);
  }

  get lineCount(): number {
    return this.starts.length;
  }

  /** The text of a line without its break. */
  line(n: number): string {
    const start = this.starts[n]!;
    let end = n + 1 < this.starts.length ? this.starts[n + 1]! : this.text.length;
    if (end > start && this.text.charCodeAt(end - 1) === 10) end--;
    if (end > start && this.text.charCodeAt(end - 1) === 13) end--;
    return this.text.slice(start, end);
  }

  /**
   * The UTF-16 offset of a position in `encoding`, per docs/protocol.md: a
   * character past the end of its line is the end of the line; a line past
   * the last line is the end of the text; a position inside a character
   * is its start.
   */
  offsetAt(p: Position, encoding: PositionEncoding): number {
    if (!Number.isInteger(p.line) || p.line < 0) {
      return 0;
    }
    if (p.line >= this.starts.length) {
      return this.text.length;
    }
    return this.starts[p.line]! + convertCharacter(this.line(p.line), p.character, encoding, "utf-16");
  }

  /** The UTF-16 position of an offset. */
  positionAt(offset: number): Position {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo, character: offset - this.starts[lo]! };
  }

  /** A range in `encoding` as VS Code's UTF-16 range. */
  toUtf16(range: Range, encoding: PositionEncoding): Range {
    return { start: this.positionAt(this.offsetAt(range.start, encoding)), end: this.positionAt(this.offsetAt(range.end, encoding)) };
  }
}

/** A text edit as UTF-16 offsets of the text before the change. */
export interface OffsetEdit {
  start: number;
  end: number;
  newText: string;
}

/** Thrown when edits cannot be applied as given (overlapping or reversed ranges). */
export class EditError extends Error {
  override readonly name = "EditError";
}

/** The edits as sorted, non-overlapping UTF-16 offsets; throws an EditError otherwise. */
export function offsetEdits(index: LineIndex, edits: readonly TextEdit[], encoding: PositionEncoding): OffsetEdit[] {
  const out = edits.map((e, i) => {
    const start = index.offsetAt(e.range.start, encoding);
    const end = index.offsetAt(e.range.end, encoding);
    if (end < start) {
      throw new EditError(`edit ${i + 1} ends before it starts`);
    }
    return { start, end, newText: e.newText, i };
  });
  // Stable: insertions at one offset keep their order, as LSP specifies.
  out.sort((a, b) => a.start - b.start || a.i - b.i);
  for (let k = 1; k < out.length; k++) {
    if (out[k]!.start < out[k - 1]!.end) {
      throw new EditError(`edits ${out[k - 1]!.i + 1} and ${out[k]!.i + 1} overlap`);
    }
  }
  return out.map(({ start, end, newText }) => ({ start, end, newText }));
}

/** Applies LSP text edits (positions in `encoding`) to a text. */
export function applyTextEdits(text: string, edits: readonly TextEdit[], encoding: PositionEncoding): string {
  const sorted = offsetEdits(new LineIndex(text), edits, encoding);
  let out = "";
  let at = 0;
  for (const e of sorted) {
    out += text.slice(at, e.start) + e.newText;
    at = e.end;
  }
  return out + text.slice(at);
}

/** "sha256:<hex>" of a text's UTF-8 bytes, as ctxd writes digests. */
export function sha256Text(text: string): string {
  return "sha256:" + createHash("sha256").update(text, "utf8").digest("hex");
}

/** Whether a text is the bytes of a digest: as is, or behind the UTF-8 BOM VS Code hides. */
export function textMatches(text: string, digest: string | null | undefined): boolean {
  if (digest === null || digest === undefined) {
    return false;
  }
  const want = digest.startsWith("sha256:") ? digest : "sha256:" + digest;
  return sha256Text(text) === want || sha256Text("\ufeff" + text) === want;
}

/** A file of the change as the editor will apply it. */
export interface FilePlan {
  /** The document URI, as ctxd sent it. */
  uri: string;
  /** The workspace-relative path, as ctxd reported it. */
  path: string;
  action: "modify" | "create" | "delete";
  /** The text the change applies to; undefined for a file it creates. */
  before?: string;
  /** The text after the change; undefined for a file it deletes. */
  after?: string;
  /** The document version the edit was made for; null: the file on disk. */
  version: number | null;
  /** The text edits, in UTF-16 ranges of `before`. */
  edits: TextEdit[];
  /** Options of a CreateFile. */
  createOptions?: { overwrite?: boolean; ignoreIfExists?: boolean };
}

/** A change ready to show and apply. */
export interface EditPlan {
  files: FilePlan[];
}

/** A file's text as the editor has it now. */
export interface CurrentText {
  text: string;
  /** The open document's version; undefined when the file is not open. */
  version?: number;
}

/** Why a plan cannot be made or applied: a file is not what ctxd checked. */
export class StaleChangeError extends Error {
  override readonly name = "StaleChangeError";
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

function pathOf(files: readonly CheckedFile[], uri: string, fallbackIndex: number): string {
  const byUri = files.find((f) => uri.endsWith("/" + f.path.split("/").map(encodeURIComponent).join("/")) || uri.endsWith("/" + f.path));
  if (byUri !== undefined) {
    return byUri.path;
  }
  const f = files[fallbackIndex];
  if (f !== undefined) {
    return f.path;
  }
  try {
    return decodeURIComponent(new URL(uri).pathname);
  } catch {
    return uri;
  }
}

/**
 * Plans an accepted check's edit: per file what it does, its text before
 * and after. `current` gives a file's text now (undefined when it does not
 * exist). Throws a StaleChangeError when a document's version is not the
 * edit's, or a text is not the one ctxd checked (sha256_before), and an
 * EditError when the edits do not give the text ctxd accepted
 * (sha256_after).
 */
export async function planEdit(
  result: Pick<CheckChangeResult, "edit" | "files">,
  encoding: PositionEncoding,
  current: (uri: string) => Promise<CurrentText | undefined>,
): Promise<EditPlan> {
  const edit: WorkspaceEdit | undefined = result.edit;
  if (edit === undefined || !Array.isArray(edit.documentChanges)) {
    throw new EditError("ctxd accepted the change but sent no edit to apply");
  }
  const files: FilePlan[] = [];
  const byUri = new Map<string, FilePlan>();
  for (const dc of edit.documentChanges) {
    if (dc.kind === "create" || dc.kind === "delete") {
      const uri = dc.uri ?? "";
      const plan: FilePlan = { uri, path: pathOf(result.files, uri, files.length), action: dc.kind, version: null, edits: [] };
      if (dc.kind === "create") {
        plan.before = undefined;
        plan.after = "";
        plan.createOptions = { ...(dc.options ?? {}) };
      } else {
        const now = await current(uri);
        if (now === undefined) {
          throw new StaleChangeError(plan.path, `${plan.path} no longer exists`);
        }
        plan.before = now.text;
      }
      files.push(plan);
      byUri.set(uri, plan);
      continue;
    }
    if (dc.textDocument === undefined) {
      throw new EditError(`ctxd sent a document change of kind "${dc.kind ?? ""}", which the extension does not know`);
    }
    const uri = dc.textDocument.uri;
    const version = dc.textDocument.version ?? null;
    let plan = byUri.get(uri);
    if (plan === undefined || plan.action === "delete") {
      const now = await current(uri);
      const path = pathOf(result.files, uri, files.length);
      if (now === undefined) {
        throw new StaleChangeError(path, `${path} no longer exists`);
      }
      if (version !== null && now.version !== undefined && now.version !== version) {
        throw new StaleChangeError(path, `${path} changed since ctxd checked the answer (the editor has version ${now.version}, the change was made for version ${version})`);
      }
      plan = { uri, path, action: "modify", before: now.text, version, edits: [] };
      files.push(plan);
      byUri.set(uri, plan);
    }
    const base = plan.action === "create" ? "" : plan.before!;
    const index = new LineIndex(base);
    const offsets = offsetEdits(index, dc.edits ?? [], encoding);
    plan.edits.push(...offsets.map((e) => ({ range: { start: index.positionAt(e.start), end: index.positionAt(e.end) }, newText: e.newText })));
    plan.after = applyTextEdits(base, dc.edits ?? [], encoding);
  }
  // What the editor has must be what ctxd checked, and the edit must give what it accepted.
  for (const plan of files) {
    const checked = result.files.find((f) => f.path === plan.path);
    if (checked === undefined) {
      continue;
    }
    if (plan.before !== undefined && checked.sha256_before !== null && !textMatches(plan.before, checked.sha256_before)) {
      throw new StaleChangeError(plan.path, `${plan.path} changed since ctxd checked the answer (its sha256 is no longer ${checked.sha256_before})`);
    }
    if (plan.after !== undefined && checked.sha256_after !== null && !textMatches(plan.after, checked.sha256_after)) {
      throw new EditError(`the edit of ${plan.path} does not give the text ctxd accepted (${checked.sha256_after}); nothing was applied`);
    }
  }
  return { files };
}

/** What the editor's WorkspaceEdit is built from: one call per operation, in order. */
export interface EditSink {
  createFile(uri: string, options: { overwrite?: boolean; ignoreIfExists?: boolean }): void;
  deleteFile(uri: string): void;
  replace(uri: string, range: Range, newText: string): void;
}

/** Emits a plan's operations: creations, then text edits, then deletions, file by file. */
export function emitEdit(plan: EditPlan, sink: EditSink): void {
  for (const f of plan.files) {
    if (f.action === "create") {
      sink.createFile(f.uri, f.createOptions ?? {});
    }
    if (f.action !== "delete") {
      for (const e of f.edits) {
        sink.replace(f.uri, e.range, e.newText);
      }
    }
    if (f.action === "delete") {
      sink.deleteFile(f.uri);
    }
  }
}

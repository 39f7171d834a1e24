// Build requests from the editor's state. Pure: no `vscode` import, so the
// extension, its unit tests and the integration test against the real
// server all build requests with exactly this code.

import { Purposes } from "./contract.gen";
import type { BuildRequest, Candidate, ModelRequest, Purpose, Range, UserTarget } from "./contract.gen";
import { convertRange, isBefore, type PositionEncoding } from "./encoding";

/**
 * The `ctxd.model.*` settings. Each is optional: undefined or null means
 * "not set", and the workspace's .ctxd/config.json default applies.
 */
export interface ModelSettings {
  provider?: string | null;
  name?: string | null;
  maxInputTokens?: number | null;
  maxOutputTokens?: number | null;
  responseTokenReserve?: number | null;
  softLimitPct?: number | null;
}

/** The extension's settings that shape a request. */
export interface Settings {
  /** `ctxd.defaultPurpose`: the purpose when a command does not choose one. */
  defaultPurpose: Purpose;
  model: ModelSettings;
}

/**
 * What the request is built from: the active editor as plain data.
 * `selection` is in VS Code's UTF-16 positions; undefined means the editor
 * has none to offer (a build of the file only).
 */
export interface EditorState {
  /** The document URI, as VS Code prints it (`file:///…`). */
  uri: string;
  languageId: string;
  selection?: Range;
  /** The document's text; only read when positions must be converted. */
  text: string;
  /** A purpose chosen for this request; undefined: the setting's default. */
  purpose?: Purpose;
  settings: Settings;
}

/**
 * What to build for:
 * - `file`: the active file only (no selection is sent);
 * - `selection`: the selection, or the cursor when it is empty (ctxd then
 *   targets the symbol enclosing the cursor);
 * - `live`: what the status bar shows, the selection when it is not empty,
 *   else the file.
 */
export type Scope = "file" | "selection" | "live";

export interface RequestOptions {
  scope: Scope;
  /** The encoding the server negotiated, for `selection.range`. */
  encoding: PositionEncoding;
  /**
   * Symbol names to target through a plan step (names or qualified names);
   * ctxd resolves them in the whole workspace, which is where an ambiguous
   * name comes from.
   */
  symbols?: string[];
  /** The user's answer to a REFUSE_AMBIGUOUS_TARGET. */
  userSelectedTargets?: UserTarget[];
  /**
   * What the user said the bundle is for, in words (the request's
   * `intent`); blank or undefined: no intent is sent.
   */
  intent?: string;
}

/**
 * The plan step id of requests that name symbols. The step carries only
 * the names (no text: the user typed none, and a text would add a "Plan
 * step" line to the system block). The id is not VS Code's own, so that
 * the same request from another editor gives the same bundle.
 */
export const SymbolPlanStepId = "symbols";

/** The intent id of requests whose intent the user typed (editor-neutral, as SymbolPlanStepId). */
export const UserIntentId = "user";

/** The default purpose when the setting is unset or not one ctxd knows. */
export const DefaultPurpose: Purpose = "diff";

/** Whether a value is one of ctxd's purposes. */
export function isPurpose(value: unknown): value is Purpose {
  return typeof value === "string" && (Purposes as readonly string[]).includes(value);
}

/**
 * Reads the settings through a getter of `ctxd.*` keys (VS Code's
 * `workspace.getConfiguration("ctxd").get`). Values of the wrong type count
 * as unset: the request must not carry what the user did not mean, and
 * ctxd reports a set-but-invalid number itself (InvalidParams).
 */
export function readSettings(get: (key: string) => unknown): Settings {
  const str = (key: string): string | null => {
    const v = get(key);
    return typeof v === "string" && v.trim() !== "" ? v.trim() : null;
  };
  const num = (key: string): number | null => {
    const v = get(key);
    return typeof v === "number" && Number.isFinite(v) ? v : null;
  };
  const purpose = get("defaultPurpose");
  return {
    defaultPurpose: isPurpose(purpose) ? purpose : DefaultPurpose,
    model: {
      provider: str("model.provider"),
      name: str("model.name"),
      maxInputTokens: num("model.maxInputTokens"),
      maxOutputTokens: num("model.maxOutputTokens"),
      responseTokenReserve: num("model.responseTokenReserve"),
      softLimitPct: num("model.softLimitPct"),
    },
  };
}

/**
 * The request's `model`: only the settings that are set, or undefined when
 * none is (the config's model applies whole).
 */
export function modelRequest(model: ModelSettings): ModelRequest | undefined {
  const out: ModelRequest = {};
  const str = (v: string | null | undefined) => (typeof v === "string" && v.trim() !== "" ? v.trim() : undefined);
  const num = (v: number | null | undefined) => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
  const provider = str(model.provider);
  if (provider !== undefined) out.provider = provider;
  const name = str(model.name);
  if (name !== undefined) out.model = name;
  const maxIn = num(model.maxInputTokens);
  if (maxIn !== undefined) out.max_input_tokens = maxIn;
  const maxOut = num(model.maxOutputTokens);
  if (maxOut !== undefined) out.max_output_tokens = maxOut;
  const reserve = num(model.responseTokenReserve);
  if (reserve !== undefined) out.response_token_reserve = reserve;
  const soft = num(model.softLimitPct);
  if (soft !== undefined) out.soft_limit_threshold_pct = soft;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Whether a range is empty (a cursor). */
export function isEmptyRange(range: Range): boolean {
  return range.start.line === range.end.line && range.start.character === range.end.character;
}

/**
 * The request for the editor's state. The active file is always sent (it
 * is the target unless another one is named); the selection is sent per
 * the scope, converted to the negotiated encoding. Nothing else is sent
 * unless the user gave it (symbols, an intent, a choice among candidates,
 * a model setting): the same request from any editor gives the same bundle.
 */
export function buildRequest(state: EditorState, options: RequestOptions): BuildRequest {
  const req: BuildRequest = {
    purpose: state.purpose ?? state.settings.defaultPurpose,
    active_file: state.uri,
  };
  const range = selectedRange(state.selection, options.scope);
  if (range !== undefined) {
    req.selection = {
      uri: state.uri,
      range: options.encoding === "utf-16" && !needsClamp(range) ? copyRange(range) : convertRange(state.text, range, "utf-16", options.encoding),
    };
  }
  const symbols = (options.symbols ?? []).map((s) => s.trim()).filter((s) => s !== "");
  if (symbols.length > 0) {
    req.plan_step = { id: SymbolPlanStepId, target_symbols: symbols };
  }
  const intent = options.intent?.trim();
  if (intent) {
    req.intent = { id: UserIntentId, text: intent };
  }
  if (options.userSelectedTargets !== undefined && options.userSelectedTargets.length > 0) {
    req.user_selected_targets = options.userSelectedTargets.map((t) => (t.symbol ? { path: t.path, symbol: t.symbol } : { path: t.path }));
  }
  const model = modelRequest(state.settings.model);
  if (model !== undefined) {
    req.model = model;
  }
  return req;
}

/** The range a scope sends, ordered, or undefined for none. */
function selectedRange(selection: Range | undefined, scope: Scope): Range | undefined {
  if (selection === undefined || scope === "file") {
    return undefined;
  }
  if (scope === "live" && isEmptyRange(selection)) {
    return undefined;
  }
  return isBefore(selection.end, selection.start) ? { start: selection.end, end: selection.start } : selection;
}

/** Whether a UTF-16 range needs the text to be valid (negative or fractional). */
function needsClamp(range: Range): boolean {
  return [range.start.line, range.start.character, range.end.line, range.end.character].some((n) => !Number.isInteger(n) || n < 0);
}

function copyRange(range: Range): Range {
  return {
    start: { line: range.start.line, character: range.start.character },
    end: { line: range.end.line, character: range.end.character },
  };
}

/**
 * The retry of a request refused with REFUSE_AMBIGUOUS_TARGET: the same
 * request with the chosen candidate as the user's selected target (added to
 * any earlier choices, without duplicates).
 */
export function withUserSelectedTarget(req: BuildRequest, candidate: Pick<Candidate, "path" | "symbol">): BuildRequest {
  const chosen: UserTarget = candidate.symbol ? { path: candidate.path, symbol: candidate.symbol } : { path: candidate.path };
  const targets = (req.user_selected_targets ?? []).filter((t) => !(t.path === chosen.path && (t.symbol ?? "") === (chosen.symbol ?? "")));
  return { ...req, user_selected_targets: [...targets, chosen] };
}

/** The arguments of `ctxd.renderPrompt`: a build request plus an optional template. */
export type RenderPromptRequest = BuildRequest & { template_id?: string };

/** The renderPrompt arguments for a request; an empty template id means the purpose's default. */
export function renderPromptRequest(req: BuildRequest, templateId?: string): RenderPromptRequest {
  const id = templateId?.trim();
  return id ? { ...req, template_id: id } : { ...req };
}

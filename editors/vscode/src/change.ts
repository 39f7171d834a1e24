// The loop of "ctxd: Generate Change…", without VS Code: render the prompt
// (ctxd.renderPrompt, purpose diff, the intent, a thread turn per attempt),
// ask the model, check the answer (ctxd.checkChange), and on a rejection
// ask again with the rejection's error_context as the build request's
// last_error, up to a bound. The command layer (changeView.ts) gives it the
// session's commands, a ChatModel and a cancellation token, and shows what
// it reports.

import type { BuildRequest, CheckChangeArgs, CheckChangeResult, LastError, ModelRequest, PlanStep, PromptResult, Rejection } from "./contract.gen";
import { isModelCancelled, type CancelToken, type ChatModel } from "./model";
import { explainRefusal } from "./refusals.gen";
import { code, escapeMarkdown, fence, formatCount } from "./render";
import type { RenderPromptRequest } from "./request";

/** The ctxd commands the loop sends (CtxdCommands has them). */
export interface ChangeCommands {
  renderPrompt(request: RenderPromptRequest, token?: unknown): Promise<PromptResult>;
  checkChange(args: CheckChangeArgs, token?: unknown): Promise<CheckChangeResult>;
}

/** The `ctxd.change.*` settings. */
export interface ChangeSettings {
  provider: ChangeProvider;
  /** Unset: the provider's default (DefaultBaseUrls). */
  baseUrl?: string;
  /** The model name of the openai and anthropic providers. */
  model?: string;
  lmVendor?: string;
  lmFamily?: string;
  /** Retries after the first attempt (0–5). */
  maxRetries: number;
  /** The most tokens an answer may have. */
  maxOutputTokens: number;
}

export const ChangeProviders = ["vscode-lm", "openai", "anthropic"] as const;
export type ChangeProvider = (typeof ChangeProviders)[number];

export const DefaultChangeSettings: ChangeSettings = { provider: "vscode-lm", maxRetries: 2, maxOutputTokens: 4096 };

/** The most retries the setting allows. */
export const MaxRetriesLimit = 5;

/** Reads the `ctxd.change.*` settings through a getter of keys under "ctxd" ("change.provider"). */
export function readChangeSettings(get: (key: string) => unknown): ChangeSettings {
  const str = (key: string): string | undefined => {
    const v = get(key);
    return typeof v === "string" && v.trim() !== "" ? v.trim() : undefined;
  };
  const int = (key: string, min: number, max: number, fallback: number): number => {
    const v = get(key);
    return typeof v === "number" && Number.isInteger(v) ? Math.min(Math.max(v, min), max) : fallback;
  };
  const provider = str("change.provider");
  const out: ChangeSettings = {
    provider: (ChangeProviders as readonly string[]).includes(provider ?? "") ? (provider as ChangeProvider) : DefaultChangeSettings.provider,
    maxRetries: int("change.maxRetries", 0, MaxRetriesLimit, DefaultChangeSettings.maxRetries),
    maxOutputTokens: int("change.maxOutputTokens", 1, 1_000_000, DefaultChangeSettings.maxOutputTokens),
  };
  const baseUrl = str("change.baseUrl");
  if (baseUrl !== undefined) out.baseUrl = baseUrl;
  const model = str("change.model");
  if (model !== undefined) out.model = model;
  const vendor = str("change.lmVendor");
  if (vendor !== undefined) out.lmVendor = vendor;
  const family = str("change.lmFamily");
  if (family !== undefined) out.lmFamily = family;
  return out;
}

/** How many intents the history keeps. */
export const IntentHistorySize = 20;

/** The history after using an intent: it first, no duplicates, at most IntentHistorySize. */
export function rememberIntent(history: readonly string[], intent: string): string[] {
  const text = intent.trim();
  if (text === "") {
    return history.slice(0, IntentHistorySize);
  }
  return [text, ...history.filter((h) => h !== text)].slice(0, IntentHistorySize);
}

/** A stored history, defensively: only non-empty strings. */
export function intentHistory(stored: unknown): string[] {
  return Array.isArray(stored) ? stored.filter((s): s is string => typeof s === "string" && s.trim() !== "").slice(0, IntentHistorySize) : [];
}

/** A new thread id: `change-<UTC time>-<random>`, e.g. `change-20251128T174900Z-3f9a1c`. */
export function newThreadId(now = new Date(), random: () => number = Math.random): string {
  const t = now.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
  const r = Math.floor(random() * 0x1000000)
    .toString(16)
    .padStart(6, "0");
  return `change-${t}-${r}`;
}

/** The turn id of an attempt (1-based). */
export function turnId(attempt: number): string {
  return `attempt-${attempt}`;
}

/**
 * The build request's model for a change: the `ctxd.model.*` settings
 * (`base`), with the provider and model of the chat model, the answer's
 * bound as max_output_tokens, and the model's own input window when it
 * reports one (vscode.lm). A reported window counts input only, so the
 * reserve is then a margin for the estimate (5%) unless one is set.
 */
export function changeModel(base: ModelRequest | undefined, model: Pick<ChatModel, "provider" | "model" | "maxInputTokens">, maxOutputTokens: number): ModelRequest {
  const out: ModelRequest = { ...(base ?? {}) };
  if (model.provider.trim() !== "") out.provider = model.provider;
  if (model.model.trim() !== "") out.model = model.model;
  out.max_output_tokens = maxOutputTokens;
  if (model.maxInputTokens !== undefined) {
    out.max_input_tokens = model.maxInputTokens;
    const reserve = base?.response_token_reserve;
    out.response_token_reserve = reserve !== undefined && reserve < model.maxInputTokens ? reserve : Math.max(1, Math.ceil(model.maxInputTokens * 0.05));
  }
  return out;
}

/** The renderPrompt request of one attempt. */
export function attemptRequest(
  base: BuildRequest,
  intent: { id: string; text: string },
  model: ModelRequest,
  threadId: string,
  attempt: number,
  lastError: LastError | undefined,
  newFiles: readonly string[] = [],
): RenderPromptRequest {
  const req: RenderPromptRequest = {
    ...base,
    purpose: "diff",
    intent: { id: intent.id, text: intent.text },
    model,
    thread: { thread_id: threadId, turn_id: turnId(attempt), declared_refs: [] },
  };
  if (attempt > 1) {
    req.thread!.parent_turn_id = turnId(attempt - 1);
  }
  if (lastError !== undefined) {
    req.last_error = { ...lastError };
  } else {
    delete req.last_error;
  }
  if (newFiles.length > 0) {
    req.plan_step = withNewFiles(base.plan_step, newFiles, intent.text);
  }
  return req;
}

/** The plan step id of a change's step when the base request has none. */
export const ChangePlanStepId = "change";

/**
 * A plan step that lets a bundle name files to create: the base step (or a
 * new one with ChangePlanStepId and the intent as text) with the paths
 * merged into new_files, without duplicates.
 */
export function withNewFiles(step: PlanStep | undefined, newFiles: readonly string[], text: string): PlanStep {
  const out: PlanStep = step ? { ...step } : { id: ChangePlanStepId };
  if (!out.id) out.id = ChangePlanStepId;
  if (out.text === undefined || out.text === "") out.text = text;
  const merged = [...(step?.new_files ?? [])];
  for (const p of newFiles) {
    if (p !== "" && !merged.includes(p)) merged.push(p);
  }
  out.new_files = merged;
  return out;
}

/**
 * The files a rejection asks to create outside the bundle: on
 * CHANGE_NOT_IN_BUNDLE, the paths of the result's creations, unless the
 * failure names a file of the result that is not a creation (a change to
 * a file outside the bundle that new_files cannot admit). Empty otherwise.
 */
export function filesToCreate(check: CheckChangeResult): string[] {
  const failure = check.failure;
  if (failure?.code !== "CHANGE_NOT_IN_BUNDLE") return [];
  const creates = check.files.filter((f) => f.action === "create" && f.path !== "").map((f) => f.path);
  if (creates.length === 0) return [];
  const named = failure.error_context.path;
  if (named !== undefined && named !== "" && !creates.includes(named) && check.files.some((f) => f.action !== "create" && f.path === named)) {
    return [];
  }
  return [...new Set(creates)];
}

/** One attempt of a run, as the loop reports it. */
export interface Attempt {
  attempt: number;
  turnId: string;
  parentTurnId?: string;
  /** The bundle the prompt was rendered from. */
  bundleId: string;
  /** The rendered prompt's total tokens, when ctxd counted them. */
  promptTokens?: number;
  /** The model's answer. */
  answer: string;
  /** ctxd's verdict on it. */
  check: CheckChangeResult;
}

/** What happens during a run, for the progress notification and the output channel. */
export type ChangeEvent =
  | { kind: "rendering"; attempt: number; of: number }
  | { kind: "asking"; attempt: number; of: number; bundleId: string; promptTokens?: number }
  | { kind: "receiving"; attempt: number; of: number; characters: number }
  | { kind: "checking"; attempt: number; of: number; characters: number }
  | { kind: "rejected"; attempt: Attempt; of: number; failure: Rejection }
  | { kind: "accepted"; attempt: Attempt };

/** A run's end. Errors (a refusal of the build, a failed model call) are thrown instead. */
export type ChangeOutcome =
  | { kind: "accepted"; threadId: string; attempts: Attempt[]; result: CheckChangeResult }
  | { kind: "rejected"; threadId: string; attempts: Attempt[] }
  | { kind: "cancelled"; threadId: string; attempts: Attempt[] };

/** A run of the loop. */
export interface ChangeRun {
  commands: ChangeCommands;
  model: ChatModel;
  /** The build request of the target: active_file, selection or plan_step, and the `ctxd.model.*` model. */
  request: BuildRequest;
  intent: string;
  /** Retries after the first attempt. */
  maxRetries: number;
  /** The answer's bound (max_output_tokens). */
  maxOutputTokens: number;
  /** A thread id; a new one by default. */
  threadId?: string;
  token?: CancelToken;
  onEvent?: (event: ChangeEvent) => void;
}

function rejectionOf(check: CheckChangeResult): Rejection {
  return (
    check.failure ?? {
      code: "CHANGE_MALFORMED",
      message: `ctxd answered status "${check.status}" without a failure`,
      advice: "check the ctxd version",
      error_context: { message: "The previous answer could not be checked. Answer with a unified diff of the target." },
    }
  );
}

/**
 * Runs the loop: at most maxRetries + 1 attempts, each a new turn of one
 * thread whose parent is the previous attempt. Resolves with the accepted
 * check, every attempt rejected, or a cancellation; rejects with what
 * renderPrompt, the model or checkChange threw.
 */
export async function runChange(run: ChangeRun): Promise<ChangeOutcome> {
  const threadId = run.threadId ?? newThreadId();
  const attempts: Attempt[] = [];
  const of = Math.max(0, Math.floor(run.maxRetries)) + 1;
  const emit = (e: ChangeEvent) => run.onEvent?.(e);
  const cancelled = () => run.token?.isCancellationRequested === true;
  const intent = { id: threadId, text: run.intent.trim() };
  const model = changeModel(run.request.model, run.model, run.maxOutputTokens);
  let lastError: LastError | undefined;
  // Files the answers created outside their bundles (CHANGE_NOT_IN_BUNDLE):
  // every later attempt's plan_step.new_files names them.
  const newFiles: string[] = [];
  for (let attempt = 1; attempt <= of; attempt++) {
    if (cancelled()) {
      return { kind: "cancelled", threadId, attempts };
    }
    emit({ kind: "rendering", attempt, of });
    const req = attemptRequest(run.request, intent, model, threadId, attempt, lastError, newFiles);
    const rendered = await run.commands.renderPrompt(req, run.token);
    const prompt = rendered.prompt;
    if (prompt === null || prompt === undefined || !Array.isArray(prompt.messages) || prompt.messages.length === 0) {
      throw new Error("ctxd.renderPrompt answered without a prompt");
    }
    if (cancelled()) {
      return { kind: "cancelled", threadId, attempts };
    }
    const promptTokens = prompt.token_counts?.total;
    emit({ kind: "asking", attempt, of, bundleId: prompt.bundle_id, ...(promptTokens !== undefined ? { promptTokens } : {}) });
    let characters = 0;
    let answer: string;
    try {
      answer = await run.model.send(prompt.messages, run.token, (text) => {
        characters += text.length;
        emit({ kind: "receiving", attempt, of, characters });
      });
    } catch (err) {
      if (isModelCancelled(err) || cancelled()) {
        return { kind: "cancelled", threadId, attempts };
      }
      throw err;
    }
    if (cancelled()) {
      return { kind: "cancelled", threadId, attempts };
    }
    emit({ kind: "checking", attempt, of, characters: answer.length });
    const args: CheckChangeArgs = { answer, thread_id: threadId, turn_id: turnId(attempt) };
    if (prompt.bundle_id) {
      args.bundle_id = prompt.bundle_id;
    }
    const check = await run.commands.checkChange(args, run.token);
    const record: Attempt = { attempt, turnId: turnId(attempt), bundleId: prompt.bundle_id, answer, check };
    if (attempt > 1) record.parentTurnId = turnId(attempt - 1);
    if (promptTokens !== undefined) record.promptTokens = promptTokens;
    attempts.push(record);
    if (check.status === "accepted") {
      emit({ kind: "accepted", attempt: record });
      return { kind: "accepted", threadId, attempts, result: check };
    }
    const failure = rejectionOf(check);
    emit({ kind: "rejected", attempt: record, of, failure });
    lastError = failure.error_context;
    for (const p of filesToCreate(check)) {
      if (!newFiles.includes(p)) newFiles.push(p);
    }
  }
  return { kind: "rejected", threadId, attempts };
}

/** "1: CHANGE_CONTEXT_MISMATCH, 2: CHANGE_SYNTAX_ERROR": every rejected attempt's code. */
export function rejectionCodes(attempts: readonly Attempt[]): string {
  return attempts
    .filter((a) => a.check.status !== "accepted")
    .map((a) => `${a.attempt}: ${rejectionOf(a.check).code}`)
    .join(", ");
}

/** The progress message of an event: the attempt, what happens, and the earlier rejections. */
export function progressMessage(e: ChangeEvent, earlier: readonly Attempt[], modelLabel: string): string {
  const rejected = rejectionCodes(earlier);
  const tail = rejected === "" ? "" : ` (rejected: ${rejected})`;
  switch (e.kind) {
    case "rendering":
      return `attempt ${e.attempt}/${e.of}: rendering the prompt…${tail}`;
    case "asking":
      return `attempt ${e.attempt}/${e.of}: asking ${modelLabel}…${tail}`;
    case "receiving":
      return `attempt ${e.attempt}/${e.of}: ${formatCount(e.characters)} characters received${tail}`;
    case "checking":
      return `attempt ${e.attempt}/${e.of}: checking ${formatCount(e.characters)} characters…${tail}`;
    case "rejected":
      return `attempt ${e.attempt.attempt}/${e.of} rejected: ${e.failure.code}${tail}`;
    case "accepted":
      return `attempt ${e.attempt.attempt} accepted`;
  }
}

/** The first line of a text (ctxd's messages may quote lines of a file after it). */
function firstLine(text: string): string {
  const i = text.search(/\r?\n|\r/);
  return i < 0 ? text : text.slice(0, i);
}

/** The output channel's entry of a rejection: a line, then the message's other lines indented. */
export function rejectionLine(threadId: string, attempt: Attempt, of: number): string {
  const f = rejectionOf(attempt.check);
  const files = attempt.check.files.map((x) => `${x.action} ${x.path}`).join(", ");
  const rest = f.message.split(/\r?\n|\r/).slice(1);
  const head = `generate change ${threadId}: attempt ${attempt.attempt}/${of} (${attempt.turnId}, bundle ${attempt.bundleId || "-"}) rejected ${f.code}: ${firstLine(f.message)}`;
  return [head, ...rest.map((l) => `    ${l}`), `    advice: ${f.advice}${files ? `; files: ${files}` : ""}`].join("\n");
}

/** The notification of a rejected attempt that is not the last: code, the message's first line, the advice. */
export function rejectionNotice(attempt: number, of: number, failure: Rejection): string {
  const advice = failure.advice.trim();
  return `ctxd: attempt ${attempt}/${of} rejected (${failure.code}): ${firstLine(failure.message).replace(/[.:]?$/, ".")}${advice ? ` ${advice.charAt(0).toUpperCase()}${advice.slice(1).replace(/[.]?$/, ".")}` : ""} Asking again…`;
}

/** The last line of a run that found no acceptable change. */
export function failureNotice(outcome: Extract<ChangeOutcome, { kind: "rejected" }>): string {
  const last = outcome.attempts[outcome.attempts.length - 1];
  const f = last ? rejectionOf(last.check) : undefined;
  const n = outcome.attempts.length;
  const head = `ctxd: no acceptable change after ${n} attempt${n === 1 ? "" : "s"} (${rejectionCodes(outcome.attempts)})`;
  return f ? `${head}. Last: ${f.code}: ${firstLine(f.message)}` : head + ".";
}

/**
 * The details of a run as markdown: per attempt the verdict, the
 * rejection with its explanation and the error_context the retry sent,
 * the files, and the answer (except one that carries a credential).
 */
export function changeDetailsMarkdown(outcome: ChangeOutcome, intent: string, modelLabel: string): string {
  const out: string[] = [];
  out.push(`# ctxd: Generate Change`, "");
  out.push(`- Intent: ${escapeMarkdown(intent)}`);
  out.push(`- Model: ${escapeMarkdown(modelLabel)}`);
  out.push(`- Thread: ${code(outcome.threadId)}`);
  const verdict = outcome.kind === "accepted" ? "accepted" : outcome.kind === "cancelled" ? "cancelled" : `no acceptable change (${rejectionCodes(outcome.attempts)})`;
  out.push(`- Outcome: ${verdict}`, "");
  for (const a of outcome.attempts) {
    out.push(`## Attempt ${a.attempt}: ${a.check.status}${a.check.failure ? ` (${code(a.check.failure.code)})` : ""}`, "");
    out.push(`- Turn: ${code(a.turnId)}${a.parentTurnId ? `, after ${code(a.parentTurnId)}` : ""}`);
    out.push(`- Bundle: ${a.bundleId ? code(a.bundleId) : "none"}${a.promptTokens !== undefined ? `, ${formatCount(a.promptTokens)} prompt tokens` : ""}`);
    out.push(`- Format: ${a.check.format ? code(a.check.format) : "none found"}`);
    for (const f of a.check.files) {
      out.push(`- ${f.action} ${code(f.path)}`);
    }
    out.push("");
    const failure = a.check.failure;
    if (failure) {
      out.push(fence(failure.message), "", `Advice: ${escapeMarkdown(failure.advice)}`, "");
      out.push("Sent to the model with the next attempt (`last_error`):", "", fence(failure.error_context.message + (failure.error_context.path ? `\nLocation: ${failure.error_context.path}` : "")), "");
      const explanation = explainRefusal(failure.code);
      if (explanation !== undefined) {
        out.push(explanation.split("\n\n").map((p) => `> ${escapeMarkdown(p)}`).join("\n>\n"), "");
      }
    }
    if (failure?.code === "CHANGE_SECRET") {
      out.push("The answer is not shown: it carries a credential.", "");
    } else {
      out.push("The answer:", "", fence(a.answer), "");
    }
  }
  return out.join("\n");
}

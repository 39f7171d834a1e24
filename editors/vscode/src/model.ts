// The model clients of "ctxd: Generate Change…". ctxd itself never opens a
// network connection: the extension, as the user's own client, sends the
// prompt ctxd rendered to the model the user chose and reads the answer
// back as it streams. Three providers:
//
// - vscode-lm: VS Code's Language Model API (vscode.lm, VS Code 1.90+),
//   e.g. the models of GitHub Copilot Chat; passed in as a structural type
//   so that this module does not import `vscode` and runs in plain node;
// - openai: any OpenAI-compatible chat completions endpoint (OpenAI,
//   llama.cpp's server, Ollama's /v1, vLLM, …), streamed as SSE;
// - anthropic: the Anthropic Messages API, streamed as SSE.
//
// The HTTP clients use Node's global fetch (Node 18+, the extension host's)
// with an AbortController tied to the cancellation token. Nothing here
// logs or echoes a key.

import type { Message } from "./contract.gen";

/** A message of a prompt: ctxd renders [system, user]. */
export type ChatMessage = Pick<Message, "role" | "content">;

/** VS Code's CancellationToken, structurally (the tests pass their own). */
export interface CancelToken {
  readonly isCancellationRequested: boolean;
  onCancellationRequested(listener: () => unknown): { dispose(): unknown };
}

/** A chat model the change loop can ask. */
export interface ChatModel {
  /** The provider, as the build request's `model.provider` (e.g. `openai`, or the LM vendor `copilot`). */
  readonly provider: string;
  /** The model, as the build request's `model.model` (it selects ctxd's token estimator). */
  readonly model: string;
  /** The model's input window, when the provider reports one (vscode-lm does). */
  readonly maxInputTokens?: number;
  /** For messages: "openai gpt-4o at http://127.0.0.1:11434/v1". */
  readonly label: string;
  /**
   * Sends the messages and resolves with the whole answer; `onText` hears
   * each piece as it arrives. Rejects with a ModelError (a cancellation is
   * a ModelError of kind "cancelled").
   */
  send(messages: readonly ChatMessage[], token: CancelToken | undefined, onText?: (text: string) => void): Promise<string>;
}

/** Why a model call failed. */
export type ModelErrorKind =
  /** The user cancelled. */
  | "cancelled"
  /** 401/403: the key is missing or wrong. */
  | "auth"
  /** Any other HTTP status. */
  | "http"
  /** The endpoint could not be reached. */
  | "network"
  /** The stream carried an error event, or was not what the API sends. */
  | "stream"
  /** No model is available (vscode-lm), or the API is missing. */
  | "unavailable";

/** A failed model call, with a message fit for a notification (never a key). */
export class ModelError extends Error {
  override readonly name = "ModelError";
  constructor(
    readonly kind: ModelErrorKind,
    message: string,
    /** The HTTP status, for "auth" and "http". */
    readonly status?: number,
  ) {
    super(message);
  }
}

/** Whether an error is a cancelled model call. */
export function isModelCancelled(err: unknown): boolean {
  return err instanceof ModelError && err.kind === "cancelled";
}

// ---------------------------------------------------------------------------
// Server-sent events

/** One server-sent event: its type ("message" when the stream names none) and its data lines joined by "\n". */
export interface SseEvent {
  event: string;
  data: string;
}

/**
 * An incremental parser of a text/event-stream (the WHATWG
 * server-sent-events rules): lines end at "\r\n", "\n" or "\r"; a blank line
 * dispatches the event; "data:" lines accumulate, "event:" names it, lines
 * starting with ":" are comments; one space after the colon is dropped.
 * Chunks may split anywhere, also between "\r" and "\n".
 */
export class SseParser {
  private buffer = "";
  private data: string[] = [];
  private event = "";
  private started = false;

  /** Feeds a chunk; returns the events it completed. */
  push(chunk: string): SseEvent[] {
    this.buffer += chunk;
    if (!this.started && this.buffer.length > 0) {
      this.started = true;
      if (this.buffer.charCodeAt(0) === 0xfeff) {
        this.buffer = this.buffer.slice(1);
      }
    }
    return this.drain(false);
  }

  /**
   * Ends the stream: the last line counts even without its line break,
   * and an event whose blank line never came is dispatched too (a lenient
   * reading of a stream cut short by a server that closed it).
   */
  end(): SseEvent[] {
    return this.drain(true);
  }

  private drain(final: boolean): SseEvent[] {
    const out: SseEvent[] = [];
    const b = this.buffer;
    let start = 0;
    for (;;) {
      let i = start;
      while (i < b.length && b.charCodeAt(i) !== 10 && b.charCodeAt(i) !== 13) {
        i++;
      }
      if (i >= b.length) {
        break;
      }
      if (b.charCodeAt(i) === 13 && i + 1 === b.length && !final) {
        // A "\r" at the end of the chunk: its "\n" may come next.
        break;
      }
      this.line(b.slice(start, i), out);
      start = i + (b.charCodeAt(i) === 13 && b.charCodeAt(i + 1) === 10 ? 2 : 1);
    }
    this.buffer = b.slice(start);
    if (final) {
      if (this.buffer !== "") {
        this.line(this.buffer, out);
        this.buffer = "";
      }
      this.dispatch(out);
    }
    return out;
  }

  private line(line: string, out: SseEvent[]): void {
    if (line === "") {
      this.dispatch(out);
      return;
    }
    if (line.startsWith(":")) {
      return;
    }
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) {
      value = value.slice(1);
    }
    if (field === "data") {
      this.data.push(value);
    } else if (field === "event") {
      this.event = value;
    }
    // "id" and "retry" mean nothing to a one-shot completion.
  }

  private dispatch(out: SseEvent[]): void {
    if (this.data.length > 0) {
      out.push({ event: this.event === "" ? "message" : this.event, data: this.data.join("\n") });
    }
    this.data = [];
    this.event = "";
  }
}

// ---------------------------------------------------------------------------
// The streamed answers of the two HTTP APIs

/**
 * Reads the events of an OpenAI chat completions stream: the text of
 * `choices[0].delta.content`; `[DONE]` ends it; an `error` member is an
 * error (llama.cpp, vLLM and OpenAI send one mid-stream).
 */
export class OpenAIStream {
  private done = false;

  /** Whether `[DONE]` was seen. */
  get finished(): boolean {
    return this.done;
  }

  /** The text of one event; throws a ModelError for an error event. */
  text(ev: SseEvent): string {
    if (this.done) {
      return "";
    }
    const data = ev.data.trim();
    if (data === "[DONE]") {
      this.done = true;
      return "";
    }
    if (data === "") {
      return "";
    }
    const json = parseJson(data, "the OpenAI stream");
    const error = apiErrorMessage(json);
    if (ev.event === "error" || error !== undefined) {
      throw new ModelError("stream", `the model's stream reported an error: ${error ?? data.slice(0, 300)}`);
    }
    const content = at(json, "choices", 0, "delta", "content");
    return typeof content === "string" ? content : "";
  }
}

/**
 * Reads the events of an Anthropic Messages stream: the `text` of
 * `content_block_delta` events whose delta is a `text_delta`;
 * `message_stop` ends it; an `error` event is an error. Other events
 * (message_start, content_block_start/stop, message_delta, ping) carry no
 * text.
 */
export class AnthropicStream {
  private done = false;

  get finished(): boolean {
    return this.done;
  }

  text(ev: SseEvent): string {
    if (this.done || ev.data.trim() === "") {
      return "";
    }
    const json = parseJson(ev.data, "the Anthropic stream");
    const type = typeof at(json, "type") === "string" ? (at(json, "type") as string) : ev.event;
    switch (type) {
      case "content_block_delta": {
        const t = at(json, "delta", "text");
        return typeof t === "string" ? t : "";
      }
      case "message_stop":
        this.done = true;
        return "";
      case "error":
        throw new ModelError("stream", `the model's stream reported an error: ${apiErrorMessage(json) ?? ev.data.slice(0, 300)}`);
      default:
        return "";
    }
  }
}

function parseJson(data: string, what: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    throw new ModelError("stream", `${what} sent an event that is not JSON: ${data.slice(0, 200)}`);
  }
}

/** A member of nested objects and arrays, or undefined. */
function at(value: unknown, ...path: (string | number)[]): unknown {
  let v = value;
  for (const key of path) {
    if (typeof key === "number") {
      if (!Array.isArray(v)) return undefined;
      v = v[key];
    } else {
      if (typeof v !== "object" || v === null || Array.isArray(v)) return undefined;
      v = (v as Record<string, unknown>)[key];
    }
  }
  return v;
}

/** The message of an API error body: `{error: {message}}`, `{error: "…"}` or `{message}`. */
function apiErrorMessage(json: unknown): string | undefined {
  const error = at(json, "error");
  if (typeof error === "string") {
    return error;
  }
  const message = at(error, "message");
  if (typeof message === "string") {
    const type = at(error, "type");
    return typeof type === "string" && type !== "" ? `${message} (${type})` : message;
  }
  return undefined;
}

// ---------------------------------------------------------------------------
// HTTP

/** The global fetch's signature, narrowed to what the clients use (tests may pass another). */
export type Fetch = (url: string, init: { method: string; headers: Record<string, string>; body: string; signal: AbortSignal }) => Promise<FetchResponse>;

/** What the clients read of a fetch Response. */
export interface FetchResponse {
  readonly ok: boolean;
  readonly status: number;
  readonly statusText: string;
  readonly headers: { get(name: string): string | null };
  readonly body: ReadableStream<Uint8Array> | null;
  text(): Promise<string>;
}

/** The fetch of the running Node, or an error on one without it (Node < 18). */
function defaultFetch(): Fetch {
  const f = (globalThis as { fetch?: unknown }).fetch;
  if (typeof f !== "function") {
    throw new ModelError("unavailable", "this extension host has no fetch (Node 18 or later is needed for the openai and anthropic providers)");
  }
  return f as Fetch;
}

/** Joins a base URL and a path with exactly one "/". */
export function joinUrl(base: string, path: string): string {
  return base.replace(/\/+$/, "") + "/" + path.replace(/^\/+/, "");
}

/** A URL for messages: without credentials, query or fragment. */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/$/, "")}`;
  } catch {
    return url;
  }
}

/** What an HTTP model client needs. */
export interface HttpModelOptions {
  /** The base URL (OpenAI: up to and including `/v1`; Anthropic: the host, `/v1` optional). */
  baseUrl: string;
  /** The model name the API expects. */
  model: string;
  /** The API key; undefined or "" sends none (a local server). */
  apiKey?: string;
  /** The most tokens the answer may have (Anthropic's required `max_tokens`). */
  maxOutputTokens?: number;
  /** Another fetch (tests); the global one by default. */
  fetch?: Fetch;
}

/**
 * POSTs a JSON body and feeds the streamed events to `each`, which returns
 * the text of an event. A JSON (not streamed) answer is read whole with
 * `whole`. Resolves with the answer's text.
 */
async function streamRequest(
  url: string,
  headers: Record<string, string>,
  body: unknown,
  token: CancelToken | undefined,
  onText: ((text: string) => void) | undefined,
  fetchFn: Fetch | undefined,
  stream: { text(ev: SseEvent): string; readonly finished: boolean },
  whole: (json: unknown) => string,
): Promise<string> {
  if (token?.isCancellationRequested) {
    throw new ModelError("cancelled", "cancelled");
  }
  const f = fetchFn ?? defaultFetch();
  const abort = new AbortController();
  const listener = token?.onCancellationRequested(() => abort.abort());
  const cancelled = () => abort.signal.aborted || token?.isCancellationRequested === true;
  const where = displayUrl(url);
  try {
    let res: FetchResponse;
    try {
      res = await f(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body), signal: abort.signal });
    } catch (err) {
      if (cancelled()) {
        throw new ModelError("cancelled", "cancelled");
      }
      throw new ModelError("network", `could not reach ${where}: ${networkReason(err)}`);
    }
    if (!res.ok) {
      const text = await res.text().catch(() => "");
      let detail: string | undefined;
      try {
        detail = apiErrorMessage(JSON.parse(text));
      } catch {
        detail = text.trim().slice(0, 300) || undefined;
      }
      const status = `${res.status}${res.statusText ? " " + res.statusText : ""}`;
      const kind = res.status === 401 || res.status === 403 ? "auth" : "http";
      throw new ModelError(kind, `${where} answered ${status}${detail ? `: ${detail}` : ""}`, res.status);
    }
    const type = res.headers.get("content-type") ?? "";
    if (!/text\/event-stream/i.test(type) || res.body === null) {
      // A server that ignores "stream": one JSON answer.
      const text = await res.text();
      let answer: string;
      try {
        answer = whole(JSON.parse(text));
      } catch (err) {
        if (err instanceof ModelError) throw err;
        throw new ModelError("stream", `${where} answered ${type || "no content type"}, neither a stream nor JSON`);
      }
      onText?.(answer);
      return answer;
    }
    const parser = new SseParser();
    const decoder = new TextDecoder("utf-8");
    const reader = res.body.getReader();
    let answer = "";
    const take = (events: SseEvent[]) => {
      for (const ev of events) {
        const t = stream.text(ev);
        if (t !== "") {
          answer += t;
          onText?.(t);
        }
      }
    };
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) {
          break;
        }
        take(parser.push(decoder.decode(value, { stream: true })));
        if (stream.finished) {
          break;
        }
      }
      if (!stream.finished) {
        take(parser.push(decoder.decode()));
        take(parser.end());
      }
    } catch (err) {
      if (cancelled()) {
        throw new ModelError("cancelled", "cancelled");
      }
      if (err instanceof ModelError) {
        throw err;
      }
      throw new ModelError("network", `the stream from ${where} broke off: ${networkReason(err)}`);
    } finally {
      void reader.cancel().catch(() => undefined);
    }
    if (cancelled()) {
      throw new ModelError("cancelled", "cancelled");
    }
    return answer;
  } finally {
    listener?.dispose();
  }
}

/** The reason of a fetch failure: undici hides it in `cause`. */
function networkReason(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } } | undefined)?.cause;
  if (cause?.code) {
    return cause.message ? `${cause.code} (${cause.message})` : cause.code;
  }
  return err instanceof Error ? err.message : String(err);
}

/** The default base URLs. */
export const DefaultBaseUrls = {
  openai: "https://api.openai.com/v1",
  anthropic: "https://api.anthropic.com",
} as const;

/**
 * An OpenAI-compatible chat completions endpoint:
 * POST {baseUrl}/chat/completions with `stream: true`, the key (if any) as
 * `Authorization: Bearer`, the answer from `choices[0].delta.content`.
 */
export class OpenAIChatModel implements ChatModel {
  readonly provider = "openai";
  readonly model: string;
  readonly label: string;

  constructor(private readonly options: HttpModelOptions) {
    this.model = options.model;
    this.label = `openai ${options.model} at ${displayUrl(options.baseUrl)}`;
  }

  /** The URL requests go to. */
  get url(): string {
    return joinUrl(this.options.baseUrl, "chat/completions");
  }

  send(messages: readonly ChatMessage[], token: CancelToken | undefined, onText?: (text: string) => void): Promise<string> {
    const headers: Record<string, string> = { accept: "text/event-stream" };
    if (this.options.apiKey) {
      headers.authorization = `Bearer ${this.options.apiKey}`;
    }
    const body = {
      model: this.options.model,
      messages: messages.map((m) => ({ role: m.role, content: m.content })),
      stream: true,
    };
    return streamRequest(this.url, headers, body, token, onText, this.options.fetch, new OpenAIStream(), (json) => {
      const error = apiErrorMessage(json);
      if (error !== undefined) throw new ModelError("stream", `the model answered an error: ${error}`);
      const content = at(json, "choices", 0, "message", "content");
      if (typeof content !== "string") throw new ModelError("stream", "the answer has no choices[0].message.content");
      return content;
    });
  }
}

/** The Anthropic API version the client speaks. */
export const AnthropicVersion = "2023-06-01";

/**
 * The Anthropic Messages API: POST {baseUrl}/v1/messages with `stream:
 * true`, headers `x-api-key` and `anthropic-version`; the system messages
 * go in the top-level `system` field, the answer comes from
 * `content_block_delta` events.
 */
export class AnthropicChatModel implements ChatModel {
  readonly provider = "anthropic";
  readonly model: string;
  readonly label: string;

  constructor(private readonly options: HttpModelOptions) {
    this.model = options.model;
    this.label = `anthropic ${options.model} at ${displayUrl(options.baseUrl)}`;
  }

  get url(): string {
    const base = this.options.baseUrl.replace(/\/+$/, "");
    return /\/v1$/.test(base) ? joinUrl(base, "messages") : joinUrl(base, "v1/messages");
  }

  send(messages: readonly ChatMessage[], token: CancelToken | undefined, onText?: (text: string) => void): Promise<string> {
    const headers: Record<string, string> = { accept: "text/event-stream", "anthropic-version": AnthropicVersion };
    if (this.options.apiKey) {
      headers["x-api-key"] = this.options.apiKey;
    }
    const system = messages.filter((m) => m.role === "system").map((m) => m.content);
    const body: Record<string, unknown> = {
      model: this.options.model,
      max_tokens: this.options.maxOutputTokens ?? 4096,
      messages: mergeTurns(messages.filter((m) => m.role !== "system")),
      stream: true,
    };
    if (system.length > 0) {
      body.system = system.join("\n\n");
    }
    return streamRequest(this.url, headers, body, token, onText, this.options.fetch, new AnthropicStream(), (json) => {
      const error = apiErrorMessage(json);
      if (error !== undefined) throw new ModelError("stream", `the model answered an error: ${error}`);
      const content = at(json, "content");
      if (!Array.isArray(content)) throw new ModelError("stream", "the answer has no content");
      return content.map((c) => (at(c, "type") === "text" && typeof at(c, "text") === "string" ? (at(c, "text") as string) : "")).join("");
    });
  }
}

/**
 * Messages as Anthropic takes them: roles user and assistant only, and
 * alternating (consecutive messages of one role are merged).
 */
function mergeTurns(messages: readonly ChatMessage[]): { role: "user" | "assistant"; content: string }[] {
  const out: { role: "user" | "assistant"; content: string }[] = [];
  for (const m of messages) {
    const role = m.role === "assistant" ? "assistant" : "user";
    const last = out[out.length - 1];
    if (last !== undefined && last.role === role) {
      last.content += "\n\n" + m.content;
    } else {
      out.push({ role, content: m.content });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------
// VS Code's Language Model API (vscode.lm), structurally

/** A chat model of vscode.lm (LanguageModelChat, VS Code 1.90+). */
export interface LmChat {
  readonly id: string;
  readonly name: string;
  readonly vendor: string;
  readonly family: string;
  readonly version: string;
  readonly maxInputTokens: number;
  sendRequest(messages: unknown[], options?: object, token?: CancelToken): PromiseLike<{ text: AsyncIterable<string> }>;
}

/** vscode.lm, as far as the extension uses it. */
export interface LmApi {
  selectChatModels(selector?: { vendor?: string; family?: string }): PromiseLike<LmChat[]>;
}

/** vscode.LanguageModelChatMessage's factories. */
export interface LmMessages {
  User(content: string): unknown;
  Assistant(content: string): unknown;
}

/** The part of the `vscode` module the Language Model API lives in; both absent before VS Code 1.90. */
export interface LmHost {
  lm?: LmApi;
  LanguageModelChatMessage?: LmMessages;
  version?: string;
}

/**
 * Selects the first chat model of vscode.lm matching the vendor and family
 * (either may be empty: any). Rejects with a ModelError of kind
 * "unavailable" when the API is missing (VS Code before 1.90) or no model
 * matches.
 */
export async function selectLmModel(host: LmHost, vendor?: string, family?: string): Promise<LmChatModel> {
  if (host.lm === undefined || typeof host.lm.selectChatModels !== "function" || host.LanguageModelChatMessage === undefined) {
    throw new ModelError(
      "unavailable",
      `this VS Code${host.version ? ` (${host.version})` : ""} has no Language Model API (vscode.lm, VS Code 1.90 or later): update VS Code, or set ctxd.change.provider to openai or anthropic`,
    );
  }
  const selector: { vendor?: string; family?: string } = {};
  if (vendor?.trim()) selector.vendor = vendor.trim();
  if (family?.trim()) selector.family = family.trim();
  let models: LmChat[];
  try {
    models = await host.lm.selectChatModels(selector);
  } catch (err) {
    throw new ModelError("unavailable", `vscode.lm could not list chat models: ${err instanceof Error ? err.message : String(err)}`);
  }
  const model = models[0];
  if (model === undefined) {
    const wanted = [selector.vendor ? `vendor "${selector.vendor}"` : "", selector.family ? `family "${selector.family}"` : ""].filter((s) => s !== "").join(" and ");
    throw new ModelError(
      "unavailable",
      `no chat model of VS Code's Language Model API${wanted ? ` matches ${wanted}` : " is available"}: install and sign in to an extension that provides one (e.g. GitHub Copilot Chat), change ctxd.change.lmVendor / ctxd.change.lmFamily, or set ctxd.change.provider to openai or anthropic`,
    );
  }
  return new LmChatModel(model, host.LanguageModelChatMessage);
}

/**
 * A vscode.lm chat model. The API has no system role: the system message
 * is sent as the first user message.
 */
export class LmChatModel implements ChatModel {
  readonly provider: string;
  readonly model: string;
  readonly maxInputTokens: number | undefined;
  readonly label: string;

  constructor(
    private readonly chat: LmChat,
    private readonly factory: LmMessages,
  ) {
    this.provider = chat.vendor;
    this.model = chat.family || chat.id;
    this.maxInputTokens = Number.isInteger(chat.maxInputTokens) && chat.maxInputTokens > 0 ? chat.maxInputTokens : undefined;
    this.label = `${chat.name || chat.id} (${chat.vendor}, VS Code language model)`;
  }

  async send(messages: readonly ChatMessage[], token: CancelToken | undefined, onText?: (text: string) => void): Promise<string> {
    if (token?.isCancellationRequested) {
      throw new ModelError("cancelled", "cancelled");
    }
    const lmMessages = messages.map((m) => (m.role === "assistant" ? this.factory.Assistant(m.content) : this.factory.User(m.content)));
    let answer = "";
    try {
      const response = await this.chat.sendRequest(lmMessages, {}, token);
      for await (const piece of response.text) {
        answer += piece;
        onText?.(piece);
        if (token?.isCancellationRequested) {
          break;
        }
      }
    } catch (err) {
      if (token?.isCancellationRequested) {
        throw new ModelError("cancelled", "cancelled");
      }
      // vscode.LanguageModelError: code NoPermissions, Blocked, NotFound, …
      const code = (err as { code?: unknown } | undefined)?.code;
      const message = err instanceof Error ? err.message : String(err);
      throw new ModelError(code === "NoPermissions" ? "auth" : "unavailable", `${this.label}: ${message}${typeof code === "string" && code !== "" ? ` (${code})` : ""}`);
    }
    if (token?.isCancellationRequested) {
      throw new ModelError("cancelled", "cancelled");
    }
    return answer;
  }
}

// The API the ctxd extension returns from activate(), for other extensions:
//
//   const ext = vscode.extensions.getExtension<CtxdApi>("ctxd.ctxd");
//   const api = await ext?.activate();
//   const result = await api?.buildContext({ purpose: "diff", active_file: uri.toString() });
//
// Each method sends one ctxd command (docs/protocol.md "Context commands")
// through the extension's running server, waiting while it starts. The
// types are the generated wire contract (src/contract.gen.ts), so they
// follow the server.

import type { BudgetResult, BuildRequest, BuildResult, PromptResult, Refusal } from "./src/contract.gen";

export type { BudgetResult, BuildRequest, BuildResult, PromptResult, Refusal } from "./src/contract.gen";

/** The arguments of ctxd.renderPrompt: a build request plus a template id (absent: the purpose's default). */
export interface RenderPromptRequest extends BuildRequest {
  template_id?: string;
}

/**
 * What the promises reject with when ctxd refuses (JSON-RPC error -32803).
 * Compare `name`, not the class: the class lives in the ctxd extension's
 * bundle, so `instanceof` cannot work across extensions.
 */
export interface CtxdRefusalError extends Error {
  readonly name: "CtxdRefusalError";
  /** The refusal: code, message, advice, and the reports computed before refusing. */
  readonly refusal: Refusal;
}

/**
 * What the promises reject with for every other failure: the server is not
 * running, an invalid request (-32602, naming the field), an open document
 * out of sync (-32801), a cancellation (-32800), an internal error.
 */
export interface CtxdCommandError extends Error {
  readonly name: "CtxdCommandError";
  readonly command: string;
  /** The JSON-RPC error code, when the server answered with one. */
  readonly code?: number;
}

export interface CtxdApi {
  /** ctxd.buildContext: builds and records a bundle. */
  buildContext(request: BuildRequest): Promise<BuildResult>;
  /** ctxd.budget: the budget of the same selection, without building or recording. */
  budget(request: BuildRequest): Promise<BudgetResult>;
  /** ctxd.renderPrompt: builds, records and renders a provider-ready prompt. */
  renderPrompt(request: RenderPromptRequest): Promise<PromptResult>;
}

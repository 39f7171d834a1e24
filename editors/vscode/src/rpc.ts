// ctxd's commands as typed calls over any `workspace/executeCommand`
// sender, and the decoding of its errors. Pure (no `vscode` import): the
// extension sends through its LanguageClient, the integration test through
// a bare protocol connection, and both get the same results and errors.

import { CodeRefused, Commands, RefusalCodes } from "./contract.gen";
import type {
  BudgetResult,
  BuildRequest,
  BuildResult,
  CheckChangeArgs,
  CheckChangeResult,
  IndexStatusResult,
  ManifestResult,
  PromptResult,
  Refusal,
} from "./contract.gen";
import type { RenderPromptRequest } from "./request";

/** JSON-RPC codes the extension treats specially (docs/protocol.md "Errors"). */
export const ErrorCodes = {
  invalidParams: -32602,
  internalError: -32603,
  requestCancelled: -32800,
  contentModified: -32801,
  refused: CodeRefused,
} as const;

/**
 * Sends `workspace/executeCommand` with one argument and resolves with its
 * result; rejects with the JSON-RPC error (an object with `code`, `message`
 * and `data`) as the transport reports it. `token` is the transport's
 * cancellation token, passed through untouched (undefined: not cancellable).
 */
export type CommandSender = (command: string, argument: unknown, token?: unknown) => Promise<unknown>;

/** A ctxd refusal as an Error: what the API's promises reject with. */
export class CtxdRefusalError extends Error {
  override readonly name = "CtxdRefusalError";
  constructor(readonly refusal: Refusal) {
    super(`${refusal.code}: ${refusal.message}`);
  }
}

/** Any other failure of a ctxd command, with its JSON-RPC code when it had one. */
export class CtxdCommandError extends Error {
  override readonly name = "CtxdCommandError";
  constructor(
    readonly command: string,
    message: string,
    readonly code?: number,
  ) {
    super(message);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The JSON-RPC code of an error, if it has one. */
export function errorCode(err: unknown): number | undefined {
  return isObject(err) && typeof err.code === "number" ? err.code : undefined;
}

/**
 * The refusal carried by an error: a CtxdRefusalError's, or the `data` of a
 * JSON-RPC error -32803 when it has the refusal's required fields.
 */
export function refusalOf(err: unknown): Refusal | undefined {
  if (err instanceof CtxdRefusalError) {
    return err.refusal;
  }
  if (!isObject(err) || err.code !== CodeRefused || !isObject(err.data)) {
    return undefined;
  }
  const data = err.data;
  if (typeof data.code !== "string" || typeof data.message !== "string" || typeof data.advice !== "string") {
    return undefined;
  }
  return data as unknown as Refusal;
}

/** Whether a refusal code is one the contract lists (an unknown one is still shown). */
export function isKnownRefusalCode(code: string): boolean {
  return (RefusalCodes as readonly string[]).includes(code);
}

/** Whether an error is a cancellation (ours or the server's). */
export function isCancelled(err: unknown): boolean {
  return errorCode(err) === ErrorCodes.requestCancelled;
}

/** A one-line description of any error, for messages and the status bar. */
export function errorMessage(err: unknown): string {
  const refusal = refusalOf(err);
  if (refusal !== undefined) {
    return `${refusal.code}: ${refusal.message}`;
  }
  if (err instanceof Error) {
    return err.message;
  }
  if (isObject(err) && typeof err.message === "string") {
    return err.message;
  }
  return String(err);
}

/**
 * Whether the server advertised a command in its initialize result's
 * `executeCommandProvider.commands`.
 */
export function advertises(initializeResult: unknown, command: string): boolean {
  if (!isObject(initializeResult) || !isObject(initializeResult.capabilities)) {
    return false;
  }
  const provider = initializeResult.capabilities.executeCommandProvider;
  return isObject(provider) && Array.isArray(provider.commands) && provider.commands.includes(command);
}

/**
 * ctxd's context commands over a sender. Every method resolves with the
 * command's result and rejects with a CtxdRefusalError for a refusal, or a
 * CtxdCommandError for anything else.
 */
export class CtxdCommands {
  constructor(private readonly send: CommandSender) {}

  buildContext(request: BuildRequest, token?: unknown): Promise<BuildResult> {
    return this.call<BuildResult>(Commands.buildContext, request, token);
  }

  manifest(request: BuildRequest, token?: unknown): Promise<ManifestResult> {
    return this.call<ManifestResult>(Commands.manifest, request, token);
  }

  budget(request: BuildRequest, token?: unknown): Promise<BudgetResult> {
    return this.call<BudgetResult>(Commands.budget, request, token);
  }

  renderPrompt(request: RenderPromptRequest, token?: unknown): Promise<PromptResult> {
    return this.call<PromptResult>(Commands.renderPrompt, request, token);
  }

  /**
   * Checks a model's answer (ctxd.checkChange). A rejection is a result
   * (`status: "rejected"` with a failure), not an error.
   */
  checkChange(args: CheckChangeArgs, token?: unknown): Promise<CheckChangeResult> {
    return this.call<CheckChangeResult>(Commands.checkChange, args, token);
  }

  /** The index status; `skipped` adds the list of skipped paths. */
  indexStatus(skipped = false, token?: unknown): Promise<IndexStatusResult> {
    return this.call<IndexStatusResult>(Commands.indexStatus, skipped ? { skipped: true } : {}, token);
  }

  private async call<T>(command: string, argument: unknown, token: unknown): Promise<T> {
    let result: unknown;
    try {
      result = await this.send(command, argument, token);
    } catch (err) {
      const refusal = refusalOf(err);
      if (refusal !== undefined) {
        throw new CtxdRefusalError(refusal);
      }
      throw new CtxdCommandError(command, `${command} failed: ${errorMessage(err)}`, errorCode(err));
    }
    if (!isObject(result)) {
      throw new CtxdCommandError(command, `${command} answered ${result === null ? "null" : typeof result}, not an object`);
    }
    return result as T;
  }
}

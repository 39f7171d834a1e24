// "ctxd: Generate Change…" in VS Code: what to change (the active file,
// the selection or a symbol) and the intent (a quick pick with the last
// intents), the loop of change.ts in a cancellable progress notification
// with the model the settings choose, then the accepted change in VS Code's
// diff editor with Accept and Reject (a notification's buttons and the diff
// editor's title bar). Accept applies the edit through
// vscode.workspace.applyEdit, so Undo reverts it, after checking that the
// documents are still the ones ctxd checked; Reject closes the diff.
//
// The model keys live in VS Code's SecretStorage (ctxd: Set Model API
// Key), never in settings.

import * as vscode from "vscode";
import type { ServerSession } from "./client";
import { Commands } from "./contract.gen";
import type { BuildRequest, CheckChangeResult, Refusal, Rejection } from "./contract.gen";
import {
  changeDetailsMarkdown,
  failureNotice,
  intentHistory,
  newThreadId,
  progressMessage,
  readChangeSettings,
  rejectionCodes,
  rejectionLine,
  rejectionNotice,
  rememberIntent,
  runChange,
  type Attempt,
  type ChangeEvent,
  type ChangeOutcome,
  type ChangeProvider,
  type ChangeSettings,
} from "./change";
import type { ResultDocuments } from "./documents";
import type { PositionEncoding } from "./encoding";
import { displayPath, editorStateOf, isBuildable } from "./editorState";
import { apiKeySecret, ChangePendingContext, ChangeScheme, ClientCommands, IntentHistoryKey } from "./ids";
import { pickIntent, pickSymbol } from "./pickers";
import {
  AnthropicChatModel,
  DefaultBaseUrls,
  displayUrl,
  ModelError,
  OpenAIChatModel,
  selectLmModel,
  type ChatModel,
  type LmHost,
} from "./model";
import { formatCount, linesText, displayLines, plural, refusalMarkdown, refusalNotice } from "./render";
import { maxDisambiguations, pickCandidate } from "./disambiguate";
import { buildRequest, isEmptyRange, withUserSelectedTarget } from "./request";
import { CtxdRefusalError, errorMessage, isCancelled } from "./rpc";
import { emitEdit, EditError, planEdit, StaleChangeError, type CurrentText, type EditPlan } from "./workspaceEdit";

/** What the command may be given instead of asking (other extensions, tests). */
export interface GenerateChangeArgs {
  scope?: "file" | "selection" | "symbol";
  /** The symbol of the "symbol" scope. */
  symbol?: string;
  intent?: string;
}

/**
 * The command's argument as GenerateChangeArgs: only its known members of
 * the right types. Anything else (the URI a menu passes) is no argument.
 */
export function generateChangeArgs(value: unknown): GenerateChangeArgs {
  if (typeof value !== "object" || value === null || Array.isArray(value) || value instanceof vscode.Uri) {
    return {};
  }
  const v = value as Record<string, unknown>;
  const out: GenerateChangeArgs = {};
  if (v.scope === "file" || v.scope === "selection" || v.scope === "symbol") out.scope = v.scope;
  if (typeof v.symbol === "string") out.symbol = v.symbol;
  if (typeof v.intent === "string") out.intent = v.intent;
  return out;
}


/** The fewest milliseconds between two "characters received" reports. */
const progressIntervalMs = 100;

/** The read-only texts of generated changes (the diff editor's sides that are not files). */
export class ChangeDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly contents = new Map<string, string>();
  private readonly changes = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changes.event;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.path) ?? "";
  }

  /** Sets a text under a path (`<thread>/after/<file path>`): the file's extension gives the diff its language. */
  set(path: string, content: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: ChangeScheme, path: "/" + path });
    this.contents.set(uri.path, content);
    this.changes.fire(uri);
    return uri;
  }

  /** Forgets the texts under a prefix. */
  drop(prefix: string): void {
    for (const key of [...this.contents.keys()]) {
      if (key.startsWith("/" + prefix + "/")) {
        this.contents.delete(key);
      }
    }
  }

  dispose(): void {
    this.changes.dispose();
    this.contents.clear();
  }
}

/** An accepted change waiting for Accept or Reject. */
interface PendingChange {
  id: string;
  outcome: Extract<ChangeOutcome, { kind: "accepted" }>;
  plan: EditPlan;
  /** The encoding the edit's positions are in (the server's when it checked). */
  encoding: PositionEncoding;
  intent: string;
  modelLabel: string;
  /** Runs the same generation again (a stale document). */
  again: () => Promise<void>;
}

/** The extension context's parts the controller uses. */
export interface ChangeContext {
  readonly secrets?: vscode.SecretStorage;
  readonly globalState?: vscode.Memento;
}

/** Generate Change, its pending change, and the key commands. */
export class ChangeController implements vscode.Disposable {
  readonly documents = new ChangeDocuments();
  private pending: PendingChange | undefined;

  constructor(
    private readonly session: ServerSession,
    private readonly output: vscode.LogOutputChannel,
    private readonly docs: ResultDocuments,
    private readonly context: ChangeContext,
    /** The editor to build from (FileEditorTracker.target): the active file, else the last one of the workspace. */
    private readonly editors: () => vscode.TextEditor | undefined = () => vscode.window.activeTextEditor,
    /** The `vscode` module's Language Model API; the module itself by default (feature-detected). */
    private readonly lmHost: LmHost = vscode as unknown as LmHost,
  ) {}

  /** The content provider of the change documents. */
  registerDocuments(): vscode.Disposable {
    return vscode.workspace.registerTextDocumentContentProvider(ChangeScheme, this.documents);
  }

  // -------------------------------------------------------------------------
  // The command

  /** ctxd: Generate Change…: asks what and why, then runs the loop and shows the change. */
  async generate(args: GenerateChangeArgs = {}): Promise<void> {
    const editor = this.editors();
    if (editor === undefined || !isBuildable(editor)) {
      void vscode.window.showWarningMessage("ctxd: open a file of the workspace first.");
      return;
    }
    const target = await this.pickTarget(editor, args);
    if (target === undefined) {
      return;
    }
    const intent = args.intent?.trim() || (await this.pickIntent());
    if (intent === undefined || intent === "") {
      return;
    }
    await this.context.globalState?.update(IntentHistoryKey, rememberIntent(intentHistory(this.context.globalState.get(IntentHistoryKey)), intent));
    const request = buildRequest(editorStateOf(editor, "diff"), {
      scope: target.scope === "selection" ? "selection" : "file",
      encoding: this.session.encoding,
      ...(target.symbol !== undefined ? { symbols: [target.symbol] } : {}),
    });
    await this.execute(request, intent);
  }

  /** The target: the argument's, else a quick pick of the selection (when there is one), the file and a symbol. */
  private async pickTarget(editor: vscode.TextEditor, args: GenerateChangeArgs): Promise<{ scope: "file" | "selection" | "symbol"; symbol?: string } | undefined> {
    const s = editor.selection;
    const hasSelection = !isEmptyRange({ start: s.start, end: s.end });
    const path = displayPath(editor.document.uri);
    let scope = args.scope;
    if (scope === "selection" && !hasSelection) {
      scope = "file";
    }
    if (scope === undefined) {
      type Item = vscode.QuickPickItem & { scope: "file" | "selection" | "symbol" };
      const items: Item[] = [];
      if (hasSelection) {
        const lines = displayLines({ start: s.start, end: s.end });
        items.push({ label: "$(selection) Selection", description: `${lines ? linesText(lines) + " of " : ""}${path}`, scope: "selection" });
      }
      items.push({ label: "$(file) Active file", description: path, scope: "file" });
      items.push({ label: "$(symbol-method) Symbol…", description: "a function, method or type by name, resolved in the workspace", scope: "symbol" });
      const pick = await vscode.window.showQuickPick(items, { title: "ctxd: Generate Change — what should change?", placeHolder: "The target of the change" });
      if (pick === undefined) {
        return undefined;
      }
      scope = pick.scope;
    }
    if (scope !== "symbol") {
      return { scope };
    }
    let symbol = args.symbol?.trim();
    if (!symbol) {
      // The quick pick of Build Context for Symbol…: the workspace's symbols, the word at the cursor first.
      const wordRange = editor.document.getWordRangeAtPosition(editor.selection.active);
      symbol = (
        await pickSymbol("ctxd: Generate Change — symbol", wordRange ? editor.document.getText(wordRange) : "", (query, token) =>
          this.session.workspaceSymbols(query, token),
        )
      )?.name.trim();
    }
    return symbol ? { scope: "symbol", symbol } : undefined;
  }

  /** The intent: a quick pick whose items are the recent intents; typed text is a new one. */
  private pickIntent(): Promise<string | undefined> {
    const stored = this.context.globalState?.get(IntentHistoryKey);
    const placeholder =
      intentHistory(stored).length > 0
        ? "What should the change do? Type it, or pick a recent intent"
        : "What should the change do? (e.g. \"return ErrNotFound for an empty SKU\")";
    return pickIntent("ctxd: Generate Change — intent", stored, { placeholder });
  }

  /** Runs the loop for a request and an intent, answering an ambiguous target; shows the outcome. */
  private async execute(request: BuildRequest, intent: string): Promise<void> {
    try {
      await this.session.whenRunning();
    } catch (err) {
      void vscode.window.showErrorMessage(`ctxd: ${errorMessage(err)}`);
      return;
    }
    if (!this.session.advertises(Commands.checkChange)) {
      void vscode.window.showErrorMessage("ctxd: this ctxd server has no ctxd.checkChange; Generate Change needs a newer ctxd (see ctxd.server.path).");
      return;
    }
    const settings = this.settings();
    let model: ChatModel;
    try {
      model = await this.createModel(settings);
    } catch (err) {
      await this.showError(err, settings.provider);
      return;
    }
    this.output.info(`generate change: ${model.label}; up to ${settings.maxRetries + 1} attempts`);
    let req = request;
    for (let n = 0; n <= maxDisambiguations; n++) {
      let outcome: ChangeOutcome;
      try {
        outcome = await this.run(newThreadId(), req, intent, model, settings);
      } catch (err) {
        const refusal = err instanceof CtxdRefusalError ? err.refusal : undefined;
        const pick = refusal === undefined ? null : await pickCandidate(refusal, n);
        if (pick === undefined) {
          return;
        }
        if (pick !== null) {
          req = withUserSelectedTarget(req, pick);
          continue;
        }
        if (refusal !== undefined) {
          this.output.info(`generate change: refused ${refusal.code}`);
          await this.showRefusal(refusal);
          return;
        }
        if (isCancelled(err)) {
          this.output.info("generate change: cancelled");
          return;
        }
        await this.showError(err, settings.provider);
        return;
      }
      await this.finish(outcome, intent, model, () => this.execute(req, intent));
      return;
    }
  }

  /** The loop in a cancellable progress notification, logging every attempt. */
  private run(threadId: string, request: BuildRequest, intent: string, model: ChatModel, settings: ChangeSettings): Thenable<ChangeOutcome> {
    return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: "ctxd: Generate Change", cancellable: true }, (progress, token) => {
      const rejected: Attempt[] = [];
      let lastReport = 0;
      return runChange({
        commands: this.session.commands,
        model,
        request,
        intent,
        maxRetries: settings.maxRetries,
        maxOutputTokens: settings.maxOutputTokens,
        threadId,
        token,
        onEvent: (e) => {
          // The characters received: the first piece of each answer, then at most every progressIntervalMs.
          if (e.kind === "asking") {
            lastReport = 0;
          } else if (e.kind === "receiving") {
            const now = Date.now();
            if (now - lastReport < progressIntervalMs) {
              return;
            }
            lastReport = now;
          }
          this.log(threadId, e);
          progress.report({ message: progressMessage(e, rejected, model.label) });
          if (e.kind === "rejected") {
            rejected.push(e.attempt);
            if (e.attempt.attempt < e.of) {
              // Each rejection stays in the notification center; the last one is the run's error.
              void this.showRejection(e.attempt.attempt, e.of, e.failure);
            }
          }
        },
      });
    });
  }

  /** A notification of one rejected attempt, while the next one runs. */
  private async showRejection(attempt: number, of: number, failure: Rejection): Promise<void> {
    const choice = await vscode.window.showWarningMessage(rejectionNotice(attempt, of, failure), "Show Output");
    if (choice === "Show Output") {
      this.output.show(true);
    }
  }

  /** Logs an event of the loop (never the prompt, the answer or a key). */
  private log(threadId: string, e: ChangeEvent): void {
    const head = `generate change ${threadId}`;
    switch (e.kind) {
      case "asking":
        this.output.info(`${head}: attempt ${e.attempt}/${e.of}: prompt of bundle ${e.bundleId || "-"}${e.promptTokens !== undefined ? `, ${formatCount(e.promptTokens)} tokens` : ""}; asking the model`);
        break;
      case "checking":
        this.output.info(`${head}: attempt ${e.attempt}/${e.of}: ${formatCount(e.characters)} characters received; checking with ctxd.checkChange`);
        break;
      case "rejected":
        this.output.warn(rejectionLine(threadId, e.attempt, e.of));
        break;
      case "accepted":
        this.output.info(`${head}: attempt ${e.attempt.attempt} accepted (${e.attempt.check.format ?? "no format"}): ${e.attempt.check.files.map((f) => `${f.action} ${f.path}`).join(", ")}`);
        break;
      default:
        break;
    }
  }

  /** Shows a run's outcome. */
  private async finish(outcome: ChangeOutcome, intent: string, model: ChatModel, again: () => Promise<void>): Promise<void> {
    const details = () => this.docs.show(`${outcome.threadId}.md`, changeDetailsMarkdown(outcome, intent, model.label));
    switch (outcome.kind) {
      case "cancelled": {
        this.output.info(`generate change ${outcome.threadId}: cancelled after ${plural(outcome.attempts.length, "checked attempt")}`);
        void vscode.window.showInformationMessage(`ctxd: Generate Change cancelled${outcome.attempts.length > 0 ? ` (rejected: ${rejectionCodes(outcome.attempts)})` : ""}.`);
        return;
      }
      case "rejected": {
        const message = failureNotice(outcome);
        this.output.error(`generate change ${outcome.threadId}: ${message.replace(/^ctxd: /, "")}`);
        const choice = await vscode.window.showErrorMessage(message, "Show Details", "Generate Again");
        if (choice === "Show Details") {
          await details();
        } else if (choice === "Generate Again") {
          await again();
        }
        return;
      }
      case "accepted":
        await this.review(outcome, intent, model.label, again);
        return;
    }
  }

  // -------------------------------------------------------------------------
  // Review: the diff, Accept and Reject

  /** The text of a file as the editor has it (an open document's buffer, else the file), or undefined when there is none. */
  private async currentText(uri: string): Promise<CurrentText | undefined> {
    const parsed = vscode.Uri.parse(uri);
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === parsed.toString());
    if (open !== undefined) {
      return { text: open.getText(), version: open.version };
    }
    try {
      const doc = await vscode.workspace.openTextDocument(parsed);
      return { text: doc.getText() };
    } catch {
      return undefined;
    }
  }

  /** Plans an accepted change, shows its first file's diff and asks Accept or Reject. */
  private async review(outcome: Extract<ChangeOutcome, { kind: "accepted" }>, intent: string, modelLabel: string, again: () => Promise<void>): Promise<void> {
    const encoding = this.session.encoding;
    let plan: EditPlan;
    try {
      plan = await planEdit(outcome.result, encoding, (uri) => this.currentText(uri));
    } catch (err) {
      await this.showNotApplied(err, again);
      return;
    }
    await this.discardPending();
    const pending: PendingChange = { id: outcome.threadId, outcome, plan, encoding, intent, modelLabel, again };
    this.pending = pending;
    await vscode.commands.executeCommand("setContext", ChangePendingContext, true);
    if (plan.files.length > 0) {
      await this.openDiff(pending, 0);
    }
    await this.ask(pending);
  }

  /** The notification of a pending change; its buttons resolve it, or it stays pending (the diff's title bar has Accept and Reject). */
  private async ask(p: PendingChange): Promise<void> {
    const last = p.outcome.attempts[p.outcome.attempts.length - 1]!;
    const earlier = rejectionCodes(p.outcome.attempts);
    const files = p.plan.files.map((f) => `${f.action} ${f.path}`).join(", ");
    const message = `ctxd: attempt ${last.attempt}'s change passed ctxd's checks (${files})${earlier ? `; rejected before: ${earlier}` : ""}. Review the diff, then accept or reject it.`;
    const actions = ["Accept", "Reject", ...(p.plan.files.length > 1 ? ["Show Files…"] : []), "Show Details"];
    for (;;) {
      const choice = await vscode.window.showInformationMessage(message, ...actions);
      if (this.pending !== p) {
        return; // resolved from the title bar, or replaced
      }
      switch (choice) {
        case "Accept":
          await this.accept();
          return;
        case "Reject":
          await this.reject();
          return;
        case "Show Files…": {
          const pick = await vscode.window.showQuickPick(
            p.plan.files.map((f, i) => ({ label: f.path, description: f.action, index: i })),
            { title: "ctxd: the files of the change", placeHolder: "Open the diff of a file" },
          );
          if (pick !== undefined) {
            await this.openDiff(p, pick.index);
          }
          continue;
        }
        case "Show Details":
          await this.docs.show(`${p.id}.md`, changeDetailsMarkdown(p.outcome, p.intent, p.modelLabel));
          continue;
        default:
          return; // dismissed: the change stays pending
      }
    }
  }

  /** Opens the diff of one file of a pending change: the file now on the left, the text after the change on the right. */
  private async openDiff(p: PendingChange, index: number): Promise<void> {
    const f = p.plan.files[index];
    if (f === undefined) {
      return;
    }
    const right = this.documents.set(`${p.id}/after/${f.path}`, f.after ?? "");
    const left = f.action === "create" ? this.documents.set(`${p.id}/before/${f.path}`, "") : vscode.Uri.parse(f.uri);
    const what = f.action === "create" ? " (new file)" : f.action === "delete" ? " (deleted)" : "";
    const title = `${f.path}${what} ↔ ctxd change`;
    await vscode.commands.executeCommand("vscode.diff", left, right, title, { preview: false });
  }

  /** The tabs of a pending change's diffs. */
  private diffTabs(id: string): vscode.Tab[] {
    const prefix = `/${id}/`;
    return vscode.window.tabGroups.all.flatMap((g) =>
      g.tabs.filter((t) => {
        const modified = (t.input as { modified?: vscode.Uri } | undefined)?.modified;
        return modified !== undefined && modified.scheme === ChangeScheme && modified.path.startsWith(prefix);
      }),
    );
  }

  private async closePending(p: PendingChange): Promise<void> {
    if (this.pending === p) {
      this.pending = undefined;
      await vscode.commands.executeCommand("setContext", ChangePendingContext, false);
    }
    const tabs = this.diffTabs(p.id);
    if (tabs.length > 0) {
      try {
        await vscode.window.tabGroups.close(tabs, true);
      } catch (err) {
        this.output.warn(`closing the diff of ${p.id}: ${errorMessage(err)}`);
      }
    }
    this.documents.drop(p.id);
  }

  /** Drops a pending change silently (a newer one replaces it). */
  private async discardPending(): Promise<void> {
    if (this.pending !== undefined) {
      this.output.info(`generate change ${this.pending.id}: replaced by a newer change; not applied`);
      await this.closePending(this.pending);
    }
  }

  /** Accept: applies the pending change, unless a document is no longer the one ctxd checked. */
  async accept(): Promise<void> {
    const p = this.pending;
    if (p === undefined) {
      void vscode.window.showInformationMessage("ctxd: no generated change is waiting to be accepted.");
      return;
    }
    let plan: EditPlan;
    try {
      plan = await planEdit(p.outcome.result, p.encoding, (uri) => this.currentText(uri));
      const changed = plan.files.find((f, i) => f.before !== p.plan.files[i]?.before);
      if (changed !== undefined) {
        throw new StaleChangeError(changed.path, `${changed.path} changed since the diff was shown`);
      }
    } catch (err) {
      await this.closePending(p);
      await this.showNotApplied(err, p.again);
      return;
    }
    const edit = new vscode.WorkspaceEdit();
    emitEdit(plan, {
      createFile: (uri, options) => edit.createFile(vscode.Uri.parse(uri), options),
      deleteFile: (uri) => edit.deleteFile(vscode.Uri.parse(uri), { recursive: false, ignoreIfNotExists: false }),
      replace: (uri, range, newText) =>
        edit.replace(vscode.Uri.parse(uri), new vscode.Range(range.start.line, range.start.character, range.end.line, range.end.character), newText),
    });
    let applied: boolean;
    try {
      applied = await vscode.workspace.applyEdit(edit);
    } catch (err) {
      this.output.error(`generate change ${p.id}: applyEdit failed: ${errorMessage(err)}`);
      applied = false;
    }
    await this.closePending(p);
    if (!applied) {
      void vscode.window.showErrorMessage("ctxd: VS Code did not apply the change (a file may have changed or be read-only); nothing was changed.");
      return;
    }
    const n = plan.files.length;
    this.output.info(`generate change ${p.id}: applied to ${plural(n, "file")}: ${plan.files.map((f) => `${f.action} ${f.path}`).join(", ")}`);
    void vscode.window.showInformationMessage(`ctxd applied the change to ${plural(n, "file")} (not saved; Undo reverts it).`);
    const first = plan.files.find((f) => f.action !== "delete");
    if (first !== undefined) {
      try {
        await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(vscode.Uri.parse(first.uri)), { preview: false });
      } catch {
        // Showing the file is a courtesy.
      }
    }
  }

  /** Reject: closes the diff; nothing changes. */
  async reject(): Promise<void> {
    const p = this.pending;
    if (p === undefined) {
      return;
    }
    await this.closePending(p);
    this.output.info(`generate change ${p.id}: rejected by the user; nothing was changed`);
    vscode.window.setStatusBarMessage("ctxd: change rejected; nothing was changed", 4000);
  }

  /** A change that cannot be applied (a document changed, an edit that does not give ctxd's bytes). */
  private async showNotApplied(err: unknown, again: () => Promise<void>): Promise<void> {
    const why = err instanceof StaleChangeError || err instanceof EditError ? err.message : errorMessage(err);
    this.output.warn(`generate change: not applied: ${why}`);
    const choice = await vscode.window.showWarningMessage(`ctxd: ${why}; the change was not applied. Generate it again from the current text?`, "Generate Again");
    if (choice === "Generate Again") {
      await again();
    }
  }

  // -------------------------------------------------------------------------
  // Models and keys

  private settings(): ChangeSettings {
    const config = vscode.workspace.getConfiguration("ctxd");
    return readChangeSettings((key) => config.get(key));
  }

  /** The chat model the settings choose. */
  async createModel(settings: ChangeSettings): Promise<ChatModel> {
    if (settings.provider === "vscode-lm") {
      return selectLmModel(this.lmHost, settings.lmVendor, settings.lmFamily);
    }
    const fallbackModel = vscode.workspace.getConfiguration("ctxd").get<string | null>("model.name");
    const name = settings.model ?? (typeof fallbackModel === "string" && fallbackModel.trim() !== "" ? fallbackModel.trim() : undefined);
    if (name === undefined) {
      throw new ModelError("unavailable", `set ctxd.change.model to the ${settings.provider} model to ask (e.g. ${settings.provider === "openai" ? "gpt-4o, or llama3.1 for Ollama" : "claude-sonnet-4-5"})`);
    }
    const baseUrl = settings.baseUrl ?? DefaultBaseUrls[settings.provider];
    const apiKey = (await this.context.secrets?.get(apiKeySecret(settings.provider))) ?? undefined;
    if (!apiKey && baseUrl === DefaultBaseUrls[settings.provider]) {
      throw new ModelError("auth", `no API key is stored for ${settings.provider} (${displayUrl(baseUrl)}): run ctxd: Set Model API Key`);
    }
    const options = { baseUrl, model: name, maxOutputTokens: settings.maxOutputTokens, ...(apiKey ? { apiKey } : {}) };
    return settings.provider === "openai" ? new OpenAIChatModel(options) : new AnthropicChatModel(options);
  }

  /** The provider a key command is for: the setting's when it takes a key, else asked. */
  private async keyProvider(verb: string): Promise<"openai" | "anthropic" | undefined> {
    const provider: ChangeProvider = this.settings().provider;
    if (provider === "openai" || provider === "anthropic") {
      return provider;
    }
    const pick = await vscode.window.showQuickPick(
      [
        { label: "openai", description: "OpenAI-compatible endpoint (Authorization: Bearer)" },
        { label: "anthropic", description: "Anthropic Messages API (x-api-key)" },
      ],
      { title: `ctxd: ${verb} the API key of which provider?` },
    );
    return pick?.label as "openai" | "anthropic" | undefined;
  }

  /** ctxd: Set Model API Key: stores a key in VS Code's SecretStorage. */
  async setApiKey(): Promise<void> {
    const secrets = this.context.secrets;
    if (secrets === undefined) {
      void vscode.window.showErrorMessage("ctxd: VS Code's secret storage is not available.");
      return;
    }
    const provider = await this.keyProvider("Set");
    if (provider === undefined) {
      return;
    }
    const settings = this.settings();
    const url = displayUrl(settings.provider === provider && settings.baseUrl ? settings.baseUrl : DefaultBaseUrls[provider]);
    const key = await vscode.window.showInputBox({
      title: `ctxd: API key for ${provider}`,
      prompt: `The key sent to ${url} by Generate Change. It is kept in VS Code's secret storage, never in settings.`,
      password: true,
      ignoreFocusOut: true,
      validateInput: (v) => (v.trim() === "" ? "Enter the key (ctxd: Clear Model API Key removes one)" : undefined),
    });
    if (key === undefined || key.trim() === "") {
      return;
    }
    await secrets.store(apiKeySecret(provider), key.trim());
    this.output.info(`stored the ${provider} API key in VS Code's secret storage`);
    void vscode.window.showInformationMessage(`ctxd: the ${provider} API key is stored in VS Code's secret storage.`);
  }

  /** ctxd: Clear Model API Key. */
  async clearApiKey(): Promise<void> {
    const secrets = this.context.secrets;
    if (secrets === undefined) {
      return;
    }
    const provider = await this.keyProvider("Clear");
    if (provider === undefined) {
      return;
    }
    await secrets.delete(apiKeySecret(provider));
    this.output.info(`cleared the ${provider} API key`);
    void vscode.window.showInformationMessage(`ctxd: the ${provider} API key is cleared.`);
  }

  // -------------------------------------------------------------------------
  // Errors

  private async showRefusal(refusal: Refusal): Promise<void> {
    const notice = refusalNotice(refusal);
    const choice = await vscode.window.showErrorMessage(notice.message, "Show details");
    if (choice === "Show details") {
      await this.docs.show(`refusal-${refusal.code}.md`, refusalMarkdown(refusal));
    }
  }

  private async showError(err: unknown, provider: ChangeProvider): Promise<void> {
    const message = errorMessage(err);
    this.output.error(`generate change: ${message}`);
    const actions: string[] = [];
    if (err instanceof ModelError && err.kind === "auth" && provider !== "vscode-lm") {
      actions.push("Set Model API Key");
    }
    if (err instanceof ModelError && (err.kind === "unavailable" || err.kind === "auth" || err.kind === "network")) {
      actions.push("Open Settings");
    }
    actions.push("Show Output");
    const choice = await vscode.window.showErrorMessage(`ctxd: ${message}`, ...actions);
    if (choice === "Set Model API Key") {
      await vscode.commands.executeCommand(ClientCommands.setModelApiKey);
    } else if (choice === "Open Settings") {
      await vscode.commands.executeCommand("workbench.action.openSettings", "ctxd.change");
    } else if (choice === "Show Output") {
      this.output.show(true);
    }
  }

  /** The accepted check of the pending change, for tests and other commands. */
  get pendingResult(): CheckChangeResult | undefined {
    return this.pending?.outcome.result;
  }

  /** The plan of the pending change. */
  get pendingPlan(): EditPlan | undefined {
    return this.pending?.plan;
  }

  dispose(): void {
    this.pending = undefined;
    this.documents.dispose();
  }
}

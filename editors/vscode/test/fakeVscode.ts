// A stand-in for the `vscode` module, just large enough to activate the
// extension and run vscode-languageclient against the real ctxd in plain
// node (VS Code itself cannot run in the test environment). It records what
// the extension shows (messages, status bar, clipboard, documents) so that
// test/extension.test.ts can assert on it. Members the extension and the
// client never call are generic stubs: an unknown class is an empty class,
// an unknown namespace function returns a disposable.

/* eslint-disable @typescript-eslint/no-explicit-any */

import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

type Listener<T> = (e: T) => unknown;

export class Disposable {
  constructor(private readonly fn: () => unknown = () => undefined) {}
  static from(...items: { dispose(): unknown }[]): Disposable {
    return new Disposable(() => items.forEach((i) => i?.dispose()));
  }
  dispose(): void {
    this.fn();
  }
}

export class EventEmitter<T> {
  private listeners: Listener<T>[] = [];
  readonly event = (listener: Listener<T>, thisArg?: unknown, disposables?: Disposable[]): Disposable => {
    const bound = thisArg ? listener.bind(thisArg) : listener;
    this.listeners.push(bound);
    const d = new Disposable(() => {
      this.listeners = this.listeners.filter((l) => l !== bound);
    });
    disposables?.push(d);
    return d;
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) {
      l(e);
    }
  }
  dispose(): void {
    this.listeners = [];
  }
}

export class Uri {
  private constructor(
    readonly scheme: string,
    readonly authority: string,
    readonly path: string,
    readonly query: string,
    readonly fragment: string,
  ) {}
  static parse(value: string): Uri {
    const u = new URL(value);
    return new Uri(u.protocol.replace(/:$/, ""), u.host, decodeURIComponent(u.pathname), u.search.replace(/^\?/, ""), u.hash.replace(/^#/, ""));
  }
  static file(p: string): Uri {
    return new Uri("file", "", pathToFileURL(p).pathname.split("/").map(decodeURIComponent).join("/"), "", "");
  }
  static from(c: { scheme: string; authority?: string; path?: string; query?: string; fragment?: string }): Uri {
    return new Uri(c.scheme, c.authority ?? "", c.path ?? "", c.query ?? "", c.fragment ?? "");
  }
  static joinPath(base: Uri, ...segments: string[]): Uri {
    return new Uri(base.scheme, base.authority, path.posix.join(base.path, ...segments), "", "");
  }
  get fsPath(): string {
    return this.scheme === "file" ? fileURLToPath(this.toString()) : this.path;
  }
  with(change: { scheme?: string; path?: string; query?: string; fragment?: string }): Uri {
    return new Uri(change.scheme ?? this.scheme, this.authority, change.path ?? this.path, change.query ?? this.query, change.fragment ?? this.fragment);
  }
  toString(): string {
    if (this.scheme === "file") {
      return pathToFileURL(this.path).href;
    }
    return `${this.scheme}:${this.authority ? "//" + this.authority : ""}${this.path}`;
  }
  toJSON(): unknown {
    return { scheme: this.scheme, path: this.path };
  }
}

export class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
  isEqual(o: Position): boolean {
    return o.line === this.line && o.character === this.character;
  }
  isBefore(o: Position): boolean {
    return this.line < o.line || (this.line === o.line && this.character < o.character);
  }
}

export class Range {
  readonly start: Position;
  readonly end: Position;
  constructor(a: Position | number, b: Position | number, c?: number, d?: number) {
    if (typeof a === "number") {
      this.start = new Position(a, b as number);
      this.end = new Position(c!, d!);
    } else {
      this.start = a;
      this.end = b as Position;
    }
  }
  get isEmpty(): boolean {
    return this.start.isEqual(this.end);
  }
}

export class Selection extends Range {
  get anchor(): Position {
    return this.start;
  }
  get active(): Position {
    return this.end;
  }
}

export class CancellationError extends Error {
  constructor() {
    super("Canceled");
    this.name = "Canceled";
  }
}

export class CancellationTokenSource {
  private readonly emitter = new EventEmitter<void>();
  private cancelled = false;
  readonly token: { readonly isCancellationRequested: boolean; onCancellationRequested: EventEmitter<void>["event"] };
  constructor() {
    const isCancelled = () => this.cancelled;
    this.token = {
      get isCancellationRequested(): boolean {
        return isCancelled();
      },
      onCancellationRequested: this.emitter.event,
    };
  }
  cancel(): void {
    if (!this.cancelled) {
      this.cancelled = true;
      this.emitter.fire();
    }
  }
  dispose(): void {
    this.emitter.dispose();
  }
}

export class ThemeColor {
  constructor(readonly id: string) {}
}
export class ThemeIcon {
  constructor(readonly id: string) {}
}
export class MarkdownString {
  constructor(public value = "") {}
}
export class TreeItem {
  id?: string;
  description?: string;
  tooltip?: unknown;
  iconPath?: unknown;
  command?: { command: string; arguments?: unknown[] };
  contextValue?: string;
  constructor(
    readonly label: string,
    readonly collapsibleState = 0,
  ) {}
}

export const TreeItemCollapsibleState = { None: 0, Collapsed: 1, Expanded: 2 };
export const StatusBarAlignment = { Left: 1, Right: 2 };
export const ViewColumn = { Active: -1, Beside: -2, One: 1 };
export const ProgressLocation = { SourceControl: 1, Window: 10, Notification: 15 };
export const TextEditorRevealType = { Default: 0, InCenter: 1, InCenterIfOutsideViewport: 2, AtTop: 3 };
export const version = "1.85.0";

/** A workspace edit: its operations, in order. */
export class WorkspaceEdit {
  readonly operations: (
    | { kind: "create"; uri: Uri; options: unknown }
    | { kind: "delete"; uri: Uri; options: unknown }
    | { kind: "replace"; uri: Uri; range: Range; text: string }
  )[] = [];
  createFile(uri: Uri, options?: unknown): void {
    this.operations.push({ kind: "create", uri, options });
  }
  deleteFile(uri: Uri, options?: unknown): void {
    this.operations.push({ kind: "delete", uri, options });
  }
  replace(uri: Uri, range: Range, text: string): void {
    this.operations.push({ kind: "replace", uri, range, text });
  }
  insert(uri: Uri, position: Position, text: string): void {
    this.operations.push({ kind: "replace", uri, range: new Range(position, position), text });
  }
}

/** window.createQuickPick: answered by answers.createdQuickPick when shown. */
export class FakeQuickPick {
  title?: string;
  placeholder?: string;
  ignoreFocusOut = false;
  value = "";
  items: { label: string; description?: string }[] = [];
  activeItems: { label: string }[] = [];
  selectedItems: { label: string }[] = [];
  private readonly valueEmitter = new EventEmitter<string>();
  private readonly acceptEmitter = new EventEmitter<void>();
  private readonly hideEmitter = new EventEmitter<void>();
  readonly onDidChangeValue = this.valueEmitter.event;
  readonly onDidAccept = this.acceptEmitter.event;
  readonly onDidHide = this.hideEmitter.event;
  busy = false;
  matchOnDescription = false;
  show(): void {
    setTimeout(async () => {
      const answer = answers.createdQuickPick(this.items.map((i) => i.label), this.title);
      // A pick of an entry that comes from the server: wait for it (items set later).
      for (let i = 0; answer !== undefined && "pick" in answer && !this.items.some((it) => it.label === answer.pick) && i < 200; i++) {
        await new Promise((r) => setTimeout(r, 10));
      }
      recorded.quickPicks.push({ title: this.title, items: this.items.map((i) => i.label) });
      if (answer === undefined) {
        this.hide();
        return;
      }
      if ("type" in answer) {
        this.value = answer.type;
        this.valueEmitter.fire(answer.type);
        this.activeItems = this.items.slice(0, 1);
      } else {
        const item = this.items.find((i) => i.label === answer.pick);
        this.activeItems = item ? [item] : [];
      }
      this.selectedItems = this.activeItems;
      this.acceptEmitter.fire();
    }, 0);
  }
  hide(): void {
    this.hideEmitter.fire();
  }
  dispose(): void {
    this.valueEmitter.dispose();
    this.acceptEmitter.dispose();
    this.hideEmitter.dispose();
  }
}

/** An ExtensionContext's globalState. */
export function memento(): { get<T>(key: string, fallback?: T): T | undefined; update(key: string, value: unknown): Promise<void>; keys(): string[]; values: Map<string, unknown> } {
  const values = new Map<string, unknown>();
  return {
    values,
    get: <T>(key: string, fallback?: T) => (values.has(key) ? (values.get(key) as T) : fallback),
    update: async (key: string, value: unknown) => {
      values.set(key, value);
    },
    keys: () => [...values.keys()],
  };
}

/** An ExtensionContext's secrets. */
export function secretStorage(): { get(key: string): Promise<string | undefined>; store(key: string, value: string): Promise<void>; delete(key: string): Promise<void>; values: Map<string, string>; onDidChange: () => Disposable } {
  const values = new Map<string, string>();
  return {
    values,
    get: async (key: string) => values.get(key),
    store: async (key: string, value: string) => {
      values.set(key, value);
    },
    delete: async (key: string) => {
      values.delete(key);
    },
    onDidChange: () => new Disposable(),
  };
}

/**
 * The Language Model API (vscode.lm) and its message class: absent, as in
 * VS Code 1.85, unless a test sets them with setLanguageModels.
 */
export let lm: unknown = undefined;
export let LanguageModelChatMessage: unknown = undefined;

/** Installs (or removes, with undefined) a stand-in Language Model API. */
export function setLanguageModels(api: { selectChatModels(selector?: unknown): Promise<unknown[]> } | undefined): void {
  lm = api;
  LanguageModelChatMessage =
    api === undefined
      ? undefined
      : {
          User: (content: string) => ({ role: "user", content }),
          Assistant: (content: string) => ({ role: "assistant", content }),
        };
}

/**
 * vscode.McpStdioServerDefinition (VS Code 1.101+): absent, as in 1.85,
 * unless a test installs the MCP API with setMcpApi.
 */
export let McpStdioServerDefinition: unknown = undefined;

/** The stand-in of vscode.McpStdioServerDefinition: its constructor's arguments, and cwd. */
export class FakeMcpStdioServerDefinition {
  cwd?: Uri;
  constructor(
    readonly label: string,
    public command: string,
    public args: string[] = [],
    public env: Record<string, string | number | null> = {},
    public version?: string,
  ) {}
}

/**
 * Installs (true) or removes (false) VS Code 1.101's API for extensions'
 * MCP servers: lm.registerMcpServerDefinitionProvider, whose providers
 * recorded.mcpProviders holds by id until their registration is disposed,
 * and McpStdioServerDefinition. The rest of `lm` (setLanguageModels) stays.
 */
export function setMcpApi(on: boolean): void {
  const { registerMcpServerDefinitionProvider: _previous, ...rest } = (lm ?? {}) as Record<string, unknown>;
  if (!on) {
    lm = Object.keys(rest).length > 0 ? rest : undefined;
    McpStdioServerDefinition = undefined;
    return;
  }
  lm = {
    ...rest,
    registerMcpServerDefinitionProvider(id: string, provider: any): Disposable {
      if (recorded.mcpProviders.has(id)) {
        throw new Error(`an MCP server definition provider '${id}' is registered already`);
      }
      recorded.mcpProviders.set(id, provider);
      return new Disposable(() => recorded.mcpProviders.delete(id));
    },
  };
  McpStdioServerDefinition = FakeMcpStdioServerDefinition;
}

/** A text document over a string; `setText` changes it as an edit would. */
export class FakeDocument {
  version = 1;
  isClosed = false;
  isDirty = false;
  isUntitled = false;
  eol = 1;
  constructor(
    readonly uri: Uri,
    readonly languageId: string,
    private text: string,
  ) {}
  get fileName(): string {
    return this.uri.fsPath;
  }
  private lines(): string[] {
    return this.text.split(/\r?\n/);
  }
  get lineCount(): number {
    return this.lines().length;
  }
  getText(range?: Range): string {
    if (!range) {
      return this.text;
    }
    return this.text.slice(this.offsetAt(range.start), this.offsetAt(range.end));
  }
  lineAt(n: number | Position): { text: string; range: Range; lineNumber: number } {
    const line = typeof n === "number" ? n : n.line;
    const text = this.lines()[line] ?? "";
    return { text, range: new Range(line, 0, line, text.length), lineNumber: line };
  }
  offsetAt(p: Position): number {
    const lines = this.lines();
    let offset = 0;
    for (let i = 0; i < p.line && i < lines.length; i++) {
      offset += lines[i]!.length + 1;
    }
    return offset + p.character;
  }
  positionAt(offset: number): Position {
    const before = this.text.slice(0, offset).split("\n");
    return new Position(before.length - 1, before[before.length - 1]!.length);
  }
  getWordRangeAtPosition(p: Position): Range | undefined {
    const text = this.lineAt(p.line).text;
    let s = p.character;
    let e = p.character;
    while (s > 0 && /\w/.test(text[s - 1]!)) s--;
    while (e < text.length && /\w/.test(text[e]!)) e++;
    return s === e ? undefined : new Range(p.line, s, p.line, e);
  }
  save(): Promise<boolean> {
    return Promise.resolve(true);
  }
  setText(text: string): void {
    this.text = text;
    this.version++;
  }
}

/** What the extension did, for assertions. */
export const recorded = {
  messages: [] as { level: "info" | "warning" | "error"; message: string; actions: string[] }[],
  clipboard: "",
  statusItems: [] as any[],
  trees: new Map<string, any>(),
  shownDocuments: [] as string[],
  /** Every document shown, with how: the column asked for, the one it landed in, and the editor (text, or a custom editor's view type). */
  shown: [] as { uri: string; editor: string; asked: number | undefined; column: number; preview: boolean }[],
  contentProviders: new Map<string, any>(),
  executed: [] as { command: string; args: unknown[] }[],
  /** Every window.withProgress: its options, what was reported, and whether its task finished. */
  progress: [] as { options: { location?: number; title?: string; cancellable?: boolean }; reports: { message?: string; increment?: number }[]; done: boolean }[],
  /** Every vscode.diff: its sides and title. */
  diffs: [] as { left: Uri; right: Uri; title: string }[],
  /** Context keys set with the setContext command. */
  context: new Map<string, unknown>(),
  /** Every workspace.applyEdit, with its operations. */
  appliedEdits: [] as WorkspaceEdit[],
  /** Every window.createQuickPick: its items when it was answered. */
  quickPicks: [] as { title?: string; items: string[] }[],
  /** The registered MCP server definition providers, by id (setMcpApi). */
  mcpProviders: new Map<string, any>(),
};

/** Answers the extension's prompts: a function per message returns the action to click. */
export const answers = {
  message: (_message: string, _actions: string[]): string | undefined => undefined,
  quickPick: (items: any[]): any => items[0],
  inputBox: (value: string | undefined): string | undefined => value,
  /**
   * Answers a window.createQuickPick, given its items' labels: text to
   * type (then the first item, which the extension makes of it, is
   * accepted), a label to pick, or undefined to close it.
   */
  createdQuickPick: (_labels: string[], _title?: string): { type: string } | { pick: string } | undefined => undefined,
  /** Called before vscode.openWith opens anything; throw to make it fail (no markdown extension). */
  openWith: undefined as ((uri: Uri, viewType: string) => void) | undefined,
};

/** Settings by full key ("ctxd.server.path"). */
export const settings = new Map<string, unknown>();

const commandHandlers = new Map<string, (...args: any[]) => any>();
const events = {
  activeEditor: new EventEmitter<any>(),
  selection: new EventEmitter<any>(),
  change: new EventEmitter<any>(),
  open: new EventEmitter<any>(),
  close: new EventEmitter<any>(),
  configuration: new EventEmitter<any>(),
  folders: new EventEmitter<any>(),
};
const openDocuments: FakeDocument[] = [];

function stubNamespace(base: Record<string, unknown>): any {
  return new Proxy(base, {
    get(target, prop) {
      if (prop in target) {
        return target[prop as string];
      }
      if (typeof prop === "string" && prop.startsWith("on")) {
        return () => new Disposable();
      }
      return () => new Disposable();
    },
  });
}

export const commands = stubNamespace({
  registerCommand(id: string, handler: (...args: any[]) => any): Disposable {
    if (commandHandlers.has(id)) {
      throw new Error(`command '${id}' already exists`);
    }
    commandHandlers.set(id, handler);
    return new Disposable(() => commandHandlers.delete(id));
  },
  async executeCommand(id: string, ...args: unknown[]): Promise<unknown> {
    recorded.executed.push({ command: id, args });
    if (id === "vscode.diff") {
      // VS Code's built-in command: a diff editor of two resources, a tab whose input has both.
      const [left, right, title] = args as [Uri, Uri, string];
      recorded.diffs.push({ left, right, title });
      await workspace.openTextDocument(right);
      const group = groups.find((g) => g.isActive) ?? groups[0] ?? newGroup(1);
      const tab: FakeTab = { input: { uri: right, original: left, modified: right } as FakeTab["input"], label: title, isActive: true, isPreview: false };
      group.tabs.forEach((t) => (t.isActive = false));
      group.tabs.push(tab);
      return undefined;
    }
    if (id === "setContext") {
      recorded.context.set(args[0] as string, args[1]);
      return undefined;
    }
    if (id === "vscode.openWith") {
      // VS Code's built-in command: opens a resource with an editor, e.g. the
      // markdown preview editor. The document is loaded, as the editor would.
      const [uri, viewType, options] = args as [Uri, string, { viewColumn?: number; preview?: boolean; preserveFocus?: boolean } | number | undefined];
      if (answers.openWith !== undefined) {
        answers.openWith(uri, viewType);
      }
      await workspace.openTextDocument(uri);
      // VS Code's _workbench.openWith opens the editor pinned whatever the
      // options say ({ ...options, pinned: true }): never a preview tab.
      showInGroup(uri, { ...(typeof options === "number" ? { viewColumn: options } : options), preview: false }, viewType);
      return undefined;
    }
    const handler = commandHandlers.get(id);
    return handler ? handler(...args) : undefined;
  },
  getCommands: async () => [...commandHandlers.keys()],
});

/** The registered command ids. */
export function registeredCommands(): string[] {
  return [...commandHandlers.keys()].sort();
}

function outputChannel(name: string): any {
  const lines: string[] = [];
  const log = (level: string) => (message: string) => lines.push(`[${level}] ${message}`);
  return {
    name,
    lines,
    logLevel: 2,
    onDidChangeLogLevel: () => new Disposable(),
    append: (v: string) => lines.push(v),
    appendLine: (v: string) => lines.push(v),
    replace: () => undefined,
    clear: () => undefined,
    show: () => undefined,
    hide: () => undefined,
    dispose: () => undefined,
    trace: log("trace"),
    debug: log("debug"),
    info: log("info"),
    warn: log("warn"),
    error: log("error"),
  };
}

export const outputChannels: any[] = [];

function message(level: "info" | "warning" | "error") {
  return async (text: string, ...rest: unknown[]) => {
    const actions = rest.filter((a): a is string => typeof a === "string");
    recorded.messages.push({ level, message: text, actions });
    return answers.message(text, actions);
  };
}

/** A tab of the fake editor groups: a text editor, or a custom editor when `viewType` is set. */
export interface FakeTab {
  input: { uri: Uri; viewType?: string; original?: Uri; modified?: Uri };
  label: string;
  isActive: boolean;
  isPreview: boolean;
}

/** An editor group, as `window.tabGroups.all` lists them. */
export interface FakeGroup {
  viewColumn: number;
  isActive: boolean;
  tabs: FakeTab[];
  readonly activeTab: FakeTab | undefined;
}

const groups: FakeGroup[] = [];

function newGroup(viewColumn: number): FakeGroup {
  const group: FakeGroup = {
    viewColumn,
    isActive: false,
    tabs: [],
    get activeTab() {
      return this.tabs.find((t) => t.isActive);
    },
  };
  groups.push(group);
  groups.sort((a, b) => a.viewColumn - b.viewColumn);
  return group;
}

/** The editor groups, left to right. */
export function editorGroups(): FakeGroup[] {
  return groups;
}

/** Closes every editor, as a new window starts: one empty group, the active one. */
export function resetEditorGroups(): void {
  groups.splice(0);
  newGroup(1).isActive = true;
}

/**
 * Shows a resource as VS Code's editor service does: in the active group
 * (no column, or ViewColumn.Active), the group to the right of the active
 * one (ViewColumn.Beside, created when there is none), or the group of a
 * column (created when there is none). A shown resource's tab is reused; a
 * new preview tab replaces the group's preview tab. The group becomes the
 * active one unless the focus is preserved.
 */
function showInGroup(uri: Uri, options: { viewColumn?: number; preview?: boolean; preserveFocus?: boolean } = {}, viewType?: string, record = true): FakeGroup {
  const active = groups.find((g) => g.isActive) ?? groups[0];
  const asked = options.viewColumn;
  let group: FakeGroup | undefined;
  if (asked === undefined || asked === ViewColumn.Active) {
    group = active ?? newGroup(1);
  } else if (asked === ViewColumn.Beside) {
    const right = (active?.viewColumn ?? 0) + 1;
    group = groups.find((g) => g.viewColumn === right) ?? newGroup(right);
  } else {
    group = groups.find((g) => g.viewColumn === asked) ?? newGroup(Math.min(asked, groups.length + 1));
  }
  const same = (t: FakeTab) => t.input.uri.toString() === uri.toString() && t.input.viewType === viewType;
  let tab = group.tabs.find(same);
  if (tab === undefined) {
    const preview = options.preview !== false;
    tab = { input: viewType === undefined ? { uri } : { uri, viewType }, label: path.posix.basename(uri.path), isActive: false, isPreview: preview };
    const replaced = preview ? group.tabs.findIndex((t) => t.isPreview) : -1;
    if (replaced >= 0) {
      group.tabs[replaced] = tab;
    } else {
      group.tabs.push(tab);
    }
  }
  group.tabs.forEach((t) => (t.isActive = t === tab));
  if (!options.preserveFocus || active === undefined) {
    groups.forEach((g) => (g.isActive = g === group));
  }
  if (!record) {
    return group;
  }
  recorded.shownDocuments.push(uri.toString());
  recorded.shown.push({ uri: uri.toString(), editor: viewType ?? "text", asked, column: group.viewColumn, preview: tab.isPreview });
  return group;
}

export const window = stubNamespace({
  activeTextEditor: undefined as any,
  visibleTextEditors: [] as any[],
  tabGroups: {
    get all(): FakeGroup[] {
      return groups;
    },
    get activeTabGroup(): FakeGroup | undefined {
      return groups.find((g) => g.isActive);
    },
    onDidChangeTabs: () => new Disposable(),
    onDidChangeTabGroups: () => new Disposable(),
    async close(tabs: FakeTab | FakeTab[]): Promise<boolean> {
      const closing = new Set(Array.isArray(tabs) ? tabs : [tabs]);
      for (const g of groups) {
        g.tabs = g.tabs.filter((t) => !closing.has(t));
      }
      return true;
    },
  },
  onDidChangeActiveTextEditor: events.activeEditor.event,
  onDidChangeTextEditorSelection: events.selection.event,
  onDidChangeVisibleTextEditors: () => new Disposable(),
  createOutputChannel(name: string): any {
    const channel = outputChannel(name);
    outputChannels.push(channel);
    return channel;
  },
  createStatusBarItem(id: string): any {
    const item = { id, text: "", tooltip: undefined, backgroundColor: undefined, command: undefined, name: "", visible: false, show() { this.visible = true; }, hide() { this.visible = false; }, dispose() {} };
    recorded.statusItems.push(item);
    return item;
  },
  createTreeView(id: string, options: { treeDataProvider: any }): any {
    recorded.trees.set(id, options.treeDataProvider);
    return { dispose() {}, reveal: async () => undefined, onDidChangeVisibility: () => new Disposable() };
  },
  showInformationMessage: message("info"),
  showWarningMessage: message("warning"),
  showErrorMessage: message("error"),
  async showQuickPick(items: any[]): Promise<any> {
    return answers.quickPick(await items);
  },
  createQuickPick(): FakeQuickPick {
    return new FakeQuickPick();
  },
  setStatusBarMessage(text: string): Disposable {
    recorded.messages.push({ level: "info", message: `[status bar] ${text}`, actions: [] });
    return new Disposable();
  },
  async showInputBox(options: { value?: string }): Promise<string | undefined> {
    return answers.inputBox(options.value);
  },
  async withProgress(options: { location?: number; title?: string; cancellable?: boolean }, task: (progress: unknown, token: unknown) => Promise<unknown>): Promise<unknown> {
    const s = new CancellationTokenSource();
    const entry = { options, reports: [] as { message?: string; increment?: number }[], done: false };
    recorded.progress.push(entry);
    try {
      return await task({ report: (value: { message?: string; increment?: number }) => entry.reports.push(value) }, s.token);
    } finally {
      entry.done = true;
    }
  },
  async showTextDocument(doc: FakeDocument, options?: { viewColumn?: number; preview?: boolean; preserveFocus?: boolean; selection?: Range }): Promise<any> {
    const group = showInGroup(doc.uri, options);
    return { document: doc, selection: options?.selection ?? new Selection(0, 0, 0, 0), viewColumn: group.viewColumn, revealRange: () => undefined };
  },
});

export const workspace = stubNamespace({
  workspaceFolders: undefined as { uri: Uri; name: string; index: number }[] | undefined,
  get textDocuments(): FakeDocument[] {
    return openDocuments;
  },
  onDidOpenTextDocument: events.open.event,
  onDidCloseTextDocument: events.close.event,
  onDidChangeTextDocument: events.change.event,
  onDidChangeConfiguration: events.configuration.event,
  onDidChangeWorkspaceFolders: events.folders.event,
  getConfiguration(section?: string): any {
    return {
      get<T>(key: string, fallback?: T): T | undefined {
        const full = section ? `${section}.${key}` : key;
        return settings.has(full) ? (settings.get(full) as T) : fallback;
      },
      has: (key: string) => settings.has(section ? `${section}.${key}` : key),
      update: async () => undefined,
    };
  },
  getWorkspaceFolder(uri: Uri): any {
    return workspace.workspaceFolders?.find((f: { uri: Uri }) => uri.path.startsWith(f.uri.path + "/"));
  },
  asRelativePath(uri: Uri): string {
    const folder = workspace.getWorkspaceFolder(uri);
    return folder ? path.posix.relative(folder.uri.path, uri.path) : uri.path;
  },
  registerTextDocumentContentProvider(scheme: string, provider: any): Disposable {
    recorded.contentProviders.set(scheme, provider);
    return new Disposable();
  },
  async openTextDocument(uri: Uri): Promise<FakeDocument> {
    const open = openDocuments.find((d) => d.uri.toString() === uri.toString());
    if (open) {
      return open;
    }
    const provider = recorded.contentProviders.get(uri.scheme);
    const text = provider ? await provider.provideTextDocumentContent(uri) : (await import("node:fs")).readFileSync(uri.fsPath, "utf8");
    return new FakeDocument(uri, uri.path.endsWith(".md") ? "markdown" : uri.path.endsWith(".json") ? "json" : "plaintext", text);
  },
  /** Applies a WorkspaceEdit to the open documents (opening the others from disk), firing the change events. */
  async applyEdit(edit: WorkspaceEdit): Promise<boolean> {
    recorded.appliedEdits.push(edit);
    for (const op of edit.operations) {
      if (op.kind === "create") {
        const doc = new FakeDocument(op.uri, "plaintext", "");
        openDocument(doc);
        continue;
      }
      if (op.kind === "delete") {
        const i = openDocuments.findIndex((d) => d.uri.toString() === op.uri.toString());
        if (i >= 0) openDocuments.splice(i, 1);
        continue;
      }
    }
    const byUri = new Map<string, { uri: Uri; edits: { range: Range; text: string }[] }>();
    for (const op of edit.operations) {
      if (op.kind === "replace") {
        const key = op.uri.toString();
        if (!byUri.has(key)) byUri.set(key, { uri: op.uri, edits: [] });
        byUri.get(key)!.edits.push({ range: op.range, text: op.text });
      }
    }
    for (const { uri, edits } of byUri.values()) {
      const doc = (await workspace.openTextDocument(uri)) as FakeDocument;
      if (!openDocuments.includes(doc)) openDocument(doc);
      const text = doc.getText();
      const sorted = edits.map((e) => ({ start: doc.offsetAt(e.range.start), end: doc.offsetAt(e.range.end), text: e.text })).sort((a, b) => b.start - a.start);
      let out = text;
      for (const e of sorted) out = out.slice(0, e.start) + e.text + out.slice(e.end);
      editDocument(doc, out);
    }
    return true;
  },
  createFileSystemWatcher(): any {
    return { onDidCreate: () => new Disposable(), onDidChange: () => new Disposable(), onDidDelete: () => new Disposable(), dispose() {} };
  },
});

export const languages = stubNamespace({
  match(selector: any, doc: FakeDocument): number {
    const filters = Array.isArray(selector) ? selector : [selector];
    return filters.some((f: any) => (typeof f === "string" ? f === doc.languageId : (!f.scheme || f.scheme === doc.uri.scheme) && (!f.language || f.language === doc.languageId)))
      ? 10
      : 0;
  },
  createDiagnosticCollection(): any {
    return { set() {}, delete() {}, clear() {}, dispose() {}, forEach() {} };
  },
});

export const env = stubNamespace({
  language: "en",
  appName: "Visual Studio Code",
  machineId: "test",
  sessionId: "test",
  clipboard: {
    async writeText(text: string): Promise<void> {
      recorded.clipboard = text;
    },
    async readText(): Promise<string> {
      return recorded.clipboard;
    },
  },
});

export const extensions = stubNamespace({ all: [] });

/** A workspace folder as VS Code lists it. */
export interface FakeWorkspaceFolder {
  uri: Uri;
  name: string;
  index: number;
}

/** Workspace folders of directories: named by `names`, else by their base names. */
export function workspaceFolders(dirs: string[], names: string[] = []): FakeWorkspaceFolder[] {
  return dirs.map((dir, index) => ({ uri: Uri.file(dir), name: names[index] ?? path.basename(dir), index }));
}

/** Replaces the workspace folders (undefined: none open) and fires onDidChangeWorkspaceFolders with what was added and removed. */
export function setWorkspaceFolders(folders: FakeWorkspaceFolder[] | undefined): void {
  const before: FakeWorkspaceFolder[] = workspace.workspaceFolders ?? [];
  const after = folders ?? [];
  const key = (f: FakeWorkspaceFolder) => f.uri.toString();
  workspace.workspaceFolders = folders;
  events.folders.fire({
    added: after.filter((f) => !before.some((b) => key(b) === key(f))),
    removed: before.filter((b) => !after.some((f) => key(b) === key(f))),
  });
}

/** Sets (or, with undefined, removes) a setting and fires onDidChangeConfiguration for it, as the settings editor would. */
export function updateSetting(key: string, value: unknown): void {
  if (value === undefined) {
    settings.delete(key);
  } else {
    settings.set(key, value);
  }
  events.configuration.fire({ affectsConfiguration: (section: string) => key === section || key.startsWith(section + ".") });
}

/** Opens a document, as VS Code does when a file is shown. */
export function openDocument(doc: FakeDocument): void {
  openDocuments.push(doc);
  events.open.fire(doc);
}

/** Makes an editor of a document the active one, with a selection. */
export function setActiveEditor(doc: FakeDocument | undefined, selection = new Selection(0, 0, 0, 0)): void {
  if (doc) {
    // The editor is a tab: of the group that has one of the document, else of the active group.
    const holder = groups.find((g) => g.tabs.some((t) => t.input.viewType === undefined && t.input.uri.toString() === doc.uri.toString()));
    const column = holder?.viewColumn ?? (groups.find((g) => g.isActive) ?? groups[0])?.viewColumn;
    showInGroup(doc.uri, { viewColumn: column, preview: false }, undefined, false);
  }
  const editor = doc ? { document: doc, selection, selections: [selection], revealRange: () => undefined, visibleRanges: [] } : undefined;
  window.activeTextEditor = editor;
  events.activeEditor.fire(editor);
}

/** Changes the active editor's selection. */
export function setSelection(selection: Selection): void {
  const editor = window.activeTextEditor;
  editor.selection = selection;
  editor.selections = [selection];
  events.selection.fire({ textEditor: editor, selections: [selection] });
}

/** Replaces a document's text and reports the change as an edit. */
export function editDocument(doc: FakeDocument, text: string): void {
  const old = doc.getText();
  doc.setText(text);
  const end = new FakeDocument(doc.uri, doc.languageId, old).positionAt(old.length);
  events.change.fire({ document: doc, contentChanges: [{ range: new Range(new Position(0, 0), end), rangeOffset: 0, rangeLength: old.length, text }], reason: undefined });
}

/** Classes the client only extends or instantiates, never inspects here. */
const genericClasses = new Map<string, unknown>();

/**
 * The module object `require("vscode")` returns: this module's exports,
 * plus an empty class for any other capitalized name (vscode-languageclient
 * extends CodeLens, Diagnostic, … when it loads) and a stub namespace for
 * any other lowercase one.
 */
export function vscodeModule(exports: object): unknown {
  return new Proxy(exports as Record<string, unknown>, {
    get(target, prop) {
      if (prop in target) {
        return target[prop as string];
      }
      if (typeof prop === "string" && /^[A-Z]/.test(prop)) {
        if (!genericClasses.has(prop)) {
          genericClasses.set(
            prop,
            class {
              constructor(...args: unknown[]) {
                Object.assign(this, { args });
              }
            },
          );
        }
        return genericClasses.get(prop);
      }
      return stubNamespace({});
    },
  });
}

// Identifiers the extension registers with VS Code. Pure, so that a unit
// test can check them against package.json and against the server's
// command names.
//
// The client's command ids live under "ctxd.client.": vscode-languageclient
// registers every command the server advertises in
// executeCommandProvider.commands (ctxd.buildContext, ctxd.budget, …) as a
// VS Code command of the same name (ExecuteCommandFeature), and a second
// registration of one name fails, so the two sets must never meet.

/** The commands the extension contributes. */
export const ClientCommands = {
  buildContextActiveFile: "ctxd.client.buildContextActiveFile",
  buildContextSelection: "ctxd.client.buildContextSelection",
  /**
   * The same, in the editor's context menu, titled "ctxd: Build Context for
   * Selection": menus show a command's title without its category.
   */
  buildContextSelectionFromEditor: "ctxd.client.buildContextSelectionFromEditor",
  buildContextSymbol: "ctxd.client.buildContextSymbol",
  showBudget: "ctxd.client.showBudget",
  showManifest: "ctxd.client.showManifest",
  copyPrompt: "ctxd.client.copyPrompt",
  showIndexStatus: "ctxd.client.showIndexStatus",
  restartServer: "ctxd.client.restartServer",
  showOutput: "ctxd.client.showOutput",
  openBundle: "ctxd.client.openBundle",
  /** A quick pick of the window's recent bundles (history.ts), reopened in the view and the bundle document. */
  openRecentBundle: "ctxd.client.openRecentBundle",
  /** Internal: the results view's click on a block (path, ranges). */
  openBlock: "ctxd.client.openBlock",
  /** Generate Change…: intent → prompt → the user's model → ctxd.checkChange → diff → accept. */
  generateChange: "ctxd.client.generateChange",
  /**
   * The same, in the editor's context menu, titled "ctxd: Generate Change…":
   * menus show a command's title without its category.
   */
  generateChangeFromEditor: "ctxd.client.generateChangeFromEditor",
  /** Applies the change the diff editor shows (its title bar, the palette while one is pending). */
  acceptChange: "ctxd.client.acceptChange",
  /** Discards the change the diff editor shows. */
  rejectChange: "ctxd.client.rejectChange",
  /** Stores the openai or anthropic key in VS Code's secret storage. */
  setModelApiKey: "ctxd.client.setModelApiKey",
  clearModelApiKey: "ctxd.client.clearModelApiKey",
} as const;

/** Commands that only make sense from the UI that passes their arguments. */
export const InternalCommands: readonly string[] = [ClientCommands.openBlock];

/** Commands of a menu only, hidden from the palette (which has their twin). */
export const MenuOnlyCommands: readonly string[] = [ClientCommands.generateChangeFromEditor, ClientCommands.buildContextSelectionFromEditor];

/**
 * The keybindings package.json contributes: chords after Ctrl+Alt+X
 * (Cmd+Alt+X on macOS), a prefix no default keybinding of VS Code uses on
 * Linux, Windows or macOS, so that no second key can clash with one.
 */
export const KeybindingPrefix = { key: "ctrl+alt+x", mac: "cmd+alt+x" } as const;

/** The second key of each command's chord. */
export const KeybindingKeys: Readonly<Record<string, string>> = {
  [ClientCommands.buildContextActiveFile]: "f",
  [ClientCommands.buildContextSelection]: "s",
  [ClientCommands.buildContextSymbol]: "y",
  [ClientCommands.copyPrompt]: "p",
  [ClientCommands.showBudget]: "b",
  [ClientCommands.showManifest]: "m",
  [ClientCommands.openBundle]: "o",
  [ClientCommands.openRecentBundle]: "r",
  [ClientCommands.generateChange]: "g",
};

/** Commands the palette shows only while a generated change waits for Accept or Reject. */
export const PendingChangeCommands: readonly string[] = [ClientCommands.acceptChange, ClientCommands.rejectChange];

/** The context key that is true while a generated change waits for Accept or Reject. */
export const ChangePendingContext = "ctxd.changePending";

/** The URI scheme of the read-only documents holding a generated change's text (the diff's right side). */
export const ChangeScheme = "ctxd-change";

/** globalState key of the intent history of Generate Change. */
export const IntentHistoryKey = "ctxd.change.intentHistory";

/** SecretStorage key of a provider's API key. */
export function apiKeySecret(provider: string): string {
  return `ctxd.change.apiKey.${provider}`;
}

/** The view container and view of the results tree. */
export const ViewIds = {
  container: "ctxd",
  results: "ctxd.results",
} as const;

/** The URI scheme of the extension's read-only documents. */
export const DocumentScheme = "ctxd";

/**
 * The view type of the markdown preview editor that ships with VS Code
 * (extension vscode.markdown-language-features), which `vscode.openWith`
 * opens the extension's markdown documents with.
 */
export const MarkdownPreviewEditor = "vscode.markdown.preview.editor";

/** The language client's id: also the prefix of its `ctxd.trace.server` setting. */
export const ClientId = "ctxd";

/**
 * The id of the MCP server definition provider (vscode.lm, VS Code 1.101+):
 * package.json's contributes.mcpServerDefinitionProviders must list it, or
 * VS Code refuses the registration.
 */
export const McpProviderId = "ctxd.mcp";

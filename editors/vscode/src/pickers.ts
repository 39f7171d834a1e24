// The two questions a build may ask before it runs: which symbol (a quick
// pick fed by the server's workspace/symbol) and what for (an optional
// intent, in a quick pick of the recent ones).

import * as vscode from "vscode";
import { intentHistory } from "./change";
import { qualifiedName, symbolItems, type SymbolItem, type WorkspaceSymbol } from "./symbols";

/** Quiet time after the last keystroke before the server is asked again. */
const symbolQueryDelayMs = 120;

/** What the symbol pick answers: the name to build for, and the definition's path when an entry of the index was chosen. */
export interface PickedSymbol {
  name: string;
  path?: string;
}

/**
 * Asks for a symbol: a quick pick prefilled with `initial` (the word at
 * the cursor), whose entries are the server's workspace/symbol answer for
 * what is typed, plus the typed text itself. Resolves with the choice, or
 * undefined when the user cancels. `query` asks the server; an error is
 * shown in the pick's placeholder and the typed text can still be used.
 */
export function pickSymbol(
  title: string,
  initial: string,
  query: (text: string, token: vscode.CancellationToken) => Promise<WorkspaceSymbol[]>,
): Promise<PickedSymbol | undefined> {
  return new Promise((resolve) => {
    type Item = vscode.QuickPickItem & { entry: SymbolItem };
    const qp = vscode.window.createQuickPick<Item>();
    qp.title = title;
    qp.placeholder = "A function, method or type: type to search the workspace (Type.Method narrows)";
    qp.matchOnDescription = true;
    qp.value = initial;
    // The last answer: while the next one is asked, its entries that still match stay shown.
    let answered: WorkspaceSymbol[] = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    let inFlight: vscode.CancellationTokenSource | undefined;
    const relative = (uri: string) => {
      const u = vscode.Uri.parse(uri);
      return vscode.workspace.getWorkspaceFolder(u) ? vscode.workspace.asRelativePath(u, false) : undefined;
    };
    const show = (entries: SymbolItem[]) => {
      qp.items = entries.map((entry) => ({ label: entry.label, description: entry.description, alwaysShow: entry.alwaysShow ?? false, entry }));
    };
    const ask = (text: string) => {
      inFlight?.cancel();
      const source = new vscode.CancellationTokenSource();
      inFlight = source;
      qp.busy = true;
      query(text, source.token).then(
        (symbols) => {
          if (inFlight === source) {
            answered = symbols;
            show(symbolItems(symbols, relative, text));
          }
        },
        (err: unknown) => {
          if (inFlight === source) {
            answered = [];
            qp.placeholder = `ctxd could not list the symbols (${err instanceof Error ? err.message : String(err)}); Enter builds for the typed name`;
            show(symbolItems([], relative, text));
          }
        },
      ).then(() => {
        if (inFlight === source) {
          qp.busy = false;
          inFlight = undefined;
          source.dispose();
        }
      });
    };
    let settled = false;
    const finish = (value: PickedSymbol | undefined) => {
      if (!settled) {
        settled = true;
        resolve(value);
      }
    };
    qp.onDidChangeValue((text) => {
      if (timer !== undefined) {
        clearTimeout(timer);
      }
      // The typed text is an entry at once, with the last answer's entries that contain it; the server's answer follows.
      const needle = text.trim().toLowerCase();
      show(symbolItems(answered.filter((a) => qualifiedName(a).toLowerCase().includes(needle)), relative, text));
      timer = setTimeout(() => ask(text), symbolQueryDelayMs);
    });
    qp.onDidAccept(() => {
      const typed = qp.value.trim();
      const chosen = qp.selectedItems[0]?.entry ?? qp.activeItems[0]?.entry;
      if (chosen !== undefined) {
        finish(chosen.path !== undefined ? { name: chosen.name, path: chosen.path } : { name: chosen.name });
      } else if (typed !== "") {
        finish({ name: typed });
      } else {
        return;
      }
      qp.hide();
    });
    qp.onDidHide(() => {
      if (timer !== undefined) {
        clearTimeout(timer);
      }
      inFlight?.cancel();
      finish(undefined);
      qp.dispose();
    });
    show(symbolItems([], relative, initial));
    ask(initial);
    qp.show();
  });
}

/** What the intent pick answers: the intent ("" for none), or undefined when the user cancels the command. */
export type IntentAnswer = string | undefined;

/** How pickIntent asks for a change's intent, which it needs. */
export interface RequiredIntent {
  readonly placeholder: string;
}

/**
 * Asks what the bundle is for: a quick pick whose first entry is "No
 * intent" (Enter without typing builds without one) and whose other
 * entries are the recent intents (`stored`, the history Generate Change
 * keeps too); typed text is a new intent. Escape cancels the command.
 * With `required` (Generate Change), there is no "No intent" entry, the
 * pick stays open when the focus leaves it, and Enter on nothing answers
 * undefined as Escape does.
 */
export function pickIntent(title: string, stored: unknown, required?: RequiredIntent): Promise<IntentAnswer> {
  const history = intentHistory(stored);
  return new Promise((resolve) => {
    type Item = vscode.QuickPickItem & { intent: string };
    const qp = vscode.window.createQuickPick<Item>();
    qp.title = title;
    qp.placeholder = required?.placeholder ?? "What is it for? Type an intent, pick a recent one, or Enter for none (Escape cancels)";
    qp.ignoreFocusOut = required !== undefined;
    const none: Item[] = required === undefined ? [{ label: "No intent", description: "build without one", intent: "" }] : [];
    const recent: Item[] = history.map((h) => ({ label: h, description: "recent", intent: h }));
    const refresh = () => {
      const typed = qp.value.trim();
      qp.items = typed === "" ? [...none, ...recent] : history.includes(typed) ? recent : [{ label: typed, description: "new intent", alwaysShow: true, intent: typed }, ...recent];
    };
    let settled = false;
    const finish = (value: IntentAnswer) => {
      if (!settled) {
        settled = true;
        resolve(value);
      }
    };
    qp.onDidChangeValue(refresh);
    qp.onDidAccept(() => {
      const chosen = qp.selectedItems[0] ?? qp.activeItems[0];
      const intent = chosen !== undefined ? chosen.intent : qp.value.trim();
      finish(required !== undefined && intent === "" ? undefined : intent);
      qp.hide();
    });
    qp.onDidHide(() => {
      finish(undefined);
      qp.dispose();
    });
    refresh();
    qp.show();
  });
}

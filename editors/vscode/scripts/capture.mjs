// Prints what the extension shows for a real ctxd run, rendered by the
// extension's own pure modules (out/src, built by `npm run build:test`):
// the results tree, the status bar for an ok and a warning budget, a
// refusal's notification and details, and the index status document. VS Code itself cannot run here; CAPTURES.md holds
// this script's output.
//
//   npm run capture            (CTXD_BIN and CTXD_EXAMPLE as for the tests)

import { createRequire } from "node:module";
import * as fs from "node:fs";
import * as path from "node:path";

const require = createRequire(import.meta.url);
const harness = require("../out/test/harness.js");
const { buildRequest, readSettings, withUserSelectedTarget } = require("../out/src/request.js");
const { statusBarModel, refusalNotice, refusalMarkdown, candidateItems, indexStatusMarkdown } = require("../out/src/render.js");
const { refusalTree, resultTree, treeText } = require("../out/src/tree.js");
const { CtxdRefusalError } = require("../out/src/rpc.js");

/** A fake GitHub token (the format of one, not a credential) in an unsaved buffer. */
const fakeToken = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";

/** A second definition of Store.List, so that "List" is ambiguous. */
const legacyStore = `// Package legacy is the store before the rewrite.
package legacy

// Store keeps names.
type Store struct{ names []string }

// List returns the names.
func (s *Store) List() []string { return s.names }
`;

const out = [];
const print = (line = "") => out.push(line);

function heading(title, what) {
  print(`## ${title}`);
  print();
  print(what);
  print();
}

function block(text) {
  print("```text");
  print(text.replace(/\n+$/, ""));
  print("```");
  print();
}

function selectionOf(text, needle) {
  const lines = text.split("\n");
  const line = lines.findIndex((l) => l.includes(needle));
  const character = lines[line].indexOf(needle);
  return { start: { line, character }, end: { line, character: character + needle.length } };
}

async function refusal(promise) {
  try {
    await promise;
  } catch (err) {
    if (err instanceof CtxdRefusalError) return err.refusal;
    throw err;
  }
  throw new Error("expected a refusal");
}

const workspace = harness.copyWorkspace(harness.exampleWorkspace());
fs.mkdirSync(path.join(workspace, "internal", "legacy"), { recursive: true });
fs.writeFileSync(path.join(workspace, "internal", "legacy", "store.go"), legacyStore);
const server = await harness.startServer(workspace, ["utf-16"]);
try {
  const storePath = path.join(workspace, "internal", "store", "store.go");
  const onDisk = fs.readFileSync(storePath, "utf8");
  // The editor's buffer, unsaved: a debugging line with a fake token above List.
  const buffer = onDisk.replace("// List returns all items sorted by SKU.", `// List returns all items sorted by SKU.\n// debug token: ${fakeToken}`);
  server.open(storePath, "go", buffer);
  const uri = harness.fileUri(storePath);
  const defaults = readSettings(() => undefined);
  const state = (selection, settings = defaults) => ({ uri, languageId: "go", text: buffer, selection, settings });
  const cursor = { start: { line: 3, character: 0 }, end: { line: 3, character: 0 } };

  const version = server.initializeResult.serverInfo?.version ?? "?";
  print("# Captures: the VS Code extension's views");
  print();
  print("These are terminal captures, not screenshots: VS Code cannot run where this was made.");
  print("Each one is rendered by the extension's own modules (`src/request.ts`, `src/render.ts`,");
  print("`src/tree.ts`, built into `out/`) from a real ctxd run: `scripts/capture.mjs` starts");
  print(`\`ctxd serve --stdio\` (ctxd ${version}) on a temporary copy of \`testdata/example\`, sends the`);
  print("requests the extension's builders make, and prints what the status bar, the results view,");
  print("the notifications and the documents would show. The copy differs from `testdata/example`");
  print("in two ways, to show more of the views: `internal/legacy/store.go` defines a second");
  print("`Store.List`, and the editor buffer of `internal/store/store.go` (sent with `didOpen`,");
  print("unsaved) has an added comment line holding a fake GitHub token. Regenerate with");
  print("`npm run capture`.");
  print();

  // 1. Build Context for Selection: the body of Store.List selected.
  const sel = selectionOf(buffer, "sort.Slice(out, func(i, j int) bool");
  const req = buildRequest(state(sel), { scope: "selection", encoding: server.encoding });
  const built = await server.commands.buildContext(req);
  heading(
    "1. Results view after *ctxd: Build Context for Selection*",
    "A selection inside `Store.List` of `internal/store/store.go`. Groups by priority, then Excluded and\n" +
      "Redactions; `label  —  description`, and `-> path:lines` is what a click opens.",
  );
  print("Request sent (`ctxd.buildContext`):");
  print();
  print("```json");
  print(JSON.stringify(req, null, 2).replace(uri, "file:///…/internal/store/store.go").replace(uri, "file:///…/internal/store/store.go"));
  print("```");
  print();
  const tree = resultTree(built);
  block("CTXD: LAST RESULT\n" + treeText(tree));
  print("The first row stays short enough for the sidebar's default width; its tooltip has the rest:");
  print();
  block(tree[0].tooltip);

  // 2. The same under a tight model: slicing and budget exclusions.
  const tight = readSettings((k) => ({ "model.maxInputTokens": 420, "model.responseTokenReserve": 20 })[k]);
  const tightReq = buildRequest(state(sel, tight), { scope: "selection", encoding: server.encoding });
  try {
    const sliced = await server.commands.buildContext(tightReq);
    heading(
      "2. Results view of the same selection with `ctxd.model.maxInputTokens: 420`, `responseTokenReserve: 20`",
      "The hard limit (400 tokens) is below what the full selection needs, so ctxd slices and drops blocks.",
    );
    block("CTXD: LAST RESULT\n" + treeText(resultTree(sliced)));
  } catch (err) {
    if (!(err instanceof CtxdRefusalError)) throw err;
    heading("2. The same selection with a 400-token hard limit", "ctxd refused it:");
    block(refusalNotice(err.refusal).message);
  }

  // 3. Status bar: ok (the file, cursor only) and warn (a model whose soft limit is below the estimate).
  const okBudget = await server.commands.budget(buildRequest(state(cursor), { scope: "live", encoding: server.encoding }));
  const ok = statusBarModel({ kind: "budget", result: okBudget, scope: "file" });
  const fileTokens = okBudget.budget_report.estimated_input_tokens;
  const warnSettings = readSettings((k) => ({ "model.maxInputTokens": fileTokens + 60, "model.responseTokenReserve": 10, "model.softLimitPct": 50 })[k]);
  const warnBudget = await server.commands.budget(buildRequest(state(cursor, warnSettings), { scope: "live", encoding: server.encoding }));
  const warn = statusBarModel({ kind: "budget", result: warnBudget, scope: "file" });
  heading(
    "3. Status bar",
    "The cursor in `internal/store/store.go` (no selection: the budget of the file). `text` is the item's\n" +
      "text (`$(name)` are codicons), `background` its theme colour, `tooltip` the MarkdownString's source.",
  );
  for (const [name, model, note] of [
    ["ok", ok, "default model"],
    ["warn_soft_limit", warn, `ctxd.model.maxInputTokens: ${fileTokens + 60}, responseTokenReserve: 10, softLimitPct: 50`],
  ]) {
    print(`### ${name} (${note})`);
    print();
    block(`text:       ${model.text}\nbackground: ${model.background ? `statusBarItem.${model.background}Background` : "(none)"}\ntooltip:\n${model.tooltip.replace(/^(?=.)/gm, "  ")}`);
  }

  // 4. Refusals: .env as the active file; an ambiguous symbol and its quick pick.
  const envPath = path.join(workspace, ".env");
  const envRefusal = await refusal(
    server.commands.buildContext(buildRequest({ uri: harness.fileUri(envPath), languageId: "dotenv", text: "", settings: defaults }, { scope: "file", encoding: server.encoding })),
  );
  const notice = refusalNotice(envRefusal);
  heading(
    "4. Refusal notification: *Build Context for Active File* on `.env`",
    "`window.showErrorMessage(message, \"Show details\")`; *Show details* opens the markdown below\n" +
      "(`ctxd:/refusal-<code>.md`), rendered and read-only. The status bar shows the same refusal in red.",
  );
  block(`[error] ${notice.message}    [Show details]`);
  print("````markdown");
  print(refusalMarkdown(envRefusal).replace(/\n$/, ""));
  print("````");
  print();
  const envStatus = statusBarModel({ kind: "refusal", refusal: envRefusal, scope: "file" });
  block(`text:       ${envStatus.text}\nbackground: statusBarItem.${envStatus.background}Background`);
  print("The results view after the refusal, in place of the earlier bundle (one to reopen):");
  print();
  block("CTXD: LAST RESULT\n" + treeText(refusalTree(envRefusal, 1)).replace(/\n$/, ""));

  const ambiguousReq = buildRequest(state(cursor), { scope: "file", encoding: server.encoding, symbols: ["List"] });
  const ambiguous = await refusal(server.commands.buildContext(ambiguousReq));
  heading(
    "5. Ambiguous target: *Build Context for Symbol…* with `List`",
    "ctxd refuses with the candidates; the extension shows them in a quick pick and retries with the\n" +
      "choice in `user_selected_targets`.",
  );
  const items = candidateItems(ambiguous.candidates ?? []);
  block(
    `ctxd: the target is ambiguous; which one is meant?\n  (${ambiguous.message})\n` +
      items.map((i) => `  ${i.label}  ${i.description}\n      ${i.detail}`).join("\n"),
  );
  const retry = withUserSelectedTarget(ambiguousReq, items[0].candidate);
  const retried = await server.commands.buildContext(retry);
  print(`After picking the first: \`user_selected_targets: ${JSON.stringify(retry.user_selected_targets)}\``);
  print();
  block("CTXD: LAST RESULT\n" + treeText(resultTree(retried)));

  // 6. Show Index Status, once the index is ready.
  let status = await server.commands.indexStatus(true);
  for (let i = 0; i < 100 && status.index.state !== "ready"; i++) {
    await new Promise((r) => setTimeout(r, 100));
    status = await server.commands.indexStatus(true);
  }
  heading(
    "6. *ctxd: Show Index Status*",
    "The markdown source of `ctxd:/index-status.md`, which opens rendered (VS Code's markdown preview\n" +
      "editor) in the editor group of ctxd's documents. The temporary folder's name is replaced by `example`.",
  );
  const folder = path.basename(workspace);
  print("````markdown");
  print(indexStatusMarkdown(status).split(harness.fileUri(workspace)).join("file:///…/example").split(folder).join("example").replace(/\n$/, ""));
  print("````");
  print();
} finally {
  await server.stop();
  fs.rmSync(workspace, { recursive: true, force: true });
}
process.stdout.write(out.join("\n").replace(/\n+$/, "\n"));

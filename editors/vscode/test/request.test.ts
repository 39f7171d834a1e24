import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { BuildRequest } from "../src/contract.gen";
import {
  buildRequest,
  DefaultPurpose,
  modelRequest,
  readSettings,
  renderPromptRequest,
  SymbolPlanStepId,
  withUserSelectedTarget,
  type EditorState,
  type Settings,
} from "../src/request";

const uri = "file:///work/app/internal/store/store.go";
const text = "package store\n\n// 日本語 😀 List\nfunc List() {}\n";

function settings(over: Partial<Settings> = {}): Settings {
  return { defaultPurpose: "diff", model: {}, ...over };
}

function state(over: Partial<EditorState> = {}): EditorState {
  return { uri, languageId: "go", text, settings: settings(), ...over };
}

const sel = (l1: number, c1: number, l2: number, c2: number) => ({ start: { line: l1, character: c1 }, end: { line: l2, character: c2 } });

describe("buildRequest", () => {
  const cases: { name: string; state: EditorState; options: Parameters<typeof buildRequest>[1]; want: BuildRequest }[] = [
    {
      name: "active file only: the selection is not sent",
      state: state({ selection: sel(3, 0, 3, 4) }),
      options: { scope: "file", encoding: "utf-16" },
      want: { purpose: "diff", active_file: uri },
    },
    {
      name: "selection in utf-16",
      state: state({ selection: sel(2, 3, 3, 4) }),
      options: { scope: "selection", encoding: "utf-16" },
      want: { purpose: "diff", active_file: uri, selection: { uri, range: sel(2, 3, 3, 4) } },
    },
    {
      name: "selection converted to utf-8 (CJK and emoji before the end)",
      state: state({ selection: sel(2, 3, 2, 12) }),
      options: { scope: "selection", encoding: "utf-8" },
      want: { purpose: "diff", active_file: uri, selection: { uri, range: sel(2, 3, 2, 3 + 9 + 1 + 4 + 1 + 2) } },
    },
    {
      name: "a reversed selection is sent in order",
      state: state({ selection: sel(3, 4, 2, 0) }),
      options: { scope: "selection", encoding: "utf-16" },
      want: { purpose: "diff", active_file: uri, selection: { uri, range: sel(2, 0, 3, 4) } },
    },
    {
      name: "empty selection with the selection scope: the cursor is sent",
      state: state({ selection: sel(3, 5, 3, 5) }),
      options: { scope: "selection", encoding: "utf-16" },
      want: { purpose: "diff", active_file: uri, selection: { uri, range: sel(3, 5, 3, 5) } },
    },
    {
      name: "empty selection with the live scope: the file only",
      state: state({ selection: sel(3, 5, 3, 5) }),
      options: { scope: "live", encoding: "utf-16" },
      want: { purpose: "diff", active_file: uri },
    },
    {
      name: "non-empty selection with the live scope: the selection",
      state: state({ selection: sel(3, 0, 3, 4) }),
      options: { scope: "live", encoding: "utf-16" },
      want: { purpose: "diff", active_file: uri, selection: { uri, range: sel(3, 0, 3, 4) } },
    },
    {
      name: "no selection at all with the selection scope: the file only",
      state: state(),
      options: { scope: "selection", encoding: "utf-8" },
      want: { purpose: "diff", active_file: uri },
    },
    {
      name: "model settings partially set: only the set ones are sent",
      state: state({ settings: settings({ model: { name: "gpt-4.1", maxInputTokens: 32000, provider: null, softLimitPct: undefined, responseTokenReserve: null } }) }),
      options: { scope: "file", encoding: "utf-16" },
      want: { purpose: "diff", active_file: uri, model: { model: "gpt-4.1", max_input_tokens: 32000 } },
    },
    {
      name: "every model setting",
      state: state({
        settings: settings({
          model: { provider: "anthropic", name: "claude", maxInputTokens: 200000, maxOutputTokens: 8000, responseTokenReserve: 2000, softLimitPct: 70 },
        }),
      }),
      options: { scope: "file", encoding: "utf-16" },
      want: {
        purpose: "diff",
        active_file: uri,
        model: { provider: "anthropic", model: "claude", max_input_tokens: 200000, max_output_tokens: 8000, response_token_reserve: 2000, soft_limit_threshold_pct: 70 },
      },
    },
    {
      name: "purpose: the setting's default",
      state: state({ settings: settings({ defaultPurpose: "plan" }) }),
      options: { scope: "file", encoding: "utf-16" },
      want: { purpose: "plan", active_file: uri },
    },
    {
      name: "purpose: the state's choice wins over the default",
      state: state({ purpose: "intent", settings: settings({ defaultPurpose: "plan" }) }),
      options: { scope: "file", encoding: "utf-16" },
      want: { purpose: "intent", active_file: uri },
    },
    {
      name: "symbols become a plan step's target symbols, with no text the user did not type",
      state: state(),
      options: { scope: "file", encoding: "utf-16", symbols: [" List ", ""] },
      want: { purpose: "diff", active_file: uri, plan_step: { id: "symbols", target_symbols: ["List"] } },
    },
    {
      name: "an intent the user typed, trimmed, with the editor-neutral id",
      state: state(),
      options: { scope: "file", encoding: "utf-16", intent: "  sort by name  " },
      want: { purpose: "diff", active_file: uri, intent: { id: "user", text: "sort by name" } },
    },
    {
      name: "a blank intent is not sent",
      state: state(),
      options: { scope: "file", encoding: "utf-16", intent: " \n " },
      want: { purpose: "diff", active_file: uri },
    },
    {
      name: "user selected targets",
      state: state(),
      options: { scope: "file", encoding: "utf-16", userSelectedTargets: [{ path: "a.go", symbol: "Run" }, { path: "b.go" }] },
      want: { purpose: "diff", active_file: uri, user_selected_targets: [{ path: "a.go", symbol: "Run" }, { path: "b.go" }] },
    },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(buildRequest(c.state, c.options), c.want));
  }

  it("does not read the text when nothing needs converting", () => {
    const s = { uri, languageId: "go", selection: sel(1, 0, 1, 0), settings: settings() } as EditorState;
    Object.defineProperty(s, "text", {
      get() {
        throw new Error("text read");
      },
    });
    assert.deepEqual(buildRequest(s, { scope: "selection", encoding: "utf-16" }).selection?.range, sel(1, 0, 1, 0));
  });
});

describe("readSettings", () => {
  it("defaults: purpose diff, no model", () => {
    const got = readSettings(() => undefined);
    assert.equal(got.defaultPurpose, DefaultPurpose);
    assert.equal(modelRequest(got.model), undefined);
  });
  it("reads set values and ignores wrong types and blanks", () => {
    const values: Record<string, unknown> = {
      defaultPurpose: "plan",
      "model.provider": "  ",
      "model.name": " gpt-4o ",
      "model.maxInputTokens": 64000,
      "model.maxOutputTokens": "8000",
      "model.responseTokenReserve": null,
      "model.softLimitPct": 90,
    };
    const got = readSettings((k) => values[k]);
    assert.equal(got.defaultPurpose, "plan");
    assert.deepEqual(modelRequest(got.model), { model: "gpt-4o", max_input_tokens: 64000, soft_limit_threshold_pct: 90 });
  });
  it("an unknown purpose falls back to diff", () => {
    assert.equal(readSettings((k) => (k === "defaultPurpose" ? "review" : undefined)).defaultPurpose, "diff");
  });
});

describe("retries and renderPrompt", () => {
  const base: BuildRequest = { purpose: "diff", active_file: uri, plan_step: { id: SymbolPlanStepId, target_symbols: ["List"] } };
  it("adds the chosen candidate once", () => {
    const once = withUserSelectedTarget(base, { path: "internal/legacy/store.go", symbol: "Store.List" });
    const twice = withUserSelectedTarget(once, { path: "internal/legacy/store.go", symbol: "Store.List" });
    assert.deepEqual(twice, { ...base, user_selected_targets: [{ path: "internal/legacy/store.go", symbol: "Store.List" }] });
    assert.equal(base.user_selected_targets, undefined, "the original request is not changed");
  });
  it("keeps earlier choices", () => {
    const a = withUserSelectedTarget(base, { path: "a.go", symbol: "A" });
    assert.deepEqual(withUserSelectedTarget(a, { path: "b.go", symbol: "" }).user_selected_targets, [{ path: "a.go", symbol: "A" }, { path: "b.go" }]);
  });
  it("adds a template id only when there is one", () => {
    assert.deepEqual(renderPromptRequest(base), base);
    assert.deepEqual(renderPromptRequest(base, " default-plan "), { ...base, template_id: "default-plan" });
  });
});

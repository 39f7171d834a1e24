package server

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/contextbuilder/cbtest"
	"github.com/ctxd/ctxd/server/lsptest"
	ctxws "github.com/ctxd/ctxd/workspace"
	"github.com/google/go-cmp/cmp"
)

// The governed commands over LSP: the workspace's .ctxd/config.json
// (policy, skills), ctxd.renderPrompt, threads (ctxd.buildContext with a
// thread, ctxd.recordExecution) and ctxd.verify, whose counts show what
// each command recorded.

// policyConfig allows the shop namespace only: vault/ holds a file the
// policy denies.
const policyConfig = `{
  "schema_version": "1",
  "policy": {
    "schema": "ctxd.context_policy.v1",
    "namespaces": {"shop": ["go.mod", "store/**"], "vault": ["vault/**"]},
    "allowed_context_namespaces": ["shop"],
    "skills": {"review": {"max_items": 8}}
  }
}
`

// policyWorkspace is a Go module with a policy. STORE_CONTENT_7f3 marks
// the content of store/store.go.
const policyWorkspace = `
-- go.mod --
module example.com/shop
-- store/store.go --
package store

// Store keeps items. STORE_CONTENT_7f3
type Store struct {
	items map[string]int
}

// Get returns an item.
func (s *Store) Get(name string) int { return s.items[name] }
-- vault/vault.go --
package vault

// Key is outside every allowed namespace.
const Key = "vault"
-- .ctxd/config.json --
` + policyConfig

// storeMarker is part of store/store.go's content.
const storeMarker = "STORE_CONTENT_7f3"

// fakeDiff is a model's output for turn t1: a diff the next turn shows the
// model as the previous attempt.
const fakeDiff = "--- a/store/store.go\n+++ b/store/store.go\n@@ -9 +9 @@\n-func (s *Store) Get(name string) int { return s.items[name] }\n+func (s *Store) Get(name string) int { return s.items[name] + 1 } // DIFF_MARKER_91c\n"

// storeRequest is a diff build of store/store.go; extra members are
// merged in.
func storeRequest(extra map[string]any) map[string]any {
	req := map[string]any{
		"purpose":   "diff",
		"intent":    map[string]any{"id": "i", "text": "make Get count from one"},
		"plan_step": map[string]any{"id": "s", "target_files": []string{"store/store.go"}},
	}
	for k, v := range extra {
		req[k] = v
	}
	return req
}

// thread is a request's thread object.
func thread(id, turn, parent string, refs ...string) map[string]any {
	th := map[string]any{"thread_id": id, "turn_id": turn, "declared_refs": append([]string{}, refs...)}
	if parent != "" {
		th["parent_turn_id"] = parent
	}
	return th
}

// refusal calls a command that must be refused with -32803 and returns the
// refusal, validated against its schema.
func (h *buildHarness) refusal(name string, req any) (*lsptest.WireError, contextbuilder.Refusal) {
	h.t.Helper()
	m := h.command(name, req)
	if m.Error == nil {
		h.t.Fatalf("%s succeeded (%.300s), want a -32803 refusal", name, m.Result)
	}
	if m.Error.Code != -32803 {
		h.t.Fatalf("%s: error %d %q, want -32803", name, m.Error.Code, m.Error.Message)
	}
	cbtest.ValidateValue(h.t, "refusal.schema.json", m.Error.Data)
	var r contextbuilder.Refusal
	if err := json.Unmarshal(m.Error.Data, &r); err != nil {
		h.t.Fatalf("%s: error data %s: %v", name, m.Error.Data, err)
	}
	return m.Error, r
}

// verify calls ctxd.verify in a mode and validates the report.
func (h *buildHarness) verify(mode string) ctxws.Report {
	h.t.Helper()
	m := h.command("ctxd.verify", map[string]any{"mode": mode})
	if m.Error != nil {
		h.t.Fatalf("ctxd.verify %s: %v", mode, m.Error)
	}
	cbtest.Validate(h.t, "verify_report.schema.json", m.Result)
	var r ctxws.Report
	if err := json.Unmarshal(m.Result, &r); err != nil {
		h.t.Fatalf("ctxd.verify %s: decoding %s: %v", mode, m.Result, err)
	}
	return r
}

// checkArtifact checks that a workspace-relative artifact path exists and
// is named by the sha256 of its bytes.
func checkArtifact(t *testing.T, dir, rel string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Errorf("artifact %s: %v", rel, err)
		return
	}
	sum := sha256.Sum256(data)
	if got, want := path.Base(rel), hex.EncodeToString(sum[:])+".json"; got != want {
		t.Errorf("artifact %s: its bytes hash to %s", rel, want)
	}
}

// blockTitled returns the block whose title starts with prefix; it fails
// the test when there is none.
func blockTitled(t *testing.T, r *contextbuilder.Result, prefix string) contextbuilder.Block {
	t.Helper()
	var titles []string
	for _, b := range r.Bundle.Blocks {
		if strings.HasPrefix(b.Title, prefix) {
			return b
		}
		titles = append(titles, b.Title)
	}
	t.Fatalf("no block titled %q…; titles: %q", prefix, titles)
	return contextbuilder.Block{}
}

func TestRenderPromptOverLSP(t *testing.T) {
	h, _ := newBuildHarness(t, policyWorkspace, "")
	m := h.command("ctxd.renderPrompt", storeRequest(nil))
	if m.Error != nil {
		t.Fatalf("ctxd.renderPrompt: %v (data %s)", m.Error, m.Error.Data)
	}
	cbtest.Validate(t, "render_prompt_result.schema.json", m.Result)
	var r ctxws.PromptResult
	if err := json.Unmarshal(m.Result, &r); err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, msg := range r.Prompt.Messages {
		roles = append(roles, msg.Role)
	}
	if diff := cmp.Diff([]string{"system", "user"}, roles); diff != "" {
		t.Fatalf("message roles (-want +got):\n%s", diff)
	}
	if !strings.Contains(r.Prompt.Messages[0].Content, storeMarker) {
		t.Errorf("the system message does not hold store/store.go's content")
	}
	if r.Prompt.Purpose != "diff" || r.Prompt.BundleFingerprint != r.Manifest.Fingerprints.BundleFingerprint {
		t.Errorf("prompt purpose %q, bundle_fingerprint %q; manifest's %q", r.Prompt.Purpose, r.Prompt.BundleFingerprint, r.Manifest.Fingerprints.BundleFingerprint)
	}
	checkArtifact(t, h.dir, r.PromptArtifact)
	checkArtifact(t, h.dir, r.ContextArtifact)
	// The stored prompt is the one returned.
	stored, err := os.ReadFile(filepath.Join(h.dir, filepath.FromSlash(r.PromptArtifact)))
	if err != nil {
		t.Fatal(err)
	}
	cbtest.Validate(t, "prompt.schema.json", stored)
	var got any
	if err := json.Unmarshal(stored, &got); err != nil {
		t.Fatal(err)
	}
	var res map[string]json.RawMessage
	if err := json.Unmarshal(m.Result, &res); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(decodeAny(t, res["prompt"]), got); diff != "" {
		t.Errorf("stored prompt differs from the returned one (-returned +stored):\n%s", diff)
	}
	if rep := h.verify("stream"); !rep.OK || rep.Counts.LedgerEvents != 0 || rep.Counts.Artifacts != 3 {
		t.Errorf("verify after a prompt without a thread: ok %v, counts %+v; want ok, no ledger events, 3 artifacts (policy, context, prompt)", rep.OK, rep.Counts)
	}
}

func TestRenderPromptUnknownTemplate(t *testing.T) {
	h, _ := newBuildHarness(t, policyWorkspace, "")
	_, r := h.refusal("ctxd.renderPrompt", storeRequest(map[string]any{"template_id": "no-such-template"}))
	if r.Code != "prompt_build_failed" || r.Advice == "" {
		t.Errorf("refusal = %+v, want prompt_build_failed with advice", r)
	}
	if m := h.command("ctxd.renderPrompt", storeRequest(map[string]any{"template_id": 7})); m.Error == nil || m.Error.Code != -32602 || !strings.Contains(m.Error.Message, "template_id") {
		t.Errorf("template_id 7 = %v, want -32602 naming template_id", m.Error)
	}
}

func TestInvalidConfigRefusesBuilds(t *testing.T) {
	archive := strings.Replace(policyWorkspace, `"allowed_context_namespaces": ["shop"],`, `"allowed_context_namespaces": ["shop"], "max_items": -3,`, 1)
	h, _ := newBuildHarness(t, archive, "")
	// The user hears about it when the folder opens, not at the first build.
	if p := waitMessage(t, h, "context_policy_invalid"); p.Type != 1 || !strings.Contains(p.Message, "/policy/max_items") || !strings.Contains(p.Message, "restarts") {
		t.Errorf("startup showMessage = %+v, want an error (1) naming /policy/max_items and a restart", p)
	}
	for _, name := range []string{"ctxd.buildContext", "ctxd.manifest", "ctxd.budget", "ctxd.renderPrompt"} {
		wire, r := h.refusal(name, storeRequest(nil))
		if r.Code != "context_policy_invalid" || r.Advice == "" {
			t.Errorf("%s: refusal %+v, want context_policy_invalid", name, r)
		}
		if !strings.Contains(wire.Message, "/policy/max_items") || !strings.Contains(r.Message, "/policy/max_items") {
			t.Errorf("%s: message %q does not name /policy/max_items", name, wire.Message)
		}
		if !strings.Contains(r.Message, ".ctxd/config.json") {
			t.Errorf("%s: message %q does not name the file", name, r.Message)
		}
	}
	// The index keeps serving.
	st := h.status("status")
	if len(st.WorkspaceFolders) != 1 {
		t.Errorf("indexStatus folders = %+v", st.WorkspaceFolders)
	}
	// verify reports the config as a mismatch rather than failing.
	rep := h.verify("stream")
	if rep.OK || rep.ContextConfigDigest != "" {
		t.Errorf("verify with an invalid config: ok %v, context_config_digest %q; want not ok and no digest", rep.OK, rep.ContextConfigDigest)
	}
}

func TestPolicyOverLSP(t *testing.T) {
	h, _ := newBuildHarness(t, policyWorkspace, "")
	t.Run("namespace denied", func(t *testing.T) {
		req := storeRequest(map[string]any{"plan_step": map[string]any{"id": "s", "target_files": []string{"vault/vault.go"}}})
		_, r := h.refusal("ctxd.buildContext", req)
		if r.Code != "context_namespace_denied" || !strings.Contains(r.Message, "vault/vault.go") {
			t.Errorf("refusal = %+v, want context_namespace_denied naming vault/vault.go", r)
		}
	})
	t.Run("unknown skill", func(t *testing.T) {
		_, r := h.refusal("ctxd.buildContext", storeRequest(map[string]any{"skill": "nope"}))
		if r.Code != "context_policy_override_invalid" || !strings.Contains(r.Message, "review") {
			t.Errorf("refusal = %+v, want context_policy_override_invalid listing review", r)
		}
	})
	t.Run("allowed", func(t *testing.T) {
		r := h.build(storeRequest(map[string]any{"skill": "review"}))
		fileBlock(t, r, "store/store.go")
		for _, b := range r.Bundle.Blocks {
			if b.Meta.Path != nil && strings.HasPrefix(*b.Meta.Path, "vault/") {
				t.Errorf("a block of %s entered the bundle", *b.Meta.Path)
			}
		}
	})
}

func TestRecordExecutionErrors(t *testing.T) {
	h, _ := newBuildHarness(t, policyWorkspace, "")
	_, r := h.refusal("ctxd.recordExecution", map[string]any{"thread_id": "th", "turn_id": "t1", "output": "x"})
	if r.Code != "REF_NOT_FOUND" || !strings.Contains(r.Message, `"t1"`) {
		t.Errorf("recordExecution without an INTENT: refusal %+v, want REF_NOT_FOUND naming the turn", r)
	}
	for _, tt := range []struct {
		name string
		arg  any
		want string
	}{
		{"unknown field", map[string]any{"thread_id": "th", "turn_id": "t1", "output": "x", "result": "ok"}, `"result"`},
		{"missing turn", map[string]any{"thread_id": "th", "output": "x"}, "turn_id"},
		{"absent", nil, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var m *lsptest.Message
			if tt.arg == nil {
				h.next++
				m = h.call(h.next, "workspace/executeCommand", map[string]any{"command": "ctxd.recordExecution"})
			} else {
				m = h.command("ctxd.recordExecution", tt.arg)
			}
			if m.Error == nil || m.Error.Code != -32602 || !strings.Contains(m.Error.Message, tt.want) {
				t.Errorf("ctxd.recordExecution = %v, want -32602 naming %s", m.Error, tt.want)
			}
		})
	}
	for _, arg := range []map[string]any{
		{"mode": "replay"},
		{"workspace_folder": "file:///elsewhere"},
		{"mode": "stream", "full": true},
	} {
		if m := h.command("ctxd.verify", arg); m.Error == nil || m.Error.Code != -32602 {
			t.Errorf("ctxd.verify %v = %v, want -32602", arg, m.Error)
		}
	}
	if rep := h.verify("stream"); !rep.OK || rep.Counts.LedgerEvents != 0 {
		t.Errorf("verify after refused executions: ok %v, counts %+v; want nothing in the ledger", rep.OK, rep.Counts)
	}
}

// TestThreadOverLSP runs a thread: turn t1 is built and its output
// recorded, turn t2 references both, and the ledger verifies in both
// modes; bad refs are refused, and previews record nothing.
func TestThreadOverLSP(t *testing.T) {
	h, _ := newBuildHarness(t, policyWorkspace, "")
	const th = "thread-a"
	first := h.build(storeRequest(map[string]any{"thread": thread(th, "t1", "")}))
	fileBlock(t, first, "store/store.go")

	var rec ctxws.Recorded
	m := h.command("ctxd.recordExecution", map[string]any{"thread_id": th, "turn_id": "t1", "output": fakeDiff})
	if m.Error != nil {
		t.Fatalf("ctxd.recordExecution: %v (data %s)", m.Error, m.Error.Data)
	}
	cbtest.Validate(t, "record_execution_result.schema.json", m.Result)
	if err := json.Unmarshal(m.Result, &rec); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(fakeDiff))
	if rec.RefID != "execution:t1" || rec.EventIndex != 2 || rec.OutputDigest != "sha256:"+hex.EncodeToString(sum[:]) {
		t.Errorf("recorded = %+v, want execution:t1 at event 2 with the output's digest", rec)
	}

	second := h.build(map[string]any{
		"purpose":   "diff",
		"intent":    map[string]any{"id": "i2", "text": "retry: the test still fails"},
		"plan_step": map[string]any{"id": "s", "target_files": []string{"store/store.go"}},
		"thread":    thread(th, "t2", "t1", "execution:t1", "intent:t1"),
	})
	prev := blockTitled(t, second, "Previous attempt (turn t1, ")
	if prev.BlockType != contextbuilder.BlockDiffHint || prev.Priority != contextbuilder.P2 || !strings.Contains(prev.Content, "DIFF_MARKER_91c") {
		t.Errorf("previous attempt block: type %s, priority %s, content %q", prev.BlockType, prev.Priority, prev.Content)
	}
	if prev.Title != "Previous attempt (turn t1, event 000002)" {
		t.Errorf("previous attempt title %q", prev.Title)
	}
	earlier := blockTitled(t, second, "Earlier request (turn t1, ")
	if earlier.BlockType != contextbuilder.BlockProjectMeta || earlier.Priority != contextbuilder.P2 || !strings.Contains(earlier.Content, "make Get count from one") {
		t.Errorf("earlier request block: type %s, priority %s, content %q", earlier.BlockType, earlier.Priority, earlier.Content)
	}
	if earlier.Title != "Earlier request (turn t1, event 000000)" {
		t.Errorf("earlier request title %q", earlier.Title)
	}

	var counts ctxws.Counts
	for _, mode := range []string{"stream", "ledger"} {
		rep := h.verify(mode)
		if !rep.OK || rep.Mode != mode || rep.Counts.LedgerEvents != 5 || rep.Counts.Mismatches != 0 {
			t.Errorf("verify %s: ok %v, mode %q, counts %+v; want ok with 5 ledger events (INTENT, DECISION, EXECUTION, INTENT, DECISION)", mode, rep.OK, rep.Mode, rep.Counts)
		}
		var kinds []string
		for _, c := range rep.Checks {
			if c.Source == "ledger" && c.EventIndex != nil {
				kinds = append(kinds, c.Kind)
			}
		}
		if diff := cmp.Diff([]string{"INTENT", "DECISION", "EXECUTION", "INTENT", "DECISION"}, kinds); diff != "" {
			t.Errorf("verify %s: ledger kinds (-want +got):\n%s", mode, diff)
		}
		counts = rep.Counts
	}

	// Previews resolve refs but record nothing: no event, no audit line,
	// no artifact.
	preview := storeRequest(map[string]any{"thread": thread(th, "t3", "t2", "intent:t2", "execution:t1")})
	var man map[string]json.RawMessage
	h.result("ctxd.manifest", "manifest_result.schema.json", preview, &man)
	var bud contextbuilder.BudgetResult
	h.result("ctxd.budget", "budget_result.schema.json", preview, &bud)
	if rep := h.verify("stream"); rep.Counts != counts {
		t.Errorf("counts after ctxd.manifest and ctxd.budget with a thread = %+v, before %+v", rep.Counts, counts)
	}
	// A preview fails on a bad ref as a build would.
	if _, r := h.refusal("ctxd.manifest", storeRequest(map[string]any{"thread": thread(th, "t3", "", "intent:t9")})); r.Code != "REF_NOT_FOUND" {
		t.Errorf("ctxd.manifest with an unknown ref: %+v", r)
	}

	t.Run("cross-thread ref", func(t *testing.T) {
		_, r := h.refusal("ctxd.buildContext", storeRequest(map[string]any{"thread": thread("thread-b", "u1", "", "intent:t1")}))
		if r.Code != "CROSS_THREAD_REF" || !strings.Contains(r.Message, "intent:t1") {
			t.Errorf("refusal = %+v, want CROSS_THREAD_REF naming intent:t1", r)
		}
	})
	t.Run("unknown ref", func(t *testing.T) {
		_, r := h.refusal("ctxd.buildContext", storeRequest(map[string]any{"thread": thread(th, "t4", "", "execution:t2")}))
		if r.Code != "REF_NOT_FOUND" || !strings.Contains(r.Message, "execution:t2") {
			t.Errorf("refusal = %+v, want REF_NOT_FOUND naming execution:t2", r)
		}
	})
	// Refused builds of a thread are decisions too (DENY), and the whole
	// ledger still verifies.
	rep := h.verify("ledger")
	if !rep.OK || rep.Counts.LedgerEvents != 9 {
		t.Errorf("verify after two refused thread builds: ok %v, counts %+v; want ok with 9 ledger events", rep.OK, rep.Counts)
	}
}

// TestConfigEditWarns: once a workspace's config was loaded by a build,
// editing .ctxd/config.json is reported as needing a restart; the
// config of a workspace no command used is not watched.
func TestConfigEditWarns(t *testing.T) {
	h, _ := newBuildHarness(t, policyWorkspace, "")
	cfg := filepath.Join(h.dir, ".ctxd", "config.json")
	edited := strings.Replace(policyConfig, `"max_items": 8`, `"max_items": 6`, 1)

	// The configuration is loaded when the folder is opened (at
	// initialized), so an edit warns even before the first build.
	h.status("barrier") // initialized is handled before this request
	if err := os.WriteFile(cfg, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	h.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{map[string]any{"uri": h.uri(".ctxd/config.json"), "type": 2}}})
	p := waitMessage(t, h, "restart")
	if p.Type != 2 || !strings.Contains(p.Message, ".ctxd/config.json") {
		t.Errorf("showMessage = %+v, want a warning (2) naming .ctxd/config.json and a restart", p)
	}
	// Builds keep the configuration loaded at startup: max_items 8.
	h.build(storeRequest(nil))

	// An edit that breaks the file warns too: builds keep the loaded
	// config until a restart.
	if err := os.WriteFile(cfg, []byte(`{"schema_version": "1", "policy": `), 0o644); err != nil {
		t.Fatal(err)
	}
	h.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{map[string]any{"uri": h.uri(".ctxd/config.json"), "type": 2}}})
	p = waitMessage(t, h, "invalid")
	if p.Type != 2 || !strings.Contains(p.Message, "restart") {
		t.Errorf("showMessage = %+v, want a warning (2) mentioning a restart", p)
	}
	h.build(storeRequest(nil))

	// Templates are loaded once too.
	h.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{map[string]any{"uri": h.uri(".ctxd/templates/mine.json"), "type": 1}}})
	if p := waitMessage(t, h, "templates"); p.Type != 2 || !strings.Contains(p.Message, "restart") {
		t.Errorf("showMessage = %+v, want a warning (2) mentioning a restart", p)
	}
}

// waitMessage waits for a window/showMessage whose message contains
// substr.
func waitMessage(t *testing.T, h *buildHarness, substr string) (p struct {
	Type    int
	Message string
}) {
	t.Helper()
	msg, err := h.c.WaitNotification(h.ctx, "window/showMessage", func(m *lsptest.Message) bool {
		return strings.Contains(string(m.Params), substr)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(msg.Params, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestThreadGovernance: max_user_messages_per_thread counts the
// referenced INTENTs and the current one, never EXECUTIONs (seed 000
// invariant 1); with allow_execution_refs_for_prompt false an execution
// ref resolves but shows nothing to the model.
func TestThreadGovernance(t *testing.T) {
	archive := strings.Replace(policyWorkspace, `"schema_version": "1",`, `"schema_version": "1", "context": {"allow_execution_refs_for_prompt": false},`, 1)
	archive = strings.Replace(archive, `"allowed_context_namespaces": ["shop"],`, `"allowed_context_namespaces": ["shop"], "max_user_messages_per_thread": 2,`, 1)
	h, _ := newBuildHarness(t, archive, "")
	const th = "gov"
	h.build(storeRequest(map[string]any{"thread": thread(th, "t1", "")}))
	if m := h.command("ctxd.recordExecution", map[string]any{"thread_id": th, "turn_id": "t1", "output": fakeDiff}); m.Error != nil {
		t.Fatal(m.Error)
	}
	h.build(storeRequest(map[string]any{"thread": thread(th, "t2", "t1", "intent:t1")}))

	_, r := h.refusal("ctxd.buildContext", storeRequest(map[string]any{"thread": thread(th, "t3", "t2", "intent:t2", "intent:t1")}))
	if r.Code != "context_selection_exceeds_max_user_messages" {
		t.Errorf("two earlier intents plus the current one under a cap of 2: refusal %+v", r)
	}
	res := h.build(storeRequest(map[string]any{"thread": thread(th, "t3", "t2", "execution:t1", "intent:t2")}))
	blockTitled(t, res, "Earlier request (turn t2, ")
	for _, b := range res.Bundle.Blocks {
		if strings.HasPrefix(b.Title, "Previous attempt") || strings.Contains(b.Content, "DIFF_MARKER_91c") {
			t.Errorf("execution output in block %q although allow_execution_refs_for_prompt is false", b.Title)
		}
	}
	// t1: 2, EXECUTION: 1, t2: 2, refused t3: 2, t3: 2.
	if rep := h.verify("stream"); !rep.OK || rep.Counts.LedgerEvents != 9 {
		t.Errorf("verify: ok %v, counts %+v; want ok with 9 ledger events", rep.OK, rep.Counts)
	}
}

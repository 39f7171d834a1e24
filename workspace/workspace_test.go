package workspace_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/gowebpki/jcs"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/contextbuilder/cbtest"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/workspace"
	"github.com/ctxd/ctxd/workspace/ledger"
)

// fixedNow is the clock of every test workspace.
func fixedNow() time.Time { return time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC) }

// env is a workspace on disk with its index.
type env struct {
	t    testing.TB
	dir  string
	x    *index.Index
	w    *workspace.Workspace
	opts contextbuilder.Options
}

const calcGo = `package calc

// Add returns a plus b.
func Add(a, b int) int {
	return a + b
}
`

// writeFiles writes files (path → content) under dir.
func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// indexFolder indexes dir as the one root named name, closed when the
// test ends, and returns the index with its first complete snapshot.
func indexFolder(t testing.TB, dir, name string) (*index.Index, *index.Snapshot) {
	t.Helper()
	x := index.New(index.Options{CacheDir: "off"})
	t.Cleanup(func() { x.Close() })
	x.SetRoots([]index.Root{{URI: index.PathToURI(dir), Name: name, Dir: dir}})
	snap, err := x.Wait(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return x, snap
}

// newEnv writes files (path → content) under a temp dir, indexes it and
// opens its workspace.
func newEnv(t testing.TB, files map[string]string) *env {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if files == nil {
		files = map[string]string{"calc.go": calcGo, "go.mod": "module example.com/calc\n\ngo 1.22\n"}
	}
	writeFiles(t, dir, files)
	x, _ := indexFolder(t, dir, "ws")
	e := &env{t: t, dir: dir, x: x, opts: contextbuilder.Options{CreatedAt: fixedNow()}}
	e.w = e.open()
	return e
}

// records is where the workspace's records live.
func (e *env) records() string {
	e.t.Helper()
	rec, err := workspace.Locate(e.dir)
	if err != nil {
		e.t.Fatal(err)
	}
	return rec.Dir
}

func (e *env) open() *workspace.Workspace {
	return workspace.Open(e.dir, workspace.Options{Now: fixedNow})
}

// request is a diff request on calc.go in a thread.
func request(intent, thread, turn, parent string, refs ...string) *contextbuilder.Request {
	req := &contextbuilder.Request{
		Purpose:  contextbuilder.PurposeDiff,
		Intent:   &contextbuilder.Intent{ID: "i-" + turn, Text: intent},
		PlanStep: &contextbuilder.PlanStep{ID: "s-" + turn, Text: intent, TargetFiles: []string{"calc.go"}},
	}
	if thread != "" {
		th := map[string]any{"thread_id": thread, "turn_id": turn, "declared_refs": append([]string{}, refs...)}
		if parent != "" {
			th["parent_turn_id"] = parent
		}
		req.Thread, _ = json.Marshal(th)
	}
	return req
}

func (e *env) build(w *workspace.Workspace, req *contextbuilder.Request) (*contextbuilder.Result, error) {
	e.t.Helper()
	return w.Build(context.Background(), e.x.Snapshot(), req, e.opts)
}

func (e *env) mustBuild(req *contextbuilder.Request) *contextbuilder.Result {
	e.t.Helper()
	res, err := e.build(e.w, req)
	if err != nil {
		e.t.Fatalf("build: %v", err)
	}
	return res
}

func (e *env) record(thread, turn, output string) *workspace.Recorded {
	e.t.Helper()
	rec, err := e.w.RecordExecution(context.Background(), workspace.Execution{ThreadID: thread, TurnID: turn, Output: output})
	if err != nil {
		e.t.Fatalf("record execution: %v", err)
	}
	return rec
}

// events reads the ledger file.
func (e *env) events() []ledger.Event {
	e.t.Helper()
	data, err := os.ReadFile(filepath.Join(e.records(), "ledger", "events.jsonl"))
	if err != nil {
		e.t.Fatal(err)
	}
	var out []ledger.Event
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var ev ledger.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			e.t.Fatal(err)
		}
		out = append(out, ev)
	}
	return out
}

func decision(t *testing.T, ev ledger.Event) ledger.DecisionPayload {
	t.Helper()
	if ev.Kind != ledger.KindDecision {
		t.Fatalf("event %d is %s, want DECISION", ev.Index, ev.Kind)
	}
	var d ledger.DecisionPayload
	if err := json.Unmarshal(ev.Payload, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// verify runs both replay modes and returns the stream report after
// checking the ledger report agrees.
func (e *env) verify() *workspace.Report {
	e.t.Helper()
	stream, err := workspace.Verify(e.dir, ledger.ModeStream)
	if err != nil {
		e.t.Fatal(err)
	}
	led, err := workspace.Verify(e.dir, ledger.ModeLedger)
	if err != nil {
		e.t.Fatal(err)
	}
	cbtest.ValidateValue(e.t, "verify_report.schema.json", stream)
	if diff := cmp.Diff(stream.Checks, led.Checks); diff != "" {
		e.t.Errorf("stream and ledger replay disagree (-stream +ledger):\n%s", diff)
	}
	return stream
}

func mismatches(r *workspace.Report) []workspace.Check {
	var out []workspace.Check
	for _, c := range r.Checks {
		if c.Status == workspace.StatusMismatch {
			out = append(out, c)
		}
	}
	return out
}

func refusalCode(t *testing.T, err error) contextbuilder.RefusalCode {
	t.Helper()
	var ref *contextbuilder.Refusal
	if !errors.As(err, &ref) {
		t.Fatalf("err = %v, want a refusal", err)
	}
	return ref.Code
}

func writeConfig(t *testing.T, dir, config string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, ".ctxd"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".ctxd", "config.json"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSeedExample1ChatHistory reproduces seed 000 example 1 through a
// build: declared [INTENT-1, EXECUTION-1] resolve with governance and
// execution_only; the policy input (normative inputs) is INTENT-1 only;
// the prompt gets INTENT-1, EXECUTION-1 and INTENT-2, in that order.
func TestSeedExample1ChatHistory(t *testing.T) {
	e := newEnv(t, nil)
	e.mustBuild(request("What is 2+2?", "chat", "1", ""))
	e.record("chat", "1", "2+2 equals 4")
	ctx := context.Background()
	res, err := e.w.RenderPrompt(ctx, e.x.Snapshot(), request("Explain more", "chat", "2", "1", "execution:1", "intent:1"), "", e.opts)
	if err != nil {
		t.Fatal(err)
	}
	evs := e.events()
	d := decision(t, evs[len(evs)-1])
	want := []ledger.ResolvedRef{
		{RefID: "intent:1", EventIndex: 0, EventDigest: evs[0].Digest, AdmittedFor: ledger.AdmittedGovernance},
		{RefID: "execution:1", EventIndex: 2, EventDigest: evs[2].Digest, AdmittedFor: ledger.AdmittedExecutionOnly},
	}
	if diff := cmp.Diff(want, d.ContextSpec.Retrieval.ResolvedRefs); diff != "" {
		t.Errorf("resolved_refs (-want +got):\n%s", diff)
	}
	var policySees []string
	for _, in := range d.AssembledContext.NormativeInputs {
		policySees = append(policySees, in.UserInput)
	}
	if diff := cmp.Diff([]string{"What is 2+2?"}, policySees); diff != "" {
		t.Errorf("policy sees (-want +got):\n%s", diff)
	}
	system, user := res.Prompt.Messages[0].Content, res.Prompt.Messages[1].Content
	all := system + "\n" + user
	i1, e1, i2 := strings.Index(all, "What is 2+2?"), strings.Index(all, "2+2 equals 4"), strings.LastIndex(all, "Explain more")
	if i1 < 0 || e1 < 0 || i2 < 0 || !(i1 < e1 && e1 < i2) {
		t.Errorf("prompt order: INTENT-1 at %d, EXECUTION-1 at %d, INTENT-2 at %d; want all present in that order\nsystem:\n%s\nuser:\n%s", i1, e1, i2, system, user)
	}
	if !strings.Contains(user, "Explain more") {
		t.Errorf("the user message does not carry the current intent:\n%s", user)
	}
	cbtest.ValidateValue(t, "render_prompt_result.schema.json", res)
	if r := e.verify(); !r.OK {
		t.Errorf("verify: %+v", mismatches(r))
	}
}

// TestSeedExample2PolicyCountLimit reproduces seed 000 example 2: with a
// limit of 5 user messages, INTENT-6 declaring INTENT-1..5 is denied, and
// the denial is a DENY decision in the ledger.
func TestSeedExample2PolicyCountLimit(t *testing.T) {
	e := newEnv(t, nil)
	writeConfig(t, e.dir, `{"schema_version": "1", "policy": {"schema": "ctxd.context_policy.v1", "namespaces": {}, "max_user_messages_per_thread": 5}}`)
	e.w = e.open()
	var refs []string
	for i := 1; i <= 5; i++ {
		turn := fmt.Sprint(i)
		e.mustBuild(request("message "+turn, "th", turn, ""))
		refs = append(refs, "intent:"+turn)
	}
	_, err := e.build(e.w, request("message 6", "th", "6", "5", refs...))
	if got := refusalCode(t, err); got != workspace.RefuseMaxUserMessages {
		t.Fatalf("code = %s, want %s", got, workspace.RefuseMaxUserMessages)
	}
	evs := e.events()
	d := decision(t, evs[len(evs)-1])
	if d.Result != ledger.ResultDeny || d.Reason != string(workspace.RefuseMaxUserMessages) || d.Bundle != nil {
		t.Errorf("decision = %s %q bundle %v, want DENY %s without a bundle", d.Result, d.Reason, d.Bundle, workspace.RefuseMaxUserMessages)
	}
	if n := len(d.AssembledContext.NormativeInputs); n != 5 {
		t.Errorf("policy saw %d prior user messages, want 5", n)
	}
	// Four prior messages plus the current one are within the limit.
	if _, err := e.build(e.w, request("message 6", "th", "6b", "5", refs[1:]...)); err != nil {
		t.Errorf("5 messages in all: %v", err)
	}
	if r := e.verify(); !r.OK {
		t.Errorf("verify: %+v", mismatches(r))
	}
}

// TestInvariant1ObservationExcludedFromPolicy: EXECUTION events never
// count for the policy, and their outputs never appear in what the
// context_digest covers (the spec and the assembled context): only their
// references, with event digests, do (seed 000 digest scope).
func TestInvariant1ObservationExcludedFromPolicy(t *testing.T) {
	const output = "--- a/calc.go\n+++ b/calc.go\n@@ observed output @@\n"
	e := newEnv(t, nil)
	writeConfig(t, e.dir, `{"schema_version": "1", "policy": {"schema": "ctxd.context_policy.v1", "namespaces": {}, "max_user_messages_per_thread": 2}}`)
	e.w = e.open()
	e.mustBuild(request("first", "th", "1", ""))
	e.record("th", "1", output)
	// One INTENT and an EXECUTION referenced: the policy counts 1+1 and
	// allows; counting the observation would make it 3 and deny.
	res := e.mustBuild(request("second", "th", "2", "1", "intent:1", "execution:1"))
	evs := e.events()
	d := decision(t, evs[len(evs)-1])
	if len(d.AssembledContext.NormativeInputs) != 1 || d.AssembledContext.NormativeInputs[0].RefID != "intent:1" {
		t.Errorf("normative inputs = %+v, want intent:1 only", d.AssembledContext.NormativeInputs)
	}
	if len(d.ContextSpec.NormativeInputDigests) != 1 {
		t.Errorf("normative_input_digests = %v, want the one INTENT", d.ContextSpec.NormativeInputDigests)
	}
	scope, err := json.Marshal(map[string]any{"context_spec": d.ContextSpec, "assembled_context": d.AssembledContext})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(scope, []byte("observed output")) {
		t.Errorf("the context_digest's scope holds EXECUTION output: %s", scope)
	}
	recomputed, err := ledger.ContextDigest(d.ContextSpec, d.AssembledContext)
	if err != nil || recomputed != d.ContextDigest {
		t.Errorf("recomputed %s (%v), stored %s", recomputed, err, d.ContextDigest)
	}
	found := false
	for _, b := range res.Bundle.Blocks {
		found = found || b.BlockType == contextbuilder.BlockDiffHint && strings.Contains(b.Content, "observed output @@\n")
	}
	if !found {
		t.Errorf("the previous attempt is not in the bundle (the EXECUTION of the turn)")
	}
}

// TestConfigPinnedAndReplayed: every DECISION pins the config digest;
// verify flags decisions made under another config.
func TestConfigPinnedAndReplayed(t *testing.T) {
	e := newEnv(t, nil)
	writeConfig(t, e.dir, `{"schema_version": "1"}`)
	e.w = e.open()
	e.mustBuild(request("first", "th", "1", ""))
	d := decision(t, e.events()[1])
	if d.Boundary.ContextConfigDigest != e.w.ConfigDigest() || d.ContextSpec.Retrieval.Normalization.ConfigDigest != e.w.ConfigDigest() {
		t.Errorf("pinned %s / %s, want %s", d.Boundary.ContextConfigDigest, d.ContextSpec.Retrieval.Normalization.ConfigDigest, e.w.ConfigDigest())
	}
	if msg, changed := e.w.ConfigChanged(); changed {
		t.Errorf("ConfigChanged before any edit: %s", msg)
	}
	writeConfig(t, e.dir, `{"schema_version": "1", "context": {"max_refs": 7}}`)
	msg, changed := e.w.ConfigChanged()
	if !changed || !strings.Contains(msg, "restart") {
		t.Errorf("ConfigChanged after an edit = %v %q, want true and a restart hint", changed, msg)
	}
	r := e.verify()
	got := mismatches(r)
	if r.OK || len(got) != 1 || got[0].Field != "boundary.context_config_digest" {
		t.Errorf("verify under another config: ok %v, mismatches %+v; want one boundary.context_config_digest", r.OK, got)
	}
}

// TestConcurrentThreadBuilds: parallel builds in one thread, from two
// Workspace values on the same folder (as a server and a CLI would),
// keep one valid chain.
func TestConcurrentThreadBuilds(t *testing.T) {
	e := newEnv(t, nil)
	ws := []*workspace.Workspace{e.w, e.open()}
	const n = 8
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for i := range 2 * n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := e.build(ws[i%2], request(fmt.Sprint("intent ", i), "th", fmt.Sprint("t", i), ""))
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	evs := e.events()
	if len(evs) != 4*n {
		t.Fatalf("%d events, want %d", len(evs), 4*n)
	}
	for i := 0; i < len(evs); i += 2 {
		if evs[i].Kind != ledger.KindIntent || evs[i+1].Kind != ledger.KindDecision || evs[i].TurnID != evs[i+1].TurnID {
			t.Errorf("events %d,%d = %s %s / %s %s: an INTENT and its DECISION must be adjacent", i, i+1, evs[i].Kind, evs[i].TurnID, evs[i+1].Kind, evs[i+1].TurnID)
		}
	}
	if r := e.verify(); !r.OK || r.Counts.LedgerEvents != 4*n {
		t.Errorf("verify: ok %v, %d events, mismatches %+v", r.OK, r.Counts.LedgerEvents, mismatches(r))
	}
}

// TestCrashRecovery: a torn ledger tail and a temp artifact left by a
// killed process are not trusted: the next open recovers and everything
// verifies.
func TestCrashRecovery(t *testing.T) {
	e := newEnv(t, nil)
	e.mustBuild(request("first", "th", "1", ""))
	ledgerFile := filepath.Join(e.records(), "ledger", "events.jsonl")
	f, err := os.OpenFile(ledgerFile, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"event_index":2,"kind":"INTENT","payl`); err != nil {
		t.Fatal(err)
	}
	f.Close()
	tmp := filepath.Join(e.records(), "artifacts", "contexts", ".deadbeef.123.tmp")
	if err := os.WriteFile(tmp, []byte(`{"half":`), 0o600); err != nil {
		t.Fatal(err)
	}
	e.w = e.open()
	e.mustBuild(request("second", "th", "2", "1", "intent:1"))
	if _, err := os.Stat(tmp); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the stale temp artifact survived the restart: %v", err)
	}
	if n := len(e.events()); n != 4 {
		t.Errorf("%d events after recovery, want 4", n)
	}
	if r := e.verify(); !r.OK {
		t.Errorf("verify after recovery: %+v", mismatches(r))
	}
}

// TestTamperDetected flips one byte in each kind of artifact, the audit
// trail and the ledger: verify reports each.
func TestTamperDetected(t *testing.T) {
	e := newEnv(t, nil)
	e.mustBuild(request("first", "th", "1", ""))
	e.record("th", "1", "--- a/calc.go\n+++ b/calc.go\n")
	if _, err := e.w.RenderPrompt(context.Background(), e.x.Snapshot(), request("retry", "th", "2", "1", "intent:1", "execution:1"), "", e.opts); err != nil {
		t.Fatal(err)
	}
	if r := e.verify(); !r.OK {
		t.Fatalf("verify before tampering: %+v", mismatches(r))
	}
	// Ledger replay writes the missing projection; from then on both modes
	// compare it with a fresh one.
	if r, err := workspace.Verify(e.dir, ledger.ModeLedger); err != nil || !r.OK {
		t.Fatalf("ledger replay before tampering: %v %+v", err, r)
	}
	recs := e.records()
	targets := map[string]string{
		"ledger":     filepath.Join("ledger", "events.jsonl"),
		"audit":      "audit.jsonl",
		"projection": workspace.ProjectionFile,
	}
	for _, kind := range []string{"contexts", "context_policies", "prompts"} {
		m, _ := filepath.Glob(filepath.Join(recs, "artifacts", kind, "*.json"))
		if len(m) == 0 {
			t.Fatalf("no %s artifact", kind)
		}
		rel, _ := filepath.Rel(recs, m[0])
		targets[kind] = rel
	}
	for source, rel := range targets {
		t.Run(source, func(t *testing.T) {
			path := filepath.Join(recs, rel)
			orig, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.WriteFile(path, orig, 0o600) })
			for _, at := range []int{0, len(orig) / 3, len(orig) / 2, len(orig) - 2} {
				flipped := bytes.Clone(orig)
				flipped[at] ^= 0x01
				if err := os.WriteFile(path, flipped, 0o600); err != nil {
					t.Fatal(err)
				}
				for _, mode := range []ledger.Mode{ledger.ModeStream, ledger.ModeLedger} {
					r, err := workspace.Verify(e.dir, mode)
					if err != nil {
						t.Fatalf("%s replay: %v", mode, err)
					}
					if r.OK {
						t.Errorf("byte %d of %s flipped: %s replay says ok", at, rel, mode)
					}
				}
			}
		})
	}
}

// TestProjectionKeptByBuilds: once the records' ledger.sqlite exists, every build
// and recorded execution rewrites it, so verification still passes; a
// forged row is a mismatch until RepairProjection rebuilds the file.
func TestProjectionKeptByBuilds(t *testing.T) {
	e := newEnv(t, nil)
	e.mustBuild(request("first", "th", "1", ""))
	proj := filepath.Join(e.records(), workspace.ProjectionFile)
	if _, err := os.Stat(proj); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a build created the projection: %v", err)
	}
	if r, err := workspace.Verify(e.dir, ledger.ModeLedger); err != nil || !r.OK {
		t.Fatalf("ledger replay: %v %+v", err, r)
	}
	if _, err := os.Stat(proj); err != nil {
		t.Fatalf("ledger replay left no projection: %v", err)
	}
	e.record("th", "1", "--- a/calc.go\n+++ b/calc.go\n")
	e.mustBuild(request("second", "th", "2", "1", "intent:1"))
	for _, mode := range []ledger.Mode{ledger.ModeStream, ledger.ModeLedger} {
		if r, err := workspace.Verify(e.dir, mode); err != nil || !r.OK {
			t.Errorf("%s replay after more builds: %v %+v", mode, err, mismatches(r))
		}
	}

	forged := bytes.Clone(mustRead(t, proj))
	forged[len(forged)/2] ^= 0x01
	if err := os.WriteFile(proj, forged, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []ledger.Mode{ledger.ModeStream, ledger.ModeLedger} {
		r, err := workspace.Verify(e.dir, mode)
		if err != nil || r.OK {
			t.Errorf("%s replay of a flipped projection: %v, ok %v", mode, err, r != nil && r.OK)
		}
	}
	if !bytes.Equal(mustRead(t, proj), forged) {
		t.Error("verification overwrote the projection")
	}
	if ok, err := workspace.RepairProjection(e.dir); err != nil || !ok {
		t.Fatalf("RepairProjection = %v, %v", ok, err)
	}
	if r := e.verify(); !r.OK {
		t.Errorf("verify after repair: %+v", mismatches(r))
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestPreviewRecordsNothing: ctxd.manifest and ctxd.budget apply the
// thread's refs but append nothing.
func TestPreviewRecordsNothing(t *testing.T) {
	e := newEnv(t, nil)
	e.mustBuild(request("first", "th", "1", ""))
	before := len(e.events())
	ctx := context.Background()
	req := request("second", "th", "2", "1", "intent:1")
	if _, err := e.w.Manifest(ctx, e.x.Snapshot(), req, e.opts); err != nil {
		t.Fatal(err)
	}
	if _, err := e.w.Budget(ctx, e.x.Snapshot(), req, e.opts); err != nil {
		t.Fatal(err)
	}
	if _, err := e.w.Budget(ctx, e.x.Snapshot(), request("x", "th", "3", "", "intent:nope"), e.opts); refusalCode(t, err) != ledger.CodeRefNotFound {
		t.Errorf("budget with an unknown ref: %v", err)
	}
	if after := len(e.events()); after != before {
		t.Errorf("previews appended %d events", after-before)
	}
}

// TestThreadRefErrors: the seed's failure modes are refusals recorded as
// DENY decisions.
func TestThreadRefErrors(t *testing.T) {
	e := newEnv(t, nil)
	writeConfig(t, e.dir, `{"schema_version": "1", "context": {"max_refs": 2, "empty_refs_policy": "DENY"}}`)
	e.w = e.open()
	if _, err := e.build(e.w, request("first", "a", "1", "")); refusalCode(t, err) != ledger.CodeEmptyRefsDenied {
		t.Errorf("empty refs under DENY: %v", err)
	}
	tests := []struct {
		name string
		refs []string
		want string
	}{
		{"not found", []string{"intent:zzz"}, ledger.CodeRefNotFound},
		{"cross thread", []string{"intent:1"}, ledger.CodeCrossThreadRef},
		{"too many", []string{"intent:1", "intent:2", "intent:3"}, ledger.CodeMaxRefsExceeded},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.build(e.w, request("x", "b", "9", "", tc.refs...))
			if got := refusalCode(t, err); string(got) != tc.want {
				t.Errorf("code = %s, want %s", got, tc.want)
			}
			evs := e.events()
			if d := decision(t, evs[len(evs)-1]); d.Result != ledger.ResultDeny || d.Reason != tc.want {
				t.Errorf("decision %s %q, want DENY %s", d.Result, d.Reason, tc.want)
			}
		})
	}
	if r := e.verify(); !r.OK {
		t.Errorf("verify: %+v", mismatches(r))
	}
}

// TestUnwritableStateFailsClosed: when the record cannot be written, no
// bundle leaves ctxd.
func TestUnwritableStateFailsClosed(t *testing.T) {
	e := newEnv(t, nil)
	artifacts := filepath.Join(e.records(), "artifacts")
	if err := os.MkdirAll(filepath.Dir(artifacts), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(artifacts, []byte("not a directory"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, thread := range []string{"", "th"} {
		_, err := e.build(e.open(), request("first", thread, "1", ""))
		if got := refusalCode(t, err); got != workspace.RefuseSelectionFailed {
			t.Errorf("thread %q: code = %s, want %s", thread, got, workspace.RefuseSelectionFailed)
		}
	}
}

// TestOpenWritesNothing: opening a folder (as an editor does at startup)
// loads its configuration but writes nothing until a build.
func TestOpenWritesNothing(t *testing.T) {
	e := newEnv(t, nil)
	writeConfig(t, e.dir, `{"schema_version": "1"}`)
	e.w = e.open()
	if _, err := os.Stat(filepath.Join(e.dir, ".ctxd", ".gitignore")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf(".ctxd/.gitignore exists after Open: %v", err)
	}
	if e.w.ConfigDigest() == "" || e.w.ConfigErr() != nil {
		t.Errorf("config not loaded at Open: digest %q, err %v", e.w.ConfigDigest(), e.w.ConfigErr())
	}
	e.mustBuild(request("first", "", "", ""))
	if _, err := os.Stat(filepath.Join(e.dir, ".ctxd", ".gitignore")); err != nil {
		t.Errorf("no .ctxd/.gitignore after a build: %v", err)
	}
}

// TestContextArtifact: a build without a thread stores what it returned,
// with the policy's selection metrics, and the audit trail records it.
func TestContextArtifact(t *testing.T) {
	e := newEnv(t, nil)
	writeConfig(t, e.dir, `{"schema_version": "1", "policy": {"schema": "ctxd.context_policy.v1", "namespaces": {"all": ["**"]}, "ordering": "lexicographic"}}`)
	e.w = e.open()
	res := e.mustBuild(request("first", "", "", ""))
	m, _ := filepath.Glob(filepath.Join(e.records(), "artifacts", "contexts", "*.json"))
	if len(m) != 1 {
		t.Fatalf("%d context artifacts, want 1", len(m))
	}
	data, err := os.ReadFile(m[0])
	if err != nil {
		t.Fatal(err)
	}
	cbtest.Validate(t, "context_artifact.schema.json", data)
	if c, err := jcs.Transform(data); err != nil || !bytes.Equal(c, data) {
		t.Errorf("the artifact is not in canonical form (err %v)", err)
	}
	// The outputs inside are the result returned, byte for byte in
	// canonical form.
	var parts map[string]json.RawMessage
	if err := json.Unmarshal(data, &parts); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]byte{
		"bundle":           res.Bundle.AppendCanonical(nil),
		"manifest":         res.Manifest.AppendCanonical(nil),
		"redaction_report": res.RedactionReport.AppendCanonical(nil),
		"budget_report":    res.BudgetReport.AppendCanonical(nil),
	} {
		if !bytes.Equal(parts[name], want) {
			t.Errorf("the artifact's %s differs from the result's (-result +artifact):\n%s", name, cmp.Diff(string(want), string(parts[name])))
		}
	}
	var a struct {
		Bundle    contextbuilder.Bundle `json:"bundle"`
		Selection struct {
			Ordering   string `json:"ordering"`
			TotalItems int    `json:"total_items"`
			Items      []struct {
				Path string `json:"path"`
			} `json:"items"`
		} `json:"selection"`
	}
	if err := json.Unmarshal(data, &a); err != nil {
		t.Fatal(err)
	}
	if a.Bundle.BundleID != res.Bundle.BundleID || a.Selection.Ordering != "lexicographic" || a.Selection.TotalItems != len(a.Selection.Items) || a.Selection.TotalItems == 0 {
		t.Errorf("artifact: bundle %s (want %s), ordering %s, %d items listed %d", a.Bundle.BundleID, res.Bundle.BundleID, a.Selection.Ordering, a.Selection.TotalItems, len(a.Selection.Items))
	}
	for i := 1; i < len(a.Selection.Items); i++ {
		if a.Selection.Items[i-1].Path > a.Selection.Items[i].Path {
			t.Errorf("items not in lexicographic order: %q before %q", a.Selection.Items[i-1].Path, a.Selection.Items[i].Path)
		}
	}
	audit, err := os.ReadFile(filepath.Join(e.records(), "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"event":"context_policy_loaded"`, `"event":"context_selected"`, filepath.Base(strings.TrimSuffix(m[0], ".json"))} {
		if !bytes.Contains(audit, []byte(want)) {
			t.Errorf("audit trail lacks %s", want)
		}
	}
	if bytes.Contains(audit, []byte("return a + b")) {
		t.Errorf("the audit trail holds file contents")
	}
}

// TestDeletedArtifactDetected: a bundle deleted after a build outside a
// thread is reported through the audit event that names it.
func TestDeletedArtifactDetected(t *testing.T) {
	e := newEnv(t, nil)
	e.mustBuild(request("first", "", "", ""))
	m, _ := filepath.Glob(filepath.Join(e.records(), "artifacts", "contexts", "*.json"))
	if len(m) != 1 {
		t.Fatalf("%d context artifacts, want 1", len(m))
	}
	if err := os.Remove(m[0]); err != nil {
		t.Fatal(err)
	}
	r := e.verify()
	got := mismatches(r)
	if r.OK || len(got) != 1 || got[0].Source != "audit" || got[0].Field != "artifact" || got[0].Kind != "context_selected" {
		t.Errorf("verify after deleting the bundle: ok %v, mismatches %+v; want one audit artifact mismatch", r.OK, got)
	}
}

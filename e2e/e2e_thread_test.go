package e2e

// A thread through the real binary: builds with a thread, a recorded
// execution, a prompt, then `ctxd verify` as a subprocess over what the
// server recorded, untouched and with one byte flipped in each file.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/contextbuilder/cbtest"
	"github.com/ctxd/ctxd/index/indextest"
	"github.com/ctxd/ctxd/server/lsptest"
	"github.com/google/go-cmp/cmp"
)

// threadWorkspace is a module with a policy: calc/ and go.mod are the
// only allowed namespace.
const threadWorkspace = `
-- go.mod --
module example.com/calc
-- calc/add.go --
package calc

// Add adds.
func Add(a, b int) int { return a + b }
-- calc/add_test.go --
package calc

import "testing"

func TestAdd(t *testing.T) {
	if Add(1, 2) != 3 {
		t.Fatal("Add")
	}
}
-- notes/plan.md --
# Plan
-- .ctxd/config.json --
{
  "schema_version": "1",
  "context": {"max_refs": 8},
  "policy": {
    "schema": "ctxd.context_policy.v1",
    "namespaces": {"calc": ["calc/**", "go.mod"], "notes": ["notes/**"]},
    "allowed_context_namespaces": ["calc"],
    "max_user_messages_per_thread": 5,
    "ordering": "lexicographic"
  }
}
`

// Markers of the model output recorded for turn t1: the diff is shown to
// the model in turn t2, the secret is redacted from the bundle; neither
// may reach a log.
const (
	threadDiffMarker = "E2E_DIFF_MARKER_4b7"
	threadSecret     = "sk-THREADabcdefghijklmnopqrstuvwxyz0123456789"
	threadOutput     = "--- a/calc/add.go\n+++ b/calc/add.go\n@@ -4 +4 @@\n-func Add(a, b int) int { return a + b }\n" +
		"+func Add(a, b int) int { return a + b + 0 } // " + threadDiffMarker + "\n" +
		"+const apiKey = \"" + threadSecret + "\"\n"
)

// ctxdRun runs the binary with args and returns its exit code and output.
func ctxdRun(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		t.Fatalf("ctxd %s: %v", strings.Join(args, " "), err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

// ledgerLine is the part of a ledger line the test reads.
type ledgerLine struct {
	Index   int    `json:"event_index"`
	Digest  string `json:"event_digest"`
	Kind    string `json:"kind"`
	TurnID  string `json:"turn_id"`
	Payload struct {
		ContextSpec struct {
			Retrieval struct {
				DeclaredRefs []string `json:"declared_refs"`
				ResolvedRefs []struct {
					RefID       string `json:"ref_id"`
					EventIndex  int    `json:"event_index"`
					EventDigest string `json:"event_digest"`
					AdmittedFor string `json:"admitted_for"`
				} `json:"resolved_refs"`
			} `json:"retrieval"`
			NormativeInputDigests []string `json:"normative_input_digests"`
		} `json:"context_spec"`
		AssembledContext struct {
			NormativeInputs []struct {
				EventIndex int `json:"event_index"`
			} `json:"normative_inputs"`
		} `json:"assembled_context"`
		Result string `json:"result"`
	} `json:"payload"`
}

// readLedger reads .ctxd/ledger/events.jsonl line by line.
func readLedger(t *testing.T, dir string) ([]ledgerLine, []string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, ".ctxd", "ledger", "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var lines []ledgerLine
	var raw []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var l ledgerLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("ledger line %d: %v", len(lines), err)
		}
		lines = append(lines, l)
		raw = append(raw, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines, raw
}

// flipMiddle flips the low bit of the middle byte of a file.
func flipMiddle(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) == 0 {
		t.Fatalf("%s is empty", path)
	}
	data[len(data)/2] ^= 0x01
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// firstArtifact returns the workspace-relative path of the first artifact
// of a kind, in name order.
func firstArtifact(t *testing.T, dir, kind string) string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, ".ctxd", "artifacts", kind, "*.json"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no %s artifact (%v)", kind, err)
	}
	rel, err := filepath.Rel(dir, names[0])
	if err != nil {
		t.Fatal(err)
	}
	return filepath.ToSlash(rel)
}

func TestE2EThreadVerify(t *testing.T) {
	dir := indextest.WriteTree(t, threadWorkspace)
	p := startServer(t, "--log-level", "debug")
	if m := p.call(1, "initialize", map[string]any{
		"processId": os.Getpid(), "rootUri": "file://" + filepath.ToSlash(dir), "capabilities": map[string]any{},
	}); m.Error != nil {
		t.Fatal(m.Error)
	}
	_ = p.c.Notify("initialized", map[string]any{})
	id := 1
	command := func(name string, arg any) *lsptest.Message {
		t.Helper()
		id++
		m := p.call(id, "workspace/executeCommand", map[string]any{"command": name, "arguments": []any{arg}})
		if m.Error != nil {
			t.Fatalf("%s: %v (data %s; stderr: %s)", name, m.Error, m.Error.Data, p.stderr)
		}
		return m
	}
	request := func(text string, thread map[string]any) map[string]any {
		req := map[string]any{
			"purpose":   "diff",
			"intent":    map[string]any{"id": "i", "text": text},
			"plan_step": map[string]any{"id": "s", "target_files": []string{"calc/add.go"}},
		}
		if thread != nil {
			req["thread"] = thread
		}
		return req
	}

	command("ctxd.buildContext", request("make Add saturate", map[string]any{"thread_id": "e2e", "turn_id": "t1", "declared_refs": []string{}}))
	rec := command("ctxd.recordExecution", map[string]any{"thread_id": "e2e", "turn_id": "t1", "output": threadOutput})
	cbtest.Validate(t, "record_execution_result.schema.json", rec.Result)
	// Declared in reverse ledger order: the DECISION lists them by event_index.
	second := command("ctxd.buildContext", request("the test still fails", map[string]any{
		"thread_id": "e2e", "turn_id": "t2", "parent_turn_id": "t1", "declared_refs": []string{"execution:t1", "intent:t1"},
	}))
	cbtest.Validate(t, "build_result.schema.json", second.Result)
	var res struct {
		Bundle struct {
			Blocks []struct {
				BlockType string `json:"block_type"`
				Title     string `json:"title"`
				Content   string `json:"content"`
			} `json:"blocks"`
		} `json:"bundle"`
	}
	if err := json.Unmarshal(second.Result, &res); err != nil {
		t.Fatal(err)
	}
	var sawDiff bool
	for _, b := range res.Bundle.Blocks {
		if b.BlockType == "diff_hint" && strings.HasPrefix(b.Title, "Previous attempt (turn t1, ") && strings.Contains(b.Content, threadDiffMarker) {
			sawDiff = true
		}
	}
	if !sawDiff {
		t.Errorf("no previous-attempt block holding the recorded output in %s", second.Result)
	}
	if strings.Contains(string(second.Result), threadSecret) {
		t.Error("the secret of the recorded output reached the bundle unredacted")
	}
	prompt := command("ctxd.renderPrompt", request("explain Add", nil))
	cbtest.Validate(t, "render_prompt_result.schema.json", prompt.Result)
	rep := command("ctxd.verify", map[string]any{})
	cbtest.Validate(t, "verify_report.schema.json", rep.Result)
	var report struct {
		OK     bool
		Counts struct {
			LedgerEvents int `json:"ledger_events"`
		}
	}
	if err := json.Unmarshal(rep.Result, &report); err != nil {
		t.Fatal(err)
	}
	if !report.OK || report.Counts.LedgerEvents != 5 {
		t.Errorf("ctxd.verify = %s, want ok with 5 ledger events", rep.Result)
	}

	id++
	p.call(id, "shutdown", nil)
	_ = p.c.Notify("exit", nil)
	if code := p.wait(); code != 0 {
		t.Fatalf("server exit code = %d, want 0", code)
	}
	for _, s := range []string{threadDiffMarker, threadSecret, "make Add saturate", "Add(a, b int)"} {
		if strings.Contains(p.stderr.String(), s) {
			t.Errorf("the server's log contains %q", s)
		}
	}

	// The ledger as written: the second DECISION resolved the refs in
	// event_index order, the intent for governance, the execution for the
	// prompt only, and carries no output.
	lines, raw := readLedger(t, dir)
	var kinds []string
	for _, l := range lines {
		kinds = append(kinds, l.Kind+" "+l.TurnID)
	}
	if diff := cmp.Diff([]string{"INTENT t1", "DECISION t1", "EXECUTION t1", "INTENT t2", "DECISION t2"}, kinds); diff != "" {
		t.Fatalf("ledger events (-want +got):\n%s", diff)
	}
	dec := lines[4].Payload
	if diff := cmp.Diff([]string{"execution:t1", "intent:t1"}, dec.ContextSpec.Retrieval.DeclaredRefs); diff != "" {
		t.Errorf("declared_refs, as the client sent them (-want +got):\n%s", diff)
	}
	type resolved struct {
		RefID       string
		EventIndex  int
		EventDigest string
		AdmittedFor string
	}
	var got []resolved
	for _, r := range dec.ContextSpec.Retrieval.ResolvedRefs {
		got = append(got, resolved{r.RefID, r.EventIndex, r.EventDigest, r.AdmittedFor})
	}
	want := []resolved{
		{"intent:t1", 0, lines[0].Digest, "governance"},
		{"execution:t1", 2, lines[2].Digest, "execution_only"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("resolved_refs (-want +got):\n%s", diff)
	}
	if dec.Result != "ALLOW" || len(dec.AssembledContext.NormativeInputs) != 1 || dec.AssembledContext.NormativeInputs[0].EventIndex != 0 || len(dec.ContextSpec.NormativeInputDigests) != 1 {
		t.Errorf("second DECISION: result %q, normative inputs %+v, digests %v; want ALLOW with the INTENT of t1 only", dec.Result, dec.AssembledContext.NormativeInputs, dec.ContextSpec.NormativeInputDigests)
	}
	if strings.Contains(raw[4], threadDiffMarker) || strings.Contains(raw[1], threadDiffMarker) {
		t.Error("a DECISION carries the EXECUTION output")
	}

	// ctxd verify over what the server recorded, in both modes.
	code, stdout, stderr := ctxdRun(t, "verify", "--root", dir)
	if code != 0 || !strings.Contains(stdout, "verified (stream replay): 5 ledger events") {
		t.Errorf("ctxd verify: exit %d, stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	code, stdout, stderr = ctxdRun(t, "verify", "--root", dir, "--mode", "ledger", "--json")
	if code != 0 {
		t.Errorf("ctxd verify --mode ledger --json: exit %d, stderr:\n%s", code, stderr)
	}
	cbtest.Validate(t, "verify_report.schema.json", []byte(stdout))
	if !strings.Contains(stdout, `"mode": "ledger"`) || !strings.Contains(stdout, `"ledger_events": 5`) {
		t.Errorf("ctxd verify --mode ledger --json:\n%s", stdout)
	}
	db := filepath.Join(dir, ".ctxd", "ledger.sqlite")
	if _, err := os.Stat(db); err != nil {
		t.Fatalf("ledger mode left no projection: %v", err)
	}
	if sqlite, err := exec.LookPath("sqlite3"); err == nil {
		out, err := exec.Command(sqlite, "-readonly", db, "select count(*) from events").Output()
		if err != nil {
			t.Errorf("sqlite3: %v", err)
		} else if strings.TrimSpace(string(out)) != "5" {
			t.Errorf("events in the projection = %q, want 5", out)
		}
	} else {
		t.Log("no sqlite3 on PATH: the projection's row count is not checked")
	}

	// One flipped byte anywhere is a mismatch naming what it is in.
	tests := []struct {
		name  string
		file  string // workspace-relative
		modes []string
		want  string // in a MISMATCH line
	}{
		{"ledger", ".ctxd/ledger/events.jsonl", []string{"stream", "ledger"}, "MISMATCH  ledger"},
		{"audit", ".ctxd/audit.jsonl", []string{"stream"}, "MISMATCH  audit"},
		{"context artifact", firstArtifact(t, dir, "contexts"), []string{"stream"}, ""},
		{"prompt artifact", firstArtifact(t, dir, "prompts"), []string{"stream"}, ""},
		{"policy artifact", firstArtifact(t, dir, "context_policies"), []string{"stream"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := tt.want
			if want == "" {
				kind := filepath.Base(filepath.Dir(tt.file))
				want = "MISMATCH  artifact " + kind + " " + tt.file
			}
			cp := t.TempDir()
			if err := os.CopyFS(cp, os.DirFS(dir)); err != nil {
				t.Fatal(err)
			}
			flipMiddle(t, filepath.Join(cp, filepath.FromSlash(tt.file)))
			for _, mode := range tt.modes {
				code, stdout, stderr := ctxdRun(t, "verify", "--root", cp, "--mode", mode)
				if code != 4 { // ctxd verify: a digest did not verify
					t.Errorf("--mode %s: exit %d, want %d; stdout:\n%s\nstderr:\n%s", mode, code, 4, stdout, stderr)
				}
				if !strings.Contains(stdout, want) || !strings.Contains(stdout, "NOT verified") {
					t.Errorf("--mode %s: output does not contain %q:\n%s", mode, want, stdout)
				}
			}
		})
	}
}

// TestE2EThreadSharedWithCLI: the server and a ctxd build of another
// process append to one ledger; each sees the other's events, and the
// interleaved chain verifies.
func TestE2EThreadSharedWithCLI(t *testing.T) {
	dir := indextest.WriteTree(t, threadWorkspace)
	p := startServer(t)
	if m := p.call(1, "initialize", map[string]any{
		"processId": os.Getpid(), "rootUri": "file://" + filepath.ToSlash(dir), "capabilities": map[string]any{},
	}); m.Error != nil {
		t.Fatal(m.Error)
	}
	_ = p.c.Notify("initialized", map[string]any{})
	id := 1
	command := func(name string, arg map[string]any) *lsptest.Message {
		t.Helper()
		id++
		m := p.call(id, "workspace/executeCommand", map[string]any{"command": name, "arguments": []any{arg}})
		if m.Error != nil {
			t.Fatalf("%s: %v (data %s; stderr: %s)", name, m.Error, m.Error.Data, p.stderr)
		}
		return m
	}
	build := func(turn, parent string, refs ...string) *lsptest.Message {
		t.Helper()
		th := map[string]any{"thread_id": "shared", "turn_id": turn, "declared_refs": append([]string{}, refs...)}
		if parent != "" {
			th["parent_turn_id"] = parent
		}
		return command("ctxd.buildContext", map[string]any{
			"purpose": "diff", "intent": map[string]any{"id": "i", "text": "turn " + turn},
			"plan_step": map[string]any{"id": "s", "target_files": []string{"calc/add.go"}}, "thread": th,
		})
	}

	build("t1", "")
	// Another process builds turn c1 on top of the server's t1.
	code, _, stderr := ctxdRun(t, "build", "--root", dir, "--purpose", "diff", "--target", "calc/add.go", "--cache-dir", "off",
		"--thread-id", "shared", "--turn-id", "c1", "--parent-turn-id", "t1", "--ref", "intent:t1", "--intent", "turn c1")
	if code != 0 {
		t.Fatalf("ctxd build of turn c1: exit %d\n%s", code, stderr)
	}
	// The server records the output of the CLI's turn and builds on it.
	rec := command("ctxd.recordExecution", map[string]any{"thread_id": "shared", "turn_id": "c1", "output": threadOutput})
	var r struct {
		EventIndex int `json:"event_index"`
	}
	if err := json.Unmarshal(rec.Result, &r); err != nil {
		t.Fatal(err)
	}
	if r.EventIndex != 4 {
		t.Errorf("EXECUTION of c1 at event %d, want 4 (after the server's and the CLI's turns)", r.EventIndex)
	}
	second := build("t2", "c1", "execution:c1", "intent:c1")
	for _, want := range []string{"Previous attempt (turn c1, event 000004)", "Earlier request (turn c1, event 000002)"} {
		if !strings.Contains(string(second.Result), want) {
			t.Errorf("the bundle of t2 has no block %q", want)
		}
	}
	rep := command("ctxd.verify", map[string]any{"mode": "ledger"})
	cbtest.Validate(t, "verify_report.schema.json", rep.Result)
	if !strings.Contains(string(rep.Result), `"ok":true`) || !strings.Contains(string(rep.Result), `"ledger_events":7`) {
		t.Errorf("ctxd.verify = %s, want ok with 7 ledger events", rep.Result)
	}
	id++
	p.call(id, "shutdown", nil)
	_ = p.c.Notify("exit", nil)
	if code := p.wait(); code != 0 {
		t.Fatalf("server exit code = %d, want 0", code)
	}
	if code, stdout, _ := ctxdRun(t, "verify", "--root", dir); code != 0 {
		t.Errorf("ctxd verify after the session: exit %d\n%s", code, stdout)
	}
}

package workspace_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/contextbuilder/cbtest"
	"github.com/ctxd/ctxd/workspace"
	"github.com/ctxd/ctxd/workspace/change"
	"github.com/ctxd/ctxd/workspace/ledger"
)

const (
	greetGo    = "package main\n\n// Greet says hello.\nfunc Greet() string { return \"hello\" }\n\nfunc main() { println(Greet()) }\n"
	greetDiff  = "--- a/main.go\n+++ b/main.go\n@@ -3,2 +3,2 @@\n-// Greet says hello.\n-func Greet() string { return \"hello\" }\n+// Greet says hello to the world.\n+func Greet() string { return \"hello, world\" }\n"
	greetAfter = "package main\n\n// Greet says hello to the world.\nfunc Greet() string { return \"hello, world\" }\n\nfunc main() { println(Greet()) }\n"
)

// checkEnv is a folder with a Go file, a helper file and a never-send
// file, opened as a Workspace (no index: a check needs none).
func checkEnv(t *testing.T) (string, *workspace.Workspace) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{
		"main.go":           greetGo,
		"util/util.go":      "package util\n\nfunc One() int { return 1 }\n",
		".env":              "TOKEN=not-a-real-secret\n",
		"secrets/x.txt":     "x\n",
		".ctxd/config.json": `{"schema_version": "1", "deny_rules": ["secrets/**"]}`,
		"utf16.txt":         "\xff\xfeh\x00i\x00\n\x00",
	})
	return dir, workspace.Open(dir, workspace.Options{Now: fixedNow})
}

func check(t *testing.T, w *workspace.Workspace, args workspace.CheckChangeArgs, opts workspace.CheckOptions) *workspace.CheckChangeResult {
	t.Helper()
	res, err := w.CheckChange(context.Background(), &args, opts)
	if err != nil {
		t.Fatalf("CheckChange: %v", err)
	}
	cbtest.ValidateValue(t, "check_change_result.schema.json", res)
	return res
}

func sha(s string) *string {
	d := "sha256:" + hashHex([]byte(s))
	return &d
}

func failureCode(res *workspace.CheckChangeResult) change.Code {
	if res.Failure == nil {
		return ""
	}
	return res.Failure.Code
}

// TestCheckChangeAccepted: an accepted diff gives the digests before and
// after, writes nothing without Write, and the answer is recorded in the
// audit trail.
func TestCheckChangeAccepted(t *testing.T) {
	dir, w := checkEnv(t)
	res := check(t, w, workspace.CheckChangeArgs{Answer: "Here is the change:\n\n```diff\n" + greetDiff + "```\n"}, workspace.CheckOptions{})
	want := &workspace.CheckChangeResult{Status: workspace.ChangeAccepted, Format: change.FormatUnified,
		Files: []workspace.CheckedFile{{Path: "main.go", Action: change.ActionModify, SHA256Before: sha(greetGo), SHA256After: sha(greetAfter)}}}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("verdict (-want +got):\n%s", diff)
	}
	if got := string(mustRead(t, filepath.Join(dir, "main.go"))); got != greetGo {
		t.Errorf("main.go changed without Write:\n%s", got)
	}
}

// TestCheckChangeWrite: Write applies the change atomically, keeping the
// file's mode, and creates new files with their directories.
func TestCheckChangeWrite(t *testing.T) {
	dir, w := checkEnv(t)
	if err := os.Chmod(filepath.Join(dir, "main.go"), 0o600); err != nil {
		t.Fatal(err)
	}
	answer := greetDiff + "--- /dev/null\n+++ b/pkg/new/new.go\n@@ -0,0 +1,3 @@\n+package new\n+\n+func Two() int { return 2 }\n"
	res := check(t, w, workspace.CheckChangeArgs{Answer: answer}, workspace.CheckOptions{Write: true})
	if res.Status != workspace.ChangeAccepted || !res.Written {
		t.Fatalf("status %s, written %v, failure %+v", res.Status, res.Written, res.Failure)
	}
	if got := string(mustRead(t, filepath.Join(dir, "main.go"))); got != greetAfter {
		t.Errorf("main.go after the write:\n%s", got)
	}
	if got := string(mustRead(t, filepath.Join(dir, "pkg/new/new.go"))); got != "package new\n\nfunc Two() int { return 2 }\n" {
		t.Errorf("new.go after the write:\n%q", got)
	}
	info, err := os.Stat(filepath.Join(dir, "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("main.go mode %v after the write, want 0600", info.Mode().Perm())
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".*.tmp"))
	if len(leftovers) > 0 {
		t.Errorf("temporary files left behind: %v", leftovers)
	}
}

// TestCheckChangeRejections: each path rejection, in the contract's order,
// and nothing written on any of them.
func TestCheckChangeRejections(t *testing.T) {
	dir, w := checkEnv(t)
	outside := filepath.Join(t.TempDir(), "outside.go")
	writeFiles(t, filepath.Dir(outside), map[string]string{"outside.go": "package outside\n"})
	if err := os.Symlink(filepath.Dir(outside), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	retarget := func(p string) string { return strings.ReplaceAll(greetDiff, "main.go", p) }
	for _, c := range []struct {
		name, answer string
		want         change.Code
	}{
		{"prose only", "I would rename Greet, but I need more context.", change.CodeMalformed},
		{"dot-dot", retarget("../main.go"), change.CodeOutsideSandbox},
		{"absolute outside", retarget(outside), change.CodeOutsideSandbox},
		{"through a link", retarget("link/outside.go"), change.CodeOutsideSandbox},
		{"never-send .env", "--- a/.env\n+++ b/.env\n@@ -1 +1 @@\n-TOKEN=not-a-real-secret\n+TOKEN=other\n", change.CodeNeverSendPath},
		{"workspace deny rule", "--- a/secrets/x.txt\n+++ b/secrets/x.txt\n@@ -1 +1 @@\n-x\n+y\n", change.CodeNeverSendPath},
		{"ctxd records", "--- /dev/null\n+++ b/.ctxd/evil.json\n@@ -0,0 +1 @@\n+{}\n", change.CodeNeverSendPath},
		// The order of the checks wins over the order of the files.
		{"sandbox before context", strings.ReplaceAll(greetDiff, "hello.", "bye.") + retarget("../x.go"), change.CodeOutsideSandbox},
		{"context mismatch", strings.ReplaceAll(greetDiff, "-// Greet says hello.", "-// Greet says goodbye."), change.CodeContextMismatch},
		{"modify a missing file", retarget("missing.go"), change.CodeContextMismatch},
		{"a UTF-16 file", "--- a/utf16.txt\n+++ b/utf16.txt\n@@ -1 +1 @@\n-hi\n+ho\n", change.CodeContextMismatch},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := check(t, w, workspace.CheckChangeArgs{Answer: c.answer}, workspace.CheckOptions{Write: true})
			if res.Status != workspace.ChangeRejected || failureCode(res) != c.want {
				t.Fatalf("status %s, code %q, want rejected %s (%+v)", res.Status, failureCode(res), c.want, res.Failure)
			}
			if res.Failure.Message == "" || res.Failure.Advice == "" || res.Failure.ErrorContext.Message == "" {
				t.Errorf("incomplete failure: %+v", res.Failure)
			}
			for _, f := range res.Files {
				if f.SHA256After != nil {
					t.Errorf("rejected file %s has a sha256_after", f.Path)
				}
			}
			if got := string(mustRead(t, filepath.Join(dir, "main.go"))); got != greetGo {
				t.Errorf("main.go changed by a rejected answer")
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, ".ctxd", "evil.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf(".ctxd/evil.json exists after a rejected answer (%v)", err)
	}
}

// TestCheckChangeInvalidArgs: argument errors are invalid requests, not
// verdicts.
func TestCheckChangeInvalidArgs(t *testing.T) {
	_, w := checkEnv(t)
	for _, a := range []workspace.CheckChangeArgs{
		{Answer: greetDiff, ThreadID: "t"},
		{Answer: "\xff"},
		{Answer: greetDiff, BundleID: "00000000-0000-8000-8000-000000000000"},
	} {
		if _, err := w.CheckChange(context.Background(), &a, workspace.CheckOptions{}); !errors.Is(err, contextbuilder.ErrInvalidRequest) {
			t.Errorf("%+v: err %v, want an invalid request", a, err)
		}
	}
}

// TestCheckChangeAgainstBundle: with a bundle id, only the bundle's files
// may change, only while their sha256 is the manifest's, and a plan
// step's new file may be created; the answer is recorded as the EXECUTION
// of the bundle's turn, and verify covers it.
func TestCheckChangeAgainstBundle(t *testing.T) {
	e := newEnv(t, map[string]string{"main.go": greetGo, "util/util.go": "package util\n\nfunc One() int { return 1 }\n", "go.mod": "module example.com/m\n\ngo 1.22\n"})
	req := &contextbuilder.Request{
		Purpose:  contextbuilder.PurposeDiff,
		Intent:   &contextbuilder.Intent{ID: "i1", Text: "greet the world"},
		PlanStep: &contextbuilder.PlanStep{ID: "s1", Text: "greet the world", TargetFiles: []string{"main.go"}, NewFiles: []string{"docs/greeting.md"}},
	}
	req.Thread, _ = json.Marshal(map[string]any{"thread_id": "th", "turn_id": "t1", "declared_refs": []string{}})
	res := e.mustBuild(req)
	if !strings.Contains(strings.Join(res.Manifest.Selection.TargetFiles, ","), "docs/greeting.md") {
		t.Fatalf("the new file is not a target: %v", res.Manifest.Selection.TargetFiles)
	}
	id := res.Bundle.BundleID
	create := "--- /dev/null\n+++ b/docs/greeting.md\n@@ -0,0 +1 @@\n+# Greeting\n"

	ok := check(t, e.w, workspace.CheckChangeArgs{Answer: greetDiff + create, BundleID: id}, workspace.CheckOptions{})
	if ok.Status != workspace.ChangeAccepted || ok.BundleID != id {
		t.Fatalf("status %s (%+v), bundle %q", ok.Status, ok.Failure, ok.BundleID)
	}
	if ok.Recorded == nil || ok.Recorded.RefID != "execution:t1" {
		t.Fatalf("recorded %+v, want the EXECUTION of turn t1", ok.Recorded)
	}
	utilDiff := "--- a/util/util.go\n+++ b/util/util.go\n@@ -3 +3 @@\n-func One() int { return 1 }\n+func One() int { return 2 }\n"
	notIn := check(t, e.w, workspace.CheckChangeArgs{Answer: utilDiff, BundleID: id}, workspace.CheckOptions{})
	if failureCode(notIn) != change.CodeNotInBundle {
		t.Errorf("a file outside the bundle: %s %+v", notIn.Status, notIn.Failure)
	}
	otherNew := check(t, e.w, workspace.CheckChangeArgs{Answer: strings.ReplaceAll(create, "docs/greeting.md", "docs/other.md"), BundleID: id}, workspace.CheckOptions{})
	if failureCode(otherNew) != change.CodeNotInBundle {
		t.Errorf("a new file the plan step does not name: %s %+v", otherNew.Status, otherNew.Failure)
	}
	writeFiles(t, e.dir, map[string]string{"main.go": greetGo + "\n// edited since\n"})
	stale := check(t, e.w, workspace.CheckChangeArgs{Answer: greetDiff, BundleID: id}, workspace.CheckOptions{})
	if failureCode(stale) != change.CodeStale {
		t.Errorf("a file edited since the bundle: %s %+v", stale.Status, stale.Failure)
	}

	var checks []ledger.ChangeCheck
	for _, ev := range e.events() {
		if ev.Kind != ledger.KindExecution {
			continue
		}
		var p ledger.ExecutionPayload
		if err := json.Unmarshal(ev.Payload, &p); err != nil {
			t.Fatal(err)
		}
		if p.Check == nil {
			t.Fatalf("EXECUTION %d has no check", ev.Index)
		}
		checks = append(checks, *p.Check)
	}
	var got []string
	for _, c := range checks {
		got = append(got, c.Status+" "+c.Code)
	}
	want := []string{"accepted ", "rejected CHANGE_NOT_IN_BUNDLE", "rejected CHANGE_NOT_IN_BUNDLE", "rejected CHANGE_STALE"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("recorded verdicts (-want +got):\n%s", diff)
	}
	if r := e.verify(); !r.OK {
		t.Errorf("verify after recorded checks: %+v", mismatches(r))
	}
}

// TestCheckChangeRecordsTurn: an explicit thread turn records the answer
// as its EXECUTION; a turn that was never built is refused.
func TestCheckChangeRecordsTurn(t *testing.T) {
	e := newEnv(t, map[string]string{"main.go": greetGo})
	req := &contextbuilder.Request{Purpose: contextbuilder.PurposeDiff, PlanStep: &contextbuilder.PlanStep{ID: "s", TargetFiles: []string{"main.go"}}}
	req.Thread, _ = json.Marshal(map[string]any{"thread_id": "th", "turn_id": "a1", "declared_refs": []string{}})
	e.mustBuild(req)
	res := check(t, e.w, workspace.CheckChangeArgs{Answer: "no diff here", ThreadID: "th", TurnID: "a1"}, workspace.CheckOptions{})
	if res.Recorded == nil || failureCode(res) != change.CodeMalformed {
		t.Fatalf("recorded %+v, failure %+v", res.Recorded, res.Failure)
	}
	_, err := e.w.CheckChange(context.Background(), &workspace.CheckChangeArgs{Answer: greetDiff, ThreadID: "th", TurnID: "never"}, workspace.CheckOptions{})
	if code := refusalCode(t, err); code != ledger.CodeRefNotFound {
		t.Errorf("unknown turn: %s, want %s", code, ledger.CodeRefNotFound)
	}
	if r := e.verify(); !r.OK {
		t.Errorf("verify: %+v", mismatches(r))
	}
}

// bytePositions reports byte offsets as line/character, for the edit's
// ranges.
type bytePositions struct{}

func (bytePositions) Offsets(text []byte, r contextbuilder.Range) (int, int, error) {
	return 0, 0, errors.New("unused")
}

func (bytePositions) Range(text []byte, start, end int) contextbuilder.Range {
	pos := func(off int) contextbuilder.Position {
		line := strings.Count(string(text[:off]), "\n")
		col := off - (strings.LastIndex(string(text[:off]), "\n") + 1)
		return contextbuilder.Position{Line: line, Character: col}
	}
	return contextbuilder.Range{Start: pos(start), End: pos(end)}
}

// TestCheckChangeEdit: the accepted change as a WorkspaceEdit whose edits,
// applied to the text before, give the text after.
func TestCheckChangeEdit(t *testing.T) {
	_, w := checkEnv(t)
	res := check(t, w, workspace.CheckChangeArgs{Answer: greetDiff}, workspace.CheckOptions{Positions: bytePositions{}})
	if res.Edit == nil || len(res.Edit.DocumentChanges) != 1 {
		t.Fatalf("edit %+v", res.Edit)
	}
	dc := res.Edit.DocumentChanges[0]
	if dc.TextDocument == nil || !strings.HasSuffix(dc.TextDocument.URI, "/main.go") || dc.TextDocument.Version != nil {
		t.Fatalf("document change %+v", dc)
	}
	lines := strings.SplitAfter(greetGo, "\n")
	offset := func(p contextbuilder.Position) int {
		n := 0
		for _, l := range lines[:p.Line] {
			n += len(l)
		}
		return n + p.Character
	}
	text := greetGo
	for i := len(dc.Edits) - 1; i >= 0; i-- {
		ed := dc.Edits[i]
		text = text[:offset(ed.Range.Start)] + ed.NewText + text[offset(ed.Range.End):]
	}
	if text != greetAfter {
		t.Errorf("edits applied give:\n%s", text)
	}
}

func hashHex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// TestChangeStatusMatchesLedger: the verdicts the result says and the
// ledger records are the same words.
func TestChangeStatusMatchesLedger(t *testing.T) {
	if string(workspace.ChangeAccepted) != ledger.CheckAccepted || string(workspace.ChangeRejected) != ledger.CheckRejected {
		t.Errorf("verdicts %q/%q, ledger %q/%q", workspace.ChangeAccepted, workspace.ChangeRejected, ledger.CheckAccepted, ledger.CheckRejected)
	}
}

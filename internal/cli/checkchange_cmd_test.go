package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/index/indextest"
)

const checkGo = "package main\n\nfunc Greet() string { return \"hello\" }\n"

const checkDiff = "--- a/main.go\n+++ b/main.go\n@@ -3 +3 @@\n-func Greet() string { return \"hello\" }\n+func Greet() string { return \"hello, world\" }\n"

// writeAnswer writes an answer file outside the workspace and returns its
// path.
func writeAnswer(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "answer.txt")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCheckChangeUsage: exit codes 0 accepted, 5 rejected, 2 usage, and
// nothing on stdout for a usage error.
func TestCheckChangeUsage(t *testing.T) {
	dir := indextest.WriteTree(t, "-- main.go --\n"+checkGo)
	good, bad := writeAnswer(t, checkDiff), writeAnswer(t, "no change here")
	runCLICases(t, []cliCase{
		{name: "help", args: []string{"check-change", "--help"}, wantStdout: "-answer"},
		{name: "no root", args: []string{"check-change", "--answer", good}, wantCode: exitUsage, wantStderr: "--root is required"},
		{name: "no answer", args: []string{"check-change", "--root", dir}, wantCode: exitUsage, wantStderr: "--answer is required"},
		{name: "missing answer file", args: []string{"check-change", "--root", dir, "--answer", filepath.Join(dir, "nope")}, wantCode: exitUsage, wantStderr: "--answer"},
		{name: "unknown bundle", args: []string{"check-change", "--root", dir, "--answer", good, "--bundle", "nope"}, wantCode: exitUsage, wantStderr: `--bundle: no bundle "nope" is recorded`},
		{name: "thread without turn", args: []string{"check-change", "--root", dir, "--answer", good, "--thread-id", "t"}, wantCode: exitUsage, wantStderr: "--thread-id and --turn-id go together"},
		{name: "accepted", args: []string{"check-change", "--root", dir, "--answer", good}, wantCode: exitOK, wantStdout: "accepted (unified)"},
		{name: "rejected", args: []string{"check-change", "--root", dir, "--answer", bad}, wantCode: exitRejected, wantStdout: "CHANGE_MALFORMED", wantStderr: "CHANGE_MALFORMED"},
	})
	if got := string(mustReadFile(t, filepath.Join(dir, "main.go"))); got != checkGo {
		t.Errorf("main.go changed without --write:\n%s", got)
	}
}

func mustReadFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCheckChangeJSON: --json prints exactly the documented members, and
// --write applies an accepted change.
func TestCheckChangeJSON(t *testing.T) {
	dir := indextest.WriteTree(t, "-- main.go --\n"+checkGo)
	code, stdout, stderr := runCLI(t, "check-change", "--root", dir, "--answer", writeAnswer(t, checkDiff), "--json", "--write")
	if code != exitOK {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("%v:\n%s", err, stdout)
	}
	var keys []string
	for k := range got {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if diff := cmp.Diff([]string{"failure", "files", "format", "status"}, keys); diff != "" {
		t.Errorf("members (-want +got):\n%s", diff)
	}
	files := got["files"].([]any)
	f := files[0].(map[string]any)
	if f["path"] != "main.go" || f["action"] != "modify" || !strings.HasPrefix(f["sha256_before"].(string), "sha256:") || !strings.HasPrefix(f["sha256_after"].(string), "sha256:") {
		t.Errorf("file %v", f)
	}
	if got["status"] != "accepted" || got["format"] != "unified" || got["failure"] != nil {
		t.Errorf("verdict %v", got)
	}
	if b := string(mustReadFile(t, filepath.Join(dir, "main.go"))); !strings.Contains(b, "hello, world") {
		t.Errorf("--write did not apply the change:\n%s", b)
	}

	// A rejection: failure with code, message, advice and error_context.
	code, stdout, _ = runCLI(t, "check-change", "--root", dir, "--answer", writeAnswer(t, strings.ReplaceAll(checkDiff, "main.go", "../main.go")), "--json", "--write")
	if code != exitRejected {
		t.Fatalf("exit %d, want %d", code, exitRejected)
	}
	var rej struct {
		Status  string `json:"status"`
		Failure struct {
			Code         string         `json:"code"`
			Message      string         `json:"message"`
			Advice       string         `json:"advice"`
			ErrorContext map[string]any `json:"error_context"`
		} `json:"failure"`
	}
	if err := json.Unmarshal([]byte(stdout), &rej); err != nil {
		t.Fatal(err)
	}
	if rej.Status != "rejected" || rej.Failure.Code != "CHANGE_OUTSIDE_SANDBOX" || rej.Failure.Message == "" || rej.Failure.Advice == "" || rej.Failure.ErrorContext["message"] == nil {
		t.Errorf("rejection %+v", rej)
	}
}

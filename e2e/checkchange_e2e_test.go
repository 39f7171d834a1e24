package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/testenv"
)

// checkVerdict is the part of check-change --json the test reads.
type checkVerdict struct {
	Status  string `json:"status"`
	Format  string `json:"format"`
	Failure *struct {
		Code         string `json:"code"`
		ErrorContext struct {
			Message string `json:"message"`
			Path    string `json:"path"`
		} `json:"error_context"`
	} `json:"failure"`
}

// TestCheckChangeLoop drives the regeneration loop with the real binary,
// as a script would: a bundle in a thread, a wrong answer rejected with
// the closest lines, a retry whose bundle carries the error as an
// error_context block, an answer accepted and written against the
// bundle, the records verified, and the same answer stale afterwards.
func TestCheckChangeLoop(t *testing.T) {
	root := testenv.ExampleCopy(t)
	build := func(turn string, extra ...string) string {
		t.Helper()
		args := append([]string{"build", "--root", root, "--purpose", "diff", "--target", "internal/store/store.go", "--symbol", "List",
			"--intent", "sort by name", "--thread-id", "th", "--turn-id", turn, "--format", "json", "--cache-dir", "off"}, extra...)
		code, stdout, stderr := ctxdRun(t, args...)
		if code != 0 {
			t.Fatalf("build %s: exit %d: %s", turn, code, stderr)
		}
		var out struct {
			Bundle struct {
				BundleID string `json:"bundle_id"`
				Blocks   []struct {
					Type    string `json:"block_type"`
					Content string `json:"content"`
				} `json:"blocks"`
			} `json:"bundle"`
		}
		if err := json.Unmarshal([]byte(stdout), &out); err != nil {
			t.Fatal(err)
		}
		for _, b := range out.Bundle.Blocks {
			if b.Type == "error_context" {
				return out.Bundle.BundleID + "\x00" + b.Content
			}
		}
		return out.Bundle.BundleID
	}
	check := func(bundle, answer string, wantCode int, extra ...string) checkVerdict {
		t.Helper()
		file := filepath.Join(t.TempDir(), "answer.txt")
		if err := os.WriteFile(file, []byte(answer), 0o644); err != nil {
			t.Fatal(err)
		}
		args := append([]string{"check-change", "--root", root, "--answer", file, "--bundle", bundle, "--json"}, extra...)
		code, stdout, stderr := ctxdRun(t, args...)
		if code != wantCode {
			t.Fatalf("check-change: exit %d, want %d: %s%s", code, wantCode, stdout, stderr)
		}
		var v checkVerdict
		if err := json.Unmarshal([]byte(stdout), &v); err != nil {
			t.Fatalf("%v: %s", err, stdout)
		}
		return v
	}
	storePath := filepath.Join(root, "internal", "store", "store.go")
	before, err := os.ReadFile(storePath)
	if err != nil {
		t.Fatal(err)
	}
	oldLine := "\tsort.Slice(out, func(i, j int) bool { return out[i].SKU < out[j].SKU })\n"
	newLine := "\tsort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })\n"
	if !strings.Contains(string(before), oldLine) {
		t.Fatalf("the example's store.go no longer has the line the test changes")
	}

	b1 := build("a1")
	wrong := "```diff\n--- a/internal/store/store.go\n+++ b/internal/store/store.go\n@@ @@\n \tfor _, it := range s.items {\n \t\tout = append(out, it)\n \t}\n" +
		"-\tsort.Slice(out, func(i, j int) bool { return out[i].Sku < out[j].Sku })\n+" + newLine + " \treturn out\n```\n"
	v := check(b1, wrong, 5, "--write")
	if v.Failure == nil || v.Failure.Code != "CHANGE_CONTEXT_MISMATCH" || !strings.Contains(v.Failure.ErrorContext.Message, "out[i].SKU < out[j].SKU") {
		t.Fatalf("wrong answer: %+v", v)
	}
	if after, _ := os.ReadFile(storePath); string(after) != string(before) {
		t.Fatal("a rejected answer changed store.go")
	}

	// The retry's bundle carries the rejection as its error_context block.
	b2, errBlock, ok := strings.Cut(build("a2", "--parent-turn-id", "a1", "--last-error", v.Failure.ErrorContext.Message), "\x00")
	if !ok || !strings.Contains(errBlock, "CHANGE_CONTEXT_MISMATCH") {
		t.Fatalf("the retry's bundle has no error_context block with the rejection (%q)", errBlock)
	}
	good := "Sorting by name:\n\ninternal/store/store.go\n```go\n<<<<<<< SEARCH\n" + oldLine + "=======\n" + newLine + ">>>>>>> REPLACE\n```\n"
	if v := check(b2, good, 0, "--write"); v.Status != "accepted" || v.Format != "search_replace" {
		t.Fatalf("good answer: %+v", v)
	}
	after, err := os.ReadFile(storePath)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(string(before), oldLine, newLine, 1); string(after) != want {
		t.Errorf("store.go after --write:\n%s", after)
	}
	if code, stdout, stderr := ctxdRun(t, "verify", "--root", root); code != 0 {
		t.Errorf("verify after the loop: exit %d\n%s%s", code, stdout, stderr)
	}
	if v := check(b2, good, 5); v.Failure == nil || v.Failure.Code != "CHANGE_STALE" {
		t.Errorf("the same answer after the write: %+v", v)
	}
}

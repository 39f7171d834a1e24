package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gowebpki/jcs"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/workspace"
)

// TestBuildContextReply: ctxd.buildContext replies with the result's
// canonical bytes, which are the jcs module's form of the result, and the
// outputs inside are byte for byte the ones the build recorded.
func TestBuildContextReply(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir()) // the folder did not opt in: its records go there
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"go.mod": "module example.com/a\n\ngo 1.22\n",
		"a.go":   "package a\n\n// Add returns a plus b; <b> & \"q\".\nfunc Add(a, b int) int {\n\treturn a + b\n}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := NewSession(slog.New(slog.DiscardHandler), "test", &recordingClient{}, workspace.ServiceOptions{Index: index.Options{CacheDir: "off"}})
	t.Cleanup(func() { s.Service.Close() })
	s.updateFolders(func([]Folder) []Folder { return []Folder{{URI: index.PathToURI(dir), Name: "a"}} })
	raw := mustJSON(t, map[string]any{"command": "ctxd.buildContext", "arguments": []any{map[string]any{
		"purpose":   "diff",
		"plan_step": map[string]any{"id": "s1", "target_files": []string{"a.go"}},
	}}})
	res, err := ExecuteCommand(context.Background(), s, raw)
	if err != nil {
		t.Fatal(err)
	}
	reply, ok := res.(json.RawMessage)
	if !ok {
		t.Fatalf("reply is a %T, want the encoded result", res)
	}
	if c, err := jcs.Transform(reply); err != nil || !bytes.Equal(c, reply) {
		t.Fatalf("the reply is not canonical JSON (err %v):\n%s", err, reply)
	}
	var got contextbuilder.Result
	if err := json.Unmarshal(reply, &got); err != nil {
		t.Fatal(err)
	}
	if got.Bundle == nil || len(got.Bundle.Blocks) == 0 || got.Manifest.Fingerprints.BundleFingerprint == "" {
		t.Fatalf("the reply is not a build result: %s", reply)
	}
	rec, err := workspace.Locate(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := filepath.Glob(filepath.Join(rec.Dir, "artifacts", "contexts", "*.json"))
	if len(m) != 1 {
		t.Fatalf("%d context artifacts, want 1", len(m))
	}
	artifact, err := os.ReadFile(m[0])
	if err != nil {
		t.Fatal(err)
	}
	var want, in map[string]json.RawMessage
	if err := json.Unmarshal(artifact, &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(reply, &in); err != nil {
		t.Fatal(err)
	}
	for _, part := range []string{"bundle", "manifest", "redaction_report", "budget_report"} {
		if diff := cmp.Diff(string(want[part]), string(in[part])); diff != "" {
			t.Errorf("the reply's %s differs from the recorded one (-artifact +reply):\n%s", part, diff)
		}
	}
}

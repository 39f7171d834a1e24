package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/contextbuilder/cbtest"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/workspace"
)

// TestCommandsRoundTrip runs every declared command on a small workspace
// through workspace.Command.Invoke, the path the LSP front end takes,
// with sample arguments that must be valid against the command's
// ArgSchema, and validates each real result against its ResultSchema. It
// is what makes the generated schemas trustworthy beyond the drift test:
// a schema stricter than the server (a rejected field, a missing enum
// value) fails here.
func TestCommandsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"main.go":   "package main\n\n// Greet says hello.\nfunc Greet() string { return \"hello\" }\n\nfunc main() { println(Greet()) }\n",
		"notes.txt": "notes\n",
		".env":      "TOKEN=not-a-real-secret\n", // skipped by a deny rule: skipped_files has an entry
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	svc := workspace.NewService(workspace.ServiceOptions{
		Logger:  slog.New(slog.DiscardHandler),
		Version: "test",
		Index:   index.Options{CacheDir: "off"},
	})
	t.Cleanup(func() {
		if err := svc.Close(); err != nil {
			t.Error(err)
		}
	})
	ctx := context.Background()
	if _, err := svc.OpenFolder(ctx, dir, "app"); err != nil {
		t.Fatal(err)
	}
	uri := index.PathToURI(dir)
	caller := workspace.Caller{Client: workspace.ClientInfo{
		PositionEncoding: "utf-16",
		Folders:          []workspace.Folder{{URI: uri, Name: "app"}},
	}}
	file := index.PathToURI(filepath.Join(dir, "main.go"))
	// Arguments by command, run in declaration order (the build records
	// the INTENT the execution refers to); "" is an absent argument.
	samples := map[string][]string{
		"ctxd.buildContext": {`{"purpose": "diff", "active_file": "FILE", "intent": {"id": "I1", "text": "greet"},
			"thread": {"thread_id": "T1", "turn_id": "t1", "declared_refs": []}}`},
		"ctxd.manifest":        {`{"purpose": "intent", "active_file": "FILE"}`},
		"ctxd.budget":          {`{"purpose": "plan", "plan_step": {"id": "S1", "target_files": ["main.go"]}}`},
		"ctxd.renderPrompt":    {`{"purpose": "diff", "active_file": "FILE", "template_id": "default-diff"}`},
		"ctxd.recordExecution": {`{"thread_id": "T1", "turn_id": "t1", "output": "--- a/main.go\n+++ b/main.go\n", "workspace_folder": "URI"}`},
		"ctxd.checkChange": {
			`{"answer": "--- a/main.go\n+++ b/main.go\n@@ -3 +3 @@\n-// Greet says hello.\n+// Greet says hello to the world.\n", "thread_id": "T1", "turn_id": "t1", "workspace_folder": "URI"}`,
			`{"answer": "nothing to change"}`,
			`{"answer": "--- a/.env\n+++ b/.env\n@@ -1 +1 @@\n-TOKEN=not-a-real-secret\n+TOKEN=x\n"}`,
		},
		"ctxd.verify":      {"", `{"mode": "stream"}`},
		"ctxd.indexStatus": {"", `{"skipped": true}`},
	}
	for _, c := range workspace.Commands {
		args, ok := samples[c.Name]
		if !ok {
			t.Errorf("%s: no sample argument; add one to TestCommandsRoundTrip", c.Name)
			continue
		}
		for _, arg := range args {
			arg = strings.NewReplacer("FILE", file, "URI", uri).Replace(arg)
			var raw json.RawMessage
			if arg != "" {
				raw = json.RawMessage(arg)
				cbtest.Validate(t, c.ArgSchema, raw)
			} else if !c.ArgOptional {
				t.Errorf("%s: an absent sample argument for a command that needs one", c.Name)
			}
			res, err := c.Invoke(ctx, svc, caller, raw)
			if err != nil {
				t.Errorf("%s(%s): %v", c.Name, arg, err)
				continue
			}
			cbtest.ValidateValue(t, c.ResultSchema, res)
		}
	}
}

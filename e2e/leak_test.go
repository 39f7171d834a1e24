package e2e

// No leaks outside the bundle (docs/security.md): a full LSP session of the
// real binary at --log-level debug on a workspace full of planted secrets
// and content markers. Secret values may appear nowhere, the bundle
// included (the redactor removes them); file contents may appear only in
// the bundle's blocks.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/server/lsptest"
)

// Planted secret values: each is caught by the redactor where it can reach
// a bundle, or lives in a never-send file.
var leakSecrets = []string{
	"p@ss-LEAK-1", // password = "…" in Go
	"sk-LEAKabcdefghijklmnopqrstuvwxyz0123456789", // apiKey = "sk-…"
	"LEAKbearer0123456789abcdef",                  // Authorization: Bearer …
	"MIIEowIBAAKCAQEAleakPEMbodyLEAK4xyz",         // a PEM private key body
	"MIIEvLEAKHALFPEM6",                           // a PEM key without its end
	"LEAK-editor-token-9",                         // token = "…" in an editor buffer only
	"LEAKPASS-ENV-5",                              // .env (never-send)
	"AKIALEAKEXAMPLE7XYZ",                         // .env (never-send)
	"LEAKawsSecretKey0123456789abcdefghijABCD",    // .env (never-send)
}

// Content markers: file text that may appear in bundle blocks only.
var leakMarkers = []string{
	"CONTENT_MARKER_MAIN_5d2", "CONTENT_MARKER_CFG_8e1", "CONTENT_MARKER_HALF_1a0",
	"EDITOR_MARKER_B3", "EDITOR_MARKER_C4", "EDITOR_MARKER_D5",
}

var leakFiles = map[string]string{
	"go.mod": "module example.com/leak\n",
	"main.go": "package main\n\nimport \"example.com/leak/config\"\n\n" +
		"// CONTENT_MARKER_MAIN_5d2 says hello.\nfunc main() { println(config.Settings()) }\n",
	"config/settings.go": "package config\n\n" +
		"const password = \"p@ss-LEAK-1\"\n\n" +
		"const apiKey = \"sk-LEAKabcdefghijklmnopqrstuvwxyz0123456789\"\n\n" +
		"const authHeader = \"Authorization: Bearer LEAKbearer0123456789abcdef\"\n\n" +
		"// Settings returns CONTENT_MARKER_CFG_8e1.\nfunc Settings() string { return password + apiKey + authHeader }\n\n" +
		"const deployKey = `-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAleakPEMbodyLEAK4xyz\n-----END RSA PRIVATE KEY-----`\n",
	"keys/half.txt": "CONTENT_MARKER_HALF_1a0\n-----BEGIN PRIVATE KEY-----\nMIIEvLEAKHALFPEM6\n",
	".env": "DATABASE_URL=postgres://admin:LEAKPASS-ENV-5@db.example.com:5432/app\n" +
		"AWS_ACCESS_KEY_ID=AKIALEAKEXAMPLE7XYZ\nAWS_SECRET_ACCESS_KEY=LEAKawsSecretKey0123456789abcdefghijABCD\n",
}

// mainBuffer is the editor's unsaved main.go.
const mainBuffer = "package main\n\nimport \"example.com/leak/config\"\n\n" +
	"var token = \"LEAK-editor-token-9\"\n\n" +
	"// EDITOR_MARKER_B3 says hello.\nfunc main() { println(config.Settings(), token) }\n"

// leakChecker collects every output of the session with what it may hold.
type leakChecker struct {
	t *testing.T
}

// clean fails when text holds a secret, or a content marker unless
// contents are allowed there.
func (c leakChecker) clean(where, text string, contentsAllowed bool) {
	c.t.Helper()
	for _, s := range leakSecrets {
		if strings.Contains(text, s) {
			c.t.Errorf("secret %q leaked into %s", s, where)
		}
	}
	if contentsAllowed {
		return
	}
	for _, m := range leakMarkers {
		if strings.Contains(text, m) {
			c.t.Errorf("file content %q leaked into %s", m, where)
		}
	}
}

func TestNoLeaks(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range leakFiles {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	check := leakChecker{t}
	p := startServer(t, "--log-level", "debug")
	root := "file://" + filepath.ToSlash(dir)
	var answers []*lsptest.Message // every response whose content is checked strictly
	call := func(id int, method string, params any) *lsptest.Message {
		t.Helper()
		m := p.call(id, method, params)
		answers = append(answers, m)
		return m
	}
	command := func(id int, name string, arg any) *lsptest.Message {
		t.Helper()
		return call(id, "workspace/executeCommand", map[string]any{"command": name, "arguments": []any{arg}})
	}
	if m := call(1, "initialize", map[string]any{
		"processId": os.Getpid(), "rootUri": root,
		"capabilities": map[string]any{
			"general":   map[string]any{"positionEncodings": []string{"utf-16"}},
			"window":    map[string]any{"workDoneProgress": true},
			"workspace": map[string]any{"didChangeWatchedFiles": map[string]any{"dynamicRegistration": true}},
		},
	}); m.Error != nil {
		t.Fatal(m.Error)
	}
	_ = p.c.Notify("initialized", map[string]any{})
	mainURI := root + "/main.go"
	_ = p.c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": mainURI, "languageId": "go", "version": 1, "text": mainBuffer}})
	// Insert a marker at the start of line 6 ("// EDITOR_MARKER_B3 …").
	_ = p.c.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": mainURI, "version": 2},
		"contentChanges": []any{map[string]any{"range": rangeOf(6, 3, 6, 3), "text": "EDITOR_MARKER_C4 "}}})
	// The never-send file opened in the editor, and events for it and for
	// paths outside the workspace.
	envURI := root + "/.env"
	_ = p.c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": envURI, "languageId": "dotenv", "version": 1, "text": leakFiles[".env"]}})
	_ = p.c.Notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{
		map[string]any{"uri": envURI, "type": 2}, map[string]any{"uri": root + "/config/settings.go", "type": 2},
		map[string]any{"uri": root + "/%2e%2e/etc/passwd", "type": 2}, map[string]any{"uri": "file://evil.example/etc/passwd", "type": 1},
	}})

	ok := map[string]any{"purpose": "diff", "plan_step": map[string]any{"id": "s1", "text": "change settings",
		"target_files": []string{"config/settings.go", "main.go"}}}
	m := command(2, "ctxd.buildContext", ok)
	answers = answers[:len(answers)-1] // the bundle may hold contents; checked below
	if m.Error != nil {
		t.Fatalf("ctxd.buildContext: %v %s", m.Error, m.Error.Data)
	}
	bundle := string(m.Result)
	check.clean("the ctxd.buildContext result", bundle, true)
	for _, want := range []string{"CONTENT_MARKER_CFG_8e1", "EDITOR_MARKER_C4", "[REDACTED:"} {
		if !strings.Contains(bundle, want) {
			t.Errorf("the bundle lacks %q: the test would not prove the redaction", want)
		}
	}

	command(3, "ctxd.manifest", ok)
	command(4, "ctxd.budget", ok)
	refusals := []struct {
		code string
		req  map[string]any
	}{
		{"REFUSE_UNSUPPORTED_TARGET", map[string]any{"purpose": "diff", "plan_step": map[string]any{"id": "s2", "target_files": []string{".env"}}}},
		{"REFUSE_SECRET_RISK", map[string]any{"purpose": "diff", "plan_step": map[string]any{"id": "s3", "target_files": []string{"keys/half.txt"}}}},
		{"REFUSE_CONTEXT_TOO_LARGE", map[string]any{"purpose": "diff", "plan_step": map[string]any{"id": "s4", "target_files": []string{"config/settings.go"}},
			"model": map[string]any{"max_input_tokens": 60, "response_token_reserve": 10}}},
		{"REFUSE_OUTSIDE_SANDBOX", map[string]any{"purpose": "diff", "active_file": envURI + "/../../etc/passwd"}},
	}
	id := 5
	for _, r := range refusals {
		for _, cmd := range []string{"ctxd.buildContext", "ctxd.manifest"} {
			m := command(id, cmd, r.req)
			id++
			if m.Error == nil || !strings.Contains(m.Error.Message, r.code) {
				t.Errorf("%s %v: got %v, want %s", cmd, r.req, m.Error, r.code)
			}
		}
	}
	// An invalid request names the field, not the files.
	command(id, "ctxd.buildContext", map[string]any{"purpose": "diff", "bogus": true})
	id++
	command(id, "ctxd.indexStatus", map[string]any{"skipped": true})
	id++
	call(id, "workspace/symbol", map[string]any{"query": ""})
	id++
	call(id, "workspace/symbol", map[string]any{"query": "Settings"})
	id++
	call(id, "textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": root + "/config/settings.go"}})
	id++

	// A change that cannot be applied: the warning names the document
	// only, and so does the build's ContentModified error.
	_ = p.c.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": mainURI, "version": 3},
		"contentChanges": []any{map[string]any{"range": rangeOf(6, 9, 6, 2), "text": "EDITOR_MARKER_D5"}}})
	if _, err := p.c.WaitNotification(p.ctx, "window/showMessage", nil); err != nil {
		t.Fatalf("no warning for an out-of-sync document: %v", err)
	}
	if m := command(id, "ctxd.buildContext", ok); m.Error == nil || m.Error.Code != -32801 {
		t.Errorf("build while out of sync: %v, want -32801", m.Error)
	}
	id++
	_ = p.c.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": mainURI, "version": 4},
		"contentChanges": []any{map[string]any{"text": mainBuffer}}})
	_ = p.c.Notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": mainURI}})
	_ = p.c.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": mainURI}})
	_ = p.c.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": envURI}})
	call(id, "shutdown", nil)
	_ = p.c.Notify("exit", nil)
	if code := p.wait(); code != 0 {
		t.Errorf("exit code %d", code)
	}

	stderr := p.stderr.String()
	if !strings.Contains(stderr, "level=DEBUG") {
		t.Fatal("--log-level debug wrote no debug log: the log check would prove nothing")
	}
	check.clean("the server's stderr (debug log)", stderr, false)
	for _, m := range answers {
		b, _ := json.Marshal(m)
		where := fmt.Sprintf("the answer to request %s", m.ID)
		if m.Error != nil {
			where = fmt.Sprintf("the JSON-RPC error (code %d) answering request %s", m.Error.Code, m.ID)
		}
		check.clean(where, string(b), false)
	}
	sawProgress := false
	for _, n := range p.c.Notifications() {
		sawProgress = sawProgress || n.Method == "$/progress"
		check.clean("a "+n.Method+" notification", string(n.Params), false)
	}
	for _, r := range p.c.ServerRequests() {
		check.clean("a "+r.Method+" request from the server", string(r.Params), false)
	}
	if !sawProgress {
		t.Error("no $/progress notification was sent: the progress check would prove nothing")
	}
}

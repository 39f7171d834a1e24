package e2e

// End-to-end tests: build the real binary and speak framed JSON-RPC to it
// over real pipes, as an editor does.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxd/ctxd/contextbuilder/cbtest"
	"github.com/ctxd/ctxd/server/lsptest"
	"github.com/ctxd/ctxd/workspace"
	"github.com/google/go-cmp/cmp"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// binary builds ctxd once per test run.
func binary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "ctxd-e2e-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "ctxd")
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/ctxd/ctxd").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// process is a running ctxd serve with a test client on its pipes.
type process struct {
	t      *testing.T
	ctx    context.Context
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	c      *lsptest.Client
	stderr *bytes.Buffer
}

func startServer(t *testing.T, args ...string) *process {
	t.Helper()
	return startArgv(t, 60*time.Second, append([]string{binary(t), "serve", "--stdio", "--cache-dir", t.TempDir()}, args...))
}

// startArgv starts argv (ctxd serve, possibly under a tracer) with pipes
// for the LSP client; hang bounds the whole session (a guard only).
func startArgv(t *testing.T, hang time.Duration, argv []string) *process {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hang)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	p := &process{t: t, ctx: ctx, cmd: cmd, stderr: &bytes.Buffer{}}
	cmd.Stderr = p.stderr
	var err error
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p.c = lsptest.New(stdout, p.stdin)
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return p
}

func (p *process) call(id any, method string, params any) *lsptest.Message {
	p.t.Helper()
	m, err := p.c.Call(p.ctx, id, method, params)
	if err != nil {
		p.t.Fatalf("%s: %v (stderr: %s)", method, err, p.stderr)
	}
	return m
}

// wait returns the exit code once the process ends.
func (p *process) wait() int {
	p.t.Helper()
	// Read stdout to its end before Wait, which closes the pipe.
	<-p.c.Done()
	if err := p.c.Err(); !errors.Is(err, io.EOF) {
		p.t.Errorf("stdout carried something other than LSP frames: %v", err)
	}
	err := p.cmd.Wait()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		p.t.Fatalf("waiting for ctxd: %v", err)
	}
	return p.cmd.ProcessState.ExitCode()
}

func TestE2ELifecycleAndIncrementalEdit(t *testing.T) {
	p := startServer(t, "--log-level", "debug")
	init := p.call(1, "initialize", map[string]any{
		"processId": os.Getpid(), "rootUri": "file:///tmp/ws",
		"capabilities": map[string]any{"general": map[string]any{"positionEncodings": []string{"utf-16"}}},
	})
	if init.Error != nil || !strings.Contains(string(init.Result), `"positionEncoding":"utf-16"`) {
		t.Fatalf("initialize = %s %v", init.Result, init.Error)
	}
	if err := p.c.Notify("initialized", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	const secretMarker = "MARKER_THAT_MUST_NOT_BE_LOGGED"
	uri := "file:///tmp/ws/main.go"
	text := "package main\r\n\r\n// 😀 " + secretMarker + "\r\nfunc main() {}\r\n"
	_ = p.c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "go", "version": 1, "text": text}})
	// Replace "main" in "func main" (line 3, characters 5–9) and insert after the emoji
	// (line 2: "// " is 3 units, 😀 is 2 more).
	_ = p.c.Notify("textDocument/didChange", map[string]any{
		"textDocument": map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{
			map[string]any{"range": rangeOf(3, 5, 3, 9), "text": "run"},
			map[string]any{"range": rangeOf(2, 5, 2, 5), "text": "!"},
		},
	})
	want := "package main\r\n\r\n// 😀! " + secretMarker + "\r\nfunc run() {}\r\n"

	m := p.call(2, "workspace/executeCommand", map[string]any{"command": "ctxd.indexStatus", "arguments": []any{map[string]any{}}})
	if m.Error != nil {
		t.Fatal(m.Error)
	}
	var st workspace.IndexStatusResult
	if err := json.Unmarshal(m.Result, &st); err != nil {
		t.Fatal(err)
	}
	wantDocs := []workspace.OpenDocument{{
		URI: uri, LanguageID: "go", Version: 2, ByteSize: len(want), LineCount: 5,
		SHA256: fmt.Sprintf("%x", sha256.Sum256([]byte(want))),
	}}
	if diff := cmp.Diff(wantDocs, st.OpenDocuments); diff != "" {
		t.Errorf("open documents after the edit (-want +got):\n%s", diff)
	}

	if m := p.call(3, "shutdown", nil); m.Error != nil || string(m.Result) != "null" {
		t.Fatalf("shutdown = %s %v", m.Result, m.Error)
	}
	if m := p.call(4, "workspace/executeCommand", map[string]any{"command": "ctxd.indexStatus"}); m.Error == nil || m.Error.Code != -32600 {
		t.Errorf("request after shutdown = %v, want -32600", m.Error)
	}
	_ = p.c.Notify("exit", nil)
	if code := p.wait(); code != 0 {
		t.Errorf("exit code = %d, want 0", code)
	}
	if strings.Contains(p.stderr.String(), secretMarker) {
		t.Error("the log contains file contents")
	}
	if !strings.Contains(p.stderr.String(), "level=DEBUG") {
		t.Error("--log-level debug wrote no debug log to stderr")
	}
}

func TestE2EExitWithoutShutdown(t *testing.T) {
	p := startServer(t)
	p.call(1, "initialize", map[string]any{"capabilities": map[string]any{}})
	_ = p.c.Notify("exit", nil)
	if code := p.wait(); code != 1 {
		t.Errorf("exit code = %d, want 1", code)
	}
}

func TestE2EEndOfInput(t *testing.T) {
	p := startServer(t)
	p.call(1, "initialize", map[string]any{"capabilities": map[string]any{}})
	_ = p.stdin.Close()
	if code := p.wait(); code != 0 {
		t.Errorf("exit code = %d, want 0", code)
	}
}

func TestE2EBadFramesKeepServing(t *testing.T) {
	p := startServer(t)
	p.call(1, "initialize", map[string]any{"capabilities": map[string]any{}})
	// Each bad frame gets one answer; after a header it cannot use, the
	// server skips to the next Content-Length header.
	bad := [][]byte{
		[]byte("Content-Type: application/vscode-jsonrpc\r\n\r\n"),
		[]byte("Content-Length: -5\r\n\r\n"),
		[]byte("Content-Length: twelve\r\n\r\n{\"a\":1}"),
		lsptest.Frame([]byte("{not json")),
	}
	for _, b := range bad {
		if err := p.c.SendRaw(b); err != nil {
			t.Fatal(err)
		}
		m, err := p.c.Wait(p.ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if m.Error == nil || m.Error.Code != -32700 {
			t.Errorf("frame %q answered %v, want -32700", b, m.Error)
		}
	}
	// An id the library cannot represent is answered with that same id.
	if err := p.c.SendRaw(lsptest.Frame([]byte(`{"jsonrpc":"2.0","id":3000000000,"method":"shutdown"}`))); err != nil {
		t.Fatal(err)
	}
	if m, err := p.c.Wait(p.ctx, int64(3000000000)); err != nil || m.Error == nil || m.Error.Code != -32600 {
		t.Errorf("id 3000000000 answered %v %v, want -32600", m, err)
	}
	if m := p.call(2, "workspace/executeCommand", map[string]any{"command": "ctxd.indexStatus"}); m.Error != nil {
		t.Fatalf("server stopped serving after bad frames: %v", m.Error)
	}
	// A body above the cap is refused without being allocated.
	if err := p.c.SendRaw([]byte("Content-Length: 10000000000\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	if m, err := p.c.Wait(p.ctx, nil); err != nil || m.Error == nil {
		t.Fatalf("oversized frame answered %v %v, want an error", m, err)
	}
	_ = p.stdin.Close()
	if code := p.wait(); code != 0 {
		t.Errorf("exit code = %d, want 0", code)
	}
}

// TestE2EIndexExample indexes the example workspace through the real
// binary: workspace/symbol waits for the scan, the never-send .env is
// skipped and never read, and the cache persists at shutdown.
func TestE2EIndexExample(t *testing.T) {
	cache := t.TempDir()
	p := startServer(t, "--cache-dir", cache)
	root, err := filepath.Abs("../testdata/example")
	if err != nil {
		t.Fatal(err)
	}
	rootURI := "file://" + filepath.ToSlash(root)
	if m := p.call(1, "initialize", map[string]any{"processId": os.Getpid(), "rootUri": rootURI, "capabilities": map[string]any{}}); m.Error != nil {
		t.Fatal(m.Error)
	}
	_ = p.c.Notify("initialized", map[string]any{})
	m := p.call(2, "workspace/symbol", map[string]any{"query": "main"})
	if m.Error != nil || !strings.Contains(string(m.Result), `"name":"main"`) {
		t.Fatalf("workspace/symbol = %s %v", m.Result, m.Error)
	}
	m = p.call(3, "workspace/executeCommand", map[string]any{"command": "ctxd.indexStatus", "arguments": []any{map[string]any{"skipped": true}}})
	if m.Error != nil || !strings.Contains(string(m.Result), `{"path":".env","reason":"deny_rule"`) || !strings.Contains(string(m.Result), `"state":"ready"`) {
		t.Fatalf("indexStatus = %s %v", m.Result, m.Error)
	}
	p.call(4, "shutdown", nil)
	_ = p.c.Notify("exit", nil)
	if code := p.wait(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	if strings.Contains(string(m.Result), "postgres") || strings.Contains(p.stderr.String(), "postgres") {
		t.Error("the content of .env reached an output")
	}
	caches, _ := filepath.Glob(filepath.Join(cache, "index", "v*", "*.cache"))
	if len(caches) != 1 {
		t.Errorf("cache files = %v, want one", caches)
	}
}

func TestE2EVersion(t *testing.T) {
	out, err := exec.Command(binary(t), "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(out), "ctxd ") || !strings.Contains(string(out), "go1.") {
		t.Errorf("ctxd version = %q", out)
	}
}

func rangeOf(l1, c1, l2, c2 int) map[string]any {
	return map[string]any{"start": map[string]any{"line": l1, "character": c1}, "end": map[string]any{"line": l2, "character": c2}}
}

// TestE2EBuildContext builds context through the real binary: from the
// editor's buffer right after initialize (the index is awaited), then
// again after an edit, which the bundle reflects.
func TestE2EBuildContext(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"go.mod":      "module example.com/calc\n",
		"calc/add.go": "package calc\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := startServer(t)
	if m := p.call(1, "initialize", map[string]any{
		"processId": os.Getpid(), "rootUri": "file://" + filepath.ToSlash(dir), "capabilities": map[string]any{},
	}); m.Error != nil {
		t.Fatal(m.Error)
	}
	_ = p.c.Notify("initialized", map[string]any{})
	uri := "file://" + filepath.ToSlash(filepath.Join(dir, "calc", "add.go"))
	// The buffer is unsaved: Sub exists only in the editor.
	buffer := "package calc\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n\n// Sub subtracts. EDITOR_ONE\nfunc Sub(a, b int) int { return a - b }\n"
	_ = p.c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "go", "version": 1, "text": buffer}})
	req := map[string]any{
		"purpose": "diff", "correlation_id": "00000000-0000-4000-8000-0000000000e2", "active_file": uri,
		"selection": map[string]any{"uri": uri, "range": rangeOf(6, 5, 6, 8)}, // "Sub"
	}
	type result struct {
		Bundle struct {
			Blocks []struct {
				BlockType string `json:"block_type"`
				Content   string `json:"content"`
				Meta      struct {
					Path *string `json:"path"`
				} `json:"meta"`
			} `json:"blocks"`
		} `json:"bundle"`
		Manifest struct {
			Selection struct {
				TargetSymbols []string `json:"target_symbols"`
			} `json:"selection"`
			Fingerprints struct {
				BundleFingerprint string `json:"bundle_fingerprint"`
			} `json:"fingerprints"`
		} `json:"manifest"`
		BudgetReport struct {
			Decision string `json:"decision"`
		} `json:"budget_report"`
	}
	build := func(id int) (result, string) {
		t.Helper()
		m := p.call(id, "workspace/executeCommand", map[string]any{"command": "ctxd.buildContext", "arguments": []any{req}})
		if m.Error != nil {
			t.Fatalf("ctxd.buildContext: %v (data %s; stderr: %s)", m.Error, m.Error.Data, p.stderr)
		}
		cbtest.Validate(t, "build_result.schema.json", m.Result)
		var r result
		if err := json.Unmarshal(m.Result, &r); err != nil {
			t.Fatal(err)
		}
		for _, b := range r.Bundle.Blocks {
			if b.BlockType == "file" && b.Meta.Path != nil && *b.Meta.Path == "calc/add.go" {
				return r, b.Content
			}
		}
		t.Fatalf("no file block for calc/add.go: %s", m.Result)
		return r, ""
	}

	first, content := build(2)
	if !strings.Contains(content, "EDITOR_ONE") || !strings.Contains(content, "func Sub(") {
		t.Errorf("target block is not the editor's buffer: %q", content)
	}
	if !slices.Equal(first.Manifest.Selection.TargetSymbols, []string{"Sub"}) || first.BudgetReport.Decision != "ok" {
		t.Errorf("target_symbols = %v, decision = %q", first.Manifest.Selection.TargetSymbols, first.BudgetReport.Decision)
	}

	// Edit the comment (line 5, "// Sub subtracts. " is 18 units) and rebuild.
	_ = p.c.Notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"range": rangeOf(5, 18, 5, 28), "text": "EDITOR_TWO"}},
	})
	second, content := build(3)
	if !strings.Contains(content, "EDITOR_TWO") || strings.Contains(content, "EDITOR_ONE") {
		t.Errorf("target block after the edit: %q", content)
	}
	if second.Manifest.Fingerprints.BundleFingerprint == first.Manifest.Fingerprints.BundleFingerprint {
		t.Error("bundle_fingerprint unchanged by the edit")
	}

	p.call(4, "shutdown", nil)
	_ = p.c.Notify("exit", nil)
	if code := p.wait(); code != 0 {
		t.Errorf("exit code = %d, want 0", code)
	}
	if strings.Contains(p.stderr.String(), "EDITOR_") {
		t.Error("the log contains file contents")
	}
}

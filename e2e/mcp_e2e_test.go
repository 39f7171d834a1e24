package e2e

// `ctxd mcp` from the outside: the real binary on its pipes with the
// official Go SDK's client, as a coding agent's host starts it.

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ctxd/ctxd/internal/testenv"
	"github.com/google/go-cmp/cmp"
	"github.com/gowebpki/jcs"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpProcess is a running `ctxd mcp` with the SDK's client on its pipes.
type mcpProcess struct {
	t      *testing.T
	ctx    context.Context
	cmd    *exec.Cmd
	cs     *sdk.ClientSession
	stderr *testenv.Buffer
}

// startMCP starts argv (ctxd mcp, possibly under a tracer) and connects
// the SDK's client to it.
func startMCP(t *testing.T, argv ...string) *mcpProcess {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	cmd := exec.Command(argv[0], argv[1:]...)
	p := &mcpProcess{t: t, ctx: ctx, cmd: cmd, stderr: &testenv.Buffer{}}
	cmd.Stderr = p.stderr
	client := sdk.NewClient(&sdk.Implementation{Name: "ctxd-e2e", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connecting to ctxd mcp: %v (stderr: %s)", err, p.stderr)
	}
	p.cs = cs
	t.Cleanup(func() {
		if cmd.ProcessState == nil && cmd.Process != nil {
			_ = cmd.Process.Kill()
		}
	})
	return p
}

// call calls a tool that must succeed and returns its structuredContent
// as JSON and its texts.
func (p *mcpProcess) call(name string, args any) ([]byte, []string) {
	p.t.Helper()
	res, err := p.cs.CallTool(p.ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		p.t.Fatalf("%s: %v (stderr: %s)", name, err, p.stderr)
	}
	var texts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok { // the others are resource links
			texts = append(texts, tc.Text)
		}
	}
	if res.IsError {
		p.t.Fatalf("%s: tool error %q", name, texts)
	}
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		p.t.Fatal(err)
	}
	return data, texts
}

// close ends the session by closing ctxd's stdin and returns its exit
// code.
func (p *mcpProcess) close() int {
	p.t.Helper()
	if err := p.cs.Close(); err != nil {
		p.t.Logf("closing the session: %v", err)
	}
	if p.cmd.ProcessState == nil {
		p.t.Fatalf("ctxd mcp still runs after the session closed")
	}
	return p.cmd.ProcessState.ExitCode()
}

// canonicalMember returns the RFC 8785 form of a top-level member of a
// JSON object, with created_at replaced when asked (a clock no flag
// pins).
func canonicalMember(t *testing.T, data []byte, name, createdAt string) string {
	t.Helper()
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		t.Fatal(err)
	}
	m := obj[name]
	if createdAt != "" {
		var v map[string]any
		if err := json.Unmarshal(m, &v); err != nil {
			t.Fatal(err)
		}
		v["created_at"] = createdAt
		var err error
		if m, err = json.Marshal(v); err != nil {
			t.Fatal(err)
		}
	}
	out, err := jcs.Transform(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestE2EMCPSameBundle: for the same request, build_context over MCP
// returns the bundle bytes `ctxd build --format json` prints and
// ctxd.buildContext replies with, twice the same; ctxd mcp shares the
// persisted index with the other front ends, writes only protocol to
// stdout, keeps file contents out of its log and exits 0 at end of input.
func TestE2EMCPSameBundle(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1700000000") // pins created_at for ctxd build and ctxd mcp
	dir := testenv.ExampleCopy(t)
	cache := t.TempDir()
	const intent = "List returns the items sorted by name, then SKU"
	code, cliJSON, stderr := ctxdRun(t, "build", "--root", dir, "--cache-dir", cache, "--format", "json", "--purpose", "diff",
		"--target", "internal/store/store.go", "--target", ".env", "--symbol", "List", "--intent", intent)
	if code != 0 {
		t.Fatalf("ctxd build: exit %d: %s", code, stderr)
	}
	request := map[string]any{
		"purpose": "diff",
		"intent":  map[string]any{"id": "cli", "text": intent},
		// ctxd build's plan step has no text: --intent is the intent.
		"plan_step": map[string]any{"id": "cli",
			"target_files": []string{"internal/store/store.go", ".env"}, "target_symbols": []string{"List"}},
	}
	// Over MCP, the whole result, as ctxd build prints it.
	full := map[string]any{"detail": "full", "max_result_tokens": 1000000}
	for k, v := range request {
		full[k] = v
	}

	p := startMCP(t, binary(t), "mcp", "--root", dir, "--cache-dir", cache, "--log-level", "debug")
	first, texts := p.call("build_context", full)
	second, _ := p.call("build_context", full)
	want := canonicalMember(t, []byte(cliJSON), "bundle", "")
	if diff := cmp.Diff(want, canonicalMember(t, first, "bundle", "")); diff != "" {
		t.Errorf("MCP bundle differs from ctxd build's (-cli +mcp):\n%s", diff)
	}
	if canonicalMember(t, second, "bundle", "") != canonicalMember(t, first, "bundle", "") {
		t.Error("two build_context calls of the same request differ")
	}
	if canonicalMember(t, first, "manifest", "") != canonicalMember(t, []byte(cliJSON), "manifest", "") {
		t.Error("MCP manifest (and its fingerprints) differ from ctxd build's")
	}
	if len(texts) != 1 || !strings.HasPrefix(texts[0], "# ctxd context bundle (diff)") {
		t.Errorf("build_context's text is not the bundle's Markdown: %.200q", texts)
	}
	if code := p.close(); code != 0 {
		t.Errorf("ctxd mcp exit code %d at end of input, want 0 (stderr: %s)", code, p.stderr)
	}
	logs := p.stderr.String()
	// The index cache ctxd build left is the one ctxd mcp starts from.
	if m := regexp.MustCompile(`workspace root indexed.*cache_hits=(\d+)`).FindStringSubmatch(logs); m == nil || m[1] == "0" {
		t.Errorf("ctxd mcp did not reuse the persisted index (stderr: %s)", logs)
	}
	for _, leaked := range []string{"not-a-real-password", "func (s *Store) List"} {
		if strings.Contains(logs, leaked) {
			t.Errorf("the log holds %q", leaked)
		}
	}

	// ctxd.buildContext over LSP, with the same request: the same bundle
	// but for created_at (the server's clock is not pinned by a flag).
	srv := startServer(t, "--cache-dir", cache)
	if m := srv.call(1, "initialize", map[string]any{"processId": os.Getpid(), "rootUri": "file://" + filepath.ToSlash(dir), "capabilities": map[string]any{}}); m.Error != nil {
		t.Fatal(m.Error)
	}
	_ = srv.c.Notify("initialized", map[string]any{})
	m := srv.call(2, "workspace/executeCommand", map[string]any{"command": "ctxd.buildContext", "arguments": []any{request}})
	if m.Error != nil {
		t.Fatalf("ctxd.buildContext: %v", m.Error)
	}
	var created struct {
		Bundle struct {
			CreatedAt string `json:"created_at"`
		} `json:"bundle"`
	}
	if err := json.Unmarshal(first, &created); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(canonicalMember(t, first, "bundle", ""), canonicalMember(t, m.Result, "bundle", created.Bundle.CreatedAt)); diff != "" {
		t.Errorf("MCP bundle differs from ctxd.buildContext's (-mcp +lsp):\n%s", diff)
	}
	srv.call(3, "shutdown", nil)
	_ = srv.c.Notify("exit", nil)
	if code := srv.wait(); code != 0 {
		t.Errorf("ctxd serve exit code %d", code)
	}
}

// TestNoNetworkSyscallsMCP runs an MCP session of the real binary under
// strace: initialize, every tool, the resources and a prompt, end of
// input. Any network system call fails it (see TestNoNetworkSyscalls).
func TestNoNetworkSyscallsMCP(t *testing.T) {
	strace := straceOrSkip(t)
	straceControl(t, strace)
	dir := testenv.ExampleCopy(t)
	trace := filepath.Join(t.TempDir(), "ctxd-mcp.strace")
	p := startMCP(t, straceArgs(strace, trace, binary(t), "mcp", "--root", dir, "--cache-dir", t.TempDir(), "--log-level", "debug")...)
	request := map[string]any{"purpose": "diff", "plan_step": map[string]any{"id": "s", "target_files": []string{"internal/store/store.go"}},
		"thread": map[string]any{"thread_id": "th", "turn_id": "t1"}}
	var bundleID string
	for _, c := range []struct {
		tool string
		args any
	}{
		{"index_status", map[string]any{"skipped": true}},
		{"budget", request},
		{"manifest", request},
		{"build_context", request},
		{"render_prompt", request},
		{"record_execution", map[string]any{"thread_id": "th", "turn_id": "t1", "output": "--- a/x\n+++ b/x\n"}},
		{"verify", map[string]any{"mode": "ledger"}},
	} {
		data, _ := p.call(c.tool, c.args)
		if c.tool == "build_context" {
			var sum struct {
				BundleID string `json:"bundle_id"`
			}
			if err := json.Unmarshal(data, &sum); err != nil {
				t.Fatal(err)
			}
			bundleID = sum.BundleID
		}
	}
	for _, uri := range []string{"ctxd://bundles/" + bundleID + "/blocks", "ctxd://bundles/" + bundleID + "/manifest"} {
		if _, err := p.cs.ReadResource(p.ctx, &sdk.ReadResourceParams{URI: uri}); err != nil {
			t.Fatalf("%s: %v", uri, err)
		}
	}
	if _, err := p.cs.GetPrompt(p.ctx, &sdk.GetPromptParams{Name: "default-plan", Arguments: map[string]string{"intent": "sort the list"}}); err != nil {
		t.Fatalf("prompts/get: %v", err)
	}
	if code := p.close(); code != 0 {
		t.Fatalf("exit code %d (stderr: %s)", code, p.stderr)
	}
	if calls := networkCalls(t, trace); len(calls) > 0 {
		t.Errorf("ctxd mcp made %d network system calls during a session; it must make none:\n%s", len(calls), strings.Join(calls, "\n"))
	}
}

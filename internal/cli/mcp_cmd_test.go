package cli

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/ctxd/ctxd/internal/testenv"
	"github.com/google/go-cmp/cmp"
	"github.com/gowebpki/jcs"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestMCPUsage(t *testing.T) {
	tests := []cliCase{
		{name: "help", args: []string{"mcp", "--help"}, wantStdout: "-root"},
		{name: "help lists index flags", args: []string{"help", "mcp"}, wantStdout: "-cache-dir"},
		{name: "listed", args: []string{"help"}, wantStdout: "  mcp       serve the Model Context Protocol"},
		{name: "root does not exist", args: []string{"mcp", "--root", "testdata/nope"}, wantCode: 2, wantStderr: "no such file"},
		{name: "root is a file", args: []string{"mcp", "--root", "cli.go"}, wantCode: 2, wantStderr: "not a directory"},
		{name: "bad log level", args: []string{"mcp", "--log-level", "loud"}, wantCode: 2, wantStderr: "--log-level"},
		{name: "stray argument", args: []string{"mcp", "extra"}, wantCode: 2, wantStderr: `unexpected argument "extra"`},
		{name: "unknown flag", args: []string{"mcp", "--stdio"}, wantCode: 2, wantStderr: "-stdio"},
		{name: "result budget too small", args: []string{"mcp", "--max-result-tokens", "10"}, wantCode: 2, wantStderr: "--max-result-tokens 10: must be from 2000"},
	}
	runCLICases(t, tests)
}

// mcpSession runs `ctxd mcp` in-process on pipes and connects the SDK's
// client to it; end closes the session and returns the exit code and
// stderr.
func mcpSession(t *testing.T, args ...string) (cs *sdk.ClientSession, end func() (int, string)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	stderr := &testenv.Buffer{}
	code := make(chan int, 1)
	go func() {
		code <- run(append([]string{"mcp"}, args...), inR, outW, stderr)
		outW.Close()
	}()
	client := sdk.NewClient(&sdk.Implementation{Name: "cli-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatalf("connecting: %v (stderr: %s)", err, stderr)
	}
	return cs, func() (int, string) {
		_ = cs.Close() // closes the server's stdin: end of input ends the session
		select {
		case c := <-code:
			return c, stderr.String()
		case <-ctx.Done():
			t.Fatalf("ctxd mcp did not exit at end of input (stderr: %s)", stderr)
			return 0, ""
		}
	}
}

// TestMCPSameBytesAsBuild: build_context over MCP returns the result `ctxd
// build --format json` prints for the same request, the same JSON value
// whose canonical bytes are the bundle's record, and the text `ctxd build
// --format markdown` prints.
func TestMCPSameBytesAsBuild(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1700000000") // pins created_at for both
	dir := testenv.ExampleCopy(t)
	const intent = "List returns the items sorted by name, then SKU"
	flags := []string{"build", "--root", dir, "--cache-dir", "off", "--purpose", "diff",
		"--target", "internal/store/store.go", "--target", ".env", "--symbol", "List",
		"--intent", intent, "--constraint", "MUST_NOT add dependencies"}
	code, cliJSON, stderr := runCLI(t, append(flags, "--format", "json")...)
	if code != exitOK {
		t.Fatalf("ctxd build: exit %d: %s", code, stderr)
	}
	code, cliMarkdown, stderr := runCLI(t, append(flags, "--format", "markdown")...)
	if code != exitOK {
		t.Fatalf("ctxd build --format markdown: exit %d: %s", code, stderr)
	}

	cs, end := mcpSession(t, "--root", dir, "--cache-dir", "off", "--log-level", "debug")
	// The request ctxd build makes of its flags, as an agent sends it.
	args := map[string]any{
		"purpose": "diff",
		"intent":  map[string]any{"id": "cli", "text": intent},
		"plan_step": map[string]any{"id": "cli",
			"target_files": []string{"internal/store/store.go", ".env"}, "target_symbols": []string{"List"}},
		"constraints": []any{map[string]any{"scope": "user", "id": "cli-1", "text": "MUST_NOT add dependencies"}},
		// The whole result, as ctxd build prints it (the default is a
		// summary fitted to the result budget).
		"detail": "full", "max_result_tokens": 1000000,
	}
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "build_context", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Fatalf("build_context: tool error %v", res.Content)
	}
	structured, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	canonical := func(data []byte) string {
		t.Helper()
		out, err := jcs.Transform(data)
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	if diff := cmp.Diff(canonical([]byte(cliJSON)), canonical(structured)); diff != "" {
		t.Errorf("build_context's structuredContent differs from ctxd build --format json (-cli +mcp):\n%s", diff)
	}
	var cliBundle, mcpBundle struct {
		Bundle json.RawMessage `json:"bundle"`
	}
	if err := json.Unmarshal([]byte(cliJSON), &cliBundle); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(structured, &mcpBundle); err != nil {
		t.Fatal(err)
	}
	if canonical(cliBundle.Bundle) != canonical(mcpBundle.Bundle) {
		t.Error("the bundle bytes differ")
	}
	if len(res.Content) != 1 {
		t.Fatalf("build_context returned %d contents, want the Markdown text", len(res.Content))
	}
	if diff := cmp.Diff(cliMarkdown, res.Content[0].(*sdk.TextContent).Text); diff != "" {
		t.Errorf("build_context's text differs from ctxd build --format markdown (-cli +mcp):\n%s", diff)
	}
	code, logs := end()
	if code != exitOK {
		t.Errorf("exit code %d at end of input, want 0 (stderr: %s)", code, logs)
	}
	if strings.Contains(logs, "not-a-real-password") || strings.Contains(logs, "func (s *Store) List") {
		t.Error("the log holds file contents")
	}
	if !strings.Contains(logs, "ctxd serving MCP on stdio") || !strings.Contains(logs, "level=DEBUG") {
		t.Errorf("stderr lacks the server's logs:\n%s", logs)
	}
}

package e2e

// ctxd is local only: it never opens a network socket (docs/security.md).
// Two checks prove it. TestNoNetworkSyscalls (and TestNoNetworkSyscallsMCP)
// runs a full LSP (MCP) session of the real binary under strace and fails
// on any network system call.
// TestNoNetworkDependencies fails at build time when code that could talk
// to the network enters the binary: a forbidden package imported by ctxd
// or by a new dependency, or a use of package net beyond the one error
// value ctxd needs.

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// straceOrSkip returns strace's path, or skips the test when strace is
// missing or may not trace (ptrace forbidden in the container). It traces
// /bin/true first, so a tracer that cannot work is a skip, not a pass.
func straceOrSkip(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("strace")
	if err != nil {
		t.Skip("strace is not on PATH (install it: .ci/run does); the dependency check still runs")
	}
	out, err := exec.Command(path, "-f", "-qq", "-o", os.DevNull, "/bin/true").CombinedOutput()
	if err != nil {
		t.Skipf("strace cannot trace here (ptrace not permitted?): %v: %s", err, bytes.TrimSpace(out))
	}
	return path
}

// straceArgs traces every network system call (socket, socketpair,
// connect, bind, listen, accept, send*/recv*, get/setsockopt, …) of the
// process and its threads and children into out.
func straceArgs(strace, out string, argv ...string) []string {
	return append([]string{strace, "-f", "-qq", "-e", "trace=%network", "-e", "signal=none", "-o", out, "--"}, argv...)
}

// networkCalls returns the system calls recorded in an strace output file.
func networkCalls(t *testing.T, file string) []string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.Contains(line, "+++ exited with") || strings.Contains(line, "+++ killed by") {
			continue
		}
		// A thread detached or killed at exit in the middle of a system
		// call strace cannot name ("24306 ???( <detached ...>", "27696
		// ???( <unfinished ...>"): not a call of the traced class. A named
		// call with either marker still counts.
		if fields := strings.Fields(line); len(fields) >= 2 && strings.HasPrefix(fields[1], "???(") &&
			(strings.HasSuffix(line, "<detached ...>") || strings.HasSuffix(line, "<unfinished ...>")) {
			continue
		}
		calls = append(calls, line)
	}
	return calls
}

// TestHelperDial is not a test: TestNoNetworkSyscalls runs the test binary
// with it under strace to check that the tracer sees a socket here.
func TestHelperDial(t *testing.T) {
	if os.Getenv("CTXD_NETCHECK_DIAL") != "1" {
		t.Skip("helper process for TestNoNetworkSyscalls")
	}
	c, err := net.DialTimeout("tcp", "127.0.0.1:9", time.Second)
	if err == nil {
		c.Close()
	}
}

// straceControl checks that the tracer sees a TCP socket in this
// environment: the test binary dials 127.0.0.1:9 under strace. Without
// it, a tracer that records nothing would pass every check.
func straceControl(t *testing.T, strace string) {
	t.Helper()
	control := filepath.Join(t.TempDir(), "control.strace")
	argv := straceArgs(strace, control, os.Args[0], "-test.run=^TestHelperDial$", "-test.count=1")
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "CTXD_NETCHECK_DIAL=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("control run: %v\n%s", err, out)
	}
	if calls := networkCalls(t, control); !slices.ContainsFunc(calls, func(c string) bool { return strings.Contains(c, "AF_INET") }) {
		t.Fatalf("strace did not record the control's TCP socket; the check would prove nothing. Recorded:\n%s", strings.Join(calls, "\n"))
	}
}

// startTraced starts ctxd serve under strace, like startServer.
func startTraced(t *testing.T, strace, out string, args ...string) *process {
	t.Helper()
	return startArgv(t, 120*time.Second, straceArgs(strace, out, append([]string{binary(t), "serve", "--stdio", "--cache-dir", t.TempDir()}, args...)...))
}

// TestNoNetworkSyscalls runs a full session of the real binary under
// strace: initialize, the initial scan, didOpen, didChange, every ctxd
// command, workspace/symbol, watched-file events, shutdown and exit. Any
// network system call fails the test: ctxd needs none (not even AF_UNIX;
// neither the Go runtime nor the cgo parsers open sockets, and nothing
// resolves users or hosts through NSS).
func TestNoNetworkSyscalls(t *testing.T) {
	strace := straceOrSkip(t)
	straceControl(t, strace)

	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"go.mod":      "module example.com/net\n",
		"main.go":     "package main\n\nimport \"example.com/net/calc\"\n\nfunc main() { println(calc.Add(1, 2)) }\n",
		"calc/add.go": "package calc\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n",
		".gitignore":  "build/\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	trace := filepath.Join(t.TempDir(), "ctxd.strace")
	p := startTraced(t, strace, trace, "--log-level", "debug")
	root := "file://" + filepath.ToSlash(dir)
	if m := p.call(1, "initialize", map[string]any{
		"processId": os.Getpid(), "rootUri": root,
		"capabilities": map[string]any{
			"window":    map[string]any{"workDoneProgress": true},
			"workspace": map[string]any{"didChangeWatchedFiles": map[string]any{"dynamicRegistration": true}},
		},
	}); m.Error != nil {
		t.Fatal(m.Error)
	}
	_ = p.c.Notify("initialized", map[string]any{})
	uri := root + "/calc/add.go"
	_ = p.c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "go", "version": 1,
		"text": "package calc\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n\nfunc Sub(a, b int) int { return a - b }\n"}})
	_ = p.c.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"range": rangeOf(2, 3, 2, 6), "text": "Add"}}})
	_ = p.c.Notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{
		map[string]any{"uri": root + "/main.go", "type": 2}, map[string]any{"uri": "file://example.com/etc/hosts", "type": 2},
	}})
	build := map[string]any{"purpose": "diff", "active_file": uri, "selection": map[string]any{"uri": uri, "range": rangeOf(5, 5, 5, 8)}}
	id := 2
	for _, c := range []struct {
		method string
		params any
	}{
		{"workspace/executeCommand", map[string]any{"command": "ctxd.buildContext", "arguments": []any{build}}},
		{"workspace/executeCommand", map[string]any{"command": "ctxd.manifest", "arguments": []any{build}}},
		{"workspace/executeCommand", map[string]any{"command": "ctxd.budget", "arguments": []any{build}}},
		{"workspace/executeCommand", map[string]any{"command": "ctxd.renderPrompt", "arguments": []any{build}}},
		{"workspace/executeCommand", map[string]any{"command": "ctxd.checkChange", "arguments": []any{map[string]any{
			"answer": "```diff\n--- a/calc/add.go\n+++ b/calc/add.go\n@@ @@\n-func Sub(a, b int) int { return a - b }\n+func Sub(a, b int) int { return a - b - 0 }\n```\n"}}}},
		{"workspace/executeCommand", map[string]any{"command": "ctxd.verify", "arguments": []any{map[string]any{"mode": "ledger"}}}},
		{"workspace/executeCommand", map[string]any{"command": "ctxd.indexStatus", "arguments": []any{map[string]any{"skipped": true}}}},
		{"workspace/symbol", map[string]any{"query": "Add"}},
		{"textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}}},
	} {
		if m := p.call(id, c.method, c.params); m.Error != nil {
			t.Fatalf("%s: %v (stderr: %s)", c.method, m.Error, p.stderr)
		}
		id++
	}
	_ = p.c.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
	p.call(id, "shutdown", nil)
	_ = p.c.Notify("exit", nil)
	if code := p.wait(); code != 0 {
		t.Fatalf("exit code %d (stderr: %s)", code, p.stderr)
	}
	if calls := networkCalls(t, trace); len(calls) > 0 {
		t.Errorf("ctxd made %d network system calls during a session; it must make none:\n%s", len(calls), strings.Join(calls, "\n"))
	}
}

// TestNoNetworkSyscallsCheckChange runs ctxd check-change --write under
// strace: reading the answer, checking it (parse, secrets, syntax) and
// writing the change open no socket either.
func TestNoNetworkSyscallsCheckChange(t *testing.T) {
	strace := straceOrSkip(t)
	straceControl(t, strace)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "add.go"), []byte("package calc\n\nfunc Add(a, b int) int { return a + b }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	answer := filepath.Join(t.TempDir(), "answer.txt")
	if err := os.WriteFile(answer, []byte("add.go\n```go\npackage calc\n\nfunc Add(a, b int) int { return b + a }\n```\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	trace := filepath.Join(t.TempDir(), "check.strace")
	argv := straceArgs(strace, trace, binary(t), "check-change", "--root", dir, "--answer", answer, "--write", "--json")
	out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
	if err != nil {
		t.Fatalf("check-change: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), `"accepted"`) {
		t.Fatalf("check-change did not accept the change:\n%s", out)
	}
	if calls := networkCalls(t, trace); len(calls) > 0 {
		t.Errorf("ctxd check-change made %d network system calls; it must make none:\n%s", len(calls), strings.Join(calls, "\n"))
	}
}

// forbiddenImport reports whether an import path gives code a way to talk
// to the network (or to run a program that does).
func forbiddenImport(path string) bool {
	switch path {
	case "net", "crypto/tls", "net/rpc", "net/rpc/jsonrpc", "net/smtp", "log/syslog", "expvar", "os/exec", "plugin":
		return true
	}
	for _, prefix := range []string{"net/http", "golang.org/x/net/", "google.golang.org/grpc", "github.com/gorilla/websocket", "nhooyr.io/websocket", "github.com/coder/websocket", "github.com/quic-go/"} {
		if path == strings.TrimSuffix(prefix, "/") || strings.HasPrefix(path, prefix) {
			return true
		}
	}
	return false
}

// allowedEdges are the non-standard packages allowed to import a forbidden
// package, with the reason (see docs/security.md). Anything else fails.
var allowedEdges = map[[2]string]string{
	{"go.lsp.dev/jsonrpc2", "net"}:         "for its ListenAndServe and Serve helpers (net.Listen), which ctxd never calls (checked below); ctxd's Conn runs over its own stdio stream",
	{"github.com/ctxd/ctxd/server", "net"}: "only net.ErrClosed, to recognise a closed pipe (checked below)",
	{"go.uber.org/zap", "net/http"}:        "zap.AtomicLevel implements http.Handler; ctxd never serves it (go.lsp.dev/protocol imports zap for its logger)",
	{"github.com/google/uuid", "net"}:      "net.Interfaces, for the node id of version 1 UUIDs only; modernc.org/sqlite's libc imports uuid and the ledger's SQLite projection never generates one (the traced session runs a ledger replay)",
	{"modernc.org/libc", "os/exec"}:        "C's system() and popen() run sh -c; SQLite's library never calls them (the sqlite3 shell does), and ctxd runs no SQL that could",
	// The official MCP SDK is one package with every transport: ctxd mcp
	// serves its own stdio transport (no SDK transport), and ctxd's own code may not name
	// a network or process transport (sdkTransports, checked below).
	{"github.com/modelcontextprotocol/go-sdk/mcp", "net/http"}:      "the SDK's streamable HTTP and SSE transports (servers and clients), which ctxd never creates (checked below)",
	{"github.com/modelcontextprotocol/go-sdk/mcp", "net"}:           "net.Pipe for its in-memory transport, and the HTTP transports' address checks",
	{"github.com/modelcontextprotocol/go-sdk/mcp", "os/exec"}:       "CommandTransport, the client side that starts a server process; ctxd never creates one (checked below)",
	{"github.com/modelcontextprotocol/go-sdk/auth", "net/http"}:     "OAuth of the SDK's HTTP transports, imported by its mcp package; unreachable from stdio",
	{"github.com/modelcontextprotocol/go-sdk/oauthex", "net"}:       "OAuth discovery of the SDK's HTTP transports (a dialer that refuses private addresses); unreachable from stdio",
	{"github.com/modelcontextprotocol/go-sdk/oauthex", "net/http"}:  "OAuth discovery of the SDK's HTTP transports; unreachable from stdio",
	{"github.com/modelcontextprotocol/go-sdk/internal/util", "net"}: "net.SplitHostPort, for the HTTP transports' localhost check",
	{"golang.org/x/oauth2", "net/http"}:                             "the OAuth client of the SDK's HTTP transports (imported by go-sdk/auth); unreachable from stdio",
	{"golang.org/x/oauth2/internal", "net/http"}:                    "the same OAuth client's token requests; unreachable from stdio",
}

// sdkMCP is the import path of the MCP SDK's package.
const sdkMCP = "github.com/modelcontextprotocol/go-sdk/mcp"

// allowedNetUses are the identifiers of package net that ctxd's own code
// may use.
var allowedNetUses = map[string]bool{"ErrClosed": true}

// serveCalls are the functions of go.lsp.dev/jsonrpc2 that listen on the
// network.
var serveCalls = map[string]bool{"ListenAndServe": true, "Serve": true}

// sdkTransports are the identifiers of the MCP SDK's package mcp that
// listen on the network, dial it or start a process: ctxd's own code
// serves MCP on stdio only.
var sdkTransports = regexp.MustCompile(`^(NewStreamableHTTPHandler|StreamableHTTPHandler|StreamableHTTPOptions|StreamableServerTransport|StreamableClientTransport|NewSSEHandler|SSEHandler|SSEOptions|SSEServerTransport|SSEClientTransport|CommandTransport)$`)

// socketCalls are the identifiers of syscall and golang.org/x/sys/unix
// that open or use a socket.
var socketCalls = regexp.MustCompile(`^(Socket|Socketpair|Connect|Bind|Listen|Accept|Accept4|Sendto|Sendmsg|SendmsgN|Recvfrom|Recvmsg|Setsockopt.*|Getsockopt.*|Getpeername|Getsockname)$`)

// TestNoNetworkDependencies checks the import graph of the binary
// (go list -deps .): no package outside the standard library may import a
// forbidden package except through an edge of allowedEdges, and ctxd's
// own packages may use package net only for allowedNetUses, never call a
// socket system call directly and never call jsonrpc2's network servers. It fails as soon as someone adds an HTTP
// client, a dialer or a new dependency that can open a socket.
func TestNoNetworkDependencies(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}\t{{.Standard}}\t{{.Dir}}\t{{join .GoFiles \",\"}}\t{{join .CgoFiles \",\"}}\t{{join .Imports \",\"}}", "github.com/ctxd/ctxd").Output()
	if err != nil {
		t.Fatalf("go list -deps .: %v", err)
	}
	var bad []string
	var inGraph []string
	for line := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 6 {
			t.Fatalf("unexpected go list line %q", line)
		}
		pkg, std, dir, imports := f[0], f[1] == "true", f[2], f[5]
		if forbiddenImport(pkg) {
			inGraph = append(inGraph, pkg)
		}
		if std {
			continue
		}
		for imp := range strings.SplitSeq(imports, ",") {
			if imp == "" || !forbiddenImport(imp) {
				continue
			}
			if _, ok := allowedEdges[[2]string{pkg, imp}]; !ok {
				bad = append(bad, fmt.Sprintf("%s imports %s", pkg, imp))
			}
		}
		if strings.HasPrefix(pkg, "github.com/ctxd/ctxd") {
			var files []string
			for _, list := range []string{f[3], f[4]} {
				for name := range strings.SplitSeq(list, ",") {
					if name != "" {
						files = append(files, filepath.Join(dir, name))
					}
				}
			}
			bad = append(bad, netUses(t, files)...)
		}
	}
	for _, b := range bad {
		t.Error(b)
	}
	t.Logf("forbidden packages present only through allowed edges: %s", strings.Join(inGraph, " "))
	// The check would prove nothing if it could not see the edges it allows.
	if _, ok := allowedEdges[[2]string{"go.uber.org/zap", "net/http"}]; ok && !slices.Contains(inGraph, "net/http") {
		t.Log("net/http left the graph: remove the zap edge from allowedEdges and update docs/security.md")
	}
}

// netUses parses ctxd's own files and reports uses of package net beyond
// allowedNetUses and socket system calls of syscall or x/sys/unix.
func netUses(t *testing.T, files []string) []string {
	t.Helper()
	var bad []string
	fset := token.NewFileSet()
	for _, name := range files {
		file, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		local := map[string]string{} // local name → import path
		for _, imp := range file.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if path != "net" && path != "syscall" && path != "golang.org/x/sys/unix" && path != "go.lsp.dev/jsonrpc2" && path != sdkMCP {
				continue
			}
			n := filepath.Base(path)
			if path == sdkMCP {
				n = "mcp"
			}
			if imp.Name != nil {
				n = imp.Name.Name
			}
			if n == "_" || n == "." {
				bad = append(bad, fmt.Sprintf("%s: imports %s as %q, which hides what it uses", fset.Position(imp.Pos()), path, n))
				continue
			}
			local[n] = path
		}
		if len(local) == 0 {
			continue
		}
		ast.Inspect(file, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			id, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			switch path := local[id.Name]; {
			case path == "net" && !allowedNetUses[sel.Sel.Name]:
				bad = append(bad, fmt.Sprintf("%s: uses net.%s (only %v are allowed)", fset.Position(sel.Pos()), sel.Sel.Name, slices.Sorted(maps.Keys(allowedNetUses))))
			case path == "go.lsp.dev/jsonrpc2" && serveCalls[sel.Sel.Name]:
				bad = append(bad, fmt.Sprintf("%s: calls jsonrpc2.%s, which listens on the network", fset.Position(sel.Pos()), sel.Sel.Name))
			case path == sdkMCP && sdkTransports.MatchString(sel.Sel.Name):
				bad = append(bad, fmt.Sprintf("%s: uses mcp.%s, an MCP transport over the network or a process; ctxd serves MCP on stdio only", fset.Position(sel.Pos()), sel.Sel.Name))
			case (path == "syscall" || path == "golang.org/x/sys/unix") && socketCalls.MatchString(sel.Sel.Name):
				bad = append(bad, fmt.Sprintf("%s: calls %s.%s, a socket system call", fset.Position(sel.Pos()), id.Name, sel.Sel.Name))
			}
			return true
		})
	}
	return bad
}

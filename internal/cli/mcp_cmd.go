package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/ctxd/ctxd/mcp"
	"github.com/ctxd/ctxd/workspace"
)

const mcpSynopsis = "mcp [--root DIR] [--log-level debug|info|warn|error] [--log-file PATH] [--cache-dir DIR|off] [--max-file-size BYTES] [--secret-rules FILE] [--max-result-tokens N]"

// runMCP serves the Model Context Protocol on stdin/stdout for one
// workspace folder (--root, default the current directory), as coding
// agents start it: the tools of package mcp over the same service, index
// cache and records as `ctxd serve` and `ctxd build`. Logs go to stderr
// (or --log-file), never to stdout, which carries the protocol. Exit
// codes: 0 when the client closes the connection (or on SIGINT/SIGTERM),
// 2 usage, 1 internal error.
func runMCP(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("mcp", mcpSynopsis, stderr, stdout)
	root := fs.String("root", ".", "workspace folder the tools work on")
	level := fs.String("log-level", "info", "log level: debug, info, warn or error")
	logFile := fs.String("log-file", "", "append logs to this file instead of stderr")
	idx := indexFlags(fs)
	rules := secretRulesFlag(fs)
	maxResult := fs.Int("max-result-tokens", mcp.DefaultMaxResultTokens, fmt.Sprintf("default token cap of one tool result (%d to %d); a call's max_result_tokens overrides it", mcp.MinResultTokens, mcp.MaxResultTokens))
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	fail := func(code int, msg string, args ...any) int {
		fmt.Fprintf(stderr, "ctxd mcp: "+msg+"\n", args...)
		return code
	}
	if *maxResult < mcp.MinResultTokens || *maxResult > mcp.MaxResultTokens {
		return fail(exitUsage, "--max-result-tokens %d: must be from %d to %d", *maxResult, mcp.MinResultTokens, mcp.MaxResultTokens)
	}
	dir, err := rootDir(*root)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	if err := checkCacheDir(fs, idx, dir); err != nil {
		return fail(exitUsage, "%v", err)
	}
	logger, closeLog, err := newLogger(*level, *logFile, stderr)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	defer closeLog()
	scanner, rulesErr := serverRules(logger, *rules)
	opts := workspace.ServiceOptions{Index: idx.options(), RedactorErr: rulesErr, Now: clock()}
	if scanner != nil {
		opts.Redactor = scanner
	}
	defer guardStdout(stdout)()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger.Info("ctxd serving MCP on stdio", "version", versionString(), "root", dir, "pid", os.Getpid())
	srv, err := mcp.New(mcp.Options{Root: dir, MaxResultTokens: *maxResult, Logger: logger, Version: versionString(), Service: opts})
	if err != nil {
		return fail(exitInternal, "%v", err)
	}
	defer func() {
		if err := srv.Close(); err != nil {
			logger.Warn("saving the index cache failed", "err", err)
		}
	}()
	// ctxd's own transport, not the SDK's: a malformed line is answered
	// with an error instead of ending the session, and the requests in
	// flight at the end of input are still answered
	// (docs/dependency-defects.md).
	transport := &mcp.StdioTransport{Reader: inHalf{stdin}, Writer: outHalf{stdout}, Logger: logger}
	if err := srv.Run(ctx, transport); err != nil {
		logger.Error("MCP session ended with an error", "err", err)
		return exitInternal
	}
	logger.Info("MCP session ended")
	return exitOK
}

// inHalf and outHalf give the MCP transport the Close it wants on each
// half of stdio. Each closes its own half when that is closable (the
// process's stdin and stdout), so that a read of stdin still blocked when
// the session ends returns.
type (
	inHalf  struct{ io.Reader }
	outHalf struct{ io.Writer }
)

func (h inHalf) Close() error  { return closeIfCloser(h.Reader) }
func (h outHalf) Close() error { return closeIfCloser(h.Writer) }

func closeIfCloser(v any) error {
	if c, ok := v.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

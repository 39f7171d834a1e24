// Package cli is ctxd's command line: the subcommands serve (LSP over
// stdio), mcp (the Model Context Protocol over stdio, for coding agents),
// build, index, record, verify, check-change (a model's answer checked
// against its bundle), init (.ctxd/config.json with every default, each
// explained in .ctxd/README.md), explain (the long help of a refusal code)
// and version, their flags, usage text and exit codes. Each subcommand
// decodes its flags, calls the workspace layer (or starts the LSP or MCP
// server) and encodes the result; the business logic lives below it.
//
// The entry point is [Run]; [Version] and [Commit] are what the binary was
// stamped with.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ctxd/ctxd/contextbuilder/secrets"
	"github.com/ctxd/ctxd/internal/memlimit"
	"github.com/ctxd/ctxd/server"
	"github.com/ctxd/ctxd/workspace"
)

// Version and Commit are what the binary was stamped with: the Makefile
// sets them in package main with -ldflags "-X main.version=… -X
// main.commit=…", and main copies them here. Empty, ctxd falls back to the
// build's VCS stamp (absent under -buildvcs=false) and then to "devel" /
// "unknown".
var (
	Version = ""
	Commit  = ""
)

// Exit codes shared by every subcommand.
const (
	exitOK       = 0
	exitInternal = 1
	exitUsage    = 2
)

// Run runs the ctxd command line with args (without the program name) and
// returns the process's exit code.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// The index is most of the heap; collecting at 1.5× it, not 2×, is
	// the difference between a 400 MB and a 300 MB peak on a large tree.
	defer memlimit.Start()()
	return run(args, stdin, stdout, stderr)
}

type command struct {
	name, summary string
	run           func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

func commands() []command {
	return []command{
		{"serve", "serve the Language Server Protocol over stdin/stdout (the default)", runServe},
		{"mcp", "serve the Model Context Protocol over stdin/stdout for coding agents (tools build_context, budget, …)", runMCP},
		{"build", "build a context bundle for a workspace folder, as ctxd.buildContext does", runBuild},
		{"index", "index a workspace folder and print its status", runIndex},
		{"record", "record a model's output as the EXECUTION event of a thread's turn, as ctxd.recordExecution does", runRecord},
		{"check-change", "check a model's answer (diff, SEARCH/REPLACE, whole files) against the workspace or a bundle, and apply it with --write, as ctxd.checkChange does", runCheckChange},
		{"verify", "replay a workspace's ledger, audit trail and artifacts and report every digest that does not verify", runVerify},
		{"explain", "explain a refusal code: what it means and what to do (ctxd explain REFUSE_AMBIGUOUS_TARGET)", runExplain},
		{"init", "write .ctxd/config.json with every default and .ctxd/README.md explaining it (--force overwrites)", runInit},
		{"version", "print ctxd's version, commit and Go version", runVersion},
	}
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		switch {
		case len(args) > 0 && (args[0] == "--version" || args[0] == "-version" || args[0] == "-v"):
			return runVersion(args[1:], stdin, stdout, stderr)
		case len(args) > 0 && (args[0] == "--help" || args[0] == "-help" || args[0] == "-h"):
			usage(stdout)
			return exitOK
		}
		if len(args) == 0 && stdinIsTerminal(stdin) {
			// Someone typed "ctxd" at a shell: the protocol on stdio is
			// meant for an editor, and the silence that follows looks
			// like a hang. Say so on stderr, then serve as usual.
			serveNotice(stderr)
		}
		return runServe(args, stdin, stdout, stderr)
	}
	name := args[0]
	if name == "help" {
		if len(args) > 1 {
			return run([]string{args[1], "--help"}, stdin, stdout, stderr)
		}
		usage(stdout)
		return exitOK
	}
	for _, c := range commands() {
		if c.name == name {
			return c.run(args[1:], stdin, stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "ctxd: unknown command %q\n\n", name)
	usage(stderr)
	return exitUsage
}

// stdinIsTerminal reports whether stdin is a terminal; a variable so that
// tests can pretend.
var stdinIsTerminal = func(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// serveNotice is what a bare "ctxd" on a terminal prints before it
// serves.
func serveNotice(w io.Writer) {
	fmt.Fprintln(w, "ctxd: speaking the Language Server Protocol on stdin/stdout, for an editor to drive.")
	fmt.Fprintln(w, "ctxd: 'ctxd help' lists the commands (build, index, mcp, explain, ...); Ctrl-D or Ctrl-C ends.")
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "ctxd: an LSP sidecar that decides what an AI model may see.")
	fmt.Fprintln(w, "\nUsage: ctxd <command> [flags]\n\nCommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "  help      print help for a command (ctxd help serve)")
	fmt.Fprintln(w, "\nWith no command, ctxd serves LSP over stdio. 'ctxd <command> --help' lists its flags.")
	fmt.Fprintf(w, "serve, mcp, build and index keep the index between runs in %s;\n--cache-dir or $CTXD_CACHE_DIR moves it. ", userCacheDir())
	fmt.Fprintln(w, "On a terminal, build and index show their progress on stderr\nwhen it takes more than a second.")
}

// exitCodeHelp is the "Exit codes" section of each command's --help:
// scripts branch on them, so they are listed where a script's author
// looks first.
var exitCodeHelp = map[string]string{
	"build": "  0  built: the bundle (or prompt) is on stdout\n" +
		"  1  internal error (indexing failed, an output could not be written)\n" +
		"  2  usage error: a bad flag or value, a malformed --target range, a --target or --select\n" +
		"     file that does not exist under --root or is a directory, a --cache-dir inside --root,\n" +
		"     a --model ctxd does not know without --max-input-tokens, --template without --format prompt\n" +
		"  3  refused: stdout holds {\"refusal\": {code, message, advice, ...}}; 'ctxd explain CODE' says more\n",
	"index": "  0  indexed\n  1  internal error, or the folder failed to index\n  2  usage error\n",
	"record": "  0  recorded: the EXECUTION event is on stdout\n  1  internal error\n  2  usage error\n" +
		"  3  refused: stdout holds {\"refusal\": …} (e.g. no INTENT for the turn); 'ctxd explain CODE' says more\n",
	"verify":  "  0  everything verifies\n  1  internal error\n  2  usage error\n  4  something does not verify (a digest, a chain link, a hash: tampering)\n  6  only what an interrupted write leaves (a cut last line, a projection behind): not tampering; --repair completes it\n",
	"explain": "  0  explained\n  2  usage error, or a code ctxd does not know\n",
}

// newFlagSet returns a flag set whose usage names the subcommand and whose
// errors go to stderr.
//
// stdout is an output channel (often piped into a JSON reader): --help
// prints the usage there, but a flag error prints its message and a hint
// on stderr and nothing on stdout.
func newFlagSet(name, synopsis string, stderr, stdout io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("ctxd "+name, flag.ContinueOnError)
	errOut := &trackWriter{w: stderr}
	fs.SetOutput(errOut)
	fs.Usage = func() {
		if errOut.wrote {
			fmt.Fprintf(stderr, "Run 'ctxd %s --help' for the flags.\n", name)
			return
		}
		fmt.Fprintf(stdout, "Usage: ctxd %s\n", synopsis)
		// A command without flags (explain) gets no empty "Flags:"
		// heading.
		hasFlags := false
		fs.VisitAll(func(*flag.Flag) { hasFlags = true })
		if hasFlags {
			fmt.Fprint(stdout, "\nFlags:\n")
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			fs.SetOutput(errOut)
		}
		if codes := exitCodeHelp[name]; codes != "" {
			fmt.Fprintf(stdout, "\nExit codes:\n%s", codes)
		}
	}
	return fs
}

// parseFlags parses args and maps -h and errors to an exit code; ok is false
// when the caller must return code.
func parseFlags(fs *flag.FlagSet, args []string) (code int, ok bool) {
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return exitOK, false
	case err != nil:
		return exitUsage, false
	case fs.NArg() > 0:
		fmt.Fprintf(fs.Output(), "%s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return exitUsage, false
	}
	return 0, true
}

// serverRules loads the secret rules of a server (serve, mcp) and logs
// the outcome. A rules file that cannot be loaded does not stop the
// server (the index, symbols and verify still work), but every build
// fails closed with the reason, rulesErr: ctxd cannot scan with the rules
// the user asked for.
func serverRules(logger *slog.Logger, file string) (scanner *secrets.Scanner, rulesErr error) {
	scanner, path, err := loadSecretRules(file)
	if err != nil {
		logger.Error("secret rules not loaded; context builds will be refused", "file", path, "err", err)
	} else if path != "" {
		logger.Info("secret rules loaded", "file", path, "version", scanner.Version())
	}
	return scanner, err
}

// guardStdout points os.Stdout at stderr while a server speaks its
// protocol on stdout (the real one, which the transport keeps): anything
// that prints to os.Stdout by mistake would corrupt the stream. The
// returned function restores it.
func guardStdout(stdout io.Writer) (restore func()) {
	if stdout != os.Stdout {
		return func() {}
	}
	os.Stdout = os.Stderr
	return func() { os.Stdout = stdout.(*os.File) }
}

func runServe(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("serve", "serve [--stdio] [--log-level debug|info|warn|error] [--log-file PATH] [--cache-dir DIR|off] [--max-file-size BYTES] [--secret-rules FILE]", stderr, stdout)
	fs.Bool("stdio", true, "use stdin/stdout (the only transport; accepted for editor clients that pass it)")
	level := fs.String("log-level", "info", "log level: debug, info, warn or error")
	logFile := fs.String("log-file", "", "append logs to this file instead of stderr")
	idx := indexFlags(fs)
	rules := secretRulesFlag(fs)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	logger, closeLog, err := newLogger(*level, *logFile, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "ctxd serve: %v\n", err)
		return exitUsage
	}
	defer closeLog()
	scanner, rulesErr := serverRules(logger, *rules)
	defer guardStdout(stdout)()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger.Info("ctxd serving LSP on stdio", "version", versionString(), "pid", os.Getpid())
	opts := server.Options{Logger: logger, Version: versionString(), Index: idx.options(), SecretsErr: rulesErr}
	if scanner != nil {
		opts.Secrets = scanner
	}
	srv := server.New(opts)
	return srv.Run(ctx, stdioConn{stdin, stdout})
}

// stdioConn joins stdin and stdout into the connection the server reads and
// writes.
type stdioConn struct {
	io.Reader
	io.Writer
}

// Close closes both ends when they are closable, so that a blocked read of
// stdin ends at exit.
func (c stdioConn) Close() error {
	var errs []error
	for _, v := range []any{c.Reader, c.Writer} {
		if cl, ok := v.(io.Closer); ok {
			errs = append(errs, cl.Close())
		}
	}
	return errors.Join(errs...)
}

// newLogger builds the slog logger for --log-level and --log-file; logs
// never go to stdout.
func newLogger(level, file string, stderr io.Writer) (*slog.Logger, func(), error) {
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(level)); err != nil {
		return nil, nil, fmt.Errorf("invalid --log-level %q: want debug, info, warn or error", level)
	}
	out, closeFn := stderr, func() {}
	if file != "" {
		f, err := os.OpenFile(file, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			return nil, nil, fmt.Errorf("opening --log-file: %w", err)
		}
		out, closeFn = f, func() { _ = f.Close() }
	}
	return slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: lvl})), closeFn, nil
}

// buildInfo is what `ctxd version` reports.
type buildInfo struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	GoVersion string `json:"go_version"`
	Platform  string `json:"platform"`
	// ProtocolVersion is the command protocol's version
	// (workspace.ProtocolVersion), which a client checks before it
	// starts the server.
	ProtocolVersion int `json:"protocol_version"`
}

func readBuildInfo() buildInfo {
	bi := buildInfo{Version: versionString(), Commit: "unknown", GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH, ProtocolVersion: workspace.ProtocolVersion}
	if Commit != "" {
		bi.Commit = Commit
		return bi
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		modified := false
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				bi.Commit = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if modified && bi.Commit != "unknown" {
			bi.Commit += "-dirty"
		}
	}
	return bi
}

func versionString() string {
	if Version != "" {
		return Version
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return "devel"
}

func runVersion(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("version", "version [--json]", stderr, stdout)
	asJSON := fs.Bool("json", false, "print a JSON object {version, commit, go_version, platform, protocol_version}")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	bi := readBuildInfo()
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(bi); err != nil {
			fmt.Fprintf(stderr, "ctxd version: %v\n", err)
			return exitInternal
		}
		return exitOK
	}
	fmt.Fprintf(stdout, "ctxd %s (commit %s, %s, %s)\n", bi.Version, bi.Commit, bi.GoVersion, bi.Platform)
	return exitOK
}

// clock is the wall clock of the CLI's records (a bundle's created_at, the
// observational timestamps of ledger and audit lines). SOURCE_DATE_EPOCH
// (seconds since 1970, the reproducible-builds convention) pins it, so that
// a scripted run, or two binaries compared byte for byte, record the same
// instants; a value that is not an integer is ignored.
func clock() func() time.Time {
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		if sec, err := strconv.ParseInt(s, 10, 64); err == nil {
			t := time.Unix(sec, 0).UTC()
			return func() time.Time { return t }
		}
	}
	return time.Now
}

// trackWriter remembers whether anything was written through it.
type trackWriter struct {
	w     io.Writer
	wrote bool
}

// rootDir resolves a --root flag to an absolute directory; the error
// names the flag and says what is wrong.
func rootDir(root string) (string, error) {
	dir, err := filepath.Abs(root)
	if err == nil {
		var info os.FileInfo
		if info, err = os.Stat(dir); err == nil && !info.IsDir() {
			err = errors.New("not a directory")
		}
	}
	if err != nil {
		return "", fmt.Errorf("--root %s: %w", root, err)
	}
	return dir, nil
}

package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/workspace"
)

// indexOpts are the index flags shared by serve and index.
type indexOpts struct {
	cacheDir    *string
	maxFileSize *int64
}

func indexFlags(fs *flag.FlagSet) indexOpts {
	def := os.Getenv("CTXD_CACHE_DIR")
	return indexOpts{
		cacheDir: fs.String("cache-dir", def, "directory where the index persists between runs, so that unchanged files are not parsed again; "+
			"empty means "+userCacheDir()+", \"off\" disables the cache (default $CTXD_CACHE_DIR, else empty)"),
		maxFileSize: positiveInt64(fs, "max-file-size", index.DefaultMaxFileSize, "files larger than this many `BYTES` (a positive number) are skipped as too_large"),
	}
}

// positiveInt64 defines an int64 flag that must be positive: a size cap of
// 0 or less would skip every file (or mean no cap, depending on where it
// is read), which no one asks for on purpose, so it is a usage error.
func positiveInt64(fs *flag.FlagSet, name string, value int64, usage string) *int64 {
	p := &value
	fs.Func(name, usage+fmt.Sprintf(" (default %d)", value), func(s string) error {
		n, err := strconv.ParseInt(s, 0, 64)
		switch {
		case err != nil:
			return errors.New("not a number of bytes")
		case n <= 0:
			return fmt.Errorf("must be a positive number of bytes, got %d", n)
		}
		*p = n
		return nil
	})
	return p
}

// userCacheDir is the directory an empty --cache-dir means (the index's
// own default), for the help: people should know where the persisted index
// is, and what to delete.
func userCacheDir() string {
	base, err := os.UserCacheDir()
	if err != nil {
		return "the user cache directory"
	}
	return "the user cache directory (" + filepath.Join(base, "ctxd") + ")"
}

func (o indexOpts) options() index.Options {
	return index.Options{CacheDir: *o.cacheDir, MaxFileSize: *o.maxFileSize}
}

// runIndex indexes one folder the way the server does and prints the
// status ctxd.indexStatus reports.
func runIndex(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("index", "index --root DIR [--json] [--skipped] [--cache-dir DIR|off] [--max-file-size BYTES] [--log-level L]", stderr, stdout)
	root := fs.String("root", "", "workspace folder to index (required)")
	asJSON := fs.Bool("json", false, "print the status as JSON")
	withSkipped := fs.Bool("skipped", false, "list every skipped path with its reason")
	level := fs.String("log-level", "warn", "log level: debug, info, warn or error")
	idx := indexFlags(fs)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if *root == "" {
		fmt.Fprintln(stderr, "ctxd index: --root is required")
		return exitUsage
	}
	dir, err := rootDir(*root)
	if err != nil {
		fmt.Fprintf(stderr, "ctxd index: %v\n", err)
		return exitUsage
	}
	if err := checkCacheDir(fs, idx, dir); err != nil {
		fmt.Fprintf(stderr, "ctxd index: %v\n", err)
		return exitUsage
	}
	// Logs and errors go around the progress line, shown on a terminal
	// while indexing takes more than a second.
	progress := newProgressLine(stderr, isTerminal(stderr))
	defer progress.Clear()
	stderr = progress.Writer()
	logger, closeLog, err := newLogger(*level, "", stderr)
	if err != nil {
		fmt.Fprintf(stderr, "ctxd index: %v\n", err)
		return exitUsage
	}
	defer closeLog()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	opts := idx.options()
	// It parses the whole tree at once: the listing's texts serve the
	// parse (index.Options.HoldTexts).
	opts.HoldTexts = true
	opts.Logger = logger
	opts.OnProgress = progress.indexProgress(filepath.Base(dir))
	x := workspace.NewIndex(opts)
	x.SetRoots([]index.Root{{URI: index.PathToURI(dir), Name: filepath.Base(dir), Dir: dir}})
	_, err = x.Wait(ctx)
	// The index reports the end of a scan after publishing it: the line
	// must be gone before the status is printed.
	progress.Clear()
	if err != nil {
		fmt.Fprintf(stderr, "ctxd index: %v\n", err)
		return exitInternal
	}
	st := x.Status(*withSkipped)
	if err := x.Close(); err != nil {
		logger.Warn("saving the index cache failed", "err", err)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(st); err != nil {
			return exitInternal
		}
	} else {
		printStatus(stdout, st)
	}
	for _, r := range st.Roots {
		if r.State == index.StateFailed {
			return exitInternal
		}
	}
	return exitOK
}

// printStatus writes the human form of an index status.
func printStatus(w io.Writer, st index.Status) {
	fmt.Fprintf(w, "state: %s  snapshot: %d  fingerprint: %s\n", st.State, st.SnapshotVersion, st.Fingerprint)
	for _, r := range st.Roots {
		fmt.Fprintf(w, "root %s (%s)\n", r.Name, r.State)
		if r.Error != "" {
			fmt.Fprintf(w, "  error: %s\n", r.Error)
		}
		fmt.Fprintf(w, "  files: %d (%d bytes), symbols: %d, parse errors: %d\n", r.Files, r.Bytes, r.Symbols, r.ParseErrors)
		fmt.Fprintf(w, "  by language: %s\n", counts(r.FilesByLanguage))
		fmt.Fprintf(w, "  skipped: %d (%s)\n", r.Skipped, counts(r.SkippedByReason))
		for _, s := range r.SkippedFiles {
			fmt.Fprintf(w, "    %-40s %-15s %s\n", s.Path, s.Reason, s.Detail)
		}
	}
}

// counts renders a count map sorted by key: "go=12 text=3".
func counts(m map[string]int) string {
	keys := slices.Sorted(maps.Keys(m))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%d", k, m[k])
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " ")
}

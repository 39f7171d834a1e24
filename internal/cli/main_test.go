package cli

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/index/indextest"
)

// cliCase is one invocation of the CLI and what it must print
// (substrings; "" matches anything).
type cliCase struct {
	name       string
	args       []string
	wantCode   int
	wantStdout string
	wantStderr string
}

// runCLICases runs each case through runCLI. A usage error (exit 2) must
// print nothing on stdout, which programs read (--format json, --json).
func runCLICases(t *testing.T, tests []cliCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.args...)
			if code != tt.wantCode {
				t.Errorf("exit code = %d, want %d (stderr %q)", code, tt.wantCode, stderr)
			}
			if !strings.Contains(stdout, tt.wantStdout) {
				t.Errorf("stdout %q does not contain %q", stdout, tt.wantStdout)
			}
			if !strings.Contains(stderr, tt.wantStderr) {
				t.Errorf("stderr %q does not contain %q", stderr, tt.wantStderr)
			}
			if tt.wantCode == exitUsage && stdout != "" {
				t.Errorf("a usage error wrote to stdout: %q", stdout)
			}
		})
	}
}

func TestCLI(t *testing.T) {
	tests := []cliCase{
		{name: "help", args: []string{"--help"}, wantStdout: "Commands:"},
		{name: "help command", args: []string{"help"}, wantStdout: "serve"},
		{name: "help serve", args: []string{"help", "serve"}, wantStdout: "-log-level"},
		{name: "serve help", args: []string{"serve", "--help"}, wantStdout: "-stdio"},
		{name: "version help", args: []string{"version", "--help"}, wantStdout: "-json"},
		{name: "version", args: []string{"version"}, wantStdout: runtime.Version()},
		{name: "--version", args: []string{"--version"}, wantStdout: "ctxd "},
		{name: "unknown command", args: []string{"frobnicate"}, wantCode: 2, wantStderr: `unknown command "frobnicate"`},
		{name: "unknown flag", args: []string{"serve", "--nope"}, wantCode: 2, wantStderr: "-nope"},
		{name: "bad log level", args: []string{"serve", "--log-level", "loud"}, wantCode: 2, wantStderr: "--log-level"},
		{name: "stray argument", args: []string{"version", "extra"}, wantCode: 2, wantStderr: `unexpected argument "extra"`},
		{name: "index help", args: []string{"index", "--help"}, wantStdout: "-root"},
		{name: "index without root", args: []string{"index"}, wantCode: 2, wantStderr: "--root is required"},
		{name: "index missing root", args: []string{"index", "--root", "testdata/nope"}, wantCode: 2, wantStderr: "no such file"},
		{name: "index file root", args: []string{"index", "--root", "cli.go"}, wantCode: 2, wantStderr: "not a directory"},
		{name: "index example", args: []string{"index", "--root", "../../testdata/example", "--cache-dir", "off", "--skipped"}, wantStdout: ".env"},
	}
	runCLICases(t, tests)
}

func TestVersionJSON(t *testing.T) {
	var stdout bytes.Buffer
	if code := run([]string{"version", "--json"}, nil, &stdout, &bytes.Buffer{}); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	var bi buildInfo
	if err := json.Unmarshal(stdout.Bytes(), &bi); err != nil {
		t.Fatal(err)
	}
	if bi.GoVersion != runtime.Version() || bi.Version == "" || bi.Commit == "" {
		t.Errorf("version --json = %+v", bi)
	}
}

// TestServeEOF: serve over an input that ends at once exits cleanly and
// writes nothing to stdout.
func TestServeEOF(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"serve", "--stdio"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Errorf("exit code = %d, want 0; stderr %s", code, stderr.String())
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout = %q, want nothing", stdout.String())
	}
}

func TestIndexJSON(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"index", "--root", "../../testdata/example", "--json", "--cache-dir", "off"}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit code %d: %s", code, stderr.String())
	}
	var st struct {
		State string `json:"state"`
		Roots []struct {
			Files           int            `json:"files"`
			Symbols         int            `json:"symbols"`
			FilesByLanguage map[string]int `json:"files_by_language"`
			SkippedByReason map[string]int `json:"skipped_by_reason"`
		} `json:"roots"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &st); err != nil {
		t.Fatal(err)
	}
	if st.State != "ready" || len(st.Roots) != 1 {
		t.Fatalf("status = %s", stdout.String())
	}
	r := st.Roots[0]
	if r.FilesByLanguage["go"] == 0 || r.FilesByLanguage["typescript"] != 1 || r.Symbols == 0 || r.SkippedByReason["deny_rule"] == 0 {
		t.Errorf("status = %s", stdout.String())
	}
	if strings.Contains(stdout.String(), "postgres://") {
		t.Error("index status leaks the content of .env")
	}
}

// TestProgressNotOnPipes: with stderr not a terminal (here a buffer, as a
// pipe or a CI log), index and build print no progress line.
func TestProgressNotOnPipes(t *testing.T) {
	dir := indextest.WriteTree(t, buildWorkspace)
	for _, args := range [][]string{
		{"index", "--root", dir, "--cache-dir", "off"},
		{"build", "--root", dir, "--cache-dir", "off", "--purpose", "plan", "--target", "cart/cart.go"},
	} {
		code, _, stderr := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("ctxd %s: exit code %d: %s", strings.Join(args, " "), code, stderr)
		}
		if strings.Contains(stderr, "\r") || strings.Contains(stderr, "indexing") {
			t.Errorf("ctxd %s: stderr has a progress line: %q", args[0], stderr)
		}
	}
}

// TestDefaultCacheDir: without --cache-dir and $CTXD_CACHE_DIR, index and
// build persist the index in the user cache directory, so that the next
// run reads it back instead of parsing every file again.
func TestDefaultCacheDir(t *testing.T) {
	home := t.TempDir()
	t.Setenv("CTXD_CACHE_DIR", "")
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, "cache")) // Linux, BSDs
	t.Setenv("HOME", home)                                   // macOS: ~/Library/Caches
	t.Setenv("LocalAppData", filepath.Join(home, "local"))   // Windows
	base, err := os.UserCacheDir()
	if err != nil {
		t.Skipf("no user cache directory: %v", err)
	}
	cache := filepath.Join(base, "ctxd")
	dir := indextest.WriteTree(t, buildWorkspace)
	for _, args := range [][]string{
		{"index", "--root", dir},
		{"build", "--root", dir, "--purpose", "plan", "--target", "cart/cart.go"},
	} {
		if err := os.RemoveAll(cache); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("ctxd %s: exit code %d: %s", strings.Join(args, " "), code, stderr)
		}
		var files []string
		filepath.WalkDir(cache, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				files = append(files, p)
			}
			return nil
		})
		if len(files) == 0 {
			t.Errorf("ctxd %s wrote no index cache under %s", args[0], cache)
		}
	}
}

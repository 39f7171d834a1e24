// Package testenv is what ctxd's test packages share about their
// environment: [Run] gives a package's tests (and the binaries they start)
// a user configuration and state directory of their own, [ExampleCopy] a
// private copy of the example workspace, and [Buffer] a byte buffer that
// several goroutines may write (a child's stderr, a server's logs).
//
// It is imported by tests only; nothing in the binary depends on it.
package testenv

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// Run runs m with XDG_CONFIG_HOME and XDG_STATE_HOME pointing at a fresh
// directory, removed afterwards, and returns the exit code for os.Exit.
// The user's own secret rules must not change a test's outcome, and a
// build in a workspace that did not opt in records under the state
// directory: never the user's. Use it as
//
//	func TestMain(m *testing.M) { os.Exit(testenv.Run(m)) }
func Run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "ctxd-test-home-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	os.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	os.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	return m.Run()
}

// ExampleCopy copies the repository's testdata/example into a temporary
// directory, without the state a build recorded there (its committed
// .ctxd/config.json stays), and returns the copy's path with links
// resolved, so that it compares equal to the index's paths. Tests build
// in the copy: they never write into testdata.
func ExampleCopy(t testing.TB) string {
	t.Helper()
	_, self, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("testenv: cannot locate the repository")
	}
	src := filepath.Join(filepath.Dir(self), "..", "..", "testdata", "example")
	dst := filepath.Join(t.TempDir(), "example")
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	for _, generated := range []string{"artifacts", "ledger", "audit.jsonl", "audit.jsonl.lock", "ledger.sqlite"} {
		if err := os.RemoveAll(filepath.Join(dst, ".ctxd", generated)); err != nil {
			t.Fatal(err)
		}
	}
	dir, err := filepath.EvalSymlinks(dst)
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// Buffer is a bytes.Buffer that goroutines may share: a child process's
// stderr written by the exec package's copier, a server's log sink.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String returns what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

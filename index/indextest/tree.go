// Package indextest holds helpers for tests of the index and of the code
// built on it. Its main function is [WriteTree].
package indextest

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/tools/txtar"
)

// WriteTree writes the files of a txtar archive under a new temporary
// directory and returns the directory with symbolic links resolved, so
// that it compares equal to the paths the index reports.
func WriteTree(tb testing.TB, archive string) string {
	tb.Helper()
	dir, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	for _, f := range txtar.Parse([]byte(archive)).Files {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

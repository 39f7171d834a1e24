package indextest

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/tools/txtar"
)

// WriteTree writes the files of a txtar archive under a new temporary
// directory (see [TempDir]) and returns the directory.
func WriteTree(tb testing.TB, archive string) string {
	tb.Helper()
	dir := TempDir(tb)
	WriteFiles(tb, dir, txtar.Parse([]byte(archive)).Files)
	return dir
}

// TempDir returns a new temporary directory, removed when the test ends,
// with symbolic links resolved, so that it compares equal to the paths the
// index reports (macOS's /var is a link to /private/var).
func TempDir(tb testing.TB) string {
	tb.Helper()
	dir, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	return dir
}

// WriteFiles writes files (slash-separated names relative to dir) under
// dir, creating directories as needed; a later file of the same name
// overwrites an earlier one.
func WriteFiles(tb testing.TB, dir string, files []txtar.File) {
	tb.Helper()
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

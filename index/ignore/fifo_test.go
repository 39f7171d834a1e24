//go:build unix

package ignore_test

import (
	"path/filepath"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/index/ignore"
)

// TestCheckerFIFO: a FIFO named .gitignore must not hang the Checker (a
// plain open would block until a writer appears); it counts as unreadable.
func TestCheckerFIFO(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"sub/": ""})
	if err := syscall.Mkfifo(filepath.Join(root, "sub", ".gitignore"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	c := ignore.NewChecker(root)
	want := result{ignored("sub/.gitignore:0: unreadable (not a regular file (p---------)), everything below is excluded"), ignore.KindGitignore}
	if diff := cmp.Diff(want, check(c, "sub/a.go", false)); diff != "" {
		t.Errorf("Check mismatch (-want +got):\n%s", diff)
	}
}

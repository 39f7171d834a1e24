//go:build unix

package policy

import (
	"syscall"
	"testing"
)

// mkfifo makes a named pipe at p: opening it for reading would block
// until a writer comes, which Load must not do.
func mkfifo(t *testing.T, p string) {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
}

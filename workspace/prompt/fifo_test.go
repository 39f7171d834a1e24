//go:build unix

package prompt

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLoadDirFIFO: a FIFO named like a template must not hang the load
// (a plain open waits for a writer); it is refused as not a regular file.
func TestLoadDirFIFO(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, ".ctxd", "templates")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "a.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := LoadDir(root)
		done <- err
	}()
	var err error
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		// A deadlock guard, not a timing assertion: release the open.
		if w, werr := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); werr == nil {
			w.Close()
		}
		<-done
		t.Fatal("LoadDir blocked on a FIFO")
	}
	var pe *Error
	if !errors.As(err, &pe) || !strings.Contains(pe.Message, "not a regular file") {
		t.Errorf("LoadDir with a FIFO template: %v, want an error saying it is not a regular file", err)
	}
}

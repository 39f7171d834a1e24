//go:build unix

package workspace_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/workspace"
)

// TestReadFileFIFO: a file that became a FIFO after indexing, without a
// watched-file event, must not stall read_file, whether the index holds
// it (its read) or skipped it as too large (the read past the index's
// cap): both are refused as not regular files.
func TestReadFileFIFO(t *testing.T) {
	dir := agentEnvDir(t, agentDenyConfig)
	s := agentService(t, dir)
	ctx := context.Background()
	if _, err := s.ReadFile(ctx, agentCall, &workspace.ReadFileArgs{Path: "docs/readme.md"}); err != nil {
		t.Fatalf("ReadFile before the swap: %v", err)
	}
	for _, tc := range []struct {
		path string
		args workspace.ReadFileArgs
	}{
		{"docs/readme.md", workspace.ReadFileArgs{Path: "docs/readme.md"}},
		{"big.txt", workspace.ReadFileArgs{Path: "big.txt", StartLine: 1, EndLine: 2}},
	} {
		p := filepath.Join(dir, filepath.FromSlash(tc.path))
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := s.ReadFile(ctx, agentCall, &tc.args)
			done <- err
		}()
		var err error
		select {
		case err = <-done:
		case <-time.After(time.Minute):
			// A deadlock guard, not a timing assertion: release the
			// blocked open (a writer comes and goes) and fail.
			if w, werr := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); werr == nil {
				w.Close()
			}
			<-done
			t.Fatalf("ReadFile(%s) blocked on a FIFO", tc.path)
		}
		if _, code, msg := failure(t, err); code != contextbuilder.RefuseUnsupportedTarget || !strings.Contains(msg, "not a regular file") {
			t.Errorf("ReadFile(%s), now a FIFO: %s (%s), want %s naming it not a regular file", tc.path, code, msg, contextbuilder.RefuseUnsupportedTarget)
		}
	}
}

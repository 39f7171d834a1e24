package server

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/index/indextest"
	"github.com/ctxd/ctxd/workspace"
)

// TestEOFCancelsIndexing: when the client's stream ends after initialize
// while the workspace is still being scanned, Run returns without waiting
// for the scan, and the scan's context is cancelled: released afterwards,
// it stops without listing the folder. The scan is held by the index's
// hard-link policy hook (a hard-linked file makes the scan ask it), so the
// test needs no timing.
func TestEOFCancelsIndexing(t *testing.T) {
	dir := indextest.WriteTree(t, "-- a.go --\npackage a\n")
	if err := os.Link(filepath.Join(dir, "a.go"), filepath.Join(dir, "b.go")); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	held, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	hold := func(string) bool {
		once.Do(func() { close(held) })
		<-release
		return false
	}
	h := newHarness(t, func(s *Server) {
		s.Session().UseService(workspace.ServiceOptions{Index: index.Options{CacheDir: "off", HardLinks: hold}})
	})
	released := false
	defer func() {
		if !released {
			close(release)
		}
	}()
	m := h.call(1, "initialize", map[string]any{
		"processId":        nil,
		"workspaceFolders": []map[string]any{{"uri": index.PathToURI(dir), "name": "ws"}},
		"capabilities":     map[string]any{},
	})
	if m.Error != nil {
		t.Fatalf("initialize: %v", m.Error)
	}
	h.notify("initialized", map[string]any{})
	select {
	case <-held:
	case <-h.ctx.Done():
		t.Fatal("the scan never asked the hard-link policy")
	}

	h.cli.Close() // end of input
	if code := h.exitCode(); code != 0 {
		t.Errorf("exit code after the end of input = %d, want 0", code)
	}

	close(release)
	released = true
	closed := make(chan error, 1)
	go func() { closed <- h.srv.Session().Index.Close() }() // returns once the scan ended
	select {
	case <-closed:
	case <-h.ctx.Done():
		t.Fatal("the scan did not end once released")
	}
	st := h.srv.Session().Index.Snapshot().Status(false)
	if len(st.Roots) != 1 || st.Roots[0].State != index.StateIndexing || st.Roots[0].Files != 0 {
		t.Errorf("after the end of input the scan went on: %+v", st.Roots)
	}
}

package server

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxd/ctxd/tools/corpus"
)

// BenchmarkEditRoundTrip measures what an editor waits for on a keystroke:
// one incremental didChange on a large Go file of GOROOT/src followed by a
// request that observes it, through framing, dispatch and the overlay store.
func BenchmarkEditRoundTrip(b *testing.B) {
	src, err := corpus.GoSrc()
	if err != nil {
		b.Skipf("no Go source tree: %v", err)
	}
	text, err := os.ReadFile(filepath.Join(src, "net", "http", "server.go"))
	if err != nil {
		b.Skipf("no Go source tree: %v", err)
	}
	h := newHarness(b)
	h.initialize(nil)
	open(h, docURI, 1, string(text))
	version := 1
	for b.Loop() {
		version++
		line := (version * 7919) % 3000
		change(h, docURI, version, map[string]any{"range": rng(line, 0, line, 0), "text": "x"})
		if m, err := h.c.Call(h.ctx, version, "workspace/executeCommand", map[string]any{"command": "ctxd.indexStatus"}); err != nil || m.Error != nil {
			b.Fatal(err, m)
		}
	}
	// Reported after the loop: b.Loop resets user metrics when it starts.
	b.ReportMetric(float64(len(text)), "doc-bytes")
}

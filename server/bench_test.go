package server

import (
	"testing"

	"github.com/ctxd/ctxd/tools/corpus"
)

// BenchmarkEditRoundTrip measures what an editor waits for on a keystroke:
// one incremental didChange on a large Go file of GOROOT/src followed by a
// request that observes it, through framing, dispatch and the overlay store.
// The request is ctxd.indexStatus, so each round trip also hashes the
// document once (sha256 of 131 KB).
func BenchmarkEditRoundTrip(b *testing.B) {
	text := corpus.ReadFile(b, "net/http/server.go")
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

package workspace_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/workspace"
	"github.com/ctxd/ctxd/workspace/ledger"
)

// BenchmarkRecording measures what recording adds to a build on a small
// workspace (the builder's own cost is BenchmarkGOROOT's): the pure build,
// a recorded build (context artifact and audit event, each fsynced), a
// build in a thread (plus INTENT and DECISION under the ledger lock), and
// replay of the resulting ledger in both modes.
func BenchmarkRecording(b *testing.B) {
	e := newEnv(b, nil)
	ctx := context.Background()
	timed := func(name string, f func(i int) error) {
		b.Run(name, func(b *testing.B) {
			times := make([]time.Duration, 0, b.N)
			i := 0
			for b.Loop() {
				start := time.Now()
				if err := f(i); err != nil {
					b.Fatal(err)
				}
				times = append(times, time.Since(start))
				i++
			}
			slices.Sort(times)
			pct := func(p float64) float64 {
				return float64(times[int(float64(len(times)-1)*p)].Microseconds()) / 1000
			}
			b.ReportMetric(pct(0.50), "p50-ms")
			b.ReportMetric(pct(0.95), "p95-ms")
		})
	}
	plain := request("Make Add saturate.", "", "", "")
	timed("pure-build", func(int) error {
		_, err := contextbuilder.Build(ctx, e.x.Snapshot(), plain, e.opts)
		return err
	})
	timed("recorded-build", func(int) error {
		_, err := e.w.Build(ctx, e.x.Snapshot(), plain, e.opts)
		return err
	})
	var turns int
	timed("thread-build", func(i int) error {
		refs := []string{}
		if turns > 0 {
			refs = append(refs, fmt.Sprintf("intent:t%d", turns-1))
		}
		_, err := e.w.Build(ctx, e.x.Snapshot(), request("Make Add saturate.", "bench", fmt.Sprint("t", turns), "", refs...), e.opts)
		turns++
		return err
	})
	for _, mode := range []ledger.Mode{ledger.ModeStream, ledger.ModeLedger} {
		var events int
		timed("verify-"+string(mode), func(int) error {
			r, err := workspace.Verify(e.dir, mode)
			if err == nil && !r.OK {
				err = fmt.Errorf("verify: %d mismatches", r.Counts.Mismatches)
			}
			if r != nil {
				events = r.Counts.LedgerEvents
			}
			return err
		})
		b.Logf("verify %s: %d ledger events", mode, events)
	}
}

package workspace_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/tools/corpus"
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
	plain := request("Make Add saturate.", "", "", "")
	latencies(b, "pure-build", func() error {
		_, err := contextbuilder.Build(ctx, e.x.Snapshot(), plain, e.opts)
		return err
	})
	latencies(b, "recorded-build", func() error {
		_, err := e.w.Build(ctx, e.x.Snapshot(), plain, e.opts)
		return err
	})
	var turns int
	latencies(b, "thread-build", func() error {
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
		latencies(b, "verify-"+string(mode), func() error {
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

// BenchmarkServiceGOROOT is the warm end-to-end ctxd.buildContext as a
// server runs it on $(go env GOROOT)/src: Service.BuildContext (index
// wait, folder, governed build, artifact and audit event written and
// fsynced) followed by the encoding of the reply, for the selection of
// contextbuilder's BenchmarkGOROOT at budgets of 8k, 32k and 128k tokens
// and for runtime/proc.go whole at 128k (build-proc, a reply of about
// 0.7 MB); and ctxd.budget (Service.Budget and its reply) for the
// selection. Each build gets a clock one second later than the previous
// one, so that every build records a new artifact, as builds a user makes
// do. Besides latency it reports the process's CPU time per call, the
// steadier figure on a machine shared with other work.
//
//	go test -run '^$' -bench ServiceGOROOT -benchtime 300x ./workspace/
func BenchmarkServiceGOROOT(b *testing.B) {
	s, dir := benchService(b, "")
	defer s.Close()
	ctx := context.Background()
	start := time.Now()
	if _, err := s.OpenFolder(ctx, dir, "src"); err != nil {
		b.Fatal(err)
	}
	// OpenFolder returns once the files are listed; warm builds are
	// measured on the parsed folder, not on demand-driven ones.
	if _, err := s.Index().Wait(ctx); err != nil {
		b.Fatal(err)
	}
	b.Logf("indexed in %v", time.Since(start))

	target := filepath.Join(dir, "net", "http", "server.go")
	text, err := os.ReadFile(target)
	if err != nil {
		b.Fatal(err)
	}
	i := bytes.Index(text, []byte("func (c *conn) serve(ctx context.Context) {"))
	if i < 0 {
		b.Fatalf("(*conn).serve not found in %s", target)
	}
	line := bytes.Count(text[:i], []byte("\n"))
	// The selection of contextbuilder's BenchmarkGOROOT: lines 10 to 12 of
	// the function, as byte offsets (the LSP front end converts them).
	lineStart := func(n int) int {
		off := 0
		for range n {
			off += bytes.IndexByte(text[off:], '\n') + 1
		}
		return off
	}
	sel := contextbuilder.Range{Start: contextbuilder.Position{Line: line + 10, Character: 2}, End: contextbuilder.Position{Line: line + 12}}
	span := contextbuilder.Span{Start: lineStart(line+10) + 2, End: lineStart(line + 12)}
	uri := index.PathToURI(target)
	request := func(budget int) *contextbuilder.Request {
		return &contextbuilder.Request{
			Purpose:    contextbuilder.PurposeDiff,
			ActiveFile: uri,
			Selection:  &contextbuilder.SelectionRange{URI: uri, Range: sel, Span: &span},
			Model:      &contextbuilder.ModelRequest{MaxInputTokens: &budget},
		}
	}

	// The selection's build, and the largest output of the targets
	// docs/contract.md measures: runtime/proc.go whole, 677 blocks at the
	// default budget.
	proc := func(budget int) *contextbuilder.Request {
		return &contextbuilder.Request{
			Purpose:  contextbuilder.PurposeDiff,
			PlanStep: &contextbuilder.PlanStep{ID: "s", TargetFiles: []string{"runtime/proc.go"}},
			Model:    &contextbuilder.ModelRequest{MaxInputTokens: &budget},
		}
	}
	type buildCase struct {
		name    string
		budget  int
		request func(int) *contextbuilder.Request
	}
	var cases []buildCase
	for _, budget := range []int{8000, 32000, 128000} {
		cases = append(cases, buildCase{fmt.Sprintf("build/%dk", budget/1000), budget, request})
	}
	cases = append(cases, buildCase{"build-proc/128k", 128000, proc})
	for _, c := range cases {
		var size int
		latencies(b, c.name, func() error {
			res, err := s.BuildContext(ctx, workspace.Caller{}, c.request(c.budget))
			if err != nil {
				return err
			}
			// The reply as handlers.ExecuteCommand gives it to the
			// JSON-RPC layer, which marshals it once.
			data, err := json.Marshal(json.RawMessage(res.AppendCanonical(nil)))
			size = len(data)
			return err
		})
		b.Logf("%s: reply %d bytes", c.name, size)
	}
	for _, budget := range []int{8000, 32000, 128000} {
		latencies(b, fmt.Sprintf("budget/%dk", budget/1000), func() error {
			res, err := s.Budget(ctx, workspace.Caller{}, request(budget))
			if err != nil {
				return err
			}
			_, err = json.Marshal(res)
			return err
		})
	}
}

// latencies runs f as a sub-benchmark after one warm-up call and reports the
// 50th and 95th percentiles of its latency in milliseconds.
func latencies(b *testing.B, name string, f func() error) {
	b.Run(name, func(b *testing.B) {
		if err := f(); err != nil { // warm: caches, the first artifact directory
			b.Fatal(err)
		}
		times := make([]time.Duration, 0, b.N)
		cpu0 := cpuTime()
		for b.Loop() {
			start := time.Now()
			if err := f(); err != nil {
				b.Fatal(err)
			}
			times = append(times, time.Since(start))
		}
		cpu := cpuTime() - cpu0
		slices.Sort(times)
		pct := func(p float64) float64 {
			return float64(times[int(float64(len(times)-1)*p)].Microseconds()) / 1000
		}
		b.ReportMetric(pct(0.50), "p50-ms")
		b.ReportMetric(pct(0.95), "p95-ms")
		b.ReportMetric(float64(cpu.Microseconds())/1000/float64(len(times)), "cpu-ms/op")
	})
}

// cpuTime is the CPU time the process has used (user and system, every
// thread): what a call costs on a machine shared with other work, where
// latency also measures the neighbours.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchService returns a service for the benchmarks and the folder it
// builds in: a copy of GOROOT/src in a temporary directory (the benchmark
// is skipped without one), or root when it is not "" (a copy the caller
// made), so that the service records into its .ctxd and never into the
// toolchain's tree; and a clock that moves a second a call, so that every
// build records a new artifact.
func benchService(b *testing.B, root string) (*workspace.Service, string) {
	b.Helper()
	dir := root
	if dir == "" {
		src, err := corpus.GoSrc()
		if err != nil {
			b.Skipf("GOROOT corpus unavailable: %v", err)
		}
		if dir, err = filepath.EvalSymlinks(b.TempDir()); err != nil {
			b.Fatal(err)
		}
		if err := corpus.CopyTree(src, dir); err != nil {
			b.Fatalf("copying %s: %v", src, err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, ".ctxd"), 0o700); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".ctxd", "config.json"), []byte(`{"schema_version": "1"}`), 0o600); err != nil {
		b.Fatal(err)
	}
	var tick atomic.Int64
	now := func() time.Time { return fixedNow().Add(time.Duration(tick.Add(1)) * time.Second) }
	return workspace.NewService(workspace.ServiceOptions{Now: now, Index: index.Options{CacheDir: "off"}, Logger: slog.New(slog.DiscardHandler)}), dir
}

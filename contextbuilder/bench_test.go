package contextbuilder_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/contextbuilder/tokens"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/tools/corpus"
)

// The GOROOT benchmarks index $(go env GOROOT)/src once per process (a
// warm index, as in a running server) and then time builds of
// net/http/server.go with a selection inside (*conn).serve.
var goroot struct {
	once sync.Once
	x    *index.Index
	uri  string
	sel  contextbuilder.Range
	span contextbuilder.Span
	err  error
	// graph is how long the first build's relation graph took: paid once
	// per snapshot lineage, then updated incrementally.
	graph time.Duration
}

func gorootIndex(b *testing.B) {
	goroot.once.Do(func() {
		dir, err := corpus.GoSrc()
		if err != nil {
			goroot.err = err
			return
		}
		target := filepath.Join(dir, "net", "http", "server.go")
		text, err := os.ReadFile(target)
		if err != nil {
			goroot.err = err
			return
		}
		i := bytes.Index(text, []byte("func (c *conn) serve(ctx context.Context) {"))
		if i < 0 {
			goroot.err = fmt.Errorf("(*conn).serve not found in %s", target)
			return
		}
		line := bytes.Count(text[:i], []byte("\n"))
		goroot.sel = contextbuilder.Range{Start: contextbuilder.Position{Line: line + 10, Character: 2}, End: contextbuilder.Position{Line: line + 12, Character: 0}}
		goroot.span = contextbuilder.Span{Start: byteOffset(text, goroot.sel.Start, ""), End: byteOffset(text, goroot.sel.End, "")}
		goroot.x = index.New(index.Options{CacheDir: "off"})
		goroot.x.SetRoots([]index.Root{{URI: index.PathToURI(dir), Name: "src", Dir: dir}})
		var snap *index.Snapshot
		snap, goroot.err = goroot.x.Wait(context.Background())
		goroot.uri = index.PathToURI(target)
		if goroot.err == nil {
			start := time.Now()
			snap.Roots()[0].Graph()
			goroot.graph = time.Since(start)
		}
	})
	if goroot.err != nil {
		b.Skipf("GOROOT corpus unavailable: %v", goroot.err)
	}
}

// BenchmarkGOROOT reports p50 and p95 latency of ctxd.buildContext
// (Build) and ctxd.budget (Budget) at budgets of 8k, 32k and 128k tokens,
// with a warm index and a warm token cache.
func BenchmarkGOROOT(b *testing.B) {
	gorootIndex(b)
	b.Run("graph", func(b *testing.B) {
		// Reported, not timed here: the graph is built once, before the
		// first build of a snapshot lineage, and measured then.
		for b.Loop() {
		}
		b.ReportMetric(float64(goroot.graph.Microseconds())/1000, "once-ms")
	})
	cache := tokens.NewCache(0)
	for _, budget := range []int{8000, 32000, 128000} {
		req := gorootRequest(budget)
		opts := contextbuilder.Options{Tokens: cache, Scans: contextbuilder.NewScanCache(0)}
		snap := goroot.x.Snapshot()
		run := func(name string, f func() error) {
			b.Run(fmt.Sprintf("%s/%dk", name, budget/1000), func(b *testing.B) {
				if err := f(); err != nil { // warm: caches
					b.Fatal(err)
				}
				times := make([]time.Duration, 0, b.N)
				for b.Loop() {
					start := time.Now()
					if err := f(); err != nil {
						b.Fatal(err)
					}
					times = append(times, time.Since(start))
				}
				slices.Sort(times)
				pct := func(p float64) float64 {
					return float64(times[int(float64(len(times)-1)*p)].Microseconds()) / 1000
				}
				b.ReportMetric(pct(0.50), "p50-ms")
				b.ReportMetric(pct(0.95), "p95-ms")
			})
		}
		var last *contextbuilder.Result
		run("build", func() error {
			r, err := contextbuilder.Build(context.Background(), snap, req, opts)
			last = r
			return err
		})
		if last != nil {
			b.Logf("budget %d: %d blocks, %d excluded, %d tokens, decision %s", budget, len(last.Bundle.Blocks), len(last.Manifest.Selection.ExcludedCandidates), last.BudgetReport.EstimatedInputTokens, last.BudgetReport.Decision)
		}
		run("budget", func() error {
			_, err := contextbuilder.Budget(context.Background(), snap, req, opts)
			return err
		})
	}
}

// gorootRequest is the benchmarks' request: a diff of the selection in
// (*conn).serve under a budget of maxInput tokens.
func gorootRequest(maxInput int) *contextbuilder.Request {
	return &contextbuilder.Request{
		Purpose:    contextbuilder.PurposeDiff,
		ActiveFile: goroot.uri,
		Selection:  &contextbuilder.SelectionRange{URI: goroot.uri, Range: goroot.sel, Span: &goroot.span},
		Model:      &contextbuilder.ModelRequest{MaxInputTokens: &maxInput},
	}
}

// benchEntry times one entry point on the GOROOT request at budgets of 8k,
// 32k and 128k tokens with warm caches, reporting ns/op and B/op: the
// figures that compare a preview with a build.
func benchEntry(b *testing.B, f func(context.Context, *index.Snapshot, *contextbuilder.Request, contextbuilder.Options) error) {
	gorootIndex(b)
	snap := goroot.x.Snapshot()
	for _, budget := range []int{8000, 32000, 128000} {
		b.Run(fmt.Sprintf("%dk", budget/1000), func(b *testing.B) {
			req := gorootRequest(budget)
			opts := contextbuilder.Options{Tokens: tokens.NewCache(0), Scans: contextbuilder.NewScanCache(0)}
			if err := f(context.Background(), snap, req, opts); err != nil { // warm: caches
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := f(context.Background(), snap, req, opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkBuild times ctxd.buildContext.
func BenchmarkBuild(b *testing.B) {
	benchEntry(b, func(ctx context.Context, snap *index.Snapshot, req *contextbuilder.Request, opts contextbuilder.Options) error {
		_, err := contextbuilder.Build(ctx, snap, req, opts)
		return err
	})
}

// BenchmarkBuildManifest times ctxd.manifest, which must stay cheaper than
// a build while giving the same fingerprints.
func BenchmarkBuildManifest(b *testing.B) {
	benchEntry(b, func(ctx context.Context, snap *index.Snapshot, req *contextbuilder.Request, opts contextbuilder.Options) error {
		_, err := contextbuilder.BuildManifest(ctx, snap, req, opts)
		return err
	})
}

// BenchmarkBudget times ctxd.budget.
func BenchmarkBudget(b *testing.B) {
	benchEntry(b, func(ctx context.Context, snap *index.Snapshot, req *contextbuilder.Request, opts contextbuilder.Options) error {
		_, err := contextbuilder.Budget(ctx, snap, req, opts)
		return err
	})
}

package index

import (
	"context"
	"maps"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/ctxd/ctxd/index/relate"
	"github.com/ctxd/ctxd/index/syntax"
	"github.com/ctxd/ctxd/index/words"
)

// gate pauses the background parse while builds run: a build needs the
// cores for itself, and its own parses come first.
type gate struct {
	mu      sync.Mutex
	holders int
	open    chan struct{} // closed while holders == 0
}

func newGate() *gate {
	g := &gate{open: make(chan struct{})}
	close(g.open)
	return g
}

// hold closes the gate until the returned release is called (once).
func (g *gate) hold() (release func()) {
	if g == nil {
		return func() {}
	}
	g.mu.Lock()
	if g.holders == 0 {
		g.open = make(chan struct{})
	}
	g.holders++
	g.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			g.holders--
			if g.holders == 0 {
				close(g.open)
			}
			g.mu.Unlock()
		})
	}
}

// wait returns when the gate is open or ctx ends.
func (g *gate) wait(ctx context.Context) {
	if g == nil {
		return
	}
	g.mu.Lock()
	ch := g.open
	g.mu.Unlock()
	select {
	case <-ch:
	case <-ctx.Done():
	}
}

// Demand is one build's view of a root whose files are listed but not all
// parsed yet (see [RootSnapshot.Demand]). It holds the demand set: the
// files the build has needed so far, parsed. Its [Demand.Root] answers
// like the root itself, except that the relation graph is built from the
// demand set only and records every lookup of the build's queries; a
// build runs, then calls [Demand.Grow], which parses the files that could
// answer a lookup (by path and by the word prefilter) and are missing, and
// runs again until Grow finds none missing. The last run answered every
// lookup as the whole root's graph would: its output is byte for byte the
// output of the same build once the root is parsed.
//
// A Demand is used by one goroutine. Close it: while it is open the
// index's background parse waits.
type Demand struct {
	root    *RootSnapshot
	have    map[string]bool
	checked map[relate.Need]bool
	trace   *relate.Trace
	graph   *relate.Graph
	view    *RootSnapshot
	release func()
	runs    int
	whole   bool // Grow took the rest of the root
}

// Demand returns a demand-driven view of the root for one build, or nil
// when the root needs none: its files are all parsed, or not yet listed.
// Open documents are in the demand set from the start.
func (r *RootSnapshot) Demand() *Demand {
	if r == nil || r.parsed || !r.listed || r.allParsed() {
		return nil
	}
	d := &Demand{root: r, have: map[string]bool{}, checked: map[relate.Need]bool{}, trace: relate.NewTrace(), release: r.idle.hold()}
	for rel := range r.open {
		d.have[rel] = true
	}
	d.graph = relate.BuildTraced(d.source(), d.trace)
	d.view = r.withGraph(d.graph)
	return d
}

// allParsed reports whether every file of the root has its extraction,
// though the root is not marked parsed yet: on a warm start the cache
// supplies nearly every extraction at the listing, and the background
// parse may have finished the rest. The whole root's graph then costs no
// parse, and one build on it is the demand-driven build's last run
// without the runs before it.
func (r *RootSnapshot) allParsed() bool {
	all := true
	r.files.Range(func(_ string, f *File) {
		if all && !f.Parsed() {
			all = false
		}
	})
	return all
}

// Complete reports whether every file of the root is parsed now (by the
// build's growth, the cache or the background parse before the build
// began): the build may then run once on the whole root instead.
func (d *Demand) Complete() bool { return d.whole || d.root.allParsed() }

// Root returns the root as the build's next run sees it.
func (d *Demand) Root() *RootSnapshot { return d.view }

// Files returns the size of the demand set.
func (d *Demand) Files() int { return len(d.have) }

// Runs returns how many times Grow was called.
func (d *Demand) Runs() int { return d.runs }

// Close lets the background parse go on.
func (d *Demand) Close() { d.release() }

// A demand set that would hold more than 1/wholeShare of the root's files
// (and more than minWhole) becomes the whole root: Grow parses every file
// instead, and the build's next run is on the complete index. Past that
// point growing by lookups costs more than it saves: each run resolves over
// a graph nearly as large as the whole one, each Grow scans the rest of the
// tree once per new lookup, and a file used by most of the tree (a core
// package whose importers import everything) needs several runs to reach
// its users. On a synthetic 100,000-file repository a build that grew to
// 64,000 files in 9 runs took 118 s, longer than indexing everything. The
// bundle is the same either way: a demand build converges to the build of
// the complete index.
const (
	wholeShare = 3
	minWhole   = 512
)

// maxRuns is the number of Grows after which the next one takes the whole
// root, whatever the demand set's size. Each run resolves the build's
// lookups over a graph of everything parsed so far, and growing by
// package-scoped words (index/relate, NeedDirWords) adds fewer files a run:
// a target most of a 100,000-file tree depends on took 17 runs to cross the
// third, about 7 s each, where 7 had crossed it before. The first bundle of
// net/http/server.go on GOROOT/src converges in 7.
const maxRuns = 10

// wholeAt, when positive, replaces the threshold: see [SetDemandWholeAt].
// runsAt, when positive, replaces maxRuns: see [SetDemandMaxRuns].
var wholeAt, runsAt atomic.Int64

// SetDemandMaxRuns makes every demand build take the whole root at its
// n+1th Grow, until restore is called: for tests that compare such a build
// with the builds that converge.
func SetDemandMaxRuns(n int) (restore func()) {
	old := runsAt.Swap(int64(n))
	return func() { runsAt.Store(old) }
}

// SetDemandWholeAt makes every demand set that would exceed n files become
// the whole root, whatever the root's size, until restore is called: for
// tests that compare a build that switches to the complete index midway
// with the builds that do not.
func SetDemandWholeAt(n int) (restore func()) {
	old := wholeAt.Swap(int64(n))
	return func() { wholeAt.Store(old) }
}

// Grow adds to the demand set the files that could answer the lookups of
// the last run and are not in it, parsing them on every core, and reports
// whether there were any: false means the last run is the build of the
// complete index.
func (d *Demand) Grow(ctx context.Context) (bool, error) {
	if d.whole {
		return false, nil
	}
	d.runs++
	// Only the files outside the demand set can be missing.
	rest := make([]string, 0, len(d.root.Paths())-len(d.have))
	// The files by path in a plain map: the candidates' tests look each
	// up once per lookup.
	files := make(map[string]*File, cap(rest))
	for _, p := range d.root.Paths() {
		if !d.have[p] {
			rest = append(rest, p)
			files[p], _ = d.root.files.Get(p)
		}
	}
	pf := relate.Prefilter{
		May: func(p string, k words.Key) bool {
			return files[p].words.MayContainKey(k)
		},
		Declares: func(p string, k words.Key) bool {
			return files[p].mayDeclare(k)
		},
		Imports: func(p string, h uint64) (yes, known bool) {
			f := files[p]
			if !f.goImpsOK {
				return false, false
			}
			_, yes = slices.BinarySearch(f.goImps, h)
			return yes, true
		},
	}
	missing := map[string]bool{}
	whole := max(len(d.root.Paths())/wholeShare, minWhole)
	if n := wholeAt.Load(); n > 0 {
		whole = int(n)
	}
	runs := int64(maxRuns)
	if n := runsAt.Load(); n > 0 {
		runs = n
	}
	// Past maxRuns, the first missing file takes the whole root.
	capped := int64(d.runs) > runs
	all := false
	needs := d.trace.Needs()
	d.prefetchDecls(ctx, needs, rest, pf)
	for _, n := range needs {
		if d.checked[n] {
			continue
		}
		d.checked[n] = true
		for _, p := range d.graph.CandidatesWith(n, rest, pf) {
			missing[p] = true
		}
		if len(missing) > 0 && (capped || len(d.have)+len(missing) > whole) {
			all = true
			break
		}
	}
	if len(missing) == 0 {
		return false, nil
	}
	if all {
		// The rest of the root, parsed: Complete now holds, and the
		// build's next run is on the whole root's graph, so the demand
		// graph is not brought up to it.
		if err := d.root.parse(ctx, rest); err != nil {
			return false, err
		}
		for _, p := range rest {
			d.have[p] = true
		}
		// The whole root's graph replaces the demand graph: free it
		// (and its lookups) before that one is built.
		d.whole, d.graph, d.view, d.trace, d.checked = true, nil, d.root, nil, nil
		return true, nil
	}
	add := slices.Sorted(maps.Keys(missing))
	if err := d.root.parse(ctx, add); err != nil {
		return false, err
	}
	for _, p := range add {
		d.have[p] = true
	}
	d.graph = d.graph.UpdateTraced(d.source(), add, d.trace)
	d.view = d.root.withGraph(d.graph)
	return true, nil
}

// prefetchDecls computes, on every core, the declaration filters of the
// unparsed Go files that the directory lookups among needs will test by
// them (NeedDirWords; see File.declFilter): the lookup's candidates by
// their word filter alone. Each reads its file again, which the
// candidates' tests would otherwise do one file at a time.
func (d *Demand) prefetchDecls(ctx context.Context, needs []relate.Need, rest []string, pf relate.Prefilter) {
	byWords := pf
	byWords.Declares = pf.May
	seen := map[string]bool{}
	var files []*File
	for _, n := range needs {
		if n.Kind != relate.NeedDirWords || d.checked[n] {
			continue
		}
		for _, p := range d.graph.CandidatesWith(n, rest, byWords) {
			if f, ok := d.root.files.Get(p); ok && !seen[p] && f.Language == syntax.Go && !f.Parsed() {
				seen[p] = true
				files = append(files, f)
			}
		}
	}
	parallel(ctx, len(files), runtime.GOMAXPROCS(0), func(i, _ int) { files[i].declFilter() })
}

// parse makes sure the files at paths are parsed, on every core.
func (r *RootSnapshot) parse(ctx context.Context, paths []string) error {
	parallel(ctx, len(paths), runtime.GOMAXPROCS(0), func(i, _ int) {
		if f, ok := r.files.Get(paths[i]); ok {
			f.Syntax()
		}
	})
	return ctx.Err()
}

// source is the relate.Source of the demand set: every path of the root,
// the extractions of the demand set's files only.
func (d *Demand) source() relate.Source { return &demandSource{r: d.root, have: d.have} }

type demandSource struct {
	r    *RootSnapshot
	have map[string]bool
}

func (s *demandSource) Paths() []string { return s.r.Paths() }

func (s *demandSource) Syntax(p string) *syntax.File {
	if !s.have[p] {
		return nil
	}
	return s.r.Syntax(p)
}

func (s *demandSource) Content(p string) ([]byte, bool) { return s.r.Content(p) }

func (s *demandSource) GoHeader(p string) (string, string, bool) { return s.r.GoHeader(p) }

// withGraph returns the root with g as its relation graph.
func (r *RootSnapshot) withGraph(g *relate.Graph) *RootSnapshot {
	return &RootSnapshot{
		Root: r.Root, realDir: r.realDir, state: r.state, err: r.err, links: r.links,
		files: r.files, skipped: r.skipped, open: r.open,
		graph: &lazyGraph{g: g}, listed: r.listed, parsed: r.parsed, idle: r.idle, fp: r.fp,
	}
}

// PauseParsing holds the background parse until resume is called, as a
// running build does: for tests that build on a listed, unparsed folder,
// and for callers that need the cores for a while.
func (x *Index) PauseParsing() (resume func()) { return x.idle.hold() }

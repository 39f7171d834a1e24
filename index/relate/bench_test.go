package relate

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ctxd/ctxd/index/syntax"
	"github.com/ctxd/ctxd/tools/corpus"
)

// synthGoSrc returns a workspace shaped like GOROOT/src as measured with
// go/ast (7,667 .go files in 1,063 directories, 23% tests, about 49
// declarations and 103 distinct identifiers per file, 3.6 imports per
// file, identifier use Zipf-distributed with most names used by one file
// only), a bit denser to stay on the safe side: 7,700 .go files, 40
// symbols, 130 refs and 4.5 imports per file, plus 1,500 testdata text
// files. The generator is seeded with a constant: every run sees the same
// workspace.
func synthGoSrc() *memSource {
	r := rand.New(rand.NewPCG(7700, 1))
	const nFiles, nDirs, vocab = 7700, 1063, 40000
	zipf := rand.NewZipf(r, 1.15, 4, vocab-1)
	word := func(i uint64) string { return "N" + strconv.FormatUint(i, 36) }
	common := []string{"String", "Error", "New", "Len", "Close", "Read", "Write", "Reset", "Less", "Swap"}
	name := func() string {
		if r.IntN(20) == 0 {
			return pick(r, common)
		}
		return word(zipf.Uint64())
	}
	dirs := make([]string, nDirs)
	for i := range dirs {
		var parts []string
		for range 1 + r.IntN(3) {
			parts = append(parts, "p"+strconv.Itoa(r.IntN(60)))
		}
		dirs[i] = strings.Join(parts, "/") + "/d" + strconv.Itoa(i)
	}
	src := newMemSource()
	src.content["go.mod"] = []byte("module std\n")
	src.paths = append(src.paths, "go.mod")
	kinds := []syntax.SymbolKind{syntax.Function, syntax.Method, syntax.Method, syntax.Field, syntax.Field, syntax.Struct, syntax.Interface, syntax.TypeAlias, syntax.Const, syntax.Var}
	local := 0
	for i := range nFiles {
		dir := dirs[i%nDirs]
		if i >= nDirs {
			dir = dirs[r.IntN(nDirs)]
		}
		p := fmt.Sprintf("%s/f%d.go", dir, i)
		pkg := baseOf(dir)
		if r.IntN(100) < 23 {
			p = fmt.Sprintf("%s/f%d_test.go", dir, i)
		}
		f := &syntax.File{Language: syntax.Go, Package: pkg}
		for range r.IntN(5) + r.IntN(5) {
			imp := dirs[r.IntN(nDirs)]
			if r.IntN(4) == 0 {
				imp = "golang.org/x/" + imp
			}
			f.Imports = append(f.Imports, syntax.Import{Path: imp, Kind: syntax.ImportPackage})
		}
		var typ string
		for range 1 + r.IntN(79) {
			s := syntax.Symbol{Kind: pick(r, kinds), Exported: true}
			if r.IntN(2) == 0 {
				s.Name = name()
			} else {
				local++
				s.Name = "L" + strconv.Itoa(local)
			}
			switch s.Kind {
			case syntax.Struct, syntax.Interface, syntax.TypeAlias:
				typ = s.Name
				if r.IntN(5) == 0 {
					s.Bases = []string{"p.N" + strconv.FormatUint(zipf.Uint64(), 36)}
				}
			case syntax.Method, syntax.Field:
				if typ != "" {
					s.Container = typ
				}
			}
			s.QualifiedName = s.Name
			if s.Container != "" {
				s.QualifiedName = s.Container + "." + s.Name
			}
			f.Symbols = append(f.Symbols, s)
		}
		for range 1 + r.IntN(259) {
			if r.IntN(5) < 3 {
				f.Refs = append(f.Refs, name())
			} else {
				f.Refs = append(f.Refs, "v"+strconv.Itoa(r.IntN(1_000_000)))
			}
		}
		slices.Sort(f.Refs)
		f.Refs = slices.Compact(f.Refs)
		src.paths = append(src.paths, p)
		src.syn[p] = f
		src.content[p] = nil
	}
	for i := range 1500 {
		p := fmt.Sprintf("%s/testdata/t%d.txt", dirs[r.IntN(nDirs)], i)
		src.paths = append(src.paths, p)
		src.content[p] = nil
	}
	slices.Sort(src.paths)
	return src
}

var (
	synthOnce sync.Once
	synthSrc  *memSource
)

func synthWorkspace() *memSource {
	synthOnce.Do(func() { synthSrc = synthGoSrc() })
	return synthSrc
}

// goSrcOnce extracts GOROOT/src with the real parser (index/syntax), in
// parallel, as the index does on a cold start.
var (
	goSrcOnce sync.Once
	goSrcWS   *memSource
	goSrcErr  error
)

func goSrcWorkspace(b testing.TB) *memSource {
	goSrcOnce.Do(func() { goSrcWS, goSrcErr = loadGoSrc(nil) })
	if goSrcErr != nil || goSrcWS == nil {
		b.Skipf("no Go source tree: %v", goSrcErr)
	}
	return goSrcWS
}

// loadGoSrc extracts the files of GOROOT/src that keep accepts (every
// file when keep is nil) by their slash-separated path relative to the
// tree, in parallel.
func loadGoSrc(keep func(rel string) bool) (*memSource, error) {
	root, err := corpus.GoSrc()
	if err != nil {
		return nil, err
	}
	src := newMemSource()
	var goFiles []string
	err = filepath.WalkDir(root, func(abs string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, abs)
		rel = filepath.ToSlash(rel)
		if keep != nil && !keep(rel) {
			return nil
		}
		src.paths = append(src.paths, rel)
		if baseOf(rel) == "go.mod" {
			data, err := os.ReadFile(abs)
			if err == nil {
				src.content[rel] = data
			}
		}
		if strings.HasSuffix(rel, ".go") {
			goFiles = append(goFiles, rel)
		}
		return nil
	})
	parsed := make([]*syntax.File, len(goFiles))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(goFiles); i = int(next.Add(1) - 1) {
				data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(goFiles[i])))
				if err == nil {
					parsed[i], _ = syntax.Parse(context.Background(), syntax.Go, data)
				}
			}
		})
	}
	wg.Wait()
	for i, f := range parsed {
		if f != nil {
			src.syn[goFiles[i]] = f
		}
	}
	slices.Sort(src.paths)
	return src, err
}

func reportCorpus(b *testing.B, src *memSource) {
	files, syms, refs := 0, 0, 0
	for _, f := range src.syn {
		files++
		syms += len(f.Symbols)
		refs += len(f.Refs)
	}
	b.ReportMetric(float64(files), "files")
	b.ReportMetric(float64(syms), "symbols")
	b.ReportMetric(float64(refs), "refs")
}

func benchBuild(b *testing.B, src *memSource) {
	for b.Loop() {
		Build(src)
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/build")
	reportCorpus(b, src)
}

// benchUpdate edits files in turn: hot edits one file again and again (the
// keystroke case: the delta stays at one path); spread edits a different
// file each time, so the delta grows and folds every compactAt+1 edits,
// whose cost is amortized into the figure. query runs Callers and
// Importers of the edited file after each update, which pays for indexing
// the delta.
func benchUpdate(b *testing.B, src *memSource, spread, query bool) {
	var goFiles []string
	for _, p := range src.paths {
		if src.syn[p] != nil {
			goFiles = append(goFiles, p)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	r.Shuffle(len(goFiles), func(i, j int) { goFiles[i], goFiles[j] = goFiles[j], goFiles[i] })
	// A private copy of the source: the edits must not leak into other
	// benchmarks.
	own := &memSource{paths: src.paths, syn: make(map[string]*syntax.File, len(src.syn)), content: src.content}
	for k, v := range src.syn {
		own.syn[k] = v
	}
	g := Build(own)
	i := 0
	for b.Loop() {
		p := goFiles[0]
		if spread {
			p = goFiles[i%len(goFiles)]
		}
		i++
		old := src.syn[p]
		edited := *old
		edited.Refs = append(slices.Clip(old.Refs), "zzEdit"+strconv.Itoa(i%2))
		own.syn[p] = &edited
		g = g.Update(own, []string{p})
		if query {
			g.Callers(p)
			g.Importers(p)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/update")
}

func BenchmarkBuild(b *testing.B) { benchBuild(b, synthWorkspace()) }

func BenchmarkUpdate(b *testing.B) {
	src := synthWorkspace()
	b.Run("hot", func(b *testing.B) { benchUpdate(b, src, false, false) })
	b.Run("hot+query", func(b *testing.B) { benchUpdate(b, src, false, true) })
	b.Run("spread", func(b *testing.B) { benchUpdate(b, src, true, false) })
	b.Run("spread+query", func(b *testing.B) { benchUpdate(b, src, true, true) })
}

// BenchmarkQueries measures the queries the context builder runs per
// build, on the synthetic tree, for a file in the middle of it.
func BenchmarkQueries(b *testing.B) { benchQueries(b, synthWorkspace()) }

func benchQueries(b *testing.B, src *memSource) {
	g := Build(src)
	var goFiles []string
	for _, p := range src.paths {
		if f := src.syn[p]; f != nil && len(f.Imports) > 0 && len(f.Symbols) > 10 {
			goFiles = append(goFiles, p)
		}
	}
	target := goFiles[len(goFiles)/2]
	b.Run("imports+importers", func(b *testing.B) {
		for b.Loop() {
			g.Imports(target)
			g.Importers(target)
		}
	})
	b.Run("callers+callees", func(b *testing.B) {
		for b.Loop() {
			g.Callers(target)
			g.Callees(target)
		}
	})
	b.Run("basetypes", func(b *testing.B) {
		n := len(src.syn[target].Symbols)
		for b.Loop() {
			for i := range n {
				g.BaseTypes(target, i)
			}
		}
	})
	for _, hops := range []int{1, 2} {
		b.Run("hops"+strconv.Itoa(hops), func(b *testing.B) {
			reached := 0
			for b.Loop() {
				reached = len(g.Hops([]string{target}, hops))
			}
			b.ReportMetric(float64(reached), "files-reached")
		})
	}
}

// The same on GOROOT/src itself, extracted with index/syntax (skipped without
// a Go source tree; the extraction is done once, outside the timings).
func BenchmarkBuildGoSrc(b *testing.B) { benchBuild(b, goSrcWorkspace(b)) }

func BenchmarkUpdateGoSrc(b *testing.B) {
	src := goSrcWorkspace(b)
	b.Run("hot", func(b *testing.B) { benchUpdate(b, src, false, false) })
	b.Run("spread", func(b *testing.B) { benchUpdate(b, src, true, false) })
	b.Run("spread+query", func(b *testing.B) { benchUpdate(b, src, true, true) })
}

func BenchmarkQueriesGoSrc(b *testing.B) { benchQueries(b, goSrcWorkspace(b)) }

// Command synthrepo writes a synthetic repository for ctxd's benchmarks:
// by default 100,000 files of a Go and TypeScript monorepo — Go packages
// importing each other through the module path, TypeScript directories
// importing each other's modules and barrels by relative paths, tests,
// READMEs, JSON fixtures and YAML config — with sizes drawn like real code
// (most files a few KB, a long tail to a few thousand lines). The same
// -seed and -files give the same bytes on every machine, so the figures of
// two runs are comparable.
//
// Usage: go run ./tools/synthrepo -out DIR [-files N] [-seed S] [-j JOBS]
//
// DIR must not exist or be empty; `make bench-index` writes into a temp
// dir and deletes it afterwards.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	out := flag.String("out", "", "directory to write (must not exist, or be empty)")
	files := flag.Int("files", 100_000, "number of files")
	seed := flag.Uint64("seed", 1, "seed: the same seed and -files give the same repository")
	jobs := flag.Int("j", runtime.NumCPU(), "files written at once")
	flag.Parse()
	if *out == "" || *files < 100 || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: synthrepo -out DIR [-files N (>= 100)] [-seed S] [-j JOBS]")
		os.Exit(2)
	}
	start := time.Now()
	p := newPlan(*files, *seed)
	st, err := p.write(*out, max(1, *jobs))
	if err != nil {
		fmt.Fprintln(os.Stderr, "synthrepo:", err)
		os.Exit(1)
	}
	fmt.Printf("synthrepo: %d files (%d Go, %d TypeScript, %d other) in %d directories, %.1f MB, %d Go packages and %d TypeScript directories; seed %d; %.1fs\n",
		len(p.files), st.byKind[fGo]+st.byKind[fGoTest], st.byKind[fTS]+st.byKind[fTSIndex],
		len(p.files)-st.byKind[fGo]-st.byKind[fGoTest]-st.byKind[fTS]-st.byKind[fTSIndex],
		len(p.dirs), float64(st.bytes)/1e6, st.goUnits, st.tsUnits, *seed, time.Since(start).Seconds())
}

type stats struct {
	bytes            int64
	byKind           map[fileKind]int
	goUnits, tsUnits int
}

// write creates the directories, then writes the files with jobs workers.
func (p *plan) write(out string, jobs int) (stats, error) {
	st := stats{byKind: map[fileKind]int{}}
	if entries, err := os.ReadDir(out); err == nil && len(entries) > 0 {
		return st, fmt.Errorf("%s is not empty", out)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return st, err
	}
	for _, d := range p.dirs {
		if err := os.MkdirAll(filepath.Join(out, filepath.FromSlash(d)), 0o755); err != nil {
			return st, err
		}
	}
	for _, f := range p.files {
		st.byKind[f.kind]++
	}
	for _, u := range p.units {
		if u.kind == tsDir {
			st.tsUnits++
		} else {
			st.goUnits++
		}
	}
	var (
		next, total atomic.Int64
		wg          sync.WaitGroup
		mu          sync.Mutex
		firstErr    error
	)
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(p.files) {
					return
				}
				text := p.fileText(i)
				total.Add(int64(len(text)))
				if err := os.WriteFile(filepath.Join(out, filepath.FromSlash(p.files[i].path)), []byte(text), 0o644); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	st.bytes = total.Load()
	return st, firstErr
}

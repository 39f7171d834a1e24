// Command pyoracle compares the Python dependencies that index/relate
// resolves with those the interpreter reports (oracle.py), on a directory of
// Python sources such as the standard library:
//
//	python3 tools/pyoracle/oracle.py os json > /tmp/oracle.tsv
//	go run ./tools/pyoracle -root $(python3 -c 'import os; print(os.path.dirname(os.__file__))') /tmp/oracle.tsv
//
// or on a package copied to a directory of its own (every module of it):
//
//	PYORACLE_ROOT=/tmp/sa PYTHONPATH=/tmp/sa python3 tools/pyoracle/oracle.py -all > /tmp/sa.tsv
//	go run ./tools/pyoracle -root /tmp/sa /tmp/sa.tsv
//
// It prints, per module of the oracle's output, the files only the oracle
// lists (missed), those only the resolver lists (extra), and recall and
// precision over the used files. Resolve answers declarations, so a file
// without top-level declarations (an __init__.py of imports only) can never
// be listed: a further line gives recall without those files, to tell
// what resolution misses from what the answer cannot name, and the figures
// when the files ResolveModules lists (the modules used as objects, with or
// without declarations) are added to Resolve's.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ctxd/ctxd/index/relate"
	"github.com/ctxd/ctxd/index/syntax"
)

type source struct {
	paths []string
	syn   map[string]*syntax.File
}

func (s *source) Paths() []string                 { return s.paths }
func (s *source) Syntax(p string) *syntax.File    { return s.syn[p] }
func (s *source) Content(p string) ([]byte, bool) { return nil, false }

func main() {
	root := flag.String("root", "", "the directory of Python sources")
	verbose := flag.Bool("v", false, "list missed and extra files")
	flag.Parse()
	src := &source{syn: map[string]*syntax.File{}}
	start := time.Now()
	var size int64
	err := filepath.WalkDir(*root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "site-packages" || d.Name() == "__pycache__") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".py") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		size += int64(len(data))
		rel, _ := filepath.Rel(*root, p)
		rel = filepath.ToSlash(rel)
		f, err := syntax.Parse(context.Background(), syntax.Python, data)
		if err != nil {
			return fmt.Errorf("%s: %v", rel, err)
		}
		src.paths = append(src.paths, rel)
		src.syn[rel] = f
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("extracted %d files, %d bytes in %v\n", len(src.paths), size, time.Since(start))
	slices.Sort(src.paths)
	g := relate.Build(src)
	want := map[string][]string{}
	var mods []string
	for _, name := range flag.Args() {
		f, err := os.Open(name)
		if err != nil {
			log.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			mod, file, ok := strings.Cut(sc.Text(), "\t")
			if !ok {
				continue
			}
			if want[mod] == nil {
				mods = append(mods, mod)
			}
			want[mod] = append(want[mod], file)
		}
		f.Close()
	}
	var hitAll, wantAll, gotAll, unnamed, hitMod, gotMod int
	for _, mod := range mods {
		p := strings.ReplaceAll(mod, ".", "/")
		if _, ok := src.syn[p+"/__init__.py"]; ok {
			p += "/__init__.py"
		} else {
			p += ".py"
		}
		var got []string
		for _, r := range g.Resolve(p, nil) {
			if r.Path != p {
				got = append(got, r.Path)
			}
		}
		got = slices.Compact(got)
		withMods := slices.Compact(slices.Sorted(slices.Values(append(g.ResolveModules(p, nil), got...))))
		gotMod += len(withMods)
		var missedMod []string
		for _, w := range want[mod] {
			if slices.Contains(withMods, w) {
				hitMod++
			} else {
				missedMod = append(missedMod, w)
			}
		}
		hit := 0
		var missed, extra []string
		for _, w := range want[mod] {
			switch {
			case slices.Contains(got, w):
				hit++
			case !declares(src.syn[w]):
				unnamed++
				missed = append(missed, w+"(no declarations)")
			default:
				missed = append(missed, w)
			}
		}
		for _, x := range got {
			if !slices.Contains(want[mod], x) {
				extra = append(extra, x)
			}
		}
		hitAll += hit
		wantAll += len(want[mod])
		gotAll += len(got)
		fmt.Printf("%-24s want %3d got %3d hit %3d\n", mod, len(want[mod]), len(got), hit)
		if *verbose {
			fmt.Printf("\tmissed %v\n\textra %v\n\tmissed with modules %v\n", missed, extra, missedMod)
		}
	}
	fmt.Printf("recall %.3f precision %.3f\n", float64(hitAll)/float64(max(wantAll, 1)), float64(hitAll)/float64(max(gotAll, 1)))
	fmt.Printf("%d of %d expected files have no top-level declarations; recall without them %.3f\n",
		unnamed, wantAll, float64(hitAll)/float64(max(wantAll-unnamed, 1)))
	fmt.Printf("with ResolveModules: recall %.3f precision %.3f\n",
		float64(hitMod)/float64(max(wantAll, 1)), float64(hitMod)/float64(max(gotMod, 1)))
}

// declares reports whether f has a top-level declaration, which Resolve
// can answer.
func declares(f *syntax.File) bool {
	if f == nil {
		return false
	}
	for _, s := range f.Symbols {
		if s.Container == "" {
			return true
		}
	}
	return false
}

package relate

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/index/syntax"
	"github.com/google/go-cmp/cmp"
)

// fuzzFile is a path of the randomized workspace and how to fill it.
type fuzzFile struct {
	path string
	// content returns the text of a config file; nil for source files.
	content func(r *rand.Rand) string
	// imports are the import paths the file draws from.
	imports []string
	// pkgs and namespaces are drawn from for Package and Namespaces.
	pkgs, namespaces []string
}

func pick[T any](r *rand.Rand, s []T) T { return s[r.IntN(len(s))] }

func fixed(s string) func(*rand.Rand) string { return func(*rand.Rand) string { return s } }

func oneOf(s ...string) func(*rand.Rand) string {
	return func(r *rand.Rand) string { return pick(r, s) }
}

// fuzzFiles is every path the randomized workspace may hold: files of all
// resolver families whose imports aim at each other, text files, and
// config files (resolver configs included, which makes Update rebuild).
func fuzzFiles() []fuzzFile {
	var fs []fuzzFile
	goImports := []string{"ex.com/w/a", "ex.com/w/b", "ex.com/w/c", "ex.com/w/sub", "ex.com/w/sub/t", "ext.io/v", "fmt", "ex.com/w/nope", "./../b"}
	for _, p := range []string{"a/x.go", "a/y.go", "a/x_test.go", "a/ext_test.go", "a/gen.go", "b/x.go", "b/y_test.go", "c/c.go", "sub/s.go", "sub/t/t.go", "vendor/ext.io/v/v.go"} {
		pkg := baseOf(dirOf(p))
		fs = append(fs, fuzzFile{path: p, imports: goImports, pkgs: []string{pkg, pkg, "main", pkg + "_test"}})
	}
	fs = append(fs,
		fuzzFile{path: "go.mod", content: oneOf("module ex.com/w\n", "module \"ex.com/w\" // again\n", "module ex.com/w2\n")},
		fuzzFile{path: "sub/go.mod", content: fixed("module ex.com/w/sub\n")},
	)
	jsImports := []string{"./a", "./b.js", "./c", "../src/d", "@app/s", "@app/t", "react", "./e", "./pkg", "./style.css", "a", "./app/s.js"}
	for _, p := range []string{"js/src/a.ts", "js/src/b.ts", "js/src/b.js", "js/src/c/index.ts", "js/src/d.tsx", "js/src/e.js", "js/src/app/s.ts", "js/src/gen/s.ts", "js/src/gen/t.ts", "js/src/pkg/main.js", "js/src/pkg/index.ts"} {
		fs = append(fs, fuzzFile{path: p, imports: jsImports})
	}
	fs = append(fs,
		fuzzFile{path: "js/src/style.css", content: fixed("body {}")},
		fuzzFile{path: "js/tsconfig.json", content: oneOf(
			`{"compilerOptions": {"baseUrl": "src", "paths": {"@app/*": ["app/*", "gen/*",],},}}`,
			`{"compilerOptions": {"baseUrl": "src", /* no paths */}}`,
		)},
		fuzzFile{path: "js/src/pkg/package.json", content: oneOf(`{"main": "main.js"}`, `{}`)},
	)
	pyImports := []string{"pkg.m", "pkg.sub", ".m", ".", "..", "pkg.sub.n.f", "os", ".sub", "lib.k", "pkg", "..m"}
	for _, p := range []string{"pkg/__init__.py", "pkg/m.py", "pkg/sub/__init__.py", "pkg/sub/n.py", "tool.py", "src/lib/__init__.py", "src/lib/k.py", "tests/t.py"} {
		fs = append(fs, fuzzFile{path: p, imports: pyImports})
	}
	javaImports := []string{"com.x.A", "com.x.*", "com.y.B", "java.util.List", "com.x.A.Inner", "static com.y.B.m"}
	for _, p := range []string{"java/A.java", "java/B.java", "java/C.java", "java/x/D.java"} {
		fs = append(fs, fuzzFile{path: p, imports: javaImports, pkgs: []string{"com.x", "com.y"}})
	}
	csImports := []string{"N1", "N1.Sub", "N2.T1", "System", "static N2.T2"}
	for _, p := range []string{"cs/P.cs", "cs/Q.cs", "cs/sub/R.cs"} {
		fs = append(fs, fuzzFile{path: p, imports: csImports, namespaces: []string{"N1", "N1.Sub", "N2"}})
	}
	fs = append(fs,
		fuzzFile{path: "cs/App.csproj", content: fixed("<Project/>")},
		fuzzFile{path: "cs/sub/Sub.csproj", content: fixed("<Project/>")},
		fuzzFile{path: "All.sln", content: fixed("")},
	)
	rsImports := []string{"mod a", "mod c", "mod b", "use crate::a::b::X", "use super::a", "use self::b", "use std::fmt", "use crate::{a, c::Y}", "use b::Z", "use rsx::a::X"}
	for _, p := range []string{"rs/src/lib.rs", "rs/src/a.rs", "rs/src/a/b.rs", "rs/src/a/mod.rs", "rs/src/c/mod.rs", "rs/tests/it.rs"} {
		fs = append(fs, fuzzFile{path: p, imports: rsImports})
	}
	fs = append(fs, fuzzFile{path: "rs/Cargo.toml", content: oneOf("[package]\nname = \"rsx\"\n", "[package]\nname = \"rsx\" # same\n", "[package]\nname = \"other\"\n")})
	cImports := []string{"util.h", "api.h", "<api.h>", "../util.h", "<stdio.h>", "sub/x.hpp", "using ns::a", "using ns"}
	for _, p := range []string{"c/main.c", "c/util.h", "include/api.h", "util.h", "c/sub/x.hpp"} {
		fs = append(fs, fuzzFile{path: p, imports: cImports, namespaces: []string{"ns", "ns.a"}})
	}
	fs = append(fs,
		fuzzFile{path: "Makefile", content: fixed("all:\n")},
		fuzzFile{path: "c/Makefile", content: fixed("all:\n")},
		fuzzFile{path: "pyproject.toml", content: fixed("")},
		fuzzFile{path: "README.md", content: fixed("# readme")},
	)
	return fs
}

var (
	fuzzTypes = []string{"T1", "T2", "T3", "A", "B", "Inner", "D", "X", "Y"}
	fuzzNames = []string{"f1", "f2", "f3", "String", "New", "m", "n", "k", "sub", "views", "Z"}
	fuzzBases = []string{"T1", "T2", "a.T1", "io.T2", "crate::a::T3", "com.x.A", "N1.T1", "*T3", "Missing", "x.A"}
	fuzzKinds = []syntax.SymbolKind{syntax.Function, syntax.Method, syntax.Class, syntax.Interface, syntax.Struct, syntax.TypeAlias, syntax.Constructor, syntax.Field}
)

// randomSyntax returns a random extraction for a source file of ff; nil
// one time in eight (a file without symbols).
func randomSyntax(r *rand.Rand, ff fuzzFile) *syntax.File {
	if r.IntN(8) == 0 {
		return nil
	}
	f := &syntax.File{Language: fixtureLanguage(ff.path)}
	if len(ff.pkgs) > 0 {
		f.Package = pick(r, ff.pkgs)
	}
	for _, ns := range ff.namespaces {
		if r.IntN(2) == 0 {
			f.Namespaces = append(f.Namespaces, ns)
		}
	}
	for range r.IntN(4) {
		spec := pick(r, ff.imports)
		imp := syntax.Import{Path: spec}
		switch l := langOf(ff.path, nil); {
		case l == syntax.FamilyRust:
			word, rest, _ := strings.Cut(spec, " ")
			imp.Path, imp.Kind = rest, syntax.ImportUse
			if word == "mod" {
				imp.Kind = syntax.ImportMod
			}
		case l == syntax.FamilyC && strings.HasPrefix(spec, "using "):
			imp.Path, imp.Kind = strings.TrimPrefix(spec, "using "), syntax.ImportNamespace
		case l == syntax.FamilyC:
			imp.Kind = syntax.ImportInclude
			if strings.HasPrefix(spec, "<") {
				imp.Path, imp.System = strings.Trim(spec, "<>"), true
			}
		case l == syntax.FamilyGo || l == syntax.FamilyJava:
			imp.Kind = syntax.ImportPackage
		case l == syntax.FamilyCSharp:
			imp.Kind = syntax.ImportNamespace
		default:
			imp.Kind = syntax.ImportModule
		}
		f.Imports = append(f.Imports, imp)
	}
	for range r.IntN(5) {
		kind := pick(r, fuzzKinds)
		s := syntax.Symbol{Kind: kind, Name: pick(r, fuzzNames)}
		if kind.IsType() || kind == syntax.Constructor {
			s.Name = pick(r, fuzzTypes)
		}
		s.QualifiedName = s.Name
		if r.IntN(3) == 0 {
			s.Container = pick(r, fuzzTypes)
			s.QualifiedName = s.Container + "." + s.Name
		}
		for range r.IntN(3) {
			s.Bases = append(s.Bases, pick(r, fuzzBases))
		}
		f.Symbols = append(f.Symbols, s)
	}
	for range r.IntN(6) {
		f.Refs = append(f.Refs, pick(r, append(fuzzNames, fuzzTypes...)))
	}
	slices.Sort(f.Refs)
	f.Refs = slices.Compact(f.Refs)
	return f
}

// fuzzPut writes a random version of ff into src.
func fuzzPut(r *rand.Rand, src *memSource, ff fuzzFile) {
	if ff.content != nil {
		src.set(ff.path, []byte(ff.content(r)), nil)
		return
	}
	src.set(ff.path, []byte(fmt.Sprint(r.Int())), randomSyntax(r, ff))
}

// answers is every query answer of a graph over a set of paths and names.
type answers struct {
	Imports              map[string][]Edge
	Unresolved           map[string][]syntax.Import
	Importers            map[string][]string
	Callees, Callers     map[string][]string
	Config               map[string][]string
	Bases                map[string][][]SymbolRef
	Definitions          map[string][]SymbolRef
	Hops                 map[string]map[string]int
	HopsAll, HopsNothing map[string]int
}

func allAnswers(g *Graph, paths, names, hopSeeds []string) answers {
	a := answers{
		Imports: map[string][]Edge{}, Unresolved: map[string][]syntax.Import{}, Importers: map[string][]string{},
		Callees: map[string][]string{}, Callers: map[string][]string{}, Config: map[string][]string{},
		Bases: map[string][][]SymbolRef{}, Definitions: map[string][]SymbolRef{}, Hops: map[string]map[string]int{},
	}
	for _, p := range paths {
		a.Imports[p] = g.Imports(p)
		a.Unresolved[p] = g.Unresolved(p)
		a.Importers[p] = g.Importers(p)
		a.Callees[p] = g.Callees(p)
		a.Callers[p] = g.Callers(p)
		a.Config[p] = g.ConfigFiles(p)
		for i := -1; i < 6; i++ {
			a.Bases[p] = append(a.Bases[p], g.BaseTypes(p, i))
		}
	}
	for _, p := range hopSeeds {
		a.Hops[p] = g.Hops([]string{p}, 3)
	}
	for _, n := range names {
		a.Definitions[n] = g.Definitions(n)
	}
	a.HopsAll = g.Hops(paths, 2)
	a.HopsNothing = g.Hops(paths[:3], 0)
	return a
}

// diffAnswers is cmp.Diff(want, got), computed only when reflect.DeepEqual
// finds a difference. On these types (no Equal methods, no unexported
// fields) the two agree, and cmp's walk of equal answers was most of the
// randomized tests' time under -race.
func diffAnswers[T any](want, got T) string {
	if reflect.DeepEqual(want, got) {
		return ""
	}
	return cmp.Diff(want, got)
}

// TestUpdateMatchesBuild applies random sequences of additions,
// modifications and deletions and compares every query answer of the
// updated graph with a freshly built one.
func TestUpdateMatchesBuild(t *testing.T) {
	files := fuzzFiles()
	var paths []string
	for _, ff := range files {
		paths = append(paths, ff.path)
	}
	paths = append(paths, "ghost/x.go", "ghost/y.py")
	var names []string
	names = append(names, fuzzNames...)
	for _, ty := range fuzzTypes {
		names = append(names, ty)
		for _, n := range append(fuzzNames, fuzzTypes...) {
			names = append(names, ty+"."+n)
		}
	}
	steps := 120
	if testing.Short() {
		steps = 30
	}
	for _, tc := range []struct {
		seed    uint64
		compact int
	}{{1, 64}, {2, 3}, {3, 1}, {4, 16}} {
		t.Run(fmt.Sprintf("seed%d-compact%d", tc.seed, tc.compact), func(t *testing.T) {
			old := compactAt
			compactAt = tc.compact
			defer func() { compactAt = old }()

			r := rand.New(rand.NewPCG(tc.seed, 99))
			src := newMemSource()
			for _, ff := range files {
				if r.IntN(3) > 0 {
					fuzzPut(r, src, ff)
				}
			}
			g := Build(src)
			for step := range steps {
				var changed []string
				for range 1 + r.IntN(4) {
					ff := pick(r, files)
					// Resolver configs change rarely: each change rebuilds.
					if ff.content != nil && resolverConfigs[baseOf(ff.path)] && r.IntN(4) > 0 {
						continue
					}
					_, exists := src.content[ff.path]
					if exists && r.IntN(4) == 0 {
						src.remove(ff.path)
					} else {
						fuzzPut(r, src, ff)
					}
					changed = append(changed, ff.path)
				}
				switch r.IntN(6) {
				case 0:
					changed = append(changed, "ghost/x.go") // never existed
				case 1:
					changed = append(changed, pick(r, src.paths)) // unchanged
				}
				g = g.Update(src, changed)
				fresh := Build(src)
				// Hops from every path is the costly part: a rotating
				// fifth of them per step, the changed ones always.
				hopSeeds := slices.Clone(changed)
				for i, p := range paths {
					if i%5 == step%5 {
						hopSeeds = append(hopSeeds, p)
					}
				}
				want, got := allAnswers(fresh, paths, names, hopSeeds), allAnswers(g, paths, names, hopSeeds)
				if diff := diffAnswers(want, got); diff != "" {
					t.Fatalf("step %d, changed %v: Update differs from Build (-want +got):\n%s", step, changed, diff)
				}
				if step%10 == 0 {
					checkReverse(t, g, src)
				}
			}
		})
	}
}

// TestUpdateDoesNotChangeReceiver checks that a graph keeps answering for
// its own snapshot after Update derived another from it.
func TestUpdateDoesNotChangeReceiver(t *testing.T) {
	src := workspace(t, `
-- go.mod --
module m
-- a/a.go --
package a
import m/b
-- b/b.go --
package b
`)
	g1 := Build(src)
	src.remove("b/b.go")
	src.set("b/c.go", nil, &syntax.File{Language: syntax.Go, Package: "b"})
	g2 := g1.Update(src, []string{"b/b.go", "b/c.go"})
	if diff := cmp.Diff([]string{"b/b.go"}, importTargets(g1, "a/a.go")); diff != "" {
		t.Errorf("old graph (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"b/c.go"}, importTargets(g2, "a/a.go")); diff != "" {
		t.Errorf("new graph (-want +got):\n%s", diff)
	}
	if g2.Update(src, nil) != g2 {
		t.Error("Update without changes should return the receiver")
	}
}

// TestHopsDirections checks that expanding the frontier and testing the
// unreached files find the same distances, on random workspaces with and
// without a delta.
func TestHopsDirections(t *testing.T) {
	files := fuzzFiles()
	r := rand.New(rand.NewPCG(5, 5))
	defer func() { hopsDirection = 0 }()
	for round := range 30 {
		src := newMemSource()
		for _, ff := range files {
			if r.IntN(3) > 0 {
				fuzzPut(r, src, ff)
			}
		}
		g := Build(src)
		if round%2 == 1 {
			var changed []string
			for range 5 {
				ff := pick(r, files)
				if ff.content != nil {
					continue
				}
				if _, ok := src.content[ff.path]; ok && r.IntN(3) == 0 {
					src.remove(ff.path)
				} else {
					fuzzPut(r, src, ff)
				}
				changed = append(changed, ff.path)
			}
			g = g.Update(src, changed)
		}
		for _, seed := range src.paths {
			seeds := []string{seed, pick(r, src.paths)}[:1+r.IntN(2)]
			for max := range 4 {
				hopsDirection = 1
				push := g.Hops(seeds, max)
				hopsDirection = -1
				pull := g.Hops(seeds, max)
				if diff := diffAnswers(push, pull); diff != "" {
					t.Fatalf("round %d: Hops(%v, %d): push and pull differ (-push +pull):\n%s", round, seeds, max, diff)
				}
			}
		}
	}
}

// TestConcurrentReaders queries one graph (with a delta, whose index is
// built on first use) from several goroutines; run with -race.
func TestConcurrentReaders(t *testing.T) {
	files := fuzzFiles()
	r := rand.New(rand.NewPCG(9, 9))
	src := newMemSource()
	for _, ff := range files {
		fuzzPut(r, src, ff)
	}
	g := Build(src)
	var changed []string
	for _, ff := range files[:10] {
		if ff.content == nil {
			fuzzPut(r, src, ff)
			changed = append(changed, ff.path)
		}
	}
	g = g.Update(src, changed)
	want := allAnswers(Build(src), src.paths, fuzzNames, src.paths[:5])
	done := make(chan answers)
	for range 4 {
		go func() { done <- allAnswers(g, src.paths, fuzzNames, src.paths[:5]) }()
	}
	for range 4 {
		if diff := cmp.Diff(want, <-done); diff != "" {
			t.Fatalf("concurrent answers differ (-want +got):\n%s", diff)
		}
	}
}

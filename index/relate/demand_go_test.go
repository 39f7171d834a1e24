package relate

import (
	"maps"
	"slices"
	"testing"

	"github.com/ctxd/ctxd/index/syntax"
	"github.com/ctxd/ctxd/index/words"
	"github.com/google/go-cmp/cmp"
)

// demandSource is a memSource of which only the files in have are parsed;
// with heads, the headers of the others are known, as the listing reads
// them.
type demandSource struct {
	*memSource
	have  map[string]bool
	heads bool
}

func (s *demandSource) Syntax(p string) *syntax.File {
	if !s.have[p] {
		return nil
	}
	return s.memSource.Syntax(p)
}

func (s *demandSource) GoHeader(p string) (string, string, bool) {
	if !s.heads || syntax.FamilyForPath(p) != syntax.FamilyGo {
		return "", "", false
	}
	h := syntax.GoHeader(s.content[p])
	return h.Package, h.Constraint, true
}

// demandRun answers query on a graph of the files the query needed, grown
// as index.Demand grows it (by the Needs and their Candidates through each
// file's word filter) until nothing is missing; it returns the last answer
// and the files parsed.
func demandRun[T any](t *testing.T, full *memSource, start string, heads bool, query func(g *Graph) T) (T, []string) {
	t.Helper()
	src := &demandSource{memSource: full, have: map[string]bool{start: true}, heads: heads}
	filters := map[string]*words.Filter{}
	for _, p := range full.paths {
		filters[p] = words.NewFilter(full.content[p])
	}
	may := func(p string, k words.Key) bool { return filters[p].MayContainKey(k) }
	// With the headers, the Go files' imports too (CandidatesImports).
	var imports func(p string, h uint64) (bool, bool)
	if heads {
		imports = func(p string, h uint64) (bool, bool) {
			head := syntax.GoHeader(full.content[p])
			return slices.Contains(words.KeyOf(head.Imports), h), head.ImportsKnown
		}
	}
	for range 50 {
		tr := NewTrace()
		g := BuildTraced(src, tr)
		got := query(g)
		var rest []string
		for _, p := range full.paths {
			if !src.have[p] {
				rest = append(rest, p)
			}
		}
		var add []string
		for _, n := range tr.Needs() {
			add = append(add, g.CandidatesWith(n, rest, Prefilter{May: may, Imports: imports})...)
		}
		if len(add) == 0 {
			return got, slices.Sorted(maps.Keys(src.have))
		}
		for _, p := range add {
			src.have[p] = true
		}
	}
	t.Fatal("the demand set did not converge")
	panic("unreachable")
}

// goDemandTree is a module whose package p is used by q through an
// exported method, whose package big holds many files of which one
// declares what p uses, and whose other directories depend on p only
// through test files and a generator.
var goDemandTree = map[string]string{
	"go.mod": "module m\n",
	"p/p.go": `package p

import "m/big"

type T struct{ n int }

func (t *T) Get() int { return big.Helper(t.n) }

func (t *T) reset() { t.n = 0 }
`,
	"big/helper.go":         "package big\n\nfunc Helper(n int) int { return n }\n",
	"big/other.go":          "package big\n\nfunc Other() {}\n",
	"big/more.go":           "package big\n\nfunc More() {}\n",
	"big/helper_windows.go": "package big\n\nfunc Helper2(n int) int { return n }\n\n// Helper is not here.\n",
	"q/q.go": `package q

import "m/p"

func Use(t *p.T) int { return t.Get() }
`,
	// a's test alone imports p: a is a dependent, its importers are not.
	"a/a.go":      "package a\n\nfunc A() {}\n",
	"a/a_test.go": "package a\n\nimport (\n\t\"testing\"\n\t\"m/p\"\n)\n\nfunc TestA(t *testing.T) { var x p.T; _ = x.Get() }\n",
	"b/b.go":      "package b\n\nimport \"m/a\"\n\nfunc B() { a.A() }\n\ntype S struct{}\n\nfunc (S) Get() int { return 0 }\n",
	// gen's generator (package main beside package gen) imports p.
	"gen/gen.go": "package gen\n\nfunc G() {}\n",
	"gen/mk.go":  "//go:build ignore\n\npackage main\n\nimport \"m/p\"\n\nfunc main() { var t p.T; t.Get() }\n",
	"c/c.go":     "package c\n\nimport \"m/gen\"\n\nfunc C() { gen.G() }\n\ntype U struct{}\n\nfunc (U) Get() int { return 1 }\n",
	// z names p's import path without importing it.
	"z/z.go": "package z\n\n// Z is what m/p calls Get.\nfunc Z() {}\n",
}

// TestGoDependentsStopAtTestsAndGenerators: the directories whose Go files
// can use p's declarations are p's and those importing it through files an
// import reaches; a test file or a main generator makes its directory a
// dependent without making its importers dependents too.
func TestGoDependentsStopAtTestsAndGenerators(t *testing.T) {
	g := Build(goMemSource(t, goDemandTree))
	got := slices.Sorted(maps.Keys(g.view().goDependents("p")))
	if diff := cmp.Diff([]string{"a", "gen", "p", "q"}, got); diff != "" {
		t.Errorf("goDependents(p) (-want +got):\n%s", diff)
	}
}

// TestGoUnexportedStaysInPackage: a member whose receiver the resolver can
// only guess (knownTypes: the types a file's other uses name) is never an
// unexported member of another package's type, which Go does not let the
// file select; an exported one still is.
func TestGoUnexportedStaysInPackage(t *testing.T) {
	files := maps.Clone(goDemandTree)
	files["r/r.go"] = `package r

import "m/p"

var V *p.T

func R() { y := V; y.n = 1; z := unknown(); z.reset() }
`
	src := goMemSource(t, files)
	g := Build(src)
	sym := func(name string) []int {
		for i, s := range src.syn["p/p.go"].Symbols {
			if s.Name == name {
				return []int{i}
			}
		}
		t.Fatalf("p/p.go declares no %s", name)
		return nil
	}
	if got := g.Users("p/p.go", sym("reset")); slices.Contains(got, "r/r.go") {
		t.Errorf("users of reset = %q: r/r.go cannot select an unexported method of p", got)
	}
	if got := g.Users("p/p.go", sym("Get")); !slices.Contains(got, "q/q.go") {
		t.Errorf("users of Get = %q, want q/q.go among them", got)
	}
}

// TestGoDemandByHeaders: a build before the parse that knows the Go files'
// headers answers as the complete graph does while parsing, of package
// big, only the file that declares what p uses for the platform; without
// the headers it needs every file of the package.
func TestGoDemandByHeaders(t *testing.T) {
	full := goMemSource(t, goDemandTree)
	complete := Build(full)
	query := func(g *Graph) []string {
		var out []string
		for _, e := range g.Imports("p/p.go") {
			out = append(out, "import "+e.To)
		}
		for _, s := range g.Resolve("p/p.go", nil) {
			out = append(out, "uses "+s.Path+"#"+s.Name)
		}
		for _, u := range g.Users("p/p.go", nil) {
			out = append(out, "user "+u)
		}
		return out
	}
	want := query(complete)
	for _, heads := range []bool{true, false} {
		got, parsed := demandRun(t, full, "p/p.go", heads, query)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("heads=%v: demand answers differ from the complete graph's (-want +got):\n%s", heads, diff)
		}
		bigParsed := slices.DeleteFunc(slices.Clone(parsed), func(p string) bool { return dirOf(p) != "big" })
		wantBig := []string{"big/helper.go"}
		if !heads {
			wantBig = []string{"big/helper.go", "big/helper_windows.go", "big/more.go", "big/other.go"}
		}
		if diff := cmp.Diff(wantBig, bigParsed); diff != "" {
			t.Errorf("heads=%v: files of big parsed (-want +got):\n%s", heads, diff)
		}
		if heads && slices.Contains(parsed, "z/z.go") {
			t.Errorf("heads=%v: z/z.go parsed, but its header imports nothing", heads)
		}
		for _, p := range []string{"b/b.go", "c/c.go"} {
			// Without the headers, gen/mk.go is known to be a
			// generator only once parsed: its directory's importers
			// may be parsed before.
			if heads && slices.Contains(parsed, p) {
				t.Errorf("heads=%v: %s parsed, but it cannot reach p", heads, p)
			}
		}
	}
}

package relate

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/index/indextest"
	"github.com/ctxd/ctxd/index/syntax"
	"github.com/ctxd/ctxd/index/words"
	"github.com/ctxd/ctxd/tools/corpus"
	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"
)

// checkAdmitted fails for every lookup a file contributes to whose
// candidates (Graph.Candidates, through the word prefilter of the file's
// text) leave the file out: a demand-driven build would then miss it.
func checkAdmitted(t *testing.T, g *Graph, texts map[string][]byte) {
	t.Helper()
	v := g.view()
	paths := slices.Sorted(maps.Keys(texts))
	for id := range int32(v.size()) {
		f := v.file(id)
		filter := words.NewFilter(texts[f.path])
		var needs []Need
		if f.lang == syntax.FamilyGo && !f.goKnown() {
			// A Go file known by its extraction or its header is placed
			// in its package without a parse (TestGoDirByHeaders).
			needs = append(needs, Need{NeedGoDir, f.dir})
		}
		if strings.HasSuffix(f.path, ".csproj") || strings.HasSuffix(f.path, ".sln") {
			needs = append(needs, Need{NeedProject, f.dir})
		}
		if f.syn != nil {
			for _, r := range f.syn.Refs {
				needs = append(needs, Need{NeedRef, r})
				if f.lang == syntax.FamilyGo {
					needs = append(needs, Need{NeedGoRef, f.dir + "\x00" + r})
				}
			}
			for _, s := range f.syn.Symbols {
				needs = append(needs, Need{NeedSym, s.Name}, Need{NeedDirWords, f.dir + "\x00" + s.Name})
				if f.lang == syntax.FamilyGo && s.Container != "" {
					needs = append(needs, Need{NeedDirWords, f.dir + "\x00" + s.Name + " " + s.Container})
				}
			}
			for _, imp := range f.syn.Imports {
				if f.lang == syntax.FamilyGo {
					needs = append(needs, Need{NeedDirWords, f.dir + "\x00" + imp.Path})
				}
			}
			for _, x := range f.extra {
				needs = append(needs, Need{NeedBaseUse, x.name})
			}
			for _, k := range f.keys {
				needs = append(needs, Need{NeedReg, k.key})
			}
			if f.lang == syntax.FamilyJava && f.syn.Package != "" {
				needs = append(needs, Need{NeedJavaPkg, f.syn.Package})
			}
			if f.lang == syntax.FamilyCSharp || f.lang == syntax.FamilyC {
				for _, ns := range f.syn.Namespaces {
					needs = append(needs, Need{NeedNamespace, ns})
				}
			}
		}
		// A Go file's declaration words, as the listing filters them.
		var decls *words.Filter
		if f.lang == syntax.FamilyGo {
			clean := false
			d := words.NewFilterOf(func(add func([]byte)) { clean = syntax.GoDeclWords(texts[f.path], add) })
			if clean {
				decls = d
			}
		}
		pf := Prefilter{
			May: func(p string, k words.Key) bool { return p != f.path || filter.MayContainKey(k) },
			Declares: func(p string, k words.Key) bool {
				if p != f.path {
					return true
				}
				if decls != nil {
					return decls.MayContainKey(k)
				}
				return filter.MayContainKey(k)
			},
		}
		for _, n := range needs {
			admitted := g.admitter(n, pf)(f.path)
			if _, ok := n.dir(); ok && admitted {
				// A directory lookup searches the sorted paths for
				// its run: the file must be in it.
				admitted = slices.Contains(g.CandidatesWith(n, paths, pf), f.path)
			}
			if !admitted {
				t.Errorf("%s contributes to lookup %v %q but is not among its candidates", f.path, n.Kind, n.Key)
			}
		}
	}
}

// parsedSource builds a source of files extracted by the real parser.
func parsedSource(t *testing.T, files []txtar.File) (*memSource, map[string][]byte) {
	texts := map[string][]byte{}
	src := sourceOf(files, func(f txtar.File) *syntax.File {
		texts[f.Name] = f.Data
		lang := syntax.LanguageForPath(f.Name)
		if lang == "" {
			return nil
		}
		syn, err := syntax.Parse(context.Background(), lang, f.Data)
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		return syn
	})
	return src, texts
}

// TestCandidatesAdmitContributors: on every language's golden workspace,
// each file is a candidate of every lookup it answers.
func TestCandidatesAdmitContributors(t *testing.T) {
	indextest.Goldens(t, "testdata/uses/*.txtar", func(t *testing.T, gl *indextest.Golden) {
		src, texts := parsedSource(t, gl.Files("queries", "want"))
		checkAdmitted(t, Build(src), texts)
	})
}

// TestAliasedCandidatesBounded: in a workspace whose tsconfig renames
// modules, the importers of a file are looked for among the files that
// hold its name or the words of an alias that can reach it, and those in
// its directory, not among every file: a Go file, a file reached by an
// exact key and one reached through a pattern that hides its name.
func TestAliasedCandidatesBounded(t *testing.T) {
	indextest.Goldens(t, "testdata/uses/ts_paths.txtar", func(t *testing.T, gl *indextest.Golden) {
		src, texts := parsedSource(t, gl.Files("queries", "want"))
		g := Build(src)
		paths := slices.Sorted(maps.Keys(texts))
		filters := map[string]*words.Filter{}
		for p, b := range texts {
			filters[p] = words.NewFilter(b)
		}
		may := func(p string, k words.Key) bool { return filters[p].MayContainKey(k) }
		// The importer, and the files in the imported file's directory
		// (which may name it "./x"), and for src/config.ts, which "@app/config"
		// names from src, the files that hold "config": never vendor/, widgets/.
		for key, want := range map[string][]string{
			"js:tools/gen.go":         {"src/main.ts"},
			"js:src/config.ts":        {"app/entry.ts", "src/config.ts", "src/main.ts", "src/util/index.ts", "src/util/strings.ts"},
			"js:comp/save/Button.tsx": {"comp/save/Button.tsx", "src/main.ts"},
		} {
			got := g.Candidates(Need{NeedReg, key}, paths, may)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("candidates of %s (-want +got):\n%s", key, diff)
			}
		}
	})
}

// TestCandidatesAdmitContributorsGoSrc is the same check on packages of
// the Go source tree (imports across modules, vendor, tests).
func TestCandidatesAdmitContributorsGoSrc(t *testing.T) {
	root, err := corpus.GoSrc()
	if err != nil {
		t.Skipf("no Go source tree: %v", err)
	}
	dirs := []string{"net/http", "go/types", "cmd/go/internal/load", "vendor/golang.org/x/net/http/httpproxy", "internal/poll"}
	if testing.Short() {
		dirs = dirs[:1]
	}
	var files []txtar.File
	for _, rel := range append([]string{"go.mod", "cmd/go.mod"}, dirs...) {
		abs := filepath.Join(root, filepath.FromSlash(rel))
		if strings.HasSuffix(rel, "go.mod") {
			if data, err := os.ReadFile(abs); err == nil {
				files = append(files, txtar.File{Name: rel, Data: data})
			}
			continue
		}
		entries, err := os.ReadDir(abs)
		if err != nil {
			t.Skipf("reading %s: %v", rel, err)
		}
		for _, e := range entries {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") {
				continue
			}
			data, err := os.ReadFile(filepath.Join(abs, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, txtar.File{Name: rel + "/" + e.Name(), Data: data})
		}
	}
	slices.SortFunc(files, func(a, b txtar.File) int { return strings.Compare(a.Name, b.Name) })
	src, texts := parsedSource(t, files)
	checkAdmitted(t, Build(src), texts)
}

// TestUsersMemo: Users answers the same question on the same graph from
// its memo, with the same result, and a caller's append to an answer does
// not change the next one.
func TestUsersMemo(t *testing.T) {
	src, _ := parsedSource(t, txtar.Parse([]byte(`-- go.mod --
module example.com/m
-- a/a.go --
package a

func F() {}

func G() {}
-- b/b.go --
package b

import "example.com/m/a"

func H() { a.F() }
-- c/c.go --
package c

import "example.com/m/a"

func I() { a.G() }
`)).Files)
	g := Build(src)
	for _, syms := range [][]int{nil, {0}, {1}, {}} {
		first := g.Users("a/a.go", syms)
		second := g.Users("a/a.go", syms)
		if diff := cmp.Diff(first, second); diff != "" {
			t.Errorf("Users(a/a.go, %v) asked twice (-first +second):\n%s", syms, diff)
		}
		if diff := cmp.Diff(g.users("a/a.go", syms), second); diff != "" {
			t.Errorf("Users(a/a.go, %v) differs from an unmemoized answer (-want +got):\n%s", syms, diff)
		}
	}
	if diff := cmp.Diff([]string{"b/b.go", "c/c.go"}, g.Users("a/a.go", nil)); diff != "" {
		t.Errorf("Users(a/a.go) (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"b/b.go"}, g.Users("a/a.go", []int{0})); diff != "" {
		t.Errorf("Users(a/a.go, F) (-want +got):\n%s", diff)
	}

	// The memo answers: a planted answer comes back, on an untraced graph
	// only (a traced one must record its lookups, so it answers afresh).
	key := usersKey("a/a.go", []int{0})
	planted := Build(src)
	planted.memo.users.Store(key, []string{"planted"})
	if diff := cmp.Diff([]string{"planted"}, planted.Users("a/a.go", []int{0})); diff != "" {
		t.Errorf("Users did not answer from the memo (-want +got):\n%s", diff)
	}
	traced := BuildTraced(src, NewTrace())
	traced.memo.users.Store(key, []string{"planted"})
	if diff := cmp.Diff([]string{"b/b.go"}, traced.Users("a/a.go", []int{0})); diff != "" {
		t.Errorf("a traced graph's Users (-want +got):\n%s", diff)
	}

	// Two callers appending to their answers must not share memory, even
	// when the memo's slice has room to grow.
	roomy := Build(src)
	roomy.memo.users.Store(key, append(make([]string, 0, 8), "b/b.go"))
	x := append(roomy.Users("a/a.go", []int{0}), "x")
	y := append(roomy.Users("a/a.go", []int{0}), "y")
	if x[len(x)-1] != "x" || y[len(y)-1] != "y" {
		t.Errorf("appends to two answers share memory: %q, %q", x, y)
	}
}

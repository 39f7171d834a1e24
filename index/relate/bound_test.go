package relate

import (
	"strings"
	"testing"

	"github.com/ctxd/ctxd/index/indextest"
	"github.com/ctxd/ctxd/index/syntax"
	"github.com/google/go-cmp/cmp"
)

// TestGoUsersBoundGoSrc: on the Go source tree, the users of whole files
// with the dependents bound (goDependents) are the users without it. The
// bound only leaves out files that cannot use the target; this checks it
// never leaves out one that does, on a sample of the tree's Go files
// (every 150th; every 1,000th with -short).
//
// Under -race the workspace is a deterministic part of the tree
// (goSrcRaceSample: go/, net/ and cmd/go/, about 1,000 Go files of both
// modules, every 20th a target): extracting and relating the whole tree
// with the race detector took most of this package's minutes, and the
// comparison is sequential, so it finds no race the sample does not.
// `make test` runs the whole tree once more without -race.
func TestGoUsersBoundGoSrc(t *testing.T) {
	var src *memSource
	step := 150
	switch {
	case raceEnabled:
		src, step = goSrcRaceSample(t), 20
	case testing.Short():
		src, step = goSrcWorkspace(t), 1000
	default:
		src = goSrcWorkspace(t)
	}
	if src == nil {
		t.Skip("no Go source tree")
	}
	g := Build(src)
	var targets []string
	for i, p := range src.paths {
		if strings.HasSuffix(p, ".go") && src.syn[p] != nil && i%step == 0 {
			targets = append(targets, p)
		}
	}
	total := 0
	for _, p := range targets {
		total += compareBound(t, g, &goUsersBound, p, nil)
	}
	t.Logf("%d targets, %d users in all", len(targets), total)
	if total == 0 {
		t.Fatal("no target with users: the comparison proves nothing")
	}
}

// goSrcRaceSample extracts the part of GOROOT/src that TestGoUsersBoundGoSrc
// relates under -race: the trees of go/, net/ and cmd/go/ (packages that
// use one another, the standard library's module and the cmd module) and
// both go.mod files. It skips t when the tree is absent.
func goSrcRaceSample(t *testing.T) *memSource {
	t.Helper()
	src, err := loadGoSrc(func(rel string) bool {
		switch {
		case rel == "go.mod", rel == "cmd/go.mod":
			return true
		case strings.HasPrefix(rel, "go/"), strings.HasPrefix(rel, "net/"), strings.HasPrefix(rel, "cmd/go/"):
			return true
		}
		return false
	})
	if err != nil || src == nil {
		t.Skipf("no Go source tree: %v", err)
	}
	return src
}

// TestJSUsersBound: on the TypeScript and JavaScript golden workspaces
// (re-exports, members, workspace packages, tsconfig paths, CommonJS), the
// users of every file and of each of its symbols with the dependents
// bound (jsDependents) are the users without it.
func TestJSUsersBound(t *testing.T) {
	total := 0
	indextest.Goldens(t, "testdata/uses/[jt]s_*.txtar", func(t *testing.T, gl *indextest.Golden) {
		src, _ := parsedSource(t, gl.Files("queries", "want"))
		g := Build(src)
		for _, p := range src.paths {
			syn := src.syn[p]
			if syn == nil || syntax.FamilyForPath(p) != syntax.FamilyECMAScript {
				continue
			}
			queries := [][]int{nil}
			for i := range syn.Symbols {
				queries = append(queries, []int{i})
			}
			for _, syms := range queries {
				total += compareBound(t, g, &jsUsersBound, p, syms)
			}
		}
	})
	if total == 0 {
		t.Fatal("no target with users: the comparison proves nothing")
	}
}

// compareBound checks that Users(p, syms) is the same with the bound that
// flag turns on as without it, and returns how many users there are.
func compareBound(t *testing.T, g *Graph, flag *bool, p string, syms []int) int {
	t.Helper()
	defer func(b bool) { *flag = b }(*flag)
	*flag = false
	want := g.users(p, syms)
	*flag = true
	got := g.users(p, syms)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Users(%s, %v) with the bound (-without +with):\n%s", p, syms, diff)
	}
	return len(got)
}

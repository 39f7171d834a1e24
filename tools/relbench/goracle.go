package main

import (
	"fmt"
	"go/ast"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"
)

// Oracle is a compiler's answer for a whole tree: for each file it
// compiled, the files declaring the objects it uses, with counts. Users are
// the same edges read backwards, so one pass over the tree gives both
// directions exactly.
type Oracle struct {
	Used  map[string]map[string]int // file → declaring file → uses
	users map[string]map[string]int // declaring file → using file → uses
}

// NewOracle returns an oracle with the given used edges; users are derived.
func NewOracle(used map[string]map[string]int) *Oracle {
	o := &Oracle{Used: used, users: map[string]map[string]int{}}
	for from, decls := range used {
		for to, n := range decls {
			if o.users[to] == nil {
				o.users[to] = map[string]int{}
			}
			o.users[to][from] += n
		}
	}
	return o
}

// Known reports whether the oracle compiled a file.
func (o *Oracle) Known(path string) bool {
	_, ok := o.Used[path]
	return ok
}

// Truth is the oracle's answer for one target.
func (o *Oracle) Truth(target string) Truth {
	t := Truth{Used: map[string]int{}, Users: map[string]int{}}
	for p, n := range o.Used[target] {
		t.Used[p] = n
	}
	for p, n := range o.users[target] {
		t.Users[p] = n
	}
	return t
}

// goTree is the Go oracle's result: the oracle and the files a target may
// be drawn from.
type goTree struct {
	oracle     *Oracle
	candidates []string // sorted
	packages   int
	withErrors int
}

// loadGo type-checks patterns under root (GOROOT/src, or a module's copy
// with goEnv naming its module cache) with go/packages for the host
// GOOS/GOARCH, cgo off (so that every file the oracle sees is a
// file of the tree, not a cgo-generated one), test files included when
// tests is set. Every file is read once, whichever package variant (plain,
// or recompiled for its tests) comes first: positions are shared, so a use
// maps to the same declaring file in every variant.
func loadGo(root string, patterns []string, tests bool, goEnv []string) (*goTree, error) {
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedImports |
			packages.NeedDeps | packages.NeedTypes | packages.NeedSyntax | packages.NeedTypesInfo,
		Dir:   root,
		Tests: tests,
		Env:   append(append(os.Environ(), "CGO_ENABLED=0"), goEnv...),
		Fset:  token.NewFileSet(),
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, fmt.Errorf("loading %v: %w", patterns, err)
	}
	rel := func(name string) (string, bool) {
		r, err := filepath.Rel(root, name)
		if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return "", false
		}
		return filepath.ToSlash(r), true
	}
	tree := &goTree{}
	used := map[string]map[string]int{}
	cands := map[string]bool{}
	fileName := func(pos token.Pos) string {
		if f := cfg.Fset.File(pos); f != nil {
			return f.Name()
		}
		return ""
	}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		tree.packages++
		if len(p.Errors) > 0 || len(p.TypeErrors) > 0 {
			tree.withErrors++
		}
		if p.TypesInfo == nil {
			return
		}
		// The files of this variant not read yet.
		mine := map[string]string{} // absolute → relative
		for _, f := range p.Syntax {
			abs := fileName(f.FileStart)
			r, ok := rel(abs)
			if !ok {
				continue // a generated test main in the build cache
			}
			if plainVariant(p) && len(p.Errors) == 0 && len(p.TypeErrors) == 0 && targetCandidate(r, f) {
				cands[r] = true
			}
			if _, done := used[r]; done {
				continue
			}
			used[r] = map[string]int{}
			mine[abs] = r
		}
		if len(mine) == 0 {
			return
		}
		for id, obj := range p.TypesInfo.Uses {
			from, ok := mine[fileName(id.Pos())]
			if !ok || obj.Pkg() == nil || !obj.Pos().IsValid() {
				continue // another variant's file, or a universe object
			}
			to, ok := rel(fileName(obj.Pos()))
			if !ok || to == from {
				continue
			}
			used[from][to]++
		}
	})
	tree.oracle = NewOracle(used)
	for r := range cands {
		tree.candidates = append(tree.candidates, r)
	}
	slices.Sort(tree.candidates)
	return tree, nil
}

// plainVariant reports whether p is a package as built for a program, not a
// test variant ("p [p.test]", "p_test", "p.test").
func plainVariant(p *packages.Package) bool {
	return p.ID == p.PkgPath && !strings.HasSuffix(p.PkgPath, "_test") && !strings.HasSuffix(p.PkgPath, ".test")
}

// targetCandidate reports whether a file may be a target: a non-test file
// of the tree's own code (not vendored, not test data), not generated.
func targetCandidate(rel string, f *ast.File) bool {
	if strings.HasSuffix(rel, "_test.go") || ast.IsGenerated(f) {
		return false
	}
	for _, seg := range strings.Split(rel, "/") {
		if seg == "testdata" || seg == "vendor" {
			return false
		}
	}
	return true
}

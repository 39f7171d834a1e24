package relate

import (
	"strings"

	"github.com/ctxd/ctxd/index/syntax"
)

// goRequest: the directories an import path may name, in order:
//
//  1. the workspace module (any go.mod of the root) with the longest module
//     path that is the import path or a prefix of it: its directory plus
//     the rest of the path. The importer's own module wins over another
//     go.mod declaring the same path.
//  2. when the root holds the Go source tree (a go.mod of module std): a
//     path whose first element has no dot is a standard package, under the
//     std module's directory. This serves std, cmd and every other module
//     of the tree alike.
//  3. the vendor directory of the importer's module.
//
// GOPATH-era relative imports ("./x") name a directory relative to the
// importer, outside a module only: the go command rejects them in a module
// ("local import in non-local package"). The first directory holding Go
// files wins.
func (e *env) goRequest(f *fileFacts, p string, c *reqCtx) request {
	if p == "" || p == "C" {
		return request{}
	}
	var alts []string
	add := func(d string) {
		for _, a := range alts {
			if a == d {
				return
			}
		}
		alts = append(alts, d)
	}
	if strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") {
		if c.hasMod {
			return request{}
		}
		if d, ok := resolveRel(f.dir, p); ok {
			add(d)
		}
		return request{kind: reqGoDir, alts: alts}
	}
	if p[0] == '/' {
		return request{}
	}
	modDir, mod, hasMod := c.modDir, c.mod, c.hasMod
	if hasMod && mod != "" && mod != "std" && (p == mod || strings.HasPrefix(p, mod+"/")) {
		// The importer's own module, unless a nested module claims a
		// longer prefix.
		if d, rest, ok := e.moduleFor(p); ok && len(p)-len(rest) > len(mod)+1 {
			add(join(d, rest))
		} else {
			add(join(modDir, strings.TrimPrefix(p[len(mod):], "/")))
		}
	} else if d, rest, ok := e.moduleFor(p); ok {
		add(join(d, rest))
	}
	first, _, _ := strings.Cut(p, "/")
	if e.hasStd && !strings.Contains(first, ".") {
		add(join(e.stdRoot, p))
	}
	if hasMod {
		add(join(modDir, "vendor/"+p))
	}
	if len(alts) == 0 {
		return request{}
	}
	return request{kind: reqGoDir, alts: alts}
}

// goPackage appends the files of the Go package in dir as imported by f:
// the directory's non-test .go files, except that files of package main
// are left out when the directory also holds another package (they are
// `//go:build ignore` generators, which no import can reach). When f is a
// _test.go file of dir itself (an external test package importing the
// package under test), the in-package _test.go files of dir join: they are
// compiled into the package that test imports (export_test.go). Files
// without an extraction count as part of the package.
func (v *view) goPackage(f *fileFacts, dir string, out []int32) []int32 {
	get := func(ix *index) []int32 { return ix.goDirs[dir] }
	hasLib := v.goHasLib(dir)
	testing := f.lang == syntax.FamilyGo && f.goTest && f.dir == dir
	v.list(NeedGoDir, dir, get, func(n int32) {
		t := v.raw(n)
		switch {
		case !t.goTest:
			if !hasLib || t.goPkg != "main" {
				out = append(out, n)
			}
		case testing:
			if t.goPkg != "" && !strings.HasSuffix(t.goPkg, "_test") {
				out = append(out, n)
			}
		}
	})
	return out
}

// goHasLib reports whether the Go files of dir hold a package other than
// main (test files aside): an import of dir then reaches that package, not
// the main files beside it.
func (v *view) goHasLib(dir string) bool {
	hasLib := false
	v.list(NeedGoDir, dir, func(ix *index) []int32 { return ix.goDirs[dir] }, func(n int32) {
		t := v.raw(n)
		if !t.goTest && t.goPkg != "" && t.goPkg != "main" {
			hasLib = true
		}
	})
	return hasLib
}

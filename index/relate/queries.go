package relate

import (
	"cmp"
	"slices"
	"strings"

	"github.com/ctxd/ctxd/index/syntax"
)

// Imports returns the resolved import edges out of path, sorted by To then
// Via, one per (To, Via). An import that resolves to several files (a Go
// package, a Java wildcard, a C# namespace) gives one edge per file. An
// import resolving only to path itself gives no edge. Nil for a path not in
// the graph or without resolved imports.
func (g *Graph) Imports(path string) []Edge {
	if g == nil {
		return nil
	}
	v := g.view()
	self, ok := v.node(path)
	if !ok {
		return nil
	}
	f := v.file(self)
	var out []Edge
	var buf []int32
	for i := range f.reqs {
		buf = v.resolve(f, &f.reqs[i], buf[:0])
		for _, n := range buf {
			if n != self {
				out = append(out, Edge{From: path, To: v.raw(n).path, Kind: EdgeImport, Via: f.syn.Imports[i].Path})
			}
		}
	}
	slices.SortFunc(out, func(a, b Edge) int {
		return cmp.Or(cmp.Compare(a.To, b.To), cmp.Compare(a.Via, b.Via))
	})
	return slices.Compact(out)
}

// Unresolved returns, in source order, the imports of path that resolve to
// no workspace file: standard library and third-party packages, bare
// specifiers, missing files. Nil for a path not in the graph or whose
// imports all resolve.
func (g *Graph) Unresolved(path string) []syntax.Import {
	if g == nil {
		return nil
	}
	v := g.view()
	f := v.facts(path)
	if f == nil {
		return nil
	}
	var out []syntax.Import
	var buf []int32
	for i := range f.reqs {
		if buf = v.resolve(f, &f.reqs[i], buf[:0]); len(buf) == 0 {
			out = append(out, f.syn.Imports[i])
		}
	}
	return out
}

// Importers returns the files that import path (have an import edge to
// it), sorted; nil when there are none or path is not in the graph.
func (g *Graph) Importers(path string) []string {
	if g == nil {
		return nil
	}
	v := g.view()
	self, ok := v.node(path)
	if !ok {
		return nil
	}
	set := newNodeSet(v.size())
	var buf []int32
	for _, k := range v.reverseKeys(v.file(self)) {
		v.eachReg(k, func(n, req int32) {
			if n == self || set.has(n) {
				return
			}
			f := v.file(n)
			buf = v.resolve(f, &f.reqs[req], buf[:0])
			if slices.Contains(buf, self) {
				set.add(n)
			}
		})
	}
	return v.paths(set, -1)
}

// Definitions returns every symbol whose Name or QualifiedName is name,
// sorted by Path then Index; nil when there is none. Several definitions
// are all returned: the graph never guesses which one a name means.
func (g *Graph) Definitions(name string) []SymbolRef {
	if g == nil || name == "" {
		return nil
	}
	v := g.view()
	var locs []symLoc
	v.eachSym(name, func(n, sym int32) { locs = append(locs, symLoc{n, sym}) })
	// A qualified name "T.M" is found through its last segment: the index
	// holds plain names only. Each dot is tried, in case a Name holds one.
	for i := range len(name) {
		if name[i] != '.' {
			continue
		}
		v.eachSym(name[i+1:], func(n, sym int32) {
			if s := v.file(n).syn.Symbols[sym]; s.QualifiedName == name && s.Name != name {
				locs = append(locs, symLoc{n, sym})
			}
		})
	}
	return v.symbolRefs(locs)
}

// symbolRefs converts symbol locations to sorted SymbolRefs.
func (v *view) symbolRefs(locs []symLoc) []SymbolRef {
	if len(locs) == 0 {
		return nil
	}
	out := make([]SymbolRef, len(locs))
	for i, l := range locs {
		f := v.file(l.file)
		s := f.syn.Symbols[l.sym]
		out[i] = SymbolRef{Path: f.path, Index: int(l.sym), Name: s.Name, QualifiedName: s.QualifiedName, Kind: s.Kind}
	}
	slices.SortFunc(out, func(a, b SymbolRef) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Index, b.Index))
	})
	return out
}

// BaseTypes returns the definitions of the Bases of symbol (an index into
// path's Symbols), sorted by Path then Index; nil for a symbol without bases
// that resolve, out of range, or a path not in the graph.
//
// A base resolves by its last segment ("io.Reader", "a::b::Trait",
// "A.B.Name" → Reader, Trait, Name) to the class, interface, struct, enum
// and type-alias symbols of that name, the symbol itself excluded. When
// there are several, two narrowing steps apply, each only if it keeps at
// least one candidate:
//
//  1. a qualified base keeps the candidates its qualifier matches: the
//     qualified name ends with the written one, or the candidate's file
//     has that Java/Go package, C# namespace, directory or module name;
//  2. the first non-empty of these tiers is kept: the candidates in path
//     itself; in files path imports; in path's own package (directory,
//     Java package, C#/C++ namespace). For an unqualified Go base the own
//     package comes before imports, since Go qualifies imported names.
//
// What is left is returned, however many: ambiguity within a tier is
// returned, never guessed, and when nothing narrows that is every
// candidate.
func (g *Graph) BaseTypes(path string, symbol int) []SymbolRef {
	if g == nil {
		return nil
	}
	v := g.view()
	self, ok := v.node(path)
	if !ok {
		return nil
	}
	f := v.file(self)
	if f.syn == nil || symbol < 0 || symbol >= len(f.syn.Symbols) {
		return nil
	}
	var locs []symLoc
	var imps *importSet
	for _, b := range f.syn.Symbols[symbol].Bases {
		locs = append(locs, v.resolveBase(f, self, int32(symbol), b, &imps, nil)...)
	}
	slices.SortFunc(locs, func(a, b symLoc) int { return cmp.Or(cmp.Compare(a.file, b.file), cmp.Compare(a.sym, b.sym)) })
	return v.symbolRefs(slices.Compact(locs))
}

// importSet is the set of files a file imports, computed when first needed.
type importSet struct{ ids []int32 }

func (s *importSet) has(n int32) bool {
	_, ok := slices.BinarySearch(s.ids, n)
	return ok
}

// baseCands are the candidates of a base as written: the type symbols named
// by its last segment, and for a qualified base which of them the qualifier
// matches. They do not depend on the file the base is written in, so a
// search over many files computes them once per base.
type baseCands struct {
	qualified bool
	locs      []symLoc
	match     []bool // parallel to locs, when qualified
}

func (v *view) baseCandidates(base string, cache map[string]*baseCands) *baseCands {
	if c, ok := cache[base]; ok {
		return c
	}
	qual, name := splitBase(base)
	c := &baseCands{}
	if name != "" {
		v.eachSym(name, func(n, s int32) {
			if v.file(n).syn.Symbols[s].Kind.IsType() {
				c.locs = append(c.locs, symLoc{n, s})
			}
		})
		if q := trimRustAnchors(qual); len(q) > 0 {
			c.qualified = true
			if len(c.locs) > 1 {
				m := newQualifier(q, name)
				c.match = make([]bool, len(c.locs))
				for i, l := range c.locs {
					c.match[i] = m.matches(v.file(l.file), l.sym)
				}
			}
		}
	}
	if cache != nil {
		cache[base] = c
	}
	return c
}

// resolveBase resolves one base written on symbol sym of file f (id self)
// as BaseTypes documents; *imps caches f's imports across calls, cache
// (which may be nil) the candidates of each base.
func (v *view) resolveBase(f *fileFacts, self, sym int32, base string, imps **importSet, cache map[string]*baseCands) []symLoc {
	c := v.baseCandidates(base, cache)
	var cands, matched []symLoc
	for i, l := range c.locs {
		if l.file == self && l.sym == sym {
			continue
		}
		cands = append(cands, l)
		if c.match != nil && c.match[i] {
			matched = append(matched, l)
		}
	}
	if len(cands) <= 1 {
		return cands
	}
	if len(matched) > 0 {
		cands = matched
		if len(cands) == 1 {
			return cands
		}
	}
	inFile := func(l symLoc) bool { return l.file == self }
	imported := func(l symLoc) bool {
		if *imps == nil {
			*imps = &importSet{ids: v.imports(f)}
		}
		return (*imps).has(l.file)
	}
	local := func(l symLoc) bool { return samePackage(f, v.file(l.file)) }
	tiers := []func(symLoc) bool{inFile, imported, local}
	if f.lang == syntax.FamilyGo && !c.qualified {
		// An unqualified Go base is declared in the package itself:
		// imported names are always qualified.
		tiers = []func(symLoc) bool{inFile, local, imported}
	}
	for _, keep := range tiers {
		var out []symLoc
		for _, l := range cands {
			if keep(l) {
				out = append(out, l)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return cands
}

func trimRustAnchors(q []string) []string {
	for len(q) > 0 && (q[0] == "crate" || q[0] == "self" || q[0] == "super") {
		q = q[1:]
	}
	return q
}

// qualifier is the qualifier of a base type ("io" of "io.Reader", "a::b"
// of "a::b::Trait"), prepared for matching against candidates.
type qualifier struct {
	dotted  string // "a.b"
	last    string // "b"
	full    string // ".a.b.Name": a suffix of the candidate's qualified name
	slashed string // "a/b": a suffix of the candidate's directory
}

func newQualifier(q []string, name string) qualifier {
	dotted := strings.Join(q, ".")
	return qualifier{dotted: dotted, last: q[len(q)-1], full: "." + dotted + "." + name, slashed: strings.Join(q, "/")}
}

// matches reports whether the qualifier plausibly designates symbol sym of
// f: the symbol's qualified name ends with the written name, or f has that
// Java/Go package, C# or C++ namespace, directory or module file name.
func (m *qualifier) matches(f *fileFacts, sym int32) bool {
	qn := f.syn.Symbols[sym].QualifiedName
	if qn == m.full[1:] || strings.HasSuffix(qn, m.full) {
		return true
	}
	if p := f.syn.Package; p != "" && (p == m.dotted || p == m.last || (strings.HasSuffix(p, m.dotted) && p[len(p)-len(m.dotted)-1] == '.')) {
		return true
	}
	for _, ns := range f.syn.Namespaces {
		if ns == m.dotted || (strings.HasSuffix(ns, m.dotted) && ns[len(ns)-len(m.dotted)-1] == '.') {
			return true
		}
	}
	if f.dir == m.slashed || (strings.HasSuffix(f.dir, m.slashed) && f.dir[len(f.dir)-len(m.slashed)-1] == '/') {
		return true
	}
	stem := baseOf(f.path)
	if i := strings.IndexByte(stem, '.'); i >= 0 {
		stem = stem[:i]
	}
	return stem == m.last
}

// samePackage reports whether t is in f's own package: the same directory,
// the same Java package, or a shared C#/C++ namespace.
func samePackage(f, t *fileFacts) bool {
	if f.dir == t.dir {
		return true
	}
	if f.syn == nil || t.syn == nil {
		return false
	}
	if f.lang == syntax.FamilyJava && t.lang == syntax.FamilyJava && f.syn.Package != "" && f.syn.Package == t.syn.Package {
		return true
	}
	a, b := f.syn.Namespaces, t.syn.Namespaces
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] == b[j]:
			return true
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return false
}

// Callees returns the files that define a name path references: every
// file with a symbol (top-level or member: a method, a field) whose Name is
// among path's Refs, path excluded, sorted. Names are matched exactly and
// without scope, so a common name ("String", "Error") relates path to
// every file defining it; ranking decides what that is worth. Nil when
// none or path is not in the graph.
func (g *Graph) Callees(path string) []string {
	if g == nil {
		return nil
	}
	v := g.view()
	self, ok := v.node(path)
	if !ok {
		return nil
	}
	f := v.file(self)
	if f.syn == nil {
		return nil
	}
	set := newNodeSet(v.size())
	add := func(n int32) { set.add(n) }
	for _, r := range f.syn.Refs {
		v.eachDef(r, add)
	}
	return v.paths(set, self)
}

// Callers returns the files whose Refs contain a Name of one of path's
// symbols (top-level or member), path excluded, sorted: the reverse of
// Callees. Nil when none or path is not in the graph.
func (g *Graph) Callers(path string) []string {
	if g == nil {
		return nil
	}
	v := g.view()
	self, ok := v.node(path)
	if !ok {
		return nil
	}
	return v.referrers(v.file(self).symbolNames(), self)
}

// referrers returns the sorted paths of the files whose Refs contain one
// of names, without skip (-1: none).
func (v *view) referrers(names []string, skip int32) []string {
	set := newNodeSet(v.size())
	add := func(n int32) { set.add(n) }
	for _, name := range names {
		v.eachRef(name, add)
	}
	return v.paths(set, skip)
}

// configNames are the config and build files of each language family, in
// the order they are listed when found in the same directory.
var configNames = map[syntax.Family][]string{
	syntax.FamilyGo:         {"go.mod", "go.work"},
	syntax.FamilyECMAScript: {"package.json", "tsconfig.json", "jsconfig.json"},
	syntax.FamilyPython:     {"pyproject.toml", "setup.cfg", "setup.py", "requirements.txt"},
	syntax.FamilyJava:       {"pom.xml", "build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts"},
	syntax.FamilyRust:       {"Cargo.toml"},
	syntax.FamilyC:          {"CMakeLists.txt", "Makefile", "meson.build"},
}

// ConfigFiles returns the config and build files relevant to path's
// language (decided by its extension), nearest first: for each name of the
// language (go.mod and go.work; package.json, tsconfig.json and
// jsconfig.json; pyproject.toml, setup.cfg, setup.py and requirements.txt;
// pom.xml, build.gradle(.kts) and settings.gradle(.kts); Cargo.toml;
// CMakeLists.txt, Makefile and meson.build) the occurrence in the nearest
// directory at or above path's; for C#, every *.csproj of the nearest
// directory holding one (never a *.sln). The
// Makefile at the root, when there is one, is relevant to every language
// and comes last. path itself is never listed. Nil for a path not in the
// graph or of no known language.
func (g *Graph) ConfigFiles(path string) []string {
	if g == nil {
		return nil
	}
	v := g.view()
	f := v.facts(path)
	if f == nil || f.lang == syntax.FamilyNone {
		return nil
	}
	names := configNames[f.lang]
	found := make([]bool, len(names))
	foundProj := false
	var out []string
	add := func(p string) {
		if p != path && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	ancestors(f.dir, func(d string) bool {
		for i, name := range names {
			if !found[i] && v.exists(join(d, name)) {
				found[i] = true
				add(join(d, name))
			}
		}
		if f.lang == syntax.FamilyCSharp {
			// A solution file (.sln) lists projects by GUID: it says
			// nothing about the code, so it is never a config file of
			// one (it can still be a target).
			var projs []string
			v.list(NeedProject, d, func(ix *index) []int32 { return ix.projects[d] }, func(n int32) {
				if p := v.file(n).path; strings.HasSuffix(p, ".csproj") {
					projs = append(projs, p)
				}
			})
			if !foundProj && len(projs) > 0 {
				foundProj = true
				slices.Sort(projs)
				for _, p := range projs {
					add(p)
				}
			}
		}
		return true
	})
	if v.exists("Makefile") {
		add("Makefile")
	}
	return out
}

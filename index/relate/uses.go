package relate

import (
	"cmp"
	gotoken "go/token"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxd/ctxd/index/syntax"
)

// A useResolver resolves one use of file f (see [syntax.Use]) to the
// declarations it names, appending them to out. Each language family with
// a uses extractor registers one from its file's init; the others resolve
// through fallbackResolve. A resolver must be deterministic and must not
// modify f or the view; c caches per-query work for f.
type useResolver func(v *view, f *fileFacts, u *syntax.Use, c *useCtx, out []symLoc) []symLoc

var useResolvers = map[syntax.Family]useResolver{}

// registerResolver installs the use resolver of a language family.
func registerResolver(l syntax.Family, r useResolver) { useResolvers[l] = r }

// A userFilter decides whether file f may be a user of target t (Go: f
// builds for t's platform) and may prepare c for resolving f's uses.
type userFilter func(v *view, t, f *fileFacts, c *useCtx) bool

var userFilters = map[syntax.Family]userFilter{}

// registerUserFilter installs the user filter of a target's language
// family.
func registerUserFilter(l syntax.Family, fn userFilter) { userFilters[l] = fn }

// A userAliases hook returns, for the target self of Users and the names of
// its given symbols, the other names they are exported under (TypeScript
// `export {a as b} from`) and the files that forward them (re-exporters,
// whose importers are candidate users too).
type userAliases func(v *view, self int32, names []string) (more []string, proxies []int32)

var userAliasHooks = map[syntax.Family]userAliases{}

// useCtx caches what resolving several uses of one file computes once: the
// files it imports, and whatever a language's resolver keeps (keyed by a
// string private to that resolver).
type useCtx struct {
	imports    []int32
	hasImports bool
	memo       map[string][]symLoc
	data       map[string]any
}

func newUseCtx() *useCtx { return &useCtx{memo: map[string][]symLoc{}, data: map[string]any{}} }

// importsOf returns the sorted ids of the files f imports (f excluded).
func (c *useCtx) importsOf(v *view, f *fileFacts) []int32 {
	if !c.hasImports {
		c.imports, c.hasImports = v.imports(f), true
	}
	return c.imports
}

// resolveUse resolves one use of f, memoised per distinct use.
func (v *view) resolveUse(f *fileFacts, u *syntax.Use, c *useCtx) []symLoc {
	key := u.Name + "\x00" + u.From + "\x00" + u.Recv
	if u.Member {
		key += "\x00m"
	}
	if r, ok := c.memo[key]; ok {
		return r
	}
	var out []symLoc
	if r := useResolvers[f.lang]; r != nil && resolved(f) {
		out = r(v, f, u, c, nil)
	} else {
		out = fallbackResolve(v, f, u, c, nil)
	}
	out = sortLocs(out)
	c.memo[key] = out
	return out
}

func sortLocs(ls []symLoc) []symLoc {
	slices.SortFunc(ls, func(a, b symLoc) int {
		if c := cmp.Compare(a.file, b.file); c != 0 {
			return c
		}
		return cmp.Compare(a.sym, b.sym)
	})
	return slices.Compact(ls)
}

// resolved reports whether f's uses come from its language's extractor and
// are resolved by its language's resolver (rather than by name).
func resolved(f *fileFacts) bool {
	return f.syn != nil && useResolvers[f.lang] != nil && syntax.HasUses(f.syn.Language)
}

// usesOf returns the uses a query resolves for f: its extracted Uses, or,
// for a file whose language has no uses extractor, one unqualified use per
// name of its Refs.
func usesOf(f *fileFacts) []syntax.Use {
	if f.syn == nil {
		return nil
	}
	if resolved(f) {
		return f.syn.Uses
	}
	out := make([]syntax.Use, len(f.syn.Refs))
	for i, r := range f.syn.Refs {
		out[i] = syntax.Use{Name: r}
	}
	return out
}

// Resolve returns the declarations of the root that uses of the file at
// path resolve to, through the language's scopes and imports (see
// docs/relations.md for what each language resolves): deduplicated,
// sorted by path then symbol index. uses are uses of that file, typically
// those of a region of it ([syntax.Uses] filtered by span); nil uses means
// every use of the file as indexed. Declarations of path itself are
// included. Nil when path is not in the graph or nothing resolves.
func (g *Graph) Resolve(path string, uses []syntax.Use) []SymbolRef {
	v, self, ok := g.at(path)
	if !ok {
		return nil
	}
	f := v.file(self)
	if uses == nil {
		uses = usesOf(f)
	}
	c := newUseCtx()
	var locs []symLoc
	for i := range uses {
		locs = append(locs, v.resolveUse(f, &uses[i], c)...)
	}
	return v.symbolRefs(sortLocs(locs))
}

// at returns the graph's view and the node of path; ok is false for a nil
// graph or a path not in it.
func (g *Graph) at(path string) (v *view, self int32, ok bool) {
	if g == nil {
		return nil, 0, false
	}
	v = g.view()
	self, ok = v.node(path)
	return v, self, ok
}

// Users returns the files other than path with a use that resolves to one
// of the given symbols of path (indexes into its syntax.File.Symbols; every
// symbol of the file when syms is nil): the callers of seed 002, found by
// resolution rather than by name. Candidates are the files whose Refs
// contain a symbol's name or that import path; each is kept only when one
// of its uses resolves to a given symbol. Sorted; nil when none.
func (g *Graph) Users(path string, syms []int) []string {
	// A traced graph records the lookups of each query, so it answers
	// every one afresh.
	if g.trace != nil {
		return g.users(path, syms)
	}
	key := usersKey(path, syms)
	if got, ok := g.memo.users.Load(key); ok {
		return slices.Clip(got.([]string))
	}
	got := g.users(path, syms)
	g.memo.users.Store(key, got)
	// Clipped: a caller's append must not write into the memo.
	return slices.Clip(got)
}

// usersKey identifies one question to Users.
func usersKey(path string, syms []int) string {
	var b strings.Builder
	b.WriteString(path)
	if syms == nil {
		return b.String()
	}
	b.WriteByte(0)
	for _, i := range syms {
		b.WriteString(strconv.Itoa(i))
		b.WriteByte(',')
	}
	return b.String()
}

// users is Users without the memo.
func (g *Graph) users(path string, syms []int) []string {
	v, self, ok := g.at(path)
	if !ok {
		return nil
	}
	t := v.file(self)
	if t.syn == nil {
		return nil
	}
	if syms == nil {
		syms = make([]int, len(t.syn.Symbols))
		for i := range syms {
			syms[i] = i
		}
	}
	want := map[int32]bool{}
	var names []string
	for _, i := range syms {
		if i < 0 || i >= len(t.syn.Symbols) {
			continue
		}
		want[int32(i)] = true
		names = append(names, t.syn.Symbols[i].Name)
	}
	slices.Sort(names)
	names = slices.Compact(names)
	var proxies []int32
	if fn := userAliasHooks[t.lang]; fn != nil {
		var more []string
		more, proxies = fn(v, self, names)
		names = append(names, more...)
		slices.Sort(names)
		names = slices.Compact(names)
	}
	// A Go declaration is used only from the directories of the packages
	// that depend on its own (goDependents): the candidates are their
	// files that reference a name, looked up directory by directory, so
	// that a build before the parse needs no other file.
	cand := newNodeSet(v.size())
	if t.lang == syntax.FamilyGo && goUsersBound {
		for _, dir := range slices.Sorted(maps.Keys(v.goDependents(t.dir))) {
			for _, name := range names {
				if dir != t.dir && !gotoken.IsExported(name) {
					// Only its own package names an unexported
					// declaration (goResolve).
					continue
				}
				v.eachGoRefIn(dir, name, func(n int32) { cand.add(n) })
			}
		}
	} else if t.lang == syntax.FamilyECMAScript && jsUsersBound {
		// Likewise an ECMAScript declaration is used only from its
		// module's transitive importers (jsDependents), whose Refs are
		// at hand: the build needs no file that merely mentions a name.
		deps := v.jsDependents(self)
		for _, m := range v.jsAugmented(t, self) {
			// Stream.ts augments Effect.ts's interfaces: their users
			// import Effect.ts, not Stream.ts.
			for n := range v.jsDependents(m) {
				deps[n] = true
			}
		}
		for n := range deps {
			f := v.file(n)
			if f == nil || f.syn == nil {
				continue
			}
			if slices.ContainsFunc(names, func(name string) bool {
				_, ok := slices.BinarySearch(f.syn.Refs, name)
				return ok
			}) {
				cand.add(n)
			}
		}
	} else {
		for _, name := range names {
			v.eachRef(name, func(n int32) { cand.add(n) })
		}
	}
	for _, k := range v.reverseKeys(t) {
		v.eachReg(k, func(n, _ int32) { cand.add(n) })
	}
	for _, p := range proxies {
		for _, k := range v.reverseKeys(v.file(p)) {
			v.eachReg(k, func(n, _ int32) { cand.add(n) })
		}
	}
	users := newNodeSet(v.size())
	for n := range int32(v.size()) {
		if n == self || !cand.has(n) || !v.live(n) {
			continue
		}
		f := v.file(n)
		if f == nil || f.syn == nil {
			continue
		}
		c := newUseCtx()
		if keep := userFilters[t.lang]; keep != nil && !keep(v, t, f, c) {
			continue
		}
		for _, u := range usesOf(f) {
			if !userCandidate(&u, names) {
				continue
			}
			if slices.ContainsFunc(v.resolveUse(f, &u, c), func(l symLoc) bool { return l.file == self && want[l.sym] }) {
				users.add(n)
				break
			}
		}
	}
	return v.paths(users, self)
}

// goUsersBound and jsUsersBound turn on the dependents bounds of Go users
// (goDependents) and of ECMAScript users (jsDependents); variables so that
// a test can compare the answers without them.
var (
	goUsersBound = true
	jsUsersBound = true
)

// jsDependents returns self and the ECMAScript files that import the
// module at node self, directly or through other such files. A
// file outside them cannot reach a declaration of self: resolveJS follows
// a name only through the file's own import requests and the re-exports
// of the modules they name, and a member only through the types those
// declare and the imports of the modules its uses resolve to, so every
// declaration it reaches is in a module of the file's transitive imports.
// On a large tree this keeps the users of a module's common names
// ("provider", "get") to the files that depend on it, rather than every
// file that mentions them.
func (v *view) jsDependents(self int32) map[int32]bool {
	return closure(self, func(n int32, add func(int32)) {
		t := v.file(n)
		if t == nil {
			return
		}
		for _, k := range v.reverseKeys(t) {
			v.eachReg(k, func(m, _ int32) {
				if f := v.file(m); f != nil && f.lang == syntax.FamilyECMAScript {
					add(m)
				}
			})
		}
	})
}

// goDependents returns the directories whose Go files can use a
// declaration of the Go package in dir: dir itself and every directory
// whose Go files import it, directly or through the packages of other such
// directories. A Go file outside them cannot name the package, and cannot
// hold a value of one of its types either: every step by which the
// resolver reaches a declaration of another package (a qualified name, a
// call's or a field's declared type, an embedded type) follows an import
// of the file that states it, so the package whose declaration it reaches
// is among the file's package's transitive imports. On a large tree this
// keeps the users of a file's common member names ("ID", "String") to the
// packages that depend on it, rather than every file that mentions them.
//
// A directory whose test files alone import a dependent is a dependent
// too, but the closure does not go on from it: no import reaches a test
// file (goPackage leaves them out, except for the directory's own tests),
// nor a file of package main in a directory that holds another package (a
// `//go:build ignore` generator), so a file importing that directory's
// package cannot reach the declaration through it. Without this, the
// table generator of package time, which imports net/http, made every
// importer of time (of os, of fmt) a candidate user of net/http.
func (v *view) goDependents(dir string) map[string]bool {
	out := map[string]bool{dir: true}
	queue := []string{dir}
	through := map[string]bool{dir: true} // directories the closure went on from
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		v.eachReg("go:"+d, func(n, _ int32) {
			f := v.file(n)
			if f == nil || f.lang != syntax.FamilyGo {
				return
			}
			out[f.dir] = true
			if !f.goTest && !through[f.dir] && !(f.goPkg == "main" && v.goHasLib(f.dir)) {
				through[f.dir] = true
				queue = append(queue, f.dir)
			}
		})
	}
	return out
}

// closure returns start and everything next reaches from it, directly or
// through what it reached: next(x, add) calls add for each neighbour of x.
func closure[T comparable](start T, next func(x T, add func(T))) map[T]bool {
	seen := map[T]bool{start: true}
	queue := []T{start}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		next(x, func(y T) {
			if !seen[y] {
				seen[y] = true
				queue = append(queue, y)
			}
		})
	}
	return seen
}

// userCandidate reports whether use u of another file may name one of the
// target's symbols: a use of one of the names, or one that names a whole
// module or a default export (whose local name differs).
func userCandidate(u *syntax.Use, names []string) bool {
	if _, ok := slices.BinarySearch(names, u.Name); ok {
		return true
	}
	return u.Name == "" || u.Name == "default" || u.Name == "*"
}

// fallbackResolve resolves a use by name for languages without a uses
// extractor: an unqualified name to the top-level declarations of that name
// in the file itself, in the files it imports, and for languages whose
// package members are visible without import (Go, Java), in the files of
// its package; a member name to the members of that name of the same
// files.
func fallbackResolve(v *view, f *fileFacts, u *syntax.Use, c *useCtx, out []symLoc) []symLoc {
	if u.Name == "" {
		return out
	}
	self, _ := v.node(f.path)
	imps := c.importsOf(v, f)
	v.eachSym(u.Name, func(n, sym int32) {
		t := v.file(n)
		s := &t.syn.Symbols[sym]
		if (s.Container != "") != u.Member {
			return
		}
		_, imported := slices.BinarySearch(imps, n)
		switch {
		case n == self, imported:
		case f.lang.SamePackageVisible() && t.lang == f.lang && samePackage(f, t):
		default:
			return
		}
		out = append(out, symLoc{file: n, sym: sym})
	})
	return out
}

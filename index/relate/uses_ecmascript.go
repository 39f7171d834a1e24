package relate

import (
	"slices"
	"strconv"
	"strings"

	"github.com/ctxd/ctxd/index/syntax"
)

// TypeScript and JavaScript resolution (docs/relations.md, "Resolution:
// TypeScript and JavaScript"): a use names the module it comes from; the
// module is found by the file's import requests, and the name among the
// module's exports, following re-exports (named, `export *`, namespace
// re-exports) to the declaring files.

func init() { registerResolver(syntax.FamilyECMAScript, resolveJS) }

// jsMaxDepth bounds a re-export chain.
const jsMaxDepth = 16

func resolveJS(v *view, f *fileFacts, u *syntax.Use, c *useCtx, out []symLoc) []symLoc {
	self, ok := v.node(f.path)
	if !ok {
		return out
	}
	if u.Member {
		return v.jsMember(f, self, u, c, out)
	}
	if u.From == "" {
		if u.Name == "" {
			return out
		}
		return jsTopLevel(v, self, u.Name, out)
	}
	seen := map[jsKey]bool{}
	start := len(out)
	mods := v.jsModule(f, self, u.From, c)
	for _, m := range mods {
		out = v.jsExport(m, u.Name, c, seen, 0, out)
	}
	if len(out) == start && u.Name != "" {
		for _, m := range mods {
			if b := v.jsBroken(m, u.Name, c, map[int32]bool{}, 0); b >= 0 {
				out = jsWhole(v.file(b), b, out)
				break
			}
		}
	}
	for i := start; i < len(out); i++ {
		out = v.jsAugmentations(out[i], c, out)
	}
	return out
}

// jsAugmentations appends the declarations that augment the interface or
// namespace at l from other modules: `declare module "./Effect.js" {
// interface Effect<A> … }` in Stream.ts adds to Effect.ts's Effect, and
// the compiler merges both into the one type a user of Effect sees. The
// augmenting declaration is a symbol whose Container is the module
// specifier (the `declare module` symbol's name); the specifier must
// resolve, from the augmenting file, to l's file.
func (v *view) jsAugmentations(l symLoc, c *useCtx, out []symLoc) []symLoc {
	t := v.file(l.file)
	if t == nil || t.syn == nil {
		return out
	}
	sym := &t.syn.Symbols[l.sym]
	if sym.Container != "" || (sym.Kind != syntax.Interface && sym.Kind != syntax.Class && sym.Kind != syntax.Namespace) {
		return out
	}
	key := "jsaug\x00" + strconv.Itoa(int(l.file)) + "\x00" + sym.Name
	if r, ok := c.memo[key]; ok {
		return append(out, r...)
	}
	var found []symLoc
	v.eachSym(sym.Name, func(n, i int32) {
		a := v.file(n)
		if n == l.file || a == nil || a.syn == nil {
			return
		}
		// The container may also be an outer namespace of that name:
		// only a declared module augments.
		spec := a.syn.Symbols[i].Container
		if spec == "" || !jsDeclaresModule(a, spec) {
			return
		}
		if slices.Contains(v.jsModule(a, n, spec, c), l.file) {
			found = append(found, symLoc{file: n, sym: i})
		}
	})
	c.memo[key] = found
	return append(out, found...)
}

// jsAugmented returns the modules file t (node self) augments: those its
// top-level `declare module "spec"` declarations resolve to.
func (v *view) jsAugmented(t *fileFacts, self int32) []int32 {
	var out []int32
	c := newUseCtx()
	for i := range t.syn.Symbols {
		if s := &t.syn.Symbols[i]; s.Kind == syntax.Module && s.Container == "" {
			out = append(out, v.jsModule(t, self, s.Name, c)...)
		}
	}
	return out
}

// jsDeclaresModule reports whether file t has a `declare module "spec"`
// (a Module symbol named spec, at its top level).
func jsDeclaresModule(t *fileFacts, spec string) bool {
	for i := range t.syn.Symbols {
		if s := &t.syn.Symbols[i]; s.Kind == syntax.Module && s.Container == "" && s.Name == spec {
			return true
		}
	}
	return false
}

// jsBroken returns the first module with syntax errors on the way name
// takes out of module n (n itself, then the sources of its re-exports of
// name and its `export *`, in source order), or -1. A declaration the
// parser lost to an error cannot be found by name, yet the import
// resolved and the compiler, which parses the file, finds it there:
// effect's Function.ts, whose overloaded type literal the grammar
// rejects, declares `dual`, which nearly every module imports. Relating
// the broken file as a whole keeps it a dependency; guessing a
// declaration inside it would not be better than its first one.
func (v *view) jsBroken(n int32, name string, c *useCtx, seen map[int32]bool, depth int) int32 {
	t := v.file(n)
	if t == nil || t.syn == nil || seen[n] || depth > jsMaxDepth {
		return -1
	}
	seen[n] = true
	if t.syn.HasErrors {
		return n
	}
	for _, b := range t.syn.Bindings {
		if !b.Export || b.From == "" || (b.Name != name && (b.Name != "*" || name == "default")) {
			continue
		}
		orig := b.Orig
		if b.Name == "*" {
			orig = name
		}
		if orig == "*" {
			continue // a namespace re-export: jsExport already took the module
		}
		for _, m := range v.jsModule(t, n, b.From, c) {
			if r := v.jsBroken(m, orig, c, seen, depth+1); r >= 0 {
				return r
			}
		}
	}
	return -1
}

type jsKey struct {
	file int32
	name string
}

// jsModule returns the file a module specifier of file f (node self) names,
// through the request of the import that wrote it, memoised in c.
func (v *view) jsModule(f *fileFacts, self int32, spec string, c *useCtx) []int32 {
	key := "js\x00" + strconv.Itoa(int(self)) + "\x00" + spec
	if r, ok := c.data[key]; ok {
		return r.([]int32)
	}
	var out []int32
	found := false
	if f.syn != nil {
		for i, imp := range f.syn.Imports {
			if imp.Path == spec && i < len(f.reqs) {
				out = v.resolve(f, &f.reqs[i], out)
				found = true
				break
			}
		}
	}
	if !found {
		req := jsRequest(f, spec, v.e.nearestTS(f.dir))
		v.e.jsPackageRequest(f, spec, &req)
		out = v.resolve(f, &req, out)
	}
	for i, n := range out {
		if n == self {
			out = append(out[:i], out[i+1:]...)
			break
		}
	}
	c.data[key] = out
	return out
}

// jsExport appends the declarations that module n exports as name: an
// exported top-level declaration, else an exported binding of that name
// (followed to its module), else the first `export *` source that exports
// it. "" is the module as a whole (see jsWhole); "default" the default
// export. A CommonJS module (no ESM export found) exports its top-level
// declarations by name and itself as the default.
func (v *view) jsExport(n int32, name string, c *useCtx, seen map[jsKey]bool, depth int, out []symLoc) []symLoc {
	t := v.file(n)
	if t == nil || t.syn == nil || depth > jsMaxDepth {
		return out
	}
	k := jsKey{n, name}
	if seen[k] {
		return out
	}
	seen[k] = true
	if name == "" {
		return jsWhole(t, n, out)
	}
	start := len(out)
	if name != "default" {
		for i, s := range t.syn.Symbols {
			if s.Container == "" && s.Exported && s.Name == name {
				out = append(out, symLoc{file: n, sym: int32(i)})
			}
		}
		if len(out) > start {
			return out
		}
	}
	for _, b := range t.syn.Bindings {
		if !b.Export || b.Name != name {
			continue
		}
		if b.From == "" {
			if b.Orig == "" {
				return jsWhole(t, n, out)
			}
			return jsTopLevel(v, n, b.Orig, out)
		}
		for _, m := range v.jsModule(t, n, b.From, c) {
			if b.Orig == "*" {
				out = jsWhole(v.file(m), m, out)
			} else {
				out = v.jsExport(m, b.Orig, c, seen, depth+1, out)
			}
		}
		return out
	}
	if name != "default" {
		// export * re-exports every name but default; the first source
		// in source order that has the name wins.
		for _, b := range t.syn.Bindings {
			if !b.Export || b.Name != "*" {
				continue
			}
			for _, m := range v.jsModule(t, n, b.From, c) {
				out = v.jsExport(m, name, c, seen, depth+1, out)
			}
			if len(out) > start {
				return out
			}
		}
	}
	if jsHasESMExports(t) {
		return out
	}
	if name == "default" {
		return jsWhole(t, n, out)
	}
	return jsTopLevel(v, n, name, out)
}

// jsHasESMExports reports whether a module exports anything by ESM syntax
// (an exported declaration or an export binding).
func jsHasESMExports(t *fileFacts) bool {
	for _, s := range t.syn.Symbols {
		if s.Container == "" && s.Exported {
			return true
		}
	}
	for _, b := range t.syn.Bindings {
		if b.Export {
			return true
		}
	}
	return false
}

// jsTopLevel appends the top-level declarations of file n named name.
func jsTopLevel(v *view, n int32, name string, out []symLoc) []symLoc {
	t := v.file(n)
	if t == nil || t.syn == nil {
		return out
	}
	for i, s := range t.syn.Symbols {
		if s.Container == "" && s.Name == name {
			out = append(out, symLoc{file: n, sym: int32(i)})
		}
	}
	return out
}

// jsWhole is what a use of a whole module (a namespace used as a value, a
// side-effect import, require("m") without a member) resolves to: the
// module's first exported top-level declaration, else its first top-level
// declaration, so that the file is a dependency; nothing for a module
// without declarations.
func jsWhole(t *fileFacts, n int32, out []symLoc) []symLoc {
	if t == nil || t.syn == nil {
		return out
	}
	first := -1
	for i, s := range t.syn.Symbols {
		if s.Container != "" {
			continue
		}
		if s.Exported {
			return append(out, symLoc{file: n, sym: int32(i)})
		}
		if first < 0 {
			first = i
		}
	}
	if first >= 0 {
		out = append(out, symLoc{file: n, sym: int32(first)})
	}
	return out
}

// jsMaxBaseDepth bounds the walk up a class's extends/implements chain.
const jsMaxBaseDepth = 6

// jsMember resolves a member use `x.Name`. With Recv, a class (interface,
// enum, type alias) name as written in f: its member Name, else the
// inherited one (Bases, depth-first). Without Recv, or when Recv yields
// nothing: the members Name of the types declared in f's type context (see
// jsTypeContext).
func (v *view) jsMember(f *fileFacts, self int32, u *syntax.Use, c *useCtx, out []symLoc) []symLoc {
	if u.Name == "" {
		return out
	}
	start := len(out)
	if u.Recv != "" {
		seen := map[symLoc]bool{}
		for _, t := range v.jsTypeNamed(f, self, u.Recv, c) {
			out = v.jsMembersOf(t, u.Name, c, seen, 0, out)
		}
		if len(out) > start {
			return out
		}
	}
	return append(out, v.jsTypeContext(f, self, c)[u.Name]...)
}

// jsIsMember reports whether a declaration kind is a member of a type.
func jsIsMember(k syntax.SymbolKind) bool {
	switch k {
	case syntax.Method, syntax.Property, syntax.Field, syntax.EnumMember:
		return true
	}
	return false
}

// jsTypeNamed returns the type declarations name stands for in file f
// (node self): the import binding of that name followed to its
// declaration, else f's top-level declarations of that name.
func (v *view) jsTypeNamed(f *fileFacts, self int32, name string, c *useCtx) []symLoc {
	var out []symLoc
	if f.syn == nil {
		return nil
	}
	found := false
	for _, b := range f.syn.Bindings {
		if b.Export || b.Name != name || b.From == "" || b.Orig == "*" {
			continue
		}
		found = true
		seen := map[jsKey]bool{}
		for _, m := range v.jsModule(f, self, b.From, c) {
			out = v.jsExport(m, b.Orig, c, seen, 0, out)
		}
		break
	}
	if !found {
		out = jsTopLevel(v, self, name, out)
	}
	types := out[:0]
	for _, l := range out {
		if v.file(l.file).syn.Symbols[l.sym].Kind.IsType() {
			types = append(types, l)
		}
	}
	return types
}

// jsMembersOf appends the members named name of type t, else those its
// bases (extends, implements) declare, depth-first, bounded and
// cycle-safe.
func (v *view) jsMembersOf(t symLoc, name string, c *useCtx, seen map[symLoc]bool, depth int, out []symLoc) []symLoc {
	if seen[t] || depth > jsMaxBaseDepth {
		return out
	}
	seen[t] = true
	tf := v.file(t.file)
	typ := &tf.syn.Symbols[t.sym]
	start := len(out)
	for i := range tf.syn.Symbols {
		s := &tf.syn.Symbols[i]
		if s.Name == name && s.Container == typ.QualifiedName && jsIsMember(s.Kind) {
			out = append(out, symLoc{file: t.file, sym: int32(i)})
		}
	}
	if len(out) > start {
		return out
	}
	for _, b := range typ.Bases {
		if strings.Contains(b, ".") {
			continue // ns.Base: not followed
		}
		for _, bt := range v.jsTypeNamed(tf, t.file, b, c) {
			out = v.jsMembersOf(bt, name, c, seen, depth+1, out)
		}
	}
	return out
}

// jsTypeContext returns, by member name, the members of the types (classes,
// interfaces, enums, type aliases) declared in file f's type context: f
// itself, the files its non-member uses resolve to, and the files those
// import directly. A value whose type the syntax does not state (a
// callback's parameter, a call's result) most likely has a type declared
// there: rxjs's `operate((source, subscriber) => source.subscribe(…))`
// reaches Observable.ts through lift.ts, which declares operate's
// signature. Every member of that name in f and its dependencies is kept:
// preferring them over the one-hop files loses more than it gains, as an
// operator's dependency types.ts declares Subscribable.subscribe while the
// checker resolves `source.subscribe` to Observable's. But a one-hop file
// adds its members of a name only when no other one-hop file declares that
// name: in a library whose modules each import dozens of others (effect),
// `x._tag` and `x.value` would otherwise make every tagged type of the
// neighbourhood a dependency the target never imports (precision 0.65
// against the checker on effect's src; 0.93 with this rule, for 1.7 points
// of recall; on rxjs 0.4 points of recall for 1.5 of precision). Computed
// once per file and query.
func (v *view) jsTypeContext(f *fileFacts, self int32, c *useCtx) map[string][]symLoc {
	key := "jstypes\x00" + strconv.Itoa(int(self))
	if r, ok := c.data[key]; ok {
		return r.(map[string][]symLoc)
	}
	files := map[int32]bool{self: true}
	var deps []int32
	if f.syn != nil {
		for i := range f.syn.Uses {
			u := &f.syn.Uses[i]
			if u.Member {
				continue
			}
			for _, l := range v.resolveUse(f, u, c) {
				if !files[l.file] {
					files[l.file] = true
					deps = append(deps, l.file)
				}
			}
		}
	}
	members := v.jsMembersIn(files)
	hop := map[int32]bool{}
	for _, d := range deps {
		if df := v.file(d); df != nil && df.syn != nil {
			for _, n := range v.imports(df) {
				if !files[n] {
					hop[n] = true
				}
			}
		}
	}
	for name, ls := range v.jsMembersIn(hop) {
		if slices.ContainsFunc(ls, func(l symLoc) bool { return l.file != ls[0].file }) {
			continue // declared in several one-hop files: a guess, not a lead
		}
		members[name] = append(members[name], ls...)
	}
	c.data[key] = members
	return members
}

// jsMembersIn returns, by name, the members of the types declared in the
// given files.
func (v *view) jsMembersIn(files map[int32]bool) map[string][]symLoc {
	ids := make([]int32, 0, len(files))
	for n := range files {
		ids = append(ids, n)
	}
	slices.Sort(ids)
	members := map[string][]symLoc{}
	for _, n := range ids {
		t := v.file(n)
		if t == nil || t.syn == nil || t.lang != syntax.FamilyECMAScript {
			continue
		}
		types := map[string]bool{}
		for _, s := range t.syn.Symbols {
			if s.Kind.IsType() {
				types[s.QualifiedName] = true
			}
		}
		for i, s := range t.syn.Symbols {
			if s.Container != "" && jsIsMember(s.Kind) && types[s.Container] {
				members[s.Name] = append(members[s.Name], symLoc{file: n, sym: int32(i)})
			}
		}
	}
	return members
}

func init() { userAliasHooks[syntax.FamilyECMAScript] = jsAliases }

// jsAliases follows the re-exports of target self backwards: each file
// importing a file of the chain whose export bindings forward one of the
// names (`export *` every name, `export {a as b}` a as b, `export * as ns`
// the whole module as ns) is a proxy, and the names it exports them under
// are aliases. Bounded by jsMaxDepth levels.
func jsAliases(v *view, self int32, names []string) ([]string, []int32) {
	type level struct {
		file  int32
		names []string
	}
	seen := map[int32]bool{self: true}
	queue := []level{{self, names}}
	var more []string
	var proxies []int32
	c := newUseCtx()
	more = v.jsLostNames(self, c)
	for depth := 0; len(queue) > 0 && depth < jsMaxDepth; depth++ {
		var next []level
		for _, q := range queue {
			t := v.file(q.file)
			if t == nil {
				continue
			}
			for _, n := range v.jsImporters(t) {
				if seen[n] {
					continue
				}
				f := v.file(n)
				var fwd []string
				for _, b := range f.syn.Bindings {
					if !b.Export || b.From == "" {
						continue
					}
					if b.Name != "*" && b.Orig != "*" && !contains(q.names, b.Orig) {
						continue
					}
					if !containsID(v.jsModule(f, n, b.From, c), q.file) {
						continue
					}
					switch {
					case b.Name == "*":
						fwd = append(fwd, q.names...)
					default:
						fwd = append(fwd, b.Name)
						more = append(more, b.Name)
					}
				}
				if fwd != nil {
					seen[n] = true
					proxies = append(proxies, n)
					next = append(next, level{n, sortedSet(fwd)})
				}
			}
		}
		queue = next
	}
	return more, proxies
}

// jsLostNames returns, for a module with syntax errors, the names its
// direct importers take from it: a use of a declaration the parser lost
// resolves to the module as a whole (jsBroken), so the importers are its
// users by those names, which are not among its symbols. Nil for a module
// without errors.
func (v *view) jsLostNames(self int32, c *useCtx) []string {
	t := v.file(self)
	if t == nil || t.syn == nil || !t.syn.HasErrors {
		return nil
	}
	var out []string
	for _, n := range v.jsImporters(t) {
		if n == self {
			continue
		}
		f := v.file(n)
		var specs []string
		for _, b := range f.syn.Bindings {
			if b.From != "" && !slices.Contains(specs, b.From) && containsID(v.jsModule(f, n, b.From, c), self) {
				specs = append(specs, b.From)
			}
		}
		for _, u := range f.syn.Uses {
			if u.Name != "" && !u.Member && slices.Contains(specs, u.From) {
				out = append(out, u.Name)
			}
		}
	}
	return sortedSet(out)
}

// jsImporters are the live ECMAScript files with syntax that may import
// t (those the reverse keys of t's module names register), in node order.
func (v *view) jsImporters(t *fileFacts) []int32 {
	imp := newNodeSet(v.size())
	for _, k := range v.reverseKeys(t) {
		v.eachReg(k, func(n, _ int32) { imp.add(n) })
	}
	var out []int32
	for n := range int32(v.size()) {
		if !imp.has(n) || !v.live(n) {
			continue
		}
		if f := v.file(n); f != nil && f.syn != nil && f.lang == syntax.FamilyECMAScript {
			out = append(out, n)
		}
	}
	return out
}

func containsID(ids []int32, id int32) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

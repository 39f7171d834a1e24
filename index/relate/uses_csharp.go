package relate

import (
	"slices"
	"strings"

	"github.com/ctxd/ctxd/index/syntax"
)

// C# resolution (docs/relations.md, "Resolution: C#"). The extractor
// (index/syntax/uses_csharp.go) records simple names with the enclosing
// type in Recv, qualified names with their qualifier in From, and member
// uses with a receiver expression; this file resolves them through the
// namespaces, usings, aliases and types of the workspace.

func init() { registerResolver(syntax.FamilyCSharp, csharpResolve) }

// csScope is what the using directives and namespaces of one file make
// visible.
type csScope struct {
	n       int32
	pkg     string            // Java: the file's package
	single  map[string]string // Java: single-type imports, simple name to qualified name
	sstatic map[string]string // Java: single static imports, member name to type
	ns      []string          // the file's namespaces, their enclosing ones and ""
	usings  []string          // using namespaces, the project's global ones included
	statics []string          // using static types
	aliases map[string]string
}

// csRes caches the work of one query for the C# resolver.
type csRes struct {
	v       *view
	java    bool
	scopes  map[int32]*csScope
	members map[string][]symLoc
	types   map[string][]symLoc
	// vis is what the projects of the file being resolved see (C# only;
	// nil: every file).
	vis    *csVisibility
	visSet bool
}

func csResOf(v *view, c *useCtx, java bool) *csRes {
	key := "cs"
	if java {
		key = "java"
	}
	if r, ok := c.data[key].(*csRes); ok {
		return r
	}
	r := &csRes{v: v, java: java, scopes: map[int32]*csScope{}, members: map[string][]symLoc{}, types: map[string][]symLoc{}}
	c.data[key] = r
	return r
}

func csharpResolve(v *view, f *fileFacts, u *syntax.Use, c *useCtx, out []symLoc) []symLoc {
	return cjResolve(v, f, u, c, out, false)
}

// cjResolve resolves a use of a C# or Java file.
func cjResolve(v *view, f *fileFacts, u *syntax.Use, c *useCtx, out []symLoc, java bool) []symLoc {
	if u.Name == "" {
		if !java && u.From != "" {
			return xamlSource(v, f, u.From, out) // a merged resource dictionary
		}
		return out
	}
	if !java && u.From == syntax.XAMLResourceKey {
		return xamlResourceKey(v, f, u.Name, out)
	}
	self, ok := v.node(f.path)
	if !ok {
		return out
	}
	r := csResOf(v, c, java)
	if !java && !r.visSet && v.e != nil {
		r.vis, r.visSet = v.e.cs.visibilityOf(f.path), true
	}
	sc := r.scope(self)
	switch {
	case u.Member:
		var m []symLoc
		if u.Recv != "" {
			m = r.membersOf(r.evalRecv(sc, u.Recv), u.Name)
		}
		if len(m) == 0 && !java {
			m = r.extensionMethods(sc, u.Name)
		}
		return append(out, m...)
	case u.From != "":
		return append(out, r.lookupType(sc, u.Name, u.From, "")...)
	}
	if m := r.enclMembers(sc, u.Recv, u.Name); len(m) > 0 {
		return append(out, m...)
	}
	if t := r.lookupType(sc, u.Name, "", u.Recv); len(t) > 0 {
		return append(out, t...)
	}
	return append(out, r.staticMembers(sc, u.Name)...)
}

// extensionMethods returns the extension methods named name (see
// syntax's C# Bindings with Orig "this") declared in a namespace the scope
// sees: the file's own namespaces and its usings. They are what a member
// call resolves to when the receiver's type has no member of the name, or
// its type is unknown.
func (r *csRes) extensionMethods(sc *csScope, name string) []symLoc {
	var out []symLoc
	r.v.eachSym(name, func(n, sym int32) {
		t := r.v.file(n)
		if t.lang != syntax.FamilyCSharp || t.syn == nil || !r.sees(t) {
			return
		}
		s := &t.syn.Symbols[sym]
		if !slices.ContainsFunc(t.syn.Bindings, func(b syntax.Binding) bool {
			return b.Orig == "this" && b.Name == name && b.From == s.Container
		}) {
			return
		}
		for _, ns := range t.syn.Namespaces {
			if slices.Contains(sc.ns, ns) || slices.Contains(sc.usings, ns) {
				out = append(out, symLoc{file: n, sym: sym})
				return
			}
		}
		if len(t.syn.Namespaces) == 0 {
			out = append(out, symLoc{file: n, sym: sym}) // the global namespace
		}
	})
	return out
}

// sees reports whether the declarations of file t are visible to the file
// being resolved: always for Java; for C#, t is in no project or in one
// the resolved file's projects reach (csproj.go).
func (r *csRes) sees(t *fileFacts) bool {
	return r.java || r.vis.sees(t.path)
}

// staticMembers returns the members named name of the types a static
// using or import brings in.
func (r *csRes) staticMembers(sc *csScope, name string) []symLoc {
	var out []symLoc
	if t, ok := sc.sstatic[name]; ok {
		out = append(out, r.membersOf(r.resolveType(sc, t, ""), name)...)
	}
	for _, s := range sc.statics {
		out = append(out, r.membersOf(r.resolveType(sc, s, ""), name)...)
	}
	return out
}

// scope returns the visible namespaces of file n.
func (r *csRes) scope(n int32) *csScope {
	if sc, ok := r.scopes[n]; ok {
		return sc
	}
	f := r.v.file(n)
	sc := &csScope{n: n, ns: []string{""}}
	r.scopes[n] = sc
	if f == nil || f.syn == nil {
		return sc
	}
	if r.java {
		r.javaScope(sc, f)
		return sc
	}
	for _, ns := range f.syn.Namespaces {
		for p := ns; p != ""; p = parentNS(p) {
			sc.ns = append(sc.ns, p)
		}
	}
	sc.ns = sortedSet(sc.ns)
	add := func(b syntax.Binding) {
		switch {
		case b.Orig == "this": // an extension method the file declares
		case b.Orig == "*":
			sc.usings = append(sc.usings, b.From)
		case b.Orig == "static":
			sc.statics = append(sc.statics, b.From)
		case b.Name != "" && b.Name != "*":
			if sc.aliases == nil {
				sc.aliases = map[string]string{}
			}
			sc.aliases[b.Name] = b.From
		}
	}
	for _, b := range f.syn.Bindings {
		if !b.Export {
			add(b)
		}
	}
	for _, b := range r.globalUsings(f) {
		add(b)
	}
	sc.usings = sortedSet(sc.usings)
	sc.statics = sortedSet(sc.statics)
	return sc
}

func parentNS(ns string) string {
	if i := strings.LastIndexByte(ns, '.'); i >= 0 {
		return ns[:i]
	}
	return ""
}

// projectDir is the nearest directory at or above dir holding a .csproj;
// "" (the root) without one.
func (r *csRes) projectDir(dir string) string {
	found := ""
	ancestors(dir, func(d string) bool {
		r.v.list(NeedProject, d, func(ix *index) []int32 { return ix.projects[d] }, func(n int32) {
			if found == "" && strings.HasSuffix(r.v.file(n).path, ".csproj") {
				found = d + "\x00"
			}
		})
		return found == ""
	})
	return strings.TrimSuffix(found, "\x00")
}

// globalUsings returns the global using directives of the files of f's
// project.
func (r *csRes) globalUsings(f *fileFacts) []syntax.Binding {
	m := r.v.memo
	m.csOnce.Do(func() {
		m.csGlobals = map[string][]syntax.Binding{}
		dirs := map[string]string{}
		for n := range int32(r.v.size()) {
			if !r.v.live(n) {
				continue
			}
			g := r.v.file(n)
			if g == nil || g.lang != syntax.FamilyCSharp || g.syn == nil {
				continue
			}
			for _, b := range g.syn.Bindings {
				if !b.Export {
					continue
				}
				d, ok := dirs[g.dir]
				if !ok {
					d = r.projectDir(g.dir)
					dirs[g.dir] = d
				}
				m.csGlobals[d] = append(m.csGlobals[d], b)
			}
		}
	})
	return m.csGlobals[r.projectDir(f.dir)]
}

// typeKey identifies a type symbol: its qualified name, for Java prefixed
// with its package and "|".
func (r *csRes) typeKey(l symLoc) string {
	f := r.v.file(l.file)
	qn := f.syn.Symbols[l.sym].QualifiedName
	if r.java {
		return f.syn.Package + "|" + qn
	}
	return qn
}

// splitKey splits a type key into the Java package and the qualified name.
func (r *csRes) splitKey(key string) (pkg, qn string) {
	if r.java {
		pkg, qn, _ = strings.Cut(key, "|")
		return pkg, qn
	}
	return "", key
}

func (r *csRes) lang() syntax.Family {
	if r.java {
		return syntax.FamilyJava
	}
	return syntax.FamilyCSharp
}

// typesNamed returns the type symbols whose key is key: every part of a
// partial type.
func (r *csRes) typesNamed(key string) []symLoc {
	if l, ok := r.types[key]; ok {
		return l
	}
	pkg, qn := r.splitKey(key)
	name := qn
	if i := strings.LastIndexByte(qn, '.'); i >= 0 {
		name = qn[i+1:]
	}
	var out []symLoc
	r.v.eachSym(name, func(n, sym int32) {
		t := r.v.file(n)
		s := &t.syn.Symbols[sym]
		if t.lang == r.lang() && s.Kind.IsType() && s.QualifiedName == qn && t.syn.Package == pkg && r.sees(t) {
			out = append(out, symLoc{file: n, sym: sym})
		}
	})
	r.types[key] = out
	return out
}

// lookupType resolves a type name as C# scoping does: qualified by from (a
// namespace, relative to the file's namespaces and usings, or a type),
// else in the enclosing types and namespaces of the use, else in the
// using namespaces of the file and its project.
func (r *csRes) lookupType(sc *csScope, name, from, encl string) []symLoc {
	if r.java {
		return r.javaLookup(sc, name, from, encl)
	}
	if from != "" {
		from = strings.TrimPrefix(from, "global::")
		head, rest, _ := strings.Cut(from, ".")
		if a, ok := sc.aliases[head]; ok {
			from = a
			if rest != "" {
				from += "." + rest
			}
		}
	} else if a, ok := sc.aliases[name]; ok {
		return r.resolveType(sc, a, "")
	}
	var near, far []symLoc
	r.v.eachSym(name, func(n, sym int32) {
		t := r.v.file(n)
		s := &t.syn.Symbols[sym]
		if t.lang != syntax.FamilyCSharp || !s.Kind.IsType() || !r.sees(t) {
			return
		}
		l := symLoc{file: n, sym: sym}
		c := s.Container
		if from != "" {
			if c == from || csUnder(c, from, sc.ns) || csUnder(c, from, sc.usings) {
				near = append(near, l)
			}
			return
		}
		switch {
		case c == encl || strings.HasPrefix(encl, c+".") || contains(sc.ns, c):
			near = append(near, l)
		case contains(sc.usings, c) || contains(sc.statics, c):
			far = append(far, l)
		}
	})
	if len(near) > 0 {
		return near
	}
	return far
}

// csUnder reports whether container c is from relative to one of the
// namespaces of list.
func csUnder(c, from string, list []string) bool {
	if !strings.HasSuffix(c, "."+from) {
		return false
	}
	return contains(list, c[:len(c)-len(from)-1])
}

// resolveType resolves a type as written ("List<User>?", "A.B.C",
// "User[]"): its generic type, or when that is not in the workspace and it
// has one type argument, that argument (Task<User>, IEnumerable<User>).
func (r *csRes) resolveType(sc *csScope, text, encl string) []symLoc {
	text = strings.TrimPrefix(text, "global::")
	for {
		t := strings.TrimRight(text, "?*")
		t = strings.TrimSuffix(t, "[]")
		if t == text {
			break
		}
		text = t
	}
	if text == "" {
		return nil
	}
	outer, args := csSplitGeneric(text)
	var out []symLoc
	if i := strings.LastIndexByte(outer, '.'); i >= 0 {
		out = r.lookupType(sc, outer[i+1:], outer[:i], encl)
	} else {
		out = r.lookupType(sc, outer, "", encl)
	}
	if len(out) == 0 && len(args) == 1 {
		out = r.resolveType(sc, args[0], encl)
	}
	return out
}

// csSplitGeneric splits "A.B<C, D<E>>" into "A.B" and its top-level
// arguments; type arguments of inner segments are dropped.
func csSplitGeneric(s string) (outer string, args []string) {
	var b strings.Builder
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '<':
			if depth == 0 {
				start = i + 1
				args = args[:0]
			}
			depth++
		case '>':
			depth--
			if depth == 0 {
				args = append(args, strings.TrimSpace(s[start:i]))
			}
		case ',':
			if depth == 1 {
				args = append(args, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		default:
			if depth == 0 {
				b.WriteByte(s[i])
			}
		}
	}
	return b.String(), args
}

// csElement returns the element type of an array or single-argument
// generic type as written.
func csElement(text string) string {
	text = strings.TrimRight(text, "?")
	if t, ok := strings.CutSuffix(text, "[]"); ok {
		return t
	}
	if _, args := csSplitGeneric(text); len(args) == 1 {
		return args[0]
	}
	return ""
}

// membersOf returns the members named name of the given types, their
// partial parts and their base types.
func (r *csRes) membersOf(types []symLoc, name string) []symLoc {
	var out []symLoc
	seen := map[string]bool{}
	for _, t := range types {
		out = append(out, r.typeMembers(r.typeKey(t), name, seen, 0)...)
	}
	return out
}

func (r *csRes) typeMembers(tk, name string, seen map[string]bool, depth int) []symLoc {
	if seen[tk] || depth > 8 {
		return nil
	}
	seen[tk] = true
	key := tk + "\x00" + name
	if l, ok := r.members[key]; ok && depth == 0 {
		return l
	}
	pkg, qn := r.splitKey(tk)
	var out []symLoc
	r.v.eachSym(name, func(n, sym int32) {
		t := r.v.file(n)
		if t.lang == r.lang() && t.syn.Symbols[sym].Container == qn && t.syn.Package == pkg && r.sees(t) {
			out = append(out, symLoc{file: n, sym: sym})
		}
	})
	for _, part := range r.typesNamed(tk) {
		pf := r.v.file(part.file)
		for _, b := range pf.syn.Symbols[part.sym].Bases {
			for _, bt := range r.resolveType(r.scope(part.file), b, qn) {
				out = append(out, r.typeMembers(r.typeKey(bt), name, seen, depth+1)...)
			}
		}
	}
	if depth == 0 {
		r.members[key] = out
	}
	return out
}

// enclMembers looks name up among the members of the enclosing type encl
// and of the types enclosing it, innermost first.
func (r *csRes) enclMembers(sc *csScope, encl, name string) []symLoc {
	for e := encl; e != ""; e = parentNS(e) {
		key := e
		if r.java {
			key = sc.pkg + "|" + e
		}
		types := r.typesNamed(key)
		if len(types) == 0 {
			continue
		}
		if m := r.membersOf(types[:1], name); len(m) > 0 {
			return m
		}
	}
	return nil
}

// csTypeRef is a type as written in a file, not yet resolved.
type csTypeRef struct {
	n          int32
	encl, text string
}

// evalRecv resolves a receiver expression (see the extractor) to the type
// symbols it may have.
func (r *csRes) evalRecv(sc *csScope, recv string) []symLoc {
	steps := strings.Split(recv, "#")
	var locs []symLoc
	var refs []csTypeRef
	if encl, name, ok := strings.Cut(steps[0], "!"); ok {
		if m := r.enclMembers(sc, encl, name); len(m) > 0 {
			locs, refs = r.memberTypes(m)
		} else {
			locs = r.lookupType(sc, name, "", encl)
			if len(locs) == 0 {
				locs, refs = r.memberTypes(r.staticMembers(sc, name))
			}
		}
	} else {
		refs = []csTypeRef{{n: sc.n, text: steps[0]}}
	}
	for _, step := range steps[1:] {
		if step == "[]" {
			var next []csTypeRef
			for _, t := range refs {
				if e := csElement(t.text); e != "" {
					next = append(next, csTypeRef{t.n, t.encl, e})
				}
			}
			locs, refs = nil, next
			continue
		}
		types := append(locs, r.resolveRefs(refs)...)
		locs, refs = r.memberTypes(r.membersOf(types, step))
		if len(locs) == 0 && len(refs) == 0 {
			return nil
		}
	}
	return append(locs, r.resolveRefs(refs)...)
}

func (r *csRes) resolveRefs(refs []csTypeRef) []symLoc {
	var out []symLoc
	for _, t := range refs {
		out = append(out, r.resolveType(r.scope(t.n), t.text, t.encl)...)
	}
	return out
}

// memberTypes returns the types of members: a nested type is its own type,
// a field, property or method has its declared Type (unresolved).
func (r *csRes) memberTypes(ms []symLoc) (locs []symLoc, refs []csTypeRef) {
	for _, m := range ms {
		s := &r.v.file(m.file).syn.Symbols[m.sym]
		switch {
		case s.Kind.IsType():
			locs = append(locs, m)
		case s.Type != "":
			refs = append(refs, csTypeRef{m.file, s.Container, s.Type})
		}
	}
	return locs, refs
}

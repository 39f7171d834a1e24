package relate

import (
	gotoken "go/token"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxd/ctxd/index/syntax"
)

// The Go use resolver. See the section "Resolution: Go" of
// docs/relations.md, and index/syntax/uses_go.go for the type descriptors
// of Use.Recv and Symbol.Type.

func init() {
	registerResolver(syntax.FamilyGo, goResolve)
	registerUserFilter(syntax.FamilyGo, goUserFilter)
}

// goMaxDepth bounds the evaluation of type descriptors (deferred forms
// nest) and of promoted members (embedded types).
const goMaxDepth = 6

// goState is what resolving the uses of one Go file caches.
type goState struct {
	plat goPlatform
	// pkgs caches the files of a package: key dir + "\x00" + package name
	// (+ "\x00t" when test files are included).
	pkgs map[string][]int32
	// imps caches the files an import path names, per importing directory.
	imps map[string][]int32
	// types caches the type declarations a descriptor evaluates to, per
	// context file.
	types map[string][]goTypeVal
	// known is the type declarations the file's non-member uses resolve
	// to, for members selected from values of unknown type.
	known    []symLoc
	hasKnown bool
}

// goTypeVal is a type descriptor evaluated as far as its deferred forms: a
// plain type expression (T, path.T, *D, []D) read in the context of file n.
type goTypeVal struct {
	n int32
	d string
}

func goStateOf(v *view, f *fileFacts, c *useCtx) *goState {
	if s, ok := c.data["go"].(*goState); ok {
		return s
	}
	s := &goState{pkgs: map[string][]int32{}, imps: map[string][]int32{}, types: map[string][]goTypeVal{}}
	if p, ok := c.data["goplat"].(goPlatform); ok {
		s.plat = p
	} else {
		s.plat = goFilePlatform(f, v.e.goPlat)
	}
	c.data["go"] = s
	return s
}

// goUserFilter keeps, among the candidate users of target t, the Go files
// that build for t's platform, and resolves their uses for that platform.
func goUserFilter(v *view, t, f *fileFacts, c *useCtx) bool {
	if f.lang != syntax.FamilyGo || t.lang != syntax.FamilyGo {
		return true
	}
	p := goFilePlatform(t, v.e.goPlat)
	if !v.goBuilds(f, p) {
		return false
	}
	c.data["goplat"] = p
	return true
}

// goBuilds reports whether file f builds for platform p.
func (v *view) goBuilds(f *fileFacts, p goPlatform) bool {
	if p == v.e.goPlat {
		return !f.goOff
	}
	return p.builds(f.path, goExpr(f.goConstraint()))
}

// goResolve resolves one use of Go file f. An unexported name is never
// resolved to a declaration of another directory's package: Go does not
// let a file name it (nor select such a field or method), whatever the
// receiver's type, so the fallbacks that guess a receiver must not either;
// and so the users of an unexported declaration are in its own directory.
func goResolve(v *view, f *fileFacts, u *syntax.Use, c *useCtx, out []symLoc) []symLoc {
	if u.Name == "" {
		return out
	}
	start := len(out)
	out = goResolveAny(v, f, u, c, out)
	if !gotoken.IsExported(u.Name) {
		kept := slices.DeleteFunc(out[start:], func(l symLoc) bool { return v.raw(l.file).dir != f.dir })
		out = out[:start+len(kept)]
	}
	return out
}

// goResolveAny is goResolve before the export rule.
func goResolveAny(v *view, f *fileFacts, u *syntax.Use, c *useCtx, out []symLoc) []symLoc {
	s := goStateOf(v, f, c)
	self, ok := v.node(f.path)
	if !ok {
		return out
	}
	if !u.Member {
		var files []int32
		if u.From == "" {
			files = s.pkgFiles(v, self)
		} else {
			files = s.importFiles(v, self, u.From)
		}
		return s.topLevel(v, files, u.Name, out)
	}
	recv, called := strings.CutPrefix(u.Recv, goCalled)
	start := len(out)
	iface := false
	for _, t := range s.namedTypes(v, self, recv, 0) {
		out = s.members(v, t, u.Name, out, 0, nil)
		iface = iface || v.file(t.file).syn.Symbols[t.sym].Kind == syntax.Interface
	}
	if len(out) > start || iface || s.settled(v, self, recv) {
		// A method of an interface value is the interface's method, which
		// it has even when its declaration is outside the workspace (an
		// embedded interface of a module not in it): never a same-named
		// method of another type, which is at most an implementation. A
		// member of a type literal is declared in the literal.
		return out
	}
	// The receiver's type is unknown (or outside the workspace): the
	// members named Name of the types of the file's own package and of the
	// types its other uses name.
	v.eachSymIn(u.Name, "", &s.plat, s.pkgFiles(v, self), func(n, sym int32) {
		if v.file(n).syn.Symbols[sym].Container != "" {
			out = append(out, symLoc{n, sym})
		}
	})
	for _, t := range s.knownTypes(v, f, self, c) {
		out = s.members(v, t, u.Name, out, goMaxDepth-1, nil)
	}
	if called {
		// A call selects a method or a func-typed field: a bool field
		// named Close is never what x.Close() calls.
		kept := slices.DeleteFunc(out[start:], func(l symLoc) bool {
			return v.file(l.file).syn.Symbols[l.sym].Kind == syntax.Field && !s.funcField(v, l)
		})
		out = out[:start+len(kept)]
	}
	return out
}

// settled reports whether descriptor d, read in file n, evaluates to a
// type whose members are never the file's package's same-named ones: a
// type literal that embeds nothing (goAnon), whose members it declares
// itself, or a type of an imported package none of whose files is in the
// workspace (buf.String() on a bytes.Buffer of a module's file).
func (s *goState) settled(v *view, n int32, d string) bool {
	if d == "" {
		return false
	}
	for _, t := range s.eval(v, n, d, 0) {
		q := strings.TrimLeft(t.d, "*")
		if q == goAnon {
			return true
		}
		i := strings.LastIndexByte(q, '.')
		if goNamed(q) && i >= 0 && strings.LastIndexByte(q, '/') < i && len(s.importFiles(v, t.n, q[:i])) == 0 {
			return true
		}
	}
	return false
}

// funcField reports whether the field at l has a func type: a func type
// literal, or a named type defined as one. A field of unknown type is
// not: the fallback that asks only guesses the receiver already.
func (s *goState) funcField(v *view, l symLoc) bool {
	typ := v.file(l.file).syn.Symbols[l.sym].Type
	if typ == goFunc {
		return true
	}
	for _, t := range s.namedTypes(v, l.file, typ, 0) {
		if v.file(t.file).syn.Symbols[t.sym].Type == goFunc {
			return true
		}
	}
	return false
}

// goCalled, goFunc and goAnon are the markers of index/syntax/uses_go.go:
// the prefix of the Recv of a called member, the Type of a func-typed
// field and the type of a struct or interface literal.
const (
	goCalled = "()"
	goFunc   = "func"
	goAnon   = "{}"
)

// pkgFiles returns the files of the package of file n that n sees, for
// the platform: same directory and package name; test files only for a
// test file.
func (s *goState) pkgFiles(v *view, n int32) []int32 {
	f := v.file(n)
	key := f.dir + "\x00" + f.goPkg
	if f.goTest {
		key += "\x00t"
	}
	if files, ok := s.pkgs[key]; ok {
		return files
	}
	var files []int32
	// NeedGoDir stands for the files of the directory whose package only
	// a parse tells: the others are read raw, by their headers.
	v.list(NeedGoDir, f.dir, func(ix *index) []int32 { return ix.goDirs[f.dir] }, func(m int32) {
		t := v.raw(m)
		if !t.goKnown() || t.goPkg != f.goPkg || (t.goTest && !f.goTest) || !v.goBuilds(t, s.plat) {
			return
		}
		files = append(files, m)
	})
	slices.Sort(files)
	s.pkgs[key] = files
	return files
}

// importFiles returns the files of the package import path p names from
// file n (or, when n does not import p, from a file of n's package that
// does), for the platform.
func (s *goState) importFiles(v *view, n int32, p string) []int32 {
	f := v.file(n)
	key := f.dir + "\x00" + p
	if f.goTest {
		key += "\x00t"
	}
	if files, ok := s.imps[key]; ok {
		return files
	}
	s.imps[key] = nil
	var files []int32
	from := []int32{n}
	if !goImports(f, p) {
		from = s.pkgFiles(v, n)
	}
	for _, m := range from {
		t := v.raw(m)
		if t.syn == nil {
			// Not parsed yet: it can import p only if its text holds
			// the path's words.
			v.needDirWords(t.dir, p, &s.plat)
			continue
		}
		for i, imp := range t.syn.Imports {
			if imp.Path == p && i < len(t.reqs) {
				files = v.resolve(t, &t.reqs[i], files)
			}
		}
		if len(files) > 0 {
			break
		}
	}
	files = slices.DeleteFunc(files, func(m int32) bool { return !v.goBuilds(v.raw(m), s.plat) })
	s.imps[key] = files
	return files
}

func goImports(f *fileFacts, p string) bool {
	if f.syn == nil {
		return false
	}
	for _, imp := range f.syn.Imports {
		if imp.Path == p {
			return true
		}
	}
	return false
}

// topLevel appends the package-level declarations named name of files.
func (s *goState) topLevel(v *view, files []int32, name string, out []symLoc) []symLoc {
	if len(files) == 0 {
		return out
	}
	v.eachSymIn(name, "", &s.plat, files, func(n, sym int32) {
		if v.file(n).syn.Symbols[sym].Container == "" {
			out = append(out, symLoc{n, sym})
		}
	})
	return out
}

// namedTypes returns the type declarations a descriptor, read in the
// context of file n, names (pointers stripped).
func (s *goState) namedTypes(v *view, n int32, d string, depth int) []symLoc {
	var out []symLoc
	for _, t := range s.eval(v, n, d, depth) {
		d := strings.TrimLeft(t.d, "*")
		if d == "" || !goNamed(d) {
			continue
		}
		for _, l := range s.lookup(v, t.n, d) {
			if v.file(l.file).syn.Symbols[l.sym].Kind.IsType() {
				out = append(out, l)
			}
		}
	}
	return out
}

// lookup resolves a package-level name read in file n: X in n's package,
// path.X in the package n (or its package) imports as path.
func (s *goState) lookup(v *view, n int32, q string) []symLoc {
	var files []int32
	name := q
	if i := strings.LastIndexByte(q, '.'); i >= 0 && strings.LastIndexByte(q, '/') < i {
		files = s.importFiles(v, n, q[:i])
		name = q[i+1:]
	} else if i >= 0 {
		return nil
	} else {
		files = s.pkgFiles(v, n)
	}
	return s.topLevel(v, files, name, nil)
}

// eval evaluates the deferred forms of descriptor d read in file n.
func (s *goState) eval(v *view, n int32, d string, depth int) []goTypeVal {
	if d == "" || depth > goMaxDepth {
		return nil
	}
	key := strconv.Itoa(int(n)) + "\x00" + d
	if r, ok := s.types[key]; ok {
		return r
	}
	s.types[key] = nil // cycles evaluate to nothing
	r := s.eval1(v, n, d, depth)
	s.types[key] = r
	return r
}

func (s *goState) eval1(v *view, n int32, d string, depth int) []goTypeVal {
	if p, ok := strings.CutPrefix(d, "*"); ok && strings.Contains(p, ":") {
		// A pointer to a deferred form (&x.f, &s[i]): the form's types,
		// pointed to.
		var out []goTypeVal
		for _, t := range s.eval(v, n, p, depth+1) {
			out = append(out, goTypeVal{t.n, "*" + t.d})
		}
		return out
	}
	kind, rest, _ := strings.Cut(d, ":")
	switch kind {
	case "var":
		var out []goTypeVal
		for _, l := range s.lookup(v, n, rest) {
			sym := &v.file(l.file).syn.Symbols[l.sym]
			switch {
			case sym.Kind.IsType():
				out = append(out, goTypeVal{l.file, sym.Name})
			case sym.Kind == syntax.Var || sym.Kind == syntax.Const:
				out = append(out, s.eval(v, l.file, sym.Type, depth+1)...)
			}
		}
		return out
	case "call":
		is, fn, _ := strings.Cut(rest, ":")
		i, _ := strconv.Atoi(is)
		var out []goTypeVal
		for _, l := range s.lookup(v, n, fn) {
			sym := &v.file(l.file).syn.Symbols[l.sym]
			switch {
			case sym.Kind.IsType():
				if i == 0 {
					out = append(out, goTypeVal{l.file, sym.Name})
				}
			case sym.Kind == syntax.Function:
				out = append(out, s.eval(v, l.file, goResult(sym.Type, i), depth+1)...)
			}
		}
		return out
	case "mcall", "field":
		var i int
		if kind == "mcall" {
			is, r, _ := strings.Cut(rest, ":")
			i, _ = strconv.Atoi(is)
			rest = r
		}
		name, recv, _ := strings.Cut(rest, ":")
		var out []goTypeVal
		for _, t := range s.namedTypes(v, n, recv, depth+1) {
			for _, l := range s.members(v, t, name, nil, 0, nil) {
				sym := &v.file(l.file).syn.Symbols[l.sym]
				switch {
				case kind == "mcall" && sym.Kind == syntax.Method:
					out = append(out, s.eval(v, l.file, goResult(sym.Type, i), depth+1)...)
				case kind == "field" && sym.Kind == syntax.Field:
					out = append(out, s.eval(v, l.file, sym.Type, depth+1)...)
				case kind == "field" && sym.Kind.IsType():
					// An embedded field: its type.
					out = append(out, goTypeVal{l.file, sym.Name})
				}
			}
		}
		return out
	case "elem", "key":
		var out []goTypeVal
		for _, t := range s.eval(v, n, rest, depth+1) {
			out = append(out, s.elem(v, t, kind == "key", depth+1)...)
		}
		return out
	}
	return []goTypeVal{{n, d}}
}

// elem returns the element type of an evaluated type (or, with key, the
// type of the first variable of a range over it): D of []D, V (or K) of
// map[K]V, D of <-D (either way), or the same of a named type defined as
// a slice, map or channel. The key of a slice or array is an int: "".
func (s *goState) elem(v *view, t goTypeVal, key bool, depth int) []goTypeVal {
	d := strings.TrimLeft(t.d, "*")
	if e, ok := strings.CutPrefix(d, "<-"); ok {
		return s.eval(v, t.n, e, depth)
	}
	if e, ok := strings.CutPrefix(d, "[]"); ok {
		if key {
			return nil
		}
		return s.eval(v, t.n, e, depth)
	}
	if k, e, ok := goMapDesc(d); ok {
		if key {
			e = k
		}
		return s.eval(v, t.n, e, depth)
	}
	if depth > goMaxDepth {
		return nil
	}
	var out []goTypeVal
	for _, l := range s.lookup(v, t.n, d) {
		sym := &v.file(l.file).syn.Symbols[l.sym]
		if sym.Kind == syntax.TypeAlias && sym.Type != "" {
			for _, u := range s.eval(v, l.file, sym.Type, depth+1) {
				out = append(out, s.elem(v, u, key, depth+1)...)
			}
		}
	}
	return out
}

// goMapDesc splits a map descriptor map[K]V into K and V, matching the
// brackets K may hold.
func goMapDesc(d string) (k, v string, ok bool) {
	rest, ok := strings.CutPrefix(d, "map[")
	if !ok {
		return "", "", false
	}
	level := 1
	for i := 0; i < len(rest); i++ {
		switch rest[i] {
		case '[':
			level++
		case ']':
			level--
			if level == 0 {
				return rest[:i], rest[i+1:], true
			}
		}
	}
	return "", "", false
}

// goNamed reports whether an evaluated descriptor (pointers stripped) can
// name a type declaration: not a slice, map or channel.
func goNamed(d string) bool {
	return d != goAnon && !strings.HasPrefix(d, "[]") && !strings.HasPrefix(d, "<-") && !strings.HasPrefix(d, "map[")
}

// goResult returns result i of a result list descriptor.
func goResult(list string, i int) string {
	if !strings.HasPrefix(list, "(") || !strings.HasSuffix(list, ")") {
		if i == 0 {
			return list
		}
		return ""
	}
	parts := strings.Split(list[1:len(list)-1], ", ")
	if i < len(parts) {
		return parts[i]
	}
	return ""
}

// members appends the members named name of the type declared at t: the
// methods and fields whose Container is the type, in every file of its
// package; failing those, an embedded type named name, or the promoted
// members of its embedded types (Bases) and of the type it is defined
// as, depth first up to goMaxDepth.
func (s *goState) members(v *view, t symLoc, name string, out []symLoc, depth int, seen map[symLoc]bool) []symLoc {
	if depth > goMaxDepth || seen[t] {
		return out
	}
	tf := v.file(t.file)
	typ := &tf.syn.Symbols[t.sym]
	start := len(out)
	files := s.pkgFiles(v, t.file)
	// A member of the type is declared in the type's declaration or in a
	// method whose receiver names it: its text holds both names.
	v.eachSymIn(name, typ.Name, &s.plat, files, func(n, sym int32) {
		if v.file(n).syn.Symbols[sym].Container == typ.Name {
			out = append(out, symLoc{n, sym})
		}
	})
	if len(out) > start {
		return out
	}
	if seen == nil {
		seen = map[symLoc]bool{}
	}
	seen[t] = true
	var bases []string
	for _, b := range typ.Bases {
		bases = append(bases, s.baseDesc(tf, b))
	}
	for i, b := range typ.Bases {
		if _, last := splitBase(b); last == name {
			out = append(out, s.namedTypes(v, t.file, bases[i], depth+1)...)
		}
	}
	if len(out) > start {
		return out
	}
	if typ.Kind == syntax.TypeAlias && typ.Type != "" {
		bases = append(bases, typ.Type)
	}
	for _, b := range bases {
		for _, bt := range s.namedTypes(v, t.file, b, depth+1) {
			out = s.members(v, bt, name, out, depth+1, seen)
		}
	}
	return out
}

// baseDesc turns a base as written in file f ("io.Reader", "*h.Client",
// "List[T]") into a descriptor, through f's import bindings.
func (s *goState) baseDesc(f *fileFacts, b string) string {
	if i := strings.IndexByte(b, '['); i >= 0 {
		b = b[:i]
	}
	b = strings.TrimLeft(strings.TrimSpace(b), "*")
	q, name, ok := strings.Cut(b, ".")
	if !ok {
		return b
	}
	for _, bd := range f.syn.Bindings {
		if bd.Name == q {
			return bd.From + "." + name
		}
	}
	return ""
}

// knownTypes returns the type declarations the non-member uses of file f
// resolve to.
func (s *goState) knownTypes(v *view, f *fileFacts, self int32, c *useCtx) []symLoc {
	if s.hasKnown {
		return s.known
	}
	s.hasKnown = true
	for i := range f.syn.Uses {
		u := &f.syn.Uses[i]
		if u.Member {
			continue
		}
		for _, l := range v.resolveUse(f, u, c) {
			if v.file(l.file).syn.Symbols[l.sym].Kind.IsType() {
				s.known = append(s.known, l)
			}
		}
	}
	s.known = sortLocs(s.known)
	return s.known
}

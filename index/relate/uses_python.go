package relate

import (
	"slices"
	"strings"

	"github.com/ctxd/ctxd/index/syntax"
)

// Python resolution. A use names a dotted path (see the Python part of
// syntax.Use): its first segment (absolute) or its leading dots (relative)
// name a module, and every following segment is an attribute of the value
// reached so far, looked up as Python does:
//
//   - in a module: its top-level declarations, then its module-level
//     Bindings (imports, `X = mod.Y` aliases: re-exports are followed),
//     then, for a package, its submodule of that name, then the names its
//     `from m import *` bindings bring in (honouring m's __all__, else its
//     names without a leading underscore);
//   - in a class: its members, then those of its bases (resolved in the
//     class's file), in order;
//   - in anything else (a function, a variable): nothing.
//
// A module that is itself the result (a module used as a value, an
// attribute that is a submodule, `os.path`) is represented by its first
// top-level declaration whose name does not start with "__" (else its
// first one): a module without declarations cannot be named.

func init() { registerResolver(syntax.FamilyPython, pyResolveUse) }

// pyVal is a value a path reaches: a module (sym < 0; file < 0 for a
// package directory without __init__.py) or a declaration.
type pyVal struct {
	file, sym int32
	dir       string // a module that is a package: its directory
}

type pyAttrKey struct {
	file, sym int32
	dir, name string
}

// pyCache is what resolving the uses of one file computes once.
type pyCache struct {
	attrs map[pyAttrKey][]pyVal
	busy  map[pyAttrKey]bool
	roots map[string][]string // directory → source roots
	depth int
}

const pyMaxDepth = 24

func pyCacheOf(c *useCtx) *pyCache {
	if p, ok := c.data["py"].(*pyCache); ok {
		return p
	}
	p := &pyCache{attrs: map[pyAttrKey][]pyVal{}, busy: map[pyAttrKey]bool{}, roots: map[string][]string{}}
	c.data["py"] = p
	return p
}

func pyResolveUse(v *view, f *fileFacts, u *syntax.Use, c *useCtx, out []symLoc) []symLoc {
	for _, x := range pyUseVals(v, f, u, c) {
		out = pyAppendLoc(v, out, x)
	}
	return out
}

// ResolveModules returns the files of the modules that uses of the Python
// file at path reach as objects, path excluded, sorted: a package or
// module bound by an import and used as a value or through its attributes
// (`from .. import util` then `util.x`: util/__init__.py), a submodule
// reached as an attribute (and, as in Resolve, the module standing for a
// name it binds from outside the workspace). Resolve names such a module
// by its first declaration, so a module without declarations (an
// __init__.py of imports only) is missing from its answer although it is
// used: this is how a caller can still relate its file. uses are as for
// Resolve (nil: every use of the file). A module through which a name is
// re-exported (`from .util import x`, x defined in util/compat.py and
// imported by util/__init__.py) is listed too. Nil for a file of another
// language, or a path not in the graph.
func (g *Graph) ResolveModules(path string, uses []syntax.Use) []string {
	v, self, ok := g.at(path)
	if !ok {
		return nil
	}
	f := v.file(self)
	if f.lang != syntax.FamilyPython || !resolved(f) {
		return nil
	}
	if uses == nil {
		uses = usesOf(f)
	}
	c := newUseCtx()
	pc := pyCacheOf(c)
	var out []string
	for i := range uses {
		u := &uses[i]
		for _, x := range pyUseVals(v, f, u, c) {
			if x.sym < 0 && x.file >= 0 && x.file != self {
				out = append(out, v.file(x.file).path)
			}
		}
		if u.Member || u.From == "" || u.Name == "" {
			continue
		}
		// A name the module re-exports (`from .util import py311`, util's
		// __init__.py importing it from .compat) is looked up in that
		// module when the import runs: the re-exporting module is used,
		// besides the file defining the name.
		for _, m := range pc.path(v, f, u.From) {
			if m.sym >= 0 || m.file < 0 || m.file == self {
				continue
			}
			if slices.ContainsFunc(pc.attr(v, m, u.Name), func(a pyVal) bool { return a.sym >= 0 && a.file != m.file }) {
				out = append(out, v.file(m.file).path)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// pyUseVals returns the values a use of f names.
func pyUseVals(v *view, f *fileFacts, u *syntax.Use, c *useCtx) []pyVal {
	pc := pyCacheOf(c)
	self, ok := v.node(f.path)
	if !ok {
		return nil
	}
	var vals []pyVal
	switch {
	case u.Member:
		if u.Recv == "" {
			return nil
		}
		for _, cls := range pc.recv(v, f, self, u.Recv) {
			vals = append(vals, pc.attr(v, cls, u.Name)...)
		}
	case u.From == "":
		vals = pc.attr(v, pc.moduleVal(v, self), u.Name)
	default:
		for _, m := range pc.path(v, f, u.From) {
			if u.Name == "" {
				vals = append(vals, m)
			} else {
				vals = append(vals, pc.attr(v, m, u.Name)...)
			}
		}
	}
	return vals
}

// pyAppendLoc appends the declaration a value stands for: itself, or a
// module's representative declaration.
func pyAppendLoc(v *view, out []symLoc, x pyVal) []symLoc {
	if x.file < 0 {
		return out
	}
	if x.sym >= 0 {
		return append(out, symLoc{file: x.file, sym: x.sym})
	}
	t := v.file(x.file)
	if t.syn == nil {
		return out
	}
	first := -1
	for i, s := range t.syn.Symbols {
		if s.Container != "" {
			continue
		}
		if !strings.HasPrefix(s.Name, "__") {
			return append(out, symLoc{file: x.file, sym: int32(i)})
		}
		if first < 0 {
			first = i
		}
	}
	if first >= 0 {
		out = append(out, symLoc{file: x.file, sym: int32(first)})
	}
	return out
}

// moduleVal is the module value of file n.
func (pc *pyCache) moduleVal(v *view, n int32) pyVal {
	t := v.file(n)
	x := pyVal{file: n, sym: -1}
	if baseOf(t.path) == "__init__.py" || baseOf(t.path) == "__init__.pyi" {
		x.dir = t.dir
	}
	return x
}

// recv returns the classes a member use's Recv names: "Q" a class of f
// by qualified name, "path:Q" a class reached through a path.
func (pc *pyCache) recv(v *view, f *fileFacts, self int32, recv string) []pyVal {
	path, q, imported := strings.Cut(recv, ":")
	var vals []pyVal
	if imported {
		vals = pc.path(v, f, path)
	} else {
		q = path
		vals = []pyVal{pc.moduleVal(v, self)}
	}
	for _, seg := range strings.Split(q, ".") {
		var next []pyVal
		for _, x := range vals {
			next = append(next, pc.attr(v, x, seg)...)
		}
		vals = next
	}
	return vals
}

// module returns the module value of a module path "a/b" (slash
// separated, without extension), or false.
func (pc *pyCache) module(v *view, p string) (pyVal, bool) {
	if n, ok := v.node(p + "/__init__.py"); ok {
		return pyVal{file: n, sym: -1, dir: p}, true
	}
	if n, ok := v.node(p + ".py"); ok {
		return pyVal{file: n, sym: -1}, true
	}
	if n, ok := v.node(p + "/__init__.pyi"); ok {
		return pyVal{file: n, sym: -1, dir: p}, true
	}
	if n, ok := v.node(p + ".pyi"); ok {
		return pyVal{file: n, sym: -1}, true
	}
	return pyVal{}, false
}

// path resolves a dotted path as written in file f ("os.path", ".x",
// "..", "a.b.C") to the values it names.
func (pc *pyCache) path(v *view, f *fileFacts, p string) []pyVal {
	if p == "" {
		return nil
	}
	var vals []pyVal
	var segs []string
	if p[0] == '.' {
		level := len(p) - len(strings.TrimLeft(p, "."))
		base := f.dir
		for range level - 1 {
			if base == "" {
				return nil
			}
			base = dirOf(base)
		}
		x := pyVal{file: -1, sym: -1, dir: base} // a namespace package
		if n, ok := v.node(join(base, "__init__.py")); ok {
			x.file = n
		} else if n, ok := v.node(join(base, "__init__.pyi")); ok {
			x.file = n
		}
		vals = []pyVal{x}
		if rest := p[level:]; rest != "" {
			segs = strings.Split(rest, ".")
		}
	} else {
		segs = strings.Split(p, ".")
		for _, root := range pc.rootsOf(v, f) {
			if x, ok := pc.module(v, join(root, segs[0])); ok {
				vals = []pyVal{x}
				break
			}
		}
		if vals == nil {
			return nil
		}
		segs = segs[1:]
	}
	for _, seg := range segs {
		var next []pyVal
		for _, x := range vals {
			next = append(next, pc.attr(v, x, seg)...)
		}
		vals = next
		if len(vals) == 0 {
			return nil
		}
	}
	return vals
}

func (pc *pyCache) rootsOf(v *view, f *fileFacts) []string {
	if r, ok := pc.roots[f.dir]; ok {
		return r
	}
	r := v.pyRoots(f)
	pc.roots[f.dir] = r
	return r
}

// attr returns the values attribute name of x names.
func (pc *pyCache) attr(v *view, x pyVal, name string) []pyVal {
	if name == "" {
		return nil
	}
	key := pyAttrKey{file: x.file, sym: x.sym, dir: x.dir, name: name}
	if r, ok := pc.attrs[key]; ok {
		return r
	}
	if pc.busy[key] || pc.depth >= pyMaxDepth {
		return nil // a cycle of re-exports, or a chain too long
	}
	pc.busy[key] = true
	pc.depth++
	var r []pyVal
	if x.sym >= 0 {
		r = pc.classAttr(v, x, name)
	} else {
		r = pc.moduleAttr(v, x, name)
	}
	pc.depth--
	delete(pc.busy, key)
	pc.attrs[key] = r
	return r
}

func (pc *pyCache) moduleAttr(v *view, x pyVal, name string) []pyVal {
	var out []pyVal
	var t *fileFacts
	if x.file >= 0 {
		t = v.file(x.file)
	}
	if t != nil && t.syn != nil {
		for i, s := range t.syn.Symbols {
			if s.Container == "" && s.Name == name {
				out = append(out, pyVal{file: x.file, sym: int32(i)})
			}
		}
		outside := false
		for _, b := range t.syn.Bindings {
			if b.Name != name {
				continue
			}
			ms := pc.path(v, t, b.From)
			if len(ms) == 0 {
				outside = true
			}
			for _, m := range ms {
				if b.Orig == "*" {
					out = append(out, m)
				} else {
					out = append(out, pc.attr(v, m, b.Orig)...)
				}
			}
		}
		if len(out) == 0 && outside {
			// Bound from a module outside the workspace (`from _io
			// import open`): this module is the last declaration known.
			out = append(out, x)
		}
		if len(out) > 0 {
			return out
		}
	}
	if x.dir != "" || x.file < 0 {
		if m, ok := pc.module(v, join(x.dir, name)); ok {
			return []pyVal{m}
		}
	}
	if t == nil || t.syn == nil {
		return nil
	}
	outside := false
	for _, b := range t.syn.Bindings {
		if b.Name != "*" {
			continue
		}
		ms := pc.path(v, t, b.From)
		if len(ms) == 0 {
			outside = true
		}
		for _, m := range ms {
			if !pyStarExports(v, m, name) {
				continue
			}
			out = append(out, pc.attr(v, m, name)...)
		}
	}
	if len(out) == 0 && outside && x.sym < 0 && !strings.HasPrefix(name, "_") {
		// Maybe brought in by `from posix import *`: the importing module
		// is the last declaration known.
		out = append(out, x)
	}
	return out
}

// pyStarExports reports whether `from m import *` binds name: m's __all__
// when it states one, else every name without a leading underscore.
func pyStarExports(v *view, m pyVal, name string) bool {
	if m.file >= 0 && m.sym < 0 {
		if t := v.file(m.file); t.syn != nil && t.syn.Exports != nil {
			for _, e := range t.syn.Exports {
				if e == name {
					return true
				}
			}
			return false
		}
	}
	return !strings.HasPrefix(name, "_")
}

// classAttr looks name up in a class and its bases; a declaration other
// than a class has no attributes the resolver knows.
func (pc *pyCache) classAttr(v *view, x pyVal, name string) []pyVal {
	t := v.file(x.file)
	if t.syn == nil {
		return nil
	}
	cls := &t.syn.Symbols[x.sym]
	if cls.Kind != syntax.Class {
		return nil
	}
	var out []pyVal
	for i, s := range t.syn.Symbols {
		if s.Container == cls.QualifiedName && s.Name == name {
			out = append(out, pyVal{file: x.file, sym: int32(i)})
		}
	}
	if len(out) > 0 {
		return out
	}
	for _, b := range cls.Bases {
		for _, base := range pc.expr(v, t, x.file, b) {
			if base.sym >= 0 && base != x {
				if r := pc.attr(v, base, name); len(r) > 0 {
					return r
				}
			}
		}
	}
	return nil
}

// expr resolves a dotted expression as written in the module scope of
// file t (a base class: "Base", "mod.Base", "Generic[T]").
func (pc *pyCache) expr(v *view, t *fileFacts, n int32, e string) []pyVal {
	if i := strings.IndexAny(e, "[("); i >= 0 {
		e = e[:i]
	}
	segs := strings.Split(strings.TrimSpace(e), ".")
	vals := []pyVal{pc.moduleVal(v, n)}
	for _, seg := range segs {
		var next []pyVal
		for _, x := range vals {
			next = append(next, pc.attr(v, x, seg)...)
		}
		vals = next
	}
	return vals
}

package relate

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ctxd/ctxd/index/syntax"
)

func init() { registerResolver(syntax.FamilyRust, resolveRust) }

// rustMaxDepth bounds the `use` and `pub use` links followed to resolve one
// name.
const rustMaxDepth = 8

// rsFile is what resolving names of one Rust file needs: its crate and the
// directory of its child modules.
type rsFile struct {
	crate   rustCrate
	inCrate bool
	modDir  string
}

// rsInfo returns the crate facts of file n, cached in c.
func rsInfo(v *view, n int32, c *useCtx) *rsFile {
	m, _ := c.data["rs.info"].(map[int32]*rsFile)
	if m == nil {
		m = map[int32]*rsFile{}
		c.data["rs.info"] = m
	}
	if r := m[n]; r != nil {
		return r
	}
	t := v.file(n)
	r := &rsFile{}
	r.crate, r.inCrate = v.e.crateOf(t)
	r.modDir = rustModuleDir(t, r.crate, r.inCrate)
	m[n] = r
	return r
}

// resolveRust resolves a use of a Rust file (see the Rust section of
// docs/relations.md): a path through the module tree and `pub use`
// re-exports, an unqualified name through the file's items, `use`
// bindings and glob imports, a member through the type its Recv names.
func resolveRust(v *view, f *fileFacts, u *syntax.Use, c *useCtx, out []symLoc) []symLoc {
	self, ok := v.node(f.path)
	if !ok || u.Name == "" {
		return out
	}
	r := &rsResolver{v: v, c: c, seen: map[string]bool{}}
	if !u.Member {
		return append(out, r.lookup(self, u.From, u.Name, 0)...)
	}
	for _, tl := range r.recvTypes(self, u.Recv) {
		out = r.members(tl, u.Name, out)
	}
	return out
}

// recvTypes resolves the type a Recv names, as seen from file n: a type
// path ("T", "a::T"), or the result type of a function ("a::f()",
// "T::f()"), read from the function's Symbol.Type as the function's file
// sees it (Self is the function's type; Result, Option, Box, Rc and Arc
// are looked through).
func (r *rsResolver) recvTypes(n int32, recv string) []symLoc {
	call, isCall := strings.CutSuffix(recv, "()")
	if !isCall {
		from, name := splitRustPath(recv)
		if name == "" {
			return nil
		}
		return r.lookup(n, from, name, 0)
	}
	from, name := splitRustPath(call)
	var fns []symLoc
	if q, t := splitRustPath(from); from != "" && rustUpper(t) {
		for _, tl := range r.lookup(n, q, t, 0) {
			fns = r.members(tl, name, fns)
		}
	} else {
		fns = r.lookup(n, from, name, 0)
	}
	var out []symLoc
	for _, fl := range fns {
		ff := r.v.file(fl.file)
		s := &ff.syn.Symbols[fl.sym]
		if !s.Kind.IsCallable() { // Rust has no constructors
			continue
		}
		typ := rustResultType(s.Type)
		switch {
		case typ == "":
		case typ == "Self" || strings.HasPrefix(typ, "Self::"):
			if s.Container != "" {
				out = append(out, r.lookup(fl.file, "", rsLastDotted(s.Container), 0)...)
			}
		default:
			q, t := splitRustPath(typ)
			out = append(out, r.lookup(fl.file, q, t, 0)...)
		}
	}
	return out
}

// rustUpper reports whether a name starts with an upper-case letter (a
// type, by Rust's naming convention).
func rustUpper(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r)
}

// rustResultType reduces a written type to the path of the type a value
// of it lets methods be called on: references, lifetimes, `mut`, `dyn`
// and `impl` dropped, Result, Option, Box, Rc and Arc looked through,
// generic arguments removed ("io::Result<Box<Store>>" is "Store").
func rustResultType(t string) string {
	t = strings.TrimSpace(t)
	for {
		switch {
		case strings.HasPrefix(t, "&"):
			t = strings.TrimSpace(t[1:])
			continue
		case strings.HasPrefix(t, "'"):
			i := strings.IndexAny(t, " \t")
			if i < 0 {
				return ""
			}
			t = strings.TrimSpace(t[i:])
			continue
		}
		f, rest, _ := strings.Cut(t, " ")
		if f == "mut" || f == "dyn" || f == "impl" {
			t = strings.TrimSpace(rest)
			continue
		}
		break
	}
	path, args, generic := strings.Cut(t, "<")
	path = strings.TrimSpace(path)
	_, last := splitRustPath(path)
	if generic {
		switch last {
		case "Result", "Option", "Box", "Rc", "Arc":
			depth, end := 0, len(args)
		scan:
			for i := 0; i < len(args); i++ {
				switch args[i] {
				case '<', '(', '[':
					depth++
				case ')', ']':
					depth--
				case '>':
					if depth == 0 {
						end = i
						break scan
					}
					depth--
				case ',':
					if depth == 0 {
						end = i
						break scan
					}
				}
			}
			return rustResultType(args[:end])
		}
	}
	for _, c := range path {
		if !(c == ':' || c == '_' || unicode.IsLetter(c) || unicode.IsDigit(c)) {
			return ""
		}
	}
	return path
}

// splitRustPath splits "a::b::T" into "a::b" and "T".
func splitRustPath(p string) (from, name string) {
	if i := strings.LastIndex(p, "::"); i >= 0 {
		return p[:i], p[i+2:]
	}
	return "", p
}

type rsResolver struct {
	v    *view
	c    *useCtx
	seen map[string]bool
}

// lookup resolves name as seen from file n: qualified by the path from,
// or unqualified when from is empty.
func (r *rsResolver) lookup(n int32, from, name string, depth int) []symLoc {
	if depth > rustMaxDepth {
		return nil
	}
	key := strconv.Itoa(int(n)) + "\x00" + from + "\x00" + name
	if r.seen[key] {
		return nil
	}
	r.seen[key] = true
	if from == "" {
		return r.unqualified(n, name, depth)
	}
	return r.qualified(n, from, name, depth)
}

// unqualified: the file's own items, then its `use` bindings of that name,
// then its glob imports.
func (r *rsResolver) unqualified(n int32, name string, depth int) []symLoc {
	f := r.v.file(n)
	if f.syn == nil {
		return nil
	}
	out := rsItems(f, n, name, "")
	if len(out) > 0 {
		return out
	}
	for _, b := range f.syn.Bindings {
		if b.Name == name && b.From != "" {
			out = append(out, r.lookup(n, b.From, b.Orig, depth+1)...)
		}
	}
	if len(out) > 0 {
		return out
	}
	for _, b := range f.syn.Bindings {
		if b.Name == "*" {
			out = append(out, r.lookup(n, b.From, name, depth+1)...)
		}
	}
	return out
}

// rsItems returns the symbols of file n named name whose container is
// cont (the inline modules leading to it, dotted), Rust modules excluded:
// a module is a file or a scope, not a dependency.
func rsItems(f *fileFacts, n int32, name, cont string) []symLoc {
	var out []symLoc
	for i, s := range f.syn.Symbols {
		if s.Name == name && s.Container == cont && !s.Kind.IsScope() {
			out = append(out, symLoc{file: n, sym: int32(i)})
		}
	}
	return out
}

// qualified resolves name in the module the path from names, as seen from
// file n: the item of the module file (or inline module), else what the
// module re-exports under that name (`pub use`, globs).
func (r *rsResolver) qualified(n int32, from, name string, depth int) []symLoc {
	f := r.v.file(n)
	segs := strings.Split(from, "::")
	if segs[0] == "" {
		segs = segs[1:] // ::a::b (2015 global paths)
		if len(segs) == 0 {
			return nil
		}
	}
	// A first segment bound by a `use` of the file stands for its path.
	if s0 := segs[0]; f.syn != nil && s0 != "crate" && s0 != "self" && s0 != "super" && s0 != "Self" {
		if _, lib := r.v.e.libs[s0]; !lib {
			for _, b := range f.syn.Bindings {
				if b.Name == s0 && b.Orig != "*" {
					path := b.Orig
					if b.From != "" {
						path = b.From + "::" + b.Orig
					}
					if len(segs) > 1 {
						path += "::" + strings.Join(segs[1:], "::")
					}
					return r.lookup(n, path, name, depth+1)
				}
			}
		}
	}
	var out []symLoc
	for _, m := range r.modules(n, segs) {
		mf := r.v.file(m.file)
		if mf.syn == nil {
			continue
		}
		out = append(out, rsItems(mf, m.file, name, m.cont)...)
	}
	if len(out) > 0 {
		return out
	}
	for _, m := range r.modules(n, segs) {
		mf := r.v.file(m.file)
		if mf.syn == nil || m.cont != "" {
			continue
		}
		for _, b := range mf.syn.Bindings {
			if !b.Export {
				continue
			}
			switch {
			case b.Name == name && b.From != "":
				out = append(out, r.lookup(m.file, b.From, b.Orig, depth+1)...)
			case b.Name == "*":
				out = append(out, r.lookup(m.file, b.From, name, depth+1)...)
			}
		}
	}
	return out
}

// rsModule is a module: the file holding it, and the inline modules inside
// that file leading to it ("a.b" for `mod a { mod b { … } }`).
type rsModule struct {
	file int32
	cont string
}

// modules returns the module a path names as seen from file n: anchored at
// the crate (crate::), the file's module (self::), an ancestor (super::),
// a library crate of the workspace, or a child module of the file's
// module. The longest prefix of the rest that is a module file wins; the
// remaining segments are inline modules of that file.
func (r *rsResolver) modules(n int32, segs []string) []rsModule {
	info := rsInfo(r.v, n, r.c)
	f := r.v.file(n)
	var dir string
	var anchor []string
	switch lib, isLib := r.v.e.libs[segs[0]]; {
	case segs[0] == "crate":
		if !info.inCrate {
			return nil
		}
		dir, anchor, segs = info.crate.dir, info.crate.roots, segs[1:]
	case segs[0] == "self":
		dir, anchor, segs = info.modDir, []string{f.path}, segs[1:]
	case segs[0] == "super":
		dir = info.modDir
		for len(segs) > 0 && segs[0] == "super" {
			if dir == "" || (info.inCrate && dir == info.crate.dir) {
				return nil
			}
			dir, segs = dirOf(dir), segs[1:]
		}
		anchor = rustModFiles(dir, info.crate, info.inCrate)
		if len(anchor) == 0 && dir == "" {
			return nil
		}
	case isLib:
		dir, anchor, segs = lib.dir, lib.roots, segs[1:]
	case segs[0] == "std" || segs[0] == "core" || segs[0] == "alloc":
		return nil
	default:
		// A child module of the file's module, or an inline module of
		// the file itself.
		dir, anchor = info.modDir, []string{f.path}
	}
	var out []rsModule
	for k := len(segs); k >= 0 && len(out) == 0; k-- {
		cont := strings.Join(segs[k:], ".")
		if k == 0 {
			for _, a := range anchor {
				if id, ok := r.v.node(a); ok {
					out = append(out, rsModule{file: id, cont: cont})
				}
			}
			break
		}
		m := join(dir, strings.Join(segs[:k], "/"))
		for _, p := range []string{m + ".rs", m + "/mod.rs"} {
			if id, ok := r.v.node(p); ok {
				out = append(out, rsModule{file: id, cont: cont})
				break
			}
		}
	}
	return out
}

// members appends the members named name of the type symbol tl: methods,
// associated items and variants whose container is the type, declared in
// any file of the type's crate (impl blocks live anywhere in it); when
// there are none, the methods of the traits the type's own file says it
// implements, or of the type itself when it is a trait.
func (r *rsResolver) members(tl symLoc, name string, out []symLoc) []symLoc {
	tf := r.v.file(tl.file)
	ts := &tf.syn.Symbols[tl.sym]
	if !ts.Kind.IsType() {
		return out
	}
	crate := rsInfo(r.v, tl.file, r.c)
	start := len(out)
	r.v.eachSym(name, func(n, sym int32) {
		t := r.v.file(n)
		if t.lang != syntax.FamilyRust {
			return
		}
		s := &t.syn.Symbols[sym]
		if s.Container == "" || rsLastDotted(s.Container) != ts.Name {
			return
		}
		if n != tl.file {
			ci := rsInfo(r.v, n, r.c)
			if ci.inCrate != crate.inCrate || ci.crate.dir != crate.crate.dir {
				return
			}
		}
		out = append(out, symLoc{file: n, sym: sym})
	})
	if len(out) > start {
		return out
	}
	for _, b := range ts.Bases {
		from, base := splitRustPath(b)
		for _, trait := range r.lookup(tl.file, from, base, 1) {
			if trait != tl {
				out = r.members(trait, name, out)
			}
		}
	}
	return out
}

// rsLastDotted returns the last element of a dotted container ("a.S" → "S").
func rsLastDotted(s string) string {
	return s[strings.LastIndexByte(s, '.')+1:]
}

package relate

import (
	"slices"
	"strings"
)

// pyRequest: a module path as Python writes it, dots kept for relative
// imports ("..pkg.mod", "."). A module M (a slash path) resolves to
// M/__init__.py, else M.py (Python's own order: a package wins over a module
// of the same name); failing both, to its parent module, because the
// extraction may name an imported member ("from a.b import c" given as
// "a.b.c" with c a function). When M resolves to a package __init__.py, the
// submodules of M that the file names in its Refs are imported too ("from
// pkg import sub" given as "pkg"). A relative import is rooted at the
// importer's package (each dot past the first one level up); "from . import
// x" names the package itself and its submodules named in Refs. An absolute
// one is searched from the importer's source roots at query time.
func pyRequest(f *fileFacts, spec string) request {
	if spec == "" {
		return request{}
	}
	if spec[0] != '.' {
		return request{kind: reqPyAbs, mod: strings.ReplaceAll(spec, ".", "/")}
	}
	level := len(spec) - len(strings.TrimLeft(spec, "."))
	rest := spec[level:]
	base := f.dir
	for range level - 1 {
		if base == "" {
			return request{}
		}
		base = dirOf(base)
	}
	if rest == "" {
		return request{
			kind:   reqFiles,
			groups: [][]string{{join(base, "__init__.py")}},
			hasSub: true, subDir: base, subAlways: true,
		}
	}
	m := join(base, strings.ReplaceAll(rest, ".", "/"))
	group := []string{m + "/__init__.py", m + ".py"}
	if strings.Contains(rest, ".") {
		parent := dirOf(m)
		group = append(group, parent+"/__init__.py", parent+".py")
	} else {
		group = append(group, join(base, "__init__.py"))
	}
	return request{kind: reqFiles, groups: [][]string{group}, hasSub: true, subDir: m}
}

// pyRoots returns where absolute imports of f are searched, in order: the
// directory above f's top-level package (walking up from f's directory
// while it holds an __init__.py; f's own directory for a script), "src",
// and the root.
func (v *view) pyRoots(f *fileFacts) []string {
	d := f.dir
	for d != "" && v.exists(join(d, "__init__.py")) {
		d = dirOf(d)
	}
	roots := []string{d}
	for _, r := range []string{"src", ""} {
		if !slices.Contains(roots, r) {
			roots = append(roots, r)
		}
	}
	return roots
}

func (v *view) pyResolve(f *fileFacts, r *request, out []int32) []int32 {
	roots := v.pyRoots(f)
	for _, m := range []string{r.mod, dirOf(r.mod)} {
		if m == "" {
			break
		}
		for _, root := range roots {
			pkg := join(root, m)
			if n, ok := v.node(pkg + "/__init__.py"); ok {
				out = append(out, n)
				if m == r.mod {
					out = v.pySubmodules(f, pkg, out)
				}
				return out
			}
			if n, ok := v.node(pkg + ".py"); ok {
				return append(out, n)
			}
		}
	}
	return out
}

// pySubmodules appends the submodules of the package in dir whose names f
// references.
func (v *view) pySubmodules(f *fileFacts, dir string, out []int32) []int32 {
	if f.syn == nil {
		return out
	}
	for _, name := range f.syn.Refs {
		p := join(dir, name)
		if n, ok := v.node(p + "/__init__.py"); ok {
			out = append(out, n)
		} else if n, ok := v.node(p + ".py"); ok {
			out = append(out, n)
		}
	}
	return out
}

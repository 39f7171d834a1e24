package relate

import (
	"slices"
	"strings"

	"github.com/ctxd/ctxd/index/syntax"
)

// resolve appends to out the ids of the files request r of f resolves to,
// sorted and without duplicates. The result may contain f itself (a C
// header including itself, a Rust "use self::…"); callers drop it.
func (v *view) resolve(f *fileFacts, r *request, out []int32) []int32 {
	start := len(out)
	switch r.kind {
	case reqFiles:
		winner := ""
		for _, g := range r.groups {
			for _, p := range g {
				if n, ok := v.node(p); ok {
					out = append(out, n)
					if winner == "" {
						winner = p
					}
					break
				}
			}
		}
		if r.hasSub && (r.subAlways || winner == join(r.subDir, "__init__.py")) {
			out = v.pySubmodules(f, r.subDir, out)
		}
	case reqGoDir:
		for _, dir := range r.alts {
			if out = v.goPackage(f, dir, out); len(out) > start {
				break
			}
		}
	case reqJS:
		for _, b := range r.alts {
			if n, ok := v.jsFind(b, f.tsFirst); ok {
				out = append(out, n)
				break
			}
		}
	case reqJava:
		for i, pkg := range r.alts {
			cls := r.names[i]
			v.list(NeedJavaPkg, pkg, func(ix *index) []int32 { return ix.javaPkgs[pkg] }, func(n int32) {
				t := v.file(n)
				if cls == "" || baseOf(t.path) == cls+".java" || contains(t.topTypes, cls) {
					out = append(out, n)
				}
			})
			if len(out) > start {
				break
			}
		}
	case reqNS:
		for i, ns := range r.alts {
			typ := r.names[i]
			v.list(NeedNamespace, ns, func(ix *index) []int32 { return ix.namespaces[ns] }, func(n int32) {
				if typ == "" || contains(v.file(n).typeNames, typ) {
					out = append(out, n)
				}
			})
			if len(out) > start {
				break
			}
		}
	case reqPyAbs:
		out = v.pyResolve(f, r, out)
	}
	if len(out)-start > 1 {
		slices.Sort(out[start:])
		out = out[:start+len(slices.Compact(out[start:]))]
	}
	return out
}

func contains(sorted []string, s string) bool {
	_, ok := slices.BinarySearch(sorted, s)
	return ok
}

// reverseKeys returns the keys under which a request that may resolve to t
// is registered (see appendKeys). It may return more keys than needed:
// Importers checks every request it finds by resolving it.
func (v *view) reverseKeys(t *fileFacts) []string {
	p := t.path
	keys := []string{"p:" + p}
	if t.lang == syntax.FamilyGo {
		keys = append(keys, "go:"+t.dir)
	}
	for _, b := range v.jsReverseBases(p) {
		keys = append(keys, "js:"+b)
	}
	if t.syn != nil {
		if t.lang == syntax.FamilyJava && t.syn.Package != "" {
			keys = append(keys, "jp:"+t.syn.Package)
		}
		if t.lang == syntax.FamilyCSharp || t.lang == syntax.FamilyC {
			for _, ns := range t.syn.Namespaces {
				keys = append(keys, "ns:"+ns)
			}
		}
	}
	if t.lang == syntax.FamilyPython {
		name := baseOf(p)
		mp := strings.TrimSuffix(strings.TrimSuffix(p, ".py"), ".pyi")
		if name == "__init__.py" {
			mp = t.dir
		}
		for _, m := range []string{mp, dirOf(mp)} {
			for m != "" {
				keys = append(keys, "py:"+m)
				i := strings.IndexByte(m, '/')
				if i < 0 {
					break
				}
				m = m[i+1:]
			}
		}
		keys = append(keys, "pyd:"+t.dir)
		if name == "__init__.py" && t.dir != "" {
			keys = append(keys, "pyd:"+dirOf(t.dir))
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// imports returns the ids of the files f imports, f itself excluded.
func (v *view) imports(f *fileFacts) []int32 {
	var out []int32
	for i := range f.reqs {
		out = v.resolve(f, &f.reqs[i], out)
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if self, ok := v.node(f.path); ok {
		if i, found := slices.BinarySearch(out, self); found {
			out = slices.Delete(out, i, i+1)
		}
	}
	return out
}

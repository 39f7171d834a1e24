package relate

import (
	"strings"

	"github.com/ctxd/ctxd/index/syntax"
)

// Java resolution (docs/relations.md, "Resolution: Java"), on the C#
// resolver of uses_csharp.go: the same receiver expressions and member
// lookup, with Java's scopes: the enclosing types, single-type imports, the
// file's package, on-demand imports, static imports. A Java type is keyed
// by its package and its qualified name within the file ("Outer.Inner").

func init() { registerResolver(syntax.FamilyJava, javaResolve) }

func javaResolve(v *view, f *fileFacts, u *syntax.Use, c *useCtx, out []symLoc) []symLoc {
	return cjResolve(v, f, u, c, out, true)
}

// javaScope fills the scope of a Java file from its package and imports.
func (r *csRes) javaScope(sc *csScope, f *fileFacts) {
	sc.pkg = f.syn.Package
	for _, b := range f.syn.Bindings {
		switch {
		case b.Orig == "*":
			sc.usings = append(sc.usings, b.From)
		case b.Orig == "static" && b.Name == "*":
			sc.statics = append(sc.statics, b.From)
		case b.Orig == "static":
			if sc.sstatic == nil {
				sc.sstatic = map[string]string{}
			}
			sc.sstatic[b.Name] = b.From
		default:
			if sc.single == nil {
				sc.single = map[string]string{}
			}
			sc.single[b.Name] = b.From
		}
	}
	sc.usings = sortedSet(sc.usings)
	sc.statics = sortedSet(sc.statics)
}

// javaLookup resolves a type name: qualified by from (a package or a
// type), else in the enclosing types, the single-type imports, the
// file's package and the on-demand imports, in that order.
func (r *csRes) javaLookup(sc *csScope, name, from, encl string) []symLoc {
	var tiers [4][]symLoc
	var fromTypes map[string]bool
	if from != "" {
		fromTypes = map[string]bool{}
		for _, t := range r.resolveType(sc, from, encl) {
			fromTypes[r.typeKey(t)] = true
		}
	}
	single := sc.single[name]
	r.v.eachSym(name, func(n, sym int32) {
		t := r.v.file(n)
		s := &t.syn.Symbols[sym]
		if t.lang != syntax.FamilyJava || !s.Kind.IsType() {
			return
		}
		l := symLoc{file: n, sym: sym}
		pkg, c := t.syn.Package, s.Container
		full := joinDotJ(pkg, s.QualifiedName)
		if from != "" {
			if (c == "" && pkg == from) || (c != "" && fromTypes[pkg+"|"+c]) || full == from+"."+name {
				tiers[0] = append(tiers[0], l)
			}
			return
		}
		switch {
		case pkg == sc.pkg && c != "" && (c == encl || strings.HasPrefix(encl, c+".")):
			tiers[0] = append(tiers[0], l)
		case single != "" && full == single:
			tiers[1] = append(tiers[1], l)
		case pkg == sc.pkg && c == "":
			tiers[2] = append(tiers[2], l)
		case c == "" && contains(sc.usings, pkg), c != "" && contains(sc.usings, joinDotJ(pkg, c)),
			c != "" && contains(sc.statics, joinDotJ(pkg, c)):
			tiers[3] = append(tiers[3], l)
		}
	})
	for _, t := range tiers {
		if len(t) > 0 {
			return t
		}
	}
	return nil
}

func joinDotJ(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

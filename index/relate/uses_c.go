package relate

import (
	"slices"
	"strings"

	"github.com/ctxd/ctxd/index/syntax"
)

func init() { registerResolver(syntax.FamilyC, resolveC) }

// cIncludeDepth bounds the #include chains followed from a file.
const cIncludeDepth = 8

// cVisible returns the sorted ids of the files whose declarations a C or
// C++ file sees: itself and the files it includes, transitively, up to
// cIncludeDepth levels. It is computed once per query and file.
func cVisible(v *view, f *fileFacts, c *useCtx) []int32 {
	if vis, ok := c.data["c.vis"].([]int32); ok {
		return vis
	}
	self, _ := v.node(f.path)
	seen := map[int32]bool{self: true}
	vis := []int32{self}
	level := []*fileFacts{f}
	var buf []int32
	for d := 0; d < cIncludeDepth && len(level) > 0; d++ {
		var next []*fileFacts
		for _, t := range level {
			for i := range t.reqs {
				if t.syn == nil || t.syn.Imports[i].Kind != syntax.ImportInclude {
					continue
				}
				buf = v.resolve(t, &t.reqs[i], buf[:0])
				for _, n := range buf {
					if !seen[n] {
						seen[n] = true
						vis = append(vis, n)
						next = append(next, v.file(n))
					}
				}
			}
		}
		level = next
	}
	slices.Sort(vis)
	c.data["c.vis"] = vis
	return vis
}

// resolveC resolves a use of a C or C++ file to the declarations of that
// name in the file itself and the files it includes (see cVisible):
//
//   - an unqualified name: functions, variables, types, macros, enumerators
//     and namespace members, not class members;
//   - a member with a Recv (x.m with a declared x, A::m): the members
//     named Name of the class, struct or namespace whose name is Recv's
//     last segment;
//   - a member without Recv (p->m of an unknown p): members named Name of
//     the types the visible files declare.
func resolveC(v *view, f *fileFacts, u *syntax.Use, c *useCtx, out []symLoc) []symLoc {
	if u.Name == "" {
		return out
	}
	vis := cVisible(v, f, c)
	recv := u.Recv
	if i := strings.LastIndex(recv, "::"); i >= 0 {
		recv = recv[i+2:]
	}
	v.eachSym(u.Name, func(n, sym int32) {
		if _, ok := slices.BinarySearch(vis, n); !ok {
			return
		}
		s := &v.file(n).syn.Symbols[sym]
		member := s.Kind == syntax.Method || s.Kind == syntax.Field || s.Kind == syntax.Constructor
		switch {
		case !u.Member:
			if member || s.Kind == syntax.Namespace {
				return
			}
		case u.Recv != "":
			if s.Container == "" || rsLastDotted(s.Container) != recv {
				return
			}
		default:
			if !member {
				return
			}
		}
		out = append(out, symLoc{file: n, sym: sym})
	})
	return out
}

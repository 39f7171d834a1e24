package relate

import (
	"strings"

	"github.com/ctxd/ctxd/index/syntax"
)

// XAML (index/syntax/xaml.go) is of the C# family: its x:Class, element
// and markup-extension uses are C# names, resolved by cjResolve like a C#
// file's. What only XAML has is a use of another file by path: the Source
// of a merged resource dictionary, resolved here.

// xamlSource resolves the Source of a <ResourceDictionary> of XAML file f
// to the declarations of the dictionary file it names (the one symbol of
// a .xaml file, spanning it, rather than each of its resources). Forms: relative to f ("Colors.xaml", "../Themes/X.xaml"),
// rooted at f's project ("/Themes/X.xaml"), and pack URIs naming a
// component ("pack://application:,,,/App;component/Themes/X.xaml",
// "/App;component/Themes/X.xaml"), taken in f's project, since the
// assembly is usually the project's own.
func xamlSource(v *view, f *fileFacts, source string, out []symLoc) []symLoc {
	if f.syn == nil || f.syn.Language != syntax.XAML {
		return out
	}
	s := strings.ReplaceAll(strings.TrimSpace(source), `\`, "/")
	s = strings.TrimPrefix(s, "pack://application:,,,")
	var ps *csProjects
	if v.e != nil {
		ps = v.e.cs
	}
	base := f.dir
	if _, rest, ok := strings.Cut(s, ";component/"); ok {
		base, s = ps.projectRoot(f.dir), rest
	} else if rest, ok := strings.CutPrefix(s, "/"); ok {
		base, s = ps.projectRoot(f.dir), rest
	}
	if s == "" || strings.Contains(s, "://") {
		return out
	}
	p, ok := resolveRel(base, s)
	if !ok {
		return out
	}
	n, ok := v.node(p)
	if !ok {
		return out
	}
	t := v.file(n)
	if t == nil || t.syn == nil {
		return out
	}
	for i := range t.syn.Symbols {
		if t.syn.Symbols[i].Container != syntax.XAMLResourceKey {
			out = append(out, symLoc{file: n, sym: int32(i)}) // the file, not each resource
		}
	}
	return out
}

// xamlResourceKey resolves a resource reference ({StaticResource key}) of
// XAML file f to the resources keyed so in the XAML files of f's project
// (its own, App.xaml's, the dictionaries it merges): a key is looked up at
// run time through the element tree and the application's resources, so
// every definition in the project is a candidate, and none outside it.
func xamlResourceKey(v *view, f *fileFacts, key string, out []symLoc) []symLoc {
	if f.syn == nil || f.syn.Language != syntax.XAML {
		return out
	}
	var ps *csProjects
	if v.e != nil {
		ps = v.e.cs
	}
	root := ps.projectRoot(f.dir)
	v.eachSym(key, func(n, sym int32) {
		t := v.file(n)
		if t == nil || t.syn == nil || t.syn.Language != syntax.XAML || t.syn.Symbols[sym].Container != syntax.XAMLResourceKey {
			return
		}
		if t.path != f.path && ps.projectRoot(t.dir) != root {
			return
		}
		out = append(out, symLoc{file: n, sym: sym})
	})
	return out
}

// projectRoot returns the nearest directory at or above dir holding a
// .csproj; the root without one (or without project files).
func (ps *csProjects) projectRoot(dir string) string {
	if ps == nil {
		return ""
	}
	found := ""
	ancestors(dir, func(d string) bool {
		if _, ok := ps.dirs[d]; ok {
			found = d
			return false
		}
		return true
	})
	return found
}

package relate

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/index/syntax"
	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"
)

// memSource is a Source held in memory. Tests mutate it between Build and
// Update through set and remove.
type memSource struct {
	paths   []string
	syn     map[string]*syntax.File
	content map[string][]byte
}

func newMemSource() *memSource {
	return &memSource{syn: map[string]*syntax.File{}, content: map[string][]byte{}}
}

func (s *memSource) Paths() []string                 { return s.paths }
func (s *memSource) Syntax(p string) *syntax.File    { return s.syn[p] }
func (s *memSource) Content(p string) ([]byte, bool) { b, ok := s.content[p]; return b, ok }

func (s *memSource) set(p string, content []byte, syn *syntax.File) {
	if _, ok := s.content[p]; !ok {
		s.paths = append(s.paths, p)
		slices.Sort(s.paths)
	}
	s.content[p] = content
	if syn == nil {
		delete(s.syn, p)
	} else {
		s.syn[p] = syn
	}
}

func (s *memSource) remove(p string) {
	if i, ok := slices.BinarySearch(s.paths, p); ok {
		s.paths = slices.Delete(s.paths, i, i+1)
	}
	delete(s.content, p)
	delete(s.syn, p)
}

// workspace builds a source from a txtar archive. Config files
// (resolverConfigs and every .json, .toml, .xml, .gradle, .csproj, .sln,
// Makefile and CMakeLists.txt) keep their text as content. Every other file
// is read as a description of its extraction, one directive per line:
//
//	package NAME            syntax.File.Package
//	namespace NAME          appended to Namespaces
//	import PATH             an import (kind from the language); "import <x.h>" is a system include
//	using NAME              an ImportNamespace import
//	mod NAME / use PATH     Rust imports
//	def KIND NAME [in CONTAINER] [: BASE, BASE…]   a symbol
//	ref NAME…               referenced names
//
// A file without directives is a text file: no extraction.
func workspace(t testing.TB, archive string) *memSource {
	t.Helper()
	return sourceOf(txtar.Parse([]byte(archive)).Files, func(f txtar.File) *syntax.File {
		if isConfigFixture(f.Name) {
			return nil
		}
		return parseFixture(t, f.Name, string(f.Data))
	})
}

// sourceOf builds a source holding files, with the extraction extract
// gives each (nil: a text file).
func sourceOf(files []txtar.File, extract func(f txtar.File) *syntax.File) *memSource {
	src := newMemSource()
	for _, f := range files {
		src.set(f.Name, f.Data, extract(f))
	}
	return src
}

func isConfigFixture(name string) bool {
	base := baseOf(name)
	if resolverConfigs[base] || base == "Makefile" || base == "CMakeLists.txt" || base == "go.work" {
		return true
	}
	for _, x := range []string{".json", ".toml", ".xml", ".gradle", ".kts", ".csproj", ".sln", ".cfg", ".txt", ".build"} {
		if strings.HasSuffix(base, x) {
			return true
		}
	}
	return false
}

var directives = []string{"package", "namespace", "import", "using", "mod", "use", "def", "ref"}

func parseFixture(t testing.TB, name, text string) *syntax.File {
	t.Helper()
	l := langOf(name, nil)
	f := &syntax.File{Language: fixtureLanguage(name)}
	seen := false
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		word, rest, _ := strings.Cut(line, " ")
		rest = strings.TrimSpace(rest)
		if !slices.Contains(directives, word) {
			if seen {
				t.Fatalf("%s: unknown directive %q", name, line)
			}
			return nil
		}
		seen = true
		switch word {
		case "package":
			f.Package = rest
		case "namespace":
			f.Namespaces = append(f.Namespaces, rest)
		case "import":
			imp := syntax.Import{Path: rest}
			switch l {
			case syntax.FamilyGo, syntax.FamilyJava:
				imp.Kind = syntax.ImportPackage
			case syntax.FamilyECMAScript, syntax.FamilyPython:
				imp.Kind = syntax.ImportModule
			case syntax.FamilyCSharp:
				imp.Kind = syntax.ImportNamespace
			case syntax.FamilyC:
				imp.Kind = syntax.ImportInclude
				if strings.HasPrefix(rest, "<") {
					imp.Path, imp.System = strings.Trim(rest, "<>"), true
				}
			default:
				t.Fatalf("%s: import in a file of no language", name)
			}
			f.Imports = append(f.Imports, imp)
		case "using":
			f.Imports = append(f.Imports, syntax.Import{Path: rest, Kind: syntax.ImportNamespace})
		case "mod":
			f.Imports = append(f.Imports, syntax.Import{Path: rest, Kind: syntax.ImportMod})
		case "use":
			f.Imports = append(f.Imports, syntax.Import{Path: rest, Kind: syntax.ImportUse})
		case "def":
			head, bases, hasBases := strings.Cut(rest, ":")
			fields := strings.Fields(head)
			if len(fields) != 2 && !(len(fields) == 4 && fields[2] == "in") {
				t.Fatalf("%s: bad def %q", name, line)
			}
			kind, ok := syntax.KindNamed(fields[0])
			if !ok {
				t.Fatalf("%s: unknown kind in %q", name, line)
			}
			s := syntax.Symbol{Kind: kind, Name: fields[1], QualifiedName: fields[1], Exported: true}
			if len(fields) == 4 {
				s.Container = fields[3]
				s.QualifiedName = s.Container + "." + s.Name
			}
			if hasBases {
				for _, b := range strings.Split(bases, ",") {
					s.Bases = append(s.Bases, strings.TrimSpace(b))
				}
			}
			f.Symbols = append(f.Symbols, s)
		case "ref":
			f.Refs = append(f.Refs, strings.Fields(rest)...)
		}
	}
	if !seen {
		return nil
	}
	slices.Sort(f.Refs)
	f.Refs = slices.Compact(f.Refs)
	slices.Sort(f.Namespaces)
	return f
}

func fixtureLanguage(name string) syntax.Language {
	switch langOf(name, nil) {
	case syntax.FamilyGo:
		return syntax.Go
	case syntax.FamilyECMAScript:
		if isTSImporter(name) {
			return syntax.TypeScript
		}
		return syntax.JavaScript
	case syntax.FamilyPython:
		return syntax.Python
	case syntax.FamilyJava:
		return syntax.Java
	case syntax.FamilyCSharp:
		return syntax.CSharp
	case syntax.FamilyRust:
		return syntax.Rust
	case syntax.FamilyC:
		return syntax.C
	}
	return ""
}

// importTargets renders Imports(p) as its targets.
func importTargets(g *Graph, p string) []string {
	var out []string
	for _, e := range g.Imports(p) {
		if e.From != p || e.Kind != EdgeImport {
			panic("bad edge")
		}
		if !slices.Contains(out, e.To) {
			out = append(out, e.To)
		}
	}
	return out
}

func unresolvedPaths(g *Graph, p string) []string {
	var out []string
	for _, i := range g.Unresolved(p) {
		out = append(out, i.Path)
	}
	return out
}

// checkImports compares Imports targets and Unresolved paths of the listed
// files, then checks that Importers is the exact reverse of Imports.
func checkImports(t *testing.T, g *Graph, src Source, imports, unresolved map[string][]string) {
	t.Helper()
	for _, p := range slices.Sorted(maps.Keys(imports)) {
		if diff := cmp.Diff(imports[p], importTargets(g, p)); diff != "" {
			t.Errorf("Imports(%s) targets (-want +got):\n%s", p, diff)
		}
	}
	for _, p := range slices.Sorted(maps.Keys(unresolved)) {
		if diff := cmp.Diff(unresolved[p], unresolvedPaths(g, p)); diff != "" {
			t.Errorf("Unresolved(%s) (-want +got):\n%s", p, diff)
		}
	}
	checkReverse(t, g, src)
}

// checkReverse checks Importers against a brute-force reversal of Imports
// and Callers against a reversal of Callees.
func checkReverse(t *testing.T, g *Graph, src Source) {
	t.Helper()
	importers := map[string][]string{}
	callers := map[string][]string{}
	for _, p := range src.Paths() {
		for _, to := range importTargets(g, p) {
			importers[to] = append(importers[to], p)
		}
		for _, to := range g.Callees(p) {
			callers[to] = append(callers[to], p)
		}
	}
	for _, p := range src.Paths() {
		if diff := cmp.Diff(importers[p], g.Importers(p)); diff != "" {
			t.Errorf("Importers(%s) differs from the reverse of Imports (-want +got):\n%s", p, diff)
		}
		if diff := cmp.Diff(callers[p], g.Callers(p)); diff != "" {
			t.Errorf("Callers(%s) differs from the reverse of Callees (-want +got):\n%s", p, diff)
		}
	}
}

package relate

import (
	"bytes"
	"encoding/xml"
	"io"
	"slices"
	"strings"
)

// C# project visibility (docs/relations.md, "Resolution: C#"). A C# name
// resolves only to declarations of files the compilation of the using
// file sees: the files of its own project and of the projects it reaches
// through ProjectReference, shared projects' items included. Without this
// a same-named class of an unrelated project (a Logger.cs of another
// application in the same repository) is as good a match as the one the
// compiler binds.

// csProjectFile reports whether base names an MSBuild file whose items
// decide which C# files a project compiles: a .csproj, or the .projitems a
// shared project (.shproj) keeps its items in.
func csProjectFile(base string) bool {
	return strings.HasSuffix(base, ".csproj") || strings.HasSuffix(base, ".projitems")
}

// csProjectMaxBytes bounds the text read of one project file; csproj
// files of real projects are a few tens of kB, generated ones rarely over
// a MB.
const csProjectMaxBytes = 4 << 20

// csProject is what one project file says about the files it compiles and
// the projects it references.
type csProject struct {
	// dirWide: the project compiles every .cs file under its directory
	// (an SDK-style project, or an item with a wildcard).
	dirWide bool
	// items are the files of its Compile items (root-relative), Linked
	// files from elsewhere included.
	items []string
	// refs are its ProjectReference targets; imports the .projitems it
	// imports (root-relative, cleaned; those outside the root dropped).
	refs, imports []string
}

// csProjects is the project structure of a root, read once per Build.
type csProjects struct {
	// byPath holds each .csproj and .projitems file.
	byPath map[string]*csProject
	// dirs maps a directory to the .csproj files in it, sorted.
	dirs map[string][]string
	// listed maps a file, lower-cased, to the .csproj files whose Compile
	// items (or imported shared items) name it, sorted. Projects written on
	// Windows often spell a path in another case than the file system.
	listed map[string][]string
}

// loadCSProjects reads the project files among paths (see csProjectFile).
// Nil when there is none: every C# file sees the whole root.
func loadCSProjects(src Source, paths []string) *csProjects {
	var ps *csProjects
	for _, p := range paths {
		if !csProjectFile(baseOf(p)) {
			continue
		}
		if ps == nil {
			ps = &csProjects{byPath: map[string]*csProject{}, dirs: map[string][]string{}, listed: map[string][]string{}}
		}
		b, _ := src.Content(p)
		ps.byPath[p] = parseCSProject(dirOf(p), b)
		if strings.HasSuffix(p, ".csproj") {
			ps.dirs[dirOf(p)] = append(ps.dirs[dirOf(p)], p)
		}
	}
	if ps == nil {
		return nil
	}
	// References and imports name project files in any case (see listed).
	exact := map[string]string{}
	for _, p := range sortedKeys(ps.byPath) {
		if _, dup := exact[strings.ToLower(p)]; !dup {
			exact[strings.ToLower(p)] = p
		}
	}
	fix := func(l []string) []string {
		for i, p := range l {
			if e, ok := exact[strings.ToLower(p)]; ok {
				l[i] = e
			}
		}
		return sortedSet(l)
	}
	for _, pr := range ps.byPath {
		pr.refs, pr.imports = fix(pr.refs), fix(pr.imports)
	}
	for _, p := range sortedKeys(ps.byPath) {
		if !strings.HasSuffix(p, ".csproj") {
			continue
		}
		pr := ps.byPath[p]
		items := slices.Clone(pr.items)
		for _, imp := range pr.imports {
			if shared, ok := ps.byPath[imp]; ok {
				items = append(items, shared.items...)
			}
		}
		for _, it := range items {
			it = strings.ToLower(it)
			if l := ps.listed[it]; len(l) == 0 || l[len(l)-1] != p {
				ps.listed[it] = append(ps.listed[it], p)
			}
		}
	}
	return ps
}

// parseCSProject reads an MSBuild project file of directory dir: SDK-style
// (<Project Sdk="…">, or an <Import … Sdk="…"/>) or old-style (explicit
// Compile items). Names are matched without XML namespace; a malformed
// file keeps what was read before the error.
func parseCSProject(dir string, b []byte) *csProject {
	pr := &csProject{}
	if len(b) > csProjectMaxBytes {
		b = b[:csProjectMaxBytes]
	}
	d := xml.NewDecoder(bytes.NewReader(bytes.TrimPrefix(b, []byte("\ufeff"))))
	d.Strict = false
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	for {
		tok, err := d.RawToken()
		if err != nil {
			break
		}
		el, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		attr := func(name string) string {
			for _, a := range el.Attr {
				if a.Name.Local == name {
					return a.Value
				}
			}
			return ""
		}
		switch el.Name.Local {
		case "Project":
			if attr("Sdk") != "" {
				pr.dirWide = true
			}
		case "Sdk":
			pr.dirWide = true
		case "Import":
			if attr("Sdk") != "" {
				pr.dirWide = true
			}
			for _, p := range csItemPaths(dir, attr("Project")) {
				if strings.HasSuffix(p, ".projitems") {
					pr.imports = append(pr.imports, p)
				}
			}
		case "ProjectReference":
			pr.refs = append(pr.refs, csItemPaths(dir, attr("Include"))...)
		case "Compile":
			inc := attr("Include")
			if strings.ContainsAny(inc, "*?") {
				pr.dirWide = true
				continue
			}
			pr.items = append(pr.items, csItemPaths(dir, inc)...)
		}
	}
	pr.items = sortedSet(pr.items)
	pr.refs = sortedSet(pr.refs)
	pr.imports = sortedSet(pr.imports)
	return pr
}

// csItemPaths resolves an item's Include (";"-separated, backslashes,
// $(MSBuildThisFileDirectory) or $(MSBuildProjectDirectory) prefixes)
// against dir. Items with other properties, wildcards, or outside the root
// are dropped.
func csItemPaths(dir, include string) []string {
	var out []string
	for _, s := range strings.Split(include, ";") {
		s = strings.TrimSpace(strings.ReplaceAll(s, `\`, "/"))
		for _, prop := range []string{"$(MSBuildThisFileDirectory)", "$(MSBuildProjectDirectory)/", "$(MSBuildProjectDirectory)"} {
			s = strings.TrimPrefix(s, prop)
		}
		if s == "" || strings.Contains(s, "$(") || strings.ContainsAny(s, "*?") || strings.HasPrefix(s, "/") {
			continue
		}
		if p, ok := resolveRel(dir, s); ok && p != "" {
			out = append(out, p)
		}
	}
	return out
}

// projectsOf returns the .csproj files that compile the file at path: those
// listing it, and those of the nearest directory at or above it holding
// one that compile their whole directory or list it. When none of those
// claims it, the projects of that nearest directory. Nil for a file with no
// project above it and none listing it.
func (ps *csProjects) projectsOf(path string) []string {
	out := slices.Clone(ps.listed[strings.ToLower(path)])
	var near []string
	ancestors(dirOf(path), func(d string) bool {
		near = ps.dirs[d]
		return near == nil
	})
	claimed := false
	for _, p := range near {
		if pr := ps.byPath[p]; pr.dirWide || len(pr.items) == 0 || slices.Contains(out, p) {
			out = append(out, p)
			claimed = true
		}
	}
	if !claimed && len(out) == 0 {
		out = append(out, near...)
	}
	return sortedSet(out)
}

// reach returns the projects the given ones see: themselves and every
// project they reach through ProjectReference, transitively.
func (ps *csProjects) reach(from []string) map[string]bool {
	seen := map[string]bool{}
	work := slices.Clone(from)
	for len(work) > 0 {
		p := work[len(work)-1]
		work = work[:len(work)-1]
		if seen[p] {
			continue
		}
		seen[p] = true
		if pr, ok := ps.byPath[p]; ok {
			work = append(work, pr.refs...)
		}
	}
	return seen
}

// csVisibility decides which files' declarations a C# file may resolve
// to. A nil *csVisibility sees every file.
type csVisibility struct {
	ps    *csProjects
	reach map[string]bool
	memo  map[string]bool
}

// visibilityOf returns the visibility of the C# file at path: nil when the
// root has no project files or no project compiles path.
func (ps *csProjects) visibilityOf(path string) *csVisibility {
	if ps == nil {
		return nil
	}
	own := ps.projectsOf(path)
	if len(own) == 0 {
		return nil
	}
	return &csVisibility{ps: ps, reach: ps.reach(own), memo: map[string]bool{}}
}

// sees reports whether the declarations of the file at path are visible:
// it is in no project, or in one the using file's projects reach.
func (vis *csVisibility) sees(path string) bool {
	if vis == nil {
		return true
	}
	if ok, done := vis.memo[path]; done {
		return ok
	}
	projs := vis.ps.projectsOf(path)
	ok := len(projs) == 0 || slices.ContainsFunc(projs, func(p string) bool { return vis.reach[p] })
	vis.memo[path] = ok
	return ok
}

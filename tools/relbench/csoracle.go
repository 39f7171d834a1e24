package main

import (
	"encoding/xml"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctxd/ctxd/tools/corpus"
)

// csPackages are the C# corpora: a Windows Forms application from
// Debian's source package (upstream tarball), scored by the static
// resolver of csresolve.go.
var csPackages = []debSource{{
	name: "keepass2", version: "2.47+dfsg-2",
	orig: "keepass2_2.47+dfsg.orig.tar.xz",
	dir:  ".",
}}

// csProjectFile is the part of an MSBuild project the resolver reads.
type csProjectFile struct {
	ItemGroups []struct {
		Compile []struct {
			Include string `xml:"Include,attr"`
		} `xml:"Compile"`
		ProjectReference []struct {
			Include string `xml:"Include,attr"`
		} `xml:"ProjectReference"`
	} `xml:"ItemGroup"`
}

// csProjects reads every .csproj under root: project path → the .cs files
// it compiles and the projects it references (root-relative, slashes).
func csProjects(root string, projs []string) (map[string][]string, map[string][]string, error) {
	files, refs := map[string][]string{}, map[string][]string{}
	for _, p := range projs {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			return nil, nil, err
		}
		var pf csProjectFile
		if err := xml.Unmarshal(data, &pf); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", p, err)
		}
		dir := path.Dir(p)
		for _, g := range pf.ItemGroups {
			for _, c := range g.Compile {
				f := path.Clean(path.Join(dir, strings.ReplaceAll(c.Include, `\`, "/")))
				if strings.HasSuffix(f, ".cs") && !strings.HasPrefix(f, "../") {
					files[p] = append(files[p], f)
				}
			}
			for _, r := range g.ProjectReference {
				refs[p] = append(refs[p], path.Clean(path.Join(dir, strings.ReplaceAll(r.Include, `\`, "/"))))
			}
		}
	}
	return files, refs, nil
}

// csOracle resolves every .cs file under root: each project (with the
// projects it references, transitively) is one set of declarations; a file
// is resolved in every project compiling it, and its used files are the
// union. Files no project lists are resolved against all files.
func csOracle(root string) (*Oracle, int, error) {
	var all, projs []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir():
			if p != root && corpus.SkipDir(d.Name()) {
				return filepath.SkipDir
			}
		case strings.HasSuffix(rel, ".cs"):
			all = append(all, rel)
		case strings.HasSuffix(rel, ".csproj"):
			projs = append(projs, rel)
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	parsed := map[string]*csFile{}
	for _, p := range all {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			return nil, 0, err
		}
		parsed[p] = &csFile{path: p, tokens: csLex(string(data))}
	}
	projFiles, projRefs, err := csProjects(root, projs)
	if err != nil {
		return nil, 0, err
	}
	// Each project's visible files: its own and its references', deduplicated.
	var visible func(p string, seen map[string]bool) []string
	visible = func(p string, seen map[string]bool) []string {
		if seen[p] {
			return nil
		}
		seen[p] = true
		out := slices.Clone(projFiles[p])
		for _, r := range projRefs[p] {
			out = append(out, visible(r, seen)...)
		}
		return out
	}
	type project struct {
		own     []string
		visible []string
	}
	var projects []project
	listed := map[string]bool{}
	for _, p := range projs {
		var own []string
		for _, f := range projFiles[p] {
			if parsed[f] != nil {
				own = append(own, f)
				listed[f] = true
			}
		}
		var vis []string
		for _, f := range visible(p, map[string]bool{}) {
			if parsed[f] != nil && !slices.Contains(vis, f) {
				vis = append(vis, f)
			}
		}
		projects = append(projects, project{own: own, visible: vis})
	}
	var loose []string
	for _, f := range all {
		if !listed[f] {
			loose = append(loose, f)
		}
	}
	if len(loose) > 0 {
		projects = append(projects, project{own: loose, visible: all})
	}
	used := map[string]map[string]int{}
	for _, pr := range projects {
		d := newCSDecls()
		for _, f := range pr.visible {
			// types are per declaration pass; reset the file's list so
			// that a file seen by several projects is not doubled.
			parsed[f].types = nil
			d.declare(parsed[f])
		}
		for _, f := range pr.own {
			if used[f] == nil {
				used[f] = map[string]int{}
			}
			for to, n := range d.uses(parsed[f]) {
				used[f][to] = max(used[f][to], n)
			}
		}
	}
	return NewOracle(used), len(projs), nil
}

// csCorpus copies the sources to a workspace and resolves them.
func csCorpus(e env, s debSource) (*corpusRun, error) {
	src, err := fetchDebSource(e.cache, s)
	if err != nil {
		return nil, err
	}
	root := filepath.Join(e.tmp, "cs-"+s.name)
	if err := corpus.CopyTree(src, root); err != nil {
		return nil, err
	}
	o, nproj, err := csOracle(root)
	if err != nil {
		return nil, err
	}
	var cands []string
	for f := range o.Used {
		if !strings.HasSuffix(f, ".Designer.cs") && !strings.HasSuffix(f, "AssemblyInfo.cs") {
			cands = append(cands, f)
		}
	}
	slices.Sort(cands)
	targets := sample(root, cands, e.n, e.seed, 1024, e.maxTarget)
	return &corpusRun{
		title: fmt.Sprintf("C#: %s (Debian source %s %s, upstream tarball), static resolver of tools/relbench/csresolve.go (%d .csproj, %d files, no XAML); %d targets of %d candidates",
			s.name, s.name, s.version, nproj, len(o.Used), len(targets), len(cands)),
		root:    root,
		oracle:  o,
		targets: targets,
		sibling: func(name string) bool { return strings.HasSuffix(name, ".cs") },
	}, nil
}

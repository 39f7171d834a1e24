package relate

import (
	"strings"

	"github.com/ctxd/ctxd/index/syntax"
)

// rustCrate is the crate a Rust file belongs to: the directory its
// top-level modules live in and its root file candidates.
type rustCrate struct {
	dir   string
	roots []string
}

// crateOf finds f's crate from the nearest Cargo.toml: src/lib.rs or
// src/main.rs for files under src/, a binary of its own for src/bin/x.rs
// and src/bin/x/main.rs, and likewise for tests/, examples/ and benches/
// and for build.rs. ok is false without a Cargo.toml or outside those
// directories.
func (e *env) crateOf(f *fileFacts) (rustCrate, bool) {
	cargo, ok := e.nearestCargo(f.dir)
	if !ok {
		return rustCrate{}, false
	}
	rel := f.path
	if cargo != "" {
		rel = f.path[len(cargo)+1:]
	}
	if rel == "build.rs" {
		return rustCrate{dir: cargo, roots: []string{f.path}}, true
	}
	// own is a crate of its own rooted in top (src/bin, tests, …): a
	// file directly in top is a crate root, a file below top/x/ belongs to
	// the crate rooted at top/x/main.rs.
	own := func(top string) (rustCrate, bool) {
		rest := rel[len(top)+1:]
		first, _, nested := strings.Cut(rest, "/")
		if !nested {
			return rustCrate{dir: join(cargo, top), roots: []string{f.path}}, true
		}
		d := join(cargo, top+"/"+first)
		return rustCrate{dir: d, roots: []string{d + "/main.rs"}}, true
	}
	for _, top := range []string{"src/bin", "tests", "examples", "benches"} {
		if strings.HasPrefix(rel, top+"/") {
			return own(top)
		}
	}
	if strings.HasPrefix(rel, "src/") {
		src := join(cargo, "src")
		return rustCrate{dir: src, roots: []string{src + "/lib.rs", src + "/main.rs"}}, true
	}
	return rustCrate{}, false
}

// rustModuleDir is the directory holding the child modules of f's module:
// f's own directory for lib.rs, main.rs, mod.rs and crate roots, else
// dir/stem (Rust 2018 "foo.rs" + "foo/bar.rs").
func rustModuleDir(f *fileFacts, crate rustCrate, inCrate bool) string {
	name := baseOf(f.path)
	if name == "lib.rs" || name == "main.rs" || name == "mod.rs" {
		return f.dir
	}
	if inCrate {
		for _, r := range crate.roots {
			if r == f.path {
				return f.dir
			}
		}
	}
	return join(f.dir, strings.TrimSuffix(name, ".rs"))
}

// rustModFiles returns the files that may hold the module whose children
// live in dir.
func rustModFiles(dir string, crate rustCrate, inCrate bool) []string {
	if inCrate && dir == crate.dir {
		return crate.roots
	}
	if dir == "" {
		return nil
	}
	return []string{dir + ".rs", dir + "/mod.rs"}
}

// rustRequest: "mod x;" is x.rs or x/mod.rs in the module directory of the
// file. A use path is anchored at the crate ("crate::"), the file's module
// ("self::"), an ancestor module ("super::", repeatable), a library crate
// of the workspace named by its crate name (a test or binary using its own
// package's library, or one workspace crate using another) or, for any
// other path, the file's module (a child module; Rust 2018 paths). It
// names the module file of its longest prefix that exists: crate::a::b::C
// tries a/b/C.rs, a/b/C/mod.rs, a/b.rs, a/b/mod.rs, a.rs, a/mod.rs, then
// the anchor module's own file. Plain paths do not fall back to the file
// itself, and paths into std, core, alloc or a crate outside the workspace
// stay unresolved. Groups ("a::{b, c::D}") resolve each member.
func rustRequest(f *fileFacts, imp syntax.Import, c *reqCtx) request {
	crate, inCrate, modDir := c.crate, c.inCrate, c.rsDir
	if imp.Kind == syntax.ImportMod {
		name := strings.TrimSpace(imp.Path)
		if name == "" || strings.Contains(name, ":") {
			return request{}
		}
		return request{kind: reqFiles, groups: [][]string{{join(modDir, name) + ".rs", join(modDir, name) + "/mod.rs"}}}
	}
	var groups [][]string
	for _, p := range rustUsePaths(imp.Path) {
		if g := rustUseGroup(f, p, crate, inCrate, modDir, c.libs); len(g) > 0 {
			groups = append(groups, g)
		}
	}
	if len(groups) == 0 {
		return request{}
	}
	return request{kind: reqFiles, groups: groups}
}

func rustUseGroup(f *fileFacts, p string, crate rustCrate, inCrate bool, modDir string, libs map[string]rustCrate) []string {
	segs := strings.Split(p, "::")
	var dir string
	var anchor []string
	if lib, ok := libs[segs[0]]; ok && segs[0] != "crate" && segs[0] != "self" && segs[0] != "super" {
		// A library crate of the workspace, named by a binary, a test or
		// another crate: its root is the anchor.
		return rustPathFiles(lib.dir, segs[1:], lib.roots)
	}
	switch segs[0] {
	case "", "std", "core", "alloc":
		return nil
	case "crate":
		if !inCrate {
			return nil
		}
		dir, anchor, segs = crate.dir, crate.roots, segs[1:]
	case "self":
		dir, anchor, segs = modDir, []string{f.path}, segs[1:]
	case "super":
		dir = modDir
		for len(segs) > 0 && segs[0] == "super" {
			if dir == "" || (inCrate && dir == crate.dir) {
				return nil
			}
			dir, segs = dirOf(dir), segs[1:]
		}
		anchor = rustModFiles(dir, crate, inCrate)
	default:
		dir = modDir
	}
	return rustPathFiles(dir, segs, anchor)
}

// rustPathFiles lists the module files for the path segs below dir, longest
// prefix first, then the anchor module's own files.
func rustPathFiles(dir string, segs, anchor []string) []string {
	var out []string
	for k := len(segs); k >= 1; k-- {
		m := join(dir, strings.Join(segs[:k], "/"))
		out = append(out, m+".rs", m+"/mod.rs")
	}
	return append(out, anchor...)
}

// rustUsePaths expands a use tree into plain paths: groups are
// distributed ("a::{b, c::{d, self}}" gives a::b, a::c::d, a::c), aliases
// ("x as y"), globs ("::*") and trailing "::self" are dropped.
func rustUsePaths(s string) []string {
	s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), ";"))
	open := strings.IndexByte(s, '{')
	if open < 0 {
		if i := strings.Index(s, " as "); i >= 0 {
			s = s[:i]
		}
		s = strings.Join(strings.Fields(s), "")
		s = strings.TrimSuffix(s, "::*")
		s = strings.TrimSuffix(s, "::self")
		if s == "" || s == "*" || s == "self" {
			return nil
		}
		return []string{s}
	}
	prefix := strings.TrimSpace(s[:open])
	// Split the group's members at its top-level commas.
	var out []string
	depth, start := 0, open+1
	for i := open + 1; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}', ',':
			if s[i] == '}' && depth > 0 {
				depth--
				continue
			}
			if depth > 0 {
				continue
			}
			member := strings.TrimSpace(s[start:i])
			if member != "" {
				out = append(out, rustUsePaths(prefix+member)...)
			}
			start = i + 1
			if s[i] == '}' {
				return out
			}
		}
	}
	return out
}

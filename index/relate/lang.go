package relate

import (
	"path"
	"strings"

	"github.com/ctxd/ctxd/index/syntax"
)

// langOf returns the family of a file, which selects its resolver, import
// rules and config files: syntax.FamilyForPath of its extension first,
// because the family must be known for files without symbols too (a header
// that failed to parse, an upper-case extension or an ".inl" file indexed
// as text still has config files), else the family of the language it was
// parsed as.
func langOf(p string, syn *syntax.File) syntax.Family {
	if l := syntax.FamilyForPath(p); l != syntax.FamilyNone {
		return l
	}
	if syn != nil {
		return syntax.FamilyOf(syn.Language)
	}
	return syntax.FamilyNone
}

// isTSImporter reports whether an ECMAScript-family file is TypeScript,
// which decides whether "./x.js" prefers x.ts (TypeScript's ESM
// convention) or x.js.
func isTSImporter(p string) bool {
	l := syntax.LanguageForPath(p)
	return l == syntax.TypeScript || l == syntax.TSX
}

// dirOf returns the directory of a slash path relative to the root: "" for
// a top-level file.
func dirOf(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return ""
	}
	return p[:i]
}

// baseOf returns the last element of a slash path.
func baseOf(p string) string {
	return p[strings.LastIndexByte(p, '/')+1:]
}

// join joins a root-relative directory ("" is the root) and a relative
// name without cleaning.
func join(dir, name string) string {
	switch {
	case dir == "":
		return name
	case name == "":
		return dir
	}
	return dir + "/" + name
}

// resolveRel joins dir and a relative spec ("./x", "../y/z", "a/b") and
// cleans the result. ok is false when the result leaves the root.
func resolveRel(dir, rel string) (string, bool) {
	p := path.Clean(join(dir, rel))
	switch {
	case p == ".":
		return "", true
	case p == ".." || strings.HasPrefix(p, "../") || strings.HasPrefix(p, "/"):
		return "", false
	}
	return p, true
}

// ancestors calls fn for dir and each of its ancestors up to and including
// the root "", nearest first, until fn returns false.
func ancestors(dir string, fn func(d string) bool) {
	for {
		if !fn(dir) || dir == "" {
			return
		}
		dir = dirOf(dir)
	}
}

package relate

import (
	"path"
	"strings"

	"github.com/ctxd/ctxd/index/syntax"
)

// lang is the resolver family of a file: each family has its own import
// rules and config files. TypeScript and JavaScript share one family, as do
// C and C++.
type lang uint8

const (
	langNone lang = iota
	langGo
	langJS
	langPython
	langJava
	langCSharp
	langRust
	langC
)

// extLang decides a file's family by extension. It deliberately does not use
// the parser's language table: the family must be known for files without
// symbols too (a header that failed to parse still has config files).
var extLang = map[string]lang{
	".go": langGo,
	".ts": langJS, ".tsx": langJS, ".js": langJS, ".jsx": langJS,
	".mjs": langJS, ".cjs": langJS, ".mts": langJS, ".cts": langJS,
	".py": langPython, ".pyi": langPython,
	".java": langJava,
	".cs":   langCSharp,
	".rs":   langRust,
	".c":    langC, ".h": langC, ".cc": langC, ".cpp": langC, ".cxx": langC, ".c++": langC,
	".hh": langC, ".hpp": langC, ".hxx": langC, ".h++": langC, ".inl": langC, ".ipp": langC,
}

// syntaxLang maps the parser's language for a file whose extension is not in
// extLang (a shebang script, say).
var syntaxLang = map[syntax.Language]lang{
	syntax.Go: langGo, syntax.TypeScript: langJS, syntax.TSX: langJS, syntax.JavaScript: langJS,
	syntax.Python: langPython, syntax.Java: langJava, syntax.CSharp: langCSharp,
	syntax.Rust: langRust, syntax.C: langC, syntax.CPP: langC,
}

func langOf(p string, syn *syntax.File) lang {
	if l, ok := extLang[strings.ToLower(path.Ext(p))]; ok {
		return l
	}
	if syn != nil {
		return syntaxLang[syn.Language]
	}
	return langNone
}

// isTSImporter reports whether a JS-family file is TypeScript, which decides
// whether "./x.js" prefers x.ts (TypeScript's ESM convention) or x.js.
func isTSImporter(p string) bool {
	switch path.Ext(p) {
	case ".ts", ".tsx", ".mts", ".cts":
		return true
	}
	return false
}

// isTypeKind reports whether a symbol kind can be a base type.
func isTypeKind(k syntax.SymbolKind) bool {
	switch k {
	case syntax.Class, syntax.Interface, syntax.Struct, syntax.Enum, syntax.TypeAlias:
		return true
	}
	return false
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

package syntax

import (
	"path"
	"strings"
)

// extLanguages is the one table from file extension to [Language]; every
// other lookup of a language or family by extension ([LanguageForPath],
// [FamilyForPath]) is derived from it. Keys are case-sensitive because
// ".C" is C++ and ".c" C; the rules behind the other entries are those of
// LanguageForPath.
var extLanguages = map[string]Language{
	".go":   Go,
	".ts":   TypeScript,
	".mts":  TypeScript,
	".cts":  TypeScript,
	".tsx":  TSX,
	".js":   JavaScript,
	".mjs":  JavaScript,
	".cjs":  JavaScript,
	".jsx":  JavaScript,
	".py":   Python,
	".pyi":  Python,
	".java": Java,
	".rs":   Rust,
	".c":    C,
	".h":    C,
	".cc":   CPP,
	".cpp":  CPP,
	".cxx":  CPP,
	".c++":  CPP,
	".C":    CPP,
	".hpp":  CPP,
	".hh":   CPP,
	".hxx":  CPP,
	".h++":  CPP,
	".ipp":  CPP,
	".cs":   CSharp,
	".xaml": XAML,
}

// familyOnlyExts are extensions that belong to a [Family] without naming a
// Language: ctxd indexes such files as text (no grammar is run on them),
// yet index/relate gives them the family's config and build files.
// ".inl" is a C++ inline-definitions file included from a header.
var familyOnlyExts = map[string]Family{
	".inl": FamilyC,
}

// extOf returns the extension of p's base name, with both / and \ taken as
// separators (a Windows path names the same file as its slash form).
func extOf(p string) string {
	if i := strings.LastIndexByte(p, '\\'); i >= 0 {
		p = p[i+1:]
	}
	return path.Ext(p)
}

// LanguageForPath returns the Language of a file from its extension, or the
// empty Language (a text file, indexed without symbols) when the extension
// is not one ctxd parses. Only the base name matters (with / or \ as
// separators). Extensions match case-sensitively, so "x.GO" is text; ".C"
// is C++, its traditional Unix spelling. ".h" is C: a header's language
// cannot be told from its name, and the C grammar parses the common subset
// of C++ headers well enough for symbols. ".d.ts" is TypeScript and ".jsx"
// JavaScript, whose grammar parses JSX.
func LanguageForPath(p string) Language {
	return extLanguages[extOf(p)]
}

// Family groups the languages that share name resolution: the files of one
// family import each other, see each other's declarations and share config
// and build files, so a resolver (index/relate) or a ranking
// (contextbuilder) treats them as one language. The zero Family,
// [FamilyNone], is the family of text files and of unknown languages.
type Family uint8

// The families. TypeScript, TSX and JavaScript form FamilyECMAScript (a
// TypeScript file imports JavaScript and the reverse); C and C++ form
// FamilyC (a C++ file includes C headers, and ".h" is parsed as C whatever
// includes it). Every other Language is a family of its own.
const (
	FamilyNone       Family = iota
	FamilyGo                // Go
	FamilyECMAScript        // TypeScript, TSX, JavaScript
	FamilyPython            // Python
	FamilyJava              // Java
	FamilyCSharp            // C#
	FamilyRust              // Rust
	FamilyC                 // C, C++
)

// FamilyOf returns the family of a Language; FamilyNone for the empty
// Language (text) and for a Language ctxd does not parse.
func FamilyOf(l Language) Family {
	switch l {
	case Go:
		return FamilyGo
	case TypeScript, TSX, JavaScript:
		return FamilyECMAScript
	case Python:
		return FamilyPython
	case Java:
		return FamilyJava
	case CSharp, XAML:
		return FamilyCSharp
	case Rust:
		return FamilyRust
	case C, CPP:
		return FamilyC
	}
	return FamilyNone
}

// FamilyForPath returns the family of a file from its extension alone, or
// FamilyNone. It is [FamilyOf] of [LanguageForPath] with two differences,
// both because a family must be known for files that are not parsed (a
// file without symbols still has its family's config files, and a header
// that failed to parse still belongs to its family):
//
//   - the extension matches case-insensitively: "X.GO" is FamilyGo and
//     "x.H" FamilyC, although [LanguageForPath] indexes both as text;
//   - the extensions of familyOnlyExts (".inl") belong to a family although
//     no grammar parses them.
//
// Callers holding a parsed file should fall back to [FamilyOf] of its
// Language when FamilyForPath returns FamilyNone.
func FamilyForPath(p string) Family {
	ext := strings.ToLower(extOf(p))
	if l, ok := extLanguages[ext]; ok {
		return FamilyOf(l)
	}
	return familyOnlyExts[ext]
}

// SamePackageVisible reports whether the family makes the declarations of
// the other files of a package visible without an import: Go (a package is
// a directory) and Java (a package is declared, and usually a directory).
// Every other family states per file what it sees (imports, includes,
// usings, namespaces), which its resolver checks.
func (f Family) SamePackageVisible() bool {
	return f == FamilyGo || f == FamilyJava
}

// String returns the family's name: "go", "ecmascript", "python", "java",
// "csharp", "rust", "c", or "" for FamilyNone.
func (f Family) String() string {
	switch f {
	case FamilyGo:
		return "go"
	case FamilyECMAScript:
		return "ecmascript"
	case FamilyPython:
		return "python"
	case FamilyJava:
		return "java"
	case FamilyCSharp:
		return "csharp"
	case FamilyRust:
		return "rust"
	case FamilyC:
		return "c"
	}
	return ""
}

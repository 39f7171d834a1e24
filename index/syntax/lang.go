package syntax

import (
	"embed"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/c"
	"github.com/smacker/go-tree-sitter/cpp"
	"github.com/smacker/go-tree-sitter/csharp"
	"github.com/smacker/go-tree-sitter/golang"
	"github.com/smacker/go-tree-sitter/java"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/python"
	"github.com/smacker/go-tree-sitter/rust"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"
)

// ErrUnsupported is wrapped by the errors of [Parse] and [NewDoc] for a
// Language without symbol extraction, including the empty Language of text
// files.
var ErrUnsupported = errors.New("unsupported language")

// Languages lists every Language with symbol extraction, in a fixed order.
// Callers must not modify it.
var Languages = []Language{Go, TypeScript, TSX, JavaScript, Python, Java, Rust, C, CPP, CSharp}

//go:embed queries/*.scm
var queryFS embed.FS

// marks are the visibility facts the query found for a declaration.
type marks struct {
	exported   bool // an @exported capture, or a name listed by @export.name
	unexported bool // an @unexported capture
}

// spec is everything the language-agnostic extractor needs to know about one
// language: its grammar, its query files and a few small hooks for the rules
// that differ between languages and are awkward to express in a query.
type spec struct {
	lang    Language
	grammar func() *sitter.Language
	// queries are the files under queries/ concatenated into the query.
	queries []string
	// startDepth, when not zero, lets patterns start only at nodes at most
	// that many levels below the root (tree-sitter's max start depth);
	// tree-sitter then skips every subtree no pattern in progress needs, which
	// for Go means function bodies. Declarations the limit hides must be
	// ones the extractor drops anyway (locals), so that the limit changes
	// the cost and not the result.
	startDepth uint32
	// nameSep splits a qualified declared name ("A::f", "N.M") into container
	// and name; empty when names are never qualified.
	nameSep string
	// exported applies the language's visibility rule; parent is the
	// enclosing symbol, nil at top level or inside a non-symbol scope.
	exported func(name string, m marks, parent *Symbol) bool
	// isDoc reports whether a comment, as written, can be a doc comment.
	isDoc func(comment []byte) bool
	// container normalizes a receiver or scope type ("*T[K]" to "T").
	container func(string) string
	// base normalizes a base type as written ("*Base" to "Base").
	base func(string) string
	// importPaths turns an import path capture into the imported paths.
	importPaths func(string) []string
	// kind adjusts a kind given its container; nil keeps it.
	kind func(k SymbolKind, name, container string, parent *Symbol) SymbolKind
	// namespaces fills File.Namespaces from the Namespace symbols.
	namespaces bool
	// lex describes the tokens for finding references.
	lex *lexSpec

	once  sync.Once
	query *compiledQuery
	err   error
	pool  parserPool
}

var specs = map[Language]*spec{
	Go: {
		lang: Go, grammar: golang.GetLanguage, queries: []string{"go.scm"},
		startDepth:  1,
		exported:    func(name string, _ marks, _ *Symbol) bool { return upperInitial(name) },
		isDoc:       anyComment,
		container:   goTypeName,
		base:        goTypeName,
		importPaths: unquoteGo,
		kind:        goKind,
		lex:         goLex,
	},
	TypeScript: {
		lang: TypeScript, grammar: typescript.GetLanguage, queries: []string{"ecmascript.scm", "typescript.scm", "ecmascript_tail.scm"},
		nameSep: ".", exported: jsExported, isDoc: jsDoc,
		container: stripTypeArgs, base: stripTypeArgs, importPaths: unquoteJS,
		lex: tsLex,
	},
	TSX: {
		lang: TSX, grammar: tsx.GetLanguage, queries: []string{"ecmascript.scm", "typescript.scm", "tsx.scm", "ecmascript_tail.scm"},
		nameSep: ".", exported: jsExported, isDoc: jsDoc,
		container: stripTypeArgs, base: stripTypeArgs, importPaths: unquoteJS,
		lex: tsLex,
	},
	JavaScript: {
		lang: JavaScript, grammar: javascript.GetLanguage, queries: []string{"ecmascript.scm", "javascript.scm", "ecmascript_tail.scm"},
		exported: jsExported, isDoc: jsDoc,
		container: stripTypeArgs, base: stripTypeArgs, importPaths: unquoteJS,
		lex: jsLex,
	},
	Python: {
		lang: Python, grammar: python.GetLanguage, queries: []string{"python.scm"},
		exported:    func(name string, _ marks, _ *Symbol) bool { return pythonPublic(name) },
		isDoc:       func(c []byte) bool { return len(c) > 0 && c[0] == '#' },
		container:   noSpace,
		base:        func(s string) string { return stripBrackets(noSpace(s), '[', ']') },
		importPaths: func(s string) []string { return []string{noSpace(s)} },
		lex:         pythonLex,
	},
	Java: {
		lang: Java, grammar: java.GetLanguage, queries: []string{"java.scm"},
		exported:    func(_ string, m marks, _ *Symbol) bool { return m.exported },
		isDoc:       jsDoc,
		container:   stripTypeArgs,
		base:        stripTypeArgs,
		importPaths: javaImport,
		lex:         javaLex,
	},
	Rust: {
		lang: Rust, grammar: rust.GetLanguage, queries: []string{"rust.scm"},
		exported:    rustExported,
		isDoc:       rustDoc,
		container:   rustTypeName,
		base:        rustBase,
		importPaths: rustUse,
		lex:         rustLex,
	},
	C: {
		lang: C, grammar: c.GetLanguage, queries: []string{"c.scm"},
		exported:    cExported,
		isDoc:       anyComment,
		container:   stripTypeArgs,
		base:        stripTypeArgs,
		importPaths: unquoteInclude,
		lex:         cLex,
	},
	CPP: {
		lang: CPP, grammar: cpp.GetLanguage, queries: []string{"c.scm", "cpp.scm"},
		nameSep:     "::",
		exported:    cExported,
		isDoc:       anyComment,
		container:   stripTypeArgs,
		base:        stripTypeArgs,
		importPaths: unquoteInclude,
		kind:        cppKind,
		namespaces:  true,
		lex:         cppLex,
	},
	CSharp: {
		lang: CSharp, grammar: csharp.GetLanguage, queries: []string{"csharp.scm"},
		nameSep:     ".",
		exported:    func(_ string, m marks, _ *Symbol) bool { return m.exported && !m.unexported },
		isDoc:       jsDoc,
		container:   stripTypeArgs,
		base:        func(s string) string { return stripBrackets(stripTypeArgs(s), '(', ')') },
		importPaths: csharpUsing,
		namespaces:  true,
		lex:         csharpLex,
	},
}

// lookup returns the spec of lang, or an error wrapping ErrUnsupported.
func lookup(lang Language) (*spec, error) {
	s, ok := specs[lang]
	if !ok {
		return nil, fmt.Errorf("parsing %q: %w", lang, ErrUnsupported)
	}
	return s, nil
}

func upperInitial(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r)
}

// pythonPublic: a leading underscore marks a private name, except for
// dunder names (__init__, __eq__), which are the public protocol of a class.
func pythonPublic(name string) bool {
	if !strings.HasPrefix(name, "_") {
		return true
	}
	return len(name) > 4 && strings.HasPrefix(name, "__") && strings.HasSuffix(name, "__")
}

// jsExported: top-level declarations (and those of namespaces) are exported
// when an export statement declares or names them; class, interface and enum
// members follow their container, except private (and #private) members.
func jsExported(name string, m marks, parent *Symbol) bool {
	if parent != nil {
		switch parent.Kind {
		case Class, Interface, Enum:
			return parent.Exported && !m.unexported && !strings.HasPrefix(name, "#")
		}
	}
	return m.exported
}

// rustExported: `pub` of any kind; enum variants and trait items cannot
// carry a visibility and follow their enum or trait.
func rustExported(_ string, m marks, parent *Symbol) bool {
	if parent != nil {
		switch parent.Kind {
		case Enum, EnumMember, Interface:
			return parent.Exported
		}
	}
	return m.exported
}

// cExported: everything but `static` declarations at file or namespace
// scope (and the contents of anonymous namespaces). Class members are
// exported whatever their access: access specifiers are not tracked, and a
// static member has external linkage.
func cExported(_ string, m marks, parent *Symbol) bool {
	if parent != nil {
		switch parent.Kind {
		case Class, Struct, Enum, Interface:
			return true
		}
	}
	return !m.unexported
}

// cppKind makes functions declared in a class methods, and methods named
// after their class constructors.
func cppKind(k SymbolKind, name, container string, parent *Symbol) SymbolKind {
	if k == Function && parent != nil && (parent.Kind == Class || parent.Kind == Struct) {
		k = Method
	}
	if k == Method && container != "" && name == container[strings.LastIndexByte(container, '.')+1:] {
		k = Constructor
	}
	return k
}

func anyComment([]byte) bool { return true }

// jsDoc accepts /** */ and /// comments (JSDoc, Javadoc, C# XML docs).
func jsDoc(c []byte) bool {
	s := string(c)
	return (strings.HasPrefix(s, "/**") && s != "/**/") || strings.HasPrefix(s, "///")
}

// rustDoc accepts outer doc comments: /// (not ////) and /** (not /***).
func rustDoc(c []byte) bool {
	s := string(c)
	switch {
	case strings.HasPrefix(s, "///"):
		return !strings.HasPrefix(s, "////")
	case strings.HasPrefix(s, "/**"):
		return !strings.HasPrefix(s, "/***") && s != "/**/"
	}
	return false
}

// noSpace removes all white space.
func noSpace(s string) string {
	if strings.IndexFunc(s, unicode.IsSpace) < 0 {
		return s
	}
	return strings.Join(strings.Fields(s), "")
}

// stripBrackets removes every bracketed part, nesting included:
// "Map<K, List<V>>" to "Map".
func stripBrackets(s string, open, close byte) string {
	if strings.IndexByte(s, open) < 0 {
		return s
	}
	var b strings.Builder
	depth := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == open:
			depth++
		case c == close && depth > 0:
			depth--
		case depth == 0:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func stripTypeArgs(s string) string { return stripBrackets(noSpace(s), '<', '>') }

// goTypeName reduces a receiver or embedded type to its name: "*T[K]" and
// "(*T)" to "T"; qualifiers stay ("*io.Reader" to "io.Reader").
func goTypeName(s string) string {
	s = stripBrackets(noSpace(stripComments(s)), '[', ']')
	return strings.Trim(s, "*()")
}

// goKind makes a method declared without a receiver (`func () f()`, which
// go/parser accepts) a function.
func goKind(k SymbolKind, _, container string, _ *Symbol) SymbolKind {
	if k == Method && container == "" {
		return Function
	}
	return k
}

// rustTypeName reduces an impl's type to a container name: "&'a mut S<T>"
// to "S", "a::S" to "a.S".
func rustTypeName(s string) string {
	s = stripBrackets(s, '<', '>')
	f := strings.Fields(strings.NewReplacer("&", " ", "*", " ").Replace(s))
	for len(f) > 1 && (strings.HasPrefix(f[0], "'") || f[0] == "mut" || f[0] == "const" || f[0] == "dyn") {
		f = f[1:]
	}
	return strings.ReplaceAll(strings.Join(f, ""), "::", ".")
}

// rustBase keeps trait names of a bound list, dropping lifetimes and ?Sized.
func rustBase(s string) string {
	s = stripTypeArgs(s)
	if strings.HasPrefix(s, "'") || strings.HasPrefix(s, "?") {
		return ""
	}
	return s
}

func unquoteGo(s string) []string {
	if u, err := strconv.Unquote(s); err == nil {
		return []string{u}
	}
	return []string{strings.Trim(s, "\"`")}
}

// unquoteJS strips the quotes of a JS string literal; escapes are rare in
// module specifiers and kept as written.
func unquoteJS(s string) []string {
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] {
		s = s[1 : len(s)-1]
	}
	return []string{s}
}

func unquoteInclude(s string) []string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '<') {
		s = s[1 : len(s)-1]
	}
	return []string{s}
}

// javaImport reduces `import static a.b.*;` to "a.b.*".
func javaImport(s string) []string {
	s = strings.TrimSuffix(noSpace(stripComments(s)), ";")
	s = strings.TrimPrefix(s, "import")
	// noSpace glued the keyword to the path: "importstatica.b".
	if strings.HasPrefix(s, "static") && len(s) > len("static") && !strings.HasPrefix(s, "static.") {
		s = s[len("static"):]
	}
	return []string{s}
}

// csharpUsing reduces `global using static A.B;` and `using X = A.B;` to
// "A.B".
func csharpUsing(s string) []string {
	f := strings.Fields(strings.TrimSuffix(strings.TrimSpace(stripComments(s)), ";"))
	for len(f) > 0 && (f[0] == "global" || f[0] == "using" || f[0] == "static" || f[0] == "unsafe") {
		f = f[1:]
	}
	rest := strings.Join(f, " ")
	if i := strings.IndexByte(rest, '='); i >= 0 {
		rest = rest[i+1:]
	}
	return []string{noSpace(rest)}
}

// stripComments removes // and /* */ comments from a short declaration.
func stripComments(s string) string {
	if !strings.Contains(s, "/") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '/' && i+1 < len(s) {
			switch s[i+1] {
			case '/':
				j := strings.IndexByte(s[i:], '\n')
				if j < 0 {
					return b.String()
				}
				i += j
				b.WriteByte(' ')
				continue
			case '*':
				j := strings.Index(s[i+2:], "*/")
				if j < 0 {
					return b.String()
				}
				i += j + 3
				b.WriteByte(' ')
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// rustUse expands a use tree into its leaf paths, aliases dropped:
// "a::{b, c::{self, d as e}, f::*}" to "a::b", "a::c", "a::c::d", "a::f::*".
func rustUse(s string) []string {
	toks := useTokens(stripComments(s))
	var out []string
	i := 0
	var tree func(prefix []string)
	tree = func(prefix []string) {
		segs := append([]string(nil), prefix...)
		for i < len(toks) {
			switch t := toks[i]; {
			case t == "::":
				i++
				continue
			case t == "{":
				i++
				for i < len(toks) && toks[i] != "}" {
					if toks[i] == "," {
						i++
						continue
					}
					before := i
					tree(segs)
					if i == before { // not a tree: skip the token
						i++
					}
				}
				i++ // "}"
				return
			case t == "*":
				i++
				out = append(out, strings.Join(append(segs, "*"), "::"))
				return
			case t == "," || t == "}":
				// end of this tree
			case t == "as":
				i += 2 // the alias and its name
				continue
			default:
				i++
				segs = append(segs, t)
				continue
			}
			break
		}
		if len(segs) == len(prefix) {
			return // nothing named here
		}
		if n := len(segs); segs[n-1] == "self" && n > 1 {
			segs = segs[:n-1] // a::{self} imports a
		}
		out = append(out, strings.Join(segs, "::"))
	}
	tree(nil)
	return out
}

// useTokens splits a use tree into identifiers, "::", braces, commas and "*".
func useTokens(s string) []string {
	var toks []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ':' && i+1 < len(s) && s[i+1] == ':':
			toks = append(toks, "::")
			i += 2
		case c == '{' || c == '}' || c == ',' || c == '*':
			toks = append(toks, s[i:i+1])
			i++
		case c == '_' || c == '#' || c >= 0x80 || unicode.IsLetter(rune(c)) || unicode.IsDigit(rune(c)):
			j := i
			for j < len(s) && (s[j] == '_' || s[j] == '#' || s[j] >= 0x80 || unicode.IsLetter(rune(s[j])) || unicode.IsDigit(rune(s[j]))) {
				j++
			}
			toks = append(toks, s[i:j])
			i = j
		default:
			i++
		}
	}
	return toks
}

package syntax

import (
	"slices"
	"strconv"
)

// Language names a language ctxd parses. The values are stable: they appear in
// ctxd.indexStatus and in the on-disk cache. The empty Language means a text
// file indexed without symbols.
type Language string

// The languages with symbol extraction.
const (
	Go         Language = "go"
	TypeScript Language = "typescript"
	TSX        Language = "tsx"
	JavaScript Language = "javascript"
	Python     Language = "python"
	Java       Language = "java"
	Rust       Language = "rust"
	C          Language = "c"
	CPP        Language = "cpp"
	CSharp     Language = "csharp"
	// XAML is read by an XML tokenizer, not a grammar (xaml.go); it is not
	// in [Languages], whose members all have one.
	XAML Language = "xaml"
)

// Point is a position in a file: a zero-based line and a zero-based byte
// column within that line. Converting to editor positions (UTF-16 code units)
// is the server's job, not this package's.
type Point struct {
	Line   uint32 `json:"line"`
	Column uint32 `json:"column"`
}

// Range is a half-open span [Start, End) of a file, as points and as byte
// offsets; both describe the same span.
type Range struct {
	Start     Point  `json:"start"`
	End       Point  `json:"end"`
	StartByte uint32 `json:"start_byte"`
	EndByte   uint32 `json:"end_byte"`
}

// IsZero reports whether r is the zero Range (used for "absent").
func (r Range) IsZero() bool { return r == Range{} }

// SymbolKind classifies a declaration. Its values are stable strings on
// every wire (JSON, logs, String); in memory it is a byte, since a large
// workspace holds close to a million symbols. The byte values follow the
// strings' order, so that ordering by kind orders by name.
type SymbolKind uint8

// Symbol kinds. Languages map their declarations onto the closest kind:
// a Rust trait is an Interface, a Go struct type a Struct, a C# record a Class.
// The zero SymbolKind, "", is no kind.
const (
	Class       SymbolKind = iota + 1 // "class"
	Const                             // "const"
	Constructor                       // "constructor"
	Enum                              // "enum"
	EnumMember                        // "enum_member"
	Field                             // "field"
	Function                          // "function"
	Interface                         // "interface"
	Method                            // "method"
	Module                            // "module"
	Namespace                         // "namespace": C# namespace, C++ namespace, Rust mod
	Property                          // "property"
	Struct                            // "struct"
	TypeAlias                         // "type": Go non-struct, non-interface types; TS type aliases; C typedefs
	Var                               // "var"
)

// kindNames are the kinds' strings, by value; sorted.
var kindNames = [...]string{"", "class", "const", "constructor", "enum", "enum_member", "field",
	"function", "interface", "method", "module", "namespace", "property", "struct", "type", "var"}

// String returns the kind's stable name ("function"); "" for the zero
// kind and for a value that is no kind.
func (k SymbolKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return ""
}

// KindNamed returns the kind whose name is s; ok is false when there is
// none ("" included).
func KindNamed(s string) (k SymbolKind, ok bool) {
	if i, found := slices.BinarySearch(kindNames[:], s); found && i > 0 {
		return SymbolKind(i), true
	}
	return 0, false
}

// MarshalJSON encodes the kind as its name.
func (k SymbolKind) MarshalJSON() ([]byte, error) { return strconv.AppendQuote(nil, k.String()), nil }

// Symbol is one declaration of a file.
type Symbol struct {
	// Name is the declared identifier, without container.
	Name string     `json:"name"`
	Kind SymbolKind `json:"kind"`
	// Exported reports visibility outside its package or module by the
	// language's rule (Go: upper-case initial; Java/C#: public or protected;
	// Rust: pub; Python/JS/TS: not underscore-prefixed / exported; C/C++:
	// not static). Next to Kind, so that the two share a word.
	Exported bool `json:"exported"`
	// Container is the qualified name of the enclosing declaration (a class,
	// namespace, or for Go methods the receiver's base type name, without
	// pointer or type parameters); empty at top level.
	Container string `json:"container,omitempty"`
	// QualifiedName is Container + "." + Name, or Name at top level.
	QualifiedName string `json:"qualified_name"`
	// Range covers the whole declaration, doc comment excluded.
	Range Range `json:"range"`
	// Signature covers the declaration without its body: for a function
	// from its first token to the end of its result type, for a type
	// declaration its header (up to, not including, the body's opening
	// brace). For a declaration without a body it equals Range.
	Signature Range `json:"signature"`
	// Doc covers the doc comment directly above the declaration; the zero
	// Range when there is none.
	Doc Range `json:"doc"`
	// Bases are the names of the types this type extends, implements or
	// embeds, as written (qualifiers kept, type arguments removed), in source
	// order; nil when none.
	Bases []string `json:"bases,omitempty"`
	// Type is the declared type as written, for languages whose resolver
	// follows members through types: a variable's, constant's, field's or
	// property's type, a function's or method's result list ("(*File,
	// error)" in Go). Empty when the declaration states none or the
	// language does not record it. Go records it as a type descriptor (see
	// index/syntax/uses_go.go: qualified by import path, possibly deferred,
	// "(*File, )" with an empty entry for an unknown result), and for a
	// non-struct, non-interface type its definition ("[]Word").
	Type string `json:"type,omitempty"`
}

// Use is one reference of a file to a name that no local scope of the file
// declares, in the form the language's scoping states it. Extraction only
// records what the syntax says; resolving a Use to the declaration(s) of
// the workspace it names is index/relate's job, against every file. Names
// inside comments and string literals are never Uses.
type Use struct {
	// Name is the referenced identifier: a name of a package, module or
	// namespace scope, or, when Member is set, the name of a method, field
	// or property. Empty when a whole module is used as a value (Python
	// `import m; f(m)`): the Use names the module From.
	Name string `json:"n,omitempty"`
	// From says where Name is taken from, as written in the file. Empty
	// for an unqualified name, looked up in the file's own scopes (its
	// package, module or namespace, and what its imports bring into scope
	// unqualified). Otherwise per language: Go, the import path of the
	// package a selector `pkg.Name` names; TypeScript/JavaScript, the module
	// specifier of the import that binds the name (Name is then the
	// exported name: "default" for a default import); Python, the dotted
	// path up to Name, starting with the module as written in the import
	// ("os.path" for `import os; os.path.join`, "m.C" for `from m import
	// C; C.f`, ".x" for `from . import x; x.f`): the resolver takes the
	// longest prefix that is a module and the rest as attributes; C# and Java, a
	// namespace, package or type the name is qualified with.
	From string `json:"f,omitempty"`
	// Member reports a member use: Name is selected from a value or type
	// (x.Name), not looked up in a scope.
	Member bool `json:"m,omitempty"`
	// Recv describes, for a member use, the type of the value or the type
	// the member is selected from, in a form private to the language's
	// extractor and resolver (Go: a type expression, qualified by import
	// path; Python: a class's QualifiedName in this file, or "path:Name"
	// for a class reached through an import path as in From); empty when
	// the syntax does not state it.
	Recv string `json:"r,omitempty"`
	// Start and End are the byte span of the use in the source. The uses
	// stored in [File.Uses] are deduplicated and carry no span (both 0);
	// [Uses] returns every occurrence with its span.
	Start uint32 `json:"-"`
	End   uint32 `json:"-"`
}

// Binding is a name that a file's module scope takes from, or forwards to,
// another module: TypeScript/JavaScript `import {a as b} from "m"`,
// `export {a as b} from "m"`, `export * from "m"`, `const x = require("m")`;
// Python `from m import a as b`, `import m`, module-level aliases `X =
// m.a` (Name X, From "m", Orig "a"); Rust `use`/`pub use`; Go, one
// per import: Name the name it binds (its alias, else the package name
// assumed from the path, see index/syntax/uses_go.go; "*" for a dot
// import), From the import path, Orig "*" (blank imports and unknown names
// give none). The
// resolver follows Bindings to find where a name is declared (re-export
// chains, index files, `__init__.py`).
type Binding struct {
	// Name is the local name (for an export, the exported name); "*" for
	// every exported name of From (`export * from`, `from m import *`).
	Name string `json:"n"`
	// From is the module as written. TypeScript/JavaScript: empty for an
	// export of the file's own declaration under another name (`export {a
	// as b}`: Name "b", Orig "a"; `export default f`, `export default
	// function f`: Name "default", Orig "f", or Orig "" for an anonymous
	// default export); `export * from "m"` and CommonJS
	// `module.exports = require("m")` are Name "*", Orig "*";
	// `const x = require("m")` and `import x = require("m")` bind x to
	// Orig "*".
	From string `json:"f"`
	// Orig is the name in From: "*" for the module namespace itself
	// (`import * as ns`, `export * as ns from`, Python `import m`; Python
	// `import a.b` binds a and records a second Binding named "a.b"),
	// "default" for a default import.
	Orig string `json:"o"`
	// Export reports that the binding is visible to the file's importers
	// (a TypeScript re-export; in Python every module-level binding is an
	// attribute of the module, so always, and `__all__` narrows `*`).
	Export bool `json:"e,omitempty"`
}

// ImportKind says how an import statement names what it imports.
type ImportKind string

// Import kinds.
const (
	ImportPackage   ImportKind = "package"   // Go import path, Java package/class
	ImportModule    ImportKind = "module"    // JS/TS module specifier, Python module
	ImportNamespace ImportKind = "namespace" // C# using
	ImportInclude   ImportKind = "include"   // C/C++ #include
	ImportMod       ImportKind = "mod"       // Rust `mod x;` (a file of the crate)
	ImportUse       ImportKind = "use"       // Rust `use a::b::c`
)

// Import is one import statement (or one path of a grouped import).
type Import struct {
	// Path is the imported name as written, unquoted: "net/http", "./api",
	// "os.path", "..pkg.mod" (Python relative imports keep their dots),
	// "System.Text", "crate::store::Item", "util.h", "java.util.List",
	// "com.acme.*".
	Path string     `json:"path"`
	Kind ImportKind `json:"kind"`
	// System is true for C/C++ angle-bracket includes.
	System bool  `json:"system,omitempty"`
	Range  Range `json:"range"`
}

// File is everything ctxd extracts from one source file. It is immutable
// once returned: callers share it between snapshots.
type File struct {
	Language Language `json:"language"`
	// Package is the Go package name, the Java package, or empty.
	Package string `json:"package,omitempty"`
	// Namespaces lists the C# namespaces (and C++ namespaces) the file
	// declares, sorted and deduplicated; nil when none.
	Namespaces []string `json:"namespaces,omitempty"`
	// Symbols are sorted by Range.StartByte, then by Name.
	Symbols []Symbol `json:"symbols"`
	// Imports are in source order.
	Imports []Import `json:"imports"`
	// Refs are the identifiers (including type, field and property
	// identifiers) the file uses other than as the name of one of its own
	// declarations, sorted and deduplicated.
	Refs []string `json:"refs"`
	// Uses are the file's references resolved through its scopes as far as
	// one file allows (see [Use]), deduplicated, without spans, sorted by
	// Name, From, Recv, Member. Nil for languages without a uses
	// extractor: their resolver falls back to Refs.
	Uses []Use `json:"uses,omitempty"`
	// Bindings are the names the file's module scope imports or
	// re-exports, in source order (see [Binding]).
	Bindings []Binding `json:"bindings,omitempty"`
	// Exports lists the names a module exports when the language states it
	// apart from the declarations (Python `__all__`); nil when not stated.
	Exports []string `json:"exports,omitempty"`
	// Constraint is a Go file's build constraint expression (the
	// `//go:build` line without its prefix); empty when there is none. The
	// file name's _GOOS_GOARCH suffix is read from the path, not stored.
	Constraint string `json:"constraint,omitempty"`
	// HasErrors reports that the parse tree has ERROR or MISSING nodes; the
	// symbols are the best tree-sitter could recover.
	HasErrors bool `json:"has_errors,omitempty"`
}

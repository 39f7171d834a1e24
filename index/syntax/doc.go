// Package syntax parses source files with tree-sitter and extracts what the
// index needs from each: [Symbol]s, [Import]s and referenced identifiers,
// gathered in a [File].
//
// The package knows nothing about the workspace or LSP: it maps bytes to a
// [File]. Resolution of imports to workspace files lives in the index.
//
// # Use
//
// [Parse] is safe for concurrent use; it pools a parser per language and
// closes every tree-sitter object it creates before returning. [Doc] keeps
// a document's tree between edits: [Doc.Edit] takes the editor's byte edits
// ([Edit]), describes them to tree-sitter and reparses incrementally,
// returning a new Doc whose File is the one Parse gives for the new text; it
// is edited by one goroutine at a time. [LanguageForPath] picks the
// [Language] of a file.
//
// # Shared definitions
//
// The package is the one place that defines what other packages ask about
// languages and symbol kinds, so that they cannot drift apart:
//
//   - the extension table behind [LanguageForPath] and [FamilyForPath];
//   - [Family], the groups of languages that resolve names together
//     (TypeScript, TSX and JavaScript; C and C++; each other language
//     alone), with [FamilyOf] and [Family.SamePackageVisible];
//   - [SymbolKinds] and the kind sets [SymbolKind.IsCallable],
//     [SymbolKind.IsType], [SymbolKind.IsScope] and
//     [SymbolKind.IsContainer].
//
// # Queries
//
// Extraction is written as tree-sitter queries, one file per language under
// queries/, compiled once per language and shared. Related grammars share
// files: ecmascript.scm and ecmascript_tail.scm wrap javascript.scm and
// typescript.scm (which, with tsx.scm, serves TSX); c.scm serves C and, with
// cpp.scm, C++.
// The Go side interprets capture names generically; what differs between
// languages is a few hooks in lang.go (visibility, doc comment style, name
// normalization, import paths). The capture names:
//
//	@definition.<kind>  a declaration node; <kind> is a SymbolKind value
//	                    (function, method, constructor, class, interface,
//	                    struct, enum, type, const, var, field, property,
//	                    namespace, module, enum_member)
//	@name               its name; a declaration is identified by its node
//	                    and name node, and a match without @name adds facts
//	                    to the declarations with its definition node
//	@definition         such a definition node, adding facts without a kind
//	@body               the body: Signature runs from the start of Range to
//	                    the body, trailing space trimmed; without a body,
//	                    Signature is Range
//	@range              a node around one declaration that is its Range and
//	                    where its doc comment is looked for (Go's `type`
//	                    keyword, an export statement, decorators, template
//	                    headers); ignored when it wraps several declarations
//	@receiver           a Go method's receiver type, giving the container
//	@base               a base, implemented or embedded type
//	@exported           the declaration is exported (an export statement, a
//	                    pub, public or protected modifier, an interface
//	                    member); @unexported: it is not (static, private)
//	@export.name        a local name an export clause exports
//	@open               the declaration encloses the rest of the file (a C#
//	                    file-scoped namespace)
//	@scope              a container that is not a symbol (a Rust impl), named
//	                    by the @name in its match; its @base captures go to
//	                    the symbol of that name
//	@local              a node whose declarations are locals (closures)
//	@import.<kind>      an import statement, spec or call; <kind> is an
//	                    ImportKind value (package, module, namespace,
//	                    include, mod, use); with @import.path, the path,
//	                    and @import.system for a C angle-bracket include
//	@package            the package name (Go, Java)
//	@attribute          a node between a declaration and its doc comment
//	                    (a Rust #[...] attribute)
//	@text               prose inside code (JSX text): no references
//	@_anything          predicate operands, otherwise ignored
//
// When several patterns give a declaration different kinds, the pattern
// that comes last in the query file wins: a general pattern first (every
// Go type spec is a type), specific ones after (a spec with a struct type
// is a struct).
//
// # Rules applied on the Go side
//
// Containers come from nesting: a declaration inside another's node gets
// its qualified name as Container; Go methods get their receiver's base type,
// and qualified names ("A::f" in C++, "N.M" in TypeScript and C#) are split
// into container and name. Variables, fields, constants and type aliases
// contain nothing. Declarations inside a function, method, constructor,
// closure (@local) or blank declaration (named _) are locals and are left
// out, as are blank declarations themselves.
//
// The doc comment of a declaration is the block of comments directly above
// its Range: each comment first on its line, no blank line between them or
// before the declaration, attributes in between skipped. Which comments can
// be doc comments depends on the language: any comment for Go, C and C++;
// /** */ and /// for JavaScript, TypeScript, Java and C#; /// and /** */ for
// Rust; # for Python (not docstrings).
//
// References and comments come from a lexical scan of the source, not from
// queries (see refs.go for why): every identifier outside comments and
// string literals (but inside interpolations), keywords dropped, except the
// names of the file's own symbols at their declarations.
//
// # Language notes
//
// Go: struct fields and interface methods are Field and Method symbols of
// their type; fields of anonymous structs nested in a field are not
// extracted. Embedded fields are Bases, not symbols. A type spec is a
// Struct, an Interface, or else a TypeAlias (also for `type T = U`).
// Constants and variables get one symbol per name; a declaration with a
// single spec is the Range (keyword included), a group is not.
//
// JavaScript and TypeScript: a variable initialized with an arrow function
// or function expression is a Function (its Signature ends at the arrow),
// other top-level variables are Vars. Variables are extracted at the top
// level of the file and of namespaces only. Accessors are Properties,
// class fields Fields, interface properties Properties. Exported: declared
// in an export statement, named by an export clause or `export default x`
// of the file; members follow their class, interface or enum, except
// private and #private ones. CommonJS exports (module.exports) are not
// tracked. Import paths: `import … from`, `export … from`, `import x =
// require()`, and import() and require() with one string argument.
//
// Python: functions at module level, methods in class bodies (__init__ is
// the Constructor), classes anywhere outside functions; assignments at
// module level are Vars (every name of `a = b = 1` and `a, b = 1, 2`),
// in class bodies Fields. Functions and assignments inside `if` or `try`
// blocks at module level are not extracted. Exported: no leading underscore, or a dunder name
// (__init__). Import paths are the module as written: `from .x import y`
// is ".x", `from ..a.b import c` is "..a.b", `from . import y` is ".".
//
// Java: a record is a Class, an annotation type an Interface; enum constants
// and interface members are exported (implicitly public).
//
// Rust: a trait is an Interface, a union a Struct, a static a Var, a mod a
// Namespace (`mod x;` is also an ImportMod). Functions of impl blocks are
// Methods of the impl's type; `impl Trait for Type` adds Trait to the Bases
// of Type when the file declares it. Enum variants and trait items follow
// the visibility of their enum or trait, items of trait impls that of the
// trait (exported). Each leaf of a use tree is an import, aliases dropped
// ("a::{b as c, d}" gives "a::b" and "a::d"). macro_rules! is not extracted.
//
// C and C++: prototypes are Functions without a body (Signature = Range);
// object-like macros are Consts, function-like ones Functions; a union is a
// Struct; typedefs are TypeAliases except `typedef struct {…} T`, the
// Struct T. In C++, functions declared in a class are Methods (or
// Constructors), and a definition with a qualified name (`void A::f()`)
// is a Method of A: a namespace-qualified free function (`void ns::f()`)
// is taken for a method too. Exported means not `static` at file or
// namespace scope and not in an anonymous namespace; class members are
// exported whatever their access specifier (not tracked).
//
// C#: a record is a Class, a record struct a Struct, a delegate a
// TypeAlias, an event a Property (event fields are Fields). Namespaces,
// interface members and enum members are exported; `private protected`
// is not. Destructors, operators and indexers are not extracted.
//
// # Performance
//
// Go, the language of the corpus benchmarks, lets its patterns start only at
// the root's children (tree-sitter's max start depth): tree-sitter then never
// walks into function bodies. In a file with syntax errors, a declaration
// that error recovery nested deeper (inside an ERROR node) is then missed. Matches are read from the C query cursor in
// batches (cursor.go) rather than through go-tree-sitter's per-node API.
package syntax

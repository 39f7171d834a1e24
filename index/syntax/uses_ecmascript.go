package syntax

// The uses of TypeScript, TSX and JavaScript files. A module's scope holds
// its imports and its own top-level declarations; every other name is a
// global. So the extractor only looks for identifiers naming one of those
// (an imported binding, or a top-level declaration of the file), drops the
// ones a nested declaration shadows, and records:
//
//   - a reference to an imported binding as Use{Name: the exported name,
//     From: the module specifier} ("default" for a default import; for a
//     namespace binding `ns.x` is Use{Name: "x"} and a bare `ns` Use{Name:
//     ""}, the module used as a whole);
//   - a reference to a top-level declaration of the file as Use{Name};
//   - a re-export (`export {a} from "m"`, `export * from "m"`), a
//     side-effect import and a `require("m")` or `import("m")` call that
//     binds no name as uses of the module;
//   - a member access `obj.prop` or `obj?.prop` whose obj is not a
//     namespace binding (nor `require(…)`, `exports`, `module.exports`) as
//     Use{Name: "prop", Member: true, Recv}: Recv is a class name as
//     written in the file, to be looked up like an unqualified name (an
//     import or a top-level declaration) — the class of `this` in a class
//     body (through arrow functions; "" in a function or an object
//     literal's method), or the class a local obj is declared with (`x:
//     C`, `x: C<T>`, `x = new C(…)`, the innermost declaration of that name
//     in scope; destructured names are not tracked), or obj itself when it
//     is an imported or top-level name no local hides (`C.staticMember`,
//     `Enum.Member`) — else "" (an
//     inferred or unstated type: the resolver guesses from the file's type
//     context). Property names of object literals are not uses;
//   - the module-scope Bindings (see [Binding]; the conventions of these
//     languages are in its doc comment).
//
// The tree is read in one pass, flattened (see flatten.go) with the kinds
// and fields below, so that the cost per node is a few C calls and no Go
// allocation.

import (
	"slices"
	"strings"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
)

func init() {
	registerUses(esUses, TypeScript, TSX, JavaScript)
}

// esKind is the kind of a node, as far as the uses need it.
type esKind uint8

const (
	ekOther esKind = iota
	ekProgram
	ekIdent         // identifier
	ekTypeIdent     // type_identifier
	ekShorthand     // shorthand_property_identifier (a reference)
	ekShorthandPat  // shorthand_property_identifier_pattern (a declaration)
	ekProperty      // property_identifier, private_property_identifier
	ekString        // string
	ekImportStmt    // import_statement
	ekImportClause  // import_clause
	ekNamedImports  // named_imports
	ekImportSpec    // import_specifier
	ekNamespaceImp  // namespace_import
	ekImportRequire // import_require_clause
	ekExportStmt    // export_statement
	ekExportClause  // export_clause
	ekExportSpec    // export_specifier
	ekNamespaceExp  // namespace_export
	ekMember        // member_expression
	ekNestedType    // nested_type_identifier
	ekNestedIdent   // nested_identifier
	ekCall          // call_expression
	ekImportNode    // the named (import) of import("m")
	ekArguments     // arguments
	ekLexicalDecl   // lexical_declaration
	ekVarDecl       // variable_declaration
	ekDeclarator    // variable_declarator
	ekObjectPat     // object_pattern
	ekArrayPat      // array_pattern
	ekPairPat       // pair_pattern
	ekRestPat       // rest_pattern
	ekAssignPat     // assignment_pattern, object_assignment_pattern
	ekExprStmt      // expression_statement
	ekAssign        // assignment_expression
	ekObject        // object
	ekPair          // pair
	ekFuncDecl      // function and generator declarations, function signatures
	ekFuncExpr      // function expressions (their name is visible inside only)
	ekArrow         // arrow_function
	ekMethod        // method_definition
	ekClassDecl     // class and abstract class declarations
	ekClassExpr     // class (an expression)
	ekTypeDecl      // interface, type alias, enum declarations and namespaces
	ekBlock         // statement_block, switch_body, class_body
	ekFor           // for_statement, for_in_statement
	ekCatch         // catch_clause
	ekFormalParams  // formal_parameters
	ekParam         // required_parameter, optional_parameter
	ekTypeParam     // type_parameter
	ekTypeParams    // type_parameters
	ekKwDefault     // the "default" token
	ekKwDecl        // the "const", "let" and "var" tokens
	ekKwStar        // the "*" token
	ekKwEq          // the "=" token
	ekKwType        // the "type" and "typeof" tokens of import and export statements
	ekThis          // this
	ekSuper         // super
	ekNewExpr       // new_expression
	ekTypeAnn       // type_annotation
	ekGenericType   // generic_type
)

var esNamed = map[string]esKind{
	"program":                               ekProgram,
	"identifier":                            ekIdent,
	"type_identifier":                       ekTypeIdent,
	"shorthand_property_identifier":         ekShorthand,
	"shorthand_property_identifier_pattern": ekShorthandPat,
	"property_identifier":                   ekProperty,
	"private_property_identifier":           ekProperty,
	"string":                                ekString,
	"import_statement":                      ekImportStmt,
	"import_clause":                         ekImportClause,
	"named_imports":                         ekNamedImports,
	"import_specifier":                      ekImportSpec,
	"namespace_import":                      ekNamespaceImp,
	"import_require_clause":                 ekImportRequire,
	"export_statement":                      ekExportStmt,
	"export_clause":                         ekExportClause,
	"export_specifier":                      ekExportSpec,
	"namespace_export":                      ekNamespaceExp,
	"member_expression":                     ekMember,
	"nested_type_identifier":                ekNestedType,
	"nested_identifier":                     ekNestedIdent,
	"call_expression":                       ekCall,
	"import":                                ekImportNode,
	"arguments":                             ekArguments,
	"lexical_declaration":                   ekLexicalDecl,
	"variable_declaration":                  ekVarDecl,
	"variable_declarator":                   ekDeclarator,
	"object_pattern":                        ekObjectPat,
	"array_pattern":                         ekArrayPat,
	"pair_pattern":                          ekPairPat,
	"rest_pattern":                          ekRestPat,
	"assignment_pattern":                    ekAssignPat,
	"object_assignment_pattern":             ekAssignPat,
	"expression_statement":                  ekExprStmt,
	"assignment_expression":                 ekAssign,
	"object":                                ekObject,
	"pair":                                  ekPair,
	"function_declaration":                  ekFuncDecl,
	"generator_function_declaration":        ekFuncDecl,
	"function_signature":                    ekFuncDecl,
	"function_expression":                   ekFuncExpr,
	"function":                              ekFuncExpr,
	"generator_function":                    ekFuncExpr,
	"arrow_function":                        ekArrow,
	"method_definition":                     ekMethod,
	"class_declaration":                     ekClassDecl,
	"abstract_class_declaration":            ekClassDecl,
	"class":                                 ekClassExpr,
	"interface_declaration":                 ekTypeDecl,
	"type_alias_declaration":                ekTypeDecl,
	"enum_declaration":                      ekTypeDecl,
	"internal_module":                       ekTypeDecl,
	"statement_block":                       ekBlock,
	"switch_body":                           ekBlock,
	"class_body":                            ekBlock,
	"for_statement":                         ekFor,
	"for_in_statement":                      ekFor,
	"catch_clause":                          ekCatch,
	"formal_parameters":                     ekFormalParams,
	"required_parameter":                    ekParam,
	"optional_parameter":                    ekParam,
	"type_parameter":                        ekTypeParam,
	"type_parameters":                       ekTypeParams,
	"this":                                  ekThis,
	"super":                                 ekSuper,
	"new_expression":                        ekNewExpr,
	"type_annotation":                       ekTypeAnn,
	"generic_type":                          ekGenericType,
}

var esAnon = map[string]esKind{
	"default": ekKwDefault,
	"const":   ekKwDecl,
	"let":     ekKwDecl,
	"var":     ekKwDecl,
	"*":       ekKwStar,
	"=":       ekKwEq,
	"type":    ekKwType,
	"typeof":  ekKwType,
}

// esField is the field of a node in its parent, as far as the uses need it.
type esField uint8

const (
	efNone esField = iota
	efName
	efAlias
	efSource
	efDeclaration
	efValue
	efLeft
	efRight
	efObject
	efProperty
	efFunction
	efArguments
	efPattern
	efParameter
	efModule
	efKey
	efBody
	efType
	efConstructor
)

var esFields = map[string]esField{
	"name": efName, "alias": efAlias, "source": efSource, "declaration": efDeclaration,
	"value": efValue, "left": efLeft, "right": efRight, "object": efObject,
	"property": efProperty, "function": efFunction, "arguments": efArguments,
	"pattern": efPattern, "parameter": efParameter, "module": efModule, "key": efKey,
	"body": efBody, "type": efType, "constructor": efConstructor,
}

var esTableCache sync.Map // Language → *flatTable

// esTablesFor returns the table of language l, built once.
func esTablesFor(l Language) *flatTable {
	if t, ok := esTableCache.Load(l); ok {
		return t.(*flatTable)
	}
	s, err := lookup(l)
	if err != nil {
		return nil
	}
	t := newFlatTable(s.grammar(), esNamed, esAnon, esFields)
	esTableCache.Store(l, t)
	return t
}

// esNode is one node of the flattened tree, in pre-order.
type esNode = flatNode[esKind, esField]

// esName is what a module-scope name of the file stands for.
type esName struct {
	from, orig string // an import: From and the exported name ("*", "default")
	imported   bool
}

// esShadow is a nested declaration of a module-scope name: the name means
// something else in [start, end).
type esShadow struct {
	name       string
	start, end uint32
}

// esRef is a reference to a module-scope name.
type esRef struct {
	node int32
	name string
}

type esFile struct {
	n        []esNode
	src      []byte
	f        *File
	names    map[string]esName
	bindings []esPosBinding
	uses     []Use
	consumed map[int32]bool // require/import calls already read as bindings
}

type esPosBinding struct {
	pos uint32
	b   Binding
}

func esUses(root *sitter.Node, src []byte, f *File) {
	t := esTablesFor(f.Language)
	if t == nil {
		return
	}
	x := &esFile{n: flatten[esKind, esField](root, t, false, len(src)), src: src, f: f, names: map[string]esName{}}
	if len(x.n) == 0 {
		return
	}
	for _, s := range f.Symbols {
		if s.Container == "" {
			x.names[s.Name] = esName{}
		}
	}
	x.topLevel()
	x.references()
	slices.SortStableFunc(x.bindings, func(a, b esPosBinding) int { return int(a.pos) - int(b.pos) })
	for _, b := range x.bindings {
		f.Bindings = append(f.Bindings, b.b)
	}
	if x.uses == nil {
		x.uses = []Use{} // the file has a uses extractor, and no use
	}
	f.Uses = x.uses
}

func (x *esFile) text(i int32) string { return string(x.src[x.n[i].start:x.n[i].end]) }

// children calls fn for each child of node i.
func (x *esFile) children(i int32, fn func(c int32)) {
	for c := i + 1; c < x.n[i].next; c = x.n[c].next {
		fn(c)
	}
}

// child returns the first child of i with field fl (efNone: of kind k), or -1.
func (x *esFile) child(i int32, fl esField, k esKind) int32 {
	for c := i + 1; c < x.n[i].next; c = x.n[c].next {
		if (fl != efNone && x.n[c].field == fl) || (fl == efNone && x.n[c].kind == k) {
			return c
		}
	}
	return -1
}

// str returns the value of a string node, unquoted.
func (x *esFile) str(i int32) (string, bool) {
	if i < 0 || x.n[i].kind != ekString {
		return "", false
	}
	s := x.text(i)
	if len(s) < 2 || (s[0] != '"' && s[0] != '\'') || s[len(s)-1] != s[0] {
		return "", false
	}
	return s[1 : len(s)-1], true
}

// name returns the text of an identifier or a string (an arbitrary module
// namespace name, `export {"a-b" as c}`).
func (x *esFile) name(i int32) string {
	if s, ok := x.str(i); ok {
		return s
	}
	return x.text(i)
}

func (x *esFile) bind(pos uint32, b Binding) {
	x.bindings = append(x.bindings, esPosBinding{pos, b})
}

func (x *esFile) use(start, end uint32, name, from string) {
	x.uses = append(x.uses, Use{Name: name, From: from, Start: start, End: end})
}

// requireOf returns the module of a `require("m")` call node, or ok false.
func (x *esFile) requireOf(i int32) (string, bool) {
	if i < 0 || x.n[i].kind != ekCall {
		return "", false
	}
	fn := x.child(i, efFunction, 0)
	if fn < 0 || x.n[fn].kind != ekIdent || x.text(fn) != "require" {
		return "", false
	}
	args := x.child(i, efArguments, 0)
	if args < 0 {
		return "", false
	}
	var spec string
	ok, count := false, 0
	x.children(args, func(c int32) {
		if x.n[c].kind == ekOther && x.n[c].end-x.n[c].start == 1 {
			return // ( , )
		}
		count++
		spec, ok = x.str(c)
	})
	return spec, ok && count == 1
}

// requireMember reads `require("m")` and `require("m").y`: the module and
// the name taken from it ("*" for the module itself).
func (x *esFile) requireMember(i int32) (from, orig string, call int32, ok bool) {
	if i < 0 {
		return "", "", -1, false
	}
	if m, ok := x.requireOf(i); ok {
		return m, "*", i, true
	}
	if x.n[i].kind == ekMember {
		obj, prop := x.child(i, efObject, 0), x.child(i, efProperty, 0)
		if m, ok := x.requireOf(obj); ok && prop >= 0 {
			return m, x.text(prop), obj, true
		}
	}
	return "", "", -1, false
}

// topLevel reads the import and export statements and the CommonJS
// requires and exports of the module scope.
func (x *esFile) topLevel() {
	x.consumed = map[int32]bool{}
	// Imports first: an export may name an import declared below it.
	x.children(0, func(s int32) {
		switch x.n[s].kind {
		case ekImportStmt:
			x.importStmt(s)
		case ekLexicalDecl, ekVarDecl:
			x.children(s, func(d int32) {
				if x.n[d].kind == ekDeclarator {
					x.requireDecl(d)
				}
			})
		}
	})
	x.children(0, func(s int32) {
		switch x.n[s].kind {
		case ekExportStmt:
			x.exportStmt(s)
		case ekExprStmt:
			x.children(s, func(e int32) {
				if x.n[e].kind == ekAssign {
					x.cjsExport(e)
				}
			})
		}
	})
}

func (x *esFile) importStmt(s int32) {
	src := x.child(s, efSource, 0)
	from, ok := x.str(src)
	clause := x.child(s, efNone, ekImportClause)
	if req := x.child(s, efNone, ekImportRequire); req >= 0 {
		// import x = require("m")
		from, ok = x.str(x.child(req, efSource, 0))
		if id := x.child(req, efNone, ekIdent); id >= 0 && ok {
			x.importName(id, from, "*")
		}
		return
	}
	if !ok {
		return
	}
	if clause < 0 {
		x.use(x.n[src].start, x.n[src].end, "", from) // import "m"
		return
	}
	x.children(clause, func(c int32) {
		switch x.n[c].kind {
		case ekIdent:
			x.importName(c, from, "default")
		case ekNamespaceImp:
			if id := x.child(c, efNone, ekIdent); id >= 0 {
				x.importName(id, from, "*")
			}
		case ekNamedImports:
			x.children(c, func(sp int32) {
				if x.n[sp].kind != ekImportSpec {
					return
				}
				name := x.child(sp, efName, 0)
				if name < 0 {
					return
				}
				local := name
				if a := x.child(sp, efAlias, 0); a >= 0 {
					local = a
				}
				x.importNameAs(local, x.name(local), from, x.name(name))
			})
		}
	})
}

func (x *esFile) importName(id int32, from, orig string) {
	x.importNameAs(id, x.text(id), from, orig)
}

func (x *esFile) importNameAs(id int32, local, from, orig string) {
	x.names[local] = esName{from: from, orig: orig, imported: true}
	x.bind(x.n[id].start, Binding{Name: local, From: from, Orig: orig})
}

// requireDecl reads `const x = require("m")`, `const {a, b: c} =
// require("m")` and `const y = require("m").z`.
func (x *esFile) requireDecl(d int32) {
	from, orig, call, ok := x.requireMember(x.child(d, efValue, 0))
	name := x.child(d, efName, 0)
	if !ok || name < 0 {
		return
	}
	switch x.n[name].kind {
	case ekIdent:
		x.consumed[call] = true
		x.importName(name, from, orig)
	case ekObjectPat:
		if orig != "*" {
			return
		}
		x.consumed[call] = true
		x.children(name, func(p int32) {
			switch x.n[p].kind {
			case ekShorthandPat:
				x.importName(p, from, x.text(p))
			case ekPairPat:
				k, v := x.child(p, efKey, 0), x.child(p, efValue, 0)
				if k >= 0 && v >= 0 && x.n[v].kind == ekIdent {
					x.importNameAs(v, x.text(v), from, x.name(k))
				}
			case ekAssignPat:
				if l := x.child(p, efLeft, 0); l >= 0 && x.n[l].kind == ekShorthandPat {
					x.importName(l, from, x.text(l))
				}
			}
		})
	}
}

// exportLocal records `export {a as b}` or `export default a` of a
// module-scope name a: an import forwarded, or a local declaration under
// another name.
func (x *esFile) exportLocal(pos uint32, exported, local string) {
	if nm, ok := x.names[local]; ok && nm.imported {
		x.bind(pos, Binding{Name: exported, From: nm.from, Orig: nm.orig, Export: true})
		return
	}
	if exported != local {
		x.bind(pos, Binding{Name: exported, Orig: local, Export: true})
	}
}

func (x *esFile) exportStmt(s int32) {
	pos := x.n[s].start
	src := x.child(s, efSource, 0)
	if src >= 0 {
		from, ok := x.str(src)
		if !ok {
			return
		}
		x.consumed[s] = true
		if ns := x.child(s, efNone, ekNamespaceExp); ns >= 0 {
			// export * as ns from "m"
			var name string
			x.children(ns, func(c int32) {
				if k := x.n[c].kind; k == ekIdent || k == ekString {
					name = x.name(c)
				}
			})
			if name != "" {
				x.bind(pos, Binding{Name: name, From: from, Orig: "*", Export: true})
			}
			x.use(x.n[src].start, x.n[src].end, "", from)
			return
		}
		if clause := x.child(s, efNone, ekExportClause); clause >= 0 {
			x.children(clause, func(sp int32) {
				if x.n[sp].kind != ekExportSpec {
					return
				}
				name := x.child(sp, efName, 0)
				if name < 0 {
					return
				}
				exported := x.name(name)
				if a := x.child(sp, efAlias, 0); a >= 0 {
					exported = x.name(a)
				}
				x.bind(pos, Binding{Name: exported, From: from, Orig: x.name(name), Export: true})
				x.use(x.n[name].start, x.n[name].end, x.name(name), from)
			})
			return
		}
		if x.child(s, efNone, ekKwStar) >= 0 {
			x.bind(pos, Binding{Name: "*", From: from, Orig: "*", Export: true})
			x.use(x.n[src].start, x.n[src].end, "", from)
		}
		return
	}
	if clause := x.child(s, efNone, ekExportClause); clause >= 0 {
		x.children(clause, func(sp int32) {
			if x.n[sp].kind != ekExportSpec {
				return
			}
			if name := x.child(sp, efName, 0); name >= 0 {
				exported := x.name(name)
				if a := x.child(sp, efAlias, 0); a >= 0 {
					exported = x.name(a)
				}
				x.exportLocal(pos, exported, x.name(name))
			}
		})
		return
	}
	isDefault := x.child(s, efNone, ekKwDefault) >= 0
	if decl := x.child(s, efDeclaration, 0); decl >= 0 {
		if isDefault {
			orig := ""
			if nm := x.child(decl, efName, 0); nm >= 0 {
				orig = x.text(nm)
			}
			x.bind(pos, Binding{Name: "default", Orig: orig, Export: true})
		}
		return
	}
	if isDefault || x.child(s, efNone, ekKwEq) >= 0 {
		// export default <expression>; TypeScript's export = <expression>
		v := x.child(s, efValue, 0)
		if v < 0 {
			x.children(s, func(c int32) {
				if v < 0 && x.n[c].kind == ekIdent {
					v = c
				}
			})
		}
		if v >= 0 && x.n[v].kind == ekIdent {
			x.exportLocal(pos, "default", x.text(v))
			return
		}
		if v >= 0 && (x.n[v].kind == ekClassExpr || x.n[v].kind == ekFuncExpr) {
			if nm := x.child(v, efName, 0); nm >= 0 {
				x.bind(pos, Binding{Name: "default", Orig: x.text(nm), Export: true})
				return
			}
		}
		x.bind(pos, Binding{Name: "default", Export: true})
	}
}

// cjsExport reads the CommonJS exports that forward another module:
// `module.exports = require("m")`, `exports.x = require("m")`,
// `exports.x = require("m").y`, `module.exports.x = y` and `exports.x = y`
// of a required y, and `module.exports = {a, b: c}` of required names.
func (x *esFile) cjsExport(e int32) {
	left, right := x.child(e, efLeft, 0), x.child(e, efRight, 0)
	if left < 0 || right < 0 || x.n[left].kind != ekMember {
		return
	}
	pos := x.n[e].start
	target := x.src[x.n[left].start:x.n[left].end]
	whole := string(target) == "module.exports"
	var prop string
	if !whole {
		obj, p := x.child(left, efObject, 0), x.child(left, efProperty, 0)
		if obj < 0 || p < 0 {
			return
		}
		if o := x.text(obj); o != "exports" && o != "module.exports" {
			return
		}
		prop = x.text(p)
	}
	if from, orig, call, ok := x.requireMember(right); ok {
		x.consumed[call] = true
		x.use(x.n[right].start, x.n[right].end, strings.TrimPrefix(orig, "*"), from)
		switch {
		case whole && orig == "*":
			x.bind(pos, Binding{Name: "*", From: from, Orig: "*", Export: true})
		case whole:
			x.bind(pos, Binding{Name: "default", From: from, Orig: orig, Export: true})
		default:
			x.bind(pos, Binding{Name: prop, From: from, Orig: orig, Export: true})
		}
		return
	}
	switch {
	case !whole && x.n[right].kind == ekIdent:
		if nm, ok := x.names[x.text(right)]; ok && nm.imported {
			x.bind(pos, Binding{Name: prop, From: nm.from, Orig: nm.orig, Export: true})
		}
	case whole && x.n[right].kind == ekObject:
		x.children(right, func(p int32) {
			switch x.n[p].kind {
			case ekShorthand:
				x.exportLocal(pos, x.text(p), x.text(p))
			case ekPair:
				k, v := x.child(p, efKey, 0), x.child(p, efValue, 0)
				if k >= 0 && v >= 0 && x.n[v].kind == ekIdent {
					x.exportLocal(pos, x.name(k), x.text(v))
				}
			}
		})
	}
}

// references finds the references to module-scope names and the uses of
// modules by require and import calls.
func (x *esFile) references() {
	var refs []esRef
	var shadows []esShadow
	var members []int32
	var locals []esLocal
	n := x.n
	for i := int32(1); i < int32(len(n)); i++ {
		switch n[i].kind {
		case ekImportStmt:
			i = n[i].next - 1 // read by importStmt
			continue
		case ekExportStmt:
			if x.consumed[i] {
				i = n[i].next - 1 // export … from: read by exportStmt
			}
			continue
		case ekCall:
			if x.consumed[i] {
				continue
			}
			x.moduleCall(i)
			continue
		case ekMember:
			members = append(members, i)
			continue
		case ekIdent, ekTypeIdent, ekShorthand, ekShorthandPat:
		default:
			continue
		}
		name := string(x.src[n[i].start:n[i].end])
		if n[i].kind == ekIdent {
			if p := n[i].parent; p >= 0 {
				switch n[p].kind {
				case ekDeclarator, ekParam, ekFormalParams, ekArrow, ekCatch, ekFor:
					if scope, decl := x.declScope(i); decl {
						locals = append(locals, esLocal{name, n[scope].start, n[scope].end, x.localType(i)})
					}
				}
			}
		}
		if _, ok := x.names[name]; !ok {
			continue
		}
		if scope, decl := x.declScope(i); decl {
			if scope > 0 {
				shadows = append(shadows, esShadow{name, n[scope].start, n[scope].end})
			}
			continue
		}
		refs = append(refs, esRef{i, name})
	}
	for _, r := range refs {
		pos := n[r.node].start
		if len(shadows) > 0 && slices.ContainsFunc(shadows, func(s esShadow) bool {
			return s.name == r.name && s.start <= pos && pos < s.end
		}) {
			continue
		}
		x.ref(r)
	}
	for _, m := range members {
		x.member(m, shadows, locals)
	}
}

// esLocal is a declaration of a local name (a variable or a parameter) in
// the scope [start, end), with the class it is typed as or constructed
// from ("" when the syntax does not say).
type esLocal struct {
	name       string
	start, end uint32
	typ        string
}

// localType returns the class a declared identifier is typed as (`x: C`,
// `x: C<T>`) or constructed from (`x = new C(…)`), or "".
func (x *esFile) localType(i int32) string {
	n := x.n
	p := n[i].parent
	if k := n[p].kind; k != ekDeclarator && k != ekParam {
		return ""
	}
	if t := x.child(p, efType, 0); t >= 0 {
		for c := t + 1; c < n[t].next; c = n[c].next {
			if n[c].kind == ekOther && n[c].end-n[c].start == 1 && x.src[n[c].start] == ':' {
				continue
			}
			switch n[c].kind {
			case ekTypeIdent:
				return x.text(c)
			case ekGenericType:
				if nm := x.child(c, efName, 0); nm >= 0 && n[nm].kind == ekTypeIdent {
					return x.text(nm)
				}
			}
			return ""
		}
		return ""
	}
	if v := x.child(p, efValue, 0); v >= 0 && n[v].kind == ekNewExpr {
		if c := x.child(v, efConstructor, 0); c >= 0 && n[c].kind == ekIdent {
			return x.text(c)
		}
	}
	return ""
}

// member records the member use of a member expression `obj.prop`: none
// when obj is a namespace binding the scope does not shadow (ref records
// that use), a require call (moduleCall does) or CommonJS's `module` or
// `exports`; Recv is the class of `this` in a class body, the class a
// local obj is typed as or constructed from, else "".
func (x *esFile) member(m int32, shadows []esShadow, locals []esLocal) {
	n := x.n
	obj, prop := x.child(m, efObject, 0), x.child(m, efProperty, 0)
	if obj < 0 || prop < 0 || n[prop].kind != ekProperty {
		return
	}
	var recv string
	switch n[obj].kind {
	case ekThis:
		recv = x.thisClass(m)
	case ekIdent:
		name := x.text(obj)
		pos := n[obj].start
		if nm, ok := x.names[name]; ok && nm.imported && nm.orig == "*" {
			if !slices.ContainsFunc(shadows, func(s esShadow) bool {
				return s.name == name && s.start <= pos && pos < s.end
			}) {
				return // ns.x: a use of the module's x
			}
		}
		if name == "exports" || (name == "module" && x.text(prop) == "exports") {
			return
		}
		var best *esLocal
		for j := range locals {
			l := &locals[j]
			if l.name == name && l.start <= pos && pos < l.end && (best == nil || l.start >= best.start) {
				best = l
			}
		}
		if best != nil {
			recv = best.typ
		} else if _, ok := x.names[name]; ok {
			recv = name // C.x of an imported or top-level class: a static member
		}
	case ekCall:
		if _, ok := x.requireOf(obj); ok {
			return
		}
	case ekMember:
		if x.text(obj) == "module.exports" {
			return
		}
	}
	x.uses = append(x.uses, Use{Name: x.text(prop), Member: true, Recv: recv, Start: n[prop].start, End: n[prop].end})
}

// thisClass returns the name of the class whose `this` node i stands in:
// the nearest enclosing class, through arrow functions and the class's
// methods; "" inside a function, an object literal's method or an
// anonymous class.
func (x *esFile) thisClass(i int32) string {
	n := x.n
	for p := n[i].parent; p > 0; p = n[p].parent {
		switch n[p].kind {
		case ekFuncDecl, ekFuncExpr:
			return ""
		case ekMethod:
			if q := n[p].parent; q >= 0 && n[q].kind == ekObject {
				return ""
			}
		case ekClassDecl, ekClassExpr:
			if nm := x.child(p, efName, 0); nm >= 0 {
				return x.text(nm)
			}
			return ""
		}
	}
	return ""
}

// ref records the use a reference makes.
func (x *esFile) ref(r esRef) {
	n := x.n
	i := r.node
	nm := x.names[r.name]
	if !nm.imported {
		x.use(n[i].start, n[i].end, r.name, "")
		return
	}
	if nm.orig != "*" {
		x.use(n[i].start, n[i].end, nm.orig, nm.from)
		return
	}
	// A namespace: ns.x is a use of x, a bare ns of the whole module.
	if p := n[i].parent; p >= 0 {
		var member int32 = -1
		switch {
		case n[p].kind == ekMember && n[i].field == efObject:
			member = x.child(p, efProperty, 0)
		case n[p].kind == ekNestedType && n[i].field == efModule:
			member = x.child(p, efName, 0)
		case n[p].kind == ekNestedIdent && i == p+1:
			for c := n[i].next; c < n[p].next; c = n[c].next {
				if n[c].kind == ekIdent || n[c].kind == ekProperty {
					member = c
					break
				}
			}
		}
		if member >= 0 && n[member].kind != ekOther {
			x.use(n[i].start, n[member].end, x.text(member), nm.from)
			return
		}
	}
	x.use(n[i].start, n[i].end, "", nm.from)
}

// moduleCall records a require("m") or import("m") call outside the
// bindings as a use of the module, or of its member y for require("m").y.
func (x *esFile) moduleCall(i int32) {
	n := x.n
	fn := x.child(i, efFunction, 0)
	if fn < 0 {
		return
	}
	var from string
	switch {
	case n[fn].kind == ekImportNode:
		args := x.child(i, efArguments, 0)
		if args < 0 {
			return
		}
		ok := false
		x.children(args, func(c int32) {
			if !ok {
				from, ok = x.str(c)
			}
		})
		if !ok {
			return
		}
	case n[fn].kind == ekIdent:
		m, ok := x.requireOf(i)
		if !ok {
			return
		}
		from = m
		if p := n[i].parent; p >= 0 && n[p].kind == ekMember && n[i].field == efObject {
			if prop := x.child(p, efProperty, 0); prop >= 0 {
				x.use(n[i].start, n[prop].end, x.text(prop), from)
				return
			}
		}
	default:
		return
	}
	x.use(n[i].start, n[i].end, "", from)
}

// declScope reports whether identifier i is declared where it stands and,
// then, the node of the scope the declaration belongs to (0, the program,
// for a module-scope declaration).
func (x *esFile) declScope(i int32) (int32, bool) {
	n := x.n
	p := n[i].parent
	if p < 0 {
		return 0, false
	}
	switch n[i].kind {
	case ekShorthandPat:
		return x.patternScope(p)
	case ekShorthand:
		return 0, false
	}
	f := n[i].field
	switch n[p].kind {
	case ekDeclarator:
		if f == efName {
			return x.declaratorScope(p), true
		}
	case ekObjectPat, ekArrayPat, ekRestPat:
		return x.patternScope(p)
	case ekPairPat:
		if f == efValue {
			return x.patternScope(p)
		}
	case ekAssignPat:
		if f == efLeft {
			return x.patternScope(p)
		}
	case ekParam:
		if f == efPattern {
			return x.fnScope(p), true
		}
	case ekFormalParams:
		return x.fnScope(p), true
	case ekArrow:
		if f == efParameter {
			return p, true
		}
	case ekCatch:
		if f == efParameter {
			return p, true
		}
	case ekFor:
		if f == efLeft && x.child(p, efNone, ekKwDecl) >= 0 {
			return p, true
		}
	case ekFuncDecl, ekClassDecl, ekTypeDecl:
		if f == efName {
			return x.blockScope(n[p].parent), true
		}
	case ekFuncExpr, ekClassExpr:
		if f == efName {
			return p, true
		}
	case ekTypeParam:
		if f == efName {
			if tp := n[p].parent; tp >= 0 && n[tp].parent >= 0 {
				return n[tp].parent, true
			}
		}
	case ekImportSpec, ekNamespaceImp, ekImportClause, ekImportRequire:
		return 0, true
	case ekExportSpec:
		if f == efAlias {
			return 0, true // the exported name, not a reference
		}
	}
	return 0, false
}

// patternScope climbs from a destructuring pattern to what declares it.
func (x *esFile) patternScope(p int32) (int32, bool) {
	n := x.n
	for p >= 0 {
		switch n[p].kind {
		case ekObjectPat, ekArrayPat, ekPairPat, ekRestPat, ekAssignPat:
			p = n[p].parent
			continue
		case ekDeclarator:
			return x.declaratorScope(p), true
		case ekParam, ekFormalParams:
			return x.fnScope(p), true
		case ekArrow, ekCatch:
			return p, true
		case ekFor:
			if x.child(p, efNone, ekKwDecl) >= 0 {
				return p, true
			}
		}
		return 0, false // an assignment pattern: references
	}
	return 0, false
}

func (x *esFile) declaratorScope(d int32) int32 {
	decl := x.n[d].parent
	if decl >= 0 && x.n[decl].kind == ekVarDecl {
		return x.fnScope(decl)
	}
	if decl >= 0 && x.n[decl].kind == ekFor {
		return decl
	}
	return x.blockScope(decl)
}

// fnScope returns the function enclosing node p (its whole node: the
// parameters and the body), or 0.
func (x *esFile) fnScope(p int32) int32 {
	for ; p > 0; p = x.n[p].parent {
		switch x.n[p].kind {
		case ekFuncDecl, ekFuncExpr, ekArrow, ekMethod:
			return p
		}
	}
	return 0
}

// blockScope returns the block, loop or function enclosing node p, or 0.
func (x *esFile) blockScope(p int32) int32 {
	for ; p > 0; p = x.n[p].parent {
		switch x.n[p].kind {
		case ekBlock, ekFor, ekCatch, ekFuncDecl, ekFuncExpr, ekArrow, ekMethod:
			return p
		}
	}
	return 0
}

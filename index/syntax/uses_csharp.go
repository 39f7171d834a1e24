package syntax

import (
	"bytes"
	"regexp"
	"slices"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/csharp"
)

// The C# and Java uses extractors read the whole tree, flattened (see
// flatten.go) with their own node and field codes.

// cjNode is one node of a flattened tree, with the C# or Java codes.
type cjNode = flatNode[uint8, uint8]

// The C# uses extractor. What it records (see docs/relations.md, section
// "Resolution: C#", for how index/relate reads it):
//
//   - every simple name that is not a local, parameter or type parameter of
//     its scope: Use{Name, Recv: E}, E the qualified name of the enclosing
//     type ("" outside types), whose members (and those of its bases and
//     partial parts) are looked up before the types of the namespaces;
//   - a qualified name A.B.C in a type position: Use{Name: "C", From: "A.B"};
//     an expression a.b.c whose head is no local is recorded both ways (a
//     namespace-qualified type and a member chain), since only resolution
//     can tell;
//   - a member access x.M: Use{Name: "M", Member: true, Recv: R}, R the
//     receiver expression below, empty when the syntax does not say;
//   - an attribute [Foo]: Foo and FooAttribute;
//   - using directives as Bindings: `using A.B;` {Name: "*", From: "A.B",
//     Orig: "*"}, `using static A.B.C;` {"*", "A.B.C", "static"}, `using X =
//     A.B.C;` {"X", "A.B.C", ""}; Export marks `global using`;
//   - Symbol.Type: the declared type of fields, properties, events, indexers
//     and the return type of methods, as written without blanks.
//
// A receiver R is a type expression "T" (a type as written, generic
// arguments kept, resolved from the use's scopes), or "E!n" (the simple name
// n looked up from enclosing type E: the type of member n of E, else the
// type named n), followed by steps "#m" (the type of member m) and "#[]"
// (the element type of an array or single-argument generic).

// C# node codes.
const (
	csNone uint8 = iota
	csIdent
	csQualified
	csGeneric
	csAliasQualified
	csMemberAccess
	csMemberBinding
	csConditionalAccess
	csInvocation
	csObjectCreation
	csCast
	csAs
	csAwait
	csParen
	csElementAccess
	csPostfix
	csThis
	csBase
	csPredefined
	csImplicitType
	csUsing
	csNamespace
	csFileNamespace
	csTypeDecl
	csMemberDecl
	csLocalFunc
	csVarDecl
	csVarDeclarator
	csParameter
	csTypeParam
	csDeclExpr
	csDeclPattern
	csRecursivePattern
	csCatchDecl
	csForeach
	csFromClause
	csLetClause
	csJoinClause
	csImplicitParam
	csLambda
	csGlobalStatement
	csArgument
	csAttribute
	csAttributeArgument
	csInitializer
	csAssignment
	csSubpattern
	csAnonObject
	csNameColon
	csNameEquals
	csTypeofExpr
	csNullableType
	csArrayType
	csDeclarationList
	csCompilationUnit
	csLabeled
	csGoto
	csExternAlias
	csQueryContinuation
	csTupleElement
	csPointerType
	csRefType
	csComment
	csString
)

// C# field codes.
const (
	csfNone uint8 = iota
	csfName
	csfType
	csfReturns
	csfExpression
	csfQualifier
	csfLeft
	csfRight
	csfCondition
	csfFunction
	csfValue
	csfAlias
)

var csSyms = map[string]uint8{
	"identifier": csIdent, "qualified_name": csQualified, "generic_name": csGeneric,
	"alias_qualified_name": csAliasQualified, "member_access_expression": csMemberAccess,
	"member_binding_expression": csMemberBinding, "conditional_access_expression": csConditionalAccess,
	"invocation_expression": csInvocation, "object_creation_expression": csObjectCreation,
	"cast_expression": csCast, "as_expression": csAs, "await_expression": csAwait,
	"parenthesized_expression": csParen, "element_access_expression": csElementAccess,
	"postfix_unary_expression": csPostfix, "this": csThis, "this_expression": csThis, "base": csBase, "base_expression": csBase,
	"predefined_type": csPredefined, "implicit_type": csImplicitType,
	"using_directive": csUsing, "namespace_declaration": csNamespace,
	"file_scoped_namespace_declaration": csFileNamespace,
	"class_declaration":                 csTypeDecl, "struct_declaration": csTypeDecl, "interface_declaration": csTypeDecl,
	"enum_declaration": csTypeDecl, "record_declaration": csTypeDecl, "record_struct_declaration": csTypeDecl,
	"delegate_declaration": csTypeDecl,
	"method_declaration":   csMemberDecl, "constructor_declaration": csMemberDecl, "destructor_declaration": csMemberDecl,
	"property_declaration": csMemberDecl, "indexer_declaration": csMemberDecl, "event_declaration": csMemberDecl,
	"operator_declaration": csMemberDecl, "conversion_operator_declaration": csMemberDecl,
	"field_declaration": csMemberDecl, "event_field_declaration": csMemberDecl, "enum_member_declaration": csMemberDecl,
	"local_function_statement": csLocalFunc, "variable_declaration": csVarDecl,
	"variable_declarator": csVarDeclarator, "parameter": csParameter, "type_parameter": csTypeParam,
	"declaration_expression": csDeclExpr, "declaration_pattern": csDeclPattern,
	"recursive_pattern": csRecursivePattern, "catch_declaration": csCatchDecl,
	"foreach_statement": csForeach, "from_clause": csFromClause, "let_clause": csLetClause,
	"join_clause": csJoinClause, "join_into_clause": csJoinClause, "query_continuation": csQueryContinuation,
	"implicit_parameter": csImplicitParam,
	"lambda_expression":  csLambda, "anonymous_method_expression": csLambda, "global_statement": csGlobalStatement,
	"argument": csArgument, "attribute": csAttribute, "attribute_argument": csAttributeArgument,
	"initializer_expression": csInitializer, "assignment_expression": csAssignment,
	"subpattern": csSubpattern, "anonymous_object_creation_expression": csAnonObject,
	"name_colon": csNameColon, "name_equals": csNameEquals, "typeof_expression": csTypeofExpr,
	"nullable_type": csNullableType, "array_type": csArrayType, "pointer_type": csPointerType,
	"ref_type": csRefType, "scoped_type": csRefType,
	"declaration_list": csDeclarationList, "compilation_unit": csCompilationUnit,
	"labeled_statement": csLabeled, "goto_statement": csGoto, "extern_alias_directive": csExternAlias,
	"tuple_element": csTupleElement, "comment": csComment,
	"string_literal": csString, "verbatim_string_literal": csString, "raw_string_literal": csString,
	"character_literal": csString,
}

var csFields = map[string]uint8{
	"name": csfName, "type": csfType, "returns": csfReturns, "expression": csfExpression,
	"qualifier": csfQualifier, "left": csfLeft, "right": csfRight, "condition": csfCondition,
	"function": csfFunction, "value": csfValue, "alias": csfAlias,
}

var csTable = sync.OnceValue(func() *flatTable { return newFlatTable(csharp.GetLanguage(), csSyms, csSyms, csFields) })

// csContextual are identifiers the grammar may read as names that are no
// references: contextual keywords and the implicit parameter of setters.
var csContextual = map[string]bool{
	"var": true, "dynamic": true, "nameof": true, "value": true, "_": true, "global": true,
	"async": true, "await": true, "get": true, "set": true, "init": true, "add": true,
	"remove": true, "where": true, "unmanaged": true, "notnull": true, "record": true,
	"managed": true, "args": true, "field": true,
}

func init() { registerUses(csharpUses, CSharp) }

// csLocal is a name declared in a member body with its type (as a receiver
// expression; "" when unknown).
type csLocal struct{ name, typ string }

type csWalker struct {
	n      []cjNode
	src    []byte
	f      *File
	ns     string // the enclosing namespace
	encl   string // the qualified name of the enclosing type
	locals []csLocal
	types  []csTyped
}

// csTyped is the declared type of a member, for Symbol.Type.
type csTyped struct {
	name  string
	at    uint32
	typ   string
	field bool
}

func csharpUses(root *sitter.Node, src []byte, f *File) {
	nodes := flatten[uint8, uint8](root, csTable(), false, len(src))
	if len(nodes) == 0 {
		return
	}
	w := &csWalker{n: nodes, src: src, f: f}
	// Top-level statements share one scope: declare their locals first.
	for c := int32(1); c < int32(len(nodes)); c = nodes[c].next {
		if w.kind(c) == csGlobalStatement {
			w.declare(c)
		}
	}
	w.visitChildren(0)
	w.setTypes()
	markExtensionMethods(src, f)
}

// extensionRE matches the parameter list opening of a C# extension method:
// its first parameter carries the `this` modifier.
var extensionRE = regexp.MustCompile(`\(\s*(?:\[[^\]]*\]\s*)*this\s`)

// markExtensionMethods records each static method whose first parameter is
// `this T` as a Binding {Name: method, Orig: "this"}: a call `x.Name()` on a
// value of any type may be that method when its namespace is in scope, and
// the resolver looks such bindings up when the receiver's type has no
// member of the name.
func markExtensionMethods(src []byte, f *File) {
	for _, s := range f.Symbols {
		if s.Kind != Method || s.Container == "" {
			continue
		}
		sig := src[s.Signature.StartByte:min(int(s.Signature.EndByte), len(src))]
		open := bytes.IndexByte(sig, '(')
		if open < 0 || !bytes.Contains(sig[:open], []byte("static")) || !extensionRE.Match(sig[open:]) {
			continue
		}
		f.Bindings = append(f.Bindings, Binding{Name: s.Name, Orig: "this", From: s.Container})
	}
}

func (w *csWalker) kind(i int32) uint8  { return w.n[i].kind }
func (w *csWalker) fld(i int32) uint8   { return w.n[i].field }
func (w *csWalker) text(i int32) string { return string(w.src[w.n[i].start:w.n[i].end]) }

// child returns the first child of i with field code fc (any named child
// when fc is csfNone and named is set), or -1.
func (w *csWalker) child(i int32, fc uint8) int32 {
	for c := i + 1; c < w.n[i].next; c = w.n[c].next {
		if w.fld(c) == fc {
			return c
		}
	}
	return -1
}

// firstOf returns the first child of i with one of the node codes, or -1.
func (w *csWalker) firstOf(i int32, codes ...uint8) int32 {
	for c := i + 1; c < w.n[i].next; c = w.n[c].next {
		k := w.kind(c)
		for _, code := range codes {
			if k == code {
				return c
			}
		}
	}
	return -1
}

// typeText returns a type as written without blanks, comments or a
// trailing nullable mark, and without a leading global::.
func (w *csWalker) typeText(i int32) string {
	if i < 0 {
		return ""
	}
	switch w.kind(i) {
	case csPredefined, csImplicitType:
		return ""
	case csNullableType, csRefType:
		if c := w.child(i, csfType); c >= 0 {
			return w.typeText(c)
		}
	}
	b := make([]byte, 0, w.n[i].end-w.n[i].start)
	// Copy the leaves, skipping comments.
	for c := i; c < w.n[i].next; c++ {
		if w.kind(c) == csComment {
			c = w.n[c].next - 1
			continue
		}
		if w.n[c].next == c+1 {
			b = append(b, w.src[w.n[c].start:w.n[c].end]...)
		}
	}
	s := string(b)
	if len(s) > 8 && s[:8] == "global::" {
		s = s[8:]
	}
	for len(s) > 0 && s[len(s)-1] == '?' {
		s = s[:len(s)-1]
	}
	return s
}

func (w *csWalker) lookup(name string) (string, bool) {
	for k := len(w.locals) - 1; k >= 0; k-- {
		if w.locals[k].name == name {
			return w.locals[k].typ, true
		}
	}
	return "", false
}

func (w *csWalker) addLocal(i int32, typ string) {
	if i >= 0 && w.kind(i) == csIdent {
		w.locals = append(w.locals, csLocal{w.text(i), typ})
	}
}

// declare adds the names declared anywhere inside i (a member, a global
// statement) to the locals, with their types where the syntax states them.
// Nested type declarations are not entered.
func (w *csWalker) declare(i int32) {
	for c := i; c < w.n[i].next; c++ {
		switch w.kind(c) {
		case csTypeDecl:
			if c != i {
				c = w.n[c].next - 1
			}
		case csParameter:
			w.addLocal(w.child(c, csfName), w.typeText(w.child(c, csfType)))
		case csTypeParam, csImplicitParam:
			if w.kind(c) == csImplicitParam {
				w.locals = append(w.locals, csLocal{w.text(c), ""})
			} else {
				w.addLocal(w.child(c, csfName), "")
			}
		case csVarDeclarator:
			if p := w.n[c].parent; p >= 0 && w.kind(p) == csVarDecl && (p == i || w.kind(i) != csMemberDecl || w.n[i].start != w.n[p].start && !w.fieldDecl(p)) {
				w.addLocal(w.child(c, csfName), w.declaredType(p, c))
			}
		case csDeclExpr, csDeclPattern, csCatchDecl, csRecursivePattern:
			t := w.typeText(w.child(c, csfType))
			w.addLocal(w.child(c, csfName), t)
		case csForeach:
			t := w.typeText(w.child(c, csfType))
			if t == "" {
				if r := w.recv(w.child(c, csfRight)); r != "" {
					t = r + "#[]"
				}
			}
			w.addLocal(w.child(c, csfLeft), t)
		case csFromClause, csLetClause, csJoinClause, csQueryContinuation, csLocalFunc, csLabeled:
			w.addLocal(w.child(c, csfName), w.typeText(w.child(c, csfType)))
		case csTupleElement:
			w.addLocal(w.child(c, csfName), w.typeText(w.child(c, csfType)))
		}
	}
}

// fieldDecl reports whether variable declaration p belongs to a field or
// event field declaration.
func (w *csWalker) fieldDecl(p int32) bool {
	gp := w.n[p].parent
	return gp >= 0 && w.kind(gp) == csMemberDecl
}

// declaredType is the type of declarator d of variable declaration p: the
// declared type, or for var the receiver of the initializer.
func (w *csWalker) declaredType(p, d int32) string {
	if t := w.child(p, csfType); t >= 0 && w.kind(t) != csImplicitType {
		return w.typeText(t)
	}
	for c := d + 1; c < w.n[d].next; c = w.n[c].next {
		if w.fld(c) != csfName && w.kind(c) != csNone {
			return w.recv(c)
		}
	}
	return ""
}

// recv returns the receiver expression of the value of node i, "" when
// the syntax does not tell.
func (w *csWalker) recv(i int32) string {
	if i < 0 {
		return ""
	}
	switch w.kind(i) {
	case csIdent:
		name := w.text(i)
		if t, ok := w.lookup(name); ok {
			return t
		}
		if csContextual[name] {
			return ""
		}
		return w.encl + "!" + name
	case csThis, csBase:
		return w.encl
	case csGeneric:
		if id := w.firstOf(i, csIdent); id >= 0 {
			if p := w.n[i].parent; p >= 0 && w.kind(p) == csInvocation {
				return w.recv(id)
			}
		}
		return w.typeText(i)
	case csQualified, csAliasQualified, csObjectCreation, csCast, csNullableType, csArrayType:
		if w.kind(i) == csObjectCreation || w.kind(i) == csCast {
			return w.typeText(w.child(i, csfType))
		}
		return w.typeText(i)
	case csAs:
		return w.typeText(w.child(i, csfRight))
	case csMemberAccess:
		r := w.recv(w.child(i, csfExpression))
		name := w.child(i, csfName)
		if r == "" || name < 0 {
			return ""
		}
		return r + "#" + w.simpleName(name)
	case csConditionalAccess:
		r := w.recv(w.child(i, csfCondition))
		b := w.firstOf(i, csMemberBinding)
		if r == "" || b < 0 {
			return ""
		}
		if name := w.child(b, csfName); name >= 0 {
			return r + "#" + w.simpleName(name)
		}
		return ""
	case csInvocation:
		return w.recv(w.child(i, csfFunction))
	case csElementAccess:
		if r := w.recv(w.child(i, csfExpression)); r != "" {
			return r + "#[]"
		}
	case csAwait, csParen, csPostfix:
		for c := i + 1; c < w.n[i].next; c = w.n[c].next {
			if k := w.kind(c); k != csNone && k != csComment {
				return w.recv(c)
			}
		}
	}
	return ""
}

// simpleName is the identifier of an identifier or generic name.
func (w *csWalker) simpleName(i int32) string {
	if w.kind(i) == csGeneric {
		if id := w.firstOf(i, csIdent); id >= 0 {
			return w.text(id)
		}
	}
	return w.text(i)
}

func (w *csWalker) use(i int32, u Use) {
	u.Start, u.End = w.n[i].start, w.n[i].end
	w.f.Uses = append(w.f.Uses, u)
}

func (w *csWalker) visitChildren(i int32) {
	for c := i + 1; c < w.n[i].next; c = w.n[c].next {
		w.visit(c)
	}
}

func (w *csWalker) visit(i int32) {
	switch w.kind(i) {
	case csComment, csString, csExternAlias, csGoto:
		return
	case csUsing:
		w.using(i)
		return
	case csNamespace, csFileNamespace:
		name := w.child(i, csfName)
		old := w.ns
		if name >= 0 {
			w.ns = joinDot(w.ns, w.typeText(name))
		}
		for c := i + 1; c < w.n[i].next; c = w.n[c].next {
			if c != name {
				w.visit(c)
			}
		}
		if w.kind(i) == csNamespace {
			w.ns = old
		}
		return
	case csTypeDecl:
		name := w.child(i, csfName)
		old, oldLocals := w.encl, len(w.locals)
		if name >= 0 && w.partial(i, name) {
			w.partialUse(name)
		}
		if name >= 0 {
			if w.encl != "" {
				w.encl += "." + w.text(name)
			} else {
				w.encl = joinDot(w.ns, w.text(name))
			}
		}
		// Type parameters and record parameters are in scope in the whole
		// declaration.
		for c := i + 1; c < w.n[i].next; c = w.n[c].next {
			if k := w.kind(c); k != csDeclarationList {
				w.declareShallow(c)
			}
		}
		if k := w.child(i, csfReturns); k >= 0 && name >= 0 { // delegates
			w.types = append(w.types, csTyped{w.text(name), w.n[name].start, w.typeText(k), false})
		}
		for c := i + 1; c < w.n[i].next; c = w.n[c].next {
			if c != name {
				w.visit(c)
			}
		}
		w.encl, w.locals = old, w.locals[:oldLocals]
		return
	case csMemberDecl:
		oldLocals := len(w.locals)
		w.declare(i)
		w.memberType(i)
		w.visitChildren(i)
		w.locals = w.locals[:oldLocals]
		return
	case csIdent:
		w.ident(i)
		return
	case csGeneric:
		if id := w.firstOf(i, csIdent); id >= 0 {
			w.name(i, w.text(id))
		}
		for c := i + 1; c < w.n[i].next; c = w.n[c].next {
			if w.kind(c) != csIdent {
				w.visit(c)
			}
		}
		return
	case csQualified:
		w.qualified(i)
		return
	case csMemberAccess:
		if w.memberChain(i) {
			return
		}
	case csAttribute:
		if name := w.child(i, csfName); name >= 0 {
			w.attribute(name)
			for c := i + 1; c < w.n[i].next; c = w.n[c].next {
				if c != name {
					w.visit(c)
				}
			}
			return
		}
	}
	w.visitChildren(i)
}

// partial reports whether type declaration i, named by node name, has the
// partial modifier: a word of its header after its attribute lists.
func (w *csWalker) partial(i, name int32) bool {
	head := w.src[w.n[i].start:w.n[name].start]
	if k := bytes.LastIndexByte(head, ']'); k >= 0 {
		head = head[k+1:]
	}
	return slices.ContainsFunc(bytes.Fields(head), func(b []byte) bool { return string(b) == "partial" })
}

// partialUse records a part of a partial type as a use of the type itself,
// qualified by its namespace or enclosing type: it resolves to every part,
// so that a file declaring one part has the files of the others as
// dependencies and the model sees the whole type.
func (w *csWalker) partialUse(name int32) {
	from := w.ns
	if w.encl != "" {
		from = w.encl
	}
	// A type of the global namespace has no qualifier: the simple-name
	// lookup from the global scope finds it.
	w.use(name, Use{Name: w.text(name), From: from})
}

// declareShallow declares the type and record parameters of a type
// declaration (its parameter and type parameter lists).
func (w *csWalker) declareShallow(c int32) {
	for d := c; d < w.n[c].next; d++ {
		switch w.kind(d) {
		case csTypeParam:
			w.addLocal(w.child(d, csfName), "")
		case csParameter:
			w.addLocal(w.child(d, csfName), w.typeText(w.child(d, csfType)))
		case csDeclarationList, csLambda:
			d = w.n[d].next - 1
		}
	}
}

// memberType records the declared type of a member for Symbol.Type.
func (w *csWalker) memberType(i int32) {
	t := w.child(i, csfType)
	if t < 0 {
		t = w.child(i, csfReturns)
	}
	if name := w.child(i, csfName); name >= 0 && t >= 0 {
		w.types = append(w.types, csTyped{w.text(name), w.n[name].start, w.typeText(t), false})
		return
	}
	if vd := w.firstOf(i, csVarDecl); vd >= 0 {
		typ := w.typeText(w.child(vd, csfType))
		for c := vd + 1; c < w.n[vd].next; c = w.n[c].next {
			if w.kind(c) == csVarDeclarator {
				if name := w.child(c, csfName); name >= 0 {
					w.types = append(w.types, csTyped{w.text(name), w.n[name].start, typ, true})
				}
			}
		}
	}
}

// name records a simple name (an identifier or the identifier of a
// generic name i) in the context its parent gives it.
func (w *csWalker) name(i int32, name string) {
	p := w.n[i].parent
	pk, fd := w.kind(p), w.fld(i)
	switch pk {
	case csMemberAccess:
		if fd == csfName {
			w.use(i, Use{Name: name, Member: true, Recv: w.recv(w.child(p, csfExpression))})
			return
		}
	case csMemberBinding:
		if fd == csfName {
			recv := ""
			if ca := w.n[p].parent; ca >= 0 && w.kind(ca) == csConditionalAccess {
				recv = w.recv(w.child(ca, csfCondition))
			}
			w.use(i, Use{Name: name, Member: true, Recv: recv})
			return
		}
	case csQualified:
		if fd == csfName {
			if q := w.child(p, csfQualifier); q >= 0 {
				w.use(i, Use{Name: name, From: w.typeText(q)})
			}
		}
		return
	case csAliasQualified:
		if fd == csfName {
			w.use(i, Use{Name: name})
		}
		return
	case csTypeDecl, csMemberDecl, csLocalFunc, csVarDeclarator, csParameter, csTypeParam,
		csDeclExpr, csDeclPattern, csRecursivePattern, csCatchDecl, csFromClause, csLetClause,
		csJoinClause, csQueryContinuation, csLabeled, csTupleElement, csNamespace, csFileNamespace:
		if fd == csfName {
			return
		}
	case csForeach:
		if fd == csfLeft {
			return
		}
	case csArgument, csAttributeArgument:
		if fd == csfName {
			return
		}
	case csNameColon, csNameEquals, csSubpattern:
		return
	case csAssignment:
		if fd == csfLeft {
			if in := w.n[p].parent; in >= 0 && w.kind(in) == csInitializer {
				if oc := w.n[in].parent; oc >= 0 && w.kind(oc) == csObjectCreation {
					w.use(i, Use{Name: name, Member: true, Recv: w.typeText(w.child(oc, csfType))})
					return
				}
				if oc := w.n[in].parent; oc >= 0 && w.kind(oc) != csAnonObject {
					return
				}
			}
		}
	case csAnonObject:
		return
	case csInvocation:
		if name == "nameof" {
			return
		}
	}
	if _, ok := w.lookup(name); ok || csContextual[name] {
		return
	}
	w.use(i, Use{Name: name, Recv: w.encl})
}

func (w *csWalker) ident(i int32) { w.name(i, w.text(i)) }

// qualified records A.B.C as C from A.B and visits the type arguments of
// its segments.
func (w *csWalker) qualified(i int32) {
	if name := w.child(i, csfName); name >= 0 {
		w.name(name, w.simpleName(name))
		w.visitArgs(name)
	}
	if q := w.child(i, csfQualifier); q >= 0 {
		w.visitArgs(q)
		if w.kind(q) == csQualified {
			w.visitQualifierArgs(q)
		}
	}
}

func (w *csWalker) visitQualifierArgs(q int32) {
	for c := q + 1; c < w.n[q].next; c = w.n[c].next {
		w.visitArgs(c)
		if w.kind(c) == csQualified {
			w.visitQualifierArgs(c)
		}
	}
}

// visitArgs visits the type arguments of a generic name.
func (w *csWalker) visitArgs(g int32) {
	if w.kind(g) != csGeneric {
		return
	}
	for c := g + 1; c < w.n[g].next; c = w.n[c].next {
		if w.kind(c) != csIdent {
			w.visit(c)
		}
	}
}

// memberChain handles a.b.c whose head is an identifier that is no local:
// it may be a namespace-qualified type, so it is recorded as qualified
// names too. It reports whether it visited i.
func (w *csWalker) memberChain(i int32) bool {
	if p := w.n[i].parent; p >= 0 && w.kind(p) == csMemberAccess && w.fld(i) == csfExpression {
		return false // an inner link of a chain already recorded
	}
	var segs []int32
	h := i
	for w.kind(h) == csMemberAccess {
		name := w.child(h, csfName)
		if name < 0 {
			return false
		}
		segs = append(segs, name)
		h = w.child(h, csfExpression)
		if h < 0 {
			return false
		}
	}
	if w.kind(h) != csIdent {
		return false
	}
	head := w.text(h)
	if _, ok := w.lookup(head); ok || csContextual[head] {
		return false
	}
	from := head
	for k := len(segs) - 1; k >= 1; k-- {
		s := segs[k]
		if w.kind(s) == csGeneric {
			break
		}
		w.use(s, Use{Name: w.text(s), From: from})
		from += "." + w.text(s)
	}
	w.visitChildren(i)
	return true
}

// attribute records the name of an attribute as itself and with the
// Attribute suffix.
func (w *csWalker) attribute(name int32) {
	n, from := name, ""
	switch w.kind(name) {
	case csQualified:
		if q := w.child(name, csfQualifier); q >= 0 {
			from = w.typeText(q)
		}
		n = w.child(name, csfName)
	case csAliasQualified:
		n = w.child(name, csfName)
	}
	if n < 0 {
		return
	}
	s := w.simpleName(n)
	recv := w.encl
	if from != "" {
		recv = ""
	}
	w.use(n, Use{Name: s, From: from, Recv: recv})
	if len(s) <= 9 || s[len(s)-9:] != "Attribute" {
		w.use(n, Use{Name: s + "Attribute", From: from, Recv: recv})
	}
	w.visitArgs(n)
}

// using records a using directive as a Binding, and the type an alias or
// a static using names as a use.
func (w *csWalker) using(i int32) {
	var b Binding
	target := int32(-1)
	static := false
	for c := i + 1; c < w.n[i].next; c = w.n[c].next {
		if w.kind(c) == csNone {
			switch w.text(c) {
			case "global":
				b.Export = true
			case "static":
				static = true
			}
			continue
		}
		switch {
		case w.fld(c) == csfName:
			b.Name = w.text(c)
		case w.kind(c) != csComment:
			target = c
		}
	}
	if target < 0 {
		return
	}
	b.From = w.typeText(target)
	if i := indexByte(b.From, '<'); i >= 0 {
		b.From = b.From[:i]
	}
	switch {
	case b.Name != "":
	case static:
		b.Name, b.Orig = "*", "static"
	default:
		b.Name, b.Orig = "*", "*"
	}
	w.f.Bindings = append(w.f.Bindings, b)
	if b.Orig != "*" && w.kind(target) == csQualified {
		if name := w.child(target, csfName); name >= 0 {
			if q := w.child(target, csfQualifier); q >= 0 {
				w.use(name, Use{Name: w.simpleName(name), From: w.typeText(q)})
			}
			w.visitArgs(name)
		}
	}
}

// setTypes sets Symbol.Type of the members whose types were recorded.
func (w *csWalker) setTypes() {
	syms := w.f.Symbols
	if len(w.types) == 0 {
		return
	}
	byName := make(map[string][]int, len(syms))
	for k := range syms {
		byName[syms[k].Name] = append(byName[syms[k].Name], k)
	}
	for _, t := range w.types {
		if t.typ == "" {
			continue
		}
		best := -1
		for _, k := range byName[t.name] {
			s := &syms[k]
			if s.Range.StartByte > t.at || s.Range.EndByte <= t.at {
				continue
			}
			if best < 0 || s.Range.StartByte >= syms[best].Range.StartByte {
				best = k
			}
		}
		if best >= 0 && syms[best].Type == "" {
			syms[best].Type = t.typ
		}
	}
}

func joinDot(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

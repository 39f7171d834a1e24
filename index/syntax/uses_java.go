package syntax

import (
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/java"
)

// The Java uses extractor, on the flattened tree (flatten.go) and walker of
// uses_csharp.go and with the C# conventions (see there and
// docs/relations.md, "Resolution: Java"):
// a simple name that is no local is Use{Name, Recv: E}, E the qualified
// name of the enclosing type within its file ("Outer.Inner", no package);
// a qualified type a.b.C is Use{Name: "C", From: "a.b"}; a member access
// x.m or x.m() is Use{Name: "m", Member: true, Recv: R} with the receiver
// expressions of C# ("T", "E!n", "#m", "#[]"). Imports are Bindings:
// `import a.b.C;` {Name: "C", From: "a.b.C"}, `import a.b.*;` {"*", "a.b",
// "*"}, `import static a.b.C.m;` {"m", "a.b.C", "static"}, `import static
// a.b.C.*;` {"*", "a.b.C", "static"}. Symbol.Type is set for fields and
// methods.

const (
	jvNone uint8 = iota
	jvIdent
	jvTypeIdent
	jvScopedType
	jvScopedIdent
	jvGenericType
	jvFieldAccess
	jvInvocation
	jvObjectCreation
	jvCast
	jvParen
	jvArrayAccess
	jvThis
	jvSuper
	jvImport
	jvPackage
	jvTypeDecl
	jvMemberDecl
	jvFieldDecl
	jvLocalVar
	jvVarDeclarator
	jvParam
	jvTypeParam
	jvEnhancedFor
	jvCatchParam
	jvInstanceof
	jvLambda
	jvInferredParams
	jvArrayType
	jvComment
	jvString
	jvLabeled
	jvBreak
	jvAnnotation
	jvEnumConstant
	jvMethodRef
	jvResource
	jvRecordPattern
	jvElementValuePair
)

const (
	jvfNone uint8 = iota
	jvfName
	jvfType
	jvfObject
	jvfField
	jvfValue
	jvfDeclarator
)

var jvSyms = map[string]uint8{
	"identifier": jvIdent, "type_identifier": jvTypeIdent, "scoped_type_identifier": jvScopedType,
	"scoped_identifier": jvScopedIdent, "generic_type": jvGenericType, "field_access": jvFieldAccess,
	"method_invocation": jvInvocation, "object_creation_expression": jvObjectCreation,
	"cast_expression": jvCast, "parenthesized_expression": jvParen, "array_access": jvArrayAccess,
	"this": jvThis, "super": jvSuper, "import_declaration": jvImport, "package_declaration": jvPackage,
	"class_declaration": jvTypeDecl, "interface_declaration": jvTypeDecl, "enum_declaration": jvTypeDecl,
	"record_declaration": jvTypeDecl, "annotation_type_declaration": jvTypeDecl,
	"method_declaration": jvMemberDecl, "constructor_declaration": jvMemberDecl,
	"compact_constructor_declaration": jvMemberDecl, "annotation_type_element_declaration": jvMemberDecl,
	"static_initializer": jvMemberDecl, "field_declaration": jvFieldDecl, "constant_declaration": jvFieldDecl,
	"local_variable_declaration": jvLocalVar, "variable_declarator": jvVarDeclarator,
	"formal_parameter": jvParam, "spread_parameter": jvParam, "receiver_parameter": jvParam,
	"type_parameter": jvTypeParam, "enhanced_for_statement": jvEnhancedFor,
	"catch_formal_parameter": jvCatchParam, "instanceof_expression": jvInstanceof,
	"lambda_expression": jvLambda, "inferred_parameters": jvInferredParams, "array_type": jvArrayType,
	"line_comment": jvComment, "block_comment": jvComment, "string_literal": jvString,
	"character_literal": jvString, "labeled_statement": jvLabeled, "break_statement": jvBreak,
	"continue_statement": jvBreak, "marker_annotation": jvAnnotation, "annotation": jvAnnotation,
	"enum_constant": jvEnumConstant, "method_reference": jvMethodRef, "resource": jvResource,
	"record_pattern_component": jvRecordPattern, "type_pattern": jvRecordPattern,
	"element_value_pair": jvElementValuePair,
}

var jvFields = map[string]uint8{
	"name": jvfName, "type": jvfType, "object": jvfObject, "field": jvfField, "value": jvfValue,
	"declarator": jvfDeclarator,
}

var jvTable = sync.OnceValue(func() *flatTable { return newFlatTable(java.GetLanguage(), jvSyms, jvSyms, jvFields) })

func init() { registerUses(javaUses, Java) }

type jvWalker struct {
	csWalker // the shared tree, locals and type helpers
}

func javaUses(root *sitter.Node, src []byte, f *File) {
	nodes := flatten[uint8, uint8](root, jvTable(), false, len(src))
	if len(nodes) == 0 {
		return
	}
	w := &jvWalker{csWalker{n: nodes, src: src, f: f}}
	w.visitChildren(0)
	w.setTypes()
}

func (w *jvWalker) visitChildren(i int32) {
	for c := i + 1; c < w.n[i].next; c = w.n[c].next {
		w.visit(c)
	}
}

// typeText is a type as written without blanks and comments, annotations
// included.
func (w *jvWalker) typeText(i int32) string {
	if i < 0 {
		return ""
	}
	if w.kind(i) == jvTypeIdent && w.text(i) == "var" {
		return ""
	}
	var b []byte
	for c := i; c < w.n[i].next; c++ {
		switch w.kind(c) {
		case jvComment, jvAnnotation:
			c = w.n[c].next - 1
			continue
		}
		if w.n[c].next == c+1 {
			b = append(b, w.src[w.n[c].start:w.n[c].end]...)
		}
	}
	return string(b)
}

func (w *jvWalker) addLocal(i int32, typ string) {
	if i >= 0 && w.kind(i) == jvIdent {
		w.locals = append(w.locals, csLocal{w.text(i), typ})
	}
}

// declare adds the names declared inside i (a member) to the locals.
func (w *jvWalker) declare(i int32) {
	for c := i; c < w.n[i].next; c++ {
		switch w.kind(c) {
		case jvTypeDecl:
			if c != i {
				c = w.n[c].next - 1
			}
		case jvObjectCreation:
			// An anonymous class body declares members, not locals; its
			// own members are declared when visited.
		case jvParam, jvCatchParam, jvResource, jvRecordPattern:
			t := w.child(c, jvfType)
			if t < 0 {
				t = w.firstOf(c, jvTypeIdent, jvGenericType, jvScopedType, jvArrayType)
			}
			name := w.child(c, jvfName)
			if name < 0 {
				name = w.lastOf(c, jvIdent)
			}
			w.addLocal(name, w.typeText(t))
		case jvTypeParam:
			if id := w.firstOf(c, jvTypeIdent, jvIdent); id >= 0 {
				w.locals = append(w.locals, csLocal{w.text(id), ""})
			}
		case jvInferredParams:
			for d := c + 1; d < w.n[c].next; d = w.n[d].next {
				w.addLocal(d, "")
			}
		case jvLambda:
			if p := w.firstOf(c, jvIdent); p >= 0 && p == c+1 {
				w.addLocal(p, "")
			}
		case jvLocalVar:
			typ := w.typeText(w.child(c, jvfType))
			for d := c + 1; d < w.n[c].next; d = w.n[d].next {
				if w.kind(d) == jvVarDeclarator {
					t := typ
					if t == "" {
						t = w.recv(w.child(d, jvfValue))
					}
					w.addLocal(w.child(d, jvfName), t)
				}
			}
		case jvEnhancedFor:
			t := w.typeText(w.child(c, jvfType))
			if t == "" {
				if r := w.recv(w.child(c, jvfValue)); r != "" {
					t = r + "#[]"
				}
			}
			w.addLocal(w.child(c, jvfName), t)
		case jvInstanceof:
			w.addLocal(w.child(c, jvfName), w.typeText(w.lastOf(c, jvTypeIdent, jvGenericType, jvScopedType)))
		}
	}
}

func (w *jvWalker) lastOf(i int32, codes ...uint8) int32 {
	last := int32(-1)
	for c := i + 1; c < w.n[i].next; c = w.n[c].next {
		for _, code := range codes {
			if w.kind(c) == code {
				last = c
			}
		}
	}
	return last
}

// recv returns the receiver expression of the value of node i.
func (w *jvWalker) recv(i int32) string {
	if i < 0 {
		return ""
	}
	switch w.kind(i) {
	case jvIdent:
		name := w.text(i)
		if t, ok := w.lookup(name); ok {
			return t
		}
		return w.encl + "!" + name
	case jvThis, jvSuper:
		return w.encl
	case jvFieldAccess:
		r := w.recv(w.child(i, jvfObject))
		if f := w.child(i, jvfField); r != "" && f >= 0 {
			return r + "#" + w.text(f)
		}
	case jvInvocation:
		name := w.child(i, jvfName)
		if name < 0 {
			return ""
		}
		if o := w.child(i, jvfObject); o >= 0 {
			if r := w.recv(o); r != "" {
				return r + "#" + w.text(name)
			}
			return ""
		}
		return w.encl + "!" + w.text(name)
	case jvObjectCreation, jvCast:
		return w.typeText(w.child(i, jvfType))
	case jvArrayAccess:
		if a := w.firstOf(i, jvIdent, jvFieldAccess, jvInvocation, jvThis); a >= 0 {
			if r := w.recv(a); r != "" {
				return r + "#[]"
			}
		}
	case jvParen:
		for c := i + 1; c < w.n[i].next; c = w.n[c].next {
			if w.kind(c) != jvNone && w.kind(c) != jvComment {
				return w.recv(c)
			}
		}
	}
	return ""
}

func (w *jvWalker) visit(i int32) {
	switch w.kind(i) {
	case jvComment, jvString, jvPackage, jvLabeled, jvBreak:
		return
	case jvImport:
		w.importDecl(i)
		return
	case jvTypeDecl:
		name := w.child(i, jvfName)
		old, oldLocals := w.encl, len(w.locals)
		if name >= 0 {
			w.encl = joinDot(w.encl, w.text(name))
		}
		for c := i + 1; c < w.n[i].next; c = w.n[c].next {
			if k := w.kind(c); k != jvNone && w.fld(c) != jvfName && k != jvMemberDecl {
				w.declareHeader(c)
			}
		}
		for c := i + 1; c < w.n[i].next; c = w.n[c].next {
			if c != name {
				w.visit(c)
			}
		}
		w.encl, w.locals = old, w.locals[:oldLocals]
		return
	case jvMemberDecl:
		oldLocals := len(w.locals)
		w.declare(i)
		if name := w.child(i, jvfName); name >= 0 {
			if t := w.child(i, jvfType); t >= 0 {
				w.types = append(w.types, csTyped{w.text(name), w.n[name].start, w.typeText(t), false})
			}
		}
		w.visitChildren(i)
		w.locals = w.locals[:oldLocals]
		return
	case jvFieldDecl:
		oldLocals := len(w.locals)
		typ := w.typeText(w.child(i, jvfType))
		for c := i + 1; c < w.n[i].next; c = w.n[c].next {
			if w.kind(c) == jvVarDeclarator {
				if name := w.child(c, jvfName); name >= 0 {
					w.types = append(w.types, csTyped{w.text(name), w.n[name].start, typ, true})
				}
			}
		}
		w.declare(i) // lambdas in initializers
		w.visitChildren(i)
		w.locals = w.locals[:oldLocals]
		return
	case jvIdent:
		w.ident(i)
		return
	case jvTypeIdent:
		name := w.text(i)
		if p := w.n[i].parent; p >= 0 && w.kind(p) == jvScopedType {
			return // the scoped type records it
		}
		if _, ok := w.lookup(name); ok || name == "var" {
			return
		}
		w.use(i, Use{Name: name, Recv: w.encl})
		return
	case jvScopedType:
		w.scopedType(i)
		return
	case jvScopedIdent:
		w.scopedIdent(i)
		return
	case jvFieldAccess:
		if w.chain(i) {
			return
		}
	case jvAnnotation:
		if name := w.child(i, jvfName); name >= 0 {
			if w.kind(name) == jvIdent {
				w.use(name, Use{Name: w.text(name), Recv: w.encl})
			} else {
				w.visit(name)
			}
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

// declareHeader declares the type parameters and record components of a
// type declaration.
func (w *jvWalker) declareHeader(c int32) {
	for d := c; d < w.n[c].next; d++ {
		switch w.kind(d) {
		case jvTypeParam:
			if id := w.firstOf(d, jvTypeIdent, jvIdent); id >= 0 {
				w.locals = append(w.locals, csLocal{w.text(id), ""})
			}
		case jvParam:
			w.addLocal(w.child(d, jvfName), w.typeText(w.child(d, jvfType)))
		}
	}
}

// scopedType records a.b.C (or Outer.Inner) as C from a.b.
func (w *jvWalker) scopedType(i int32) {
	last, prev := int32(-1), int32(-1)
	for c := i + 1; c < w.n[i].next; c = w.n[c].next {
		switch w.kind(c) {
		case jvTypeIdent:
			prev, last = last, c
		case jvScopedType, jvGenericType:
			prev = c
			if w.kind(c) == jvScopedType {
				w.visitGenericArgs(c)
			} else {
				w.visitChildren(c)
			}
		case jvAnnotation:
			w.visit(c)
		}
	}
	if last < 0 {
		return
	}
	if prev < 0 {
		w.use(last, Use{Name: w.text(last), Recv: w.encl})
		return
	}
	from := w.typeText(prev)
	if i := indexByte(from, '<'); i >= 0 {
		from = stripGenericArgs(from)
	}
	w.use(last, Use{Name: w.text(last), From: from})
}

func (w *jvWalker) visitGenericArgs(i int32) {
	for c := i + 1; c < w.n[i].next; c++ {
		if w.kind(c) == jvGenericType {
			for d := c + 1; d < w.n[c].next; d = w.n[d].next {
				if w.kind(d) != jvTypeIdent && w.kind(d) != jvScopedType {
					w.visit(d)
				}
			}
		}
	}
}

func stripGenericArgs(s string) string {
	b := make([]byte, 0, len(s))
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '<':
			depth++
		case '>':
			depth--
		default:
			if depth == 0 {
				b = append(b, s[i])
			}
		}
	}
	return string(b)
}

// scopedIdent records a.b.C outside imports (a qualified annotation name,
// a qualified name in an expression) as C from a.b.
func (w *jvWalker) scopedIdent(i int32) {
	name := w.child(i, jvfName)
	if name < 0 {
		return
	}
	if s := w.firstOf(i, jvScopedIdent, jvIdent); s >= 0 && s != name {
		w.use(name, Use{Name: w.text(name), From: w.typeText(s)})
	}
}

// ident records an identifier in the context its parent gives it.
func (w *jvWalker) ident(i int32) {
	name := w.text(i)
	p := w.n[i].parent
	fd := w.fld(i)
	switch w.kind(p) {
	case jvInvocation:
		if fd == jvfName {
			if o := w.child(p, jvfObject); o >= 0 {
				w.use(i, Use{Name: name, Member: true, Recv: w.recv(o)})
			} else {
				w.use(i, Use{Name: name, Recv: w.encl})
			}
			return
		}
	case jvFieldAccess:
		if fd == jvfField {
			w.use(i, Use{Name: name, Member: true, Recv: w.recv(w.child(p, jvfObject))})
			return
		}
	case jvMethodRef:
		if i != p+1 {
			if r := w.recv(p + 1); r != "" {
				w.use(i, Use{Name: name, Member: true, Recv: r})
			}
			return
		}
	case jvTypeDecl, jvMemberDecl, jvVarDeclarator, jvParam, jvCatchParam, jvEnhancedFor,
		jvInstanceof, jvEnumConstant, jvResource, jvRecordPattern:
		if fd == jvfName || w.kind(p) == jvCatchParam || w.kind(p) == jvParam || w.kind(p) == jvRecordPattern {
			return
		}
	case jvInferredParams, jvLabeled, jvBreak, jvElementValuePair:
		return
	case jvLambda:
		if i == p+1 {
			return
		}
	}
	if _, ok := w.lookup(name); ok {
		return
	}
	w.use(i, Use{Name: name, Recv: w.encl})
}

// chain handles a.b.c whose head is no local: it may name a package-
// qualified type, so its segments are recorded as qualified names too.
func (w *jvWalker) chain(i int32) bool {
	if p := w.n[i].parent; p >= 0 && w.fld(i) == jvfObject && w.kind(p) == jvFieldAccess {
		return false
	}
	var segs []int32
	h := i
	for w.kind(h) == jvFieldAccess {
		f := w.child(h, jvfField)
		if f < 0 {
			return false
		}
		segs = append(segs, f)
		h = w.child(h, jvfObject)
		if h < 0 {
			return false
		}
	}
	if w.kind(h) != jvIdent {
		return false
	}
	head := w.text(h)
	if _, ok := w.lookup(head); ok {
		return false
	}
	from := head
	for k := len(segs) - 1; k >= 0; k-- {
		w.use(segs[k], Use{Name: w.text(segs[k]), From: from})
		from += "." + w.text(segs[k])
	}
	w.visitChildren(i)
	return true
}

// importDecl records an import declaration as a Binding.
func (w *jvWalker) importDecl(i int32) {
	static, star := false, false
	path := int32(-1)
	for c := i + 1; c < w.n[i].next; c = w.n[c].next {
		switch w.kind(c) {
		case jvScopedIdent, jvIdent:
			path = c
		case jvNone:
			switch w.text(c) {
			case "static":
				static = true
			case "*":
				star = true
			}
		default:
			if w.n[c].end-w.n[c].start == 1 && w.src[w.n[c].start] == '*' {
				star = true
			}
		}
	}
	if path < 0 {
		return
	}
	full := w.typeText(path)
	b := Binding{From: full}
	switch {
	case star && static:
		b.Name, b.Orig = "*", "static"
	case star:
		b.Name, b.Orig = "*", "*"
	case static:
		k := lastDot(full)
		if k < 0 {
			return
		}
		b.Name, b.From, b.Orig = full[k+1:], full[:k], "static"
	default:
		k := lastDot(full)
		b.Name = full[k+1:]
	}
	w.f.Bindings = append(w.f.Bindings, b)
}

func lastDot(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '.' {
			return i
		}
	}
	return -1
}

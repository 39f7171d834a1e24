package syntax

import (
	"bytes"
	"go/ast"
	"go/build/constraint"
	"go/scanner"
	gotoken "go/token"
	"strconv"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// Go uses are extracted from the standard library's go/ast, whose scopes are
// exact, rather than from the tree-sitter tree: the file is parsed a second
// time (go/parser, without object resolution), and the walk below tracks
// every local scope itself (parameters, results, receivers, type
// parameters, := and var/const/type in blocks, if/for/range/switch/select
// scopes, closures). Labels live in their own namespace and are skipped.
//
// Recv, and Symbol.Type for Go, are type descriptors:
//
//	T, net/http.Request     a named type of the file's package, or of the
//	                        package with that import path (the name is
//	                        after the last dot following the last slash)
//	*D, []D                 a pointer to D; a slice or array whose element
//	                        is D (or a map whose key type is unknown)
//	map[K]V                 a map with key type K and element type V (V
//	                        possibly "")
//	<-D                     a channel of D
//	var:X, var:path.X       the type of the package-level name X: its
//	                        declared Type for a var or const, the type
//	                        itself for a type (x.M, a method expression)
//	call:I:F                result I (from 0) of the function F, or the
//	                        type F for a conversion F(x); F is X or path.X
//	mcall:I:M:D             result I of method M of a value of type D
//	field:F:D               field F of a value of type D
//	elem:D                  an element of D (index, range value, receive)
//	key:D                   a key of D (the first variable of a range: a
//	                        map's key, a channel's element, "" otherwise)
//	(D1, D2)                a result list (Symbol.Type of a function or
//	                        method with several results)
//
// The deferred forms (var, call, mcall, field, elem) are evaluated by the
// resolver against the workspace. "" means unknown: a local type, a type
// parameter, a predeclared or an anonymous type, an expression the syntax
// does not type. Two more forms are not types:
//
//	func                    the Type of a field whose type is a func type
//	                        literal, or of a type defined as one: what a
//	                        call may select besides methods
//	()D                     a Use.Recv only: the member is called
//	                        (x.M(...)) on a value of type D, D possibly ""
//	{}                      a struct or interface type literal that embeds
//	                        nothing: its members are declared in the
//	                        literal itself, so they name no declaration
//	                        (the element of a table test's []struct{...})

func init() { registerUses(goUses, Go) }

// goCalled prefixes the Recv of a member use that is called, goFunc is
// the Type of a func-typed field and goAnon the type of a struct or
// interface literal (see the descriptors above).
const (
	goCalled = "()"
	goFunc   = "func"
	goAnon   = "{}"
)

// goMaxDesc bounds a descriptor's length: deeper chains resolve as unknown.
const goMaxDesc = 256

// goUniverse are the predeclared names of Go.
var goUniverse = map[string]bool{
	"any": true, "bool": true, "byte": true, "comparable": true, "complex64": true, "complex128": true,
	"error": true, "float32": true, "float64": true, "int": true, "int8": true, "int16": true,
	"int32": true, "int64": true, "rune": true, "string": true, "uint": true, "uint8": true,
	"uint16": true, "uint32": true, "uint64": true, "uintptr": true,
	"true": true, "false": true, "iota": true, "nil": true,
	"append": true, "cap": true, "clear": true, "close": true, "complex": true, "copy": true,
	"delete": true, "imag": true, "len": true, "make": true, "max": true, "min": true, "new": true,
	"panic": true, "print": true, "println": true, "real": true, "recover": true,
}

// goImportName returns the name a Go import path binds when the import has
// no explicit name: the package name is assumed to be the last path
// element, without a "go-" prefix, a "-go" or ".go" suffix, or a ".vN"
// suffix; a last element that is a major version ("v2") gives way to the
// one before it. Dashes and dots left over make it "" (unknown).
func goImportName(p string) string {
	elems := strings.Split(p, "/")
	name := elems[len(elems)-1]
	if len(elems) > 1 && goMajor(name) {
		name = elems[len(elems)-2]
	}
	if i := strings.LastIndex(name, ".v"); i > 0 && goMajor(name[i+1:]) {
		name = name[:i]
	}
	name = strings.TrimPrefix(name, "go-")
	name = strings.TrimSuffix(strings.TrimSuffix(name, "-go"), ".go")
	if name == "" || strings.ContainsAny(name, "-.") {
		return ""
	}
	return name
}

func goMajor(s string) bool {
	if len(s) < 2 || s[0] != 'v' {
		return false
	}
	for _, c := range s[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// GoHead is what a Go file's header says, read without a parse (see
// [GoHeader]).
type GoHead struct {
	// Package is the name of the package clause, "" when the text does
	// not open with one after comments.
	Package string
	// Constraint is the expression of the //go:build line.
	Constraint string
	// Imports are the import paths the header declares, in order, when
	// ImportsKnown. ImportsKnown is false when the import declarations
	// cannot be read that way (no package clause, a declaration that is
	// not well formed) or when the rest of the text holds the word
	// "import" anywhere (a declaration after other code, which
	// tree-sitter's recovery may still extract): the file may then import
	// anything.
	Imports      []string
	ImportsKnown bool
}

// GoHeader reads a Go file's header in one pass of the scanner: a build
// before the folder is parsed knows from it which files make up a package
// (name, test file, build constraint) and which files import a path,
// without parsing them. [Parse] gives a Go file's Package from the same
// reading (goPackageName), so the header and the extraction never
// disagree.
func GoHeader(src []byte) GoHead {
	h := GoHead{Constraint: goConstraint(src)}
	sc := newGoHeaderScanner(src)
	h.Package = sc.packageName()
	if h.Package != "" {
		h.Imports, h.ImportsKnown = sc.imports()
	}
	return h
}

// goPackageName reads the package clause of a Go text: the first two
// tokens after comments, "package" and an identifier. Only the clause is
// read: the scanner's cost is the few tokens before it, whatever the
// file's size.
func goPackageName(src []byte) string { return newGoHeaderScanner(src).packageName() }

// goHeaderScanner reads the tokens of a Go file's header.
type goHeaderScanner struct {
	sc  scanner.Scanner
	fs  *gotoken.FileSet
	src []byte
}

func newGoHeaderScanner(src []byte) *goHeaderScanner {
	h := &goHeaderScanner{fs: gotoken.NewFileSet(), src: src}
	h.sc.Init(h.fs.AddFile("", -1, len(src)), src, nil, 0)
	return h
}

// next returns the next token that is not a semicolon.
func (h *goHeaderScanner) next() (gotoken.Pos, gotoken.Token, string) {
	for {
		pos, tok, lit := h.sc.Scan()
		if tok != gotoken.SEMICOLON {
			return pos, tok, lit
		}
	}
}

// packageName reads the package clause: its name, or "".
func (h *goHeaderScanner) packageName() string {
	if _, tok, _ := h.next(); tok != gotoken.PACKAGE {
		return ""
	}
	if _, tok, lit := h.next(); tok == gotoken.IDENT {
		return lit
	}
	return ""
}

// imports reads the import declarations after the package clause (see
// GoHead.Imports).
func (h *goHeaderScanner) imports() (paths []string, ok bool) {
	// spec reads one import spec from its first token: [name] "path".
	spec := func(tok gotoken.Token, lit string) bool {
		if tok == gotoken.IDENT || tok == gotoken.PERIOD {
			_, tok, lit = h.next()
		}
		if tok != gotoken.STRING {
			return false
		}
		p, err := strconv.Unquote(lit)
		if err != nil {
			return false
		}
		paths = append(paths, p)
		return true
	}
	for {
		pos, tok, _ := h.next()
		if tok != gotoken.IMPORT {
			if bytes.Contains(h.src[min(h.fs.Position(pos).Offset, len(h.src)):], []byte("import")) {
				return nil, false
			}
			return paths, true
		}
		_, tok, lit := h.next()
		if tok != gotoken.LPAREN {
			if !spec(tok, lit) {
				return nil, false
			}
			continue
		}
		for {
			_, tok, lit = h.next()
			if tok == gotoken.RPAREN {
				break
			}
			if !spec(tok, lit) {
				return nil, false
			}
		}
	}
}

// goConstraint returns the expression of the //go:build line of a Go
// file's header (the comments before the package clause), or "".
func goConstraint(src []byte) string {
	// Bytes, not a string of src: the header is a few lines of a file
	// that may be megabytes long.
	s := src
	for len(s) > 0 {
		line, rest, _ := bytes.Cut(s, []byte("\n"))
		s = rest
		t := bytes.TrimSpace(line)
		switch {
		case len(t) == 0:
		case bytes.HasPrefix(t, []byte("//")):
			if constraint.IsGoBuild(string(t)) {
				return string(bytes.TrimSpace(bytes.TrimPrefix(t, []byte("//go:build"))))
			}
		case bytes.HasPrefix(t, []byte("/*")):
			end := bytes.Index(line, []byte("*/"))
			if end < 0 {
				i := bytes.Index(s, []byte("*/"))
				if i < 0 {
					return ""
				}
				s = s[i+2:]
			} else if len(bytes.TrimSpace(line[end+2:])) != 0 {
				return ""
			}
		default:
			return ""
		}
	}
	return ""
}

// goUses is the Go uses extractor (see the comment above) of a file
// tree-sitter parsed.
func goUses(_ *sitter.Node, src []byte, f *File) {
	af, _ := goParse(src)
	goUsesFrom(af, src, f)
}

// goUsesFrom is goWalkUses on go/parser's AST af of src, possibly partial;
// with none (af nil) only the build constraint is read.
func goUsesFrom(af *ast.File, src []byte, f *File) {
	if af == nil {
		f.Constraint = goConstraint(src)
		return
	}
	goWalkUses(af, src, f)
}

// goWalkUses sets the constraint, bindings, uses and symbol types of f from
// af, the go/ast of src parsed in a fresh FileSet.
func goWalkUses(af *ast.File, src []byte, f *File) {
	f.Constraint = goConstraint(src)
	// The first file of a fresh FileSet has base 1.
	w := &goWalker{base: 1, imports: map[string]string{}, top: map[string]bool{}}
	for _, imp := range af.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil || p == "" {
			continue
		}
		name := goImportName(p)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		switch name {
		case "", "_":
		case ".":
			w.dots = append(w.dots, p)
			f.Bindings = append(f.Bindings, Binding{Name: "*", From: p, Orig: "*"})
		default:
			w.imports[name] = p
			f.Bindings = append(f.Bindings, Binding{Name: name, From: p, Orig: "*"})
		}
	}
	for _, d := range af.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.Name != "init" {
				w.top[d.Name.Name] = true
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.ValueSpec:
					for _, n := range s.Names {
						w.top[n.Name] = true
					}
				case *ast.TypeSpec:
					w.top[s.Name.Name] = true
				}
			}
		}
	}
	types := newGoTypes(f)
	for _, d := range af.Decls {
		w.decl(d, types)
	}
	f.Uses = w.uses
}

// goTypes matches go/ast declarations to the tree-sitter symbols, to set
// their Type.
type goTypes struct {
	f   *File
	idx map[string][]int // Container + "." + Name → symbols
}

func newGoTypes(f *File) *goTypes {
	t := &goTypes{f: f, idx: make(map[string][]int, len(f.Symbols))}
	for i, s := range f.Symbols {
		k := s.Container + "." + s.Name
		t.idx[k] = append(t.idx[k], i)
	}
	return t
}

// set sets the Type of the symbol named name in container whose range holds
// offset off.
func (t *goTypes) set(container, name string, off int, typ string) {
	if typ == "" || name == "_" {
		return
	}
	for _, i := range t.idx[container+"."+name] {
		r := t.f.Symbols[i].Range
		if int(r.StartByte) <= off && off < int(r.EndByte) {
			t.f.Symbols[i].Type = typ
			return
		}
	}
}

// goLocal is a name a local scope declares; typ is its type descriptor.
type goLocal struct {
	name, typ string
	isType    bool // a local type or type parameter
}

type goWalker struct {
	base    int
	imports map[string]string // import name → path
	dots    []string          // dot-imported paths
	top     map[string]bool   // the file's package-level names
	locals  []goLocal
	uses    []Use
}

func (w *goWalker) off(p gotoken.Pos) uint32 { return uint32(int(p) - w.base) }

func (w *goWalker) add(u Use, n ast.Node) {
	u.Start, u.End = w.off(n.Pos()), w.off(n.End())
	w.uses = append(w.uses, u)
}

func (w *goWalker) local(name string) *goLocal {
	for i := len(w.locals) - 1; i >= 0; i-- {
		if w.locals[i].name == name {
			return &w.locals[i]
		}
	}
	return nil
}

func (w *goWalker) declare(name, typ string, isType bool) {
	if name != "_" && name != "" {
		w.locals = append(w.locals, goLocal{name: name, typ: typ, isType: isType})
	}
}

// importOf returns the import path x names when x is an import name that no
// local shadows.
func (w *goWalker) importOf(x ast.Expr) (string, bool) {
	id, ok := x.(*ast.Ident)
	if !ok {
		return "", false
	}
	p, ok := w.imports[id.Name]
	if !ok || w.local(id.Name) != nil {
		return "", false
	}
	return p, true
}

// global reports whether name, not declared locally, names a package-level
// declaration (of this package or a dot import) rather than a predeclared
// one.
func (w *goWalker) global(name string) bool {
	if name == "_" || w.local(name) != nil {
		return false
	}
	if _, imp := w.imports[name]; imp {
		return false
	}
	return !goUniverse[name] || w.top[name]
}

func (w *goWalker) ident(id *ast.Ident) {
	if !w.global(id.Name) {
		return
	}
	w.add(Use{Name: id.Name}, id)
	for _, p := range w.dots {
		w.add(Use{Name: id.Name, From: p}, id)
	}
}

func (w *goWalker) decl(d ast.Decl, types *goTypes) {
	switch d := d.(type) {
	case *ast.FuncDecl:
		mark := len(w.locals)
		container := ""
		if d.Recv != nil && len(d.Recv.List) > 0 {
			container = w.recvParams(d.Recv.List[0].Type)
		}
		w.funcType(d.Recv, d.Type)
		types.set(container, d.Name.Name, w.ioff(d.Name.Pos()), w.results(d.Type))
		if d.Body != nil {
			w.block(d.Body.List)
		}
		w.locals = w.locals[:mark]
	case *ast.GenDecl:
		var last string
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.ValueSpec:
				w.valueSpec(s, false)
				typ := w.typeDesc(s.Type)
				if s.Type != nil || len(s.Values) > 0 {
					last = typ
				} else if d.Tok == gotoken.CONST {
					typ = last
				}
				for i, n := range s.Names {
					t := typ
					if s.Type == nil && i < len(s.Values) {
						t = w.exprDescN(s.Values[i], 0)
						if d.Tok == gotoken.CONST && i == 0 {
							last = t
						}
					} else if s.Type == nil && len(s.Values) == 1 && len(s.Names) > 1 {
						t = w.exprDescN(s.Values[0], i)
					}
					types.set("", n.Name, w.ioff(n.Pos()), t)
				}
			case *ast.TypeSpec:
				mark := len(w.locals)
				w.typeParams(s.TypeParams)
				w.typeExpr(s.Type)
				w.specTypes(s, types)
				w.locals = w.locals[:mark]
			}
		}
	}
}

func (w *goWalker) ioff(p gotoken.Pos) int { return int(p) - w.base }

// specTypes records the Type of a type declaration (a non-struct,
// non-interface type: its definition; an alias "= D" is recorded as D) and
// of its fields and interface methods.
func (w *goWalker) specTypes(s *ast.TypeSpec, types *goTypes) {
	name := s.Name.Name
	switch t := s.Type.(type) {
	case *ast.StructType:
		for _, fl := range t.Fields.List {
			d := w.typeDesc(fl.Type)
			if _, ok := ast.Unparen(fl.Type).(*ast.FuncType); ok {
				d = goFunc
			}
			for _, n := range fl.Names {
				types.set(name, n.Name, w.ioff(n.Pos()), d)
			}
		}
	case *ast.InterfaceType:
		for _, fl := range t.Methods.List {
			if ft, ok := fl.Type.(*ast.FuncType); ok {
				for _, n := range fl.Names {
					types.set(name, n.Name, w.ioff(n.Pos()), w.results(ft))
				}
			}
		}
	case *ast.FuncType:
		types.set("", name, w.ioff(s.Name.Pos()), goFunc)
	default:
		types.set("", name, w.ioff(s.Name.Pos()), w.typeDesc(s.Type))
	}
}

// recvParams declares the type parameters of a method receiver (T in
// `func (l *List[T])`) and returns the receiver's base type name.
func (w *goWalker) recvParams(t ast.Expr) string {
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
			continue
		case *ast.ParenExpr:
			t = x.X
			continue
		case *ast.IndexExpr:
			if id, ok := x.Index.(*ast.Ident); ok {
				w.declare(id.Name, "", true)
			}
			t = x.X
			continue
		case *ast.IndexListExpr:
			for _, e := range x.Indices {
				if id, ok := e.(*ast.Ident); ok {
					w.declare(id.Name, "", true)
				}
			}
			t = x.X
			continue
		case *ast.Ident:
			return x.Name
		}
		return ""
	}
}

// results returns the descriptor of a function type's results: the single
// result's type, or "(D1, D2)".
func (w *goWalker) results(ft *ast.FuncType) string {
	if ft.Results == nil {
		return ""
	}
	var ds []string
	for _, fl := range ft.Results.List {
		d := w.typeDesc(fl.Type)
		for range max(1, len(fl.Names)) {
			ds = append(ds, d)
		}
	}
	if len(ds) == 1 {
		return ds[0]
	}
	if strings.Join(ds, "") == "" {
		return ""
	}
	return "(" + strings.Join(ds, ", ") + ")"
}

// funcType walks a signature (and a method's receiver) and declares its
// type parameters, then its receiver, parameters and results, in the
// current scope. The names of parameters are scoped to the body: a
// parameter named like an import does not shadow it in the signature.
func (w *goWalker) funcType(recv *ast.FieldList, ft *ast.FuncType) {
	w.typeParams(ft.TypeParams)
	if recv != nil {
		for _, f := range recv.List {
			w.recvType(f.Type)
		}
	}
	for _, fl := range []*ast.FieldList{ft.Params, ft.Results} {
		if fl != nil {
			for _, f := range fl.List {
				w.typeExpr(f.Type)
			}
		}
	}
	var names []goLocal
	for _, fl := range []*ast.FieldList{recv, ft.Params, ft.Results} {
		if fl == nil {
			continue
		}
		for _, f := range fl.List {
			d := w.typeDesc(f.Type)
			for _, n := range f.Names {
				names = append(names, goLocal{name: n.Name, typ: d})
			}
		}
	}
	for _, n := range names {
		w.declare(n.name, n.typ, false)
	}
}

func (w *goWalker) typeParams(fl *ast.FieldList) {
	if fl == nil {
		return
	}
	for _, f := range fl.List {
		for _, n := range f.Names {
			w.declare(n.Name, "", true)
		}
	}
	for _, f := range fl.List {
		w.typeExpr(f.Type)
	}
}

// recvType records the use of a receiver's base type (its type arguments
// are the method's own type parameters, declared by recvParams).
func (w *goWalker) recvType(t ast.Expr) {
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.ParenExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.Ident:
			w.ident(x)
			return
		default:
			w.typeExpr(t)
			return
		}
	}
}

// typeExpr walks a type expression for its uses.
func (w *goWalker) typeExpr(t ast.Expr) {
	if t == nil {
		return
	}
	switch x := t.(type) {
	case *ast.StructType:
		for _, f := range x.Fields.List {
			w.typeExpr(f.Type)
		}
	case *ast.InterfaceType:
		for _, f := range x.Methods.List {
			if ft, ok := f.Type.(*ast.FuncType); ok {
				mark := len(w.locals)
				w.funcType(nil, ft)
				w.locals = w.locals[:mark]
			} else {
				w.typeExpr(f.Type)
			}
		}
	case *ast.FuncType:
		mark := len(w.locals)
		w.funcType(nil, x)
		w.locals = w.locals[:mark]
	default:
		w.expr(t)
	}
}

// typeDesc returns the descriptor of a type expression.
func (w *goWalker) typeDesc(t ast.Expr) string {
	d := w.typeDesc1(t)
	if len(d) > goMaxDesc {
		return ""
	}
	return d
}

func (w *goWalker) typeDesc1(t ast.Expr) string {
	switch x := t.(type) {
	case *ast.Ident:
		if l := w.local(x.Name); l != nil || !w.global(x.Name) {
			return ""
		}
		return x.Name
	case *ast.SelectorExpr:
		if p, ok := w.importOf(x.X); ok {
			return p + "." + x.Sel.Name
		}
	case *ast.StarExpr:
		return prefixDesc("*", w.typeDesc1(x.X))
	case *ast.ParenExpr:
		return w.typeDesc1(x.X)
	case *ast.ArrayType:
		return prefixDesc("[]", w.typeDesc1(x.Elt))
	case *ast.MapType:
		if k := w.typeDesc1(x.Key); k != "" {
			return "map[" + k + "]" + w.typeDesc1(x.Value)
		}
		return prefixDesc("[]", w.typeDesc1(x.Value))
	case *ast.ChanType:
		return prefixDesc("<-", w.typeDesc1(x.Value))
	case *ast.Ellipsis:
		return prefixDesc("[]", w.typeDesc1(x.Elt))
	case *ast.IndexExpr:
		return w.typeDesc1(x.X)
	case *ast.IndexListExpr:
		return w.typeDesc1(x.X)
	case *ast.StructType:
		if !goEmbeds(x.Fields) {
			return goAnon
		}
	case *ast.InterfaceType:
		if !goEmbeds(x.Methods) {
			return goAnon
		}
	}
	return ""
}

// goEmbeds reports whether a struct's fields or an interface's methods
// embed a type (a field without names), whose members a value of the
// literal type would have too.
func goEmbeds(fl *ast.FieldList) bool {
	if fl == nil {
		return false
	}
	for _, f := range fl.List {
		if len(f.Names) == 0 {
			return true
		}
	}
	return false
}

func prefixDesc(p, d string) string {
	if d == "" {
		return ""
	}
	return p + d
}

// exprDescN returns the descriptor of value i of expression e (i > 0 for
// the further results of a call, the ok of a comma-ok form).
func (w *goWalker) exprDescN(e ast.Expr, i int) string {
	d := w.exprDesc1(e, i)
	if len(d) > goMaxDesc {
		return ""
	}
	return d
}

func (w *goWalker) exprDesc(e ast.Expr) string { return w.exprDescN(e, 0) }

func (w *goWalker) exprDesc1(e ast.Expr, i int) string {
	switch x := e.(type) {
	case *ast.Ident:
		if l := w.local(x.Name); l != nil {
			if l.isType || i > 0 {
				return ""
			}
			return l.typ
		}
		if i > 0 || !w.global(x.Name) {
			return ""
		}
		return "var:" + x.Name
	case *ast.ParenExpr:
		return w.exprDesc1(x.X, i)
	case *ast.SelectorExpr:
		if i > 0 {
			return ""
		}
		if p, ok := w.importOf(x.X); ok {
			return "var:" + p + "." + x.Sel.Name
		}
		return prefixDesc("field:"+x.Sel.Name+":", w.exprDesc1(x.X, 0))
	case *ast.CompositeLit:
		if i > 0 {
			return ""
		}
		return w.typeDesc1(x.Type)
	case *ast.UnaryExpr:
		if i > 0 {
			return ""
		}
		switch x.Op {
		case gotoken.AND:
			return prefixDesc("*", w.exprDesc1(x.X, 0))
		case gotoken.ARROW:
			return prefixDesc("elem:", w.exprDesc1(x.X, 0))
		}
	case *ast.StarExpr:
		if i > 0 {
			return ""
		}
		d := w.exprDesc1(x.X, 0)
		if strings.HasPrefix(d, "*") {
			return d[1:]
		}
		return d
	case *ast.TypeAssertExpr:
		if i > 0 {
			return ""
		}
		return w.typeDesc1(x.Type)
	case *ast.IndexExpr:
		if i > 0 {
			return ""
		}
		return prefixDesc("elem:", w.exprDesc1(x.X, 0))
	case *ast.SliceExpr:
		if i > 0 {
			return ""
		}
		return w.exprDesc1(x.X, 0)
	case *ast.CallExpr:
		return w.callDesc(x, i)
	}
	return ""
}

// callDesc returns the descriptor of result i of a call (or conversion).
func (w *goWalker) callDesc(c *ast.CallExpr, i int) string {
	fun := ast.Unparen(c.Fun)
	switch x := fun.(type) {
	case *ast.IndexExpr:
		fun = x.X
	case *ast.IndexListExpr:
		fun = x.X
	}
	switch x := fun.(type) {
	case *ast.Ident:
		if w.local(x.Name) != nil {
			return "" // a func value: its result is not typed
		}
		if goUniverse[x.Name] && !w.top[x.Name] {
			if i > 0 || len(c.Args) == 0 {
				return ""
			}
			switch x.Name {
			case "new":
				return prefixDesc("*", w.typeDesc1(c.Args[0]))
			case "make":
				return w.typeDesc1(c.Args[0])
			case "append":
				return w.exprDesc1(c.Args[0], 0)
			}
			return ""
		}
		if !w.global(x.Name) {
			return ""
		}
		return "call:" + strconv.Itoa(i) + ":" + x.Name
	case *ast.SelectorExpr:
		if p, ok := w.importOf(x.X); ok {
			return "call:" + strconv.Itoa(i) + ":" + p + "." + x.Sel.Name
		}
		return prefixDesc("mcall:"+strconv.Itoa(i)+":"+x.Sel.Name+":", w.exprDesc1(x.X, 0))
	case *ast.StarExpr, *ast.ArrayType, *ast.MapType, *ast.ChanType:
		if i > 0 {
			return ""
		}
		return w.typeDesc1(x)
	}
	return ""
}

// expr walks an expression for its uses.
func (w *goWalker) expr(e ast.Expr) {
	switch x := e.(type) {
	case nil:
	case *ast.Ident:
		w.ident(x)
	case *ast.SelectorExpr:
		w.selector(x, false)
	case *ast.CompositeLit:
		w.typeExpr(x.Type)
		w.compositeElts(x, w.typeDesc(x.Type))
	case *ast.FuncLit:
		mark := len(w.locals)
		w.funcType(nil, x.Type)
		if x.Body != nil {
			w.block(x.Body.List)
		}
		w.locals = w.locals[:mark]
	case *ast.CallExpr:
		if sel, ok := ast.Unparen(x.Fun).(*ast.SelectorExpr); ok {
			w.selector(sel, true)
		} else {
			w.expr(x.Fun)
		}
		for _, a := range x.Args {
			w.expr(a)
		}
	case *ast.ParenExpr:
		w.expr(x.X)
	case *ast.UnaryExpr:
		w.expr(x.X)
	case *ast.BinaryExpr:
		w.expr(x.X)
		w.expr(x.Y)
	case *ast.StarExpr:
		w.expr(x.X)
	case *ast.IndexExpr:
		w.expr(x.X)
		w.expr(x.Index)
	case *ast.IndexListExpr:
		w.expr(x.X)
		for _, i := range x.Indices {
			w.expr(i)
		}
	case *ast.SliceExpr:
		w.expr(x.X)
		w.expr(x.Low)
		w.expr(x.High)
		w.expr(x.Max)
	case *ast.TypeAssertExpr:
		w.expr(x.X)
		w.typeExpr(x.Type)
	case *ast.KeyValueExpr:
		w.expr(x.Key)
		w.expr(x.Value)
	case *ast.ArrayType:
		w.expr(x.Len)
		w.typeExpr(x.Elt)
	case *ast.MapType:
		w.typeExpr(x.Key)
		w.typeExpr(x.Value)
	case *ast.ChanType:
		w.typeExpr(x.Value)
	case *ast.Ellipsis:
		w.typeExpr(x.Elt)
	case *ast.StructType, *ast.InterfaceType, *ast.FuncType:
		w.typeExpr(x)
	}
}

// selector walks x.Sel: a qualified name when x is an import, else a
// member use whose Recv is the descriptor of x, marked "()" when the
// member is called, so that the resolver never relates a call to a field
// that is not a func when it has to guess the receiver's type.
func (w *goWalker) selector(x *ast.SelectorExpr, called bool) {
	if p, ok := w.importOf(x.X); ok {
		w.add(Use{Name: x.Sel.Name, From: p}, x)
		return
	}
	w.expr(x.X)
	recv := w.exprDesc(x.X)
	if called {
		recv = goCalled + recv
	}
	w.add(Use{Name: x.Sel.Name, Member: true, Recv: recv}, x.Sel)
}

// compositeElts walks the elements of a composite literal of type
// descriptor d: a key of a literal of named type is a field of that type
// (a member use), an element whose type is elided has d's element type.
func (w *goWalker) compositeElts(x *ast.CompositeLit, d string) {
	lt := x.Type
	for lt != nil {
		if p, ok := lt.(*ast.ParenExpr); ok {
			lt = p.X
			continue
		}
		break
	}
	var fieldKeys, exprKeys bool
	switch lt.(type) {
	case *ast.ArrayType, *ast.MapType:
		exprKeys = true
	case *ast.StructType:
	case nil:
		fieldKeys = d != ""
	default:
		fieldKeys = true
	}
	elem := ""
	if d != "" {
		elem = "elem:" + d
		if strings.HasPrefix(d, "[]") {
			elem = d[2:]
		}
	}
	for _, el := range x.Elts {
		v := el
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			v = kv.Value
			if id, isID := kv.Key.(*ast.Ident); isID && fieldKeys && d != "" {
				w.add(Use{Name: id.Name, Member: true, Recv: d}, id)
			} else if exprKeys || !isID {
				if cl, ok := kv.Key.(*ast.CompositeLit); ok && cl.Type == nil {
					w.compositeElts(cl, "")
				} else {
					w.expr(kv.Key)
				}
			}
		}
		switch cl := v.(type) {
		case *ast.CompositeLit:
			if cl.Type == nil {
				w.compositeElts(cl, strings.TrimPrefix(elem, "*"))
				continue
			}
		case *ast.UnaryExpr:
			if in, ok := cl.X.(*ast.CompositeLit); ok && cl.Op == gotoken.AND && in.Type == nil {
				w.compositeElts(in, strings.TrimPrefix(elem, "*"))
				continue
			}
		}
		w.expr(v)
	}
}

// block walks statements in a new scope.
func (w *goWalker) block(list []ast.Stmt) {
	mark := len(w.locals)
	for _, s := range list {
		w.stmt(s)
	}
	w.locals = w.locals[:mark]
}

func (w *goWalker) stmt(s ast.Stmt) {
	switch x := s.(type) {
	case nil:
	case *ast.BlockStmt:
		w.block(x.List)
	case *ast.ExprStmt:
		w.expr(x.X)
	case *ast.SendStmt:
		w.expr(x.Chan)
		w.expr(x.Value)
	case *ast.IncDecStmt:
		w.expr(x.X)
	case *ast.AssignStmt:
		for _, r := range x.Rhs {
			w.expr(r)
		}
		if x.Tok != gotoken.DEFINE {
			for _, l := range x.Lhs {
				w.expr(l)
			}
			return
		}
		for i, l := range x.Lhs {
			id, ok := l.(*ast.Ident)
			if !ok {
				continue
			}
			d := ""
			if len(x.Rhs) == len(x.Lhs) {
				d = w.exprDesc(x.Rhs[i])
			} else if len(x.Rhs) == 1 {
				d = w.exprDescN(x.Rhs[0], i)
			}
			w.declare(id.Name, d, false)
		}
	case *ast.GoStmt:
		w.expr(x.Call)
	case *ast.DeferStmt:
		w.expr(x.Call)
	case *ast.ReturnStmt:
		for _, r := range x.Results {
			w.expr(r)
		}
	case *ast.BranchStmt:
	case *ast.LabeledStmt:
		w.stmt(x.Stmt)
	case *ast.DeclStmt:
		gd, ok := x.Decl.(*ast.GenDecl)
		if !ok {
			return
		}
		for _, sp := range gd.Specs {
			switch sp := sp.(type) {
			case *ast.ValueSpec:
				w.valueSpec(sp, true)
			case *ast.TypeSpec:
				// The name is in scope in its own definition.
				w.declare(sp.Name.Name, "", true)
				mark := len(w.locals)
				w.typeParams(sp.TypeParams)
				w.typeExpr(sp.Type)
				w.locals = w.locals[:mark]
			}
		}
	case *ast.IfStmt:
		mark := len(w.locals)
		w.stmt(x.Init)
		w.expr(x.Cond)
		w.block(x.Body.List)
		w.stmt(x.Else)
		w.locals = w.locals[:mark]
	case *ast.ForStmt:
		mark := len(w.locals)
		w.stmt(x.Init)
		w.expr(x.Cond)
		w.stmt(x.Post)
		w.block(x.Body.List)
		w.locals = w.locals[:mark]
	case *ast.RangeStmt:
		w.expr(x.X)
		mark := len(w.locals)
		if x.Tok == gotoken.DEFINE {
			if id, ok := x.Key.(*ast.Ident); ok {
				w.declare(id.Name, prefixDesc("key:", w.exprDesc(x.X)), false)
			}
			if id, ok := x.Value.(*ast.Ident); ok {
				w.declare(id.Name, prefixDesc("elem:", w.exprDesc(x.X)), false)
			}
		} else {
			w.expr(x.Key)
			w.expr(x.Value)
		}
		w.block(x.Body.List)
		w.locals = w.locals[:mark]
	case *ast.SwitchStmt:
		mark := len(w.locals)
		w.stmt(x.Init)
		w.expr(x.Tag)
		for _, c := range x.Body.List {
			cc := c.(*ast.CaseClause)
			for _, e := range cc.List {
				w.expr(e)
			}
			w.block(cc.Body)
		}
		w.locals = w.locals[:mark]
	case *ast.TypeSwitchStmt:
		mark := len(w.locals)
		w.stmt(x.Init)
		name, subject := "", ast.Expr(nil)
		switch a := x.Assign.(type) {
		case *ast.AssignStmt:
			if len(a.Lhs) == 1 && len(a.Rhs) == 1 {
				if id, ok := a.Lhs[0].(*ast.Ident); ok {
					name = id.Name
				}
				if ta, ok := a.Rhs[0].(*ast.TypeAssertExpr); ok {
					subject = ta.X
				}
			}
		case *ast.ExprStmt:
			if ta, ok := a.X.(*ast.TypeAssertExpr); ok {
				subject = ta.X
			}
		}
		w.expr(subject)
		for _, c := range x.Body.List {
			cc := c.(*ast.CaseClause)
			for _, e := range cc.List {
				w.typeExpr(e)
			}
			m := len(w.locals)
			if name != "" {
				d := ""
				if len(cc.List) == 1 {
					d = w.typeDesc(cc.List[0])
				} else if subject != nil {
					d = w.exprDesc(subject)
				}
				w.declare(name, d, false)
			}
			w.block(cc.Body)
			w.locals = w.locals[:m]
		}
		w.locals = w.locals[:mark]
	case *ast.SelectStmt:
		for _, c := range x.Body.List {
			cc := c.(*ast.CommClause)
			mark := len(w.locals)
			w.stmt(cc.Comm)
			w.block(cc.Body)
			w.locals = w.locals[:mark]
		}
	}
}

// valueSpec walks a var or const spec and, for a local one, declares its
// names after its values.
func (w *goWalker) valueSpec(s *ast.ValueSpec, local bool) {
	w.typeExpr(s.Type)
	for _, v := range s.Values {
		w.expr(v)
	}
	if !local {
		return
	}
	d := w.typeDesc(s.Type)
	for i, n := range s.Names {
		t := d
		if s.Type == nil {
			if len(s.Values) == len(s.Names) {
				t = w.exprDesc(s.Values[i])
			} else if len(s.Values) == 1 {
				t = w.exprDescN(s.Values[0], i)
			}
		}
		w.declare(n.Name, t, false)
	}
}

package syntax

import (
	"go/ast"
	"go/parser"
	gotoken "go/token"

	sitter "github.com/smacker/go-tree-sitter"
)

// Go files are parsed twice as fast as anything else in a cold index needs,
// and tree-sitter's Go grammar is the slowest part of it: on
// $(go env GOROOT)/src it takes 12 s of CPU to build the trees that
// go/parser builds in 1.5 s, and the uses extractor parses every Go file
// with go/parser anyway. So a Go file that go/parser accepts without error
// is extracted from its go/ast alone: goMatches below replays, from the
// AST, the matches that queries/go.scm would produce on tree-sitter's tree
// (the same captures with the same byte spans, patterns numbered in the
// query's order), and the extractor shared with every language turns them
// into symbols, imports and refs exactly as it does for tree-sitter's
// matches. A file go/parser rejects (a buffer being typed, a testdata file
// of invalid Go) goes to tree-sitter, whose error recovery salvages what it
// can. Open documents keep their tree-sitter tree, reparsed incrementally,
// for the edits that break them, and take the same first choice
// (extractDoc), so a document and the same text on disk always extract
// alike. TestGoFastAgreesWithTreeSitter and FuzzGoFast hold the two paths
// to the same File on every text both parse without error.

// The capture table of the replayed matches: an index into goFastQuery.caps.
const (
	gcDefFunction uint32 = iota
	gcDefMethod
	gcDefType
	gcDefStruct
	gcDefInterface
	gcDefField
	gcDefConst
	gcDefVar
	gcDef
	gcName
	gcBody
	gcReceiver
	gcBase
	gcRange
	gcImport
	gcImportPath
	gcPackage
)

// goFastQuery stands in for the compiled go.scm query: the extractor reads
// only its capture table.
var goFastQuery = &compiledQuery{caps: []capture{
	gcDefFunction:  {role: roleDefinition, kind: Function},
	gcDefMethod:    {role: roleDefinition, kind: Method},
	gcDefType:      {role: roleDefinition, kind: TypeAlias},
	gcDefStruct:    {role: roleDefinition, kind: Struct},
	gcDefInterface: {role: roleDefinition, kind: Interface},
	gcDefField:     {role: roleDefinition, kind: Field},
	gcDefConst:     {role: roleDefinition, kind: Const},
	gcDefVar:       {role: roleDefinition, kind: Var},
	gcDef:          {role: roleDefinition},
	gcName:         {role: roleName},
	gcBody:         {role: roleBody},
	gcReceiver:     {role: roleReceiver},
	gcBase:         {role: roleBase},
	gcRange:        {role: roleRange},
	gcImport:       {role: roleImport, imp: ImportPackage},
	gcImportPath:   {role: roleImportPath},
	gcPackage:      {role: rolePackage},
}}

// The patterns of queries/go.scm, in its order: the extractor lets the
// highest-numbered pattern that names a kind decide it (a struct's
// @definition.struct over the @definition.type of the same spec).
const (
	gpPackage = iota
	gpImport
	gpImportList
	gpFunction
	gpMethod
	gpReceiver
	gpTypeSpec
	gpTypeAlias
	gpStruct
	gpInterface
	gpStructBase
	gpInterfaceBase
	gpField
	gpInterfaceMethod
	gpConst
	gpVar
	gpVarList
	gpRange
)

// goParse parses src with go/parser: af is what it built, a partial AST
// when it reports errors (nil when it built nothing), and ok reports that
// there were none.
func goParse(src []byte) (af *ast.File, ok bool) {
	af, err := parser.ParseFile(gotoken.NewFileSet(), "", src, parser.SkipObjectResolution)
	return af, err == nil && af != nil
}

// goFromAST extracts a Go file that go/parser accepted from its AST af,
// parsed in a fresh FileSet.
func goFromAST(af *ast.File, src []byte) *File {
	x := &extractor{s: specs[Go], src: src, byKey: map[recKey]*record{}}
	// The first file of a fresh FileSet has base 1.
	m := goMatcher{x: x, base: 1}
	m.file(af)
	f := x.file()
	goWalkUses(af, src, f)
	f.Uses = compactUses(f.Uses)
	return f
}

// extractGoTree extracts a Go text that go/parser rejected: symbols from
// tree-sitter's tree, which recovers from errors, and uses from af,
// go/parser's partial AST of the same text (nil: none), so that the text
// is not parsed by go/parser a second time.
func extractGoTree(s *spec, q *compiledQuery, tree *sitter.Tree, src []byte, af *ast.File) *File {
	f := extractSymbols(s, q, tree, src)
	keepDeclared(f, src)
	goUsesFrom(af, src, f)
	f.Uses = compactUses(f.Uses)
	// Tree-sitter's recovery may find a package clause where go/parser's
	// reading of the header does not: the header's answer is the one (see
	// GoHeader), so that a file's package is the same parsed or not.
	f.Package = goPackageName(src)
	return f
}

// extractDoc extracts a document's text, which tree parses: from go/ast
// when the language is Go and go/parser accepts the text, as Parse does.
func extractDoc(s *spec, q *compiledQuery, tree *sitter.Tree, src []byte) *File {
	if s.lang != Go {
		return extract(s, q, tree, src)
	}
	af, ok := goParse(src)
	if ok {
		return goFromAST(af, src)
	}
	return extractGoTree(s, q, tree, src, af)
}

// goMatcher replays go.scm's matches from a go/ast file.
type goMatcher struct {
	x    *extractor
	base int
	caps []rawCapture
}

// cap returns the capture c of the span [from, to).
func (m *goMatcher) cap(c uint32, from, to gotoken.Pos) rawCapture {
	return rawCapture{index: c, start: uint32(int(from) - m.base), end: uint32(int(to) - m.base)}
}

func (m *goMatcher) node(c uint32, n ast.Node) rawCapture { return m.cap(c, n.Pos(), n.End()) }

// match hands one match to the extractor.
func (m *goMatcher) match(pattern int, caps ...rawCapture) {
	m.x.match(goFastQuery, pattern, caps)
}

func (m *goMatcher) file(af *ast.File) {
	m.match(gpPackage, m.node(gcPackage, af.Name))
	for _, d := range af.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			m.funcDecl(d)
		case *ast.GenDecl:
			m.genDecl(d)
		}
	}
}

func (m *goMatcher) funcDecl(d *ast.FuncDecl) {
	def, pattern := gcDefFunction, gpFunction
	if d.Recv != nil {
		def, pattern = gcDefMethod, gpMethod
	}
	caps := []rawCapture{m.node(def, d), m.node(gcName, d.Name)}
	if d.Body != nil {
		caps = append(caps, m.node(gcBody, d.Body))
	}
	m.match(pattern, caps...)
	if d.Recv == nil {
		return
	}
	for _, p := range d.Recv.List {
		if p.Type != nil {
			m.match(gpReceiver, m.node(gcDef, d), m.node(gcReceiver, p.Type))
		}
	}
}

func (m *goMatcher) genDecl(d *ast.GenDecl) {
	switch d.Tok {
	case gotoken.IMPORT:
		pattern := gpImport
		if d.Lparen.IsValid() {
			pattern = gpImportList
		}
		for _, s := range d.Specs {
			if s, ok := s.(*ast.ImportSpec); ok {
				m.match(pattern, m.node(gcImport, s), m.node(gcImportPath, s.Path))
			}
		}
		return
	case gotoken.TYPE:
		for _, s := range d.Specs {
			if s, ok := s.(*ast.TypeSpec); ok {
				m.typeSpec(s)
			}
		}
	case gotoken.CONST, gotoken.VAR:
		def, pattern := gcDefConst, gpConst
		if d.Tok == gotoken.VAR {
			def, pattern = gcDefVar, gpVar
			if d.Lparen.IsValid() {
				pattern = gpVarList
			}
		}
		for _, s := range d.Specs {
			s, ok := s.(*ast.ValueSpec)
			if !ok {
				continue
			}
			for _, n := range s.Names {
				m.match(pattern, m.node(def, s), m.node(gcName, n))
			}
		}
	default:
		return
	}
	m.match(gpRange, m.node(gcRange, d))
}

func (m *goMatcher) typeSpec(s *ast.TypeSpec) {
	name := m.node(gcName, s.Name)
	if s.Assign.IsValid() {
		m.match(gpTypeAlias, m.node(gcDefType, s), name)
		return
	}
	m.match(gpTypeSpec, m.node(gcDefType, s), name)
	switch t := s.Type.(type) {
	case *ast.StructType:
		fields := t.Fields
		m.match(gpStruct, m.node(gcDefStruct, s), name, m.cap(gcBody, fields.Opening, fields.End()))
		for _, f := range fields.List {
			if len(f.Names) == 0 {
				typ := f.Type
				if star, ok := typ.(*ast.StarExpr); ok {
					typ = star.X // tree-sitter's embedded field types leave out the *
				}
				m.match(gpStructBase, m.node(gcDefStruct, s), name, m.node(gcBase, typ))
			}
		}
		for _, f := range fields.List {
			for _, n := range f.Names {
				m.match(gpField, m.node(gcDefField, f), m.node(gcName, n))
			}
		}
	case *ast.InterfaceType:
		methods := t.Methods
		m.match(gpInterface, m.node(gcDefInterface, s), name, m.cap(gcBody, methods.Opening, methods.Opening+1))
		for _, f := range methods.List {
			if len(f.Names) == 0 && isGoTypeName(f.Type) {
				m.match(gpInterfaceBase, m.node(gcDefInterface, s), name, m.node(gcBase, f.Type))
			}
		}
		for _, f := range methods.List {
			for _, n := range f.Names {
				m.match(gpInterfaceMethod, m.node(gcDefMethod, f), m.node(gcName, n))
			}
		}
	}
}

// isGoTypeName reports whether t is a type name, qualified or not, with or
// without type arguments: the embedded interface elements that are bases
// (a union or a ~T approximation is not).
func isGoTypeName(t ast.Expr) bool {
	switch t := t.(type) {
	case *ast.Ident, *ast.SelectorExpr:
		return true
	case *ast.IndexExpr:
		return isGoNamedType(t.X)
	case *ast.IndexListExpr:
		return isGoNamedType(t.X)
	}
	return false
}

func isGoNamedType(t ast.Expr) bool {
	switch t.(type) {
	case *ast.Ident, *ast.SelectorExpr:
		return true
	}
	return false
}

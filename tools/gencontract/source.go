package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// modulePath is the import path of the module whose source gencontract
// reads.
const modulePath = "github.com/ctxd/ctxd"

// goSource reads what reflection cannot see in the module's Go source:
// the doc comments of types and fields, which become the descriptions of
// the generated JSON Schemas, and the string constants of each named
// type, against which the enum lists are tested.
type goSource struct {
	root string
	pkgs map[string]*pkgSource
}

// pkgSource is what goSource read of one package.
type pkgSource struct {
	typeDocs  map[string]string            // type name → doc
	fieldDocs map[string]map[string]string // type name → field name → doc
	consts    map[string][]string          // type name → values of its string constants
}

func newGoSource(root string) *goSource {
	return &goSource{root: root, pkgs: map[string]*pkgSource{}}
}

// pkg parses the non-test files of the package with import path path; a
// package outside the module has no source here and reads as empty.
func (s *goSource) pkg(path string) (*pkgSource, error) {
	if p, ok := s.pkgs[path]; ok {
		return p, nil
	}
	p := &pkgSource{typeDocs: map[string]string{}, fieldDocs: map[string]map[string]string{}, consts: map[string][]string{}}
	s.pkgs[path] = p
	rel, ok := strings.CutPrefix(path, modulePath)
	if !ok || (rel != "" && !strings.HasPrefix(rel, "/")) {
		return p, nil
	}
	dir := filepath.Join(s.root, filepath.FromSlash(strings.TrimPrefix(rel, "/")))
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		p.read(f)
	}
	return p, nil
}

func (p *pkgSource) read(f *ast.File) {
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, spec := range gd.Specs {
			switch spec := spec.(type) {
			case *ast.TypeSpec:
				doc := spec.Doc
				if doc == nil && len(gd.Specs) == 1 {
					doc = gd.Doc
				}
				p.typeDocs[spec.Name.Name] = commentText(doc)
				if st, ok := spec.Type.(*ast.StructType); ok {
					fields := map[string]string{}
					for _, fl := range st.Fields.List {
						doc := fl.Doc
						if doc == nil {
							doc = fl.Comment
						}
						for _, n := range fl.Names {
							fields[n.Name] = commentText(doc)
						}
					}
					p.fieldDocs[spec.Name.Name] = fields
				}
			case *ast.ValueSpec:
				typ, ok := spec.Type.(*ast.Ident)
				if gd.Tok != token.CONST || !ok {
					continue
				}
				for _, v := range spec.Values {
					if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						if s, err := strconv.Unquote(lit.Value); err == nil {
							p.consts[typ.Name] = append(p.consts[typ.Name], s)
						}
					}
				}
			}
		}
	}
}

// commentText is a doc comment as one line.
func commentText(g *ast.CommentGroup) string {
	if g == nil {
		return ""
	}
	return strings.Join(strings.Fields(g.Text()), " ")
}

package syntax_test

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ctxd/ctxd/index/syntax"
	"github.com/ctxd/ctxd/tools/corpus"
)

// TestGoOracle compares the top-level declarations ctxd extracts from every
// .go file of $(go env GOROOT)/src with those go/parser reports: functions,
// methods (with the receiver's base type), types, constants and variables,
// as multisets of "kind name" ("method T.M"). Blank names (_) are left out
// on both sides: ctxd does not make symbols of them.
//
// Agreement must be 100% on the files that go/parser and tree-sitter both
// parse without error. Files go/parser accepts but tree-sitter-go does not
// (grammar gaps, all in testdata of invalid programs at the time of
// writing: `~x` as an expression) and files go/parser rejects are counted
// and listed, not failed: both sides then report what their error recovery
// salvaged.
//
// With -short or under -race it checks every 20th file (about 390): the
// race run looks for data races in the parallel parse, which a sample
// finds as well as the whole tree, and `make test` runs the whole oracle
// once more without -race, which is where its coverage comes from. The full run
// (about 7,700 files) takes under a minute on two cores without -race, a
// few minutes with it:
//
//	go test -run TestGoOracle -v ./index/syntax/
//
// sampleStep is how many files the oracle steps over per file it checks.
func sampleStep() int {
	switch {
	case testing.Short(), raceEnabled:
		return 20
	}
	return 1
}

func TestGoOracle(t *testing.T) {
	files := corpus.Files(t)
	if step := sampleStep(); step > 1 {
		var some []corpus.File
		for i := 0; i < len(files); i += step {
			some = append(some, files[i])
		}
		files = some
	}

	type result struct {
		path    string
		valid   bool // go/parser parsed it without error
		clean   bool // tree-sitter parsed it without error
		agree   bool
		missing []string // go/parser has, ctxd lacks
		extra   []string // ctxd has, go/parser lacks
	}
	results := make([]result, len(files))
	start := time.Now()
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				f := files[i]
				want, valid := goDecls(f.Path, f.Data)
				file, err := syntax.Parse(context.Background(), syntax.Go, f.Data)
				if err != nil {
					t.Errorf("Parse(%s): %v", f.Path, err)
					continue
				}
				got := ctxdDecls(file)
				missing, extra := multisetDiff(want, got)
				results[i] = result{f.Path, valid, !file.HasErrors, len(missing) == 0 && len(extra) == 0, missing, extra}
			}
		})
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	elapsed := time.Since(start)

	var both, bothOK, gap, gapOK, invalid, invalidOK int
	var bad []result
	for _, r := range results {
		switch {
		case r.valid && r.clean:
			both++
			if r.agree {
				bothOK++
			} else {
				bad = append(bad, r)
			}
		case r.valid:
			gap++
			if r.agree {
				gapOK++
				t.Logf("tree-sitter-go error on a file go/parser accepts (declarations agree): %s", r.path)
			} else {
				t.Logf("tree-sitter-go error on a file go/parser accepts: %s: missing %q, extra %q", r.path, r.missing, r.extra)
			}
		default:
			invalid++
			if r.agree {
				invalidOK++
			}
		}
	}
	summary := fmt.Sprintf("Go oracle: %d files in %v\n"+
		"  go/parser and tree-sitter without errors: %d compared, %d agree (%.2f%%)\n"+
		"  go/parser without errors, tree-sitter with: %d compared, %d agree (%.2f%%)\n"+
		"  go/parser with errors: %d compared, %d agree (%.2f%%)",
		len(files), elapsed.Round(time.Millisecond),
		both, bothOK, percent(bothOK, both), gap, gapOK, percent(gapOK, gap), invalid, invalidOK, percent(invalidOK, invalid))
	t.Log(summary)
	if testing.Verbose() {
		fmt.Println(summary)
	}
	for i, r := range bad {
		if i == 20 {
			t.Errorf("... and %d more", len(bad)-20)
			break
		}
		t.Errorf("%s: missing %q, extra %q", r.path, r.missing, r.extra)
	}
}

func percent(n, of int) float64 {
	if of == 0 {
		return 100
	}
	return 100 * float64(n) / float64(of)
}

// goDecls lists the top-level declarations go/parser finds; valid is false
// when it reports an error (its AST is then partial).
func goDecls(path string, src []byte) (decls []string, valid bool) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if f == nil {
		return nil, false
	}
	add := func(kind, name string) {
		if name != "_" {
			decls = append(decls, kind+" "+name)
		}
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil || len(d.Recv.List) == 0 {
				add("func", d.Name.Name)
				continue
			}
			if d.Name.Name != "_" {
				add("method", recvBase(d.Recv.List[0].Type)+"."+d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					add("type", s.Name.Name)
				case *ast.ValueSpec:
					for _, n := range s.Names {
						add(d.Tok.String(), n.Name)
					}
				}
			}
		}
	}
	slices.Sort(decls)
	return decls, err == nil
}

// recvBase returns the base type name of a receiver: T of *T, T[K], (T).
func recvBase(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		case *ast.SelectorExpr:
			return recvBase(x.X) + "." + x.Sel.Name
		case *ast.ArrayType:
			// Invalid (a type-checker error in testdata), but parsed: both
			// sides name the element type.
			e = x.Elt
		default:
			return fmt.Sprintf("%T", e)
		}
	}
}

// ctxdDecls lists the top-level symbols of f the way goDecls does: symbols
// not inside another symbol's range (struct fields and interface methods
// are).
func ctxdDecls(f *syntax.File) []string {
	var decls []string
	var outer syntax.Range
	for _, s := range f.Symbols { // sorted by start
		r := s.Range
		if r.StartByte < outer.EndByte && r != outer {
			continue // inside outer
		}
		outer = r
		var kind string
		switch s.Kind {
		case syntax.Function:
			kind = "func"
		case syntax.Method:
			decls = append(decls, "method "+s.QualifiedName)
			continue
		case syntax.Struct, syntax.Interface, syntax.TypeAlias:
			kind = "type"
		case syntax.Const:
			kind = "const"
		case syntax.Var:
			kind = "var"
		default:
			kind = s.Kind.String()
		}
		decls = append(decls, kind+" "+s.Name)
	}
	slices.Sort(decls)
	return decls
}

// multisetDiff returns the elements of sorted want missing from sorted got
// and those of got not in want, with multiplicity.
func multisetDiff(want, got []string) (missing, extra []string) {
	i, j := 0, 0
	for i < len(want) || j < len(got) {
		switch {
		case j == len(got) || (i < len(want) && want[i] < got[j]):
			missing = append(missing, want[i])
			i++
		case i == len(want) || got[j] < want[i]:
			extra = append(extra, got[j])
			j++
		default:
			i++
			j++
		}
	}
	return missing, extra
}

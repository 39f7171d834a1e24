package syntax_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/ctxd/ctxd/index/syntax"
	"github.com/ctxd/ctxd/tools/corpus"
	"github.com/google/go-cmp/cmp"
)

// TestGoFastAgreesWithTreeSitter extracts every .go file of
// $(go env GOROOT)/src twice, from go/parser's AST (what Parse does for a
// file go/parser accepts) and from tree-sitter's tree (what it does for the
// others, and what open documents use), and requires the same File on
// every file both parse without error. Files only one side accepts are
// counted: they take the tree-sitter path, or differ only where
// tree-sitter's grammar has a gap. It samples like TestGoOracle; `make
// test` runs it whole once more without -race.
func TestGoFastAgreesWithTreeSitter(t *testing.T) {
	files := corpus.Files(t)
	step := sampleStep()
	type result struct {
		path       string
		fast, tree bool // the side parsed the file without error
		diff       string
	}
	var idx []int
	for i := 0; i < len(files); i += step {
		idx = append(idx, i)
	}
	results := make([]result, len(idx))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for j := range next {
				f := files[idx[j]]
				tree, err := syntax.ParseTree(context.Background(), syntax.Go, f.Data)
				if err != nil {
					t.Errorf("ParseTree(%s): %v", f.Path, err)
					continue
				}
				fast, ok := syntax.ParseGoFast(f.Data)
				r := result{path: f.Path, fast: ok, tree: !tree.HasErrors}
				if ok && r.tree {
					r.diff = cmp.Diff(tree, fast)
				}
				results[j] = r
			}
		})
	}
	for j := range idx {
		next <- j
	}
	close(next)
	wg.Wait()

	var both, agree, gaps, rejected int
	for _, r := range results {
		switch {
		case r.fast && r.tree:
			both++
			if r.diff == "" {
				agree++
			} else if both-agree <= 10 {
				t.Errorf("%s: the two extractions differ (-tree-sitter +go/ast):\n%s", r.path, r.diff)
			}
		case r.fast:
			gaps++
			t.Logf("tree-sitter-go error on a file go/parser accepts: %s", r.path)
		default:
			rejected++
		}
	}
	summary := fmt.Sprintf("Go fast path: %d files; both without errors: %d, identical: %d; "+
		"tree-sitter errors only: %d; go/parser errors (tree-sitter path): %d",
		len(idx), both, agree, gaps, rejected)
	t.Log(summary)
	if both == 0 {
		t.Fatal("no file compared")
	}
}

// FuzzGoFast: on any text that go/parser and tree-sitter both parse
// without error, the two extractions are the same File.
func FuzzGoFast(f *testing.F) {
	f.Add([]byte("package p\n\ntype I interface {\n\tfmt.Stringer\n\tA | B\n\tM() error\n}\n"))
	f.Add([]byte("package p\n\n// T is.\ntype T[K comparable] struct {\n\t*pkg.E\n\ta, b int `tag`\n}\n\nfunc (t *T[K]) M() {}\n"))
	f.Add([]byte("package p\n\nimport (\n\t\"fmt\"\n\tx \"os\"\n)\n\nconst (\n\tA = iota\n\tB\n)\n\nvar v, w = 1, 2\n\nfunc F() (int, error)\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		fast, ok := syntax.ParseGoFast(src)
		if !ok {
			return
		}
		tree, err := syntax.ParseTree(context.Background(), syntax.Go, src)
		if err != nil {
			t.Fatal(err)
		}
		if tree.HasErrors {
			return
		}
		if diff := cmp.Diff(tree, fast); diff != "" {
			t.Fatalf("the two extractions differ (-tree-sitter +go/ast):\n%s\ntext:\n%s", diff, src)
		}
	})
}

// TestGoMultiNameSpecs: every name of a var or const spec is a symbol on
// both paths, a multi-value initializer included (`var a, b = f()`: b is
// result 1 of f, not a name the spec leaves out).
func TestGoMultiNameSpecs(t *testing.T) {
	tests := map[string]struct {
		src  string
		want []string
	}{
		"call": {
			src:  "package p\n\nvar initCwd, initCwdErr = Getwd()\n",
			want: []string{"var initCwd call:0:Getwd", "var initCwdErr call:1:Getwd"},
		},
		"typed": {
			src:  "package p\n\nvar a, b int = f()\n",
			want: []string{"var a ", "var b "},
		},
		"group": {
			src:  "package p\n\nvar (\n\tx, y, z = T.M(nil)\n)\n",
			want: []string{"var x mcall:0:M:var:T", "var y mcall:1:M:var:T", "var z mcall:2:M:var:T"},
		},
		"comma-ok": {
			src:  "package p\n\nvar v, ok = m[k]\n",
			want: []string{"var ok ", "var v elem:var:m"},
		},
		"const": {
			src:  "package p\n\nconst c, d = 1, 2\n",
			want: []string{"const c ", "const d "},
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			fast, ok := syntax.ParseGoFast([]byte(tt.src))
			if !ok {
				t.Fatal("go/parser rejected the text")
			}
			tree, err := syntax.ParseTree(context.Background(), syntax.Go, []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range []struct {
				path string
				f    *syntax.File
			}{{"go/ast", fast}, {"tree-sitter", tree}} {
				var got []string
				for _, s := range p.f.Symbols {
					got = append(got, s.Kind.String()+" "+s.Name+" "+s.Type)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("%s symbols (-want +got):\n%s", p.path, diff)
				}
			}
		})
	}
}

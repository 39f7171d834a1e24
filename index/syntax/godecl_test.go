package syntax_test

import (
	"context"
	"go/build"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ctxd/ctxd/index/syntax"
	"github.com/ctxd/ctxd/index/words"
	"github.com/google/go-cmp/cmp"
)

// declWords returns the distinct words GoDeclWords gives for src, sorted,
// and whether src was clean.
func declWords(src []byte) ([]string, bool) {
	var out []string
	ok := syntax.GoDeclWords(src, func(w []byte) {
		if !slices.Contains(out, string(w)) {
			out = append(out, string(w))
		}
	})
	slices.Sort(out)
	return out, ok
}

func TestGoDeclWords(t *testing.T) {
	tests := map[string]struct {
		src   string
		want  []string
		clean bool
	}{
		"bodies, comments and selectors are left out": {
			src: "package p\n\n// Conn is used.\nimport \"net/http\"\n\nfunc (s *Server) Close() error {\n\tx := Conn{}\n\treturn x.Close()\n}\n\nvar v = http.Get\n",
			want: []string{
				"Close", "Server", "func", "http", "import", "net", "p", "package", "s", "v", "var",
			},
			clean: true,
		},
		"fields and interface methods, a type literal in a result": {
			src:   "package p\n\ntype T struct {\n\ta, b int\n}\n\ntype I interface{ M() }\n\nfunc F() struct{ c int } { return struct{ c int }{} }\n",
			want:  []string{"F", "I", "M", "T", "a", "b", "func", "int", "interface", "p", "package", "struct", "type"},
			clean: true,
		},
		"a function literal's body in an initializer, a func result": {
			src:   "package p\n\nvar f = func() { hidden() }\n\nfunc G() func() { return nil }\n\nfunc asm(x int)\n\ntype U int\n",
			want:  []string{"G", "U", "asm", "f", "func", "int", "p", "package", "type", "var"},
			clean: true,
		},
		"raw strings and runes": {
			src:   "package p\n\nconst s = `a/b` + 'c'\n\nfunc H() { _ = \"in\\\"body\" }\n",
			want:  []string{"H", "const", "func", "p", "package", "s"},
			clean: true,
		},
		"unclosed brace":          {src: "package p\n\nfunc F() {\n", want: []string{"F", "func", "p", "package"}},
		"mismatched bracket":      {src: "package p\n\nvar x = f(]\n", want: []string{"p", "package", "var", "x"}},
		"unterminated string":     {src: "package p\n\nvar x = \"abc\nvar y = 1\n", want: []string{"p", "package", "var", "x"}},
		"unterminated comment":    {src: "package p\n/* x", want: []string{"p", "package"}},
		"unterminated raw string": {src: "package p\nvar x = `", want: []string{"p", "package", "var", "x"}},
		"stray closing bracket":   {src: "}", want: nil},
		"grouped specs, values over lines, a comment as a line break": {
			src:   "package p\n\nconst (\n\tA Kind = iota\n\tB\n)\n\nvar (\n\tx = f(a,\n\t\tb)\n\ty int /* c\n */ z = g\n)\n\nvar w, v = h(), k == j\n",
			want:  []string{"A", "B", "Kind", "const", "int", "p", "package", "v", "var", "w", "x", "y", "z"},
			clean: true,
		},
		"a receiver, type parameters, a method of a generic type": {
			src:   "package p\n\nfunc (l *List[T]) Push(v T) (n int) { return }\n\nfunc Map[K comparable, V any](m map[K]V) {}\n",
			want:  []string{"List", "Map", "Push", "T", "func", "l", "p", "package"},
			clean: true,
		},
		"a float ending a line": {
			src:   "const (\n\ta = 1.\n\tb = 2\n)\n",
			want:  []string{"a", "b", "const"},
			clean: true,
		},
		"empty":           {src: "", want: nil, clean: true},
		"dots and spaces": {src: "type a b. /* c */ C\n", want: []string{"a", "b", "type"}, clean: true},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			got, clean := declWords([]byte(tt.src))
			if clean != tt.clean {
				t.Errorf("clean = %v, want %v", clean, tt.clean)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("words (-want +got):\n%s", diff)
			}
		})
	}
}

// checkDeclared fails unless every symbol's name and container and every
// import path of src's extraction are made of src's declaration words,
// when src is clean; and src must be clean when go/parser accepts it.
func checkDeclared(t *testing.T, name string, src []byte) {
	t.Helper()
	f, err := syntax.Parse(context.Background(), syntax.Go, src)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	ws, clean := declWords(src)
	if _, ok := syntax.ParseGoFast(src); ok && !clean {
		t.Fatalf("%s: go/parser accepts the text but GoDeclWords says it is not clean", name)
	}
	if !clean {
		return
	}
	has := func(s string) bool {
		for _, w := range words.Split(s) {
			if _, ok := slices.BinarySearch(ws, w); !ok {
				return false
			}
		}
		return true
	}
	for _, s := range f.Symbols {
		if !has(s.Name) || !has(s.Container) {
			t.Errorf("%s: symbol %s (container %q) is not among the declaration words", name, s.Name, s.Container)
		}
	}
	for _, imp := range f.Imports {
		if !has(imp.Path) {
			t.Errorf("%s: import %q is not among the declaration words", name, imp.Path)
		}
	}
}

// TestGoDeclWordsHoldDeclarations: on the Go golden samples and on a few
// packages of the toolchain's source, every declaration is found through
// its words.
func TestGoDeclWordsHoldDeclarations(t *testing.T) {
	for i, src := range syntax.GoldenSamples(t, syntax.Go) {
		checkDeclared(t, "golden "+string(rune('0'+i)), src)
	}
	goroot := os.Getenv("GOROOT_SRC")
	if goroot == "" {
		goroot = filepath.Join(build.Default.GOROOT, "src")
	}
	for _, dir := range []string{"net/http", "go/ast", "runtime", "cmd/go/internal/load", "internal/syscall/unix"} {
		paths, _ := filepath.Glob(filepath.Join(goroot, dir, "*.go"))
		for _, p := range paths {
			src, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			checkDeclared(t, p, src)
		}
	}
}

// FuzzGoDeclWords holds the extraction of any text, whichever parser
// extracts it, to the declaration words of the text when it is clean.
func FuzzGoDeclWords(f *testing.F) {
	for _, src := range syntax.GoldenSamples(f, syntax.Go) {
		f.Add(src)
	}
	f.Add([]byte("package p\n\nfunc f() {\n\tx := (\n\ttype T struct{}\n}\n"))
	f.Add([]byte("package p\n\nfunc f() {\n\tvar v = 1 +\n}\n\ntype U struct{ a int }\n"))
	f.Add([]byte("package p\n\nfunc (r T) .Close() {}\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		checkDeclared(t, "input", src)
	})
}

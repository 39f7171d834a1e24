package syntax

import (
	"context"
	"testing"

	"github.com/ctxd/ctxd/tools/corpus"
	"github.com/google/go-cmp/cmp"
)

func goUsesOf(t *testing.T, src string) ([]Use, *File) {
	t.Helper()
	f, err := Parse(context.Background(), Go, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return f.Uses, f
}

func TestGoUses(t *testing.T) {
	tests := []struct {
		name, src string
		want      []Use
	}{{
		name: "imports, locals and package scope",
		src: `package p

import (
	"fmt"
	h "net/http"
	yaml "gopkg.in/yaml.v3"
)

// Comment mentions Foo and fmt.Sprint.
func F(url string, r *h.Request) error {
	s := "Bar"
	fmt.Println(s, url, G, yaml.Marshal)
	var c h.Client
	c.Do(r)
	r.URL.Query()
	return nil
}
`,
		want: []Use{
			{Name: "Client", From: "net/http"},
			{Name: "Do", Member: true, Recv: "()net/http.Client"},
			{Name: "G"},
			{Name: "Marshal", From: "gopkg.in/yaml.v3"},
			{Name: "Println", From: "fmt"},
			{Name: "Query", Member: true, Recv: "()field:URL:*net/http.Request"},
			{Name: "Request", From: "net/http"},
			{Name: "URL", Member: true, Recv: "*net/http.Request"},
		},
	}, {
		name: "shadowing: params, closures, blocks, type switch",
		src: `package p

import "os"

func F(os int, T string) {
	_ = os + len(T)
}

func G() {
	x := T{}
	{
		T := 1
		_ = T
	}
	f := func(T int) int { return T }
	_ = f
	switch v := any(x).(type) {
	case *U:
		v.M()
	}
	for i, e := range Slice {
		_ = i
		e.N()
	}
	os.Exit(1)
}
`,
		want: []Use{
			{Name: "Exit", From: "os"},
			{Name: "M", Member: true, Recv: "()*U"},
			{Name: "N", Member: true, Recv: "()elem:var:Slice"},
			{Name: "Slice"},
			{Name: "T"},
			{Name: "U"},
		},
	}, {
		name: "calls, composite literal keys, results",
		src: `package p

import "os"

func G() {
	f, err := os.Open("x")
	_ = err
	f.Close()
	t := &T{A: 1, B: []V{{C: 2}}}
	t.M().N()
	new(T).P()
	T(t).Q()
}
`,
		want: []Use{
			{Name: "A", Member: true, Recv: "T"},
			{Name: "B", Member: true, Recv: "T"},
			{Name: "C", Member: true, Recv: "V"},
			{Name: "Close", Member: true, Recv: "()call:0:os.Open"},
			{Name: "M", Member: true, Recv: "()*T"},
			{Name: "N", Member: true, Recv: "()mcall:0:M:*T"},
			{Name: "Open", From: "os"},
			{Name: "P", Member: true, Recv: "()*T"},
			{Name: "Q", Member: true, Recv: "()call:0:T"},
			{Name: "T"},
			{Name: "V"},
		},
	}, {
		name: "calls and values of interface-typed names, unknown receivers",
		src: `package p

import "net"

type S struct {
	ln  net.Listener
	rc  closer
	req Request
}

func (s *S) F(l net.Listener, get func() *S) {
	l.Close()
	s.ln.Close()
	var c closer = s.rc
	c.Close()
	_ = s.req.Close
	(get()).Close()
	f := l.Close
	_ = f
}
`,
		want: []Use{
			{Name: "Close", Member: true, Recv: "()"},
			{Name: "Close", Member: true, Recv: "()closer"},
			{Name: "Close", Member: true, Recv: "()field:ln:*S"},
			{Name: "Close", Member: true, Recv: "()net.Listener"},
			{Name: "Close", Member: true, Recv: "field:req:*S"},
			{Name: "Close", Member: true, Recv: "net.Listener"},
			{Name: "Listener", From: "net"},
			{Name: "Request"},
			{Name: "S"},
			{Name: "closer"},
			{Name: "ln", Member: true, Recv: "*S"},
			{Name: "rc", Member: true, Recv: "*S"},
			{Name: "req", Member: true, Recv: "*S"},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := goUsesOf(t, tt.src)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("uses (-want +got):\n%s", diff)
			}
		})
	}
}

func TestGoSymbolTypes(t *testing.T) {
	_, f := goUsesOf(t, `//go:build linux && !cgo

package p

import "os"

type T struct {
	a, b *os.File
	c    []U
	d    func() error
	e    bool
	f    map[*os.File][]U
	g    map[string]T
	h    map[int]bool
	i    chan *T
	j    []struct{ n int }
	k    struct{ *os.File }
	l    interface{ Close() error }
}

type W []T

type H func() error

func (t *T) M() (*os.File, error) { return nil, nil }
func F() T                        { return T{} }

var V = &T{}

const (
	A K = iota
	B
)

var cwd, cwdErr = os.Getwd()

var (
	x, y = T.M(nil)
)
`)
	got := map[string]string{}
	for _, s := range f.Symbols {
		if s.Type != "" {
			got[s.QualifiedName] = s.Type
		}
	}
	want := map[string]string{
		"T.a": "*os.File", "T.b": "*os.File", "T.c": "[]U", "W": "[]T",
		"T.f": "map[*os.File][]U", "T.g": "[]T", "T.i": "<-*T", "T.j": "[]{}", "T.l": "{}",
		"T.M": "(*os.File, )", "F": "T", "V": "*T", "A": "K", "B": "K", "T.d": "func", "H": "func",
		"cwd": "call:0:os.Getwd", "cwdErr": "call:1:os.Getwd",
		"x": "mcall:0:M:var:T", "y": "mcall:1:M:var:T",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("types (-want +got):\n%s", diff)
	}
	if f.Constraint != "linux && !cgo" {
		t.Errorf("constraint %q", f.Constraint)
	}
	wantB := []Binding{{Name: "os", From: "os", Orig: "*"}}
	if diff := cmp.Diff(wantB, f.Bindings); diff != "" {
		t.Errorf("bindings (-want +got):\n%s", diff)
	}
}

func TestGoImportName(t *testing.T) {
	for p, want := range map[string]string{
		"fmt": "fmt", "math/rand/v2": "rand", "gopkg.in/yaml.v3": "yaml",
		"github.com/mattn/go-sqlite3": "sqlite3", "github.com/x/y-go": "y", "a/b.c": "",
	} {
		if got := goImportName(p); got != want {
			t.Errorf("goImportName(%q) = %q, want %q", p, got, want)
		}
	}
}

// BenchmarkGoUsesCorpus runs the Go uses extractor alone (go/parser and
// the scope walk) over $(go env GOROOT)/src: the cost it adds to
// BenchmarkParseCorpus.
func BenchmarkGoUsesCorpus(b *testing.B) {
	files := corpus.Files(b)
	var total int64
	for _, f := range files {
		total += int64(len(f.Data))
	}
	b.SetBytes(total)
	for b.Loop() {
		for _, f := range files {
			goUses(nil, f.Data, &File{})
		}
	}
}

func FuzzGoUses(f *testing.F) {
	f.Add([]byte("package p\nfunc F(x T) { x.M(); y := x; y.N() }\n"))
	f.Add([]byte("//go:build linux\n/* x */\npackage p\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		goUses(nil, src, &File{})
		_ = goConstraint(src)
	})
}

// TestGoImports: the header's import paths without a parse, or ok false
// when the text may hold an import the header reading does not see.
func TestGoImports(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
		ok        bool
	}{
		{"none", "package a\n\nfunc F() {}\n", nil, true},
		{"one", "// doc\npackage a\n\nimport \"fmt\"\n\nfunc F() { fmt.Println() }\n", []string{"fmt"}, true},
		{"block", "//go:build linux\n\npackage a\n\nimport (\n\t\"fmt\"\n\tx \"net/http\"\n\t. \"os\"\n\t_ \"embed\"\n)\nimport \"io\"\n\nvar V int\n", []string{"fmt", "net/http", "os", "embed", "io"}, true},
		{"raw string", "package a\nimport `fmt`\n", []string{"fmt"}, true},
		{"import later", "package a\n\nfunc F() {}\n\nimport \"fmt\"\n", nil, false},
		{"comment before code", "package a\n\n// we import nothing\nfunc F() {}\n", nil, true},
		{"word later", "package a\n\nfunc F() {}\n\n// import nothing\n", nil, false},
		{"no package", "import \"fmt\"\n", nil, false},
		{"broken spec", "package a\nimport (\n\tfmt\n)\n", nil, false},
	}
	for _, tt := range tests {
		h := GoHeader([]byte(tt.src))
		got, ok := h.Imports, h.ImportsKnown
		if diff := cmp.Diff(tt.want, got); diff != "" || ok != tt.ok {
			t.Errorf("%s: ok %v, want %v; paths (-want +got):\n%s", tt.name, ok, tt.ok, diff)
		}
	}
}

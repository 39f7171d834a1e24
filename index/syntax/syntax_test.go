package syntax_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/ctxd/ctxd/index/indextest"
	"github.com/ctxd/ctxd/index/syntax"
)

var _ = indextest.UpdateFlag("the want.json and want.txt sections of testdata/*.txtar")

func TestLanguageForPath(t *testing.T) {
	tests := []struct {
		path string
		want syntax.Language
	}{
		{"main.go", syntax.Go},
		{"a/b/c.ts", syntax.TypeScript},
		{"x.mts", syntax.TypeScript},
		{"x.cts", syntax.TypeScript},
		{"types.d.ts", syntax.TypeScript},
		{"App.tsx", syntax.TSX},
		{"x.js", syntax.JavaScript},
		{"x.mjs", syntax.JavaScript},
		{"x.cjs", syntax.JavaScript},
		{"x.jsx", syntax.JavaScript},
		{"x.py", syntax.Python},
		{"x.pyi", syntax.Python},
		{"X.java", syntax.Java},
		{"lib.rs", syntax.Rust},
		{"x.c", syntax.C},
		{"x.h", syntax.C},
		{"x.cc", syntax.CPP},
		{"x.cpp", syntax.CPP},
		{"x.cxx", syntax.CPP},
		{"x.c++", syntax.CPP},
		{"x.C", syntax.CPP},
		{"x.hpp", syntax.CPP},
		{"x.hh", syntax.CPP},
		{"x.hxx", syntax.CPP},
		{"x.h++", syntax.CPP},
		{"x.ipp", syntax.CPP},
		{"x.cs", syntax.CSharp},
		{`C:\src\x.cs`, syntax.CSharp},
		{"README.md", ""},
		{"Makefile", ""},
		{"x.GO", ""},
		{"x.H", ""},
		{"go", ""},
		{".go", syntax.Go},
		{"dir.go/file", ""},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, syntax.LanguageForPath(tt.path)); diff != "" {
				t.Errorf("LanguageForPath(%q) mismatch (-want +got):\n%s", tt.path, diff)
			}
		})
	}
}

func TestParseUnsupported(t *testing.T) {
	for _, lang := range []syntax.Language{"", "cobol"} {
		_, err := syntax.Parse(context.Background(), lang, []byte("x"))
		if !errors.Is(err, syntax.ErrUnsupported) {
			t.Errorf("Parse(%q) error = %v, want ErrUnsupported", lang, err)
		}
		_, err = syntax.NewDoc(context.Background(), lang, []byte("x"))
		if !errors.Is(err, syntax.ErrUnsupported) {
			t.Errorf("NewDoc(%q) error = %v, want ErrUnsupported", lang, err)
		}
	}
}

// TestParseEmpty checks the shape of the File of an empty source: empty,
// not nil, lists, so that JSON has [] rather than null.
func TestParseEmpty(t *testing.T) {
	for _, lang := range syntax.Languages {
		f, err := syntax.Parse(context.Background(), lang, nil)
		if err != nil {
			t.Fatalf("Parse(%s, nil): %v", lang, err)
		}
		want := &syntax.File{Language: lang, Symbols: []syntax.Symbol{}, Imports: []syntax.Import{}, Refs: []string{}}
		if diff := cmp.Diff(want, f); diff != "" {
			t.Errorf("Parse(%s, nil) mismatch (-want +got):\n%s", lang, diff)
		}
	}
}

func TestParseErrorsRecovered(t *testing.T) {
	src := []byte("package p\n\nfunc A() {\n\nfunc B() {}\n\ntype T struct {\n")
	f, err := syntax.Parse(context.Background(), syntax.Go, src)
	if err != nil {
		t.Fatal(err)
	}
	if !f.HasErrors {
		t.Errorf("HasErrors = false for %q", src)
	}
	if len(f.Symbols) == 0 {
		t.Errorf("no symbols recovered from %q", src)
	}
}

// TestGolden parses the sources of every testdata/<lang>.txtar and compares
// the Files with its want.json section, and a readable rendering of them
// (the section to review by eye) with want.txt. The fixtures must be free
// of syntax errors. go test -update rewrites both sections.
func TestGolden(t *testing.T) {
	indextest.Goldens(t, "testdata/*.txtar", func(t *testing.T, g *indextest.Golden) {
		got := map[string]*syntax.File{}
		var text strings.Builder
		for _, f := range g.Files("want.json", "want.txt") {
			file, err := syntax.Parse(context.Background(), syntax.LanguageForPath(f.Name), f.Data)
			if err != nil {
				t.Fatalf("Parse(%s): %v", f.Name, err)
			}
			if file.HasErrors {
				t.Errorf("%s: the fixture has syntax errors", f.Name)
			}
			got[f.Name] = file
			render(&text, f.Name, f.Data, file)
		}
		gotJSON, err := json.MarshalIndent(got, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		g.Check(t, "want.txt", []byte(text.String()))
		g.Check(t, "want.json", append(gotJSON, '\n'))
	})
}

// render writes a File the way a reviewer reads it: the source text of
// every range next to the symbol.
func render(w *strings.Builder, name string, src []byte, f *syntax.File) {
	text := func(r syntax.Range) string { return string(src[r.StartByte:r.EndByte]) }
	pos := func(r syntax.Range) string {
		return fmt.Sprintf("%d:%d-%d:%d", r.Start.Line+1, r.Start.Column+1, r.End.Line+1, r.End.Column+1)
	}
	fmt.Fprintf(w, "== %s (%s)\n", name, f.Language)
	if f.Package != "" {
		fmt.Fprintf(w, "package %s\n", f.Package)
	}
	if f.Namespaces != nil {
		fmt.Fprintf(w, "namespaces %s\n", strings.Join(f.Namespaces, " "))
	}
	for _, im := range f.Imports {
		sys := ""
		if im.System {
			sys = " system"
		}
		fmt.Fprintf(w, "import %s %q%s %s\n", im.Kind, im.Path, sys, pos(im.Range))
	}
	for _, s := range f.Symbols {
		exp := ""
		if s.Exported {
			exp = " exported"
		}
		fmt.Fprintf(w, "%s %s%s %s\n", s.Kind, s.QualifiedName, exp, pos(s.Range))
		fmt.Fprintf(w, "\tsig %q\n", text(s.Signature))
		if !s.Doc.IsZero() {
			fmt.Fprintf(w, "\tdoc %q\n", text(s.Doc))
		}
		if s.Bases != nil {
			fmt.Fprintf(w, "\tbases %s\n", strings.Join(s.Bases, ", "))
		}
	}
	fmt.Fprintf(w, "refs %s\n", strings.Join(f.Refs, " "))
}

// goldenSources returns the sources of the golden file of lang.
func goldenSources(t testing.TB, lang syntax.Language) []txtar.File {
	t.Helper()
	var out []txtar.File
	for _, f := range indextest.ReadGolden(t, filepath.Join("testdata", string(lang)+".txtar")).Archive.Files {
		if syntax.LanguageForPath(f.Name) == lang {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no %s sources in testdata/%s.txtar", lang, lang)
	}
	return out
}

// TestConcurrentParse parses a different language in each of 8 goroutines
// at once, repeatedly, while another goroutine forces collections, and
// checks every result against a sequential parse. Run it with -race.
func TestConcurrentParse(t *testing.T) {
	type job struct {
		lang syntax.Language
		src  []byte
		want *syntax.File
	}
	var jobs []job
	for _, lang := range syntax.Languages {
		src := goldenSources(t, lang)[0].Data
		want, err := syntax.Parse(context.Background(), lang, src)
		if err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, job{lang, src, want})
	}
	stop := make(chan struct{})
	gcDone := make(chan struct{})
	go func() {
		defer close(gcDone)
		for {
			select {
			case <-stop:
				return
			default:
				runtime.GC()
				time.Sleep(time.Millisecond)
			}
		}
	}()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 30 {
				j := jobs[(g+i)%len(jobs)]
				got, err := syntax.Parse(context.Background(), j.lang, j.src)
				if err != nil {
					t.Errorf("Parse(%s): %v", j.lang, err)
					return
				}
				if diff := cmp.Diff(j.want, got); diff != "" {
					t.Errorf("concurrent Parse(%s) mismatch (-want +got):\n%s", j.lang, diff)
					return
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	<-gcDone
}

func TestParseCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := syntax.Parse(ctx, syntax.Go, []byte("package p"))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Parse with a cancelled context: error = %v, want context.Canceled", err)
	}
}

// TestParseCancelledMidway cancels tree-sitter parses of a large file
// while they run, then checks that parsers left in the pool still parse
// correctly: a cancelled parse must not poison later ones. It calls
// ParseTree: Parse would take the Go fast path (go/parser), which never
// looks at the context midway, so nothing would be cancelled and each
// round would parse the whole file (seconds under -race).
func TestParseCancelledMidway(t *testing.T) {
	var big bytes.Buffer
	big.WriteString("package p\n")
	for i := range 40000 {
		fmt.Fprintf(&big, "func f%d(a, b int) int { return a*b + %d }\n", i, i)
	}
	small := goldenSources(t, syntax.Go)[0].Data
	want, err := syntax.ParseTree(context.Background(), syntax.Go, small)
	if err != nil {
		t.Fatal(err)
	}
	cancelled := 0
	for i := range 6 {
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(1+i)*time.Millisecond)
		_, err := syntax.ParseTree(ctx, syntax.Go, big.Bytes())
		cancel()
		if err != nil {
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("Parse cancelled midway: error = %v, want context.DeadlineExceeded", err)
			}
			cancelled++
		}
		for range 3 {
			got, err := syntax.ParseTree(context.Background(), syntax.Go, small)
			if err != nil {
				t.Fatalf("Parse after a cancelled parse: %v", err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("Parse after a cancelled parse mismatch (-want +got):\n%s", diff)
			}
		}
	}
	if cancelled == 0 {
		t.Log("no parse was cancelled midway (machine too fast for the timeouts)")
	}
}

func TestDoc(t *testing.T) {
	ctx := context.Background()
	v1 := []byte("package p\n\nfunc A() {}\n")
	v2 := []byte("package p\n\n// B is new.\nfunc B() {}\n\nfunc A() {}\n")
	d1, err := syntax.NewDoc(ctx, syntax.Go, v1)
	if err != nil {
		t.Fatal(err)
	}
	defer d1.Close()
	want1, _ := syntax.Parse(ctx, syntax.Go, v1)
	want2, _ := syntax.Parse(ctx, syntax.Go, v2)
	if diff := cmp.Diff(want1, d1.File()); diff != "" {
		t.Errorf("NewDoc File mismatch (-want +got):\n%s", diff)
	}

	insert := []syntax.Edit{{Start: 11, End: 11, Text: "// B is new.\nfunc B() {}\n\n"}}
	d2, err := d1.Edit(ctx, insert)
	if err != nil {
		t.Fatal(err)
	}
	defer d2.Close()
	if diff := cmp.Diff(want2, d2.File()); diff != "" {
		t.Errorf("Edit File mismatch (-want +got):\n%s", diff)
	}
	if !bytes.Equal(d2.Text(), v2) {
		t.Errorf("Edit Text = %q, want %q", d2.Text(), v2)
	}
	// The receiver is unchanged, and can still be edited.
	if diff := cmp.Diff(want1, d1.File()); diff != "" {
		t.Errorf("receiver's File changed by Edit (-want +got):\n%s", diff)
	}
	if !bytes.Equal(d1.Text(), v1) {
		t.Errorf("receiver's Text changed by Edit: %q", d1.Text())
	}

	// Nothing to do: the receiver itself.
	for _, edits := range [][]syntax.Edit{nil, {{Start: 3, End: 3}}, {{Full: true, Text: string(v2)}}} {
		if got, err := d2.Edit(ctx, edits); err != nil || got != d2 {
			t.Errorf("Edit(%+v) = %p, %v; want the receiver", edits, got, err)
		}
	}

	// A cancelled edit and an edit that does not fit leave no document.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := d2.Edit(cctx, []syntax.Edit{{Full: true, Text: string(v1)}}); !errors.Is(err, context.Canceled) {
		t.Errorf("Edit with a cancelled context: error = %v, want context.Canceled", err)
	}
	if _, err := d2.Edit(ctx, []syntax.Edit{{Start: 0, End: 0, Text: "x"}, {Start: 5, End: 999}}); !errors.Is(err, syntax.ErrEditRange) {
		t.Errorf("Edit past the end: error = %v, want ErrEditRange", err)
	}
	if diff := cmp.Diff(want2, d2.File()); diff != "" {
		t.Errorf("File after failed Edits mismatch (-want +got):\n%s", diff)
	}

	// A full-content replacement back to v1.
	d3, err := d2.Edit(ctx, []syntax.Edit{{Full: true, Text: string(v1)}})
	if err != nil {
		t.Fatal(err)
	}
	defer d3.Close()
	if diff := cmp.Diff(want1, d3.File()); diff != "" {
		t.Errorf("Full Edit mismatch (-want +got):\n%s", diff)
	}

	// After Close, File still answers and Edit parses from scratch.
	d3.Close()
	if diff := cmp.Diff(want1, d3.File()); diff != "" {
		t.Errorf("File after Close mismatch (-want +got):\n%s", diff)
	}
	d4, err := d3.Edit(ctx, insert)
	if err != nil {
		t.Fatal(err)
	}
	defer d4.Close()
	if diff := cmp.Diff(want2, d4.File()); diff != "" {
		t.Errorf("Edit after Close mismatch (-want +got):\n%s", diff)
	}
}

func TestApplyEdits(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		edits []syntax.Edit
		want  string
		err   error
	}{
		{"no edits", "abc", nil, "abc", nil},
		{"insert", "abc", []syntax.Edit{{Start: 1, End: 1, Text: "X"}}, "aXbc", nil},
		{"delete", "abc", []syntax.Edit{{Start: 0, End: 2}}, "c", nil},
		{"replace", "abc", []syntax.Edit{{Start: 1, End: 3, Text: "YZW"}}, "aYZW", nil},
		{"each against the previous result", "abc", []syntax.Edit{{Start: 3, End: 3, Text: "d"}, {Start: 3, End: 4, Text: "D"}, {Start: 0, End: 1}}, "bcD", nil},
		{"full then ranged", "abc", []syntax.Edit{{Start: 9, End: 9, Full: true, Text: "xy"}, {Start: 2, End: 2, Text: "z"}}, "xyz", nil},
		{"append at the end", "", []syntax.Edit{{Start: 0, End: 0, Text: "é"}}, "é", nil},
		{"end past the text", "abc", []syntax.Edit{{Start: 1, End: 4}}, "", syntax.ErrEditRange},
		{"inverted", "abc", []syntax.Edit{{Start: 2, End: 1}}, "", syntax.ErrEditRange},
		{"negative", "abc", []syntax.Edit{{Start: -1, End: 1}}, "", syntax.ErrEditRange},
		{"fails after one applied", "abc", []syntax.Edit{{Start: 0, End: 3}, {Start: 0, End: 1}}, "", syntax.ErrEditRange},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := []byte(tt.src)
			got, err := syntax.ApplyEdits(src, tt.edits)
			if !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) {
				t.Fatalf("error = %v, want %v", err, tt.err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("text (-want +got):\n%s", diff)
			}
			if string(src) != tt.src {
				t.Errorf("ApplyEdits modified its input: %q", src)
			}
		})
	}
}

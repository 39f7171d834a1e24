package syntax_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/index/syntax"
)

func TestSyntaxErrors(t *testing.T) {
	tests := []struct {
		name string
		lang syntax.Language
		src  string
		max  int
		want []syntax.ErrorPos
	}{
		{"go clean", syntax.Go, "package p\n\nfunc f() int { return 1 }\n", 0, nil},
		{"go clean with BOM and CRLF", syntax.Go, "\xef\xbb\xbfpackage p\r\n\r\nfunc f() {\r\n}\r\n", 0, nil},
		{"go missing paren", syntax.Go, "package p\n\nfunc f() {\n\tx := (1 + 2\n}\n", 0,
			[]syntax.ErrorPos{{Line: 3, Column: 12, Offset: 34, End: 34, Missing: true, Kind: ")"}}},
		{"go dangling operator", syntax.Go, "package p\n\nfunc f() {\n\tx := 1 +\n}\n", 0,
			[]syntax.ErrorPos{{Line: 3, Column: 8, Offset: 30, End: 31, Kind: "ERROR"}}},
		{"python missing paren", syntax.Python, "def f(:\n    return 1\n", 0,
			[]syntax.ErrorPos{{Line: 0, Column: 6, Offset: 6, End: 6, Missing: true, Kind: ")"}}},
		{"python unclosed call", syntax.Python, "def f():\n    return (1\n", 0,
			[]syntax.ErrorPos{{Line: 1, Column: 4, Offset: 13, End: 22, Kind: "ERROR"}}},
		{"max caps the list", syntax.Go, "package p\n\nfunc f() {\n\tx := (1 + 2\n}\n\nfunc g() {\n\ty := (3 + 4\n}\n", 1,
			[]syntax.ErrorPos{{Line: 3, Column: 12, Offset: 34, End: 34, Missing: true, Kind: ")"}}},
		{"all of them", syntax.Go, "package p\n\nfunc f() {\n\tx := (1 + 2\n}\n\nfunc g() {\n\ty := (3 + 4\n}\n", 0,
			[]syntax.ErrorPos{
				{Line: 3, Column: 12, Offset: 34, End: 34, Missing: true, Kind: ")"},
				{Line: 7, Column: 12, Offset: 61, End: 61, Missing: true, Kind: ")"},
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := syntax.SyntaxErrors(context.Background(), tc.lang, []byte(tc.src), tc.max)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("SyntaxErrors (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSyntaxErrorsDocumentOrder: several errors come in document order,
// and each position is the node's own.
func TestSyntaxErrorsDocumentOrder(t *testing.T) {
	src := "package p\n\nfunc f() {\n\tx := (1\n}\n\nfunc g() {\n\ty := [2\n}\n"
	got, err := syntax.SyntaxErrors(context.Background(), syntax.Go, []byte(src), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) < 2 {
		t.Fatalf("got %+v, want at least two errors", got)
	}
	for i := 1; i < len(got); i++ {
		if got[i].Offset < got[i-1].Offset {
			t.Errorf("errors out of order: %+v", got)
		}
	}
	for _, e := range got {
		lines := strings.Split(src, "\n")
		off := 0
		for _, l := range lines[:e.Line] {
			off += len(l) + 1
		}
		if uint32(off)+e.Column != e.Offset {
			t.Errorf("%+v: line and column give offset %d", e, uint32(off)+e.Column)
		}
	}
}

func TestSyntaxErrorsUnsupported(t *testing.T) {
	for _, lang := range []syntax.Language{"", "markdown"} {
		if _, err := syntax.SyntaxErrors(context.Background(), lang, []byte("x"), 0); !errors.Is(err, syntax.ErrUnsupported) {
			t.Errorf("%q: err = %v, want ErrUnsupported", lang, err)
		}
	}
}

func TestSyntaxErrorsCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := syntax.SyntaxErrors(ctx, syntax.Go, []byte("package p\n"), 0); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	// The pool still parses correctly afterwards.
	got, err := syntax.SyntaxErrors(context.Background(), syntax.Go, []byte("package p\n\nfunc f() {\n"), 0)
	if err != nil || len(got) == 0 {
		t.Errorf("after a cancelled parse: %+v, %v; want an error node", got, err)
	}
}

// TestSyntaxErrorsConcurrent runs the pooled parsers from many goroutines
// (for -race).
func TestSyntaxErrorsConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			src := []byte("def f(:\n    return 1\n")
			lang := syntax.Python
			if i%2 == 0 {
				src, lang = []byte("package p\n\nfunc f() {\n\tx := (1 + 2\n}\n"), syntax.Go
			}
			for range 20 {
				got, err := syntax.SyntaxErrors(context.Background(), lang, src, 0)
				if err != nil || len(got) != 1 || !got[0].Missing {
					t.Errorf("%s: %+v, %v", lang, got, err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

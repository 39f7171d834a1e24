package contextbuilder

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/index/syntax"
)

func TestSplitLines(t *testing.T) {
	tests := []struct {
		in      string
		file    string
		lines   [2]int
		invalid bool
	}{
		{"a.go", "a.go", [2]int{}, false},
		{"a.go:3-7", "a.go", [2]int{3, 7}, false},
		{"a.go:4", "a.go", [2]int{4, 4}, false},
		{"dir/x:y.txt", "dir/x:y.txt", [2]int{}, false},
		{"file:///w/a.go", "file:///w/a.go", [2]int{}, false},
		{"file:///w/a.go:2-3", "file:///w/a.go", [2]int{2, 3}, false},
		{"a.go:5-2", "", [2]int{}, true},
		{"a.go:0-2", "", [2]int{}, true},
		{"a.go:1-", "", [2]int{}, true},
		{"a.go:-", "", [2]int{}, true},
	}
	for _, tt := range tests {
		file, lines, err := splitLines(tt.in)
		if tt.invalid {
			if !errors.Is(err, ErrInvalidRequest) {
				t.Errorf("splitLines(%q) error = %v, want ErrInvalidRequest", tt.in, err)
			}
			continue
		}
		if err != nil || file != tt.file || lines != tt.lines {
			t.Errorf("splitLines(%q) = %q, %v, %v; want %q, %v", tt.in, file, lines, err, tt.file, tt.lines)
		}
	}
}

func TestMergeSpans(t *testing.T) {
	got := mergeSpans([]span{{20, 30}, {0, 5}, {4, 10}, {11, 12}, {40, 41}})
	want := []span{{0, 12}, {20, 30}, {40, 41}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(span{})); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestIdentifiers(t *testing.T) {
	got := identifiers([]byte("x := foo.Bar(2, _y) + 3e10 + x9 // ünï"))
	want := []string{"Bar", "_y", "foo", "x", "x9"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// parseGo extracts the symbols of a Go source with the index's parser.
func parseGo(t *testing.T, src string) *syntax.File {
	t.Helper()
	f, err := syntax.Parse(context.Background(), syntax.Go, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

const sliceSrc = `package p

// T is a type.
type T struct {
	A int
}

// I is an interface.
type I interface {
	M() int
}

// F does things.
func F(x int) int {
	y := x + 1
	return y
}

func (t T) M() int {
	return t.A
}
`

func TestSignatureSegments(t *testing.T) {
	syn := parseGo(t, sliceSrc)
	li := newLineIndex([]byte(sliceSrc))
	segs := signatureSegments(li, syn.Symbols, span{0, len(sliceSrc)})
	got, _ := segmentsText(li, segs, LevelSignatures)
	want := "type T struct {\n\tA int\n}\ntype I interface {\n\tM() int\n}\nfunc F(x int) int\nfunc (t T) M() int"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("SIGNATURES_ONLY (-want +got):\n%s", diff)
	}
}

func TestRegionSegments(t *testing.T) {
	li := newLineIndex([]byte(sliceSrc))
	// Bytes inside lines 14 and 19 (1-based) widen to whole lines and keep
	// a marker for the lines in between.
	a := li.lineSpan(14, 14)
	b := li.lineSpan(19, 19)
	segs := regionSegments(li, []span{{b.start + 2, b.start + 3}, {a.start + 1, a.end}})
	got, _ := segmentsText(li, segs, LevelRegion)
	want := "func F(x int) int {\n… lines 15-18 not included …\nfunc (t T) M() int {"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("TARGET_REGION_ONLY (-want +got):\n%s", diff)
	}
	if d := describeSegments(li, segs); d != "lines 14, 19" {
		t.Errorf("describeSegments = %q", d)
	}
}

func TestEnclosing(t *testing.T) {
	syn := parseGo(t, sliceSrc)
	name := func(idx []int) []string {
		var out []string
		for _, i := range idx {
			out = append(out, syn.Symbols[i].QualifiedName)
		}
		return out
	}
	at := func(s string) int { return strings.Index(sliceSrc, s) }
	tests := []struct {
		name string
		sel  span
		want []string
	}{
		{"cursor in a function body", span{at("y := x"), at("y := x")}, []string{"F"}},
		{"selection in a method", span{at("return t.A"), at("return t.A") + 5}, []string{"T.M"}},
		{"field prefers its type", span{at("A int"), at("A int") + 1}, []string{"T"}},
		{"selection across two declarations", span{at("func F"), at("return t.A")}, []string{"F", "T.M"}},
		{"package clause", span{0, 3}, nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, name(enclosing(syn.Symbols, tt.sel))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

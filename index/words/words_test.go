package words

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"Name", []string{"Name"}},
		{"net/http", []string{"net", "http"}},
		{"a::b::Trait<T>", []string{"a", "b", "Trait", "T"}},
		{"~Foo", []string{"Foo"}},
		{"$scope_1", []string{"$scope_1"}},
		{"größe.x", []string{"größe", "x"}},
		{"a.a.b", []string{"a", "b"}},
		{"+", nil},
		{"", nil},
	} {
		if diff := cmp.Diff(tc.want, Split(tc.in)); diff != "" {
			t.Errorf("Split(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
}

// TestFilterNoFalseNegatives: every word of a text is reported, whatever
// the text's size.
func TestFilterNoFalseNegatives(t *testing.T) {
	var text []byte
	for i := range 5000 {
		text = fmt.Appendf(text, "func f%d(x_%d int) { return \"s%d\" }\n", i, i*7, i*13)
		if i%499 != 0 {
			continue
		}
		// Only the sizes checked get a filter: building one per line made
		// the test quadratic (half a minute under -race) for no assertion.
		f := NewFilter(text)
		Each(text, func(w []byte) {
			if !f.MayContain([]string{string(w)}) {
				t.Fatalf("size %d: word %q reported absent", len(text), w)
			}
		})
	}
}

// TestFilterRejects: most absent words are rejected (the filter is useful,
// not only sound).
func TestFilterRejects(t *testing.T) {
	var text []byte
	for i := range 2000 {
		text = fmt.Appendf(text, "var v%d = w%d\n", i, i)
	}
	f := NewFilter(text)
	false_ := 0
	for i := range 10000 {
		if f.MayContain([]string{fmt.Sprintf("absent%d", i)}) {
			false_++
		}
	}
	if false_ > 500 {
		t.Errorf("%d of 10000 absent words reported present", false_)
	}
	if !f.MayContain(nil) || !(*Filter)(nil).MayContain([]string{"x"}) {
		t.Error("an empty word list and a nil filter must answer maybe")
	}
}

func TestFromWords(t *testing.T) {
	f := NewFilter([]byte("alpha beta"))
	g := FromWords(f.Words())
	if !g.MayContain([]string{"alpha", "beta"}) {
		t.Error("a rebuilt filter lost words")
	}
	if FromWords(make([]uint64, maxWords+1)) != nil || FromWords(nil) != nil {
		t.Error("a corrupt length must give nil")
	}
}

// TestFilterSize: a filter holds about bitsPerToken bits per distinct
// token, however often each repeats, and rejects absent words at about
// the rate the layout promises (0.2%; the test allows 0.4%).
func TestFilterSize(t *testing.T) {
	tests := []struct {
		name     string
		distinct int
		repeats  int
	}{
		{"no repeats", 3000, 1},
		{"every token five times", 3000, 5},
		{"a small file", 40, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var text []byte
			for r := range tt.repeats {
				for i := range tt.distinct {
					text = fmt.Appendf(text, "w%d ", (i*7919+r)%tt.distinct)
				}
			}
			f := NewFilter(text)
			want := filterWords(tt.distinct) * 8
			if got := f.Bytes(); got < want*9/10 || got > want*11/10 {
				t.Errorf("%d bytes for %d distinct tokens, want about %d", got, tt.distinct, want)
			}
			if tt.distinct < 1000 {
				return
			}
			falsePos := 0
			for i := range 100000 {
				if f.MayContain([]string{fmt.Sprintf("absent%d", i)}) {
					falsePos++
				}
			}
			t.Logf("%d bytes, %d of 100000 absent words reported present", f.Bytes(), falsePos)
			if falsePos > 400 {
				t.Errorf("%d of 100000 absent words reported present", falsePos)
			}
		})
	}
}

func TestEachPath(t *testing.T) {
	var got []string
	EachPath([]byte("import (\n\t\"go/constant\"\n\t`golang.org/x/net/http2`\n\t\"fmt\"\n)\n// a/b+c x.y"), func(p []byte) { got = append(got, string(p)) })
	want := []string{"go/constant", "golang.org/x/net/http2", "a/b"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("EachPath (-want +got):\n%s", diff)
	}
	f := NewFilter([]byte(`import "go/constant"`))
	if !f.MayContain([]string{"go/constant"}) || !IsPath("go/constant") || IsPath("fmt") || IsPath("a/b+c") {
		t.Error("an import path must be found whole, and only path bytes make a path")
	}
}

// TestRelativeTokens: a relative path is held as one token per last
// element, and a path ending in "." or ".." as RelativeTo("..").
func TestRelativeTokens(t *testing.T) {
	f := NewFilter([]byte(`import ("../x/vcs"; "./lib/"; "../.."; "./a/.")`))
	for _, w := range []string{RelativeTo("vcs"), RelativeTo("lib"), RelativeTo("..")} {
		if !f.MayContain([]string{w}) {
			t.Errorf("filter misses %q", w)
		}
	}
	if f.MayContain([]string{RelativeTo("http")}) {
		t.Errorf("filter holds %q, a relative path the text does not have", RelativeTo("http"))
	}
}

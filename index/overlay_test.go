package index

import (
	"testing"

	"github.com/ctxd/ctxd/index/buffer"
	"github.com/google/go-cmp/cmp"
)

func TestOverlaysAreImmutable(t *testing.T) {
	var empty *Overlays
	a := empty.with(&Document{URI: "file:///a", text: buffer.FromString("a")})
	b := a.with(&Document{URI: "file:///b", text: buffer.FromString("b")})
	c := b.without("file:///a")
	a2 := a.with(&Document{URI: "file:///a", Version: 2})

	got := map[string][]string{"empty": empty.URIs(), "a": a.URIs(), "b": b.URIs(), "c": c.URIs(), "a2": a2.URIs()}
	want := map[string][]string{"empty": nil, "a": {"file:///a"}, "b": {"file:///a", "file:///b"}, "c": {"file:///b"}, "a2": {"file:///a"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("URIs (-want +got):\n%s", diff)
	}
	if d, _ := a.Get("file:///a"); d.Version != 0 {
		t.Error("with modified the receiver")
	}
	if c.without("file:///zzz") != c {
		t.Error("without of an absent URI should return the receiver")
	}
	if _, ok := empty.Get("x"); ok || empty.Len() != 0 {
		t.Error("nil Overlays is not empty")
	}
}

func TestLineCount(t *testing.T) {
	tests := map[string]int{"": 1, "a": 1, "a\n": 2, "a\r\nb": 2, "a\rb\nc": 3, "\r\n\r\n": 3, "\n\r": 3}
	for text, want := range tests {
		if got := (&Document{text: buffer.FromString(text)}).LineCount(); got != want {
			t.Errorf("LineCount(%q) = %d, want %d", text, got, want)
		}
	}
}

func TestNormalizeURI(t *testing.T) {
	tests := []struct{ in, want string }{
		{"file:///home/u/a.go", "file:///home/u/a.go"},
		{"file:///home/u/a%20b.go", "file:///home/u/a%20b.go"},
		{"file:///home/u/a b.go", "file:///home/u/a%20b.go"},
		{"file:///c%3A/Users/x.go", "file:///C:/Users/x.go"},
		{"file:///C:/Users/x.go", "file:///C:/Users/x.go"},
		{"file:///home/u/%E4%B8%AD.go", "file:///home/u/%E4%B8%AD.go"},
		{"file:///home/u/中.go", "file:///home/u/%E4%B8%AD.go"},
		{"FILE:///x", "file:///x"},
		{"untitled:Untitled-1", "untitled:Untitled-1"},
		{"git:/x.go?ref", "git:/x.go?ref"},
		{"%zz", "%zz"},
	}
	for _, tt := range tests {
		if got := NormalizeURI(tt.in); got != tt.want {
			t.Errorf("NormalizeURI(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

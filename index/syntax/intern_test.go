package syntax

import (
	"context"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

// TestCompactShares checks that Compact makes the equal strings of two files
// parsed apart share their bytes, and changes no value of either.
func TestCompactShares(t *testing.T) {
	srcA := []byte("package a\n\nimport \"example.com/shared/util\"\n\ntype Server struct{ Handler util.Handler }\n\nfunc (s *Server) Serve() error { return util.Run(s.Handler) }\n")
	srcB := []byte("package a\n\nimport \"example.com/shared/util\"\n\ntype Client struct{ Handler util.Handler }\n\nfunc (c *Client) Serve() error { return util.Run(c.Handler) }\n")
	parse := func(src []byte) *File {
		f, err := Parse(context.Background(), Go, src)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	a, b := parse(srcA), parse(srcB)
	wantA, wantB := parse(srcA), parse(srcB)
	Compact(a, true)
	Compact(b, true)
	Compact(nil, true)
	if diff := cmp.Diff(wantA, a); diff != "" {
		t.Errorf("Compact changed the first file (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantB, b); diff != "" {
		t.Errorf("Compact changed the second file (-want +got):\n%s", diff)
	}
	same := func(what, x, y string) {
		t.Helper()
		if x != y {
			t.Fatalf("%s: %q and %q differ; the test sources are wrong", what, x, y)
		}
		if unsafe.StringData(x) != unsafe.StringData(y) {
			t.Errorf("%s %q: two copies after Compact, want one", what, x)
		}
	}
	same("package", a.Package, b.Package)
	same("import path", a.Imports[0].Path, b.Imports[0].Path)
	same("symbol name", symbolNamed(t, a, "Serve").Name, symbolNamed(t, b, "Serve").Name)
	same("field type", symbolNamed(t, a, "Handler").Type, symbolNamed(t, b, "Handler").Type)
	refA, refB := refNamed(t, a.Refs, "Run"), refNamed(t, b.Refs, "Run")
	same("ref", refA, refB)
	useA, useB := useNamed(t, a.Uses, "Run"), useNamed(t, b.Uses, "Run")
	same("use name", useA.Name, useB.Name)
	same("use from", useA.From, useB.From)
}

func symbolNamed(t *testing.T, f *File, name string) Symbol {
	t.Helper()
	for _, s := range f.Symbols {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no symbol %s", name)
	return Symbol{}
}

func refNamed(t *testing.T, refs []string, name string) string {
	t.Helper()
	for _, r := range refs {
		if r == name {
			return r
		}
	}
	t.Fatalf("no ref %s", name)
	return ""
}

func useNamed(t *testing.T, us []Use, name string) Use {
	t.Helper()
	for _, u := range us {
		if u.Name == name {
			return u
		}
	}
	t.Fatalf("no use %s", name)
	return Use{}
}

// TestInternForgetsWhenFull checks that a full shard starts again rather
// than growing without bound, and that the strings it returns stay equal
// to what was asked.
func TestInternForgetsWhenFull(t *testing.T) {
	const shardCap = 8
	tab := newInternTable(shardCap)
	for i := range internShards * shardCap * 4 {
		s := string(rune('a'+i%26)) + string(rune(0x100+i))
		if got := tab.str(s); got != s {
			t.Fatalf("str(%q) = %q", s, got)
		}
	}
	for i := range tab.shards {
		if n := len(tab.shards[i].m); n > shardCap {
			t.Errorf("shard %d holds %d strings, more than %d", i, n, shardCap)
		}
	}
	long := string(make([]byte, maxInterned+1))
	if got := tab.str(long); unsafe.StringData(got) != unsafe.StringData(long) {
		t.Error("a string longer than maxInterned was copied")
	}
}

// TestCompactTrims checks that Compact leaves no spare capacity in the
// slices it holds for long, keeps their elements, and keeps a nil slice
// nil and an empty one empty.
func TestCompactTrims(t *testing.T) {
	grown := func(ss ...string) []string { return append(make([]string, 0, 16), ss...) }
	f := &File{
		Symbols:  append(make([]Symbol, 0, 8), Symbol{Name: "T", Bases: grown("Base")}),
		Imports:  append(make([]Import, 0, 8), Import{Path: "m"}),
		Refs:     grown("a", "b"),
		Uses:     append(make([]Use, 0, 8), Use{Name: "u"}),
		Bindings: append(make([]Binding, 0, 8), Binding{Name: "b", From: "m", Orig: "*"}),
		Exports:  make([]string, 0, 4),
	}
	want := &File{
		Symbols:  []Symbol{{Name: "T", Bases: []string{"Base"}}},
		Imports:  []Import{{Path: "m"}},
		Refs:     []string{"a", "b"},
		Uses:     []Use{{Name: "u"}},
		Bindings: []Binding{{Name: "b", From: "m", Orig: "*"}},
		Exports:  []string{},
	}
	Compact(f, false)
	if diff := cmp.Diff(want, f); diff != "" {
		t.Fatalf("Compact changed values (-want +got):\n%s", diff)
	}
	if f.Namespaces != nil || f.Exports == nil {
		t.Errorf("Compact changed nil-ness: Namespaces %#v, Exports %#v", f.Namespaces, f.Exports)
	}
	for _, c := range []struct {
		what     string
		len, cap int
	}{
		{"Symbols", len(f.Symbols), cap(f.Symbols)},
		{"Bases", len(f.Symbols[0].Bases), cap(f.Symbols[0].Bases)},
		{"Imports", len(f.Imports), cap(f.Imports)},
		{"Refs", len(f.Refs), cap(f.Refs)},
		{"Uses", len(f.Uses), cap(f.Uses)},
		{"Bindings", len(f.Bindings), cap(f.Bindings)},
	} {
		// An allocation may round up to its size class: a little spare
		// is not what is tested, a doubled slice is.
		if c.cap > 2*c.len {
			t.Errorf("%s: len %d, cap %d after Compact", c.what, c.len, c.cap)
		}
	}
}

package syntax

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// usesOfSrc parses src and returns its compacted uses and bindings.
func usesOfSrc(t *testing.T, lang Language, src string) ([]Use, []Binding) {
	t.Helper()
	f, err := Parse(context.Background(), lang, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return f.Uses, f.Bindings
}

func TestRustUses(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		uses     []Use
		bindings []Binding
	}{{
		name: "use tree",
		src:  "use crate::a::{b::C as D, e::*, self};\npub use super::F;\npub(crate) use x::y;\n",
		uses: []Use{
			{Name: "C", From: "crate::a::b"},
			{Name: "F", From: "super"},
			{Name: "a", From: "crate"},
			{Name: "y", From: "x"},
		},
		bindings: []Binding{
			{Name: "D", From: "crate::a::b", Orig: "C"},
			{Name: "*", From: "crate::a::e", Orig: "*"},
			{Name: "a", From: "crate", Orig: "a"},
			{Name: "F", From: "super", Orig: "F", Export: true},
			{Name: "y", From: "x", Orig: "y", Export: true},
		},
	}, {
		name: "paths and members",
		src: `struct S { st: store::Store }
impl S {
    fn run(&self, c: &Config) {
        let x = Item::new();
        let n: Counter = make();
        util::parse("s.fake()"); // Fake::comment()
        x.go();
        n.inc();
        c.flag;
        self.st.get();
        self.helper();
        Color::Red;
        Self::other();
        local(1);
        value.method();
    }
}`,
		uses: []Use{
			{Name: "Color"},
			{Name: "Config"},
			{Name: "Counter"},
			{Name: "Item"},
			{Name: "Red", Member: true, Recv: "Color"},
			{Name: "S"},
			{Name: "Store", From: "store"},
			{Name: "flag", Member: true, Recv: "Config"},
			{Name: "get", Member: true, Recv: "store::Store"},
			{Name: "go", Member: true, Recv: "Item::new()"},
			{Name: "helper", Member: true, Recv: "S"},
			{Name: "inc", Member: true, Recv: "Counter"},
			{Name: "local"},
			{Name: "make"},
			{Name: "method", Member: true},
			{Name: "new", Member: true, Recv: "Item"},
			{Name: "other", Member: true, Recv: "S"},
			{Name: "parse", From: "util"},
			{Name: "st", Member: true, Recv: "S"},
		},
	}, {
		name: "generics, attributes, macros, trait bodies",
		src: `#[derive(Debug)]
trait Tr<T> { fn d(&self) -> T { self.m() } }
fn f<K: Clone>(k: K) -> impl Iterator<Item = u8> { println!("{}", k); g::<K>() }`,
		uses: []Use{
			{Name: "Clone"},
			{Name: "Item"},
			{Name: "Iterator"},
			{Name: "g"},
			{Name: "m", Member: true, Recv: "Tr"},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			uses, bindings := usesOfSrc(t, Rust, tt.src)
			if diff := cmp.Diff(tt.uses, uses); diff != "" {
				t.Errorf("uses (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.bindings, bindings); diff != "" {
				t.Errorf("bindings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRustTypes(t *testing.T) {
	f, err := Parse(context.Background(), Rust, []byte(`struct S { a: Vec<u8>, pub b: &'static str }
const C: u32 = 1;
fn f(x: u8) -> io::Result<Self> where Self: Sized { todo!() }
fn g() {}`))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range f.Symbols {
		got[s.QualifiedName] = s.Type
	}
	want := map[string]string{"S": "", "S.a": "Vec<u8>", "S.b": "&'static str", "C": "u32", "f": "io::Result<Self>", "g": ""}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("types (-want +got):\n%s", diff)
	}
}

// TestUsesSpans checks that Uses returns every occurrence with the span of
// its name.
func TestRustCUsesSpans(t *testing.T) {
	for _, tc := range []struct {
		lang Language
		src  string
	}{
		{Rust, "fn f() { a::b(); a::b(); x.y(); Z }"},
		{C, "int f(void) { return g(1) + p->q; }"},
		{CPP, "int f() { return ns::T::g() + s.m; }"},
	} {
		uses, err := Uses(context.Background(), tc.lang, []byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.IsSortedFunc(uses, func(a, b Use) int { return int(a.Start) - int(b.Start) }) || len(uses) == 0 {
			t.Errorf("%s: uses not in source order: %v", tc.lang, uses)
		}
		for _, u := range uses {
			if got := tc.src[u.Start:u.End]; got != u.Name {
				t.Errorf("%s: span %d-%d is %q, want %q", tc.lang, u.Start, u.End, got, u.Name)
			}
		}
	}
}

// FuzzRustCUses checks that the token scanners and the Rust and C/C++
// uses extractors never panic and give spans within the source.
func FuzzRustCUses(f *testing.F) {
	f.Add("use a::{b as c, d::*};\nfn f(x: &T) -> R { x.m(); T::n::<u8>(); r#type; 'a' }", uint8(0))
	f.Add("#include \"x.h\"\n#define F(a) a->b\nint g(struct s *p) { return ns::T::m() + p->q; } // c", uint8(1))
	f.Add("impl<T> Tr for S<T> where T: X { fn f(&self) { self.x.y() } }", uint8(0))
	f.Add("R\"d(raw)d\" u8'x' a::b::c", uint8(2))
	f.Fuzz(func(t *testing.T, src string, which uint8) {
		lang := []Language{Rust, C, CPP}[int(which)%3]
		uses, err := Uses(context.Background(), lang, []byte(src))
		if err != nil {
			return
		}
		for _, u := range uses {
			if u.Start > u.End || int(u.End) > len(src) {
				t.Fatalf("span %d-%d out of %d bytes", u.Start, u.End, len(src))
			}
		}
	})
}

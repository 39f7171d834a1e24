package syntax

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCSharpUses(t *testing.T) {
	tests := []struct {
		name, src string
		want      []Use
	}{
		{
			name: "seed service",
			src: `namespace App;
// Hidden.Call() in a comment
class S : IS {
    private readonly Repo _repo;
    S(Repo repo) { _repo = repo; }
    bool M(string pw) {
        var u = _repo.Find("Hidden");
        return Hashing.Verify(pw, u.Hash);
    }
}`,
			want: []Use{
				{Name: "Find", Member: true, Recv: "App.S!_repo"},
				{Name: "Hash", Member: true, Recv: "App.S!_repo#Find"},
				{Name: "Hashing", Recv: "App.S"},
				{Name: "IS", Recv: "App.S"},
				{Name: "Repo", Recv: "App.S"},
				{Name: "Verify", Member: true, Recv: "App.S!Hashing"},
				{Name: "_repo", Recv: "App.S"},
			},
		},
		{
			name: "types",
			src: `using X = A.B.C;
[Obsolete] class T<G> where G : IG {
    List<Dto.User>? F;
    object M(object o) => o is Bar b ? (Baz)o : typeof(Qux) ?? new Q { P = 1 } ?? default(G);
}`,
			want: []Use{
				{Name: "Bar", Recv: "T"},
				{Name: "Baz", Recv: "T"},
				{Name: "C", From: "A.B"},
				{Name: "IG", Recv: "T"},
				{Name: "List", Recv: "T"},
				{Name: "Obsolete", Recv: "T"},
				{Name: "ObsoleteAttribute", Recv: "T"},
				{Name: "P", Member: true, Recv: "Q"},
				{Name: "Q", Recv: "T"},
				{Name: "Qux", Recv: "T"},
				{Name: "User", From: "Dto"},
			},
		},
		{
			name: "locals and lambdas",
			src:  `class T { void M() { foreach (var x in Items) x.Go(); Run(y => y.Z()); int nameof = 0; } }`,
			want: []Use{
				{Name: "Go", Member: true, Recv: "T!Items#[]"},
				{Name: "Items", Recv: "T"},
				{Name: "Run", Recv: "T"},
				{Name: "Z", Member: true},
			},
		},
		{
			// A part of a partial type uses the type itself, qualified by
			// its namespace or enclosing type; "partial" inside an
			// attribute is no modifier.
			name: "partial parts",
			src: `namespace N { [Tag("partial")] public partial class P { partial struct In {} } [Tag("partial")] class Q {} }
partial class G {}`,
			want: []Use{
				{Name: "G"},
				{Name: "In", From: "N.P"},
				{Name: "P", From: "N"},
				{Name: "Tag", Recv: "N.P"},
				{Name: "Tag", Recv: "N.Q"},
				{Name: "TagAttribute", Recv: "N.P"},
				{Name: "TagAttribute", Recv: "N.Q"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse(context.Background(), CSharp, []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, f.Uses); diff != "" {
				t.Errorf("uses (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCSharpBindingsAndTypes(t *testing.T) {
	src := `global using static System.Math;
using X = A.B.C;
using A.B;
namespace N;
class T { Repo R; Task<User> Get() => null; public List<int> P { get; } }`
	f, err := Parse(context.Background(), CSharp, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	wantB := []Binding{
		{Name: "*", From: "System.Math", Orig: "static", Export: true},
		{Name: "X", From: "A.B.C"},
		{Name: "*", From: "A.B", Orig: "*"},
	}
	if diff := cmp.Diff(wantB, f.Bindings); diff != "" {
		t.Errorf("bindings (-want +got):\n%s", diff)
	}
	types := map[string]string{}
	for _, s := range f.Symbols {
		if s.Type != "" {
			types[s.QualifiedName] = s.Type
		}
	}
	wantT := map[string]string{"N.T.R": "Repo", "N.T.Get": "Task<User>", "N.T.P": "List<int>"}
	if diff := cmp.Diff(wantT, types); diff != "" {
		t.Errorf("types (-want +got):\n%s", diff)
	}
}

func TestJavaUses(t *testing.T) {
	src := `package p;
import a.b.C;
import static a.b.D.m;
// Hidden.x()
class T extends B<E> {
    C c;
    void f(Item it) { c.g().h(); it.k(); m("Hidden"); a.b.Q.s(); }
}`
	f, err := Parse(context.Background(), Java, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []Use{
		{Name: "B", Recv: "T"},
		{Name: "C", Recv: "T"},
		{Name: "E", Recv: "T"},
		{Name: "Item", Recv: "T"},
		{Name: "Q", From: "a.b"},
		{Name: "a", Recv: "T"},
		{Name: "b", From: "a"},
		{Name: "b", Member: true, Recv: "T!a"},
		{Name: "c", Recv: "T"},
		{Name: "g", Member: true, Recv: "T!c"},
		{Name: "h", Member: true, Recv: "T!c#g"},
		{Name: "k", Member: true, Recv: "Item"},
		{Name: "m", Recv: "T"},
		{Name: "s", Member: true, Recv: "T!a#b#Q"},
		{Name: "Q", Member: true, Recv: "T!a#b"},
	}
	if diff := cmp.Diff(compactUses(want), f.Uses); diff != "" {
		t.Errorf("uses (-want +got):\n%s", diff)
	}
	wantB := []Binding{{Name: "C", From: "a.b.C"}, {Name: "m", From: "a.b.D", Orig: "static"}}
	if diff := cmp.Diff(wantB, f.Bindings); diff != "" {
		t.Errorf("bindings (-want +got):\n%s", diff)
	}
}

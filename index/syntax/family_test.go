package syntax_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/index/syntax"
)

func TestFamilyOf(t *testing.T) {
	want := map[syntax.Language]syntax.Family{
		syntax.Go:         syntax.FamilyGo,
		syntax.TypeScript: syntax.FamilyECMAScript,
		syntax.TSX:        syntax.FamilyECMAScript,
		syntax.JavaScript: syntax.FamilyECMAScript,
		syntax.Python:     syntax.FamilyPython,
		syntax.Java:       syntax.FamilyJava,
		syntax.Rust:       syntax.FamilyRust,
		syntax.C:          syntax.FamilyC,
		syntax.CPP:        syntax.FamilyC,
		syntax.CSharp:     syntax.FamilyCSharp,
		"":                syntax.FamilyNone,
		"cobol":           syntax.FamilyNone,
	}
	got := map[syntax.Language]syntax.Family{"": syntax.FamilyOf(""), "cobol": syntax.FamilyOf("cobol")}
	for _, l := range syntax.Languages {
		got[l] = syntax.FamilyOf(l)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("FamilyOf mismatch (-want +got):\n%s", diff)
	}
}

// TestFamilyForPath shows where the by-path family differs from the family
// of LanguageForPath: case-insensitive extensions and ".inl".
func TestFamilyForPath(t *testing.T) {
	tests := []struct {
		path string
		want syntax.Family
		// parsed is FamilyOf(LanguageForPath(path)) when it differs.
		parsed *syntax.Family
	}{
		{path: "main.go", want: syntax.FamilyGo},
		{path: "x.ts", want: syntax.FamilyECMAScript},
		{path: "x.d.ts", want: syntax.FamilyECMAScript},
		{path: "x.tsx", want: syntax.FamilyECMAScript},
		{path: "x.mjs", want: syntax.FamilyECMAScript},
		{path: "x.jsx", want: syntax.FamilyECMAScript},
		{path: "x.pyi", want: syntax.FamilyPython},
		{path: "X.java", want: syntax.FamilyJava},
		{path: "x.cs", want: syntax.FamilyCSharp},
		{path: "lib.rs", want: syntax.FamilyRust},
		{path: "x.c", want: syntax.FamilyC},
		{path: "x.h", want: syntax.FamilyC},
		{path: "x.C", want: syntax.FamilyC},
		{path: "x.hpp", want: syntax.FamilyC},
		{path: "x.ipp", want: syntax.FamilyC},
		{path: `C:\src\x.cs`, want: syntax.FamilyCSharp},
		{path: "README.md", want: syntax.FamilyNone},
		{path: "Makefile", want: syntax.FamilyNone},
		{path: "dir.go/file", want: syntax.FamilyNone},
		{path: `dir.go\file`, want: syntax.FamilyNone},
		{path: "", want: syntax.FamilyNone},
		// Known to a family, indexed as text.
		{path: "x.GO", want: syntax.FamilyGo, parsed: ptr(syntax.FamilyNone)},
		{path: "X.PY", want: syntax.FamilyPython, parsed: ptr(syntax.FamilyNone)},
		{path: "x.H", want: syntax.FamilyC, parsed: ptr(syntax.FamilyNone)},
		{path: "x.Ts", want: syntax.FamilyECMAScript, parsed: ptr(syntax.FamilyNone)},
		{path: "x.inl", want: syntax.FamilyC, parsed: ptr(syntax.FamilyNone)},
		{path: "x.INL", want: syntax.FamilyC, parsed: ptr(syntax.FamilyNone)},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, syntax.FamilyForPath(tt.path)); diff != "" {
				t.Errorf("FamilyForPath(%q) mismatch (-want +got):\n%s", tt.path, diff)
			}
			parsed := tt.want
			if tt.parsed != nil {
				parsed = *tt.parsed
			}
			if diff := cmp.Diff(parsed, syntax.FamilyOf(syntax.LanguageForPath(tt.path))); diff != "" {
				t.Errorf("FamilyOf(LanguageForPath(%q)) mismatch (-want +got):\n%s", tt.path, diff)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestFamilyNames(t *testing.T) {
	type props struct {
		Name               string
		SamePackageVisible bool
	}
	want := map[syntax.Family]props{
		syntax.FamilyNone:       {"", false},
		syntax.FamilyGo:         {"go", true},
		syntax.FamilyECMAScript: {"ecmascript", false},
		syntax.FamilyPython:     {"python", false},
		syntax.FamilyJava:       {"java", true},
		syntax.FamilyCSharp:     {"csharp", false},
		syntax.FamilyRust:       {"rust", false},
		syntax.FamilyC:          {"c", false},
	}
	got := map[syntax.Family]props{}
	for f := range want {
		got[f] = props{f.String(), f.SamePackageVisible()}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("family names mismatch (-want +got):\n%s", diff)
	}
}

// TestSymbolKindSets lists the members of every kind set, and the
// combinations callers build from them.
func TestSymbolKindSets(t *testing.T) {
	type sets struct {
		Callable, Type, Scope, Container bool
		// TypeLike is the context builder's set: types and scopes both
		// slice as a header followed by members.
		TypeLike bool
	}
	want := map[syntax.SymbolKind]sets{
		syntax.Function:    {Callable: true, Container: true},
		syntax.Method:      {Callable: true, Container: true},
		syntax.Constructor: {Callable: true, Container: true},
		syntax.Class:       {Type: true, Container: true, TypeLike: true},
		syntax.Interface:   {Type: true, Container: true, TypeLike: true},
		syntax.Struct:      {Type: true, Container: true, TypeLike: true},
		syntax.Enum:        {Type: true, Container: true, TypeLike: true},
		syntax.TypeAlias:   {Type: true, TypeLike: true},
		syntax.Const:       {},
		syntax.Var:         {},
		syntax.Field:       {},
		syntax.Property:    {},
		syntax.Namespace:   {Scope: true, Container: true, TypeLike: true},
		syntax.Module:      {Scope: true, Container: true, TypeLike: true},
		syntax.EnumMember:  {Container: true},
	}
	got := map[syntax.SymbolKind]sets{}
	for _, k := range syntax.SymbolKinds {
		got[k] = sets{
			Callable:  k.IsCallable(),
			Type:      k.IsType(),
			Scope:     k.IsScope(),
			Container: k.IsContainer(),
			TypeLike:  k.IsType() || k.IsScope(),
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("kind sets mismatch (-want +got):\n%s", diff)
	}
}

package syntax

import (
	"bytes"
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFlattenPaths checks that the C walk, in one batch or in many, and
// go-tree-sitter's cursor flatten trees alike.
func TestFlattenPaths(t *testing.T) {
	tables := map[Language]*flatTable{
		CSharp: csTable(), Java: jvTable(), Python: pyTablesOnce(),
		TypeScript: esTablesFor(TypeScript), TSX: esTablesFor(TSX), JavaScript: esTablesFor(JavaScript),
	}
	if !flatNodeOK {
		t.Fatal("unknown go-tree-sitter node layout: the fast walk is off")
	}
	for lang, tab := range tables {
		s, err := lookup(lang)
		if err != nil {
			t.Fatal(err)
		}
		for i, src := range append(goldenSamples(t, lang), []byte(""), []byte("(((("), []byte("\x00}")) {
			tree, err := s.parse(context.Background(), nil, src)
			if err != nil {
				t.Fatal(err)
			}
			root := tree.RootNode()
			for _, named := range []bool{false, true} {
				slow := flattenSlow[uint8, uint8](root, tab, named)
				for _, size := range []int{1, 7, len(src)/3 + 64} {
					fast, ok := flattenFast[uint8, uint8](root, tab, named, size)
					if !ok {
						t.Fatalf("%s #%d: fast walk failed", lang, i)
					}
					if diff := cmp.Diff(slow, fast, cmp.AllowUnexported(flatNode[uint8, uint8]{})); diff != "" {
						t.Errorf("%s #%d named=%v size=%d: slow (-) vs fast (+):\n%s", lang, i, named, size, diff)
					}
				}
				for j, n := range slow {
					if n.next <= int32(j) || int(n.next) > len(slow) || n.parent >= int32(j) || (j > 0) != (n.parent >= 0) {
						t.Fatalf("%s #%d: bad node %d: %+v", lang, i, j, n)
					}
				}
			}
			tree.Close()
		}
	}
}

// BenchmarkUsesExtract measures the uses extractors on a tree parsed once:
// the testdata sources of each language, concatenated and repeated.
func BenchmarkUsesExtract(b *testing.B) {
	for _, lang := range []Language{CSharp, Java, TypeScript, JavaScript, Python} {
		b.Run(string(lang), func(b *testing.B) {
			src := bytes.Repeat(bytes.Join(goldenSamples(b, lang), []byte("\n")), 20)
			f0, err := Parse(context.Background(), lang, src)
			if err != nil {
				b.Fatal(err)
			}
			s, err := lookup(lang)
			if err != nil {
				b.Fatal(err)
			}
			tree, err := s.parse(context.Background(), nil, src)
			if err != nil {
				b.Fatal(err)
			}
			defer tree.Close()
			fn := usesFor(lang)
			b.SetBytes(int64(len(src)))
			b.ResetTimer()
			for b.Loop() {
				fn(tree.RootNode(), src, &File{Language: lang, Symbols: slices.Clone(f0.Symbols)})
			}
		})
	}
}

// FuzzFlatten checks, for the languages whose uses extractors read a
// flattened tree (C# and Java have no fuzz target of their own), that the
// extractors do not crash and that the C walk and go-tree-sitter's cursor
// agree.
func FuzzFlatten(f *testing.F) {
	langs := []Language{CSharp, Java, Python, TypeScript, TSX, JavaScript}
	for i, lang := range langs {
		ar := goldenSamples(f, lang)
		f.Add(uint8(i), ar[0])
	}
	f.Add(uint8(0), []byte("class C { void M() { var x = new C(); x.M(); } }"))
	f.Add(uint8(1), []byte("class C { void m() { C x = new C(); x.m(); } }"))
	f.Fuzz(func(t *testing.T, li uint8, src []byte) {
		lang := langs[int(li)%len(langs)]
		if _, err := Parse(context.Background(), lang, src); err != nil {
			t.Fatal(err)
		}
		var tab *flatTable
		switch lang {
		case CSharp:
			tab = csTable()
		case Java:
			tab = jvTable()
		case Python:
			tab = pyTablesOnce()
		default:
			tab = esTablesFor(lang)
		}
		s, err := lookup(lang)
		if err != nil {
			t.Fatal(err)
		}
		tree, err := s.parse(context.Background(), nil, src)
		if err != nil {
			t.Fatal(err)
		}
		defer tree.Close()
		for _, named := range []bool{false, true} {
			slow := flattenSlow[uint8, uint8](tree.RootNode(), tab, named)
			fast, ok := flattenFast[uint8, uint8](tree.RootNode(), tab, named, len(src)%13+1)
			if !ok {
				t.Fatal("fast walk failed")
			}
			if diff := cmp.Diff(slow, fast, cmp.AllowUnexported(flatNode[uint8, uint8]{})); diff != "" {
				t.Fatalf("%s named=%v: slow (-) vs fast (+):\n%s", lang, named, diff)
			}
		}
	})
}

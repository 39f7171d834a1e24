package syntax

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEditParsesIncrementally checks, through the Doc's parse hook rather
// than timing, which way Edit reparsed: a tree with syntax errors is edited
// and reparsed incrementally like any other, and only a result with errors
// is parsed again from scratch (tree-sitter's recovery from an error
// depends on the subtrees it could reuse; see Doc.Edit). Every File equals
// Parse's.
func TestEditParsesIncrementally(t *testing.T) {
	at := func(src, marker string) int {
		i := strings.Index(src, marker)
		if i < 0 {
			t.Fatalf("%q not in %q", marker, src)
		}
		return i
	}
	const goBroken = "package p\n\nfunc A( {\n}\n\nfunc B() {}\n"
	const goClean = "package p\n\nfunc A() {\n}\n\nfunc B() {}\n"
	const tsBroken = "function a(x: number { return x }\nexport class C {\n  m(): void {}\n}\n"
	tests := []struct {
		name      string
		lang      Language
		old       string
		oldErrors bool
		edits     func(old string) []Edit
		text      string // after the edits
		want      parseKind
	}{
		{
			name: "go: an edit that fixes the error", lang: Go, old: goBroken, oldErrors: true,
			edits: func(s string) []Edit { i := at(s, "( {") + 1; return []Edit{{Start: i, End: i, Text: ")"}} },
			text:  goClean,
			want:  parsedIncremental,
		},
		{
			name: "go: two edits, one inside the error region, that fix it", lang: Go, old: goBroken, oldErrors: true,
			edits: func(s string) []Edit {
				i := at(s, "( {") + 1
				// The second edit's offsets are in the text the first
				// left, 6 bytes longer.
				j := at(s, "func B") + 5 + len("x int)")
				return []Edit{{Start: i, End: i, Text: "x int)"}, {Start: j, End: j + 1, Text: "Renamed"}}
			},
			text: "package p\n\nfunc A(x int) {\n}\n\nfunc Renamed() {}\n",
			want: parsedIncremental,
		},
		{
			name: "go: a full-content change that fixes the error", lang: Go, old: goBroken, oldErrors: true,
			edits: func(string) []Edit { return []Edit{{Full: true, Text: goClean}} },
			text:  goClean,
			want:  parsedIncremental,
		},
		{
			name: "go: an edit in a clean file", lang: Go, old: goClean,
			edits: func(s string) []Edit { i := at(s, "B()"); return []Edit{{Start: i, End: i + 1, Text: "Bee"}} },
			text:  "package p\n\nfunc A() {\n}\n\nfunc Bee() {}\n",
			want:  parsedIncremental,
		},
		{
			name: "go: an edit that makes an error", lang: Go, old: goClean,
			edits: func(s string) []Edit { i := at(s, "()"); return []Edit{{Start: i + 1, End: i + 2}} },
			text:  "package p\n\nfunc A( {\n}\n\nfunc B() {}\n",
			want:  parsedRecovered,
		},
		{
			name: "go: an edit away from an error that stays", lang: Go, old: goBroken, oldErrors: true,
			edits: func(s string) []Edit { i := at(s, "B()"); return []Edit{{Start: i, End: i + 1, Text: "Bee"}} },
			text:  "package p\n\nfunc A( {\n}\n\nfunc Bee() {}\n",
			want:  parsedRecovered,
		},
		{
			name: "typescript: an edit that fixes the error", lang: TypeScript, old: tsBroken, oldErrors: true,
			edits: func(s string) []Edit { i := at(s, " {"); return []Edit{{Start: i, End: i, Text: ")"}} },
			text:  "function a(x: number) { return x }\nexport class C {\n  m(): void {}\n}\n",
			want:  parsedIncremental,
		},
		{
			name: "typescript: an edit that fixes the error and one after it", lang: TypeScript, old: tsBroken, oldErrors: true,
			edits: func(s string) []Edit {
				i := at(s, " {")
				// The second edit's offset is in the text the first left.
				j := at(s, "m()") + 1 + len(")")
				return []Edit{{Start: i, End: i, Text: ")"}, {Start: j, End: j, Text: "ethod"}}
			},
			text: "function a(x: number) { return x }\nexport class C {\n  method(): void {}\n}\n",
			want: parsedIncremental,
		},
	}
	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old, err := NewDoc(ctx, tt.lang, []byte(tt.old))
			if err != nil {
				t.Fatal(err)
			}
			defer old.Close()
			if old.File().HasErrors != tt.oldErrors {
				t.Fatalf("old text has errors: %v, want %v", old.File().HasErrors, tt.oldErrors)
			}
			edits := tt.edits(tt.old)
			d, err := old.Edit(ctx, edits)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			if d.how != tt.want {
				t.Errorf("parse = %d, want %d (1 incremental, 2 incremental then from scratch)", d.how, tt.want)
			}
			text, err := ApplyEdits([]byte(tt.old), edits)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(mustParse(t, tt.lang, text), d.File()); diff != "" {
				t.Errorf("File (-Parse +Edit):\n%s", diff)
			}
			if d.File().HasErrors != (tt.want == parsedRecovered) {
				t.Errorf("new text has errors: %v", d.File().HasErrors)
			}
			if diff := cmp.Diff(tt.text, string(text)); diff != "" {
				t.Errorf("text (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEditTreePoints checks that an edit reaches tree-sitter with its real
// points: in the edited tree, before any reparse, a node after an edit
// that adds lines has moved down by them. go-tree-sitter's Tree.Edit, the
// fallback, leaves it where it was (it passes the old end point as the new
// one); the reparse gives the same File either way.
func TestEditTreePoints(t *testing.T) {
	if !treeOK {
		t.Skip("the C tree is out of reach: only the Tree.Edit path runs")
	}
	ctx := context.Background()
	src := []byte("package p\n\nfunc A() {}\n")
	e := Edit{Start: 11, End: 11, Text: "// x\n\n"}
	next := splice(src, e)
	want := mustParse(t, Go, next)
	tests := []struct {
		name   string
		direct bool
		row    uint32 // of func A in the edited tree
	}{
		{"ts_tree_edit", true, 4},
		{"Tree.Edit", false, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			directEdit.Store(tt.direct)
			defer directEdit.Store(true)
			d, err := NewDoc(ctx, Go, src)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			tree := d.tree.Copy()
			defer tree.Close()
			editTree(tree, inputEdit(src, next, e))
			fn := tree.RootNode().NamedChild(1)
			if fn.Type() != "function_declaration" || fn.StartByte() != 17 {
				t.Fatalf("second top-level node = %s at byte %d, want the function at 17", fn.Type(), fn.StartByte())
			}
			if got := fn.StartPoint(); got.Row != tt.row || got.Column != 0 {
				t.Errorf("edited tree: func A at %d:%d, want %d:0", got.Row, got.Column, tt.row)
			}
			nd, err := d.Edit(ctx, []Edit{e})
			if err != nil {
				t.Fatal(err)
			}
			defer nd.Close()
			if diff := cmp.Diff(want, nd.File()); diff != "" {
				t.Errorf("File (-Parse +Edit):\n%s", diff)
			}
		})
	}
}

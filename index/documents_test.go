package index

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"weak"

	"github.com/ctxd/ctxd/index/syntax"
	"github.com/google/go-cmp/cmp"
)

// spliceAll is the test's own reading of a list of edits, independent of
// syntax.ApplyEdits: each replaces a byte range of the previous result.
func spliceAll(text string, edits []Edit) string {
	for _, e := range edits {
		if e.Full {
			text = e.Text
			continue
		}
		text = text[:e.Start] + e.Text + text[e.End:]
	}
	return text
}

// ins, del and rep build edits at the first occurrence of a marker in the
// text they will apply to.
func ins(text, marker, s string) Edit {
	i := strings.Index(text, marker)
	if i < 0 {
		panic("marker " + marker + " not in " + text)
	}
	return Edit{Start: i, End: i, Text: s}
}

func del(text, marker string) Edit {
	i := strings.Index(text, marker)
	if i < 0 {
		panic("marker " + marker + " not in " + text)
	}
	return Edit{Start: i, End: i + len(marker)}
}

func rep(text, marker, s string) Edit {
	e := del(text, marker)
	e.Text = s
	return e
}

// TestChangeDocumentMatchesParse types sequences of byte edits into an
// open document of a root and checks after every change that the
// document's text is the edited text and that its symbols, uses and the
// rest of its extraction, in the overlay and in the root, are exactly
// those of a from-scratch parse of that text.
func TestChangeDocumentMatchesParse(t *testing.T) {
	// A step is one didChange: edits made from the text before it, each
	// against the text the previous left (the function sees that text).
	type step func(text string) []Edit
	one := func(f func(string) Edit) step { return func(s string) []Edit { return []Edit{f(s)} } }
	tests := []struct {
		name  string
		path  string
		text  string
		steps []step
		// errors, when set, says which steps leave a text with syntax
		// errors: the cases that edit inside and around errors check
		// they do.
		errors []bool
	}{
		{
			name: "go: inserts, deletes and replacements",
			path: "a.go",
			text: "package a\n\n// A is first.\nfunc A() int { return 1 }\n\ntype T struct{ X int }\n",
			steps: []step{
				one(func(s string) Edit { return ins(s, "\ntype T", "\nfunc B(t T) int { return A() + t.X }\n") }),
				one(func(s string) Edit { return rep(s, "func A()", "func Alpha()") }),
				one(func(s string) Edit { return rep(s, "return A()", "return Alpha()") }),
				one(func(s string) Edit { return del(s, "// A is first.\n") }),
				one(func(s string) Edit { return ins(s, "X int", "Y, ") }),
				one(func(s string) Edit { return Edit{Start: len(s), End: len(s), Text: "\nvar V = T{}\n"} }),
			},
		},
		{
			name: "go: multi-edit changes, each against the previous result",
			path: "b.go",
			text: "package b\n\nfunc One() {}\n\nfunc Two() {}\n",
			steps: []step{
				func(s string) []Edit {
					e1 := rep(s, "One", "Uno")
					s = spliceAll(s, []Edit{e1})
					e2 := rep(s, "Two", "Dos")
					s = spliceAll(s, []Edit{e2})
					e3 := Edit{Start: len(s), End: len(s), Text: "\nfunc Tres() { Uno(); Dos() }\n"}
					return []Edit{e1, e2, e3}
				},
				func(s string) []Edit {
					// Overlapping: the second edit rewrites what the first
					// inserted.
					e1 := ins(s, "func Dos", "func Cuatro() {}\n\n")
					s = spliceAll(s, []Edit{e1})
					return []Edit{e1, rep(s, "Cuatro", "Four")}
				},
				func(string) []Edit { return nil },
			},
		},
		{
			name: "go: edits that make an error, edit inside it, then fix it",
			path: "c.go",
			text: "package c\n\nfunc A(x int) int {\n\treturn x\n}\n\nfunc B() {}\n",
			steps: []step{
				one(func(s string) Edit { return del(s, ") int {") }),                   // "func A(x int\n\treturn x": an error
				one(func(s string) Edit { return ins(s, "x int\n", "y, ") }),            // inside the error region
				one(func(s string) Edit { return rep(s, "func B() {}", "func B( {}") }), // a second error
				one(func(s string) Edit { return ins(s, "y, x int", "z ") }),            // still broken
				func(s string) []Edit { // both fixed in one change
					e1 := ins(s, "\n\treturn x", ") int {")
					s = spliceAll(s, []Edit{e1})
					return []Edit{e1, rep(s, "B( {}", "B() {}")}
				},
			},
		},
		{
			name: "go: a full-content change among ranged ones",
			path: "d.go",
			text: "package d\n\nfunc A() {}\n",
			steps: []step{
				func(string) []Edit {
					return []Edit{{Start: 0, End: 1, Text: "ignored"}, {Full: true, Text: "package d\n\nfunc Full() {}\n"}, {Start: 10, End: 10, Text: "// Doc.\n"}}
				},
				func(s string) []Edit { return []Edit{{Full: true, Text: s + "\nfunc Z( {}\n"}} },
			},
		},
		{
			name: "typescript: inserts, deletes, replacements and multi-edit changes",
			path: "src/m.ts",
			text: "import { x } from './x';\n\nexport function f(a: number): number {\n  return a + x;\n}\n\nexport class C {\n  m(): void {}\n}\n",
			steps: []step{
				one(func(s string) Edit { return ins(s, "  m()", "  static k = 1;\n") }),
				one(func(s string) Edit { return rep(s, "f(a: number)", "g(a: number, b = 2)") }),
				one(func(s string) Edit { return del(s, "import { x } from './x';\n") }),
				func(s string) []Edit {
					e1 := ins(s, "export class", "export interface I { n: string }\n\n")
					s = spliceAll(s, []Edit{e1})
					e2 := rep(s, "class C {", "class C implements I {")
					s = spliceAll(s, []Edit{e2})
					return []Edit{e1, e2, ins(s, "  m()", "  n = '';\n")}
				},
			},
		},
		{
			name: "typescript: an error made, edited inside, and fixed",
			path: "src/e.ts",
			text: "export function f(a: number): number {\n  return a;\n}\n\nexport const k = f(1);\n\nclass D {}\n",
			steps: []step{
				one(func(s string) Edit { return del(s, ")") }),                        // f(a: number: number {
				one(func(s string) Edit { return ins(s, "a: number", "b: string, ") }), // inside the error region
				one(func(s string) Edit { return ins(s, "class D {}", "`") }),          // an unterminated template
				one(func(s string) Edit { return ins(s, ": number {", ")") }),          // one fixed
				one(func(s string) Edit { return del(s, "`") }),                        // all fixed
				one(func(s string) Edit { return rep(s, "const k = f(1)", "let k = f(\"1\", 1)") }),
			},
			errors: []bool{true, true, true, true, false, false},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeTree(t, "-- "+tt.path+" --\n// on disk\n")
			x, _ := indexDir(t, dir, Options{})
			ctx := testCtx(t)
			uri := PathToURI(filepath.Join(dir, filepath.FromSlash(tt.path)))
			lang := syntax.LanguageForPath(tt.path)
			x.OpenDocument(ctx, uri, string(lang), 1, []byte(tt.text))
			text := tt.text
			check := func(when string) {
				t.Helper()
				snap := x.Snapshot()
				d, ok := snap.Document(uri)
				if !ok {
					t.Fatalf("%s: document not open", when)
				}
				if diff := cmp.Diff(text, string(d.Content())); diff != "" {
					t.Fatalf("%s: text (-want +got):\n%s", when, diff)
				}
				want, err := syntax.Parse(ctx, lang, []byte(text))
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, d.Syntax()); diff != "" {
					t.Fatalf("%s: overlay extraction (-Parse +document):\n%s\ntext:\n%s", when, diff, text)
				}
				f := mustFile(t, snap.Roots()[0], tt.path)
				if diff := cmp.Diff(want, f.Syntax()); diff != "" {
					t.Fatalf("%s: root file extraction (-Parse +root):\n%s", when, diff)
				}
			}
			check("after open")
			for i, st := range tt.steps {
				edits := st(text)
				if _, err := x.ChangeDocument(ctx, uri, int32(i+2), edits); err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				text = spliceAll(text, edits)
				check("after step " + itoa3(i))
				if d, _ := x.Snapshot().Document(uri); tt.errors != nil && d.Syntax().HasErrors != tt.errors[i] {
					t.Errorf("step %d: text has errors: %v, want %v", i, d.Syntax().HasErrors, tt.errors[i])
				}
			}
		})
	}
}

// TestDocumentLifecycle follows one document through the states of an
// editor's document sync: versions, out of sync and its repair, save,
// close, and what the overlay, the root and the snapshot version show.
func TestDocumentLifecycle(t *testing.T) {
	dir := writeTree(t, "-- a.go --\npackage a\n\nfunc Disk() {}\n")
	x, r0 := indexDir(t, dir, Options{})
	ctx := testCtx(t)
	uri := PathToURI(filepath.Join(dir, "a.go"))
	diskSHA := mustFile(t, r0, "a.go").SHA256()

	type state struct {
		Version   int32
		Text      string
		Saved     bool
		OutOfSync bool
		// Root* is what the root holds for a.go.
		RootVersion int32
		RootText    string
		RootSymbols string
	}
	get := func() state {
		t.Helper()
		snap := x.Snapshot()
		d, ok := snap.Document(uri)
		if !ok {
			t.Fatal("a.go is not open")
		}
		r := snap.Roots()[0]
		text, err := r.ReadText("a.go")
		if err != nil {
			t.Fatal(err)
		}
		f := mustFile(t, r, "a.go")
		return state{d.Version, string(d.Content()), d.Saved, d.OutOfSync, f.Version, string(text), names(f)}
	}
	expect := func(when string, want state) {
		t.Helper()
		if diff := cmp.Diff(want, get()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", when, diff)
		}
	}

	x.OpenDocument(ctx, uri, "go", 1, []byte("package a\n\nfunc A() {}\n"))
	expect("open", state{1, "package a\n\nfunc A() {}\n", false, false, 1, "package a\n\nfunc A() {}\n", "A"})

	if _, err := x.ChangeDocument(ctx, uri, 2, []Edit{{Start: 16, End: 17, Text: "Bee"}}); err != nil {
		t.Fatal(err)
	}
	expect("change", state{2, "package a\n\nfunc Bee() {}\n", false, false, 2, "package a\n\nfunc Bee() {}\n", "Bee"})
	inSync := state{2, "package a\n\nfunc Bee() {}\n", false, false, 2, "package a\n\nfunc Bee() {}\n", "Bee"}

	// A save changes the overlay only: the snapshot version stays.
	v := x.Snapshot().Version()
	if err := x.SaveDocument(uri); err != nil {
		t.Fatal(err)
	}
	saved := inSync
	saved.Saved = true
	expect("save", saved)
	if got := x.Snapshot().Version(); got != v {
		t.Errorf("save moved the snapshot version %d -> %d", v, got)
	}

	// A stale version changes nothing, not even the snapshot.
	before := x.Snapshot()
	if _, err := x.ChangeDocument(ctx, uri, 1, []Edit{{Full: true, Text: "stale"}}); !errors.Is(err, ErrStaleVersion) {
		t.Errorf("stale change: error = %v, want ErrStaleVersion", err)
	}
	if x.Snapshot() != before {
		t.Error("a stale change published a snapshot")
	}

	// An edit that does not fit: out of sync at version 3, the text as it
	// was before the change (its first edit is not applied either), and
	// the root keeps the last text in sync, at its version.
	d, err := x.ChangeDocument(ctx, uri, 3, []Edit{{Start: 0, End: 0, Text: "x"}, {Start: 5, End: 999}})
	if !errors.Is(err, ErrOutOfSync) || !errors.Is(err, syntax.ErrEditRange) || d == nil || !d.OutOfSync {
		t.Fatalf("change past the end = %+v, %v; want an out-of-sync document and ErrOutOfSync", d, err)
	}
	outOfSync := state{3, "package a\n\nfunc Bee() {}\n", false, true, 2, "package a\n\nfunc Bee() {}\n", "Bee"}
	expect("bad edit", outOfSync)
	if got := x.Snapshot().Version(); got != v {
		t.Errorf("going out of sync moved the snapshot version %d -> %d", v, got)
	}

	// Ranged edits cannot repair it: they are positions in a text the
	// index does not have.
	if _, err := x.ChangeDocument(ctx, uri, 4, []Edit{{Start: 0, End: 0, Text: "y"}}); !errors.Is(err, ErrOutOfSync) {
		t.Errorf("ranged change out of sync: error = %v, want ErrOutOfSync", err)
	}
	outOfSync.Version = 4
	expect("ranged change out of sync", outOfSync)

	// A full-content change does; the edits before it are skipped, even
	// one that does not fit, and the ones after it apply to its text.
	if _, err := x.ChangeDocument(ctx, uri, 5, []Edit{{Start: 50, End: 1}, {Full: true, Text: "package a\n\nfunc F() {}\n"}, {Start: 17, End: 17, Text: "ull"}}); err != nil {
		t.Fatalf("repair: %v", err)
	}
	expect("repair", state{5, "package a\n\nfunc Full() {}\n", false, false, 5, "package a\n\nfunc Full() {}\n", "Full"})

	// Close: the disk is the truth again.
	if err := x.CloseDocument(ctx, uri); err != nil {
		t.Fatal(err)
	}
	if _, ok := x.Snapshot().Document(uri); ok {
		t.Error("a.go still open after close")
	}
	if f := mustFile(t, x.Snapshot().Roots()[0], "a.go"); f.Open || f.SHA256() != diskSHA || names(f) != "Disk" {
		t.Errorf("after close: %+v symbols %s; want the disk state", f, names(f))
	}

	// Not open.
	if _, err := x.ChangeDocument(ctx, uri, 9, nil); !errors.Is(err, ErrNotOpen) {
		t.Errorf("change after close: error = %v, want ErrNotOpen", err)
	}
	if err := x.SaveDocument(uri); !errors.Is(err, ErrNotOpen) {
		t.Errorf("save after close: error = %v, want ErrNotOpen", err)
	}
	if err := x.CloseDocument(ctx, uri); !errors.Is(err, ErrNotOpen) {
		t.Errorf("close after close: error = %v, want ErrNotOpen", err)
	}
}

// TestDocumentsOutsideRoots: the index holds every open document, in a
// root or not, so that its status lists them all; only file documents
// inside a root reach the root, an out-of-sync one in its last state in
// sync, also when the root is added after the document went out of sync.
func TestDocumentsOutsideRoots(t *testing.T) {
	ctx := testCtx(t)
	x := New(Options{CacheDir: "off"})
	t.Cleanup(func() { x.Close() })
	dir := writeTree(t, "-- w/b.go --\npackage w\n\nfunc Disk() {}\n")
	bURI := PathToURI(filepath.Join(dir, "w", "b.go"))

	x.OpenDocument(ctx, "untitled:Untitled-1", "go", 1, []byte("package u\n"))
	x.OpenDocument(ctx, bURI, "go", 1, []byte("package w\n\nfunc Synced() {}\n"))
	if _, err := x.ChangeDocument(ctx, bURI, 2, []Edit{{Start: 3, End: 1}}); !errors.Is(err, ErrOutOfSync) {
		t.Fatalf("error = %v, want ErrOutOfSync", err)
	}
	snap := x.Snapshot()
	if diff := cmp.Diff([]string{bURI, "untitled:Untitled-1"}, snap.Documents().URIs()); diff != "" {
		t.Errorf("documents (-want +got):\n%s", diff)
	}
	if snap.Version() != 0 {
		t.Errorf("documents outside every root moved the snapshot version to %d", snap.Version())
	}
	if u, _ := snap.Document("untitled:Untitled-1"); u.Syntax() != nil {
		t.Error("an untitled document was parsed")
	}
	if b, _ := snap.Document(bURI); b.Syntax() == nil || b.Syntax().Symbols[0].Name != "Synced" {
		t.Errorf("out-of-sync document's extraction = %+v, want its last text's", b.Syntax())
	}

	w := filepath.Join(dir, "w")
	x.SetRoots([]Root{{URI: PathToURI(w), Name: "w", Dir: w}})
	snap, err := x.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	f := mustFile(t, snap.Roots()[0], "b.go")
	if !f.Open || f.Version != 1 || names(f) != "Synced" {
		t.Errorf("b.go in the new root = %+v symbols %s; want the open document at version 1", f, names(f))
	}
	if b, _ := snap.Document(bURI); !b.OutOfSync || b.Version != 2 {
		t.Errorf("b.go overlay = %+v; want out of sync at version 2", b)
	}
}

// TestSnapshotsKeepTheirDocuments: an edit publishes new values and
// leaves the snapshot a reader holds as it was.
func TestSnapshotsKeepTheirDocuments(t *testing.T) {
	ctx := context.Background()
	x := New(Options{CacheDir: "off"})
	t.Cleanup(func() { x.Close() })
	uri := "file:///nowhere/a.go"
	x.OpenDocument(ctx, uri, "go", 1, []byte("package a\n\nfunc A() {}\n"))
	s1 := x.Snapshot()
	d1, _ := s1.Document(uri)
	for v, edits := range [][]Edit{{{Start: 16, End: 16, Text: "B"}}, {{Full: true, Text: "package a\n"}}} {
		if _, err := x.ChangeDocument(ctx, uri, int32(v+2), edits); err != nil {
			t.Fatal(err)
		}
	}
	if err := x.SaveDocument(uri); err != nil {
		t.Fatal(err)
	}
	if err := x.CloseDocument(ctx, uri); err != nil {
		t.Fatal(err)
	}
	got, ok := s1.Document(uri)
	if !ok || got != d1 || got.Version != 1 || got.Saved || string(got.Content()) != "package a\n\nfunc A() {}\n" {
		t.Fatalf("the first snapshot's document changed: %+v", got)
	}
	want, _ := syntax.Parse(ctx, syntax.Go, []byte("package a\n\nfunc A() {}\n"))
	if diff := cmp.Diff(want, got.Syntax()); diff != "" {
		t.Errorf("the first snapshot's extraction changed (-want +got):\n%s", diff)
	}
	if x.Snapshot().Documents().Len() != 0 {
		t.Error("document still open")
	}
}

// holdParser installs a parse hook that blocks the background parser
// before each parse until release is called, and records the texts it
// parsed. waitParse returns once the parser is held at its first parse.
// The tests below order events with it instead of timing anything.
func holdParser(t *testing.T) (parses func() []string, waitParse, release func()) {
	t.Helper()
	var mu sync.Mutex
	var texts []string
	gate, held := make(chan struct{}), make(chan struct{})
	var once, first sync.Once
	h := func(_ string, text []byte) {
		first.Do(func() { close(held) })
		<-gate
		mu.Lock()
		texts = append(texts, string(text))
		mu.Unlock()
	}
	parseHook.Store(&h)
	release = func() { once.Do(func() { close(gate) }) }
	t.Cleanup(func() {
		release()
		parseHook.Store(nil)
	})
	parses = func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(texts)
	}
	return parses, func() { <-held }, release
}

// typed returns the text after each of n changes that append "// i\n" to
// text, and the edits of each change.
func typed(text string, n int) (texts []string, edits [][]Edit) {
	for i := range n {
		e := Edit{Start: len(text), End: len(text), Text: "// " + strconv.Itoa(i) + "\n"}
		text += e.Text
		texts = append(texts, text)
		edits = append(edits, []Edit{e})
	}
	return texts, edits
}

// TestChangeDocumentParsesInTheBackground: a change never waits for a
// parse; the changes made while the parser is busy are coalesced into one
// parse of the last text; and every version, the ones the parser went past
// included, gives exactly the extraction of its own text, in the overlay
// and in the root.
func TestChangeDocumentParsesInTheBackground(t *testing.T) {
	fastDocuments(t) // the held parse is the test's, not a slow one
	parses, waitParse, release := holdParser(t)
	dir := writeTree(t, "-- a.go --\npackage a\n")
	x, _ := indexDir(t, dir, Options{})
	ctx := testCtx(t)
	uri := PathToURI(filepath.Join(dir, "a.go"))
	open := "package a\n\nfunc A() {}\n"
	texts, edits := typed(open, 5)

	// The parser is held at the open version: if a change waited for a
	// parse, the changes would never return.
	x.OpenDocument(ctx, uri, "go", 1, []byte(open))
	waitParse()
	var snaps []*Snapshot
	for i, e := range edits {
		d, err := x.ChangeDocument(ctx, uri, int32(i+2), e)
		if err != nil {
			t.Fatal(err)
		}
		if string(d.Content()) != texts[i] || d.LineCount() != strings.Count(texts[i], "\n")+1 {
			t.Fatalf("change %d: text %q, %d lines; want %q", i, d.Content(), d.LineCount(), texts[i])
		}
		snaps = append(snaps, x.Snapshot())
	}
	f := mustFile(t, x.Snapshot().Roots()[0], "a.go")
	if f.Parsed() || f.Version != 6 || f.LineCount != strings.Count(texts[4], "\n")+1 {
		t.Errorf("before any parse: root file %+v, parsed %v; want version 6, not parsed", f, f.Parsed())
	}
	release()

	last, _ := x.Snapshot().Document(uri)
	checkSyntax(t, "the last version", last.Syntax(), texts[4])
	// One parse for the open version, then one for the five changes.
	if diff := cmp.Diff([]string{open, texts[4]}, parses()); diff != "" {
		t.Errorf("parsed texts (-want +got):\n%s", diff)
	}
	for i, s := range snaps {
		d, _ := s.Document(uri)
		checkSyntax(t, "version "+strconv.Itoa(i+2)+" in the overlay", d.Syntax(), texts[i])
		checkSyntax(t, "version "+strconv.Itoa(i+2)+" in the root", mustFile(t, s.Roots()[0], "a.go").Syntax(), texts[i])
	}
	if !mustFile(t, x.Snapshot().Roots()[0], "a.go").Parsed() {
		t.Error("the last version is not recorded as parsed")
	}
}

func checkSyntax(t *testing.T, what string, got *syntax.File, text string) {
	t.Helper()
	want, err := syntax.Parse(context.Background(), syntax.Go, []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s: extraction (-Parse +got):\n%s", what, diff)
	}
}

// TestChangesSettleUntilWanted: while nobody waits, the parser lets the
// changes settle (here: forever) and parses nothing; a reader wanting the
// last version wakes it, and that one parse is the only one.
func TestChangesSettleUntilWanted(t *testing.T) {
	settleForever(t)
	var mu sync.Mutex
	var texts []string
	h := func(_ string, text []byte) {
		mu.Lock()
		texts = append(texts, string(text))
		mu.Unlock()
	}
	parseHook.Store(&h)
	t.Cleanup(func() { parseHook.Store(nil) })
	x, uri, typedTexts := typedDocument(t, 3, nil)
	last, _ := x.Snapshot().Document(uri)
	checkSyntax(t, "the last version", last.Syntax(), typedTexts[2])
	mu.Lock()
	defer mu.Unlock()
	if diff := cmp.Diff([]string{typedTexts[2]}, texts); diff != "" {
		t.Errorf("parsed texts (-want +got):\n%s", diff)
	}
}

// typedDocument opens "package a\n" in a new index and makes n changes
// to it, each typing one more comment line (see typed), calling after(i)
// after change i. It returns the index, the document's URI and the text
// of each change.
func typedDocument(t *testing.T, n int, after func(x *Index, i int)) (*Index, string, []string) {
	t.Helper()
	x := New(Options{CacheDir: "off"})
	t.Cleanup(func() { x.Close() })
	ctx := testCtx(t)
	uri := "file:///nowhere/a.go"
	texts, edits := typed("package a\n", n)
	x.OpenDocument(ctx, uri, "go", 1, []byte("package a\n"))
	if after != nil {
		after(x, -1)
	}
	for i, e := range edits {
		if _, err := x.ChangeDocument(ctx, uri, int32(i+2), e); err != nil {
			t.Fatal(err)
		}
		if after != nil {
			after(x, i)
		}
	}
	return x, uri, texts
}

// settleForever makes the background parser wait for changes to settle
// until a version is wanted, for the rest of the test.
func settleForever(t *testing.T) {
	d, m := settleDelay, maxSettle
	t.Cleanup(func() { settleDelay, maxSettle = d, m })
	settleDelay, maxSettle = time.Hour, time.Hour
}

// TestSupersededTextsAreFreed: while changes settle, the queue reaches
// the text of the newest version and of the versions someone holds (a
// snapshot), not of every superseded one.
func TestSupersededTextsAreFreed(t *testing.T) {
	settleForever(t)
	var kept *Snapshot
	x, uri, texts := typedDocument(t, 6, func(x *Index, i int) {
		if i == 2 {
			kept = x.Snapshot()
		}
	})
	last, _ := x.Snapshot().Document(uri)
	p := last.ver.p
	reached := func() []string {
		p.mu.Lock()
		defer p.mu.Unlock()
		var held []string
		for _, q := range p.queue {
			if v := q.version(); v != nil {
				held = append(held, string(v.text.Bytes()))
			}
		}
		return held
	}
	want := []string{texts[2], texts[5]}
	// A goroutine of the index may still hold a superseded snapshot for a
	// moment (the worker between two looks at its queue): collect until
	// the texts go, a bounded number of times.
	var held []string
	for range 20 {
		runtime.GC()
		if held = reached(); len(held) == len(want) {
			break
		}
		runtime.Gosched()
	}
	if diff := cmp.Diff(want, held); diff != "" {
		t.Errorf("texts the queue still reaches (-want +got):\n%s", diff)
	}
	d, _ := kept.Document(uri)
	checkSyntax(t, "the kept version", d.Syntax(), texts[2])
	checkSyntax(t, "the last version", last.Syntax(), texts[5])
}

// TestPinnedVersionsAreParsed: a version a request holds (Pin) is parsed
// by the background parser on its way to the last one, not passed over,
// so the request's reader gets the parser's extraction of it.
func TestPinnedVersionsAreParsed(t *testing.T) {
	fastDocuments(t) // the held parse is the test's, not a slow one
	parses, waitParse, release := holdParser(t)
	var pinned *Snapshot
	x, uri, texts := typedDocument(t, 6, func(x *Index, i int) {
		switch i {
		case -1:
			waitParse()
		case 2:
			pinned = x.Pin()
		}
	})
	release()
	d, _ := pinned.Document(uri)
	checkSyntax(t, "the pinned version", d.Syntax(), texts[2])
	last, _ := x.Snapshot().Document(uri)
	checkSyntax(t, "the last version", last.Syntax(), texts[5])
	if d.ver.state != parsed {
		t.Error("the pinned version was passed over")
	}
	if diff := cmp.Diff([]string{"package a\n", texts[2], texts[5]}, parses()); diff != "" {
		t.Errorf("parsed texts (-want +got):\n%s", diff)
	}
}

// TestParserCancelledOrOverBudget: a document closed while its parse is
// held still gives every version's exact extraction: its readers parse
// the text themselves. One whose parses all overrun their budget has no
// extraction, and its requests answer at the text level.
func TestParserCancelledOrOverBudget(t *testing.T) {
	t.Run("closed while parsing", func(t *testing.T) {
		// The held parse is not a slow one (its length is the test's).
		fastDocuments(t)
		_, waitParse, release := holdParser(t)
		x := New(Options{CacheDir: "off"})
		t.Cleanup(func() { x.Close() })
		ctx := testCtx(t)
		uri := "file:///nowhere/a.go"
		texts, edits := typed("package a\n", 2)
		x.OpenDocument(ctx, uri, "go", 1, []byte("package a\n"))
		waitParse()
		for i, e := range edits {
			if _, err := x.ChangeDocument(ctx, uri, int32(i+2), e); err != nil {
				t.Fatal(err)
			}
		}
		held := x.Snapshot()
		if err := x.CloseDocument(ctx, uri); err != nil {
			t.Fatal(err)
		}
		release()
		d, _ := held.Document(uri)
		checkSyntax(t, "a version of a closed document", d.Syntax(), texts[1])
	})
	t.Run("over budget", func(t *testing.T) {
		// Every parse overruns its budget, the readers' own included: the
		// versions have no extraction, the document is slow, and a
		// request reads it without syntax (no parse ever completed), not
		// the file on disk's.
		defer func(b time.Duration) { parseBudget = b }(parseBudget)
		parseBudget = time.Nanosecond
		dir := writeTree(t, "-- a.go --\npackage a\n\nfunc Disk() {}\n")
		x, _ := indexDir(t, dir, Options{})
		ctx := testCtx(t)
		uri := PathToURI(filepath.Join(dir, "a.go"))
		_, edits := typed("package a\n", 3)
		x.OpenDocument(ctx, uri, "go", 1, []byte("package a\n"))
		first, _ := x.Snapshot().Document(uri)
		if first.Syntax() != nil {
			t.Error("the open version has an extraction although every parse overran its budget")
		}
		var d *Document
		for i, e := range edits {
			var err error
			if d, err = x.ChangeDocument(ctx, uri, int32(i+2), e); err != nil {
				t.Fatal(err)
			}
		}
		pinned := x.Pin()
		view := x.WithDocuments(ctx, x.Snapshot(), pinned)
		r, rel, _ := view.Locate(uri)
		f, _ := r.File(rel)
		st, stale := f.Stale()
		if diff := cmp.Diff(StaleSyntax{}, st); !stale || diff != "" || f.Syntax() != nil {
			t.Errorf("the request's file: stale %v (-want +got):\n%s\nsyntax %v", stale, diff, f.Syntax())
		}
		if st, ok := d.Stale(); !ok || st.Has {
			t.Errorf("Document.Stale() = %+v, %v; want text only", st, ok)
		}
		if d.Syntax() != nil {
			t.Error("the last version has an extraction although every parse overran its budget")
		}
	})
}

// TestWithDocuments: a request's view applies the open documents it was
// received with over the current roots, whatever happened to them since:
// later changes, a close, a document opened afterwards.
func TestWithDocuments(t *testing.T) {
	dir := writeTree(t, "-- a.go --\npackage a\n\nfunc Disk() {}\n-- b.go --\npackage a\n\nfunc DiskB() {}\n-- c.go --\npackage a\n\nfunc DiskC() {}\n")
	x, _ := indexDir(t, dir, Options{})
	ctx := testCtx(t)
	a, b, c := PathToURI(filepath.Join(dir, "a.go")), PathToURI(filepath.Join(dir, "b.go")), PathToURI(filepath.Join(dir, "c.go"))
	x.OpenDocument(ctx, a, "go", 1, []byte("package a\n\nfunc A1() {}\n"))
	x.OpenDocument(ctx, b, "go", 1, []byte("package a\n\nfunc B1() {}\n"))
	pinned := x.Pin()
	if _, err := x.ChangeDocument(ctx, a, 2, []Edit{{Full: true, Text: "package a\n\nfunc A2() {}\n"}}); err != nil {
		t.Fatal(err)
	}
	if err := x.CloseDocument(ctx, b); err != nil {
		t.Fatal(err)
	}
	x.OpenDocument(ctx, c, "go", 1, []byte("package a\n\nfunc C1() {}\n"))

	type file struct {
		Open    bool
		Version int32
		Text    string
		Symbols string
	}
	get := func(s *Snapshot) map[string]file {
		t.Helper()
		out := map[string]file{}
		r := s.Roots()[0]
		for _, p := range []string{"a.go", "b.go", "c.go"} {
			f := mustFile(t, r, p)
			text, err := r.ReadText(p)
			if err != nil {
				t.Fatal(err)
			}
			out[p] = file{f.Open, f.Version, string(text), names(f)}
		}
		return out
	}
	now := x.Snapshot()
	view := x.WithDocuments(ctx, now, pinned)
	want := map[string]file{
		"a.go": {true, 1, "package a\n\nfunc A1() {}\n", "A1"},
		"b.go": {true, 1, "package a\n\nfunc B1() {}\n", "B1"},
		"c.go": {false, 0, "package a\n\nfunc DiskC() {}\n", "DiskC"},
	}
	if diff := cmp.Diff(want, get(view)); diff != "" {
		t.Errorf("view (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{a, b}, view.Documents().URIs()); diff != "" {
		t.Errorf("view's documents (-want +got):\n%s", diff)
	}
	if view.Version() != now.Version() || view.Fingerprint() != pinned.Fingerprint() {
		t.Errorf("view version %d, fingerprint %s; want %d and the pinned files' %s", view.Version(), view.Fingerprint(), now.Version(), pinned.Fingerprint())
	}
	// The current snapshot is untouched.
	if got := get(now); got["a.go"].Version != 2 || got["b.go"].Open || !got["c.go"].Open {
		t.Errorf("current snapshot changed: %+v", got)
	}
	if x.WithDocuments(ctx, now, x.Pin()) != now || x.WithDocuments(ctx, now, nil) != now {
		t.Error("a view of the same documents is not the snapshot itself")
	}
}

// TestSettleDelay: how long the background parser still waits before it
// parses the queued versions — settleDelay after the newest, at most
// maxSettle after the oldest, not at all when one is wanted.
func TestSettleDelay(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	over := int(slowOverdue / time.Millisecond)
	tests := []struct {
		name   string
		queued []int // arrival of each version, ms after t0
		wanted int   // index of a wanted version, -1 for none
		now    int
		want   time.Duration
		// slow: the document's last parse took lastDur ms (see
		// "Slow documents" in reparse.go).
		slow    bool
		lastDur int
	}{
		{name: "just arrived", queued: []int{0}, wanted: -1, now: 0, want: settleDelay},
		{name: "settling", queued: []int{0, 10}, wanted: -1, now: 12, want: settleDelay - ms(2)},
		{name: "settled", queued: []int{0}, wanted: -1, now: 100, want: 0},
		{name: "a burst is parsed by maxSettle after its oldest change", queued: []int{0, 240, 249}, wanted: -1, now: 249, want: maxSettle - ms(249)},
		{name: "past maxSettle", queued: []int{0, 300}, wanted: -1, now: 300, want: 0},
		{name: "wanted", queued: []int{0, 1}, wanted: 0, now: 1, want: 0},
		{name: "slow: quiet for as long as the last parse took", queued: []int{0, 100}, wanted: -1, now: 150, slow: true, lastDur: 600, want: ms(550)},
		{name: "slow: wanted versions do not cut the wait", queued: []int{0, 100}, wanted: 1, now: 150, slow: true, lastDur: 600, want: ms(550)},
		{name: "slow: at most slowSettle of quiet", queued: []int{0}, wanted: -1, now: 0, slow: true, lastDur: 5000, want: slowSettle},
		{name: "slow: at least settleDelay", queued: []int{0}, wanted: -1, now: 0, slow: true, lastDur: 1, want: settleDelay},
		{name: "slow: overdue after slowOverdue since the oldest", queued: []int{0, over - 500, over - 100}, wanted: -1, now: over - 100, slow: true, lastDur: 900, want: ms(100)},
		{name: "slow: past overdue", queued: []int{0, over + 100}, wanted: -1, now: over + 100, slow: true, lastDur: 900, want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &docParser{slow: tt.slow, lastDur: ms(tt.lastDur)}
			var held []*docVersion // the snapshots that hold the versions
			for i, a := range tt.queued {
				v := &docVersion{wanted: i == tt.wanted}
				held = append(held, v)
				p.queue = append(p.queue, pending{w: weak.Make(v), at: at(a)})
			}
			if got := p.settleLocked(at(tt.now)); got != tt.want {
				t.Errorf("settleLocked = %v, want %v", got, tt.want)
			}
			runtime.KeepAlive(held)
		})
	}
}

// TestChangeHashesLazily: a change publishes its version without hashing
// it (the notification loop's work per keystroke); the first reader of the
// fingerprint hashes it, once, for the document and the root's file alike.
func TestChangeHashesLazily(t *testing.T) {
	dir := writeTree(t, "-- a.go --\npackage a\n")
	x, _ := indexDir(t, dir, Options{CacheDir: "off"})
	defer x.Close()
	ctx := testCtx(t)
	uri := PathToURI(filepath.Join(dir, "a.go"))
	x.OpenDocument(ctx, uri, "go", 1, []byte("package a\n"))
	d, err := x.ChangeDocument(ctx, uri, 2, []Edit{{Start: 10, End: 10, Text: "var v int\n"}})
	if err != nil {
		t.Fatal(err)
	}
	if d.fp.text == nil {
		t.Error("the change hashed the new version")
	}
	f := mustFile(t, x.Snapshot().Roots()[0], "a.go")
	sum := sha256.Sum256([]byte("package a\nvar v int\n"))
	want := hex.EncodeToString(sum[:])
	if got := f.SHA256(); got != want {
		t.Errorf("root file's SHA256() = %s, want %s", got, want)
	}
	if d.fp.text != nil || d.SHA256() != want {
		t.Errorf("the document does not share the file's fingerprint: SHA256() = %s", d.SHA256())
	}
}

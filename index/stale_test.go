package index

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/index/syntax"
)

// TestMapRange: a range through edits shifts after them, grows or shrinks
// around them, keeps text inserted at its ends outside, and collapses when
// an edit swallows it.
func TestMapRange(t *testing.T) {
	ins := func(at int, s string) Edit { return Edit{Start: at, End: at, Text: s} }
	tests := []struct {
		name       string
		start, end int
		size       int
		edits      []Edit
		want       [2]int
	}{
		{name: "no edits", start: 3, end: 7, size: 30, want: [2]int{3, 7}},
		{name: "before an insertion", start: 0, end: 5, size: 30, edits: []Edit{ins(10, "abc")}, want: [2]int{0, 5}},
		{name: "after an insertion", start: 20, end: 25, size: 30, edits: []Edit{ins(10, "abc")}, want: [2]int{23, 28}},
		{name: "around an insertion", start: 5, end: 20, size: 30, edits: []Edit{ins(10, "abc")}, want: [2]int{5, 23}},
		{name: "around a deletion", start: 5, end: 20, size: 30, edits: []Edit{{Start: 10, End: 12}}, want: [2]int{5, 18}},
		{name: "insertion at its start", start: 10, end: 20, size: 30, edits: []Edit{ins(10, "ab")}, want: [2]int{12, 22}},
		{name: "insertion at its end", start: 10, end: 20, size: 30, edits: []Edit{ins(20, "ab")}, want: [2]int{10, 20}},
		{name: "its start replaced", start: 10, end: 20, size: 30, edits: []Edit{{Start: 8, End: 12, Text: "x"}}, want: [2]int{9, 17}},
		{name: "its end replaced", start: 5, end: 10, size: 30, edits: []Edit{{Start: 8, End: 12, Text: "xy"}}, want: [2]int{5, 8}},
		{name: "swallowed", start: 9, end: 11, size: 30, edits: []Edit{{Start: 8, End: 12, Text: "xy"}}, want: [2]int{10, 10}},
		{name: "exactly replaced", start: 8, end: 12, size: 30, edits: []Edit{{Start: 8, End: 12, Text: "xy"}}, want: [2]int{10, 10}},
		{name: "a full change", start: 5, end: 10, size: 30, edits: []Edit{{Full: true, Text: "hello"}}, want: [2]int{5, 5}},
		{name: "after a full change, edits in the new text", start: 5, end: 10, size: 30, edits: []Edit{{Full: true, Text: "hello"}, ins(0, "ab")}, want: [2]int{7, 7}},
		{name: "edits in order", start: 5, end: 10, size: 30, edits: []Edit{ins(0, "ab"), {Start: 0, End: 1}}, want: [2]int{6, 11}},
		{name: "typing one character at a time inside", start: 5, end: 10, size: 30, edits: []Edit{ins(7, "a"), ins(8, "b"), ins(9, "c")}, want: [2]int{5, 13}},
		{name: "a range past the text is clamped", start: 25, end: 40, size: 30, edits: []Edit{{Start: 0, End: 30, Text: "x"}}, want: [2]int{1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, e := mapRange(tt.start, tt.end, tt.size, tt.edits)
			if diff := cmp.Diff(tt.want, [2]int{s, e}); diff != "" {
				t.Errorf("mapRange (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMapSyntax: the mapped extraction has the old symbols and imports at
// their places in the new text, points included, and the old one is left
// as it was.
func TestMapSyntax(t *testing.T) {
	old := "package a\n\nimport \"fmt\"\n\nfunc A() { fmt.Println() }\n\nfunc B() {\n}\n"
	edits := []Edit{
		{Start: len("package a\n"), End: len("package a\n"), Text: "\n// two\n// lines\n"},
		{Start: len(old) + 17 - 2, End: len(old) + 17 - 2, Text: "x := 1\n"},
	}
	text, err := syntax.ApplyEdits([]byte(old), edits)
	if err != nil {
		t.Fatal(err)
	}
	f, err := syntax.Parse(context.Background(), syntax.Go, []byte(old))
	if err != nil {
		t.Fatal(err)
	}
	before, _ := json.Marshal(f)
	got := mapSyntax(f, len(old), edits, text)
	// The edits add no declaration and touch none but B's body: every
	// range is where a parse of the new text puts it.
	want, err := syntax.Parse(context.Background(), syntax.Go, text)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want.Symbols, got.Symbols); diff != "" {
		t.Errorf("symbols (-Parse of the new text +mapped):\n%s", diff)
	}
	if diff := cmp.Diff(want.Imports, got.Imports); diff != "" {
		t.Errorf("imports (-Parse of the new text +mapped):\n%s", diff)
	}
	after, _ := json.Marshal(f)
	if string(before) != string(after) {
		t.Error("mapSyntax modified the extraction it mapped")
	}
	again, _ := json.Marshal(mapSyntax(f, len(old), edits, text))
	first, _ := json.Marshal(got)
	if string(again) != string(first) {
		t.Error("mapping the same versions twice gave different bytes")
	}
}

// slowDocuments makes every completed parse of an open document count as
// slow, for the rest of the test: the document's requests then never
// wait for a parse.
func slowDocuments(t *testing.T) {
	s := slowParse
	t.Cleanup(func() { slowParse = s })
	slowParse = -1
}

// fastDocuments makes no parse of an open document count as slow, for the
// rest of the test, however long a held parser keeps it: a test of the
// exact-extraction path then does not depend on how long the machine took
// to release the parser.
func fastDocuments(t *testing.T) {
	s := slowParse
	t.Cleanup(func() { slowParse = s })
	slowParse = time.Duration(1<<63 - 1)
}

// TestSlowDocumentAnsweredFromStaleSyntax: while a slow document's newest
// version is being parsed (the parser is held, so the parse never ends
// while the request runs), a request is answered at once from the last
// completed parse, with its ranges mapped onto the newest text, and says
// so; the same two versions give the same bytes; once the parse completes,
// requests read the version's own extraction.
func TestSlowDocumentAnsweredFromStaleSyntax(t *testing.T) {
	slowDocuments(t)
	dir := writeTree(t, "-- a.go --\npackage a\n\nfunc Disk() {}\n")
	x, _ := indexDir(t, dir, Options{})
	ctx := testCtx(t)
	uri := PathToURI(filepath.Join(dir, "a.go"))
	v1 := "package a\n\nfunc A() {}\n\nfunc B() {\n}\n"
	x.OpenDocument(ctx, uri, "go", 1, []byte(v1))
	first, _ := x.Snapshot().Document(uri)
	checkSyntax(t, "the open version", first.Syntax(), v1)

	_, waitParse, release := holdParser(t)
	v2 := strings.Replace(v1, "package a\n", "package a\n\nvar V = 1\n", 1)
	v3 := strings.Replace(v2, "func B() {\n", "func B() {\n\tx := 2\n", 1)
	for i, e := range [][]Edit{
		{{Start: len("package a\n"), End: len("package a\n"), Text: "\nvar V = 1\n"}},
		{{Start: strings.Index(v2, "func B() {\n") + 11, End: strings.Index(v2, "func B() {\n") + 11, Text: "\tx := 2\n"}},
	} {
		if _, err := x.ChangeDocument(ctx, uri, int32(i+2), e); err != nil {
			t.Fatal(err)
		}
	}
	waitParse() // the worker is held at the parse of version 3

	// The request runs while the parse of its version cannot end: it
	// must not wait for it.
	type answer struct {
		f      *syntax.File
		st     StaleSyntax
		stale  bool
		status StaleSyntax
	}
	request := func() answer {
		done := make(chan answer)
		go func() {
			view := x.WithDocuments(ctx, x.Snapshot(), x.Pin())
			r, rel, _ := view.Locate(uri)
			f, _ := r.File(rel)
			st, stale := f.Stale()
			d, _ := view.Document(uri)
			status, _ := d.Stale()
			done <- answer{f.Syntax(), st, stale, status}
		}()
		select {
		case a := <-done:
			return a
		case <-time.After(time.Minute):
			t.Fatal("the request waited for the held parse")
			return answer{}
		}
	}
	a := request()
	if !a.stale || a.st != (StaleSyntax{Has: true, Of: 1}) || a.status != a.st {
		t.Fatalf("the request's file: Stale() = %+v, %v, Document.Stale() = %+v; want the syntax of version 1", a.st, a.stale, a.status)
	}
	want, err := syntax.Parse(context.Background(), syntax.Go, []byte(v3))
	if err != nil {
		t.Fatal(err)
	}
	var wantSyms []syntax.Symbol
	for _, s := range want.Symbols {
		if s.Name != "V" { // declared after version 1
			wantSyms = append(wantSyms, s)
		}
	}
	if diff := cmp.Diff(wantSyms, a.f.Symbols); diff != "" {
		t.Errorf("stale symbols (-version 3's own, without V +got):\n%s", diff)
	}
	b := request()
	ab, _ := json.Marshal(a.f)
	bb, _ := json.Marshal(b.f)
	if string(ab) != string(bb) || b.st != a.st {
		t.Errorf("the same versions gave different bytes:\n%s\n%s", ab, bb)
	}

	release()
	last, _ := x.Snapshot().Document(uri)
	checkSyntax(t, "version 3", last.Syntax(), v3)
	c := request()
	if c.stale {
		t.Errorf("after its parse, the request's file is still stale: %+v", c.st)
	}
	if diff := cmp.Diff(want, c.f); diff != "" {
		t.Errorf("after its parse (-Parse +got):\n%s", diff)
	}
}

// TestSlowDocumentOpenedBroken: a slow document none of whose parses
// completed is answered without syntax, never with the extraction of the
// file on disk at the same path.
func TestSlowDocumentOpenedBroken(t *testing.T) {
	dir := writeTree(t, "-- a.go --\npackage a\n\nfunc Disk() {}\n")
	x, _ := indexDir(t, dir, Options{ParseBudget: time.Nanosecond})
	ctx := testCtx(t)
	uri := PathToURI(filepath.Join(dir, "a.go"))
	x.OpenDocument(ctx, uri, "go", 1, []byte("package a\n\nfunc Disk() {}\n"))
	d, _ := x.Snapshot().Document(uri)
	if d.Syntax() != nil { // the reader's parse overran the budget too
		t.Fatal("a parse completed within 1ns")
	}
	view := x.WithDocuments(ctx, x.Snapshot(), x.Pin())
	r, rel, _ := view.Locate(uri)
	f, _ := r.File(rel)
	if st, ok := f.Stale(); !ok || st.Has || f.Syntax() != nil {
		t.Errorf("Stale() = %+v, %v, syntax %v; want no syntax", st, ok, f.Syntax())
	}
}

// TestSlowParseSuperseded: a newer version cancels the worker's parse of
// a slow document (held here until the newer version has arrived), which
// then settles nothing: the superseded version is passed over, not
// parsed, and the newest one still gets its exact extraction.
func TestSlowParseSuperseded(t *testing.T) {
	slowDocuments(t)
	o := slowOverdue
	t.Cleanup(func() { slowOverdue = o })
	slowOverdue = time.Hour // never overdue: every parse may be cancelled
	x := New(Options{CacheDir: "off"})
	t.Cleanup(func() { x.Close() })
	ctx := testCtx(t)
	uri := "file:///nowhere/a.go"
	texts, edits := typed("package a\n", 2)
	x.OpenDocument(ctx, uri, "go", 1, []byte("package a\n"))
	first, _ := x.Snapshot().Document(uri)
	checkSyntax(t, "the open version", first.Syntax(), "package a\n")

	_, waitParse, release := holdParser(t)
	v2, err := x.ChangeDocument(ctx, uri, 2, edits[0])
	if err != nil {
		t.Fatal(err)
	}
	waitParse() // the worker is held at version 2's parse
	v3, err := x.ChangeDocument(ctx, uri, 3, edits[1])
	if err != nil {
		t.Fatal(err)
	}
	release()
	<-v2.ver.done
	if v2.ver.state != passed {
		t.Errorf("version 2: state %d, want passed (its parse superseded by version 3)", v2.ver.state)
	}
	checkSyntax(t, "version 3", v3.Syntax(), texts[1])
}

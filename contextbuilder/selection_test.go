package contextbuilder_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/index"
)

// resolveSelection does for tests what the LSP edge does before it calls
// the builder: it resolves the selection's range, counted in enc's units
// ("utf-8", "utf-32", else utf-16), to byte offsets of the active file's
// text as the snapshot holds it. A file it cannot read is left without a
// span, which the builder refuses as an invalid request.
func resolveSelection(snap *index.Snapshot, req *contextbuilder.Request, enc string) {
	if req == nil || req.Selection == nil {
		return
	}
	root, rel, ok := snap.Locate(index.NormalizeURI(req.Selection.URI))
	if !ok {
		return
	}
	text, err := root.ReadText(rel)
	if err != nil {
		return
	}
	rg := req.Selection.Range
	req.Selection.Span = &contextbuilder.Span{Start: byteOffset(text, rg.Start, enc), End: byteOffset(text, rg.End, enc)}
}

// byteOffset converts a position to a byte offset of text by the LSP's
// rules, restated for tests: lines end at "\n", "\r\n" or "\r"; a line
// past the last maps to the end of the text, a character past the end of
// its line to the line's end, and a character inside a character (half a
// surrogate pair) to its start. An invalid byte counts one unit.
func byteOffset(text []byte, p contextbuilder.Position, enc string) int {
	off := 0
	for range p.Line {
		i := bytes.IndexAny(text[off:], "\r\n")
		if i < 0 {
			return len(text)
		}
		off += i + 1
		if text[off-1] == '\r' && off < len(text) && text[off] == '\n' {
			off++
		}
	}
	col := 0
	for off < len(text) && text[off] != '\n' && text[off] != '\r' {
		r, size := utf8.DecodeRune(text[off:])
		w := 1
		switch {
		case enc == "utf-8":
			w = size
		case enc != "utf-32" && r >= 0x10000:
			w = 2
		}
		if col+w > p.Character {
			break
		}
		col += w
		off += size
	}
	return off
}

// TestSelectionSpan: the builder selects by the selection's byte span,
// refuses a selection the caller did not resolve or resolved past the
// text, and never reads the range itself.
func TestSelectionSpan(t *testing.T) {
	const text = "package p\n\nfunc A() int { return 1 }\n\nfunc B() int { return 2 }\n"
	b := strings.Index(text, "return 2")
	tests := []struct {
		name string
		span *contextbuilder.Span
		want string // substring of an ErrInvalidRequest; "" means built
	}{
		{"unresolved", nil, "not resolved to byte offsets"},
		{"past the end", &contextbuilder.Span{Start: b, End: len(text) + 1}, "outside the file's text"},
		{"negative", &contextbuilder.Span{Start: -1, End: b}, "outside the file's text"},
		{"inverted", &contextbuilder.Span{Start: b, End: b - 1}, "starts after it ends"},
		{"inside B", &contextbuilder.Span{Start: b, End: b + 6}, ""},
		{"empty at the end", &contextbuilder.Span{Start: len(text), End: len(text)}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := tempRoot(t)
			u := fileURI(root, "p.go")
			// The range says line 0 on purpose: only the span counts.
			req := &contextbuilder.Request{Purpose: contextbuilder.PurposeDiff, ActiveFile: u,
				Selection: &contextbuilder.SelectionRange{URI: u, Span: tt.span}}
			(&genWS{}).write(t, root, []wsFile{{path: "go.mod", data: []byte("module example.com/p\n")}, {path: "p.go", data: []byte(text)}})
			res, err := contextbuilder.Build(context.Background(), indexDir(t, root).Snapshot(), req, contextbuilder.Options{CreatedAt: goldenTime})
			if tt.want != "" {
				if !errors.Is(err, contextbuilder.ErrInvalidRequest) || !strings.Contains(err.Error(), `"selection.range"`) || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("Build = %v, want an invalid request naming \"selection.range\" and %q", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.span.Start < len(text) && !slices.Equal(res.Manifest.Selection.TargetSymbols, []string{"B"}) {
				t.Errorf("target symbols %v, want [B]", res.Manifest.Selection.TargetSymbols)
			}
		})
	}
}

// TestAmbiguousCandidateSpan: a candidate carries its declaration's byte
// span, and a range in lines and byte columns for callers that cannot
// read the text.
func TestAmbiguousCandidateSpan(t *testing.T) {
	req := &contextbuilder.Request{Purpose: contextbuilder.PurposeDiff, PlanStep: &contextbuilder.PlanStep{ID: "s", TargetSymbols: []string{"Handle"}}}
	const a = "package a\n\n// é\nfunc Handle() {}\n"
	_, err := buildText(t, req, "go.mod", "module example.com/amb\n", "a/a.go", a, "b/b.go", "package b\n\nfunc Handle() error { return nil }\n")
	var ref *contextbuilder.Refusal
	if !errors.As(err, &ref) || ref.Code != contextbuilder.RefuseAmbiguousTarget || len(ref.Candidates) != 2 {
		t.Fatalf("Build = %v, want REFUSE_AMBIGUOUS_TARGET with two candidates", err)
	}
	c := ref.Candidates[0]
	start := strings.Index(a, "func Handle")
	want := contextbuilder.Candidate{Path: "a/a.go", Symbol: "Handle", Kind: "function",
		Range: contextbuilder.Range{Start: contextbuilder.Position{Line: 3}, End: contextbuilder.Position{Line: 3, Character: 16}},
		Span:  contextbuilder.Span{Start: start, End: start + len("func Handle() {}")}}
	if c != want {
		t.Errorf("candidate %+v, want %+v", c, want)
	}
}

// TestByteOffset pins the harness's position rules, which must be the
// edge's for golden selections to mean the same bytes.
func TestByteOffset(t *testing.T) {
	text := []byte("ab\r\n😀é|x\rz")
	pos := func(l, c int) contextbuilder.Position { return contextbuilder.Position{Line: l, Character: c} }
	tests := []struct {
		p    contextbuilder.Position
		enc  string
		want int
	}{
		{pos(0, 1), "", 1},
		{pos(0, 9), "", 2},        // past the line: its end, before "\r\n"
		{pos(1, 0), "", 4},        // "\r\n" is one break
		{pos(1, 1), "utf-16", 4},  // half a surrogate pair rounds down
		{pos(1, 2), "utf-16", 8},  // after 😀
		{pos(1, 3), "utf-16", 10}, // after é
		{pos(1, 1), "utf-32", 8},  // 😀 is one code point
		{pos(1, 6), "utf-8", 10},  // 4 + 2 bytes
		{pos(1, 5), "utf-8", 8},   // inside é rounds down
		{pos(2, 1), "utf-16", 14}, // a lone "\r" ends a line too
		{pos(9, 0), "utf-16", 14}, // past the last line: the end
	}
	for _, tt := range tests {
		if got := byteOffset(text, tt.p, tt.enc); got != tt.want {
			t.Errorf("byteOffset(%+v, %q) = %d, want %d", tt.p, tt.enc, got, tt.want)
		}
	}
}

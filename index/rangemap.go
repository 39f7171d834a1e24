package index

import (
	"bytes"
	"slices"

	"github.com/ctxd/ctxd/index/syntax"
)

// Mapping an older version's extraction onto a newer text: what a request
// reads for an open document whose own parse is not ready and would be
// slow (see "Slow documents" in reparse.go). The mapping is pure: the same
// extraction, edits and text give the same result, so the same two
// versions give the same bytes.

// mapSyntax returns f, the extraction of a text of oldLen bytes, with the
// ranges of its symbols and imports carried through edits (which lead, in
// order, from that text to text) by mapRange, and their points recomputed
// in text. Everything else is f's: names, uses, bindings, HasErrors. f is
// not modified.
func mapSyntax(f *syntax.File, oldLen int, edits []Edit, text []byte) *syntax.File {
	out := *f
	lines := lineStarts(text)
	at := func(r syntax.Range) syntax.Range {
		if r.IsZero() {
			return r
		}
		start, end := mapRange(int(r.StartByte), int(r.EndByte), oldLen, edits)
		return syntax.Range{
			Start: pointAt(lines, start), End: pointAt(lines, end),
			StartByte: uint32(start), EndByte: uint32(end),
		}
	}
	out.Symbols = slices.Clone(f.Symbols)
	for i := range out.Symbols {
		s := &out.Symbols[i]
		s.Range, s.Signature, s.Doc = at(s.Range), at(s.Signature), at(s.Doc)
	}
	out.Imports = slices.Clone(f.Imports)
	for i := range out.Imports {
		out.Imports[i].Range = at(out.Imports[i].Range)
	}
	return &out
}

// mapRange carries the byte range [start, end) of a text of size bytes
// through edits, each applied to the text the previous one left (a Full
// edit replaces the whole text). Through one edit replacing [a, b) by n
// bytes:
//
//   - an offset before the edit stays; one at or after its end moves by
//     the change in length, so a range after the edit shifts and a range
//     around it grows or shrinks;
//   - a start inside the replaced bytes moves to the end of the new text,
//     an end inside them to its start: the new text belongs to a range
//     only when the range spans the whole edit;
//   - text inserted exactly at a range's start or end is outside it;
//   - a range the edit swallows is empty, at the end of the new text.
//
// The result always lies within the new text, start <= end.
func mapRange(start, end, size int, edits []Edit) (int, int) {
	for _, e := range edits {
		a, b, n := e.Start, e.End, len(e.Text)
		if e.Full {
			a, b = 0, size
		}
		// Defensive: the index applied the same edits to the text, so
		// they fit; a range past the text is clamped into it.
		a, b = min(max(a, 0), size), min(max(b, a), size)
		start, end = min(start, size), min(end, size)
		d := n - (b - a)
		switch {
		case start < a:
		case start >= b:
			start += d
		default:
			start = a + n
		}
		switch {
		case end <= a:
		case end >= b:
			end += d
		default:
			end = a
		}
		if end < start {
			end = start
		}
		size += d
	}
	return start, end
}

// lineStarts returns the byte offset of each line of text: 0, then the
// offset after each "\n".
func lineStarts(text []byte) []int {
	starts := []int{0}
	for i := 0; ; {
		j := bytes.IndexByte(text[i:], '\n')
		if j < 0 {
			return starts
		}
		i += j + 1
		starts = append(starts, i)
	}
}

// pointAt is the point (line, byte column) of offset off.
func pointAt(lines []int, off int) syntax.Point {
	l, found := slices.BinarySearch(lines, off)
	if !found {
		l--
	}
	return syntax.Point{Line: uint32(l), Column: uint32(off - lines[l])}
}

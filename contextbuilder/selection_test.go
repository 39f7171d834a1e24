package contextbuilder_test

import (
	"bytes"
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

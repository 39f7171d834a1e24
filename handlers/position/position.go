// Package position is the single place in ctxd that translates between LSP
// positions and byte offsets, and that applies textDocument/didChange edits.
//
// Keeping this logic in one package means every handler agrees on how a
// (line, character) pair maps to bytes, which is where off-by-one and
// encoding bugs usually hide.
//
// The main types are:
//
//   - [Encoding]: the negotiated LSP 3.17 position encoding (utf-8, utf-16
//     or utf-32), chosen with [Negotiate].
//   - [Mapper]: converts positions to byte offsets ([Mapper.Offset],
//     [Mapper.OffsetRange]) and back ([Mapper.Position]) for one immutable
//     content.
//   - [ApplyChanges]: applies a sequence of [Change] values with LSP
//     semantics.
//
// # Lines
//
// Line breaks are "\n", "\r\n" and "\r", as required by the LSP
// specification. A line's length excludes its line break. Content that ends
// with a line break has one more (empty) line after it, so "" has one line
// and "a\n" has two.
//
// # Characters
//
// A position's character is counted in units of the negotiated encoding:
// UTF-16 code units (a rune >= U+10000 counts 2, everything else 1), UTF-8
// bytes, or UTF-32 code points (runes). Content is not required to be valid
// UTF-8: each invalid byte counts as exactly one unit in every encoding, as if
// it were decoded to U+FFFD and occupied one byte. This keeps every function
// total instead of rejecting documents that a client managed to send.
//
// # Clamping
//
// Out-of-range positions are clamped as the LSP specification asks, never
// reported as errors:
//
//   - a line past the last line maps to the end of the document;
//   - a character past the line length maps to the end of that line, before
//     its line break;
//   - a character that falls inside a character (between the two UTF-16 code
//     units of a surrogate pair, or inside a multi-byte UTF-8 sequence when
//     the encoding is utf-8) rounds down to the start of that character.
//
// Every function in this package is pure, never panics on any input, and
// uses only the standard library.
package position

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"sort"
	"unicode/utf8"
)

// Encoding is an LSP 3.17 position encoding kind: the unit in which
// [Position.Character] is counted.
//
// The zero value "" and any other unknown string are not valid (see
// [Encoding.Valid]); functions that take an Encoding treat an invalid one as
// [UTF16], the encoding the LSP specification mandates when none was
// negotiated, so a bad value can never make a conversion fail or panic.
type Encoding string

// The position encodings ctxd supports. The string values are the ones used
// on the wire in capabilities.general.positionEncodings.
const (
	// UTF8 counts characters in UTF-8 bytes.
	UTF8 Encoding = "utf-8"
	// UTF16 counts characters in UTF-16 code units. It is the LSP default
	// and the only encoding every client must support.
	UTF16 Encoding = "utf-16"
	// UTF32 counts characters in Unicode code points (Go runes).
	UTF32 Encoding = "utf-32"
)

// Negotiate picks the position encoding to announce in the server
// capabilities.
//
// offered is the client's capabilities.general.positionEncodings list, in the
// client's order of preference. The first entry that ctxd supports wins (all
// three kinds are supported); unknown entries are skipped. Matching is exact
// and case-sensitive, because the specification defines the values as exact
// strings. A nil or empty list, or a list with nothing supported, yields
// [UTF16], which the specification says is always available.
func Negotiate(offered []string) Encoding {
	for _, s := range offered {
		if e := Encoding(s); e.Valid() {
			return e
		}
	}
	return UTF16
}

// Valid reports whether e is one of [UTF8], [UTF16] or [UTF32].
func (e Encoding) Valid() bool {
	switch e {
	case UTF8, UTF16, UTF32:
		return true
	}
	return false
}

// normalize maps an invalid encoding to UTF16 so the rest of the package only
// deals with the three known kinds.
func (e Encoding) normalize() Encoding {
	if e.Valid() {
		return e
	}
	return UTF16
}

// Position is an LSP position: a zero-based line and a zero-based character
// offset within that line, counted in the negotiated [Encoding]. The zero
// value is the start of the document.
type Position struct {
	Line      uint32 `json:"line"`
	Character uint32 `json:"character"`
}

// Range is an LSP range: Start is inclusive and End is exclusive. A range
// with Start == End is empty (an insertion point). The zero value is the
// empty range at the start of the document.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// ErrInvertedRange is returned (wrapped, with the offending positions in the
// message) when a range's start maps to a byte offset after its end's. Test
// for it with errors.Is.
var ErrInvertedRange = errors.New("range start is after its end")

// line is the byte extent of one line: content[start:end] is the line's text
// without its line break.
type line struct {
	start, end int
}

// Mapper converts between positions and byte offsets of one immutable
// content in one encoding.
//
// Line boundaries are computed once in [NewMapper]; after that a Mapper is
// read-only and therefore safe for concurrent use. [Mapper.Offset] and
// [Mapper.Position] cost O(length of the line involved), plus O(log lines)
// for [Mapper.Position]'s binary search over line starts.
//
// A nil *Mapper and the zero Mapper behave like a mapper of empty content in
// UTF-16, so that a missing document degrades to clamping instead of a panic.
type Mapper struct {
	content []byte
	enc     Encoding
	lines   []line // never empty once constructed
}

// NewMapper returns a Mapper for content in encoding enc. An invalid enc is
// treated as [UTF16]. nil and empty content are equivalent: one empty line.
//
// The Mapper keeps a reference to content rather than a copy, because callers
// hold document snapshots that are never modified and copying large files on
// every request would be wasted work; the caller must not modify content
// while the Mapper is in use.
func NewMapper(content []byte, enc Encoding) *Mapper {
	return &Mapper{
		content: content,
		enc:     enc.normalize(),
		lines:   splitLines(content),
	}
}

// splitLines returns the extent of every line of content. There is always at
// least one line; a trailing line break starts a final empty line.
func splitLines(content []byte) []line {
	lines := make([]line, 0, 16+len(content)/32)
	start := 0
	for start <= len(content) {
		// IndexAny runs in optimized code; the byte loop it replaces
		// dominated the cost of every keystroke on large documents.
		i := bytes.IndexAny(content[start:], "\r\n")
		if i < 0 {
			break
		}
		end := start + i
		lines = append(lines, line{start, end})
		start = end + 1
		if content[end] == '\r' && start < len(content) && content[start] == '\n' {
			start++ // "\r\n" is one line break, not two.
		}
	}
	return append(lines, line{start, len(content)})
}

// orEmpty substitutes an empty mapper for nil so methods never dereference a
// nil pointer.
func (m *Mapper) orEmpty() *Mapper {
	if m == nil || len(m.lines) == 0 {
		return &Mapper{enc: UTF16, lines: []line{{0, 0}}}
	}
	return m
}

// LineCount returns the number of lines. Content "" has 1 line, "a" has 1,
// "a\n" has 2 and "a\r\nb" has 2.
func (m *Mapper) LineCount() int {
	return len(m.orEmpty().lines)
}

// width returns how many encoding units the character r, encoded in size
// bytes, occupies. An invalid byte arrives as (utf8.RuneError, 1) and counts
// one unit everywhere, because it is decoded as one U+FFFD occupying one byte.
func width(enc Encoding, r rune, size int) uint64 {
	switch enc {
	case UTF8:
		return uint64(size)
	case UTF32:
		return 1
	default: // UTF16
		if r >= 0x10000 {
			return 2 // surrogate pair
		}
		return 1
	}
}

// Offset returns the byte offset of p. The result is always in
// [0, len(content)] and on a character boundary (never inside a multi-byte
// sequence and never between the "\r" and "\n" of a "\r\n" break).
//
// Out-of-range positions are clamped rather than rejected: a line past the
// last line maps to len(content); a character past the line length maps to
// the end of the line, before its line break; a character inside a character
// (e.g. between the units of a surrogate pair) rounds down to its start.
func (m *Mapper) Offset(p Position) int {
	m = m.orEmpty()
	// Compare as uint64 so a huge uint32 can never wrap on 32-bit platforms.
	if uint64(p.Line) >= uint64(len(m.lines)) {
		return len(m.content)
	}
	return column(m.content, m.lines[p.Line], m.enc, p.Character)
}

// Lines is a text that hands out one line at a time, as the index's
// open documents do (their text is held in chunks, never flattened for a
// keystroke).
type Lines interface {
	// Line returns the offset of line n's first byte (lines count from 0
	// and break at "\n", "\r\n" and a lone "\r") and its bytes without
	// the line break; ok is false past the last line.
	Line(n int) (start int, text []byte, ok bool)
	// Len returns the text's size in bytes.
	Len() int
}

// LineOffset is what NewMapper(content, enc).Offset(p) returns for the
// text t holds, without the line table or the flat content: a didChange
// converts one or two positions of a text it will never see again, so one
// conversion in a large document costs finding a line, not a table of
// every line allocated and dropped.
func LineOffset(t Lines, enc Encoding, p Position) int {
	// On a 32-bit platform a line past MaxInt32 becomes negative, which
	// Line reports as past the last line, as it is.
	start, text, ok := t.Line(int(p.Line))
	if !ok {
		return t.Len()
	}
	return start + column(text, line{0, len(text)}, enc.normalize(), p.Character)
}

// column returns the byte offset of character want of ln, clamped and
// rounded down as Offset documents.
func column(content []byte, ln line, enc Encoding, want32 uint32) int {
	want := uint64(want32)
	var col uint64
	for off := ln.start; off < ln.end; {
		if col >= want {
			return off
		}
		r, size := utf8.DecodeRune(content[off:ln.end])
		w := width(enc, r, size)
		if col+w > want {
			return off // want points inside this character: round down.
		}
		col += w
		off += size
	}
	return ln.end
}

// OffsetRange returns the byte offsets of r.Start and r.End, each clamped as
// in [Mapper.Offset]. Because the check happens after clamping, a range whose
// positions are nominally inverted but clamp to the same offset (for example
// both characters past the end of one line) is accepted as empty.
//
// If the start offset is after the end offset it returns 0, 0 and an error
// wrapping [ErrInvertedRange] that names both positions and offsets.
func (m *Mapper) OffsetRange(r Range) (start, end int, err error) {
	start = m.Offset(r.Start)
	end = m.Offset(r.End)
	if start > end {
		return 0, 0, fmt.Errorf("%w: start %d:%d (offset %d), end %d:%d (offset %d)",
			ErrInvertedRange,
			r.Start.Line, r.Start.Character, start,
			r.End.Line, r.End.Character, end)
	}
	return start, end, nil
}

// Position returns the position of byte offset offset.
//
// offset is clamped to [0, len(content)]. An offset inside a multi-byte
// character rounds down to that character's start. An offset on the "\n" of
// a "\r\n" break belongs to the line that the break ends, with the character
// equal to the line length, i.e. the same position as the "\r".
//
// The line number saturates at math.MaxUint32, which only matters for
// content with more than four billion lines.
func (m *Mapper) Position(offset int) Position {
	m = m.orEmpty()
	offset = max(0, min(offset, len(m.content)))
	// Index of the last line starting at or before offset; lines[0].start
	// is 0, so i >= 0.
	i := sort.Search(len(m.lines), func(i int) bool {
		return m.lines[i].start > offset
	}) - 1
	ln := m.lines[i]
	target := min(offset, ln.end) // inside the line break -> end of line
	var col uint64
	for off := ln.start; off < target; {
		r, size := utf8.DecodeRune(m.content[off:ln.end])
		if off+size > target {
			break // target is inside this character: round down.
		}
		col += width(m.enc, r, size)
		off += size
	}
	return Position{Line: saturate(uint64(i)), Character: saturate(col)}
}

// saturate converts to uint32, pinning values that do not fit at the maximum
// instead of wrapping around to a small, wrong position.
func saturate(v uint64) uint32 {
	if v > math.MaxUint32 {
		return math.MaxUint32
	}
	return uint32(v)
}

// Change is one entry of textDocument/didChange's contentChanges.
//
// A nil Range means the whole document is replaced by Text (the
// TextDocumentContentChangeEvent variant without a range). Otherwise the text
// in Range is replaced by Text; an empty Text deletes and an empty Range
// inserts. The deprecated rangeLength field is deliberately not modelled:
// clients disagree on its units, and the range alone is authoritative.
type Change struct {
	Range *Range `json:"range,omitempty"`
	Text  string `json:"text"`
}

// ApplyChanges applies changes to content in order, each one against the
// result of the previous one, as the LSP specification requires for
// didChange. Positions are interpreted in encoding enc (an invalid enc is
// treated as [UTF16]) and clamped exactly as in [Mapper.Offset].
//
// It returns a new slice and never modifies content. On success the result
// is never nil, even when it is empty; nil or empty changes yield a copy of
// content. If a change's range is inverted after clamping, ApplyChanges
// returns nil and an error that names the failing change's index and wraps
// [ErrInvertedRange]; the changes before it are discarded, because a partial
// application would leave the document out of sync with the client.
func ApplyChanges(content []byte, enc Encoding, changes []Change) ([]byte, error) {
	enc = enc.normalize()
	// Every change builds a new slice, so the input is never aliased once a
	// change applied; with no changes, return a private copy all the same.
	cur := content
	if len(changes) == 0 {
		cur = append(make([]byte, 0, len(content)), content...)
	}
	for i, ch := range changes {
		if ch.Range == nil {
			cur = append(make([]byte, 0, len(ch.Text)), ch.Text...)
			continue
		}
		start, end, err := NewMapper(cur, enc).OffsetRange(*ch.Range)
		if err != nil {
			return nil, fmt.Errorf("position: change %d of %d: %w", i, len(changes), err)
		}
		next := make([]byte, 0, len(cur)-(end-start)+len(ch.Text))
		next = append(next, cur[:start]...)
		next = append(next, ch.Text...)
		next = append(next, cur[end:]...)
		cur = next
	}
	return cur, nil
}

package position_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/ctxd/ctxd/handlers/position"
	"github.com/ctxd/ctxd/index/buffer"
)

// The reference model below deliberately shares no code or structure with
// the package: it works on a []rune, precomputes for every line the list of
// (column, rune index) stops where a position may land, and answers a
// lookup with "the last stop whose column is <= the requested character".
// That one rule yields both clamping past the line end and rounding down
// inside a character, so a disagreement points at a bug in one of two very
// different implementations.

// refStop is a place a position can resolve to: a column in encoding units
// and the rune index it denotes.
type refStop struct {
	col  uint64
	rune int
}

type refDoc struct {
	runes []rune
	lines [][]refStop // every line has at least one stop (its start)
}

// refUnits counts one rune in the given encoding using the standard
// library's own length functions.
func refUnits(enc position.Encoding, r rune) uint64 {
	switch enc {
	case position.UTF8:
		return uint64(utf8.RuneLen(r))
	case position.UTF32:
		return 1
	default:
		return uint64(utf16.RuneLen(r))
	}
}

func newRefDoc(runes []rune, enc position.Encoding) refDoc {
	doc := refDoc{runes: runes}
	stops := []refStop{{0, 0}}
	var col uint64
	for i := 0; i < len(runes); i++ {
		r := runes[i]
		isBreak := r == '\n' || r == '\r'
		if !isBreak {
			col += refUnits(enc, r)
			stops = append(stops, refStop{col, i + 1})
			continue
		}
		doc.lines = append(doc.lines, stops)
		next := i + 1
		if r == '\r' && next < len(runes) && runes[next] == '\n' {
			next++
			i++
		}
		stops = []refStop{{0, next}}
		col = 0
	}
	doc.lines = append(doc.lines, stops)
	return doc
}

// index returns the rune index of p, with the package's clamping rules.
func (d refDoc) index(p position.Position) int {
	if int64(p.Line) >= int64(len(d.lines)) {
		return len(d.runes)
	}
	best := 0
	for _, s := range d.lines[p.Line] {
		if s.col <= uint64(p.Character) {
			best = s.rune
		}
	}
	return best
}

// refApply is the reference ApplyChanges. It returns the index of the failing
// change, or -1.
func refApply(content string, enc position.Encoding, changes []position.Change) (string, int) {
	runes := []rune(content)
	for i, ch := range changes {
		if ch.Range == nil {
			runes = []rune(ch.Text)
			continue
		}
		doc := newRefDoc(runes, enc)
		s, e := doc.index(ch.Range.Start), doc.index(ch.Range.End)
		if s > e {
			return "", i
		}
		next := append([]rune{}, runes[:s]...)
		next = append(next, []rune(ch.Text)...)
		runes = append(next, runes[e:]...)
	}
	return string(runes), -1
}

// fuzzTexts are the building blocks of inserted text: line breaks of every
// kind (so edits can create or split "\r\n"), BMP and astral characters.
var fuzzTexts = []string{"", "x", "\n", "\r", "\r\n", "😀", "𝄞", "é", "中", "ab\r\ncd", "\uFFFD", "yz"}

// fuzzLine and fuzzChar turn one byte into a line or character number that is
// usually small (inside or just outside a short document) and occasionally
// huge, to exercise clamping near math.MaxUint32.
func fuzzLine(b byte) uint32 {
	if b >= 0xF8 {
		return math.MaxUint32 - uint32(b&7)
	}
	return uint32(b % 6)
}

func fuzzChar(b byte) uint32 {
	if b >= 0xF8 {
		return math.MaxUint32 - uint32(b&7)
	}
	return uint32(b % 20)
}

// fuzzChanges decodes up to 8 changes from script, 6 bytes each:
// kind, start line, start char, end line, end char, text.
func fuzzChanges(script []byte) []position.Change {
	var changes []position.Change
	for len(script) >= 6 && len(changes) < 8 {
		b := script[:6]
		script = script[6:]
		n := byte(len(fuzzTexts))
		text := fuzzTexts[b[5]%n] + fuzzTexts[(b[5]/n)%n]
		if b[0]%8 == 0 {
			changes = append(changes, position.Change{Text: text})
			continue
		}
		changes = append(changes, position.Change{
			Range: &position.Range{
				Start: position.Position{Line: fuzzLine(b[1]), Character: fuzzChar(b[2])},
				End:   position.Position{Line: fuzzLine(b[3]), Character: fuzzChar(b[4])},
			},
			Text: text,
		})
	}
	return changes
}

func FuzzApplyChanges(f *testing.F) {
	f.Add("hello\nworld", []byte{1, 0, 1, 1, 3, 1})
	f.Add("ab\r\ncd\ref\ngh", []byte{1, 0, 2, 2, 1, 0, 3, 1, 0, 0, 0, 4})
	f.Add("a😀b𝄞c\n中é", []byte{1, 0, 2, 0, 5, 5, 1, 1, 1, 0, 3, 6})
	f.Add("abc", []byte{1, 0, 3, 0, 1, 1})                   // inverted
	f.Add("x\r", []byte{1, 1, 0, 1, 0, 2, 8, 0, 0, 0, 0, 9}) // creates "\r\n", then full replace
	f.Add("", []byte{1, 0xFF, 0xFF, 0xFF, 0xFF, 5})
	f.Fuzz(func(t *testing.T, raw string, script []byte) {
		content := strings.ToValidUTF8(raw, "\uFFFD")
		changes := fuzzChanges(script)
		for _, enc := range []position.Encoding{position.UTF16, position.UTF8, position.UTF32} {
			input := []byte(content)
			got, err := position.ApplyChanges(input, enc, changes)
			want, failed := refApply(content, enc, changes)
			if string(input) != content {
				t.Fatalf("%s: input modified: %q -> %q", enc, content, input)
			}
			switch {
			case err == nil && failed >= 0:
				t.Fatalf("%s: ApplyChanges(%q, %+v) succeeded with %q, reference failed at change %d",
					enc, content, describe(changes), got, failed)
			case err != nil && failed < 0:
				t.Fatalf("%s: ApplyChanges(%q, %+v) failed with %v, reference produced %q",
					enc, content, describe(changes), err, want)
			case err != nil:
				if got != nil {
					t.Fatalf("%s: non-nil result %q with error %v", enc, got, err)
				}
				if !errors.Is(err, position.ErrInvertedRange) {
					t.Fatalf("%s: error %v does not wrap ErrInvertedRange", enc, err)
				}
				if idx := fmt.Sprintf("change %d of", failed); !strings.Contains(err.Error(), idx) {
					t.Fatalf("%s: error %q does not name %q", enc, err, idx)
				}
			case string(got) != want:
				t.Fatalf("%s: ApplyChanges(%q, %+v)\n got %q\nwant %q", enc, content, describe(changes), got, want)
			}
		}
	})
}

// describe renders changes readably (Range is a pointer).
func describe(changes []position.Change) []string {
	var out []string
	for _, c := range changes {
		if c.Range == nil {
			out = append(out, fmt.Sprintf("full %q", c.Text))
			continue
		}
		out = append(out, fmt.Sprintf("%d:%d-%d:%d %q", c.Range.Start.Line, c.Range.Start.Character,
			c.Range.End.Line, c.Range.End.Character, c.Text))
	}
	return out
}

func FuzzMapper(f *testing.F) {
	f.Add([]byte("hello\nworld"), uint32(1), uint32(3), 4)
	f.Add([]byte("ab\r\ncd"), uint32(0), uint32(9), 3)
	f.Add([]byte("a😀b𝄞c"), uint32(0), uint32(2), 2)
	f.Add([]byte("a\xffb\r\xe4\xb8\n\xf0\x9f"), uint32(2), uint32(1), -1)
	f.Add([]byte(""), uint32(math.MaxUint32), uint32(math.MaxUint32), math.MaxInt)
	f.Fuzz(func(t *testing.T, content []byte, line, char uint32, offset int) {
		bounds := boundaries(content)
		isBoundary := make(map[int]bool, len(bounds))
		for _, b := range bounds {
			isBoundary[b] = true
		}
		for _, enc := range []position.Encoding{position.UTF16, position.UTF8, position.UTF32} {
			m := position.NewMapper(content, enc)
			pos := position.Position{Line: line, Character: char}
			if got, want := position.LineOffset(buffer.New(content), enc, pos), m.Offset(pos); got != want {
				t.Fatalf("%s: LineOffset(%q, %+v) = %d, Mapper.Offset = %d", enc, content, pos, got, want)
			}
			lines := m.LineCount()
			if lines < 1 {
				t.Fatalf("%s: LineCount = %d", enc, lines)
			}

			o := m.Offset(position.Position{Line: line, Character: char})
			if o < 0 || o > len(content) {
				t.Fatalf("%s: Offset(%d:%d) = %d out of [0,%d]", enc, line, char, o, len(content))
			}
			if !isBoundary[o] {
				t.Fatalf("%s: Offset(%d:%d) = %d is not a character boundary", enc, line, char, o)
			}
			if back := m.Offset(m.Position(o)); back != o {
				t.Fatalf("%s: Offset(Position(%d)) = %d", enc, o, back)
			}

			p := m.Position(offset)
			if int64(p.Line) >= int64(lines) {
				t.Fatalf("%s: Position(%d) = %+v, but only %d lines", enc, offset, p, lines)
			}
			// Rounding down (inside a multi-byte char or a "\r\n") means an
			// offset has the position of the last boundary at or before it.
			floor := 0
			for _, b := range bounds {
				if b <= offset {
					floor = b
				}
			}
			if want := m.Position(floor); p != want {
				t.Fatalf("%s: Position(%d) = %+v, want %+v (Position of boundary %d)", enc, offset, p, want, floor)
			}
			// On valid UTF-8 the offset must agree with the rune reference.
			if utf8.Valid(content) {
				runes := []rune(string(content))
				ri := newRefDoc(runes, enc).index(position.Position{Line: line, Character: char})
				if want := len(string(runes[:ri])); o != want {
					t.Fatalf("%s: Offset(%d:%d) = %d, reference %d", enc, line, char, o, want)
				}
			}
			if again := m.Position(m.Offset(p)); again != p {
				t.Fatalf("%s: Position(Offset(Position(%d)=%+v)) = %+v", enc, offset, p, again)
			}

			if len(content) <= 512 {
				for _, b := range bounds {
					if got := m.Offset(m.Position(b)); got != b {
						t.Fatalf("%s: Offset(Position(%d)=%+v) = %d", enc, b, m.Position(b), got)
					}
				}
			}
		}
	})
}

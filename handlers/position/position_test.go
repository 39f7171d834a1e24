package position_test

import (
	"errors"
	"math"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/handlers/position"
)

const (
	utf8Enc  = position.UTF8
	utf16Enc = position.UTF16
	utf32Enc = position.UTF32
)

var allEncodings = []position.Encoding{utf16Enc, utf8Enc, utf32Enc}

func pos(line, char uint32) position.Position {
	return position.Position{Line: line, Character: char}
}

func rng(sl, sc, el, ec uint32) *position.Range {
	return &position.Range{Start: pos(sl, sc), End: pos(el, ec)}
}

func TestNegotiate(t *testing.T) {
	tests := []struct {
		name    string
		offered []string
		want    position.Encoding
	}{
		{"nil", nil, utf16Enc},
		{"empty", []string{}, utf16Enc},
		{"utf-8 only", []string{"utf-8"}, utf8Enc},
		{"utf-32 preferred over utf-8", []string{"utf-32", "utf-8"}, utf32Enc},
		{"utf-16 preferred over utf-8", []string{"utf-16", "utf-8"}, utf16Enc},
		{"unknown skipped", []string{"bogus", "utf-8"}, utf8Enc},
		{"nothing supported", []string{"bogus"}, utf16Enc},
		{"case sensitive", []string{"UTF-8"}, utf16Enc},
		{"empty string skipped", []string{"", "utf-32"}, utf32Enc},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := position.Negotiate(tt.offered)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Negotiate(%q) mismatch (-want +got):\n%s", tt.offered, diff)
			}
		})
	}
}

func TestEncodingValid(t *testing.T) {
	tests := []struct {
		enc  position.Encoding
		want bool
	}{
		{utf8Enc, true},
		{utf16Enc, true},
		{utf32Enc, true},
		{"", false},
		{"utf-7", false},
		{"UTF-16", false},
	}
	for _, tt := range tests {
		t.Run(string(tt.enc), func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.enc.Valid()); diff != "" {
				t.Errorf("%q.Valid() mismatch (-want +got):\n%s", tt.enc, diff)
			}
		})
	}
}

func TestLineCount(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    int
	}{
		{"empty", "", 1},
		{"no newline", "abc", 1},
		{"trailing LF", "a\n", 2},
		{"only LF", "\n", 2},
		{"CRLF is one break", "a\r\nb", 2},
		{"lone CR", "a\rb", 2},
		{"LF CR is two breaks", "a\n\rb", 3},
		{"CR CR LF LF", "\r\r\n\n", 4},
		{"mixed", "a\nb\r\nc\rd", 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := position.NewMapper([]byte(tt.content), utf16Enc).LineCount()
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("LineCount(%q) mismatch (-want +got):\n%s", tt.content, diff)
			}
		})
	}
}

// Byte layout of the multi-byte fixtures used below:
//
//	"é中x":   é=[0,2) 中=[2,5) x=[5,6)
//	"a😀b𝄞c": a=[0,1) 😀=[1,5) b=[5,6) 𝄞=[6,10) c=[10,11)
const (
	bmpText    = "é中x"
	astralText = "a😀b𝄞c"
)

func TestOffset(t *testing.T) {
	tests := []struct {
		name    string
		content string
		enc     position.Encoding
		pos     position.Position
		want    int
	}{
		// ASCII.
		{"ascii start", "hello\nworld", utf16Enc, pos(0, 0), 0},
		{"ascii mid", "hello\nworld", utf16Enc, pos(0, 3), 3},
		{"ascii end of line", "hello\nworld", utf16Enc, pos(0, 5), 5},
		{"ascii char past line end clamps before LF", "hello\nworld", utf16Enc, pos(0, 9), 5},
		{"ascii second line", "hello\nworld", utf16Enc, pos(1, 2), 8},
		{"ascii end of document", "hello\nworld", utf16Enc, pos(1, 5), 11},
		{"line past last line is end of document", "hello\nworld", utf16Enc, pos(2, 0), 11},
		{"huge line", "hello\nworld", utf16Enc, pos(math.MaxUint32, 0), 11},
		{"huge character", "hello\nworld", utf16Enc, pos(0, math.MaxUint32), 5},

		// CRLF.
		{"crlf end of first line is before CR", "ab\r\ncd", utf16Enc, pos(0, 2), 2},
		{"crlf past end clamps before CR", "ab\r\ncd", utf16Enc, pos(0, 3), 2},
		{"crlf second line", "ab\r\ncd", utf16Enc, pos(1, 0), 4},
		{"crlf second line end", "ab\r\ncd", utf16Enc, pos(1, 2), 6},

		// Lone CR.
		{"lone cr second line", "ab\rcd", utf16Enc, pos(1, 0), 3},
		{"lone cr clamp", "ab\rcd", utf16Enc, pos(0, 5), 2},

		// Mixed: a=0 \n=1 b=2 \r\n=3,4 c=5 \r=6 d=7.
		{"mixed line 1", "a\nb\r\nc\rd", utf16Enc, pos(1, 1), 3},
		{"mixed line 2", "a\nb\r\nc\rd", utf16Enc, pos(2, 1), 6},
		{"mixed line 3", "a\nb\r\nc\rd", utf16Enc, pos(3, 0), 7},
		{"mixed past end", "a\nb\r\nc\rd", utf16Enc, pos(4, 0), 8},
		{"CR CR LF LF line 2", "\r\r\n\n", utf16Enc, pos(2, 0), 3},
		{"CR CR LF LF line 3", "\r\r\n\n", utf16Enc, pos(3, 0), 4},

		// Empty content and trailing newline.
		{"empty origin", "", utf16Enc, pos(0, 0), 0},
		{"empty char clamp", "", utf16Enc, pos(0, 5), 0},
		{"empty line clamp", "", utf16Enc, pos(3, 1), 0},
		{"trailing newline last line", "a\n", utf16Enc, pos(1, 0), 2},
		{"trailing newline last line clamp", "a\n", utf16Enc, pos(1, 7), 2},
		{"trailing newline first line end", "a\n", utf16Enc, pos(0, 1), 1},

		// BMP multi-byte.
		{"bmp utf16 after é", bmpText, utf16Enc, pos(0, 1), 2},
		{"bmp utf16 after 中", bmpText, utf16Enc, pos(0, 2), 5},
		{"bmp utf16 end", bmpText, utf16Enc, pos(0, 3), 6},
		{"bmp utf16 clamp", bmpText, utf16Enc, pos(0, 4), 6},
		{"bmp utf32 after 中", bmpText, utf32Enc, pos(0, 2), 5},
		{"bmp utf8 inside é rounds down", bmpText, utf8Enc, pos(0, 1), 0},
		{"bmp utf8 after é", bmpText, utf8Enc, pos(0, 2), 2},
		{"bmp utf8 inside 中 rounds down", bmpText, utf8Enc, pos(0, 4), 2},
		{"bmp utf8 after 中", bmpText, utf8Enc, pos(0, 5), 5},
		{"bmp utf8 end", bmpText, utf8Enc, pos(0, 6), 6},

		// Astral: utf-16 columns a=0 😀=1 b=3 𝄞=4 c=6 end=7.
		{"astral utf16 before 😀", astralText, utf16Enc, pos(0, 1), 1},
		{"astral utf16 inside 😀 rounds down", astralText, utf16Enc, pos(0, 2), 1},
		{"astral utf16 after 😀", astralText, utf16Enc, pos(0, 3), 5},
		{"astral utf16 before 𝄞", astralText, utf16Enc, pos(0, 4), 6},
		{"astral utf16 inside 𝄞 rounds down", astralText, utf16Enc, pos(0, 5), 6},
		{"astral utf16 after 𝄞", astralText, utf16Enc, pos(0, 6), 10},
		{"astral utf16 end", astralText, utf16Enc, pos(0, 7), 11},
		{"astral utf16 clamp", astralText, utf16Enc, pos(0, 8), 11},
		// utf-8 columns are byte offsets.
		{"astral utf8 inside 😀 rounds down", astralText, utf8Enc, pos(0, 3), 1},
		{"astral utf8 after 😀", astralText, utf8Enc, pos(0, 5), 5},
		{"astral utf8 inside 𝄞 rounds down", astralText, utf8Enc, pos(0, 9), 6},
		{"astral utf8 after 𝄞", astralText, utf8Enc, pos(0, 10), 10},
		// utf-32 columns a=0 😀=1 b=2 𝄞=3 c=4 end=5.
		{"astral utf32 after 😀", astralText, utf32Enc, pos(0, 2), 5},
		{"astral utf32 after b", astralText, utf32Enc, pos(0, 3), 6},
		{"astral utf32 after 𝄞", astralText, utf32Enc, pos(0, 4), 10},
		{"astral utf32 end", astralText, utf32Enc, pos(0, 5), 11},

		// Invalid UTF-8: every bad byte is one unit in every encoding.
		{"invalid byte utf16", "a\xffb", utf16Enc, pos(0, 2), 2},
		{"invalid byte utf8", "a\xffb", utf8Enc, pos(0, 2), 2},
		{"invalid byte utf32", "a\xffb", utf32Enc, pos(0, 2), 2},
		{"truncated sequence utf16", "\xe4\xb8x", utf16Enc, pos(0, 1), 1},
		{"truncated sequence utf32", "\xe4\xb8x", utf32Enc, pos(0, 2), 2},

		// An invalid encoding behaves as utf-16.
		{"invalid encoding is utf16", astralText, "bogus", pos(0, 3), 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := position.NewMapper([]byte(tt.content), tt.enc).Offset(tt.pos)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Offset(%q, %s, %+v) mismatch (-want +got):\n%s", tt.content, tt.enc, tt.pos, diff)
			}
		})
	}
}

func TestPosition(t *testing.T) {
	tests := []struct {
		name    string
		content string
		enc     position.Encoding
		offset  int
		want    position.Position
	}{
		{"ascii start", "hello\nworld", utf16Enc, 0, pos(0, 0)},
		{"ascii on LF", "hello\nworld", utf16Enc, 5, pos(0, 5)},
		{"ascii second line", "hello\nworld", utf16Enc, 8, pos(1, 2)},
		{"negative clamps to start", "hello\nworld", utf16Enc, -7, pos(0, 0)},
		{"past end clamps to end", "hello\nworld", utf16Enc, 99, pos(1, 5)},
		{"min int", "hello", utf16Enc, math.MinInt, pos(0, 0)},
		{"max int", "hello", utf16Enc, math.MaxInt, pos(0, 5)},

		{"crlf on CR", "ab\r\ncd", utf16Enc, 2, pos(0, 2)},
		{"crlf on LF belongs to the line", "ab\r\ncd", utf16Enc, 3, pos(0, 2)},
		{"crlf next line", "ab\r\ncd", utf16Enc, 4, pos(1, 0)},
		{"crlf end", "ab\r\ncd", utf16Enc, 6, pos(1, 2)},
		{"lone cr", "ab\rcd", utf16Enc, 3, pos(1, 0)},
		{"mixed last line", "a\nb\r\nc\rd", utf16Enc, 7, pos(3, 0)},
		{"CR CR LF LF on inner LF", "\r\r\n\n", utf16Enc, 2, pos(1, 0)},
		{"CR CR LF LF end", "\r\r\n\n", utf16Enc, 4, pos(3, 0)},

		{"empty", "", utf16Enc, 0, pos(0, 0)},
		{"empty past end", "", utf16Enc, 3, pos(0, 0)},
		{"trailing newline end", "a\n", utf16Enc, 2, pos(1, 0)},

		{"bmp utf16 inside é rounds down", bmpText, utf16Enc, 1, pos(0, 0)},
		{"bmp utf16 after é", bmpText, utf16Enc, 2, pos(0, 1)},
		{"bmp utf16 inside 中", bmpText, utf16Enc, 4, pos(0, 1)},
		{"bmp utf16 end", bmpText, utf16Enc, 6, pos(0, 3)},
		{"bmp utf8 after 中", bmpText, utf8Enc, 5, pos(0, 5)},
		{"bmp utf8 inside 中", bmpText, utf8Enc, 3, pos(0, 2)},
		{"bmp utf32 after 中", bmpText, utf32Enc, 5, pos(0, 2)},

		{"astral utf16 inside 😀", astralText, utf16Enc, 3, pos(0, 1)},
		{"astral utf16 after 😀", astralText, utf16Enc, 5, pos(0, 3)},
		{"astral utf16 after 𝄞", astralText, utf16Enc, 10, pos(0, 6)},
		{"astral utf16 end", astralText, utf16Enc, 11, pos(0, 7)},
		{"astral utf8 after 😀", astralText, utf8Enc, 5, pos(0, 5)},
		{"astral utf8 inside 𝄞", astralText, utf8Enc, 8, pos(0, 6)},
		{"astral utf32 after 😀", astralText, utf32Enc, 5, pos(0, 2)},
		{"astral utf32 end", astralText, utf32Enc, 11, pos(0, 5)},

		{"invalid byte utf8", "a\xffb", utf8Enc, 2, pos(0, 2)},
		{"invalid byte utf16", "\xff\xfe", utf16Enc, 2, pos(0, 2)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := position.NewMapper([]byte(tt.content), tt.enc).Position(tt.offset)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Position(%q, %s, %d) mismatch (-want +got):\n%s", tt.content, tt.enc, tt.offset, diff)
			}
		})
	}
}

func TestOffsetRange(t *testing.T) {
	type result struct {
		Start, End int
		Inverted   bool
	}
	tests := []struct {
		name    string
		content string
		r       position.Range
		want    result
	}{
		{"ordinary", "hello\nworld", *rng(0, 1, 1, 2), result{1, 8, false}},
		{"empty", "hello", *rng(0, 2, 0, 2), result{2, 2, false}},
		{"inverted", "hello", *rng(0, 3, 0, 1), result{0, 0, true}},
		{"inverted lines", "a\nb", *rng(1, 0, 0, 0), result{0, 0, true}},
		// Both ends clamp to the end of line 0, so after clamping it is empty.
		{"inverted but equal after clamping", "abc\ndef", *rng(0, 9, 0, 5), result{3, 3, false}},
		// Both round down to the start of 😀.
		{"inverted inside surrogate pair", astralText, *rng(0, 2, 0, 1), result{1, 1, false}},
		{"both past last line", "abc", *rng(7, 0, 5, 0), result{3, 3, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start, end, err := position.NewMapper([]byte(tt.content), utf16Enc).OffsetRange(tt.r)
			if err != nil && !errors.Is(err, position.ErrInvertedRange) {
				t.Fatalf("OffsetRange: unexpected error %v", err)
			}
			got := result{start, end, err != nil}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("OffsetRange(%q, %+v) mismatch (-want +got):\n%s", tt.content, tt.r, diff)
			}
		})
	}
}

func TestOffsetRangeErrorMessage(t *testing.T) {
	_, _, err := position.NewMapper([]byte("hello"), utf16Enc).OffsetRange(*rng(0, 3, 0, 1))
	if !errors.Is(err, position.ErrInvertedRange) {
		t.Fatalf("err = %v, want ErrInvertedRange", err)
	}
	for _, want := range []string{"0:3", "0:1", "offset 3", "offset 1"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

func TestApplyChanges(t *testing.T) {
	tests := []struct {
		name    string
		content string
		enc     position.Encoding
		changes []position.Change
		want    string
	}{
		{"no changes", "abc", utf16Enc, nil, "abc"},
		{"empty content no changes", "", utf16Enc, nil, ""},
		{"full replace", "abc", utf16Enc, []position.Change{{Text: "xyz\n"}}, "xyz\n"},
		{"full replace with empty", "abc", utf16Enc, []position.Change{{Text: ""}}, ""},
		{
			"incremental and full in one call",
			"hello",
			utf16Enc,
			[]position.Change{
				{Range: rng(0, 0, 0, 5), Text: "x"},
				{Text: "abc\ndef"},
				{Range: rng(1, 0, 1, 3), Text: "XYZ"},
				{Range: rng(0, 3, 0, 3), Text: "!"},
			},
			"abc!\nXYZ",
		},
		{
			"each change sees the previous result",
			"abc",
			utf16Enc,
			[]position.Change{
				{Range: rng(0, 1, 0, 1), Text: "X"},
				{Range: rng(0, 2, 0, 2), Text: "Y"},
			},
			"aXYbc",
		},
		{"insert at end of last line", "a\nb", utf16Enc, []position.Change{{Range: rng(1, 1, 1, 1), Text: "c"}}, "a\nbc"},
		{"insert past last line appends", "a\nb", utf16Enc, []position.Change{{Range: rng(5, 0, 5, 0), Text: "!"}}, "a\nb!"},
		{"insert at end after trailing newline", "a\n", utf16Enc, []position.Change{{Range: rng(1, 0, 1, 0), Text: "b"}}, "a\nb"},
		{"insert into empty", "", utf16Enc, []position.Change{{Range: rng(0, 0, 0, 0), Text: "x"}}, "x"},
		{
			"delete across CRLF lines",
			"one\r\ntwo\r\nthree",
			utf16Enc,
			[]position.Change{{Range: rng(0, 3, 2, 0), Text: ""}},
			"onethree",
		},
		{
			"delete from mid line across CRLF",
			"one\r\ntwo\r\nthree",
			utf16Enc,
			[]position.Change{{Range: rng(0, 1, 1, 1), Text: ""}},
			"owo\r\nthree",
		},
		{
			"char past end of CRLF line keeps the break",
			"one\r\ntwo",
			utf16Enc,
			[]position.Change{{Range: rng(0, 99, 0, 99), Text: "!"}},
			"one!\r\ntwo",
		},
		{
			"joining CR and LF makes one break",
			"a\rb",
			utf16Enc,
			[]position.Change{
				{Range: rng(1, 0, 1, 1), Text: "\n"},
				// "a\r\n" now has 2 lines; line 1 is empty.
				{Range: rng(1, 0, 1, 0), Text: "z"},
			},
			"a\r\nz",
		},
		{"utf16 insert after 😀", astralText, utf16Enc, []position.Change{{Range: rng(0, 3, 0, 3), Text: "X"}}, "a😀Xb𝄞c"},
		{"utf16 insert inside 😀 rounds down", astralText, utf16Enc, []position.Change{{Range: rng(0, 2, 0, 2), Text: "X"}}, "aX😀b𝄞c"},
		{"utf16 replace 𝄞", astralText, utf16Enc, []position.Change{{Range: rng(0, 4, 0, 6), Text: "é"}}, "a😀béc"},
		{"utf8 replace 😀", astralText, utf8Enc, []position.Change{{Range: rng(0, 1, 0, 5), Text: "中"}}, "a中b𝄞c"},
		{"utf8 range inside chars rounds down", astralText, utf8Enc, []position.Change{{Range: rng(0, 2, 0, 7), Text: ""}}, "a𝄞c"},
		{"utf32 replace b", astralText, utf32Enc, []position.Change{{Range: rng(0, 2, 0, 3), Text: "\r\n"}}, "a😀\r\n𝄞c"},
		{"invalid encoding behaves as utf16", astralText, "", []position.Change{{Range: rng(0, 3, 0, 3), Text: "X"}}, "a😀Xb𝄞c"},
		{"nominally inverted but equal after clamping", "abc", utf16Enc, []position.Change{{Range: rng(0, 10, 0, 5), Text: "!"}}, "abc!"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := position.ApplyChanges([]byte(tt.content), tt.enc, tt.changes)
			if err != nil {
				t.Fatalf("ApplyChanges: %v", err)
			}
			if got == nil {
				t.Fatalf("ApplyChanges returned nil on success")
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("ApplyChanges mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestApplyChangesInvertedRange(t *testing.T) {
	tests := []struct {
		name      string
		changes   []position.Change
		wantIndex string
	}{
		{"first change inverted", []position.Change{{Range: rng(0, 2, 0, 1), Text: "x"}}, "change 0 of 1"},
		{
			"later change inverted after valid ones",
			[]position.Change{
				{Range: rng(0, 0, 0, 0), Text: "z"},
				{Text: "a\nb\nc"},
				{Range: rng(2, 0, 1, 0), Text: ""},
			},
			"change 2 of 3",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Spare capacity would reveal an append that wrote into the input.
			buf := make([]byte, 3, 64)
			copy(buf, "abc")
			got, err := position.ApplyChanges(buf, utf16Enc, tt.changes)
			if !errors.Is(err, position.ErrInvertedRange) {
				t.Fatalf("err = %v, want ErrInvertedRange", err)
			}
			if !strings.Contains(err.Error(), tt.wantIndex) {
				t.Errorf("error %q does not contain %q", err, tt.wantIndex)
			}
			if got != nil {
				t.Errorf("result = %q, want nil on error", got)
			}
			if diff := cmp.Diff(append([]byte("abc"), make([]byte, 61)...), buf[:64]); diff != "" {
				t.Errorf("input modified (-want +got):\n%s", diff)
			}
		})
	}
}

func TestApplyChangesDoesNotModifyInput(t *testing.T) {
	buf := make([]byte, 5, 64)
	copy(buf, "hello")
	changes := []position.Change{
		{Range: rng(0, 5, 0, 5), Text: " world"},
		{Range: rng(0, 0, 0, 1), Text: "J"},
	}
	got, err := position.ApplyChanges(buf, utf16Enc, changes)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("Jello world", string(got)); diff != "" {
		t.Errorf("result mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(append([]byte("hello"), make([]byte, 59)...), buf[:64]); diff != "" {
		t.Errorf("input modified (-want +got):\n%s", diff)
	}
	// Mutating the result must not affect the input either.
	got[0] = 'X'
	if string(buf) != "hello" {
		t.Errorf("result aliases input: %q", buf)
	}
}

// TestNilAndZeroMapper checks that an unset mapper degrades to empty content.
func TestNilAndZeroMapper(t *testing.T) {
	for name, m := range map[string]*position.Mapper{"nil": nil, "zero": {}} {
		t.Run(name, func(t *testing.T) {
			type result struct {
				Lines  int
				Offset int
				Pos    position.Position
			}
			got := result{m.LineCount(), m.Offset(pos(3, 4)), m.Position(10)}
			if diff := cmp.Diff(result{1, 0, pos(0, 0)}, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// roundTripContents exercises every kind of line break, multi-byte and
// astral characters, and invalid UTF-8.
var roundTripContents = []string{
	"",
	"\n",
	"\r",
	"\r\n",
	"\r\r\n\n",
	"hello\nworld",
	"a\nb\r\nc\rd\n",
	bmpText + "\r\n" + astralText,
	"😀\r𝄞\n中\r\né",
	"a\xffb\r\n\xe4\xb8\n\xf0\x9f\x98",
	"\xed\xa0\x80 surrogate encoded in UTF-8",
	"\uFFFD real replacement char",
}

// boundaries returns every character-boundary offset of content, the offsets
// that Offset can return: rune starts (each invalid byte is its own
// character) and len(content), minus the position between "\r" and "\n".
func boundaries(content []byte) []int {
	var out []int
	for o := 0; o < len(content); {
		if !(o > 0 && content[o-1] == '\r' && content[o] == '\n') {
			out = append(out, o)
		}
		_, size := utf8.DecodeRune(content[o:])
		o += size
	}
	return append(out, len(content))
}

func TestRoundTrip(t *testing.T) {
	for _, content := range roundTripContents {
		for _, enc := range allEncodings {
			m := position.NewMapper([]byte(content), enc)
			var prev position.Position
			for i, o := range boundaries([]byte(content)) {
				p := m.Position(o)
				if got := m.Offset(p); got != o {
					t.Errorf("%q %s: Offset(Position(%d)=%+v) = %d, want %d", content, enc, o, p, got, o)
				}
				// Positions of increasing boundaries strictly increase.
				if i > 0 && !(p.Line > prev.Line || (p.Line == prev.Line && p.Character > prev.Character)) {
					t.Errorf("%q %s: Position(%d)=%+v not after previous %+v", content, enc, o, p, prev)
				}
				prev = p
			}
		}
	}
}

// TestConcurrentUse runs readers in parallel so `go test -race` would flag
// any lazily mutated state in Mapper.
func TestConcurrentUse(t *testing.T) {
	content := []byte(strings.Repeat("ab😀\r\ncd中\n", 50))
	m := position.NewMapper(content, utf16Enc)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for o := g; o <= len(content); o += 3 {
				_ = m.Offset(m.Position(o))
				_ = m.LineCount()
			}
		}()
	}
	wg.Wait()
}

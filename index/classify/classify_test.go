package classify_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/index/buffer"
	"github.com/ctxd/ctxd/index/classify"
)

func text(enc classify.Encoding) classify.Result { return classify.Result{Encoding: enc} }

func bin(reason string) classify.Result {
	return classify.Result{Binary: true, Encoding: classify.Unknown, Reason: reason}
}

func unknown(reason string) classify.Result {
	return classify.Result{Encoding: classify.Unknown, Reason: reason}
}

// le16 and be16 encode s as UTF-16 with a byte order mark.
func le16(s string) []byte { return enc16(s, binary.LittleEndian, []byte{0xFF, 0xFE}) }
func be16(s string) []byte { return enc16(s, binary.BigEndian, []byte{0xFE, 0xFF}) }

func enc16(s string, order binary.AppendByteOrder, bom []byte) []byte {
	out := bytes.Clone(bom)
	for _, u := range utf16.Encode([]rune(s)) {
		out = order.AppendUint16(out, u)
	}
	return out
}

// units builds UTF-16LE (with BOM) from raw code units, valid or not.
func units(us ...uint16) []byte {
	out := []byte{0xFF, 0xFE}
	for _, u := range us {
		out = binary.LittleEndian.AppendUint16(out, u)
	}
	return out
}

// pe builds a minimal PE header: "MZ", e_lfanew at 0x3C, "PE\0\0" there.
func pe(lfanew uint32, size int) []byte {
	d := make([]byte, size)
	copy(d, "MZ")
	binary.LittleEndian.PutUint32(d[0x3C:], lfanew)
	if int(lfanew)+4 <= size {
		copy(d[lfanew:], "PE\x00\x00")
	}
	return d
}

// at puts sig at offset off of a text filler of size bytes.
func at(off int, sig string, size int) []byte {
	d := bytes.Repeat([]byte("x"), size)
	copy(d[off:], sig)
	return d
}

func TestDetect(t *testing.T) {
	long := strings.Repeat("line of text\n", 10000)
	tests := []struct {
		name string
		data []byte
		want classify.Result
	}{
		// Plain text.
		{"empty", nil, text(classify.ASCII)},
		{"ascii", []byte("package main\n\nfunc main() {}\n"), text(classify.ASCII)},
		{"utf-8", []byte("héllo wörld — ✓\n"), text(classify.UTF8)},
		{"utf-8 four-byte", []byte("emoji 🙂\n"), text(classify.UTF8)},
		{"whitespace controls", []byte("a\tb\vc\fd\r\ne\n"), text(classify.ASCII)},
		{"ansi escapes", []byte("\x1b[31mred\x1b[0m \x1b[1mbold\x1b[0m\n"), text(classify.ASCII)},
		{"one control in many", append(bytes.Repeat([]byte("abcdefghij"), 10), 0x01), text(classify.ASCII)},

		// Byte order marks.
		{"utf-8 bom", []byte("\xEF\xBB\xBFhello"), text(classify.UTF8)},
		{"utf-8 bom only", []byte("\xEF\xBB\xBF"), text(classify.UTF8)},
		{"utf-8 bom non-ascii", []byte("\xEF\xBB\xBFcafé"), text(classify.UTF8)},
		{"utf-8 bom invalid", []byte("\xEF\xBB\xBFcaf\xE9"), unknown("invalid utf-8 after a utf-8 byte order mark")},
		{"utf-8 bom nul", []byte("\xEF\xBB\xBFa\x00b"), bin("nul byte")},
		{"utf-8 bom then png", []byte("\xEF\xBB\xBF\x89PNG\r\n\x1a\n"), bin("control characters")},
		{"utf-16le", le16("hello\r\nwörld 🙂\n"), text(classify.UTF16LE)},
		{"utf-16be", be16("hello\r\nwörld 🙂\n"), text(classify.UTF16BE)},
		{"utf-16le bom only", []byte{0xFF, 0xFE}, text(classify.UTF16LE)},
		{"utf-16be bom only", []byte{0xFE, 0xFF}, text(classify.UTF16BE)},
		{"utf-16le odd length", append(le16("hi"), 'x'), unknown("odd-length utf-16")},
		{"utf-16be odd length", []byte{0xFE, 0xFF, 0x00}, unknown("odd-length utf-16")},
		{"utf-16 lone high surrogate", units('a', 0xD83D, 'b'), unknown("invalid utf-16")},
		{"utf-16 high surrogate at end", units('a', 0xD83D), unknown("invalid utf-16")},
		{"utf-16 lone low surrogate", units('a', 0xDE42), unknown("invalid utf-16")},
		{"utf-16 swapped surrogates", units(0xDE42, 0xD83D), unknown("invalid utf-16")},
		{"utf-16 surrogate pair", units(0xD83D, 0xDE42), text(classify.UTF16LE)},
		{"utf-16 nul character", units('a', 0, 'b'), bin("nul character in utf-16")},
		{"utf-16 controls", units(1, 2, 3, 'a'), bin("control characters")},
		{"utf-32le bom", []byte{0xFF, 0xFE, 0x00, 0x00, 'a', 0, 0, 0}, unknown("utf-32 byte order mark")},
		{"utf-32be bom", []byte{0x00, 0x00, 0xFE, 0xFF, 0, 0, 0, 'a'}, unknown("utf-32 byte order mark")},

		// Magic numbers.
		{"png", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), bin("png magic number")},
		{"jpeg", []byte("\xFF\xD8\xFF\xE0\x00\x10JFIF"), bin("jpeg magic number")},
		{"gif87a", []byte("GIF87a\x01\x00"), bin("gif magic number")},
		{"gif89a", []byte("GIF89a\x01\x00"), bin("gif magic number")},
		{"pdf", []byte("%PDF-1.7\n%\xE2\xE3\xCF\xD3\n"), bin("pdf magic number")},
		{"pdf all ascii", []byte("%PDF-1.4\n1 0 obj\n<< >>\nendobj\n"), bin("pdf magic number")},
		{"zip", []byte("PK\x03\x04\x14\x00"), bin("zip magic number")},
		{"zip empty", []byte("PK\x05\x06"), bin("zip magic number")},
		{"zip spanned", []byte("PK\x07\x08"), bin("zip magic number")},
		{"gzip", []byte("\x1F\x8B\x08\x00"), bin("gzip magic number")},
		{"bzip2", []byte("BZh91AY&SYxyz"), bin("bzip2 magic number")},
		{"bzip2 empty stream", []byte("BZh9\x17rE8P\x90\x00\x00\x00\x00"), bin("bzip2 magic number")},
		{"xz", []byte("\xFD7zXZ\x00\x00\x04"), bin("xz magic number")},
		{"zstd", []byte("\x28\xB5\x2F\xFD\x04\x00"), bin("zstd magic number")},
		{"7z", []byte("7z\xBC\xAF\x27\x1C\x00\x04"), bin("7z magic number")},
		{"rar4", []byte("Rar!\x1A\x07\x00"), bin("rar magic number")},
		{"rar5", []byte("Rar!\x1A\x07\x01\x00"), bin("rar magic number")},
		{"elf", []byte("\x7FELF\x02\x01\x01"), bin("elf magic number")},
		{"mach-o 32 be", []byte("\xFE\xED\xFA\xCE\x00"), bin("mach-o magic number")},
		{"mach-o 64 be", []byte("\xFE\xED\xFA\xCF\x00"), bin("mach-o magic number")},
		{"mach-o 32 le", []byte("\xCE\xFA\xED\xFE\x07"), bin("mach-o magic number")},
		{"mach-o 64 le", []byte("\xCF\xFA\xED\xFE\x07"), bin("mach-o magic number")},
		{"mach-o universal", []byte("\xCA\xFE\xBA\xBE\x00\x00\x00\x02"), bin("mach-o universal magic number")},
		{"mach-o universal 64", []byte("\xCA\xFE\xBA\xBF\x00\x00\x00\x02"), bin("mach-o universal magic number")},
		{"java class", []byte("\xCA\xFE\xBA\xBE\x00\x00\x00\x41"), bin("java class magic number")},
		{"pe", pe(0x80, 0x100), bin("pe magic number")},
		{"wasm", []byte("\x00asm\x01\x00\x00\x00"), bin("wasm magic number")},
		{"sqlite", []byte("SQLite format 3\x00\x10\x00"), bin("sqlite magic number")},
		{"tar posix", at(257, "ustar\x0000", 512), bin("tar magic number")},
		{"tar gnu", at(257, "ustar  \x00", 512), bin("tar magic number")},
		{"ico", []byte("\x00\x00\x01\x00\x01\x00"), bin("ico magic number")},
		{"cur", []byte("\x00\x00\x02\x00\x01\x00"), bin("cur magic number")},
		{"tiff little-endian", []byte("II*\x00\x08\x00"), bin("tiff magic number")},
		{"tiff big-endian", []byte("MM\x00*\x00\x00"), bin("tiff magic number")},
		{"webp", []byte("RIFF\x24\x00\x00\x00WEBPVP8 "), bin("riff magic number")},
		{"wav", []byte("RIFF\x24\x00\x00\x00WAVEfmt "), bin("riff magic number")},
		{"mp3 id3", []byte("ID3\x04\x00\x00\x00\x00\x00\x00"), bin("mp3 magic number")},
		{"mp3 frame", []byte("\xFF\xFB\x90\x64"), bin("mp3 magic number")},
		{"mp3 mpeg2 frame", []byte("\xFF\xF3\x90\x64"), bin("mp3 magic number")},
		{"ogg", []byte("OggS\x00\x02"), bin("ogg magic number")},
		{"mp4", []byte("\x00\x00\x00\x18ftypmp42"), bin("mp4 magic number")},
		{"mov", []byte("\x00\x00\x00\x14ftypqt  "), bin("mp4 magic number")},
		{"bmp", []byte("BM\x36\x00\x00\x00\x00\x00\x00\x00\x36\x00\x00\x00\x28\x00\x00\x00"), bin("bmp magic number")},

		// Text that merely starts like a format is still text.
		{"BZh text", []byte("BZh9 is a bzip2 block size\n"), text(classify.ASCII)},
		{"MZ text", []byte("MZ,Mozambique\nMW,Malawi\n"), text(classify.ASCII)},
		{"MZ long text", append([]byte("MZ"), bytes.Repeat([]byte("text "), 40)...), text(classify.ASCII)},
		{"pe pointer out of range", pe(0x1000, 0x100), bin("nul byte")},
		{"RIFF text", []byte("RIFF raff\n"), text(classify.ASCII)},
		{"RIFF longer text", []byte("RIFF is a container format\n"), text(classify.ASCII)},
		{"avi", []byte("RIFF\x24\x00\x00\x00AVI LIST"), bin("riff magic number")},
		{"ID3 text", []byte("ID3 tags hold metadata\n"), text(classify.ASCII)},
		{"BM text", []byte("BM25 ranks documents by relevance\n"), text(classify.ASCII)},
		{"ftyp text", []byte("the ftyp box\n"), text(classify.ASCII)},
		{"ustar text", at(257, "ustar is a tar format", 600), text(classify.ASCII)},
		{"PK text", []byte("PK is a primary key\n"), text(classify.ASCII)},

		// NUL anywhere.
		{"nul first", []byte("\x00abc"), bin("nul byte")},
		{"nul last", []byte("abc\x00"), bin("nul byte")},
		{"nul far away", append([]byte(long), 0), bin("nul byte")},

		// Invalid UTF-8: Windows-1252 or binary.
		{"windows-1252", []byte("caf\xE9"), text(classify.Windows1252)},
		{"windows-1252 quotes and dash", []byte("\x93quoted\x94 \x96 dash \x80 5\n"), text(classify.Windows1252)},
		{"windows-1252 high range", []byte("na\xEFve r\xE9sum\xE9 \xFF\n"), text(classify.Windows1252)},
		{"mixed utf-8 and windows-1252", []byte("héllo caf\xE9\n"), text(classify.Windows1252)},
		{"mixed with undefined byte", []byte("\xC4\x81 caf\xE9\n"), unknown("invalid utf-8 and not windows-1252")},
		{"undefined 0x81", []byte("caf\xE9 \x81"), unknown("invalid utf-8 and not windows-1252")},
		{"undefined 0x8D", []byte("caf\xE9 \x8D"), unknown("invalid utf-8 and not windows-1252")},
		{"undefined 0x8F", []byte("caf\xE9 \x8F"), unknown("invalid utf-8 and not windows-1252")},
		{"undefined 0x90", []byte("caf\xE9 \x90"), unknown("invalid utf-8 and not windows-1252")},
		{"undefined 0x9D", []byte("caf\xE9 \x9D"), unknown("invalid utf-8 and not windows-1252")},
		{"windows-1252 with many controls", []byte("caf\xE9\x01\x02 text"), bin("control characters")},
		{"windows-1252 with some controls", []byte("caf\xE9\x01 some more text here"), unknown("invalid utf-8 and not windows-1252")},
		{"random high bytes and controls", []byte("\x81\x02\x8D\x03\x90\x04\x9D"), bin("control characters")},
		{"windows-1252 rare control", append(bytes.Repeat([]byte("caf\xE9 au lait "), 20), 0x01), text(classify.Windows1252)},
		{"truncated utf-8", []byte("abc \xE2\x82"), text(classify.Windows1252)},

		// Control characters.
		{"ascii controls", []byte("a\x01b\x02c\x03d"), bin("control characters")},
		{"del heavy", []byte("a\x7F\x7F\x7Fb"), bin("control characters")},
		{"utf-8 controls", []byte("é\x01é\x02é\x03"), bin("control characters")},
		{"controls after bom", []byte("\xEF\xBB\xBF\x01\x02\x03a"), bin("control characters")},
		{"ten percent is still text", []byte("\x01abcdefghi"), text(classify.ASCII)},
		{"eleven percent is binary", []byte("\x01\x02abcdefghijklmnop"), bin("control characters")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := classify.Detect(tt.data)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Detect(%q) mismatch (-want +got):\n%s", tt.data, diff)
			}
		})
	}
}

// TestDetectScanWords moves one odd byte through every position of texts
// of 1 to 40 bytes, so that the sixteen-bytes-at-a-time scan is checked at
// each byte of both its words and in the tail.
func TestDetectScanWords(t *testing.T) {
	for _, tc := range []struct {
		b    byte
		want classify.Result
	}{
		{0x01, bin("control characters")},
		{0x7F, bin("control characters")},
		{0xE9, text(classify.Windows1252)},
		{0x81, unknown("invalid utf-8 and not windows-1252")},
	} {
		for size := 1; size <= 40; size++ {
			for i := range size {
				data := bytes.Repeat([]byte{'a'}, size)
				data[i] = tc.b
				want := tc.want
				if tc.b < 0x80 && size >= 10 {
					want = text(classify.ASCII) // one control in ten or more bytes
				}
				if diff := cmp.Diff(want, classify.Detect(data)); diff != "" {
					t.Errorf("byte 0x%02x at %d of %d mismatch (-want +got):\n%s", tc.b, i, size, diff)
				}
			}
		}
	}
}

func TestDecode(t *testing.T) {
	cp1252High := make([]byte, 0, 128)
	for c := 0x80; c <= 0xFF; c++ {
		switch c {
		case 0x81, 0x8D, 0x8F, 0x90, 0x9D:
			continue
		}
		cp1252High = append(cp1252High, byte(c))
	}
	tests := []struct {
		name string
		data []byte
		enc  classify.Encoding
		want string
	}{
		{"utf-8", []byte("héllo"), classify.UTF8, "héllo"},
		{"utf-8 bom", []byte("\xEF\xBB\xBFhéllo"), classify.UTF8, "héllo"},
		{"utf-8 empty", nil, classify.UTF8, ""},
		{"ascii", []byte("plain\r\n"), classify.ASCII, "plain\r\n"},
		{"utf-16le", le16("wörld 🙂\r\n"), classify.UTF16LE, "wörld 🙂\r\n"},
		{"utf-16be", be16("wörld 🙂\r\n"), classify.UTF16BE, "wörld 🙂\r\n"},
		{"utf-16le without bom", le16("ab")[2:], classify.UTF16LE, "ab"},
		{"utf-16le bom only", []byte{0xFF, 0xFE}, classify.UTF16LE, ""},
		{"windows-1252", []byte("caf\xE9 \x80 \x93q\x94 \x9F \xA0|"), classify.Windows1252, "café € “q” Ÿ \u00a0|"},
		{"windows-1252 all defined high bytes", cp1252High, classify.Windows1252,
			"€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ\u00a0¡¢£¤¥¦§¨©ª«¬\u00ad®¯°±²³´µ¶·¸¹º»¼½¾¿ÀÁÂÃÄÅÆÇÈÉÊËÌÍÎÏÐÑÒÓÔÕÖ×ØÙÚÛÜÝÞßàáâãäåæçèéêëìíîïðñòóôõö÷øùúûüýþÿ"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := classify.Decode(tt.data, tt.enc)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("Decode(%q, %s) mismatch (-want +got):\n%s", tt.data, tt.enc, diff)
			}
		})
	}
}

// TestDecodeUTF8Subslice: UTF-8 and ASCII are returned without copying.
func TestDecodeUTF8Subslice(t *testing.T) {
	data := []byte("\xEF\xBB\xBFabc")
	got, err := classify.Decode(data, classify.UTF8)
	if err != nil {
		t.Fatal(err)
	}
	if &got[0] != &data[3] {
		t.Error("Decode copied UTF-8 text instead of returning a subslice")
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		enc  classify.Encoding
		want error
	}{
		{"unknown", []byte("abc"), classify.Unknown, classify.ErrUnknownEncoding},
		{"empty encoding", []byte("abc"), "", classify.ErrUnknownEncoding},
		{"unlisted encoding", []byte("abc"), "latin-1", classify.ErrUnknownEncoding},
		{"invalid utf-8", []byte("caf\xE9"), classify.UTF8, classify.ErrInvalid},
		{"ascii high byte", []byte("caf\xE9"), classify.ASCII, classify.ErrInvalid},
		{"ascii with bom", []byte("\xEF\xBB\xBFa"), classify.ASCII, classify.ErrInvalid},
		{"utf-16 odd", []byte{0xFF, 0xFE, 'a'}, classify.UTF16LE, classify.ErrInvalid},
		{"utf-16 lone surrogate", units(0xD83D, 'a'), classify.UTF16LE, classify.ErrInvalid},
		{"utf-16 surrogate at end", units(0xD83D), classify.UTF16LE, classify.ErrInvalid},
		{"utf-16 low surrogate first", units(0xDE42), classify.UTF16LE, classify.ErrInvalid},
		{"windows-1252 undefined", []byte("a\x81b"), classify.Windows1252, classify.ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := classify.Decode(tt.data, tt.enc)
			if !errors.Is(err, tt.want) {
				t.Errorf("Decode(%q, %q) = %q, %v; want an error wrapping %v", tt.data, tt.enc, got, err, tt.want)
			}
		})
	}
}

func TestLineCount(t *testing.T) {
	tests := []struct {
		text string
		want int
	}{
		{"", 1},
		{"a", 1},
		{"a\n", 2},
		{"a\nb", 2},
		{"a\r\nb", 2},
		{"a\rb", 2},
		{"\r\n", 2},
		{"\r\r\n", 3},
		{"\n\r", 3},
		{"\r", 2},
		{"a\r\n\r\n\n\r", 5},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			got := classify.LineCount([]byte(tt.text))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("LineCount(%q) mismatch (-want +got):\n%s", tt.text, diff)
			}
			doc := buffer.FromString(tt.text).LineCount()
			if diff := cmp.Diff(doc, got); diff != "" {
				t.Errorf("LineCount(%q) differs from the open documents' buffer.Text.LineCount (-document +classify):\n%s", tt.text, diff)
			}
		})
	}
}

func TestDetectPrefix(t *testing.T) {
	type verdict struct {
		Result classify.Result
		OK     bool
	}
	tests := []struct {
		name   string
		prefix []byte
		want   verdict
	}{
		{"text", []byte("package main\n"), verdict{}},
		{"empty", nil, verdict{}},
		{"nul", []byte("abc\x00def"), verdict{bin("nul byte"), true}},
		{"too short to rule out a bom", []byte("\x00\x00"), verdict{}},
		{"zeros of a sparse file", make([]byte, classify.PrefixSize), verdict{bin("nul byte"), true}},
		{"nul after a utf-8 bom", []byte("\xEF\xBB\xBFa\x00"), verdict{bin("nul byte"), true}},
		{"png", []byte("\x89PNG\r\n\x1a\nrest"), verdict{bin("png magic number"), true}},
		{"utf-16 keeps its nul bytes", le16("hi"), verdict{}},
		{"utf-32", []byte("\xFF\xFE\x00\x00h\x00\x00\x00"), verdict{unknown("utf-32 byte order mark"), true}},
		{"controls need the whole file", []byte("\x01\x02\x03"), verdict{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, ok := classify.DetectPrefix(tt.prefix)
			if diff := cmp.Diff(tt.want, verdict{r, ok}); diff != "" {
				t.Errorf("DetectPrefix (-want +got):\n%s", diff)
			}
		})
	}
}

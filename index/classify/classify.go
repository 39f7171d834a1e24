package classify

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

// Encoding names a text encoding ctxd can decode, or [Unknown].
type Encoding string

// The encodings Detect reports.
const (
	UTF8        Encoding = "utf-8"
	UTF16LE     Encoding = "utf-16le"
	UTF16BE     Encoding = "utf-16be"
	ASCII       Encoding = "ascii"
	Windows1252 Encoding = "windows-1252"
	// Unknown is the encoding of everything binary: there is nothing to
	// decode.
	Unknown Encoding = "unknown"
)

// Result is the verdict on one file's bytes. There are three kinds:
// binary (Binary, Encoding Unknown, a Reason), text in an encoding ctxd
// cannot decode (not Binary, Encoding Unknown, a Reason: invalid UTF-8 that
// is not Windows-1252, malformed UTF-16, UTF-32), and decodable text (not
// Binary, a known Encoding, no Reason). Neither of the first two may be
// shown to a model.
type Result struct {
	Binary bool
	// Encoding is meaningful only when !Binary; it is Unknown whenever
	// Binary is true, and for text that cannot be decoded.
	Encoding Encoding
	// Reason explains a binary or unknown verdict in a few words ("nul
	// byte", "png magic number", "invalid utf-8 and not windows-1252",
	// ...); "" for ordinary text.
	Reason string
}

// Errors of Decode, wrapped with details.
var (
	// ErrInvalid: the bytes are not valid in the encoding asked for.
	ErrInvalid = errors.New("invalid text for the encoding")
	// ErrUnknownEncoding: the encoding is Unknown or not one of ours.
	ErrUnknownEncoding = errors.New("no decoder for the encoding")
)

var (
	bomUTF8    = []byte{0xEF, 0xBB, 0xBF}
	bomUTF16LE = []byte{0xFF, 0xFE}
	bomUTF16BE = []byte{0xFE, 0xFF}
	bomUTF32LE = []byte{0xFF, 0xFE, 0x00, 0x00}
	bomUTF32BE = []byte{0x00, 0x00, 0xFE, 0xFF}
)

func binaryResult(reason string) Result {
	return Result{Binary: true, Encoding: Unknown, Reason: reason}
}

func unknownResult(reason string) Result {
	return Result{Encoding: Unknown, Reason: reason}
}

// Detect classifies data; the package documentation lists the rules. It
// never fails: an empty file is ASCII text.
func Detect(data []byte) Result {
	switch {
	case bytes.HasPrefix(data, bomUTF8):
		return detect8(data[len(bomUTF8):], true)
	case bytes.HasPrefix(data, bomUTF32LE), bytes.HasPrefix(data, bomUTF32BE):
		return unknownResult("utf-32 byte order mark")
	case bytes.HasPrefix(data, bomUTF16LE):
		return detect16(data[2:], binary.LittleEndian, UTF16LE)
	case bytes.HasPrefix(data, bomUTF16BE):
		return detect16(data[2:], binary.BigEndian, UTF16BE)
	}
	if name := magic(data); name != "" {
		return binaryResult(name + " magic number")
	}
	return detect8(data, false)
}

// detect8 applies the NUL, UTF-8, Windows-1252 and control rules. bom
// reports a UTF-8 byte order mark before body, which rules out every
// encoding but UTF-8.
func detect8(body []byte, bom bool) Result {
	if bytes.IndexByte(body, 0) >= 0 {
		return binaryResult("nul byte")
	}
	s := scan(body)
	switch {
	case !s.high:
		if tooManyControls(s.controls, len(body)) {
			return binaryResult("control characters")
		}
		if bom {
			return Result{Encoding: UTF8}
		}
		return Result{Encoding: ASCII}
	case utf8.Valid(body):
		if tooManyControls(s.controls, len(body)-s.continuations) {
			return binaryResult("control characters")
		}
		return Result{Encoding: UTF8}
	case tooManyControls(s.controls, len(body)):
		return binaryResult("control characters")
	case bom:
		return unknownResult("invalid utf-8 after a utf-8 byte order mark")
	case s.undefined1252 == 0 && s.controls*100 < len(body):
		return Result{Encoding: Windows1252}
	}
	return unknownResult("invalid utf-8 and not windows-1252")
}

// tooManyControls reports more than 10% control characters among n.
func tooManyControls(controls, n int) bool {
	return controls*10 > n
}

// stats are what one pass over 8-bit text finds.
type stats struct {
	controls      int  // control characters (see isControl)
	high          bool // a byte >= 0x80
	continuations int  // bytes 0x80..0xBF: in UTF-8, not a character of their own
	undefined1252 int  // bytes Windows-1252 leaves undefined
}

// byteClass flags bytes that need a closer look in scan.
var byteClass = func() (t [256]uint8) {
	for c := range 256 {
		switch {
		case isControl(rune(c)):
			t[c] = classControl
		case c == 0x81 || c == 0x8D || c == 0x8F || c == 0x90 || c == 0x9D:
			t[c] = classUndefined
		case c >= 0x80:
			t[c] = classHigh
		}
	}
	return t
}()

const (
	classPlain uint8 = iota
	classControl
	classHigh
	classUndefined
)

// isControl reports the control characters that count against text: C0
// controls but tab, LF, VT, FF, CR and ESC, and DEL.
func isControl(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', 0x1B:
		return false
	}
	return r < 0x20 || r == 0x7F
}

// SWAR masks: every byte 0x20, 0x7F, 0x80, and the allowed controls.
const (
	ones   = 0x0101010101010101
	spaces = 0x20 * ones
	lows   = 0x7F * ones
	highs  = 0x80 * ones
)

// zeroBytes sets the high bit of every byte of x that is zero, exactly
// (no carry crosses a byte).
func zeroBytes(x uint64) uint64 {
	return ^((x&lows + lows) | x | lows)
}

// scan counts what detect8 needs in one pass. Sixteen bytes at a time it
// skips runs that hold only printable ASCII, tab, LF and CR, the bulk of
// source code, and looks at each byte only in the other runs.
func scan(b []byte) stats {
	var s stats
	for len(b) >= 16 {
		// Two words per round give the processor independent work.
		if odd(binary.LittleEndian.Uint64(b))|odd(binary.LittleEndian.Uint64(b[8:])) != 0 {
			for _, c := range b[:16] {
				s.add(c)
			}
		}
		b = b[16:]
	}
	for _, c := range b {
		s.add(c)
	}
	return s
}

// odd returns a non-zero value when w holds a byte that is not printable
// ASCII, tab, LF or CR.
func odd(w uint64) uint64 {
	// Bytes below 0x20 (the OR keeps the subtraction inside each byte).
	ctl := ^((w | highs) - spaces) & ^w & highs
	ok := zeroBytes(w^('\t'*ones)) | zeroBytes(w^('\n'*ones)) | zeroBytes(w^('\r'*ones))
	return ctl&^ok | zeroBytes(w^lows) | w&highs
}

func (s *stats) add(c byte) {
	switch byteClass[c] {
	case classControl:
		s.controls++
	case classHigh:
		s.high = true
	case classUndefined:
		s.high = true
		s.undefined1252++
	}
	if c&0xC0 == 0x80 {
		s.continuations++
	}
}

// detect16 checks UTF-16 after its byte order mark.
func detect16(body []byte, order binary.ByteOrder, enc Encoding) Result {
	if len(body)%2 != 0 {
		return unknownResult("odd-length utf-16")
	}
	controls, n := 0, 0
	for i := 0; i < len(body); i += 2 {
		u := order.Uint16(body[i:])
		n++
		switch {
		case u == 0:
			return binaryResult("nul character in utf-16")
		case utf16.IsSurrogate(rune(u)):
			if u >= 0xDC00 || i+4 > len(body) {
				return unknownResult("invalid utf-16")
			}
			if lo := order.Uint16(body[i+2:]); lo < 0xDC00 || lo > 0xDFFF {
				return unknownResult("invalid utf-16")
			}
			i += 2
		case isControl(rune(u)):
			controls++
		}
	}
	if tooManyControls(controls, n) {
		return binaryResult("control characters")
	}
	return Result{Encoding: enc}
}

// Decode returns the text as UTF-8 (BOM removed) for utf-16le/utf-16be/
// windows-1252 and a BOM-stripped copy/subslice for utf-8; error for
// unknown. For utf-8 and ascii the result is a subslice of data (no copy):
// callers must not modify one while using the other. Invalid input for the
// encoding is an error wrapping [ErrInvalid]; Unknown and unlisted
// encodings wrap [ErrUnknownEncoding].
func Decode(data []byte, enc Encoding) ([]byte, error) {
	switch enc {
	case UTF8:
		body := bytes.TrimPrefix(data, bomUTF8)
		if !utf8.Valid(body) {
			return nil, fmt.Errorf("decoding utf-8: %w", ErrInvalid)
		}
		return body, nil
	case ASCII:
		for i, c := range data {
			if c >= 0x80 {
				return nil, fmt.Errorf("decoding ascii: byte 0x%02x at offset %d: %w", c, i, ErrInvalid)
			}
		}
		return data, nil
	case UTF16LE:
		return decode16(bytes.TrimPrefix(data, bomUTF16LE), binary.LittleEndian, enc)
	case UTF16BE:
		return decode16(bytes.TrimPrefix(data, bomUTF16BE), binary.BigEndian, enc)
	case Windows1252:
		return decode1252(data)
	}
	return nil, fmt.Errorf("decoding %q: %w", string(enc), ErrUnknownEncoding)
}

func decode16(body []byte, order binary.ByteOrder, enc Encoding) ([]byte, error) {
	if len(body)%2 != 0 {
		return nil, fmt.Errorf("decoding %s: odd length %d: %w", enc, len(body), ErrInvalid)
	}
	out := make([]byte, 0, len(body)+len(body)/2)
	for i := 0; i < len(body); i += 2 {
		r := rune(order.Uint16(body[i:]))
		if utf16.IsSurrogate(r) {
			if r >= 0xDC00 || i+4 > len(body) {
				return nil, fmt.Errorf("decoding %s: unpaired surrogate at offset %d: %w", enc, i, ErrInvalid)
			}
			r = utf16.DecodeRune(r, rune(order.Uint16(body[i+2:])))
			if r == utf8.RuneError {
				return nil, fmt.Errorf("decoding %s: unpaired surrogate at offset %d: %w", enc, i, ErrInvalid)
			}
			i += 2
		}
		out = utf8.AppendRune(out, r)
	}
	return out, nil
}

// cp1252 maps 0x80..0x9F; 0 marks the five undefined bytes. Every other
// byte is the code point of the same value.
var cp1252 = [32]rune{
	0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
	0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017D, 0,
	0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
	0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0, 0x017E, 0x0178,
}

func decode1252(data []byte) ([]byte, error) {
	out := make([]byte, 0, len(data)+len(data)/4)
	for i, c := range data {
		r := rune(c)
		if c >= 0x80 && c < 0xA0 {
			if r = cp1252[c-0x80]; r == 0 {
				return nil, fmt.Errorf("decoding windows-1252: undefined byte 0x%02x at offset %d: %w", c, i, ErrInvalid)
			}
		}
		out = utf8.AppendRune(out, r)
	}
	return out, nil
}

// LineCount counts lines like index.Document.LineCount: "\r\n", a lone
// "\r" and "\n" are line breaks; an empty text has 1 line and a final line
// break starts a new, empty line.
func LineCount(text []byte) int {
	n := 1 + bytes.Count(text, []byte{'\n'})
	// Each CR that is not the first half of a CRLF is one more break.
	for rest := text; ; {
		i := bytes.IndexByte(rest, '\r')
		if i < 0 {
			return n
		}
		if i+1 == len(rest) || rest[i+1] != '\n' {
			n++
		}
		rest = rest[i+1:]
	}
}

// magic returns the name of the binary format data starts with, or "".
func magic(data []byte) string {
	for _, m := range magics {
		if len(data) >= m.off+len(m.sig) && string(data[m.off:m.off+len(m.sig)]) == m.sig {
			if m.check == nil || m.check(data) {
				return m.name
			}
		}
	}
	return ""
}

// magics lists the signatures; check, when set, confirms a signature that
// text could also start with.
var magics = []struct {
	name  string
	off   int
	sig   string
	check func([]byte) bool
}{
	{"png", 0, "\x89PNG\r\n\x1a\n", nil},
	{"jpeg", 0, "\xFF\xD8\xFF", nil},
	{"gif", 0, "GIF87a", nil},
	{"gif", 0, "GIF89a", nil},
	{"pdf", 0, "%PDF-", nil},
	{"zip", 0, "PK\x03\x04", nil},
	{"zip", 0, "PK\x05\x06", nil},
	{"zip", 0, "PK\x07\x08", nil},
	{"gzip", 0, "\x1F\x8B\x08", nil},
	{"bzip2", 0, "BZh", isBzip2},
	{"xz", 0, "\xFD7zXZ\x00", nil},
	{"zstd", 0, "\x28\xB5\x2F\xFD", nil},
	{"7z", 0, "7z\xBC\xAF\x27\x1C", nil},
	{"rar", 0, "Rar!\x1A\x07", nil},
	{"elf", 0, "\x7FELF", nil},
	{"mach-o", 0, "\xFE\xED\xFA\xCE", nil},
	{"mach-o", 0, "\xFE\xED\xFA\xCF", nil},
	{"mach-o", 0, "\xCE\xFA\xED\xFE", nil},
	{"mach-o", 0, "\xCF\xFA\xED\xFE", nil},
	{"java class", 0, "\xCA\xFE\xBA\xBE", isJavaClass},
	{"mach-o universal", 0, "\xCA\xFE\xBA\xBE", nil},
	{"mach-o universal", 0, "\xCA\xFE\xBA\xBF", nil},
	{"pe", 0, "MZ", isPE},
	{"wasm", 0, "\x00asm", nil},
	{"sqlite", 0, "SQLite format 3\x00", nil},
	{"tar", 257, "ustar", isTar},
	{"ico", 0, "\x00\x00\x01\x00", nil},
	{"cur", 0, "\x00\x00\x02\x00", nil},
	{"tiff", 0, "II*\x00", nil},
	{"tiff", 0, "MM\x00*", nil},
	{"riff", 0, "RIFF", isRIFF},
	{"mp3", 0, "ID3", isID3},
	{"mp3", 0, "\xFF\xFB", nil},
	{"mp3", 0, "\xFF\xF3", nil},
	{"mp3", 0, "\xFF\xF2", nil},
	{"ogg", 0, "OggS\x00", nil},
	{"mp4", 4, "ftyp", func(d []byte) bool { return d[0] == 0 }},
	{"bmp", 0, "BM", isBMP},
}

// isBzip2: "BZh", a block size digit, then a block or end-of-stream magic.
func isBzip2(d []byte) bool {
	if len(d) < 10 || d[3] < '1' || d[3] > '9' {
		return false
	}
	block := string(d[4:10])
	return block == "1AY&SY" || block == "\x17rE8P\x90"
}

// isJavaClass tells a class file (a major version from 45 after the magic)
// from a Mach-O universal binary (a small architecture count there).
func isJavaClass(d []byte) bool {
	return len(d) >= 8 && binary.BigEndian.Uint32(d[4:]) >= 45
}

// isPE: an MZ header whose e_lfanew points at "PE\0\0".
func isPE(d []byte) bool {
	if len(d) < 0x40 {
		return false
	}
	off := binary.LittleEndian.Uint32(d[0x3C:])
	return uint64(off)+4 <= uint64(len(d)) && string(d[off:off+4]) == "PE\x00\x00"
}

// isTar: "ustar" at 257 followed by NUL (POSIX) or by "  \0" (GNU).
func isTar(d []byte) bool {
	return len(d) >= 265 && (d[262] == 0 || string(d[262:265]) == "  \x00")
}

// isRIFF: "RIFF", a size, then a known form type (WebP, WAV, AVI, animated
// cursor, RIFF MIDI, CD-XA video, DLS and SoundFont banks). Text may well
// start with "RIFF"; other RIFF files are caught by their NUL bytes.
func isRIFF(d []byte) bool {
	if len(d) < 12 {
		return false
	}
	switch string(d[8:12]) {
	case "WEBP", "WAVE", "AVI ", "AVIX", "ACON", "RMID", "CDXA", "DLS ", "sfbk":
		return true
	}
	return false
}

// isID3: "ID3", a major version 2 to 4 and a revision below 0xFF.
func isID3(d []byte) bool {
	return len(d) >= 10 && d[3] >= 2 && d[3] <= 4 && d[4] != 0xFF
}

// isBMP: "BM", zero reserved bytes and a known DIB header size.
func isBMP(d []byte) bool {
	if len(d) < 18 || binary.LittleEndian.Uint32(d[6:]) != 0 {
		return false
	}
	switch binary.LittleEndian.Uint32(d[14:]) {
	case 12, 40, 52, 56, 64, 108, 124:
		return true
	}
	return false
}

// PrefixSize is how much of a file [DetectPrefix] needs to look at: the
// first 8 KiB, as git looks for a NUL byte before calling a file binary.
const PrefixSize = 8 << 10

// DetectPrefix classifies a file from its first bytes alone, when they
// settle it: a UTF-32 byte order mark, a magic number, or a NUL byte
// outside UTF-16. ok is false when the rest of the file may still matter,
// and always for a prefix of less than 4 bytes (a byte order mark may not
// be complete yet).
// When ok is true, [Detect] of the whole file says the same thing (binary,
// or Unknown for UTF-32), so a reader can skip a file without reading past
// its prefix: a sparse file of gigabytes is decided by its first block.
// The Reason may name another rule than Detect's would (a PE header whose
// offset lies past the prefix is found by Detect, a NUL byte before it by
// DetectPrefix); the verdict is the same.
func DetectPrefix(prefix []byte) (r Result, ok bool) {
	switch {
	case len(prefix) < len(bomUTF32LE):
		// Too short to rule out a byte order mark.
		return Result{}, false
	case bytes.HasPrefix(prefix, bomUTF32LE), bytes.HasPrefix(prefix, bomUTF32BE):
		return unknownResult("utf-32 byte order mark"), true
	case bytes.HasPrefix(prefix, bomUTF16LE), bytes.HasPrefix(prefix, bomUTF16BE):
		// UTF-16 has NUL bytes of its own: only the whole file says.
		return Result{}, false
	}
	if name := magic(prefix); name != "" {
		return binaryResult(name + " magic number"), true
	}
	if bytes.IndexByte(bytes.TrimPrefix(prefix, bomUTF8), 0) >= 0 {
		return binaryResult("nul byte"), true
	}
	return Result{}, false
}

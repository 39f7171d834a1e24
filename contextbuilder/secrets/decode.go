package secrets

import (
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"unicode/utf8"
)

// Encoded secrets: base64, base64url, hex and percent-encoded segments of
// a text are decoded and scanned again (with every rule, and recursively
// up to maxDecodeDepth); a finding in the decoded text becomes a finding
// of the same rule over the whole encoded segment, so that redaction
// removes all of it. The work is bounded: segments of minSegment to
// maxSegment bytes, at most maxDecodedPerText decoded bytes per scanned
// text (the budget is shared with the nested scans).
const (
	maxDecodeDepth    = 2
	minSegment        = 16
	maxSegment        = 64 << 10
	maxDecodedPerText = 256 << 10
)

// segment is one encoded run of a text.
type segment struct {
	start, end int
	kind       byte // 'b' base64 / base64url, 'h' hex, 'p' percent-encoding
}

// encodedSegments finds the candidate segments: base64 runs (with at
// least one digit, one upper- and one lower-case letter, as random data
// has and identifiers rarely do), hex runs of even length >= 32 with a
// digit and a letter, and runs holding at least three %XX escapes.
func encodedSegments(text []byte, emit func(segment)) {
	n := len(text)
	for i := 0; i < n; {
		c := text[i]
		if !isB64(c) && c != '%' {
			i++
			continue
		}
		// A run of base64 / base64url characters (hex is a subset).
		j := i
		var up, lo, dig, pct, nonhex int
		for j < n && j-i < maxSegment {
			d := text[j]
			switch {
			case d >= 'A' && d <= 'Z':
				up++
				if d > 'F' {
					nonhex++
				}
			case d >= 'a' && d <= 'z':
				lo++
				if d > 'f' {
					nonhex++
				}
			case d >= '0' && d <= '9':
				dig++
			case d == '+' || d == '/' || d == '-' || d == '_':
				nonhex++
			case d == '%' && j+2 < n && isHex(text[j+1]) && isHex(text[j+2]):
				pct++
				j += 3
				continue
			case d == '.' || d == '~' || d == '=' && pct > 0:
				nonhex++
			default:
				goto done
			}
			j++
		}
	done:
		end := j
		for end < n && end-j < 2 && text[end] == '=' {
			end++
		}
		switch l := end - i; {
		case l < minSegment:
		case pct >= 3:
			emit(segment{i, end, 'p'})
		case nonhex == 0 && l >= 32 && l%2 == 0 && dig > 0 && up+lo > 0 && (up == 0 || lo == 0):
			emit(segment{i, end, 'h'})
		case dig > 0 && up > 0 && lo > 0:
			emit(segment{i, end, 'b'})
		}
		if end == i {
			end = i + 1
		}
		i = end
	}
}

func isB64(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '-' || c == '_'
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// decodeSegment decodes a segment; ok only for printable UTF-8 text
// (what a secret encoded in a text decodes to).
func decodeSegment(text []byte, sg segment) ([]byte, bool) {
	raw := text[sg.start:sg.end]
	var out []byte
	var err error
	switch sg.kind {
	case 'h':
		out = make([]byte, hex.DecodedLen(len(raw)))
		_, err = hex.Decode(out, raw)
	case 'p':
		var s string
		s, err = url.PathUnescape(string(raw))
		out = []byte(s)
	default:
		out, err = decodeB64(raw)
	}
	if err != nil || !printable(out) {
		return nil, false
	}
	return out, true
}

// decodeB64 tries standard and URL alphabets, padded or not.
func decodeB64(raw []byte) ([]byte, error) {
	trim := raw
	for len(trim) > 0 && trim[len(trim)-1] == '=' {
		trim = trim[:len(trim)-1]
	}
	enc := base64.RawStdEncoding
	for _, c := range trim {
		if c == '-' || c == '_' {
			enc = base64.RawURLEncoding
			break
		}
	}
	// A length that is 1 mod 4 cannot be base64: drop the last byte (a
	// run that swallowed one character of what follows).
	if len(trim)%4 == 1 {
		trim = trim[:len(trim)-1]
	}
	out := make([]byte, enc.DecodedLen(len(trim)))
	n, err := enc.Decode(out, trim)
	return out[:n], err
}

// printable: valid UTF-8 without control characters other than tab, CR
// and LF.
func printable(b []byte) bool {
	if len(b) < 6 || !utf8.Valid(b) {
		return false
	}
	for _, c := range b {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f {
			return false
		}
	}
	return true
}

// scanDecoded appends, for every decodable segment of text whose decoded
// text holds a finding, one High finding of that rule over the segment.
func (s *Scanner) scanDecoded(text []byte, depth int, budget *int, out []Finding) []Finding {
	if depth >= maxDecodeDepth {
		return out
	}
	encodedSegments(text, func(sg segment) {
		if *budget <= 0 {
			return
		}
		dec, ok := decodeSegment(text, sg)
		if !ok {
			return
		}
		*budget -= len(dec)
		fs := s.scan(dec, depth+1, budget)
		if len(fs) == 0 {
			return
		}
		out = appendFinding(out, text, Finding{RuleID: fs[0].RuleID, Start: sg.start, End: sg.end, Confidence: High})
	})
	return out
}

package secrets

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"encoding/base64"
	"encoding/hex"
	"io"
	"net/url"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Encoded secrets: base64, base64url, hex and percent-encoded segments of
// a text are decoded and scanned again (with every rule, recursively); a
// finding in the decoded text becomes a finding of the same rule over the
// whole encoded segment, so that redaction removes all of it. A decoded
// segment that is gzip or zlib data is inflated (bounded), and UTF-16 text
// (PowerShell's -EncodedCommand) is transcoded, before it is scanned.
// Lines with escapes or invisible characters are scanned again as a view
// (see unescape.go), which counts as one layer too.
//
// The work is bounded: segments of minSegment to maxSegment bytes (the
// pieces of a longer run that decode to text are redacted whole),
// maxDecodeDepth layers, at most maxDecodedPerText decoded bytes scanned
// per text (shared with the nested scans), at most maxInflate bytes
// inflated per segment and a ratio of at most maxInflateRatio. What a
// bound stops is not sent unscanned: a segment that still decodes to text
// past the last layer, or that would need more than the budget left, or
// whose inflated size breaks a bound, is a finding of UnscannedRuleID over
// the whole segment, and so is redacted.
const (
	maxDecodeDepth    = 4
	minSegment        = 16
	maxSegment        = 64 << 10
	maxDecodedPerText = 256 << 10
	maxInflate        = 256 << 10
	maxInflateRatio   = 100
	maxInflateLayers  = 2
)

// UnscannedRuleID is the rule id of the findings that the decoding bounds
// make: an encoded run that decodes to text which was not scanned (more
// than maxDecodeDepth layers deep, beyond the per-text budget, or a
// compressed stream over its size or ratio bound). It is no rule of the
// rule set: it appears in [REDACTED:encoded-unscanned] and in reports.
const UnscannedRuleID = "encoded-unscanned"

// segment is one encoded run of a text.
type segment struct {
	start, end int
	kind       byte // 'b' base64 / base64url, 'h' hex, 'p' percent-encoding
	// cut: the run is longer than maxSegment and was cut here (at its
	// end, or at its start for the rest): a secret may span the cut.
	cut bool
}

// encodedSegments finds the candidate segments: base64 runs (with at
// least one digit, one upper- and one lower-case letter, as random data
// has and identifiers rarely do), hex runs of even length >= 32 with a
// digit and a letter, and runs holding at least three %XX escapes.
func encodedSegments(text []byte, emit func(segment)) {
	n := len(text)
	cutAt := -1 // where the previous run was cut
	for i := 0; i < n; {
		c := text[i]
		if !isB64(c) && c != '%' || i > 0 && text[i-1] == '\\' && c != '%' {
			// (The character after a backslash is an escape's: \n.)
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
		cut := i == cutAt || j-i >= maxSegment
		if j-i >= maxSegment {
			cutAt = end
		}
		switch l := end - i; {
		case l < minSegment:
		case pct >= 3:
			emit(segment{i, end, 'p', cut})
		case nonhex == 0 && l >= 32 && l%2 == 0 && dig > 0 && (up == 0 || lo == 0):
			// (Digits only: hex of hex text is made of 3x and 6x pairs.)
			emit(segment{i, end, 'h', cut})
		case up > 0 && lo > 0 && (dig > 0 || end > j || l >= 20 && l%4 != 1):
			// Base64 of text need not hold a digit: padding, or a long
			// run of a length base64 can have, says base64 as well.
			emit(segment{i, end, 'b', cut})
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

// decoded says what decoding a segment gave.
type decoded int

const (
	// notText: the segment is no encoding of text (a hash, an image).
	notText decoded = iota
	// isText: the segment decodes to text, returned.
	isText
	// overBound: the segment holds compressed data that breaks a bound
	// (size, ratio, nesting): it cannot be proven free of secrets.
	overBound
)

// decodeSegment decodes a segment; ok only for printable UTF-8 text
// (what a secret encoded in a text decodes to), within the default
// inflate bound.
func decodeSegment(text []byte, sg segment) ([]byte, bool) {
	out, res := decodeText(text, sg, maxInflate)
	return out, res == isText
}

// decodeText decodes a segment to text: its raw bytes when they are
// printable, else inflated (gzip, zlib) and/or transcoded from UTF-16.
// limit bounds the inflated size.
func decodeText(text []byte, sg segment, limit int) ([]byte, decoded) {
	raw, ok := rawDecode(text, sg)
	if !ok {
		return nil, notText
	}
	return toText(raw, limit, 0)
}

// rawDecode undoes a segment's encoding.
func rawDecode(text []byte, sg segment) ([]byte, bool) {
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
		if bytes.IndexByte(raw, '%') >= 0 {
			// Base64 in a URL query: %2B, %2F and %3D padding.
			// (Escaped once more: %253D.)
			s := string(raw)
			for range 3 {
				if !strings.Contains(s, "%") {
					break
				}
				if s, err = url.PathUnescape(s); err != nil {
					return nil, false
				}
			}
			s = strings.NewReplacer(`\n`, "", `\r`, "", "\n", "", "\r", "").Replace(s)
			raw = []byte(s)
		}
		out, err = decodeB64(raw)
	}
	return out, err == nil
}

// toText turns decoded bytes into text to scan (see decodeText); layers
// counts the compressed layers already inflated.
func toText(b []byte, limit, layers int) ([]byte, decoded) {
	if printable(b) {
		return b, isText
	}
	if compressed(b) {
		if layers >= maxInflateLayers {
			return nil, overBound
		}
		out, ok := inflate(b, limit)
		if !ok {
			return nil, overBound
		}
		if len(out) == 0 {
			return nil, notText
		}
		t, res := toText(out, limit, layers+1)
		if res != notText {
			return t, res
		}
		// Inflated binary data (a tar archive): its printable runs.
		if runs := printableRuns(out, minSegment); len(runs) > 0 {
			return runs, isText
		}
		return nil, notText
	}
	if t, ok := fromUTF16(b); ok && printable(t) {
		return t, isText
	}
	return nil, notText
}

// compressed reports a gzip member (1f 8b, deflate) or a zlib stream
// (deflate, a 32K window at most, header checksum right).
func compressed(b []byte) bool {
	if len(b) < 10 {
		return false
	}
	if b[0] == 0x1f && b[1] == 0x8b && b[2] == 8 {
		return true
	}
	return b[0]&0x0f == 8 && b[0]>>4 <= 7 && (uint16(b[0])<<8|uint16(b[1]))%31 == 0 && b[1]&0x20 == 0
}

// inflate decompresses b, a gzip member or a zlib stream: at most limit
// bytes and maxInflateRatio times len(b); ok is false past either bound
// (a compression bomb is not sent unscanned, it is redacted). A truncated
// or corrupt stream gives what it inflated before the error.
func inflate(b []byte, limit int) ([]byte, bool) {
	var r io.Reader
	var err error
	if b[0] == 0x1f {
		r, err = gzip.NewReader(bytes.NewReader(b))
	} else {
		r, err = zlib.NewReader(bytes.NewReader(b))
	}
	if err != nil {
		return nil, true
	}
	bound := min(limit, maxInflateRatio*len(b))
	var buf bytes.Buffer
	_, _ = io.Copy(&buf, io.LimitReader(r, int64(bound)+1))
	if buf.Len() > bound {
		return nil, false
	}
	return buf.Bytes(), true
}

// fromUTF16 transcodes UTF-16 text (a byte order mark, or ASCII text in
// which every other byte is zero) to UTF-8.
func fromUTF16(b []byte) ([]byte, bool) {
	if len(b) < 12 {
		return nil, false
	}
	b = b[:len(b)&^1]
	le := true
	switch {
	case b[0] == 0xFF && b[1] == 0xFE:
		b = b[2:]
	case b[0] == 0xFE && b[1] == 0xFF:
		b, le = b[2:], false
	default:
		var zeroEven, zeroOdd int
		for i := 0; i < len(b); i += 2 {
			if b[i] == 0 {
				zeroEven++
			}
			if b[i+1] == 0 {
				zeroOdd++
			}
		}
		// Mostly ASCII (some other characters allowed: a few
		// invisible ones, a BOM in the middle).
		n := len(b) / 2
		switch {
		case zeroOdd*4 >= n*3 && zeroEven*10 <= n:
		case zeroEven*4 >= n*3 && zeroOdd*10 <= n:
			le = false
		default:
			return nil, false
		}
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		if le {
			u[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
		} else {
			u[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
		}
	}
	out := make([]byte, 0, len(u))
	for _, r := range utf16.Decode(u) {
		out = utf8.AppendRune(out, r)
	}
	return out, true
}

// printableRuns returns the runs of at least min printable ASCII bytes of
// binary data, one per line (what strings(1) shows).
func printableRuns(b []byte, min int) []byte {
	var out []byte
	start := -1
	for i := 0; i <= len(b); i++ {
		if i < len(b) && (b[i] >= 0x20 && b[i] < 0x7f || b[i] == '\t') {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && i-start >= min {
			out = append(append(out, b[start:i]...), '\n')
		}
		start = -1
	}
	return out
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
// text holds a finding, one High finding of that rule over the segment,
// and the findings of the views of the lines with escapes or invisible
// characters, mapped back to the text. At the depth limit, and once the
// budget is spent, a segment that decodes to text (or a line that needs a
// view) is a finding of UnscannedRuleID instead.
func (s *Scanner) scanDecoded(text []byte, depth int, budget *int, out []Finding) []Finding {
	last := depth >= maxDecodeDepth
	var segs []segment
	encodedSegments(text, func(sg segment) { segs = append(segs, sg) })
	// handle decodes sg of src, standing for text[start:end].
	handle := func(src []byte, sg segment, start, end int) decoded {
		dec, res := decodeText(src, sg, min(*budget, maxInflate))
		if res == isText && (last || sg.cut || *budget < len(dec)) {
			res = overBound
		}
		switch res {
		case notText:
			return res
		case overBound:
			out = appendFinding(out, text, Finding{RuleID: UnscannedRuleID, Start: start, End: end, Confidence: High})
			return res
		}
		*budget -= len(dec)
		if fs := s.scan(dec, depth+1, budget); len(fs) > 0 {
			out = appendFinding(out, text, Finding{RuleID: s.innerRule(fs), Start: start, End: end, Confidence: High})
		}
		return res
	}
	grouped := 0  // segments before it were tried as part of a wrapped run
	cutFrom := -1 // the wrapped run starting at this segment continues a cut one
	for i := 0; i < len(segs); i++ {
		if i < grouped {
			handle(text, segs[i], segs[i].start, segs[i].end)
			continue
		}
		if j, tail, cut := wrapped(text, segs, i); j > i+1 || tail.end > 0 {
			// Base64 wrapped over lines decodes as one run; when it is no
			// text, its lines are tried one by one (and never regrouped).
			var joined []byte
			for _, sg := range segs[i:j] {
				joined = append(joined, text[sg.start:sg.end]...)
			}
			joined = append(joined, text[tail.start:tail.end]...)
			if cut {
				cutFrom = j
			}
			if handle(joined, segment{0, len(joined), 'b', cut || i == cutFrom || segs[i].cut}, segs[i].start, max(segs[j-1].end, tail.end)) != notText {
				i = j - 1
				continue
			}
			grouped = j
		}
		handle(text, segs[i], segs[i].start, segs[i].end)
	}
	for _, reg := range viewRegions(text) {
		if last {
			out = appendFinding(out, text, Finding{RuleID: UnscannedRuleID, Start: reg.start, End: reg.end, Confidence: High})
			continue
		}
		v := makeView(text, reg.start, reg.end)
		fs := s.scan(v.text, depth+1, budget)
		if reg.end < len(text) && slices.ContainsFunc(fs, func(f Finding) bool { return f.Confidence == Uncertain }) {
			// A block opens in the region and does not end there: its end
			// may be further on. The view of the rest of the text decides
			// (it covers the regions left, too).
			v = makeView(text, reg.start, len(text))
			fs = s.scan(v.text, depth+1, budget)
			reg.end = len(text)
		}
		for _, f := range fs {
			if f.End <= f.Start {
				continue
			}
			f.Start, f.End = v.origin(f.Start, f.End)
			f.Line, f.WholeFile = 0, false
			out = appendFinding(out, text, f)
		}
		if reg.end == len(text) {
			break
		}
	}
	return out
}

// wrapped returns the extent of the run of base64 segments from segs[i]
// that is one base64 text wrapped over lines: segments of one length (a
// multiple of 4, at least 40: MIME's 76, PEM's 64) separated by a line
// break (also an escaped one, \n in a string) and indentation, the last
// one possibly shorter (also a line that is no segment of its own: tail). j is the end
// (exclusive) of its segments, j == i+1 when there is no such run.
func wrapped(text []byte, segs []segment, i int) (j int, tail span, cut bool) {
	width := segs[i].end - segs[i].start
	if segs[i].kind != 'b' || width < 40 || width%4 != 0 {
		return i + 1, span{}, false
	}
	for j = i + 1; j < len(segs); j++ {
		sg := segs[j]
		if sg.kind != 'b' || sg.end-sg.start > width || !lineBreak(text[segs[j-1].end:sg.start]) {
			break
		}
		if (j-i+1)*width > maxSegment {
			// As long as a segment can be: the rest is a run of its own.
			return j, span{}, true
		}
		if sg.end-sg.start < width {
			return j + 1, span{}, false
		}
	}
	// A last line too short to be a segment of its own.
	k, ok := skipLineBreak(text, segs[j-1].end)
	if !ok {
		return j, span{}, false
	}
	m := k
	for m < len(text) && m-k < width && (isB64(text[m]) || text[m] == '=') {
		m++
	}
	if m > k && m-k <= width && (m == len(text) || !isB64(text[m])) && (j == len(segs) || segs[j].start != k) {
		return j, span{k, m}, false
	}
	return j, span{}, false
}

// lineBreak reports a separator of wrapped lines: an optional CR, a LF
// (or the escapes \r \n), then spaces and tabs.
func lineBreak(sep []byte) bool {
	k, ok := skipLineBreak(sep, 0)
	return ok && k == len(sep)
}

// skipLineBreak skips a line break (see lineBreak) at text[pos:] and
// returns where it ends.
func skipLineBreak(text []byte, pos int) (int, bool) {
	rest := text[pos:]
	switch {
	case bytes.HasPrefix(rest, []byte(`\r\n`)):
		pos += 4
	case bytes.HasPrefix(rest, []byte(`\n`)):
		pos += 2
	case bytes.HasPrefix(rest, []byte("\r\n")):
		pos += 2
	case bytes.HasPrefix(rest, []byte("\n")):
		pos++
	default:
		return pos, false
	}
	for pos < len(text) && (text[pos] == ' ' || text[pos] == '\t') {
		pos++
	}
	return pos, true
}

// innerRule names the finding of a decoded segment after the findings of
// its decoded text: the first of a prefixed rule (the most specific
// name), else the first of any rule of the rule set, else UnscannedRuleID.
func (s *Scanner) innerRule(fs []Finding) string {
	best := ""
	for _, f := range fs {
		if f.RuleID == UnscannedRuleID {
			continue
		}
		i, ok := slices.BinarySearchFunc(s.rules, f.RuleID, func(r compiled, id string) int { return strings.Compare(r.ID, id) })
		if ok && s.rules[i].prefixed {
			return f.RuleID
		}
		if best == "" {
			best = f.RuleID
		}
	}
	if best == "" {
		return UnscannedRuleID
	}
	return best
}

package change

import (
	"strings"
	"unicode/utf8"
)

// bom is the UTF-8 byte order mark. A file keeps it; lines are matched
// without it.
const bom = "\xef\xbb\xbf"

// oline is one line of a file's text, before or after a change.
type oline struct {
	// text is the line without its end; eol is "\n", "\r\n", or "" for a
	// last line without a newline.
	text, eol string
	// origin is the index of the line in the text before the change that
	// this line is (kept context), or -1 for a line the change added.
	origin int
}

// fileText is a file's text before a change, split into lines.
type fileText struct {
	raw   []byte
	bom   bool
	lines []oline
	// starts are the byte offsets in raw of each line, and len(raw) last.
	starts []int
	// eol is the line end of added lines: the file's majority, ties going
	// to the first line's; "\n" for a file without line ends.
	eol string
	// finalNL reports whether the last line ends with a newline (true
	// for an empty file, so that lines added to it end with one).
	finalNL bool
}

// newFileText splits raw into lines.
func newFileText(raw []byte) *fileText {
	t := &fileText{raw: raw, eol: "\n", finalNL: true}
	s := string(raw)
	off := 0
	if strings.HasPrefix(s, bom) {
		t.bom = true
		off = len(bom)
	}
	crlf, lf := 0, 0
	for off < len(s) {
		t.starts = append(t.starts, off)
		k := strings.IndexByte(s[off:], '\n')
		if k < 0 {
			t.lines = append(t.lines, oline{text: s[off:], origin: len(t.lines)})
			break
		}
		line, eol := s[off:off+k], "\n"
		if strings.HasSuffix(line, "\r") {
			line, eol = line[:len(line)-1], "\r\n"
			crlf++
		} else {
			lf++
		}
		t.lines = append(t.lines, oline{text: line, eol: eol, origin: len(t.lines)})
		off += k + 1
	}
	t.starts = append(t.starts, len(s))
	switch {
	case crlf > lf:
		t.eol = "\r\n"
	case crlf == lf && crlf > 0:
		t.eol = t.lines[0].eol
	}
	if n := len(t.lines); n > 0 {
		t.finalNL = t.lines[n-1].eol != ""
	}
	return t
}

// texts returns the lines' texts.
func texts(lines []oline) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l.text
	}
	return out
}

// finish gives every line but the last a line end (a line that was last
// may no longer be) and the last one a newline or none, as finalNL says.
func finish(lines []oline, eol string, finalNL bool) {
	for i := range lines {
		if i < len(lines)-1 && lines[i].eol == "" {
			lines[i].eol = eol
		}
	}
	if n := len(lines); n > 0 {
		switch {
		case !finalNL:
			lines[n-1].eol = ""
		case lines[n-1].eol == "":
			lines[n-1].eol = eol
		}
	}
}

// join returns the bytes of lines, after a BOM when bomOn.
func join(lines []oline, bomOn bool) []byte {
	n := 0
	if bomOn {
		n = len(bom)
	}
	for _, l := range lines {
		n += len(l.text) + len(l.eol)
	}
	b := make([]byte, 0, n)
	if bomOn {
		b = append(b, bom...)
	}
	for _, l := range lines {
		b = append(b, l.text...)
		b = append(b, l.eol...)
	}
	return b
}

// The layers of matching, tried in order: the first that finds the lines
// wins. There is no fuzz: every line must match at the layer.
const (
	layerExact       = iota // the same bytes (a CRLF file's \r aside)
	layerTrailing           // trailing spaces, tabs and \r ignored
	layerPunctuation        // Unicode punctuation and spaces as ASCII, and trailing space ignored
	layers
)

// normalize returns s as layer compares it.
func normalize(s string, layer int) string {
	switch layer {
	case layerTrailing:
		return strings.TrimRight(s, " \t\r")
	case layerPunctuation:
		return strings.TrimRight(asciiPunct(s), " \t\r")
	}
	return s
}

// asciiPunct replaces the Unicode punctuation models write for ASCII
// (and the reverse: files hold typographic quotes in strings and
// comments) by its ASCII form: quotes, dashes, the ellipsis, Unicode
// spaces; zero-width characters are dropped.
func asciiPunct(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch r {
		case '\u2018', '\u2019', '\u201a', '\u201b', '\u2032':
			b.WriteByte('\'')
		case '\u201c', '\u201d', '\u201e', '\u201f', '\u2033':
			b.WriteByte('"')
		case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212':
			b.WriteByte('-')
		case '\u2026':
			b.WriteString("...")
		case '\u00a0', '\u1680', '\u202f', '\u205f', '\u3000':
			b.WriteByte(' ')
		case '\u200b', '\u200c', '\u200d', '\u2060', '\ufeff':
		default:
			if r >= '\u2000' && r <= '\u200a' {
				b.WriteByte(' ')
			} else {
				b.WriteRune(r)
			}
		}
	}
	return b.String()
}

// redactedOpen starts ctxd's redaction marker, [REDACTED:<rule-id>],
// which a model saw instead of a secret.
const redactedOpen = "[REDACTED:"

// splitMarkers splits s around its redaction markers: parts has one more
// element than there are markers. ok is false when s has none.
func splitMarkers(s string) (parts []string, ok bool) {
	if !strings.Contains(s, redactedOpen) {
		return nil, false
	}
	last := 0
	for i := 0; i < len(s); {
		k := strings.Index(s[i:], redactedOpen)
		if k < 0 {
			break
		}
		start := i + k
		j := start + len(redactedOpen)
		id := j
		for j < len(s) && j-id < 64 && isRuleByte(s[j]) {
			j++
		}
		if j == id || j >= len(s) || s[j] != ']' {
			i = start + 1
			continue
		}
		parts = append(parts, s[last:start])
		last = j + 1
		i = last
	}
	if parts == nil {
		return nil, false
	}
	return append(parts, s[last:]), true
}

func isRuleByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
}

// pattern is one line of the old side of a hunk or block, ready to be
// compared with file lines at each layer.
type pattern struct {
	// norm is the line at each layer.
	norm [layers]string
	// parts, for a line with redaction markers, are the texts around the
	// markers at each layer; a marker stands for a non-empty run of
	// characters.
	parts [layers][]string
	glob  bool
}

// newPattern prepares an old line.
func newPattern(s string) pattern {
	var p pattern
	for l := range layers {
		p.norm[l] = normalize(s, l)
	}
	parts, ok := splitMarkers(s)
	if !ok {
		return p
	}
	p.glob = true
	for l := range layers {
		np := make([]string, len(parts))
		for i, part := range parts {
			if l == layerPunctuation {
				part = asciiPunct(part)
			}
			if i == len(parts)-1 && l != layerExact {
				part = strings.TrimRight(part, " \t\r")
			}
			np[i] = part
		}
		p.parts[l] = np
	}
	return p
}

// matches reports whether a file line, normalized for layer, matches p.
func (p *pattern) matches(line string, layer int) bool {
	if line == p.norm[layer] {
		return true
	}
	return p.glob && globMatch(p.parts[layer], line)
}

// globMatch reports whether s is parts joined by non-empty runs. Taking
// the leftmost occurrence of each part is enough: it leaves the most room
// for the rest.
func globMatch(parts []string, s string) bool {
	if len(parts) < 2 || !strings.HasPrefix(s, parts[0]) {
		return false
	}
	pos := len(parts[0])
	for _, part := range parts[1 : len(parts)-1] {
		if pos+1 > len(s) {
			return false
		}
		k := strings.Index(s[pos+1:], part)
		if k < 0 {
			return false
		}
		pos += 1 + k + len(part)
	}
	last := parts[len(parts)-1]
	return len(s)-len(last) >= pos+1 && strings.HasSuffix(s, last)
}

package secrets

import (
	"unicode"
	"unicode/utf8"
)

// Escaped and invisible characters. A token can be written with some of
// its characters escaped (\u0067hp_…, \x67hp_…, \147hp_…, &#103;hp_…,
// %67hp_…) or with invisible characters inside it (a soft hyphen, a
// zero-width space, U+FEFF): no rule matches it as written, yet a
// reader (or a model) reads the token. The lines holding an escape that
// decodes to a character a token can hold, or an invisible character,
// are scanned a second time as a *view*: the escapes decoded, the
// invisible characters removed, and every byte of the view mapped back to
// the bytes of the original it came from, so that a finding in the view
// becomes a finding over exactly those original bytes (escapes included).
// Ordinary code rarely has such lines (an escape of a letter or digit is
// an obfuscation, not a need), so the view costs one byte pass of the
// text in the common case.

// view is a region of a text with its escapes decoded and its invisible
// characters removed. from[i] and to[i] delimit the original bytes that
// view byte i came from (one escape, or one character).
type view struct {
	text     []byte
	from, to []int32
}

// origin maps the view span [start, end) back to the original text.
func (v *view) origin(start, end int) (int, int) {
	return int(v.from[start]), int(v.to[end-1])
}

// invisible reports the characters that display as nothing and that a
// reader's eye skips inside a token: Unicode format characters (Cf: soft
// hyphen, zero-width space and joiners, word joiner, invisible operators,
// bidirectional controls, U+FEFF, tags) and the other default-ignorable
// code points (combining grapheme joiner, Hangul fillers, Khmer inherent
// vowels, Mongolian variation selectors, variation selectors).
func invisible(r rune) bool {
	switch {
	case r < 0xAD:
		return false
	case r == 0xAD, r == 0x34F, r == 0x61C, r == 0x115F, r == 0x1160, r == 0x17B4, r == 0x17B5,
		r >= 0x180B && r <= 0x180F, r >= 0x200B && r <= 0x200F, r >= 0x202A && r <= 0x202E,
		r >= 0x2060 && r <= 0x206F, r == 0x3164, r >= 0xFE00 && r <= 0xFE0F, r == 0xFEFF, r == 0xFFA0,
		r >= 0xFFF0 && r <= 0xFFFB, r >= 0x1BCA0 && r <= 0x1BCA3, r >= 0x1D173 && r <= 0x1D17A,
		r >= 0xE0000 && r <= 0xE0FFF:
		return true
	case r < 0x600:
		return false
	}
	return unicode.Is(unicode.Cf, r)
}

// tokenChar reports the characters tokens are made of (and that URLs with
// credentials need): an escape that decodes to one of them can hide a
// token, and only such escapes make a line worth a view.
func tokenChar(r rune) bool {
	switch {
	case r >= '0' && r <= '9', r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		return true
	}
	switch r {
	case '_', '-', '.', '~', '+', '/', '=', ':', '@':
		return true
	}
	return false
}

// unreserved reports the characters of a URL that are never percent-encoded
// by need: letters, digits, '-', '_', '.' and '~'.
func unreserved(r rune) bool {
	return r < 0x80 && tokenChar(r) && r != '+' && r != '/' && r != '=' && r != ':' && r != '@'
}

// namedEntities are the HTML/XML named character references a view
// decodes: ASCII punctuation (of which some can hide a token's '_', '.',
// '/', …), the markup characters (so that doubly escaped text, &amp;#103;,
// decodes one level per view) and the invisible characters. Letters and
// digits have no named reference.
var namedEntities = map[string]rune{
	"amp": '&', "lt": '<', "gt": '>', "quot": '"', "apos": '\'',
	"lowbar": '_', "UnderBar": '_', "period": '.', "sol": '/', "equals": '=', "plus": '+',
	"colon": ':', "commat": '@', "num": '#', "excl": '!', "quest": '?', "dollar": '$',
	"percnt": '%', "ast": '*', "midast": '*', "comma": ',', "semi": ';', "bsol": '\\',
	"lpar": '(', "rpar": ')', "lsqb": '[', "lbrack": '[', "rsqb": ']', "rbrack": ']',
	"lcub": '{', "lbrace": '{', "rcub": '}', "rbrace": '}', "verbar": '|', "vert": '|',
	"VerticalLine": '|', "Hat": '^', "grave": '`', "DiacriticalGrave": '`', "Tab": '\t', "NewLine": '\n',
	"shy": 0xAD, "ZeroWidthSpace": 0x200B, "NegativeVeryThinSpace": 0x200B, "NegativeThinSpace": 0x200B,
	"NegativeMediumSpace": 0x200B, "NegativeThickSpace": 0x200B, "zwnj": 0x200C, "zwj": 0x200D,
	"lrm": 0x200E, "rlm": 0x200F, "NoBreak": 0x2060, "af": 0x2061, "ApplyFunction": 0x2061,
	"it": 0x2062, "InvisibleTimes": 0x2062, "ic": 0x2063, "InvisibleComma": 0x2063,
}

// decodable reports whether an escape may decode to r: a valid scalar
// value that is no control character other than tab, LF and CR, so that
// a view stays text that can be scanned (valid UTF-8 without NUL).
func decodable(r rune) bool {
	switch {
	case r == '\t' || r == '\n' || r == '\r':
		return true
	case r < 0x20 || r >= 0x7F && r < 0xA0:
		return false
	}
	return utf8.ValidRune(r)
}

// hexVal is the value of a hex digit, or -1.
func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// hexRun reads between lo and hi hex digits at text[i:] and returns their
// value and count (0 when fewer than lo).
func hexRun(text []byte, i, lo, hi int) (rune, int) {
	var v rune
	n := 0
	for n < hi && i+n < len(text) {
		d := hexVal(text[i+n])
		if d < 0 {
			break
		}
		v = v<<4 | rune(d)
		n++
	}
	if n < lo {
		return 0, 0
	}
	return v, n
}

// escapeAt decodes the escape starting at text[i] ('\\', '&' or '%'): the
// character r it stands for and its length n in bytes (0: no escape that a
// view decodes). trigger says whether it can hide part of a token: it
// decodes to a token character or an invisible one, or it is the `\/` of
// a JSON-escaped "://".
//
// Backslash escapes: \uXXXX (with surrogate pairs), \u{X…}, \UXXXXXXXX,
// \xHH, \x{X…}, octal \N to \NNN, and \n \t \r \" \' \\ \/. A run of \xHH
// or octal escapes that spells one UTF-8 sequence decodes to its
// character (Go and C strings hold bytes), any other byte >= 0x80 to the
// Latin-1 character (Python, JavaScript). HTML/XML: &#NNN; and &#xHH;
// (the ';' optional, as HTML parses them) and [namedEntities]. Percent:
// %HH only when it decodes to an unreserved URL character (a letter, a
// digit, - _ . ~), which nothing needs to encode, or to the start of an
// escape (% \ &).
func escapeAt(text []byte, i int) (r rune, n int, trigger bool) {
	if i+1 >= len(text) {
		return 0, 0, false
	}
	switch text[i] {
	case '\\':
		r, n = backslashAt(text, i)
		if n == 0 {
			return 0, 0, false
		}
		if r == '/' {
			// Only "\/" in ":\/\/" (a URL in JSON) can hide a credential.
			return r, n, i > 0 && text[i-1] == ':' && i+3 < len(text) && text[i+2] == '\\' && text[i+3] == '/'
		}
		if r == '\\' || r == '"' || r == '\'' {
			return r, n, false
		}
	case '&':
		r, n = entityAt(text, i)
		if r == '&' && n > 0 && i+n < len(text) && text[i+n] == '#' {
			// &amp;#103; is &#103; escaped once more: it triggers as
			// that reference does.
			ref := append([]byte{'&'}, text[i+n:min(len(text), i+n+12)]...)
			_, _, trig := escapeAt(ref, 0)
			return r, n, trig
		}
	case '%':
		v, m := hexRun(text, i+1, 2, 2)
		if m > 0 && (v == '%' || v == '\\' || v == '&') {
			// %25 %5C %26 start an escape once decoded (%2567 is %67
			// percent-encoded again): they trigger as that escape does.
			ref := append([]byte{byte(v)}, text[i+3:min(len(text), i+3+12)]...)
			_, _, trig := escapeAt(ref, 0)
			return v, 3, trig
		}
		if m == 0 || !unreserved(v) {
			return 0, 0, false
		}
		// printf's %4d and %2d decode to letters too: only an escape
		// followed by more of a word can hide a token's start.
		next := byte(' ')
		if i+3 < len(text) {
			next = text[i+3]
		}
		return v, 3, next == '%' || unreserved(rune(next))
	}
	if n == 0 || !decodable(r) {
		return 0, 0, false
	}
	return r, n, tokenChar(r) || invisible(r)
}

// backslashAt decodes a backslash escape (see escapeAt).
func backslashAt(text []byte, i int) (rune, int) {
	c := text[i+1]
	switch c {
	case 'n':
		return '\n', 2
	case 't':
		return '\t', 2
	case 'r':
		return '\r', 2
	case '"', '\'', '\\', '/':
		return rune(c), 2
	case 'u':
		if i+2 < len(text) && text[i+2] == '{' {
			return bracedHex(text, i+3, 3)
		}
		v, m := hexRun(text, i+2, 4, 4)
		if m == 0 {
			return 0, 0
		}
		if v >= 0xD800 && v < 0xDC00 && i+11 < len(text) && text[i+6] == '\\' && text[i+7] == 'u' {
			if lo, m2 := hexRun(text, i+8, 4, 4); m2 == 4 && lo >= 0xDC00 && lo < 0xE000 {
				return 0x10000 + (v-0xD800)<<10 + (lo - 0xDC00), 12
			}
		}
		return v, 6
	case 'U':
		v, m := hexRun(text, i+2, 8, 8)
		if m == 0 {
			return 0, 0
		}
		return v, 10
	case 'x':
		if i+2 < len(text) && text[i+2] == '{' {
			return bracedHex(text, i+3, 3)
		}
		return byteEscapes(text, i)
	}
	if c >= '0' && c <= '7' {
		return byteEscapes(text, i)
	}
	return 0, 0
}

// bracedHex reads X…} (1 to 6 hex digits) at text[j:], the escape having
// started pre bytes before j.
func bracedHex(text []byte, j, pre int) (rune, int) {
	v, m := hexRun(text, j, 1, 6)
	if m == 0 || j+m >= len(text) || text[j+m] != '}' {
		return 0, 0
	}
	return v, pre + m + 1
}

// byteAt reads one byte escape, \xHH or octal \N to \NNN (<= 0377), at
// text[i:].
func byteAt(text []byte, i int) (byte, int) {
	if i+1 >= len(text) || text[i] != '\\' {
		return 0, 0
	}
	if text[i+1] == 'x' {
		v, m := hexRun(text, i+2, 2, 2)
		if m == 0 {
			return 0, 0
		}
		return byte(v), 4
	}
	v, m := 0, 0
	for m < 3 && i+1+m < len(text) && text[i+1+m] >= '0' && text[i+1+m] <= '7' {
		if w := v<<3 | int(text[i+1+m]-'0'); w <= 0xFF {
			v = w
			m++
			continue
		}
		break // \672 is \67 then '2' (an unpadded escape before a digit)
	}
	if m == 0 {
		return 0, 0
	}
	return byte(v), 1 + m
}

// byteEscapes decodes a byte escape, or a run of them spelling one UTF-8
// sequence.
func byteEscapes(text []byte, i int) (rune, int) {
	b, n := byteAt(text, i)
	if n == 0 {
		return 0, 0
	}
	if b < 0x80 {
		return rune(b), n
	}
	var seq [utf8.UTFMax]byte
	seq[0] = b
	k, total := 1, n
	for k < utf8.UTFMax && !utf8.FullRune(seq[:k]) {
		c, m := byteAt(text, i+total)
		if m == 0 {
			break
		}
		seq[k] = c
		k++
		total += m
	}
	if r, size := utf8.DecodeRune(seq[:k]); r != utf8.RuneError && size == k {
		return r, total
	}
	return rune(b), n // Latin-1
}

// entityAt decodes an HTML/XML character reference.
func entityAt(text []byte, i int) (rune, int) {
	j := i + 1
	if text[j] == '#' {
		j++
		var v rune
		m := 0
		if j < len(text) && (text[j] == 'x' || text[j] == 'X') {
			j++
			v, m = hexRun(text, j, 1, 6)
		} else {
			for m < 7 && j+m < len(text) && text[j+m] >= '0' && text[j+m] <= '9' {
				v = v*10 + rune(text[j+m]-'0')
				m++
			}
		}
		if m == 0 {
			return 0, 0
		}
		j += m
		if j < len(text) && text[j] == ';' {
			j++
		}
		return v, j - i
	}
	k := j
	for k < len(text) && k-j < 24 && (text[k] >= 'a' && text[k] <= 'z' || text[k] >= 'A' && text[k] <= 'Z') {
		k++
	}
	if k == j || k >= len(text) || text[k] != ';' {
		return 0, 0
	}
	r, ok := namedEntities[string(text[j:k])]
	if !ok {
		return 0, 0
	}
	return r, k + 1 - i
}

// viewTrigger is the first byte of what can make a line worth a view.
var viewTrigger = func() (t [256]bool) {
	t['\\'], t['&'], t['%'] = true, true, true
	for c := 0x80; c < 0x100; c++ {
		t[c] = true
	}
	return t
}()

// viewRegions returns the regions of text worth a view: each line holding
// an escape or an invisible character that can hide part of a token (see
// escapeAt), with the line before and after it (a key on the previous
// line), merged, in order.
func viewRegions(text []byte) []span {
	var out []span
	for i := 0; i < len(text); {
		c := text[i]
		if !viewTrigger[c] {
			i++
			continue
		}
		if c < 0x80 {
			if _, _, trig := escapeAt(text, i); !trig {
				i++
				continue
			}
		} else {
			r, size := utf8.DecodeRune(text[i:])
			if !invisible(r) || i == 0 && r == 0xFEFF {
				// (A byte order mark hides nothing.)
				i += size
				continue
			}
		}
		ln := lineAt(text, i)
		start := ln.start
		if start > 0 {
			start = lineAt(text, start-1).start
		}
		end := ln.end
		if end < len(text) {
			end = lineAt(text, end+1).end
		}
		if k := len(out) - 1; k >= 0 && start <= out[k].end+1 {
			out[k].end = max(out[k].end, end)
		} else {
			out = append(out, span{start, end})
		}
		// The rest of the line is in the region already.
		if i = ln.end + 1; ln.end >= len(text) {
			break
		}
	}
	return out
}

// makeView decodes the escapes and removes the invisible characters of
// text[start:end].
func makeView(text []byte, start, end int) view {
	sub := text[:end]
	v := view{text: make([]byte, 0, end-start), from: make([]int32, 0, end-start), to: make([]int32, 0, end-start)}
	add := func(b []byte, from, to int) {
		for _, c := range b {
			v.text = append(v.text, c)
			v.from = append(v.from, int32(from))
			v.to = append(v.to, int32(to))
		}
	}
	var buf [utf8.UTFMax]byte
	for i := start; i < end; {
		c := sub[i]
		switch {
		case c == '\\' || c == '&' || c == '%':
			if r, n, _ := escapeAt(sub, i); n > 0 {
				if !invisible(r) {
					add(buf[:utf8.EncodeRune(buf[:], r)], i, i+n)
				}
				i += n
				continue
			}
		case c >= 0x80:
			r, size := utf8.DecodeRune(sub[i:])
			if !invisible(r) {
				add(sub[i:i+size], i, i+size)
			}
			i += size
			continue
		}
		add(sub[i:i+1], i, i+1)
		i++
	}
	return v
}

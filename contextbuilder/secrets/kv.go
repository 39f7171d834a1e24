package secrets

import "bytes"

// The key/value lexer: one tokenizer-level mechanism that finds
// "key <separator> value" in any syntax, so that keyed rules (a Rule with
// Key) match (key, value) pairs instead of one regular expression per
// syntax. It recognizes
//
//   - assignments and mappings: = := ::= :::= ?= += .= ??= ||= == => <- :
//     (shell export, Makefile, PHP, Go, Python, Ruby, R, YAML, TOML, INI,
//     .properties, JSON, logstash, HTTP headers);
//   - quoted keys followed by a comma ("KEY", "value": setProperty,
//     setenv, dictionaries written as calls);
//   - command-line flags: --token X, --token=X, -p X, -u user:pass, whose
//     value is a shell word (quotes concatenated: "a":"b");
//   - XML elements, the value on the same line or the next one
//     (<password>\n  value\n</password>), and attributes (key="value");
//   - YAML block scalars (key: |, key: >) whose value is the next line;
//   - text nested in a string literal: a quoted string is lexed again,
//     after its escapes (\n, \", \\, \t, \uXXXX) are decoded, so that
//     {"config.ini": "TOKEN=…\nX=1"} and -H "Authorization: …" yield
//     their inner pairs.
//
// Spans are exact byte offsets in the original text, also for pairs found
// inside an escaped string (each decoded byte maps back to its escape).

// pair is one key/value pair.
type pair struct {
	key              string // lower-cased, without quotes and a leading $ or @
	keyStart, keyEnd int
	valStart, valEnd int  // the value, without its quotes
	quoted           bool // the value was a quoted string
}

// maxNest bounds the nesting of string literals lexed again.
const maxNest = 2

// lexer holds one lexing job: src is the text lexed (the original text,
// or a decoded string literal), mapStart/mapEnd map its offsets back to
// the original (nil: identity).
type lexer struct {
	src      []byte
	mapStart []int
	mapEnd   []int
	depth    int
	emit     func(pair)
	// valueAt is the offset of the last quoted value: lexed again for
	// nested pairs, but never a key itself.
	valueAt int
}

// lexPairs calls emit for every pair whose key starts in text[start:end]
// (a line); a value may continue on the next line (XML elements, YAML
// block scalars), never further.
func lexPairs(text []byte, start, end int, emit func(pair)) {
	// name="apiToken" value="…" (XML entries, JSON name/value objects on
	// one line): the value of a name, key or id attribute that is a key
	// becomes the key of the value that follows it.
	var named *pair
	lx := &lexer{src: text, valueAt: -1, emit: func(p pair) {
		emit(p)
		switch {
		case p.key == "name" || p.key == "key" || p.key == "id":
			q := p
			named = &q
		case named != nil && p.key == "value":
			emit(pair{key: normKey(text[named.valStart:named.valEnd]), keyStart: named.valStart, keyEnd: named.valEnd,
				valStart: p.valStart, valEnd: p.valEnd, quoted: p.quoted})
			named = nil
		}
	}}
	lx.run(start, end, nextLineEnd(text, end))
}

// nextLineEnd is the end of the line after the one ending at end.
func nextLineEnd(text []byte, end int) int {
	if end >= len(text) {
		return len(text)
	}
	n := bytes.IndexByte(text[end+1:], '\n')
	if n < 0 {
		return len(text)
	}
	return end + 1 + n
}

// span maps a span of src to the original text.
func (lx *lexer) span(s, e int) (int, int) {
	if lx.mapStart == nil {
		return s, e
	}
	if e <= s {
		return lx.mapStart[s], lx.mapStart[s]
	}
	return lx.mapStart[s], lx.mapEnd[e-1]
}

func (lx *lexer) pair(key []byte, ks, ke, vs, ve int, quoted bool) {
	if ve <= vs {
		return
	}
	k := normKey(key)
	if k == "" {
		return
	}
	p := pair{key: k, quoted: quoted}
	p.keyStart, p.keyEnd = lx.span(ks, ke)
	p.valStart, p.valEnd = lx.span(vs, ve)
	lx.emit(p)
}

// normKey lower-cases a key and drops a leading $, @ or : (PHP, Perl,
// Ruby symbols); a key without a letter is no key.
func normKey(k []byte) string {
	k = bytes.TrimLeft(k, "$@:")
	letter := false
	for _, c := range k {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			letter = true
			break
		}
	}
	if !letter || len(k) > 128 {
		return ""
	}
	return asciiLowerString(string(k))
}

func isKeyByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '_' || c == '.' || c == '-' || c == '$' || c == '@'
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

// run lexes keys starting in [start, end); values may reach limit.
func (lx *lexer) run(start, end, limit int) {
	src := lx.src
	for i := start; i < end; {
		c := src[i]
		switch {
		case c == '"' || c == '\'' || c == '`':
			cs, ce, next, esc, ok := quoted(src, i, end)
			if !ok {
				i++
				continue
			}
			if lx.depth < maxNest && ce-cs >= 8 {
				lx.nested(cs, ce, esc, c)
			}
			j := skipBlank(src, next, end)
			if i != lx.valueAt {
				if n := operator(src, j, end, true); n > 0 {
					lx.value(src[cs:ce], cs, ce, j+n, end, limit, false)
				}
			}
			i = next
		case c == '<' && i+1 < end && isAlpha(src[i+1]):
			i = lx.element(i, end, limit)
		case isKeyByte(c) && (i == start || !isKeyByte(src[i-1])):
			ke := i
			for ke < end && isKeyByte(src[ke]) {
				ke++
			}
			key := src[i:ke]
			j := skipBlank(src, ke, end)
			if len(key) >= 2 && key[0] == '-' && isAlpha(key[len(key)-1]) || len(key) >= 3 && key[0] == '-' && key[1] == '-' {
				// A flag: --name=value, --name value, -p value.
				if ke < end && src[ke] == '=' {
					j = ke + 1
				} else if j == ke || j >= end || src[j] == '-' {
					i = ke
					continue
				}
				ve := shellWord(src, j, end)
				vs, ve2, q := unquoteWord(src, j, ve)
				lx.pair(key, i, ke, vs, ve2, q)
				switch {
				case q:
					// A quoted word: lexed again for nested pairs (-H "Name: value").
					lx.valueAt, i = j, j
				case bytes.IndexByte(src[j:ve], '=') >= 0:
					// --set a.password=… : lexed again.
					i = j
				default:
					i = max(ve, ke+1)
				}
				continue
			}
			if n := operator(src, j, end, false); n > 0 {
				i = lx.value(key, i, ke, j+n, end, limit, true)
				continue
			}
			i = ke
		default:
			i++
		}
	}
}

// value parses the value after a separator at v and emits the pair. It
// returns where lexing continues: the value's start for a quoted value
// (so that the string is lexed for nested pairs), its end for a bare one.
func (lx *lexer) value(key []byte, ks, ke, v, end, limit int, bareKey bool) int {
	src := lx.src
	v = skipBlank(src, v, end)
	if v < end && (src[v] == '|' || src[v] == '>') {
		// A YAML block scalar (key: |, key: >-): the value is the next
		// line. (An empty value is not one: the next line is then a
		// nested mapping or a list.)
		rest := v + 1
		for rest < end && (src[rest] == '-' || src[rest] == '+' || src[rest] >= '0' && src[rest] <= '9') {
			rest++
		}
		if skipBlank(src, rest, end) < end || end >= limit {
			return end
		}
		ns := skipBlank(src, end+1, limit)
		ne := trimRightBlank(src, ns, limit)
		if ne > ns && bytes.IndexByte(src[ns:ne], ' ') < 0 {
			// A block scalar holds data, never code: a literal.
			lx.pair(key, ks, ke, ns, ne, true)
		}
		return end
	}
	if v >= end {
		return end
	}
	switch c := src[v]; c {
	case '"', '\'', '`':
		cs, ce, _, _, ok := quoted(src, v, end)
		if ok {
			lx.pair(key, ks, ke, cs, ce, true)
			lx.valueAt = v
		}
		return v
	}
	ve := v
	for ve < end && !bareStop(src[ve]) {
		ve++
	}
	// A bare value ends before a trailing comma or line continuation.
	for ve > v && (src[ve-1] == ',' || src[ve-1] == '\\') {
		ve--
	}
	lx.pair(key, ks, ke, v, ve, false)
	if ve == v {
		return v + 1
	}
	return ve
}

func bareStop(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', '"', '\'', '`', '<', ';', ',', ')', '(', '}', ']', '{', '[':
		return true
	}
	return false
}

// element handles "<name ...>" at i: when the tag is not self-closing, its
// text (up to the next '<', on this line or, when the line ends first, the
// next line) is the value of key name. Attributes are lexed as pairs.
func (lx *lexer) element(i, end, limit int) int {
	src := lx.src
	ne := i + 1
	for ne < end && (isKeyByte(src[ne]) || src[ne] == ':') {
		ne++
	}
	gt := bytes.IndexByte(src[ne:end], '>')
	if gt < 0 {
		return ne
	}
	gt += ne
	if gt > ne {
		// Attributes: lexed as ordinary pairs.
		sub := &lexer{src: src, mapStart: lx.mapStart, mapEnd: lx.mapEnd, depth: lx.depth, emit: lx.emit, valueAt: -1}
		sub.run(ne, gt, gt)
	}
	if src[gt-1] == '/' {
		return gt + 1
	}
	vs := skipBlank(src, gt+1, end)
	stop, lim := end, end
	if vs >= end && end < limit {
		vs = skipBlank(src, end+1, limit)
		lim = limit
		stop = limit
	}
	ve := vs
	for ve < stop && src[ve] != '<' && src[ve] != '\n' {
		ve++
	}
	ve = trimRightBlank(src, vs, ve)
	_ = lim
	if ve > vs {
		// Element text is data, never code: a literal, like a quoted
		// string (an all-letters token is not taken for an identifier).
		lx.pair(src[i+1:ne], i+1, ne, vs, ve, true)
	}
	return gt + 1
}

// nested lexes the content of a string literal again: directly when it
// has no escapes, else decoded, with offsets mapped back.
func (lx *lexer) nested(cs, ce int, esc bool, q byte) {
	sub := &lexer{depth: lx.depth + 1, emit: lx.emit, valueAt: -1}
	if !esc {
		sub.src, sub.mapStart, sub.mapEnd = lx.src, lx.mapStart, lx.mapEnd
		sub.runAll(cs, ce)
		return
	}
	buf := make([]byte, 0, ce-cs)
	ms := make([]int, 0, ce-cs)
	me := make([]int, 0, ce-cs)
	src := lx.src
	add := func(b byte, s, e int) {
		os, _ := lx.span(s, s+1)
		_, oe := lx.span(e-1, e)
		buf = append(buf, b)
		ms = append(ms, os)
		me = append(me, oe)
	}
	for i := cs; i < ce; {
		if src[i] != '\\' || i+1 >= ce {
			add(src[i], i, i+1)
			i++
			continue
		}
		switch d := src[i+1]; d {
		case 'n':
			add('\n', i, i+2)
		case 'r':
			add('\r', i, i+2)
		case 't':
			add('\t', i, i+2)
		case 'u':
			if i+6 <= ce {
				if r, ok := hex4(src[i+2 : i+6]); ok && r < 0x80 {
					add(byte(r), i, i+6)
					i += 6
					continue
				}
			}
			add(d, i, i+2)
		default:
			add(d, i, i+2)
		}
		i += 2
	}
	sub.src, sub.mapStart, sub.mapEnd = buf, ms, me
	sub.runAll(0, len(buf))
}

// runAll lexes every line of [start, end).
func (lx *lexer) runAll(start, end int) {
	for s := start; s < end; {
		e := bytes.IndexByte(lx.src[s:end], '\n')
		if e < 0 {
			e = end
		} else {
			e += s
		}
		lim := e
		if e < end {
			if n := bytes.IndexByte(lx.src[e+1:end], '\n'); n >= 0 {
				lim = e + 1 + n
			} else {
				lim = end
			}
		}
		lx.run(s, e, lim)
		s = e + 1
	}
}

func hex4(b []byte) (rune, bool) {
	var r rune
	for _, c := range b {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return r, true
}

// quoted scans a string literal opening at i (quote src[i]) that closes
// before end: the content span, the offset after the closing quote, and
// whether it holds backslash escapes.
func quoted(src []byte, i, end int) (cs, ce, next int, esc, ok bool) {
	q := src[i]
	for j := i + 1; j < end; j++ {
		switch src[j] {
		case '\\':
			if q != '`' {
				esc = true
				j++
			}
		case q:
			return i + 1, j, j + 1, esc, true
		}
	}
	return 0, 0, 0, false, false
}

// operator returns the length of the separator at j (0 for none).
// quotedKey allows a comma ("KEY", "value").
func operator(src []byte, j, end int, quotedKey bool) int {
	if j >= end {
		return 0
	}
	rest := src[j:end]
	for _, op := range [...]string{":::=", "::=", ":=", "?=", "+=", ".=", "??=", "||=", "==", "=>", "<-", "="} {
		if bytes.HasPrefix(rest, []byte(op)) {
			return len(op)
		}
	}
	if rest[0] == ':' {
		// Not a path (::) nor a URL scheme (://).
		if len(rest) > 1 && (rest[1] == ':' || rest[1] == '/') {
			return 0
		}
		return 1
	}
	if quotedKey && rest[0] == ',' {
		k := skipBlank(src, j+1, end)
		if k < end && (src[k] == '"' || src[k] == '\'') {
			return 1
		}
	}
	return 0
}

// shellWord returns the end of the shell word at v: up to a blank, with
// quoted parts included.
func shellWord(src []byte, v, end int) int {
	for v < end && !isBlank(src[v]) && src[v] != '\r' && src[v] != '\n' {
		if c := src[v]; c == '"' || c == '\'' {
			if _, _, next, _, ok := quoted(src, v, end); ok {
				v = next
				continue
			}
		}
		v++
	}
	return v
}

// unquoteWord strips one pair of quotes around a whole shell word.
func unquoteWord(src []byte, s, e int) (int, int, bool) {
	if e-s >= 2 && (src[s] == '"' || src[s] == '\'') && src[e-1] == src[s] {
		if _, ce, _, _, ok := quoted(src, s, e); ok && ce == e-1 {
			return s + 1, e - 1, true
		}
	}
	for e > s && (src[e-1] == ',' || src[e-1] == ';' || src[e-1] == '\\') {
		e--
	}
	return s, e, false
}

func skipBlank(src []byte, i, end int) int {
	for i < end && isBlank(src[i]) {
		i++
	}
	return i
}

func trimRightBlank(src []byte, s, e int) int {
	for e > s && (isBlank(src[e-1]) || src[e-1] == '\r') {
		e--
	}
	return e
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

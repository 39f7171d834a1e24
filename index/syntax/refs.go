package syntax

import (
	"bytes"
	"cmp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// References and comments are found by a lexical scan of the source rather
// than by queries over identifier and comment nodes. A query that captures
// every identifier must walk the whole tree and hand each capture to Go (a
// cgo call, a node and a map entry per identifier): on the Go corpus that
// alone took longer than the parse (3.97 MB/s for parse and identifier
// query, 6.5 MB/s for the parse alone). The scanner skips comments and
// string literals (but scans the code inside template literals, f-strings
// and interpolated strings), drops the language's keywords and literal
// words, and reads every other identifier: the set the identifier nodes
// give, up to contextual keywords and the rare construct the scanner reads
// differently from the grammar. The comments it skips are those the doc
// comment rule looks at; they are tree-sitter's comment nodes except where
// the scanner misreads a construct (a JavaScript regular expression taken
// for a division, say).

// lexSpec describes the tokens of a language, as far as finding
// identifiers needs.
type lexSpec struct {
	slashComments bool // // and /* */
	nestedBlock   bool // /* */ nests (Rust)
	hashComments  bool // # to end of line (Python)
	preproc       bool // # directives at the start of a line (C, C++, C#)
	dollar        bool // $ is an identifier character (JavaScript)
	hashIdent     bool // # starts an identifier (JavaScript private names)
	regex         bool // /.../ literals (JavaScript)
	digitSep      bool // ' separates digits (C, C++)
	csharp        bool // @ and $ may start a literal (C#)
	keywords      *keywordSet
	// str returns the end of a string or character literal starting at i,
	// or -1.
	str func(l *lexer, i int) int
	// prefixed returns the end of a string literal whose prefix is the
	// identifier src[i:j] (r"...", u8"...", f"..."), or -1.
	prefixed func(l *lexer, i, j int) int

	class *[256]uint8 // byte classes, built by init
}

func init() {
	for _, sp := range []*lexSpec{goLex, jsLex, tsLex, pythonLex, javaLex, rustLex, cLex, cppLex, csharpLex} {
		sp.class = sp.classes()
	}
}

// stop modes of lexer.code.
const (
	stopEOF         = iota
	stopBrace       // return after the } closing a ${ hole
	stopField       // return at a top-level : or } (C# interpolation)
	stopFieldOrBang // also at a top-level ! that is not != (Python f-string)
)

type lexer struct {
	src      []byte
	spec     *lexSpec
	excl     []span // declaration names: not references
	ei       int
	skip     []span // prose (JSX text): not scanned at all
	si       int
	refs     wordSet
	comments []span
	regexOK  bool
}

// scan scans the source for references, leaving out the declared names,
// and for comments, which it adds to the trivia.
func (x *extractor) scan(names []span) []string {
	excl := slices.Clone(names)
	slices.SortFunc(excl, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	skip := slices.Clone(x.texts)
	slices.SortFunc(skip, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	l := &lexer{src: x.src, spec: x.s.lex, excl: excl, skip: skip, refs: wordSet{src: x.src}, regexOK: true}
	l.code(0, stopEOF)
	for _, c := range l.comments {
		x.trivia = append(x.trivia, trivium{span{c.start, trimRight(x.src, c.start, c.end)}, true})
	}
	return l.refs.strings()
}

// Byte classes of the scanner's main loop.
const (
	clOther   uint8 = iota
	clSpace         // space, tab, CR, FF, VT
	clNewline       // \n
	clIdent         // ASCII letter, _ (and $ where it is an identifier byte)
	clDigit         // 0-9
	clSlash         // /
	clHash          // #
	clQuote         // a byte that may start a literal: ' " ` (and @ $ in C#)
	clOpen          // ( [ {
	clClose         // ) ] }
	clHigh          // >= 0x80: maybe a Unicode identifier
)

// classes builds the byte class table of a language.
func (sp *lexSpec) classes() *[256]uint8 {
	var t [256]uint8
	for c := 0; c < 256; c++ {
		b := byte(c)
		switch {
		case b == ' ' || b == '\t' || b == '\r' || b == '\f' || b == '\v':
			t[c] = clSpace
		case b == '\n':
			t[c] = clNewline
		case isLetter(b) || b == '_' || (b == '$' && sp.dollar):
			t[c] = clIdent
		case isDigit(b):
			t[c] = clDigit
		case b == '/':
			t[c] = clSlash
		case b == '#':
			t[c] = clHash
		case b == '\'' || b == '"' || b == '`' || ((b == '@' || b == '$') && sp.csharp):
			t[c] = clQuote
		case b == '(' || b == '[' || b == '{':
			t[c] = clOpen
		case b == ')' || b == ']' || b == '}':
			t[c] = clClose
		case b >= utf8.RuneSelf:
			t[c] = clHigh
		}
	}
	return &t
}

// code scans code from i and returns where it stopped (see the stop modes).
func (l *lexer) code(i int, mode int) int {
	src := l.src
	sp := l.spec
	cls := sp.class
	depth := 0
	lineStart := i == 0
	for i < len(src) {
		c := src[i]
		cl := cls[c]
		switch cl {
		case clSpace:
			i++
			continue
		case clNewline:
			lineStart = true
			i++
			continue
		}
		atLineStart := lineStart
		lineStart = false
		if len(l.skip) > 0 {
			for l.si < len(l.skip) && int(l.skip[l.si].end) <= i {
				l.si++
			}
			if l.si < len(l.skip) && int(l.skip[l.si].start) <= i {
				i = int(l.skip[l.si].end)
				continue
			}
		}
		switch cl {
		case clIdent:
			j := i + 1
			for j < len(src) && (cls[src[j]] == clIdent || cls[src[j]] == clDigit) {
				j++
			}
			if j < len(src) && src[j] >= utf8.RuneSelf {
				j = l.ident(i)
			}
			if sp.prefixed != nil && j < len(src) && (src[j] == '"' || src[j] == '\'' || src[j] == '#') {
				if end := sp.prefixed(l, i, j); end >= 0 {
					i = end
					l.regexOK = false
					continue
				}
			}
			l.word(i, j)
			i = j
			continue
		case clDigit:
			i = l.number(i)
			l.regexOK = false
			continue
		case clHigh:
			if j := l.ident(i); j > i {
				l.word(i, j)
				i = j
				continue
			}
			_, size := utf8.DecodeRune(src[i:])
			i += size
			continue
		case clQuote:
			if end := sp.str(l, i); end >= 0 {
				i = end
				l.regexOK = false
				continue
			}
		case clSlash:
			if i+1 < len(src) && sp.slashComments {
				switch src[i+1] {
				case '/':
					e := lineEnd(src, i)
					l.comments = append(l.comments, span{uint32(i), uint32(e)})
					i = e
					continue
				case '*':
					e := l.blockComment(i)
					l.comments = append(l.comments, span{uint32(i), uint32(e)})
					i = e
					continue
				}
			}
			if sp.regex && l.regexOK {
				if end := l.regexLiteral(i); end > 0 {
					i = end
					continue
				}
			}
		case clHash:
			switch {
			case sp.hashComments, sp.regex && i == 0 && i+1 < len(src) && src[i+1] == '!':
				e := lineEnd(src, i)
				if sp.hashComments {
					l.comments = append(l.comments, span{uint32(i), uint32(e)})
				}
				i = e
				continue
			case sp.preproc && atLineStart:
				i = l.directive(i)
				continue
			case sp.hashIdent:
				if j := l.ident(i); j > i {
					l.word(i, j)
					i = j
					continue
				}
			}
		case clOpen:
			depth++
		case clClose:
			if depth == 0 {
				switch {
				case mode == stopBrace && c == '}':
					return i + 1
				case (mode == stopField || mode == stopFieldOrBang) && c == '}':
					return i
				}
			} else {
				depth--
			}
			l.regexOK = false
			i++
			continue
		default:
			switch c {
			case '.':
				if i+1 < len(src) && isDigit(src[i+1]) {
					i = l.number(i)
					l.regexOK = false
					continue
				}
			case ':':
				if depth == 0 && (mode == stopField || mode == stopFieldOrBang) {
					return i
				}
			case '!':
				if depth == 0 && mode == stopFieldOrBang && (i+1 >= len(src) || src[i+1] != '=') {
					return i
				}
			}
		}
		l.regexOK = true
		i++
	}
	return i
}

// word records the identifier src[i:j] unless it is a keyword or a
// declared name.
func (l *lexer) word(i, j int) {
	w := l.src[i:j]
	if l.spec.keywords.has(w) {
		l.regexOK = true
		return
	}
	l.regexOK = false
	l.ref(i, j)
}

// ref records src[i:j] unless it is a declared name.
func (l *lexer) ref(i, j int) {
	for l.ei < len(l.excl) && int(l.excl[l.ei].end) <= i {
		l.ei++
	}
	if l.ei < len(l.excl) && int(l.excl[l.ei].start) <= i {
		return
	}
	l.refs.add(uint32(i), uint32(j))
}

// ident returns the end of the identifier starting at i, or i.
func (l *lexer) ident(i int) int {
	src := l.src
	j := i
	for j < len(src) {
		c := src[j]
		if c < utf8.RuneSelf {
			switch {
			case isLetter(c) || c == '_' || (c == '$' && l.spec.dollar):
				j++
				continue
			case isDigit(c) && j > i:
				j++
				continue
			case c == '#' && j == i && l.spec.hashIdent && j+1 < len(src) && (isLetter(src[j+1]) || src[j+1] == '_'):
				j++
				continue
			}
			break
		}
		r, size := utf8.DecodeRune(src[j:])
		if unicode.IsLetter(r) || (j > i && (unicode.IsDigit(r) || unicode.In(r, unicode.Mn, unicode.Mc))) {
			j += size
			continue
		}
		break
	}
	return j
}

func (l *lexer) number(i int) int {
	src := l.src
	for i < len(src) {
		c := src[i]
		switch {
		case (c == 'e' || c == 'E' || c == 'p' || c == 'P') && i+1 < len(src) && (src[i+1] == '+' || src[i+1] == '-'):
			i += 2
		case isLetter(c) || isDigit(c) || c == '_' || c == '.':
			i++
		case c == '\'' && l.spec.digitSep && i+1 < len(src) && (isDigit(src[i+1]) || isLetter(src[i+1])):
			i++
		default:
			return i
		}
	}
	return i
}

func (l *lexer) blockComment(i int) int {
	src := l.src
	depth := 0
	for i < len(src)-1 {
		switch {
		case src[i] == '/' && src[i+1] == '*':
			depth++
			i += 2
			if !l.spec.nestedBlock && depth > 1 {
				depth = 1
			}
		case src[i] == '*' && src[i+1] == '/':
			depth--
			i += 2
			if depth == 0 {
				return i
			}
		default:
			i++
		}
	}
	return len(src)
}

// directive handles a preprocessor line: conditions and macro definitions
// are code, other directives (#include <x.h>, #pragma, #region text) are
// skipped to the end of the line.
func (l *lexer) directive(i int) int {
	src := l.src
	j := i + 1
	for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
		j++
	}
	k := j
	for k < len(src) && isLetter(src[k]) {
		k++
	}
	switch string(src[j:k]) {
	case "if", "elif", "ifdef", "ifndef", "elifdef", "elifndef", "define", "undef":
		return k
	}
	for {
		e := lineEnd(src, k)
		if e > 0 && e < len(src) && src[e-1] == '\\' || e > 1 && e < len(src) && src[e-1] == '\r' && src[e-2] == '\\' {
			k = e + 1
			continue
		}
		return e
	}
}

// regexLiteral returns the end of a /regex/flags literal at i, or -1 when
// the line ends first (then the slash was a division).
func (l *lexer) regexLiteral(i int) int {
	src := l.src
	class := false
	for j := i + 1; j < len(src); j++ {
		switch c := src[j]; {
		case c == '\\':
			j++
		case c == '\n':
			return -1
		case c == '[':
			class = true
		case c == ']':
			class = false
		case c == '/' && !class:
			j++
			for j < len(src) && (isLetter(src[j]) || isDigit(src[j])) {
				j++
			}
			return j
		}
	}
	return -1
}

// quoted returns the end of a literal from i (just after the opening quote)
// to quote q; backslash escapes; a newline ends it unless multiline.
func (l *lexer) quoted(i int, q byte, multiline bool) int {
	src := l.src
	for i < len(src) {
		switch c := src[i]; {
		case c == '\\':
			i += 2
			continue
		case c == q:
			return i + 1
		case c == '\n' && !multiline:
			return i
		}
		i++
	}
	return len(src)
}

// until returns the end of a literal from i to the delimiter, without
// escapes.
func (l *lexer) until(i int, delim string) int {
	if i >= len(l.src) {
		return len(l.src)
	}
	var k int
	if len(delim) == 1 {
		k = bytes.IndexByte(l.src[i:], delim[0])
	} else {
		k = bytes.Index(l.src[i:], []byte(delim))
	}
	if k < 0 {
		return len(l.src)
	}
	return i + k + len(delim)
}

// interpolated returns the end of an interpolated string from i (just after
// the opening quote delim): {expr} holes are scanned as code, {{ is a
// literal brace, backslashes escape when esc, and a newline ends it unless
// multiline. A hole ends at a top-level : or ! (format spec, conversion) by
// the given stop mode.
func (l *lexer) interpolated(i int, delim string, esc, multiline bool, mode int) int {
	src := l.src
	for i < len(src) {
		switch c := src[i]; {
		case c == '\\' && esc:
			i += 2
			continue
		case c == delim[0] && hasAt(src, i, delim):
			return i + len(delim)
		case c == '\n' && !multiline:
			return i
		case c == '{':
			if i+1 < len(src) && src[i+1] == '{' {
				i += 2
				continue
			}
			i = l.hole(i+1, mode)
			continue
		}
		i++
	}
	return len(src)
}

// hole scans an interpolation hole from i (after its {) and returns the end
// of its }.
func (l *lexer) hole(i int, mode int) int {
	i = l.code(i, mode)
	src := l.src
	for i < len(src) {
		switch src[i] {
		case '}':
			return i + 1
		case '{':
			i = l.hole(i+1, mode)
			continue
		case '\n':
			return i
		}
		i++
	}
	return i
}

// template returns the end of a JavaScript template literal from i (after
// its backquote).
func (l *lexer) template(i int) int {
	src := l.src
	for i < len(src) {
		switch src[i] {
		case '\\':
			i += 2
			continue
		case '`':
			return i + 1
		case '$':
			if i+1 < len(src) && src[i+1] == '{' {
				i = l.code(i+2, stopBrace)
				continue
			}
		}
		i++
	}
	return len(src)
}

func lineEnd(src []byte, i int) int {
	for ; i < len(src); i++ {
		if src[i] == '\n' {
			return i
		}
	}
	return len(src)
}

func hasAt(src []byte, i int, s string) bool {
	return len(src)-i >= len(s) && string(src[i:i+len(s)]) == s
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }

// keywordSet is a small set of words, looked up without hashing: by length,
// then first byte. The scanner asks it about every identifier.
type keywordSet struct {
	byLen [24][]string
}

func keywords(s string) *keywordSet {
	k := &keywordSet{}
	for _, w := range strings.Fields(s) {
		if len(w) >= len(k.byLen) {
			panic("keyword too long: " + w)
		}
		k.byLen[len(w)] = append(k.byLen[len(w)], w)
	}
	return k
}

func (k *keywordSet) has(w []byte) bool {
	if len(w) >= len(k.byLen) {
		return false
	}
	for _, s := range k.byLen[len(w)] {
		if s[0] == w[0] && string(w) == s {
			return true
		}
	}
	return false
}

// wordSet is the set of distinct words of the source, kept as spans until
// the end so that a repeated identifier costs a hash and a compare, not an
// allocation: open addressing, FNV-1a, at most half full.
type wordSet struct {
	src   []byte
	slots []span // end == 0: empty
	n     int
}

func (s *wordSet) add(start, end uint32) {
	if s.slots == nil {
		s.slots = make([]span, 256)
	}
	w := s.src[start:end]
	mask := uint32(len(s.slots) - 1)
	for i := fnv(w) & mask; ; i = (i + 1) & mask {
		e := s.slots[i]
		if e.end == 0 {
			s.slots[i] = span{start, end}
			if s.n++; 2*s.n > len(s.slots) {
				s.grow()
			}
			return
		}
		if e.end-e.start == end-start && bytes.Equal(s.src[e.start:e.end], w) {
			return
		}
	}
}

func (s *wordSet) grow() {
	old := s.slots
	s.slots = make([]span, 2*len(old))
	mask := uint32(len(s.slots) - 1)
	for _, e := range old {
		if e.end == 0 {
			continue
		}
		i := fnv(s.src[e.start:e.end]) & mask
		for s.slots[i].end != 0 {
			i = (i + 1) & mask
		}
		s.slots[i] = e
	}
}

// strings returns the words, sorted. The sort compares an 8-byte prefix
// as an integer first: most words differ there, and integer compares are
// much cheaper than string compares.
func (s *wordSet) strings() []string {
	type keyed struct {
		key uint64
		s   string
	}
	ks := make([]keyed, 0, s.n)
	for _, e := range s.slots {
		if e.end != 0 {
			w := s.src[e.start:e.end]
			var key uint64
			for i := range 8 {
				key <<= 8
				if i < len(w) {
					key |= uint64(w[i])
				}
			}
			ks = append(ks, keyed{key, string(w)})
		}
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		if a.key != b.key {
			return cmp.Compare(a.key, b.key)
		}
		return strings.Compare(a.s, b.s)
	})
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = k.s
	}
	return out
}

func fnv(b []byte) uint32 {
	h := uint32(2166136261)
	for _, c := range b {
		h = (h ^ uint32(c)) * 16777619
	}
	return h
}

// Literal strings of each language.

func goStr(l *lexer, i int) int {
	switch l.src[i] {
	case '"', '\'':
		return l.quoted(i+1, l.src[i], false)
	case '`':
		return l.until(i+1, "`")
	}
	return -1
}

func jsStr(l *lexer, i int) int {
	switch l.src[i] {
	case '"', '\'':
		return l.quoted(i+1, l.src[i], false)
	case '`':
		return l.template(i + 1)
	}
	return -1
}

func javaStr(l *lexer, i int) int {
	switch l.src[i] {
	case '"':
		if hasAt(l.src, i, `"""`) {
			return l.textBlock(i+3, `"""`)
		}
		return l.quoted(i+1, '"', false)
	case '\'':
		return l.quoted(i+1, '\'', false)
	}
	return -1
}

// textBlock returns the end of a multi-line literal with backslash escapes
// ending at delim.
func (l *lexer) textBlock(i int, delim string) int {
	src := l.src
	for i < len(src) {
		if src[i] == '\\' {
			i += 2
			continue
		}
		if hasAt(src, i, delim) {
			return i + len(delim)
		}
		i++
	}
	return len(src)
}

func pyStr(l *lexer, i int) int {
	if c := l.src[i]; c == '"' || c == '\'' {
		return l.pyString(i, false)
	}
	return -1
}

// pyPrefixed handles string prefixes: r, b, u, f, t and their pairs.
func pyPrefixed(l *lexer, i, j int) int {
	if j >= len(l.src) || (l.src[j] != '"' && l.src[j] != '\'') || j-i > 2 {
		return -1
	}
	p := strings.ToLower(string(l.src[i:j]))
	if strings.Trim(p, "rbuft") != "" {
		return -1
	}
	return l.pyString(j, strings.ContainsAny(p, "ft"))
}

// pyString returns the end of a Python string whose quote is at i.
func (l *lexer) pyString(i int, interp bool) int {
	q := l.src[i]
	delim := string(q)
	if hasAt(l.src, i, strings.Repeat(delim, 3)) {
		delim = strings.Repeat(delim, 3)
	}
	multiline := len(delim) == 3
	if interp {
		return l.interpolated(i+len(delim), delim, true, multiline, stopFieldOrBang)
	}
	if !multiline {
		return l.quoted(i+1, q, false)
	}
	return l.textBlock(i+3, delim)
}

func rustStr(l *lexer, i int) int {
	switch l.src[i] {
	case '"':
		return l.quoted(i+1, '"', true)
	case '\'':
		return l.rustQuote(i)
	}
	return -1
}

// rustQuote tells a character literal ('a', '\n') from a lifetime ('a),
// whose name is not a reference either.
func (l *lexer) rustQuote(i int) int {
	src := l.src
	if i+1 < len(src) && src[i+1] == '\\' {
		return l.quoted(i+1, '\'', false)
	}
	if i+1 < len(src) {
		_, size := utf8.DecodeRune(src[i+1:])
		if k := i + 1 + size; k < len(src) && src[k] == '\'' {
			return k + 1
		}
	}
	if j := l.ident(i + 1); j > i+1 {
		return j
	}
	return i + 1
}

// rustPrefixed handles b"", b”, r"", r#""#, br"", c"", cr#""# and raw
// identifiers (r#type).
func rustPrefixed(l *lexer, i, j int) int {
	src := l.src
	if j >= len(src) {
		return -1
	}
	p := string(src[i:j])
	switch {
	case (p == "b" || p == "c") && src[j] == '"':
		return l.quoted(j+1, '"', true)
	case p == "b" && src[j] == '\'':
		return l.quoted(j+1, '\'', false)
	case (p == "r" || p == "br" || p == "cr") && (src[j] == '"' || src[j] == '#'):
		k := j
		for k < len(src) && src[k] == '#' {
			k++
		}
		if k < len(src) && src[k] == '"' {
			return l.until(k+1, `"`+strings.Repeat("#", k-j))
		}
		if p == "r" && k == j+1 {
			if e := l.ident(k); e > k {
				l.ref(k, e) // r#type: a keyword used as an identifier
				return e
			}
		}
	}
	return -1
}

func cStr(l *lexer, i int) int {
	switch l.src[i] {
	case '"', '\'':
		return l.quoted(i+1, l.src[i], false)
	}
	return -1
}

// cPrefixed handles encoding prefixes (L, u, U, u8) and raw strings
// (R"delim(...)delim").
func cPrefixed(l *lexer, i, j int) int {
	src := l.src
	if j >= len(src) || (src[j] != '"' && src[j] != '\'') {
		return -1
	}
	p := string(src[i:j])
	switch p {
	case "L", "u", "U", "u8":
		return l.quoted(j+1, src[j], false)
	case "R", "LR", "uR", "UR", "u8R":
		if src[j] != '"' {
			return -1
		}
		open := strings.IndexByte(string(src[j+1:min(len(src), j+18)]), '(')
		if open < 0 {
			return l.quoted(j+1, '"', false)
		}
		delim := ")" + string(src[j+1:j+1+open]) + `"`
		return l.until(j+2+open, delim)
	}
	return -1
}

// csStr handles "", ”, verbatim @"", interpolated $"" (and $@"", @$""),
// and raw """ """ strings, interpolated or not.
func csStr(l *lexer, i int) int {
	src := l.src
	k := i
	dollars, verbatim := 0, false
	for k < len(src) && (src[k] == '$' || src[k] == '@') {
		if src[k] == '$' {
			dollars++
		} else {
			verbatim = true
		}
		k++
	}
	if k >= len(src) || (src[k] != '"' && !(k == i && src[k] == '\'')) {
		return -1
	}
	if src[k] == '\'' {
		return l.quoted(k+1, '\'', false)
	}
	if hasAt(src, k, `"""`) {
		n := k
		for n < len(src) && src[n] == '"' {
			n++
		}
		delim := string(src[k:n])
		if dollars > 0 {
			return l.interpolated(n, delim, false, true, stopField)
		}
		return l.until(n, delim)
	}
	switch {
	case dollars > 0:
		return l.interpolated(k+1, `"`, !verbatim, verbatim, stopField)
	case verbatim:
		// "" is an escaped quote: two literals back to back scan the same.
		return l.until(k+1, `"`)
	}
	return l.quoted(k+1, '"', false)
}

var (
	goLex = &lexSpec{
		slashComments: true,
		str:           goStr,
		keywords: keywords(`break case chan const continue default defer else
			fallthrough for func go goto if import interface map package range
			return select struct switch type var true false nil iota _`),
	}
	jsKeywords = `break case catch class const continue debugger default delete
		do else export extends finally for function if import in instanceof new
		return super switch this throw try typeof var void while with yield let
		static async await of get set from as null true false undefined`
	jsLex = &lexSpec{
		slashComments: true, dollar: true, hashIdent: true, regex: true,
		str:      jsStr,
		keywords: keywords(jsKeywords),
	}
	tsLex = &lexSpec{
		slashComments: true, dollar: true, hashIdent: true, regex: true,
		str: jsStr,
		keywords: keywords(jsKeywords + ` abstract declare enum implements
			interface keyof module namespace private protected public readonly
			type is infer asserts satisfies unique override accessor any unknown
			never number string boolean symbol object bigint require global`),
	}
	pythonLex = &lexSpec{
		hashComments: true,
		str:          pyStr,
		prefixed:     pyPrefixed,
		keywords: keywords(`False None True and as assert async await break
			class continue def del elif else except finally for from global if
			import in is lambda nonlocal not or pass raise return try while with
			yield`),
	}
	javaLex = &lexSpec{
		slashComments: true,
		str:           javaStr,
		keywords: keywords(`abstract assert boolean break byte case catch char
			class const continue default do double else enum extends final
			finally float for goto if implements import instanceof int interface
			long native new package private protected public return short static
			strictfp super switch synchronized this throw throws transient try
			void volatile while true false null var record yield sealed permits`),
	}
	rustLex = &lexSpec{
		slashComments: true, nestedBlock: true,
		str:      rustStr,
		prefixed: rustPrefixed,
		keywords: keywords(`as async await break const continue crate dyn else
			enum extern false fn for if impl in let loop match mod move mut pub
			ref return self Self static struct super trait true type unsafe use
			where while union macro_rules bool char str i8 i16 i32 i64 i128 isize
			u8 u16 u32 u64 u128 usize f32 f64`),
	}
	cKeywords = `auto break case char const continue default do double else
		enum extern float for goto if inline int long register restrict return
		short signed sizeof static struct switch typedef union unsigned void
		volatile while _Bool _Complex _Alignas _Alignof _Atomic _Generic
		_Noreturn _Static_assert _Thread_local bool true false NULL defined`
	cLex = &lexSpec{
		slashComments: true, preproc: true, digitSep: true,
		str:      cStr,
		prefixed: cPrefixed,
		keywords: keywords(cKeywords),
	}
	cppLex = &lexSpec{
		slashComments: true, preproc: true, digitSep: true,
		str:      cStr,
		prefixed: cPrefixed,
		keywords: keywords(cKeywords + ` alignas alignof and and_eq asm bitand
			bitor catch class compl concept consteval constexpr constinit
			const_cast co_await co_return co_yield decltype delete dynamic_cast
			explicit export friend mutable namespace new noexcept not not_eq
			nullptr operator or or_eq private protected public reinterpret_cast
			requires static_assert static_cast template this thread_local throw
			try typeid typename using virtual wchar_t xor xor_eq override final
			char8_t char16_t char32_t`),
	}
	csharpLex = &lexSpec{
		slashComments: true, preproc: true, csharp: true,
		str: csStr,
		keywords: keywords(`abstract as base bool break byte case catch char
			checked class const continue decimal default delegate do double else
			enum event explicit extern false finally fixed float for foreach goto
			if implicit in int interface internal is lock long namespace new null
			object operator out override params private protected public readonly
			ref return sbyte sealed short sizeof stackalloc static string struct
			switch this throw true try typeof uint ulong unchecked unsafe ushort
			using virtual void volatile while var async await get set init value
			where yield partial record global dynamic nameof when add remove`),
	}
)

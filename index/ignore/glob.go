package ignore

import (
	"strings"
	"unicode/utf8"
)

// This file is ctxd's implementation of git's wildmatch semantics (the glob
// dialect of .gitignore patterns). go-gitignore's regular-expression
// translation cannot express them (see docs/dependencies.md), so the
// patterns are compiled into a small token program and matched by
// backtracking with the same outcomes git reaches, including its
// early-abort rules: they decide which alternatives git never tries, and
// reproducing them keeps ctxd's answer identical to git's on every input.

// GlobOptions select the variants of the wildmatch dialect a [Glob]
// matches with.
type GlobOptions struct {
	// FoldCase makes ASCII letters match either case (git's
	// core.ignorecase); other bytes and characters match exactly.
	FoldCase bool
	// Runes makes '?' and "[...]" match one UTF-8 encoded character instead
	// of one byte: class members and range ends are characters ("[à-ü]"),
	// and '*' and "**" grow by whole characters. A byte of the text that is
	// not valid UTF-8 counts as one character, U+FFFD. Without Runes, as in
	// git, "?" matches the first byte of "é" and leaves the second.
	Runes bool
}

// Glob is one compiled wildmatch glob, matched against a whole
// '/'-separated text: git's glob dialect as an ignore line uses it once
// the line's own syntax is taken off (a leading '!' negation, a trailing
// '/' for directories, the anchoring of a pattern with a '/', comments and
// trailing spaces are [Rules]' business, not the Glob's). '*' and '?'
// never match '/'; "**" crosses directories as a whole segment; a
// backslash escapes the next byte; classes take ranges, negation with '!'
// or '^' and [:name:] classes. The literal start of the glob is compared
// before the rest is globbed, as git does, so "foo**/bar" matches
// "foo/x/bar". The package comment lists every rule.
//
// workspace/policy matches its namespace globs with a Glob of characters
// ([GlobOptions] Runes), after checking their stricter syntax.
type Glob struct {
	// head is the literal start, up to the first special character.
	head string
	fold bool
	// g globs the rest; nil when the whole glob is literal.
	g *glob
}

// CompileGlob compiles a wildmatch glob. ok is false when git could never
// match it: a trailing lone backslash, an unterminated class or an unknown
// [:name:] class.
func CompileGlob(pattern string, opts GlobOptions) (g *Glob, ok bool) {
	head, rest := splitHead(pattern)
	g = &Glob{head: head, fold: opts.FoldCase}
	if rest != "" {
		if g.g, ok = compileGlobMode(rest, opts.FoldCase, opts.Runes); !ok {
			return nil, false
		}
	}
	return g, true
}

// Match reports whether the glob matches all of text. unsure reports that
// matching ran out of its step budget (only crafted globs and texts do):
// matched is then meaningless, and the caller decides, as ignore lines do,
// which answer excludes.
func (g *Glob) Match(text string) (matched, unsure bool) {
	if len(text) < len(g.head) || !equalFold(text[:len(g.head)], g.head, g.fold) {
		return false, false
	}
	if g.g == nil {
		return len(text) == len(g.head), false
	}
	return g.g.match(text[len(g.head):])
}

// splitHead splits a glob into its literal start, up to git's first
// special character, and the rest.
func splitHead(s string) (head, rest string) {
	n := 0
	for n < len(s) && !isSpecial(s[n]) {
		n++
	}
	return s[:n], s[n:]
}

// op is the kind of one glob token.
type op uint8

const (
	opLit   op = iota // exactly the byte tok.b
	opAny             // '?': any byte but '/'
	opClass           // "[...]": a byte in tok.set ('/' is never in it)
	opStar            // a run of '*' that stays inside one path segment
	opStars           // "**" at segment boundaries: crosses '/'
)

// tok is one compiled glob element.
type tok struct {
	op op
	// b is the byte of an opLit, lower-cased when the glob folds case.
	b byte
	// raw reports that an opLit was written without a backslash. git's
	// shortcuts after a star look at the pattern's raw next byte, so an
	// escaped "\/" or "\x" takes the slow path there.
	raw bool
	// zeroDirs marks an opStars written as "**/" (with an unescaped slash):
	// it may also match no directory at all.
	zeroDirs bool
	// set holds the bytes an opClass accepts; in a glob of characters
	// (glob.runes) only its ASCII half is consulted.
	set *byteSet
	// wide holds the non-ASCII characters an opClass of a glob of
	// characters accepts; nil in a glob of bytes.
	wide *wideSet
}

// byteSet is a set of bytes.
type byteSet [4]uint64

func (s *byteSet) add(c byte)      { s[c>>6] |= 1 << (c & 63) }
func (s *byteSet) has(c byte) bool { return s[c>>6]&(1<<(c&63)) != 0 }

// wideSet is the non-ASCII part of a class of characters: ranges of
// characters (all of them at or above U+0080), possibly negated.
type wideSet struct {
	negate bool
	ranges []runeRange
}

// runeRange is an inclusive range of characters.
type runeRange struct{ lo, hi rune }

func (w *wideSet) has(r rune) bool {
	in := false
	for _, rg := range w.ranges {
		if rg.lo <= r && r <= rg.hi {
			in = true
			break
		}
	}
	return in != w.negate
}

// glob is a compiled pattern tail (everything from the pattern's first
// special character on; the literal head is compared separately).
type glob struct {
	toks []tok
	fold bool
	// runes makes '?' and classes match one UTF-8 encoded character
	// instead of one byte, and stars advance by characters (see
	// GlobOptions.Runes).
	runes bool
	// varWidth reports a glob of characters with a '?' or a class: its
	// text is then not of a fixed length even without stars.
	varWidth bool
	// minLen is the number of bytes the glob needs at least: every token
	// but the stars consumes exactly one byte.
	minLen int
	// stars reports whether any star token exists; without one the text
	// must be exactly minLen bytes long.
	stars bool
	// tail is the run of literals that ends the glob ("" when it ends with
	// anything else): a cheap suffix test before backtracking.
	tail string
	// must is the longest run of literals the text must contain ("" when
	// the glob folds case): a cheap test before backtracking.
	must string
}

// isSpecial reports the bytes git treats as glob syntax (its
// is_glob_special): everything before the first of them is a literal head.
func isSpecial(c byte) bool {
	return c == '*' || c == '?' || c == '[' || c == '\\'
}

// compileGlob compiles s, a pattern tail starting at git's first special
// character. ok is false when git could never match the pattern: a trailing
// lone backslash, an unterminated class or an unknown [:name:] class. git
// aborts whenever its matcher reaches such a spot, and no match can avoid
// reaching it.
func compileGlob(s string, fold bool) (g *glob, ok bool) {
	return compileGlobMode(s, fold, false)
}

// compileGlobMode is compileGlob, for a glob of characters when runes is
// set (see GlobOptions.Runes).
func compileGlobMode(s string, fold, runes bool) (g *glob, ok bool) {
	g = &glob{fold: fold, runes: runes}
	for i := 0; i < len(s); {
		c := s[i]
		switch c {
		case '\\':
			if i+1 == len(s) {
				return nil, false
			}
			g.toks = append(g.toks, tok{op: opLit, b: foldByte(s[i+1], fold)})
			i += 2
		case '?':
			g.toks = append(g.toks, tok{op: opAny})
			i++
		case '[':
			set, wide, n, ok := parseClass(s[i:], fold, runes)
			if !ok {
				return nil, false
			}
			g.toks = append(g.toks, tok{op: opClass, set: set, wide: wide})
			i += n
		case '*':
			j := i
			for j < len(s) && s[j] == '*' {
				j++
			}
			t := tok{op: opStar}
			// "**" crosses slashes only when it fills whole segments: at the
			// start of the tail (git starts matching there after comparing
			// the literal head, so the start counts as a boundary even in
			// "foo**/bar") or after a '/', and before the end, a '/' or an
			// escaped "\/". Elsewhere it is an ordinary star.
			if j-i >= 2 && (i == 0 || s[i-1] == '/') &&
				(j == len(s) || s[j] == '/' || (s[j] == '\\' && j+1 < len(s) && s[j+1] == '/')) {
				t.op = opStars
				t.zeroDirs = j < len(s) && s[j] == '/'
			}
			g.toks = append(g.toks, t)
			i = j
		default:
			g.toks = append(g.toks, tok{op: opLit, b: foldByte(c, fold), raw: true})
			i++
		}
	}
	for k, t := range g.toks {
		if runes && (t.op == opAny || t.op == opClass) {
			// One character, one to four bytes: minLen stays a lower bound.
			g.varWidth = true
		}
		switch {
		case t.op == opStar || t.op == opStars:
			g.stars = true
		case k > 0 && g.toks[k-1].zeroDirs:
			// The slash of "**/" may match nothing.
		default:
			g.minLen++
		}
	}
	// The run of literals that ends the glob must end the text (without
	// the optional slash of a "**/" before it).
	k := len(g.toks)
	for k > 0 && g.toks[k-1].op == opLit {
		k--
	}
	if k > 0 && g.toks[k-1].zeroDirs {
		k++
	}
	tail := make([]byte, 0, len(g.toks)-k)
	for _, t := range g.toks[k:] {
		tail = append(tail, t.b)
	}
	g.tail = string(tail)
	if !fold {
		var run []byte
		for i, t := range g.toks {
			if t.op != opLit || (i > 0 && g.toks[i-1].zeroDirs) {
				// Stars, classes and the optional slash of "**/" end a run.
				run = run[:0]
				continue
			}
			run = append(run, t.b)
			if len(run) > len(g.must) {
				g.must = string(run)
			}
		}
	}
	return g, true
}

// parseClass parses the bracket expression at the start of s (s[0] == '[')
// the way git's wildmatch does and returns the accepted bytes and the
// expression's length. Quirks kept from git: a ']' right after "[" or "[!"
// is a member; "[^" negates like "[!"; '-' is literal at either end and
// right after a range; an escaped byte is literal and may start or end a
// range; "[:" without a closing ":]" makes '[' an ordinary member; an
// unknown [:name:] or a missing ']' makes the whole pattern unmatchable.
// With runes set, members and range ends are UTF-8 encoded characters (an
// invalid byte reads as U+FFFD); the ASCII members go to set and the
// others to wide.
func parseClass(s string, fold, runes bool) (set *byteSet, wide *wideSet, n int, ok bool) {
	var in byteSet
	var ranges []runeRange
	// add adds the members lo to hi; a reversed range adds nothing.
	add := func(lo, hi rune) {
		last := rune(0xff)
		if runes {
			last = 0x7f
		}
		for b := lo; b <= hi && b <= last; b++ {
			in.add(byte(b))
		}
		if runes && hi >= 0x80 && lo <= hi {
			ranges = append(ranges, runeRange{max(lo, 0x80), hi})
		}
	}
	// read returns the member at s[i] and its length.
	read := func(i int) (rune, int) {
		if runes && s[i] >= utf8.RuneSelf {
			return utf8.DecodeRuneInString(s[i:])
		}
		return rune(s[i]), 1
	}
	i := 1
	negated := false
	if i < len(s) && (s[i] == '!' || s[i] == '^') {
		negated = true
		i++
	}
	// prev is the last single member, the possible start of a range; -1
	// after a range or a named class, which cannot start one.
	prev := rune(-1)
	for first := true; ; first = false {
		if i >= len(s) {
			return nil, nil, 0, false
		}
		c, w := read(i)
		if c == ']' && !first {
			break
		}
		switch {
		case c == '\\':
			i++
			if i >= len(s) {
				return nil, nil, 0, false
			}
			c, w = read(i)
			add(c, c)
			prev = c
		case c == '-' && prev >= 0 && i+1 < len(s) && s[i+1] != ']':
			i++
			hi, hw := read(i)
			if hi == '\\' {
				i++
				if i >= len(s) {
					return nil, nil, 0, false
				}
				hi, hw = read(i)
			}
			w = hw
			add(prev, hi)
			prev = -1
		case c == '[' && i+1 < len(s) && s[i+1] == ':':
			end := strings.IndexByte(s[i+2:], ']')
			if end < 0 {
				return nil, nil, 0, false
			}
			end += i + 2
			if end-(i+2) < 1 || s[end-1] != ':' {
				// Not a named class: '[' is a member and scanning goes on
				// with the ':' after it.
				add('[', '[')
				prev = '['
				break
			}
			if !addNamedClass(&in, s[i+2:end-1]) {
				return nil, nil, 0, false
			}
			prev = -1
			i = end
		default:
			add(c, c)
			prev = c
		}
		i += w
	}
	if fold {
		for b := 'a'; b <= 'z'; b++ {
			if in.has(byte(b)) || in.has(byte(b-'a'+'A')) {
				in.add(byte(b))
				in.add(byte(b - 'a' + 'A'))
			}
		}
	}
	set = &byteSet{}
	for b := 0; b < 256; b++ {
		if in.has(byte(b)) != negated && b != '/' {
			set.add(byte(b))
		}
	}
	if runes {
		wide = &wideSet{negate: negated, ranges: ranges}
	}
	return set, wide, i + 1, true
}

// addNamedClass adds the members of a POSIX class as git's locale-free
// ctype defines it (ASCII only; "space" is only tab, LF, CR and space;
// "cntrl" includes DEL). It reports false for an unknown name.
func addNamedClass(s *byteSet, name string) bool {
	var f func(b byte) bool
	switch name {
	case "alnum":
		f = func(b byte) bool { return isAlpha(b) || isDigit(b) }
	case "alpha":
		f = isAlpha
	case "blank":
		f = func(b byte) bool { return b == ' ' || b == '\t' }
	case "cntrl":
		f = func(b byte) bool { return b < 0x20 || b == 0x7f }
	case "digit":
		f = isDigit
	case "graph":
		f = func(b byte) bool { return b > 0x20 && b < 0x7f }
	case "lower":
		f = func(b byte) bool { return b >= 'a' && b <= 'z' }
	case "print":
		f = func(b byte) bool { return b >= 0x20 && b < 0x7f }
	case "punct":
		f = func(b byte) bool { return b > 0x20 && b < 0x7f && !isAlpha(b) && !isDigit(b) }
	case "space":
		f = func(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }
	case "upper":
		f = func(b byte) bool { return b >= 'A' && b <= 'Z' }
	case "xdigit":
		f = func(b byte) bool { return isDigit(b) || (b|0x20 >= 'a' && b|0x20 <= 'f') }
	default:
		return false
	}
	for b := 0; b < 128; b++ {
		if f(byte(b)) {
			s.add(byte(b))
		}
	}
	return true
}

func isAlpha(b byte) bool { return b|0x20 >= 'a' && b|0x20 <= 'z' }
func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// foldByte lower-cases an ASCII letter when fold is set.
func foldByte(c byte, fold bool) byte {
	if fold && c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// Outcomes of one matching attempt, as in git. Besides match and no match,
// an attempt may tell its callers to stop trying longer star expansions:
// abortAll when the text ran out (every later start has less text), and
// abortToStars when a single star met a '/' it cannot cross (only an
// enclosing "**" may go on).
const (
	resMatch = iota
	resNoMatch
	resAbortAll
	resAbortToStars
)

// Matching limits. A hostile .gitignore can make backtracking expensive;
// after memoAfter steps the matcher remembers the outcome of every
// (token, position) pair, which bounds the work by tokens × positions × text
// length, and after maxSteps it gives up: the caller then treats the pattern
// as matching when it ignores and as not matching when it re-includes
// (when unsure, exclude).
const (
	memoAfter = 1 << 12
	maxSteps  = 1 << 22
)

// matcher is the state of one match of a glob against one text.
type matcher struct {
	g     *glob
	text  string
	steps int
	// memoFrom and limit are memoAfter and maxSteps (tests lower them).
	memoFrom, limit int
	memo            map[int]int8
	// gaveUp reports that the step limit was reached; the outcome is then
	// unknown.
	gaveUp bool
}

// match reports whether the glob matches all of text. unsure reports that
// the step limit was reached and matched is meaningless.
func (g *glob) match(text string) (matched, unsure bool) {
	if len(text) < g.minLen || (!g.stars && !g.varWidth && len(text) != g.minLen) {
		return false, false
	}
	if g.tail != "" && !hasSuffixFold(text, g.tail, g.fold) {
		return false, false
	}
	if len(g.must) > len(g.tail) && !strings.Contains(text, g.must) {
		return false, false
	}
	return g.run(text, memoAfter, stepLimit)
}

// stepLimit is maxSteps; tests of the give-up path lower it.
var stepLimit = maxSteps

// run matches without match's shortcuts.
func (g *glob) run(text string, memoFrom, limit int) (matched, unsure bool) {
	m := matcher{g: g, text: text, memoFrom: memoFrom, limit: limit}
	r := m.from(0, 0)
	return r == resMatch, m.gaveUp
}

// from matches the tokens from index pi on against the text from ti on.
func (m *matcher) from(pi, ti int) int {
	m.steps++
	if m.steps > m.limit {
		m.gaveUp = true
		return resAbortAll
	}
	if m.steps > m.memoFrom {
		key := pi*(len(m.text)+1) + ti
		if m.memo == nil {
			m.memo = make(map[int]int8)
		} else if r, ok := m.memo[key]; ok {
			return int(r)
		}
		r := m.step(pi, ti)
		m.memo[key] = int8(r)
		return r
	}
	return m.step(pi, ti)
}

func (m *matcher) step(pi, ti int) int {
	toks, text := m.g.toks, m.text
	for ; pi < len(toks); pi, ti = pi+1, ti+1 {
		t := &toks[pi]
		if t.op == opStar || t.op == opStars {
			return m.star(pi, ti)
		}
		if ti == len(text) {
			return resAbortAll
		}
		c := text[ti]
		switch t.op {
		case opLit:
			if foldByte(c, m.g.fold) != t.b {
				return resNoMatch
			}
		case opAny:
			if c == '/' {
				return resNoMatch
			}
			if m.g.runes && c >= utf8.RuneSelf {
				_, w := utf8.DecodeRuneInString(text[ti:])
				ti += w - 1
			}
		case opClass:
			if !m.g.runes || c < utf8.RuneSelf {
				if !t.set.has(c) {
					return resNoMatch
				}
				break
			}
			r, w := utf8.DecodeRuneInString(text[ti:])
			if !t.wide.has(r) {
				return resNoMatch
			}
			ti += w - 1
		}
	}
	if ti == len(text) {
		return resMatch
	}
	return resNoMatch
}

// star matches the star token at pi followed by the rest of the glob.
func (m *matcher) star(pi, ti int) int {
	toks, text := m.g.toks, m.text
	t := &toks[pi]
	crosses := t.op == opStars
	next := pi + 1
	if t.zeroDirs && m.from(next+1, ti) == resMatch {
		// "**/" standing for no directory: "a/**/b" matches "a/b".
		return resMatch
	}
	if next == len(toks) {
		if !crosses && strings.IndexByte(text[ti:], '/') >= 0 {
			return resNoMatch
		}
		return resMatch
	}
	nt := &toks[next]
	if !crosses && nt.op == opLit && nt.raw && nt.b == '/' {
		// A single star before a slash is the rest of this segment.
		k := strings.IndexByte(text[ti:], '/')
		if k < 0 {
			return resNoMatch
		}
		return m.from(next+1, ti+k+1)
	}
	for ti < len(text) {
		if nt.op == opLit && nt.raw {
			// Skip straight to the next occurrence of the literal that
			// follows the star (within the segment for a single star).
			for ti < len(text) {
				c := foldByte(text[ti], m.g.fold)
				if c == nt.b || (!crosses && c == '/') {
					break
				}
				ti++
			}
			if ti == len(text) || foldByte(text[ti], m.g.fold) != nt.b {
				return resNoMatch
			}
		}
		r := m.from(next, ti)
		if r != resNoMatch {
			if !crosses || r != resAbortToStars {
				return r
			}
		} else if !crosses && text[ti] == '/' {
			return resAbortToStars
		}
		ti += m.width(ti)
	}
	return resAbortAll
}

// width returns the length of the byte, or in a glob of characters the
// character, at text[ti]: the step by which a star grows. The literal a
// star skips to always starts a character (it starts one in the pattern,
// and UTF-8 lead bytes are never continuation bytes), so a star of a glob
// of characters only ever stops between characters.
func (m *matcher) width(ti int) int {
	if !m.g.runes || m.text[ti] < utf8.RuneSelf {
		return 1
	}
	_, w := utf8.DecodeRuneInString(m.text[ti:])
	return w
}

// hasSuffixFold reports whether s ends with suffix (already folded when
// fold is set), comparing ASCII letters case-insensitively when fold is set.
func hasSuffixFold(s, suffix string, fold bool) bool {
	if len(s) < len(suffix) {
		return false
	}
	return equalFold(s[len(s)-len(suffix):], suffix, fold)
}

// equalFold compares a and b, ASCII case-insensitively when fold is set.
func equalFold(a, b string, fold bool) bool {
	if !fold {
		return a == b
	}
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if foldByte(a[i], true) != foldByte(b[i], true) {
			return false
		}
	}
	return true
}

package ignore

import "strings"

// This file is ctxd's implementation of git's wildmatch semantics (the glob
// dialect of .gitignore patterns). go-gitignore's regular-expression
// translation cannot express them (see docs/dependencies.md), so the
// patterns are compiled into a small token program and matched by
// backtracking with the same outcomes git reaches, including its
// early-abort rules: they decide which alternatives git never tries, and
// reproducing them keeps ctxd's answer identical to git's on every input.

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
	// set holds the bytes an opClass accepts.
	set *byteSet
}

// byteSet is a set of bytes.
type byteSet [4]uint64

func (s *byteSet) add(c byte)      { s[c>>6] |= 1 << (c & 63) }
func (s *byteSet) has(c byte) bool { return s[c>>6]&(1<<(c&63)) != 0 }

// glob is a compiled pattern tail (everything from the pattern's first
// special character on; the literal head is compared separately).
type glob struct {
	toks []tok
	fold bool
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
	g = &glob{fold: fold}
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
			set, n, ok := parseClass(s[i:], fold)
			if !ok {
				return nil, false
			}
			g.toks = append(g.toks, tok{op: opClass, set: set})
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
func parseClass(s string, fold bool) (set *byteSet, n int, ok bool) {
	var in byteSet
	i := 1
	negated := false
	if i < len(s) && (s[i] == '!' || s[i] == '^') {
		negated = true
		i++
	}
	// prev is the last single member, the possible start of a range; -1
	// after a range or a named class, which cannot start one.
	prev := -1
	for first := true; ; first = false {
		if i >= len(s) {
			return nil, 0, false
		}
		c := s[i]
		if c == ']' && !first {
			break
		}
		switch {
		case c == '\\':
			i++
			if i >= len(s) {
				return nil, 0, false
			}
			in.add(s[i])
			prev = int(s[i])
		case c == '-' && prev >= 0 && i+1 < len(s) && s[i+1] != ']':
			i++
			hi := s[i]
			if hi == '\\' {
				i++
				if i >= len(s) {
					return nil, 0, false
				}
				hi = s[i]
			}
			for b := prev; b <= int(hi); b++ {
				in.add(byte(b))
			}
			prev = -1
		case c == '[' && i+1 < len(s) && s[i+1] == ':':
			end := strings.IndexByte(s[i+2:], ']')
			if end < 0 {
				return nil, 0, false
			}
			end += i + 2
			if end-(i+2) < 1 || s[end-1] != ':' {
				// Not a named class: '[' is a member and scanning goes on
				// with the ':' after it.
				in.add('[')
				prev = '['
				break
			}
			if !addNamedClass(&in, s[i+2:end-1]) {
				return nil, 0, false
			}
			prev = -1
			i = end
		default:
			in.add(c)
			prev = int(c)
		}
		i++
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
	return set, i + 1, true
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
	if len(text) < g.minLen || (!g.stars && len(text) != g.minLen) {
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
		case opClass:
			if !t.set.has(c) {
				return resNoMatch
			}
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
		ti++
	}
	return resAbortAll
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

package secrets

import (
	"bytes"
	"slices"
)

// The joined view: a secret written in pieces that the host syntax joins
// is scanned as the syntax joins it.
//
//   - A backslash at the end of a line continues it (shell, Makefile,
//     Dockerfile, C macros, Python): the lines of a continued logical
//     line are joined with the backslash and the line break removed, as
//     the shell does (the next line's indentation is kept, so that
//     "key \" + "  value" stays two words).
//   - A line holding a multi-line text with escaped line breaks (a
//     manifest or a key file in a JSON or .properties string: "a:\n  b")
//     is added with its escapes decoded (\n, \r, \t, \", \', \\), so
//     that rules over several lines see the lines.
//   - String literals joined by concatenation on a line or across lines
//     ('ghp_' + '…' in JS/TS, Java, C#, Go; "a" "b" in Python and C; PHP
//     'a' . 'b'; Lua ..) become one literal: the text before the first
//     literal, the contents of all of them, and the text after the last.
//
// Each logical line made so is a line of one synthetic text, scanned with
// every rule; a finding there is mapped back to the original text from
// its first byte's origin to its last byte's, so that it covers every
// piece and what lies between them. The synthetic text holds only the
// joined lines, so its cost is proportional to them.

// maxAround bounds the text kept on each side of a chain of literals.
const maxAround = 256

// maxJoined bounds the synthetic text of one scan (it shares the decoding
// budget as well).
const maxJoined = 256 << 10

// joinView builds the synthetic text and, for each of its bytes, its
// offset in text. It returns nil when text has nothing to join.
func joinView(text []byte) *joinBuilder {
	var jb joinBuilder
	jb.continuations(text)
	jb.concatenations(text)
	jb.escapedLines(text)
	if len(jb.buf) == 0 {
		return nil
	}
	if n := len(jb.ends); n == 0 || jb.ends[n-1] != len(jb.buf) {
		jb.ends = append(jb.ends, len(jb.buf))
	}
	return &jb
}

// lineEndOf returns the end of the synthetic line holding offset at.
func (jb *joinBuilder) lineEndOf(at int) int {
	i, _ := slices.BinarySearch(jb.ends, at+1)
	return jb.ends[min(i, len(jb.ends)-1)]
}

type joinBuilder struct {
	buf  []byte
	orig []int
	// ends are the ends of the synthetic lines in buf (each with its
	// '\n'): a finding never spans two of them.
	ends []int
}

// add appends text[s:e] to the current synthetic line.
func (jb *joinBuilder) add(text []byte, s, e int) {
	for i := s; i < e && len(jb.buf) < maxJoined; i++ {
		jb.buf = append(jb.buf, text[i])
		jb.orig = append(jb.orig, i)
	}
}

// end ends the current synthetic line (the newline maps to the last byte
// added).
func (jb *joinBuilder) end() {
	if len(jb.orig) == 0 || len(jb.buf) >= maxJoined {
		return
	}
	jb.buf = append(jb.buf, '\n')
	jb.orig = append(jb.orig, jb.orig[len(jb.orig)-1])
	jb.ends = append(jb.ends, len(jb.buf))
}

// lineEnd returns the end of the line starting at s, without '\r'.
func lineEnd(text []byte, s int) (end, next int) {
	i := bytes.IndexByte(text[s:], '\n')
	if i < 0 {
		return len(text), len(text)
	}
	end, next = s+i, s+i+1
	if end > s && text[end-1] == '\r' {
		end--
	}
	return end, next
}

// continuations adds every logical line made of lines ending with a
// backslash.
func (jb *joinBuilder) continuations(text []byte) {
	for at := 0; ; {
		// The next line break after a backslash (and maybe '\r').
		i := bytes.IndexByte(text[at:], '\n')
		if i < 0 {
			return
		}
		nl := at + i
		bs := nl - 1
		if bs >= at && text[bs] == '\r' {
			bs--
		}
		if bs < at || text[bs] != '\\' || bs > 0 && text[bs-1] == '\\' {
			at = nl + 1 // no continuation (or an escaped backslash)
			continue
		}
		first := bytes.LastIndexByte(text[:bs], '\n') + 1
		// The shell's join keeps the next line's indentation; the
		// joins of .properties, YAML double-quoted scalars and TOML
		// multi-line strings drop it: when a continued line is
		// indented, both are added.
		indented := false
		for _, strip := range [2]bool{false, true} {
			if strip && !indented {
				break
			}
			s := first
			for {
				e, next := lineEnd(text, s)
				from := s
				if s != first {
					if b := skipBlank(text, s, e); b > s {
						indented = true
						if strip {
							from = b
						}
					}
				}
				if e > s && text[e-1] == '\\' && !(e-1 > s && text[e-2] == '\\') && next < len(text) {
					jb.add(text, from, e-1)
					s = next
					continue
				}
				jb.add(text, from, e)
				jb.end()
				at = next
				break
			}
		}
		if at >= len(text) || len(jb.buf) >= maxJoined {
			return
		}
	}
}

// lit is one string literal: the offsets of its opening and closing
// quotes.
type lit struct{ open, close int }

// literals returns the string literals of the line text[s:e]: a quote
// opens one (a ' only where it does not follow a letter or digit, as in
// don't), backslash escapes are skipped, and the literal must close on
// the line.
func literals(text []byte, s, e int, out []lit) []lit {
	for i := s; i < e; i++ {
		q := text[i]
		if q != '"' && q != '\'' && q != '`' {
			continue
		}
		if q == '\'' && i > s && isWordByte(text[i-1]) {
			continue
		}
		j := i + 1
		for j < e && text[j] != q {
			if text[j] == '\\' && q != '`' {
				j++
			}
			j++
		}
		if j >= e {
			return out
		}
		out = append(out, lit{i, j})
		i = j
	}
	return out
}

// joinOp returns the length of a concatenation operator (with the blanks
// around it) at text[i:e], and whether one was there; only blanks is an
// adjacency (length of the blanks, true when none or some).
func joinOp(text []byte, i, e int) (int, bool) {
	j := skipBlank(text, i, e)
	if j < e {
		switch {
		case text[j] == '+':
			j++
		case text[j] == '.' && j+1 < e && text[j+1] == '.':
			j += 2
		case text[j] == '.':
			j++
		}
	}
	return skipBlank(text, j, e) - i, true
}

// concatenations adds every chain of two or more string literals joined
// by concatenation.
func (jb *joinBuilder) concatenations(text []byte) {
	if bytes.IndexAny(text, "\"'`") < 0 {
		return
	}
	var lits []lit
	var chain []lit // the current chain
	chainLS := 0    // the start of its first line
	flush := func() {
		if len(chain) >= 2 {
			first, last := chain[0], chain[len(chain)-1]
			n := 0
			for _, l := range chain {
				n += l.close - l.open - 1
			}
			if n >= minRepeat {
				// The line around the chain, up to maxAround bytes on
				// each side (a minified line holds many chains).
				jb.add(text, max(chainLS, first.open-maxAround), first.open+1)
				for _, l := range chain {
					jb.add(text, l.open+1, l.close)
				}
				le, _ := lineEnd(text, last.close)
				jb.add(text, last.close, min(le, last.close+maxAround))
				jb.end()
			}
		}
		chain = chain[:0]
	}
	for s := 0; s < len(text) && len(jb.buf) < maxJoined; {
		e, next := lineEnd(text, s)
		lits = literals(text, s, e, lits[:0])
		for k, l := range lits {
			if len(chain) > 0 {
				prev := chain[len(chain)-1]
				if !joined(text, prev, l, s, k == 0) {
					flush()
				}
			}
			if len(chain) == 0 {
				chainLS = s
			}
			chain = append(chain, l)
		}
		// A chain goes on to the next line only when this line ends with
		// its literal (and maybe an operator).
		if len(lits) == 0 || !onlyOp(text, lits[len(lits)-1].close+1, e) {
			flush()
		}
		s = next
	}
	flush()
}

// joined reports whether literal b continues the chain ending with a: on
// the same line, only an operator or blanks lie between them; across a
// line break (b the first literal of its line, starting at ls), a ends
// its line (checked by the caller) and b's line holds only blanks and an
// operator before it.
func joined(text []byte, a, b lit, ls int, first bool) bool {
	if first && b.open >= ls && a.close < ls {
		return onlyOp(text, ls, b.open)
	}
	return onlyOp(text, a.close+1, b.open)
}

// onlyOp reports whether text[s:e] is blanks around at most one
// concatenation operator.
func onlyOp(text []byte, s, e int) bool {
	n, _ := joinOp(text, s, e)
	return s+n == e
}

// scanJoined scans the joined view of text and appends its findings,
// mapped back to text.
func (s *Scanner) scanJoined(text []byte, budget *int, out []Finding) []Finding {
	jb := joinView(text)
	if jb == nil || len(jb.buf) > *budget {
		return out
	}
	*budget -= len(jb.buf)
	for _, f := range s.scan(jb.buf, 1, budget) {
		if f.Start >= f.End || f.End > len(jb.orig) {
			continue
		}
		// A finding of a rule over several lines (a key block without
		// its end) stops at the end of its synthetic line: the next one
		// comes from elsewhere in the text.
		end := min(f.End, jb.lineEndOf(f.Start))
		g := f
		g.Start, g.End = jb.orig[f.Start], jb.orig[end-1]+1
		g.WholeFile = false
		out = appendFinding(out, text, g)
	}
	return out
}

// minEscapedBreaks is how many escaped line breaks make a line an
// embedded multi-line text.
const minEscapedBreaks = 3

// escapedLines adds the lines holding at least minEscapedBreaks escaped
// line breaks, decoded; each decoded byte maps to its escape's first
// byte.
func (jb *joinBuilder) escapedLines(text []byte) {
	for at := 0; len(jb.buf) < maxJoined; {
		i := bytes.Index(text[at:], []byte(`\n`))
		if i < 0 {
			return
		}
		s := bytes.LastIndexByte(text[:at+i], '\n') + 1
		e, next := lineEnd(text, at+i)
		if bytes.Count(text[s:e], []byte(`\n`)) >= minEscapedBreaks {
			for j := s; j < e && len(jb.buf) < maxJoined; j++ {
				c := text[j]
				if c == '\\' && j+1 < e {
					d := text[j+1]
					switch d {
					case 'n':
						d = '\n'
					case 'r':
						d = '\r'
					case 't':
						d = '\t'
					case '"', '\'', '\\':
					default:
						d = 0
					}
					if d != 0 {
						jb.buf = append(jb.buf, d)
						jb.orig = append(jb.orig, j)
						j++
						continue
					}
				}
				jb.buf = append(jb.buf, c)
				jb.orig = append(jb.orig, j)
			}
			jb.end()
		}
		at = next
		if at >= len(text) {
			return
		}
	}
}

package secrets

import (
	"bytes"
	"slices"
)

// Extents: a rule's expression says where a secret starts and what it
// looks like, not always where the host syntax ends it. A value holding
// punctuation the expression does not expect (Bearer abc.def!ghi,
// API_TOKEN ?= abc?def) would be redacted only up to that character and
// the rest sent. settle, run on every scan before its findings are
// sorted, makes three corrections, each towards redacting more:
//
//   - a single-line finding that stops inside a value (the next byte
//     continues the token) grows to the value's end as the host syntax
//     delimits it: the closing quote of the string it is in (or the first
//     blank inside it), the next '<' in XML element text, the end of the
//     line after a Makefile ?= or := assignment, else the end of the
//     shell word;
//   - lines joined by a backslash continuation, and string literals
//     joined by concatenation ('ghp_' + '…', Python's adjacent literals,
//     Go, Java and C# +, PHP .), are scanned again as one logical line
//     (see join.go), and a finding there covers every piece;
//   - every other occurrence of a found value in the text is redacted
//     too (see repeats), so a secret found on one line is not shown where
//     it is repeated in a comment or a string that no rule matches.

// settle applies the corrections above to the findings of text.
func (s *Scanner) settle(text []byte, depth int, budget *int, out []Finding) []Finding {
	if depth == 0 {
		out = s.scanJoined(text, budget, out)
	}
	for i := range out {
		if out[i].Confidence == High && !s.block(out[i].RuleID) {
			out[i].End = valueEnd(text, out[i].Start, out[i].End)
		}
	}
	if depth == 0 {
		out = s.repeats(text, out)
	}
	return out
}

// maxContext bounds how far back valueEnd looks for the quote context.
const maxContext = 4096

// continues reports whether c, right after a finding, is part of the
// same token: the finding stopped short of the value.
func continues(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	switch c {
	case '.', '=', '+', '!', '%', '?', '*', '~', '^', '$', '#', '-', '_':
		return true
	}
	return false
}

// valueEnd returns where the value of a finding [start, end) ends in its
// host syntax: end itself unless the finding stops inside a token.
func valueEnd(text []byte, start, end int) int {
	if end >= len(text) || end <= start || !continues(text[end]) {
		return end
	}
	// The line's start, looked for at most maxContext bytes back (a
	// minified file is one long line with many findings).
	ls := max(start-maxContext, 0)
	ls += bytes.LastIndexByte(text[ls:start], '\n') + 1
	le := bytes.IndexByte(text[end:], '\n')
	if le < 0 {
		le = len(text)
	} else {
		le += end
	}
	if le > end && text[le-1] == '\r' {
		le--
	}
	// The quote context at start: the string literal the value is in.
	var q byte
	xmlText := false
	for i := ls; i < start; i++ {
		c := text[i]
		if q != 0 {
			switch {
			case c == '\\' && q != '`':
				i++
			case c == q:
				q = 0
			}
			continue
		}
		switch c {
		case '"', '`':
			q = c
		case '\'':
			if i == ls || !isWordByte(text[i-1]) {
				q = c
			}
		case '>':
			xmlText = true
		case '<':
			xmlText = false
		}
	}
	e := end
	switch {
	case q != 0:
		// To the closing quote, or the first blank inside the string (a
		// command line or a header holding the value).
		for e < le {
			c := text[e]
			if c == q || c == '\\' || c == ' ' || c == '\t' {
				break
			}
			e++
		}
		return min(e, le)
	case xmlText:
		for e < le && text[e] != '<' {
			e++
		}
		return trimRightBlank(text, end, e)
	case makeAssign(text[ls:start]):
		return trimRightBlank(text, end, le)
	}
	for e < le && !wordStop(text[e]) {
		e++
	}
	return e
}

// makeAssign reports whether a line's text before a value is a Makefile
// assignment with ?= or := (whose value is the rest of the line).
func makeAssign(before []byte) bool {
	return bytes.Contains(before, []byte("?=")) || bytes.Contains(before, []byte(":=")) && !bytes.ContainsAny(before, "\"'`")
}

// wordStop ends a bare value: a blank, a quote, or a delimiter of the
// syntaxes bare values appear in.
func wordStop(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', '"', '\'', '`', '<', '>', ';', ',', ')', '(', ']', '[', '}', '{', '&', '|', '\\':
		return true
	}
	return false
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// Repeats. A value found once is a secret wherever it appears: in a
// comment, a log line, a string that no rule matches. Every other
// occurrence of a found value becomes a finding of the same rule, and so
// does every run of 16 bytes or more of the text that equals part of a
// found value (the random part of a prefixed token repeated without its
// prefix). Values shorter than minRepeat bytes are not searched for.
const (
	minRepeat = 8
	// window is the length of the pieces of values searched for.
	window = 16
	// stride is the step between the windows of a value that are
	// indexed.
	stride = 8
	// maxRepeatValues bounds the distinct values searched for in one
	// text (a file of thousands of findings).
	maxRepeatValues = 1024
)

// repeats appends the other occurrences of the found values.
func (s *Scanner) repeats(text []byte, out []Finding) []Finding {
	if len(out) == 0 {
		return out
	}
	type piece struct {
		v    []byte
		rule string
	}
	seen := map[string]bool{}   // values searched for
	var short []piece           // whole values of minRepeat..window-1 bytes
	wins := map[uint64]uint64{} // hash of a window -> index in from << 32 | offset
	var bloom [1 << 10]uint64   // the low 16 bits of the hashes in wins
	var from []piece            // the values windows are taken from
	for _, f := range out {
		if f.Confidence != High || f.End-f.Start < minRepeat {
			continue
		}
		multi := s.block(f.RuleID)
		// Tokens of the value (a key block's lines): windows never span
		// blanks, so a block's armor (BEGIN … KEY) is not searched for.
		for _, tok := range bytes.FieldsFunc(text[f.Start:f.End], func(r rune) bool { return isSpace(r) || r == '\\' && multi }) {
			switch {
			case seen[string(tok)] || len(seen) >= maxRepeatValues || !tokenShaped(tok):
				continue
			case len(tok) >= window:
				seen[string(tok)] = true
				idx := uint64(len(from))
				from = append(from, piece{tok, f.RuleID})
				// Windows at every stride-th offset (and the last one): a
				// repeated run of window+stride-1 bytes or more holds one
				// of them; a hit is then extended to the whole run.
				for i := 0; i+window <= len(tok); i = min(i+stride, max(i+1, len(tok)-window)) {
					h := hashWindow(tok[i : i+window])
					if _, ok := wins[h]; !ok {
						wins[h] = idx<<32 | uint64(i)
						bloom[h>>6&(1<<10-1)] |= 1 << (h & 63)
					}
				}
			case len(tok) >= minRepeat && !multi:
				seen[string(tok)] = true
				short = append(short, piece{tok, f.RuleID})
			}
		}
	}
	var add []Finding
	// covered reports whether a finding covers [s, e): the findings by
	// start, with the furthest end of each prefix.
	spans := make([]span, len(out))
	for i, f := range out {
		spans[i] = span{f.Start, f.End}
	}
	slices.SortFunc(spans, func(a, b span) int { return a.start - b.start })
	reach := make([]int, len(spans))
	for i, sp := range spans {
		reach[i] = sp.end
		if i > 0 {
			reach[i] = max(reach[i], reach[i-1])
		}
	}
	covered := func(s, e int) bool {
		i, _ := slices.BinarySearchFunc(spans, s+1, func(a span, t int) int { return a.start - t })
		return i > 0 && reach[i-1] >= e
	}
	for _, p := range short {
		for at := 0; ; {
			i := bytes.Index(text[at:], p.v)
			if i < 0 {
				break
			}
			st := at + i
			if !covered(st, st+len(p.v)) {
				add = appendFinding(add, text, Finding{RuleID: p.rule, Start: st, End: st + len(p.v), Confidence: High})
			}
			at = st + 1
		}
	}
	if len(wins) > 0 && len(text) >= window {
		// Rabin-Karp over the text: runs of matching windows become one
		// finding.
		var pow uint64 = 1
		for range window - 1 {
			pow *= hashBase
		}
		h := hashWindow(text[:window])
		runStart, runEnd, runRule := -1, -1, ""
		flush := func() {
			if runStart >= 0 && !covered(runStart, runEnd) {
				add = appendFinding(add, text, Finding{RuleID: runRule, Start: runStart, End: runEnd, Confidence: High})
			}
			runStart = -1
		}
		k := 0 // spans[:k] start at or before i
		for i := 0; ; i++ {
			for k < len(spans) && spans[k].start <= i {
				k++
			}
			if k > 0 && reach[k-1] >= i+window {
				// Inside a finding (a value's own occurrence).
			} else if bloom[h>>6&(1<<10-1)]&(1<<(h&63)) == 0 {
				// Not a window of any value (the common case).
			} else if at, ok := wins[h]; ok && windowAt(from[at>>32].v, int(at&(1<<32-1)), text[i:i+window]) {
				v, off := from[at>>32].v, int(at&(1<<32-1))
				rs, re := i, i+window
				for b := off; rs > 0 && b > 0 && text[rs-1] == v[b-1]; b-- {
					rs--
				}
				for f := off + window; re < len(text) && f < len(v) && text[re] == v[f]; f++ {
					re++
				}
				if runStart >= 0 && rs <= runEnd {
					runEnd = max(runEnd, re)
				} else {
					flush()
					runStart, runEnd, runRule = rs, re, from[at>>32].rule
				}
			}
			if i+window >= len(text) {
				break
			}
			h = (h-uint64(text[i])*pow)*hashBase + uint64(text[i+window])
		}
		flush()
	}
	return append(out, add...)
}

// tokenShaped reports whether a value mixes letters and digits, as
// random credentials and most passwords do; a number, a word or a path
// found by a contextual rule (a false positive, often) is not searched
// for elsewhere, where it would be redacted in every line of a file.
func tokenShaped(v []byte) bool {
	letter, digit := false, false
	for _, c := range v {
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
			letter = true
		}
	}
	return letter && digit
}

const hashBase = 1099511628211

func hashWindow(b []byte) uint64 {
	var h uint64
	for _, c := range b {
		h = h*hashBase + uint64(c)
	}
	return h
}

// windowAt verifies a hash hit: w is the window of v at off.
func windowAt(v []byte, off int, w []byte) bool { return bytes.Equal(v[off:off+window], w) }

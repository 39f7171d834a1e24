package contextbuilder

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/ctxd/ctxd/index/syntax"
)

// Level is a file block's slicing level (seed 002 Slicing Rules).
type Level string

// Slicing levels. SUMMARY_ONLY is defined by the seed and never produced in
// V1: a summary cannot be made without guessing.
const (
	LevelFull        Level = "FULL_FILE"
	LevelRegion      Level = "TARGET_REGION_ONLY"
	LevelSignatures  Level = "SIGNATURES_ONLY"
	LevelSummaryOnly Level = "SUMMARY_ONLY"
)

// span is a half-open byte range of a file's text.
type span struct{ start, end int }

// segment is a piece of a file's text placed in a block's content; line
// is the 1-based file line of its first byte, which lets a finding in the
// content be reported at its file line.
type segment struct {
	span
	line int
}

// lineIndex finds line numbers and line boundaries of one text. The line
// starts are computed on first use: most files of a build are sent whole
// and never need them. A lineIndex belongs to one build, which runs on one
// goroutine.
type lineIndex struct {
	text    []byte
	offsets []int // byte offset of each line's start; nil until needed
}

func newLineIndex(text []byte) *lineIndex { return &lineIndex{text: text} }

// starts returns the byte offset of each line's start.
func (l *lineIndex) starts() []int {
	if l.offsets == nil {
		l.offsets = make([]int, 1, 1+bytes.Count(l.text, []byte("\n")))
		for i, c := range l.text {
			if c == '\n' && i+1 < len(l.text) {
				l.offsets = append(l.offsets, i+1)
			}
		}
	}
	return l.offsets
}

// lineOf returns the 1-based line holding byte offset off.
func (l *lineIndex) lineOf(off int) int {
	i, found := slices.BinarySearch(l.starts(), off)
	if found {
		return i + 1
	}
	return i
}

// lines returns the number of lines.
func (l *lineIndex) lines() int { return len(l.starts()) }

// lineSpan returns the bytes of lines from..to (1-based, inclusive, clamped),
// without the final line break.
func (l *lineIndex) lineSpan(from, to int) span {
	starts := l.starts()
	from = max(1, min(from, len(starts)))
	to = max(from, min(to, len(starts)))
	end := len(l.text)
	if to < len(starts) {
		end = starts[to] - 1
	}
	if end > starts[from-1] && l.text[end-1] == '\r' {
		end--
	}
	return span{starts[from-1], end}
}

// fullLines widens s to whole lines.
func (l *lineIndex) fullLines(s span) span {
	last := s.end
	if last > s.start {
		last--
	}
	return l.lineSpan(l.lineOf(s.start), l.lineOf(last))
}

// mergeSpans sorts spans and merges overlapping or adjacent ones
// (adjacent: separated by one line break only).
func mergeSpans(spans []span) []span {
	spans = slices.Clone(spans)
	slices.SortFunc(spans, func(a, b span) int { return cmpInt(a.start, b.start) })
	var out []span
	for _, s := range spans {
		if n := len(out); n > 0 && s.start <= out[n-1].end+2 {
			out[n-1].end = max(out[n-1].end, s.end)
			continue
		}
		out = append(out, s)
	}
	return out
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// regionSegments returns the segments of a TARGET_REGION_ONLY slice: the
// merged regions, widened to whole lines.
func regionSegments(li *lineIndex, regions []span) []segment {
	var wide []span
	for _, r := range regions {
		wide = append(wide, li.fullLines(r))
	}
	var out []segment
	for _, s := range mergeSpans(wide) {
		out = append(out, segment{span: s, line: li.lineOf(s.start)})
	}
	return out
}

// symbolSpan is the declaration of a symbol with its doc comment, from the
// start of its first line (so indentation is kept).
func symbolSpan(li *lineIndex, s *syntax.Symbol) span {
	start := int(s.Range.StartByte)
	if !s.Doc.IsZero() && int(s.Doc.StartByte) < start {
		start = int(s.Doc.StartByte)
	}
	return span{li.starts()[li.lineOf(start)-1], int(s.Range.EndByte)}
}

// reliable reports whether a file's syntax gives boundaries ctxd may slice
// at: parsed without errors. Without them the seed forbids guessing.
func reliable(syn *syntax.File) bool {
	return syn != nil && !syn.HasErrors && len(syn.Symbols) > 0
}

// isTypeLike reports whether a symbol is sliced as a type: the slicer
// treats namespaces and modules as type-like containers of members.
func isTypeLike(k syntax.SymbolKind) bool { return k.IsType() || k.IsScope() }

// hasBody reports whether a symbol's declaration extends past its
// signature.
func hasBody(s *syntax.Symbol) bool { return s.Range.EndByte > s.Signature.EndByte }

// signatureSegments returns the SIGNATURES_ONLY slice of the symbols
// inside within: each function's signature without its body; a type whose
// members have no bodies (a struct, an interface) whole; a type whose
// members have bodies (a class) as its header followed by its members'
// signatures. Declarations inside function bodies are skipped. Every piece
// starts at the beginning of its line, to keep indentation, and ends where
// the index says the signature ends: no boundary is guessed.
func signatureSegments(li *lineIndex, syms []syntax.Symbol, within span) []segment {
	var out []segment
	var covered []span // emitted whole, or a function body
	inside := func(s span) bool {
		for _, c := range covered {
			if s.start >= c.start && s.end <= c.end {
				return true
			}
		}
		return false
	}
	emit := func(start, end int) {
		ls := li.starts()[li.lineOf(start)-1]
		if end <= ls {
			return
		}
		out = append(out, segment{span: span{ls, end}, line: li.lineOf(ls)})
	}
	for i := range syms {
		s := &syms[i]
		r := span{int(s.Range.StartByte), int(s.Range.EndByte)}
		if r.start < within.start || r.end > within.end || inside(r) {
			continue
		}
		switch {
		case s.Kind.IsCallable():
			emit(r.start, int(s.Signature.EndByte))
			covered = append(covered, r)
		case isTypeLike(s.Kind) && membersHaveBodies(syms, r):
			emit(r.start, int(s.Signature.EndByte))
		case isTypeLike(s.Kind):
			emit(r.start, r.end)
			covered = append(covered, r)
		default:
			emit(r.start, int(s.Signature.EndByte))
			covered = append(covered, r)
		}
	}
	return out
}

// membersHaveBodies reports whether a function-like symbol with a body lies
// inside r.
func membersHaveBodies(syms []syntax.Symbol, r span) bool {
	for i := range syms {
		s := &syms[i]
		if int(s.Range.StartByte) >= r.start && int(s.Range.EndByte) <= r.end && int(s.Range.StartByte) > r.start && s.Kind.IsCallable() && hasBody(s) {
			return true
		}
	}
	return false
}

// segmentsText joins segments. Between two segments that are not
// contiguous in the file a marker line names the omitted lines, so that the
// model never mistakes a slice for contiguous code.
func segmentsText(li *lineIndex, segs []segment, level Level) (string, []contentMap) {
	var b strings.Builder
	var maps []contentMap
	for i, s := range segs {
		if i > 0 {
			prevEnd := li.lineOf(max(segs[i-1].start, segs[i-1].end-1))
			if level == LevelRegion && s.line > prevEnd+1 {
				fmt.Fprintf(&b, "\n… lines %d-%d not included …\n", prevEnd+1, s.line-1)
			} else {
				b.WriteByte('\n')
			}
		}
		maps = append(maps, contentMap{contentOff: b.Len(), seg: s})
		b.Write(li.text[s.start:s.end])
	}
	return b.String(), maps
}

// contentMap maps a block content offset back to the file.
type contentMap struct {
	contentOff int
	seg        segment
}

// fileLine returns the file line of a content offset, or 0 when the offset
// is in a marker line.
func fileLine(li *lineIndex, maps []contentMap, off int) int {
	for i := len(maps) - 1; i >= 0; i-- {
		m := maps[i]
		if off >= m.contentOff {
			rel := off - m.contentOff
			if rel > m.seg.end-m.seg.start {
				return 0
			}
			return li.lineOf(m.seg.start + rel)
		}
	}
	return 0
}

// describeSegments renders the line ranges of segments, e.g. "line 7" or
// "lines 12-40, 90-97".
func describeSegments(li *lineIndex, segs []segment) string {
	var parts []string
	for _, s := range segs {
		last := li.lineOf(max(s.start, s.end-1))
		if last == s.line {
			parts = append(parts, fmt.Sprint(s.line))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", s.line, last))
		}
	}
	if len(parts) == 1 && !strings.Contains(parts[0], "-") {
		return "line " + parts[0]
	}
	return "lines " + strings.Join(parts, ", ")
}

// identifiers returns the distinct ASCII identifiers of text, sorted: the
// names a target region uses, matched against the index's definitions.
// Words with non-ASCII letters are skipped whole, never split.
func identifiers(text []byte) []string {
	seen := map[string]bool{}
	var out []string
	for i := 0; i < len(text); {
		if !isWordByte(text[i]) {
			i++
			continue
		}
		j, ascii := wordEnd(text, i)
		if w := text[i:j]; ascii && !(w[0] >= '0' && w[0] <= '9') && !seen[string(w)] {
			seen[string(w)] = true
			out = append(out, string(w))
		}
		i = j
	}
	slices.Sort(out)
	return out
}

// isWordByte reports whether c can be part of an identifier; every byte
// of a multi-byte character can, so that such words stay whole.
func isWordByte(c byte) bool {
	return c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c >= 0x80
}

// wordEnd returns the end of the word starting at i, and whether it is
// all ASCII.
func wordEnd(text []byte, i int) (int, bool) {
	ascii := true
	for i < len(text) && isWordByte(text[i]) {
		ascii = ascii && text[i] < 0x80
		i++
	}
	return i, ascii
}

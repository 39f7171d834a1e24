package contextbuilder

import (
	"fmt"
	"slices"
	"strings"
)

// riskUnscannable is the risk of a text the redactor cannot scan: it is
// refused or excluded like a secret that cannot be removed (seed 002: if
// the system cannot prove it has removed secrets, it must refuse).
const riskUnscannable = "unscannable-text"

// redact scans the content that would be sent and replaces each
// high-confidence secret span with [REDACTED:<rule>]. A finding that
// cannot be removed by a span (uncertain, or the whole text is the
// credential) marks the block as a secret risk instead.
//
// A slice is checked with the findings of its whole file, carried into
// it, because a slice can cut a secret so that no pattern matches what is
// left (the body lines of a key without its BEGIN line).
func (e *env) redact(it *item, r *rendering, maps []contentMap) {
	name := it.reportName(r)
	var findings []Finding
	if it.text == nil {
		// A text not from a file is scanned as it is. A file's blocks
		// (whole, sliced or a symbol) carry the findings of the whole
		// file instead: every byte they show is file text, so every
		// secret they show is one of those. Only the marker lines ctxd
		// puts between slices are new, and they hold no secret.
		f, err := e.redactor.Scan(name, []byte(r.content))
		if err != nil {
			r.risk = riskUnscannable
			return
		}
		findings = f
	}
	if it.text != nil {
		whole, err := e.fileFindings(it)
		if err != nil {
			r.risk = riskUnscannable
			return
		}
		findings = append(findings, carry(whole, maps)...)
		slices.SortStableFunc(findings, func(a, b Finding) int {
			if a.Start != b.Start {
				return cmpInt(a.Start, b.Start)
			}
			return cmpInt(b.End, a.End)
		})
	}
	r.apply(findings, name, func(f Finding) string {
		line := f.Line
		if it.li != nil {
			if l := fileLine(it.li, maps, f.Start); l > 0 {
				line = l
			}
		}
		return fmt.Sprintf("rule %s at line %d", f.RuleID, line)
	})
}

// apply replaces each finding's span of the content with
// [REDACTED:<rule>] and records a pattern_redacted entry whose details
// come from detail. Overlapping findings extend the first one's
// redaction. (The secrets engine never reports a span holding a marker
// of an earlier pass, so rescanning redacted text adds none.) A finding
// that cannot be redacted safely (uncertain, whole file) makes the block a
// risk instead, and nothing is replaced.
func (r *rendering) apply(findings []Finding, name string, detail func(Finding) string) {
	for _, f := range findings {
		if f.Confidence != High || f.WholeFile {
			r.risk = f.RuleID
			return
		}
	}
	if len(findings) == 0 {
		return
	}
	var b strings.Builder
	last := 0
	for _, f := range findings {
		if f.End <= f.Start || f.End > len(r.content) {
			continue
		}
		if f.Start < last {
			last = max(last, f.End) // overlapping: the redaction grows
			continue
		}
		b.WriteString(r.content[last:f.Start])
		fmt.Fprintf(&b, "[REDACTED:%s]", f.RuleID)
		last = f.End
		r.redactions = append(r.redactions, Redaction{Type: RedactPatternRedacted, Target: name, Reason: RedactReasonSecret, Details: detail(f)})
	}
	b.WriteString(r.content[last:])
	r.content = b.String()
}

// isHidden reports the characters that can hide instructions from a
// reader while a model still reads them: bidirectional controls (which
// reorder what is displayed) and Unicode tag characters (invisible ASCII
// look-alikes).
func isHidden(r rune) bool {
	switch {
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069, r == 0x200E, r == 0x200F, r == 0x061C:
		return true
	case r >= 0xE0000 && r <= 0xE007F:
		return true
	}
	return false
}

// hiddenLines returns the lines (file lines for file text, content lines
// otherwise) holding hidden characters, sorted and distinct; nil when
// there are none, the common case, found in one pass.
func hiddenLines(it *item, content string, maps []contentMap) []int {
	var lines []int
	for off, r := range content {
		if !isHidden(r) {
			continue
		}
		line := 1 + strings.Count(content[:off], "\n")
		if it.li != nil {
			line = fileLine(it.li, maps, off)
		}
		lines = append(lines, line)
	}
	slices.Sort(lines)
	return slices.Compact(lines)
}

// stripHidden removes hidden characters from a block's content (after
// redaction) and reports them. Removing them can join the pieces of a
// secret that they split, so the result is scanned again: a secret found
// now is redacted, an uncertain one makes the block a risk.
func (e *env) stripHidden(it *item, r *rendering, lines []int) {
	n := 0
	r.content = strings.Map(func(c rune) rune {
		if isHidden(c) {
			n++
			return -1
		}
		return c
	}, r.content)
	name := it.reportName(r)
	var where []string
	for _, l := range lines {
		where = append(where, fmt.Sprint(l))
	}
	r.redactions = append(r.redactions, Redaction{Type: RedactPatternRedacted, Target: name, Reason: RedactReasonPolicy,
		Details: fmt.Sprintf("removed %d hidden character(s) (bidirectional controls or Unicode tags) at line(s) %s", n, strings.Join(where, ", "))})
	findings, err := e.redactor.Scan(name, []byte(r.content))
	if err != nil {
		r.risk = riskUnscannable
		return
	}
	r.apply(findings, name, func(f Finding) string {
		return fmt.Sprintf("rule %s, joined by removing hidden characters", f.RuleID)
	})
}

// fileFindings scans a file's whole text once per build.
func (e *env) fileFindings(it *item) ([]Finding, error) {
	if f, ok := e.mem.findings[it.path]; ok {
		return f, nil
	}
	f, err := e.opts.Scans.scan(e.redactor, it.path, it.file.SHA256(), it.text)
	if err != nil {
		return nil, err
	}
	e.mem.findings[it.path] = f
	return f, nil
}

// carry maps whole-file findings onto a block's content: the part of each
// finding inside a segment, at its content offset. A whole-file credential
// keeps its flag, so that any slice of it is a risk.
func carry(whole []Finding, maps []contentMap) []Finding {
	var out []Finding
	for _, f := range whole {
		for _, m := range maps {
			s, e := max(f.Start, m.seg.start), min(f.End, m.seg.end)
			if s >= e {
				continue
			}
			g := f
			g.Start = m.contentOff + s - m.seg.start
			g.End = m.contentOff + e - m.seg.start
			out = append(out, g)
		}
	}
	return out
}

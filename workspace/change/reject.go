package change

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/contextbuilder/secrets"
)

// Caps on what a rejection quotes of a file, so that a retry's
// error_context stays small.
const (
	maxQuotedLines = 40
	maxQuotedBytes = 4096
	maxLineBytes   = 240
)

// newRejection builds a rejection. msg starts with the path (and line) it
// is about; the error_context sent back to the model is the code, the
// message and the advice, so that it reads on its own.
func newRejection(code Code, path, msg, advice string) *Rejection {
	return &Rejection{
		Code:    code,
		Message: msg,
		Advice:  advice,
		ErrorContext: contextbuilder.LastError{
			Message: string(code) + ": " + msg + "\n" + advice,
			Path:    path,
		},
	}
}

// ambiguousRejection names the places a hunk or block matches.
func ambiguousRejection(path, what string, starts []int, advice string) *Rejection {
	var lines []string
	for _, s := range starts[:min(len(starts), 10)] {
		lines = append(lines, fmt.Sprint(s+1))
	}
	list := strings.Join(lines, ", ")
	count := fmt.Sprintf("%d places", len(starts))
	if len(starts) >= maxCandidates {
		count = fmt.Sprintf("%d places or more", len(starts))
	}
	if len(starts) > 10 {
		list += ", …"
	}
	return newRejection(CodeAmbiguousMatch, path,
		fmt.Sprintf("%s:%d: %s matches the file at %s, starting at lines %s", path, starts[0]+1, what, count, list), advice)
}

// tooRepetitive is the rejection of a hunk whose search ran out of budget.
func (w *applier) tooRepetitive(path, what string) *Rejection {
	return newRejection(CodeAmbiguousMatch, path,
		fmt.Sprintf("%s: %s is made of lines the file repeats too often to tell where it belongs", path, what),
		"Add distinctive unchanged lines around the change, copied from the file, so that it matches one place.")
}

// mismatchRejection explains that old (the lines a hunk or block expects)
// is not in cur: the window of the file most like it, and the first
// answer line that differs from it. stated is the hunk's stated start
// line (-1 when none), from the line before which the hunk could not go.
func (w *applier) mismatchRejection(path string, cur []oline, m *matcher, old []pattern, oldLines []hline, what string, stated, from int) *Rejection {
	advice := "Copy the unchanged and removed lines exactly from the file's current text (its closest lines are quoted), then send the change again."
	if from > 0 {
		if starts, _, _ := m.find(old, 0); len(starts) > 0 {
			return newRejection(CodeContextMismatch, path,
				fmt.Sprintf("%s:%d: %s matches line %d, which comes before the end of the previous hunk (line %d); hunks must be in file order", path, starts[0]+1, what, starts[0]+1, from),
				"Order the hunks of each file by their place in the file.")
		}
	}
	n := len(cur)
	start, score := m.closest(old)
	if score == 0 {
		if stated < 1 || stated > n {
			return newRejection(CodeContextMismatch, path,
				fmt.Sprintf("%s: %s does not match the file, which has no lines like its %d unchanged or removed lines", path, what, len(old)), advice)
		}
		start = stated - 1
	}
	end := min(start+len(old), n)
	diff := m.firstDiff(old, start)
	q := w.quoter(cur)
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d: %s does not match the file.", path, start+1, what)
	if end > start {
		lo, hi := start, end
		if hi-lo > maxQuotedLines {
			d := start
			if diff >= 0 {
				d = start + diff
			}
			lo = min(max(d-10, start), end-maxQuotedLines)
			hi = lo + maxQuotedLines
		}
		if score > 0 {
			fmt.Fprintf(&b, "\nThe closest lines the file has are lines %d-%d:", lo+1, hi)
		} else {
			fmt.Fprintf(&b, "\nNo line of it is in the file; lines %d-%d, where its @@ line puts it, are:", lo+1, hi)
		}
		size := 0
		for i := lo; i < hi; i++ {
			line := q.quote(i)
			if size+len(line) > maxQuotedBytes {
				b.WriteString("\n…")
				break
			}
			size += len(line)
			b.WriteString("\n")
			b.WriteString(line)
		}
	}
	if diff >= 0 && diff < len(oldLines) {
		ol := oldLines[diff]
		fmt.Fprintf(&b, "\nThe first line that differs is answer line %d:\n%s", ol.at, truncate(w.redactText(ol.text)))
		if start+diff < n {
			fmt.Fprintf(&b, "\nwhere the file has:\n%s", q.quote(start+diff))
		} else {
			b.WriteString("\nwhere the file has ended.")
		}
	}
	return newRejection(CodeContextMismatch, path, b.String(), advice)
}

// quoter quotes a file's lines with their secrets redacted.
type quoter struct {
	lines  []oline
	starts []int
	found  []secrets.Finding
	// ok is false when the text could not be scanned: no line is quoted.
	ok bool
}

// quoter scans lines for secrets (when there is a scanner).
func (w *applier) quoter(lines []oline) *quoter {
	q := &quoter{lines: lines, ok: true}
	off := 0
	for _, l := range lines {
		q.starts = append(q.starts, off)
		off += len(l.text) + len(l.eol)
	}
	if sc := w.opts.Scanner; sc != nil {
		found, err := sc.Scan("", join(lines, false))
		q.found, q.ok = found, err == nil
	}
	return q
}

// quote returns line i as "N: text", its secrets replaced by
// [REDACTED:<rule-id>] and its length capped.
func (q *quoter) quote(i int) string {
	if !q.ok {
		return fmt.Sprintf("%d: (not quoted: the file cannot be scanned for secrets)", i+1)
	}
	l := q.lines[i]
	return fmt.Sprintf("%d: %s", i+1, truncate(redactSpan(l.text, q.starts[i], q.found)))
}

// redactSpan returns text, which starts at offset start of the scanned
// text, with every part a finding covers replaced by its marker.
func redactSpan(text string, start int, found []secrets.Finding) string {
	end := start + len(text)
	var b strings.Builder
	c := start
	for _, f := range found {
		s, e := max(f.Start, start), min(f.End, end)
		if s >= e {
			continue
		}
		if s < c {
			c = max(c, e)
			continue
		}
		b.WriteString(text[c-start : s-start])
		b.WriteString(redactedOpen + f.RuleID + "]")
		c = e
	}
	if c == start {
		return text
	}
	if c < end {
		b.WriteString(text[c-start:])
	}
	return b.String()
}

// redactText returns one line of the answer with its secrets redacted.
func (w *applier) redactText(s string) string {
	sc := w.opts.Scanner
	if sc == nil {
		return s
	}
	found, err := sc.Scan("", []byte(s))
	if err != nil {
		return "(not quoted: the line cannot be scanned for secrets)"
	}
	return redactSpan(s, 0, found)
}

// truncate caps a quoted line at maxLineBytes, on a character boundary.
func truncate(s string) string {
	if len(s) <= maxLineBytes {
		return s
	}
	k := maxLineBytes
	for k > 0 && !utf8.RuneStart(s[k]) {
		k--
	}
	return s[:k] + "…"
}

package change

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/ctxd/ctxd/index/syntax"
)

// maxSyntaxErrors is how many error nodes are compared between the texts
// before and after a change. A text with more has its count capped, and
// only errors on lines the change touched can then reject.
const maxSyntaxErrors = 100

// syntaxCheck rejects a change that breaks the syntax of a file whose
// language has a grammar: an error in the text after when there was none
// before, or, when there were some, one on a line the change touched or
// more errors than before.
func (w *applier) syntaxCheck(ctx context.Context, st *fileState) *Rejection {
	if st.action == ActionDelete {
		return nil
	}
	lang := syntax.LanguageForPath(st.path)
	if lang == "" {
		return nil
	}
	after := join(st.after, false)
	errs, err := syntaxErrors(ctx, lang, after)
	if err != nil {
		// nil for a language without a grammar: nothing to check.
		return syntaxFailure(ctx, st.path, err)
	}
	if len(errs) == 0 {
		return nil
	}
	var beforeErrs []syntax.ErrorPos
	var touched []bool
	if st.before != nil {
		body := st.before.raw
		if st.before.bom {
			body = body[len(bom):]
		}
		beforeErrs, err = syntaxErrors(ctx, lang, body)
		if err != nil {
			return syntaxFailure(ctx, st.path, err)
		}
		_, touched = diffEdits(st.before, st.after)
	}
	e, ok := newSyntaxError(errs, beforeErrs, st.after, touched)
	if !ok {
		return nil
	}
	what := "text the parser cannot read"
	switch {
	case e.Missing:
		what = fmt.Sprintf("a missing %q", e.Kind)
	case strings.HasPrefix(e.Kind, indentKind):
		what = strings.TrimPrefix(e.Kind, indentKind) + " (Python's indentation)"
	}
	line := int(e.Line)
	text := ""
	if line < len(st.after) {
		q := w.quoter(st.after)
		text = "\n" + q.quote(line)
	}
	return newRejection(CodeSyntaxError, st.path,
		fmt.Sprintf("%s:%d:%d: the change leaves a syntax error: %s.%s", st.path, line+1, e.Column+1, what, text),
		"Fix the syntax at that place (close brackets and strings, complete the statement) and send the change again.")
}

// syntaxErrors are tree-sitter's errors of src and, for Python, the
// indentation errors CPython's tokenizer raises, in document order (at
// most maxSyntaxErrors).
func syntaxErrors(ctx context.Context, lang syntax.Language, src []byte) ([]syntax.ErrorPos, error) {
	errs, err := syntax.SyntaxErrors(ctx, lang, src, maxSyntaxErrors)
	if err != nil || lang != syntax.Python {
		return errs, err
	}
	errs = append(errs, pythonIndentErrors(src, maxSyntaxErrors)...)
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].Offset < errs[j].Offset })
	return errs[:min(len(errs), maxSyntaxErrors)], nil
}

// syntaxFailure is the rejection for a parse that did not complete: none
// for a language without a grammar, one saying the check was cancelled
// when ctx is done, and one naming the failure otherwise.
func syntaxFailure(ctx context.Context, path string, err error) *Rejection {
	switch {
	case err == nil, errors.Is(err, syntax.ErrUnsupported):
		return nil
	case ctx.Err() != nil:
		return newRejection(CodeSyntaxError, path, path+": the syntax check was cancelled",
			"Check the change again when there is time to parse it.")
	}
	return newRejection(CodeSyntaxError, path, fmt.Sprintf("%s: the syntax check failed: %v", path, err),
		"Check the change again.")
}

// newSyntaxError returns the first error of the text after a change that
// the change introduced. With no error before, that is the first error;
// otherwise the first one on a line the change touched, or, when there
// are more errors than before, the first one that is not an error of the
// text before on an unchanged line (else the first).
func newSyntaxError(errs, before []syntax.ErrorPos, after []oline, touched []bool) (syntax.ErrorPos, bool) {
	if len(before) == 0 {
		return errs[0], true
	}
	starts := make([]int, 0, len(after)+1)
	off := 0
	for _, l := range after {
		starts = append(starts, off)
		off += len(l.text) + len(l.eol)
	}
	lineOf := func(b uint32) int {
		return max(sort.SearchInts(starts, int(b)+1)-1, 0)
	}
	for _, e := range errs {
		for l := lineOf(e.Offset); l <= lineOf(e.End) && l < len(touched); l++ {
			if touched[l] {
				return e, true
			}
		}
	}
	if len(errs) <= len(before) || len(before) >= maxSyntaxErrors {
		return syntax.ErrorPos{}, false
	}
	old := make(map[[2]uint32]string, len(before))
	for _, b := range before {
		old[[2]uint32{b.Line, b.Column}] = b.Kind
	}
	for _, e := range errs {
		l := int(e.Line)
		if l >= len(after) || after[l].origin < 0 {
			return e, true
		}
		if k, ok := old[[2]uint32{uint32(after[l].origin), e.Column}]; !ok || k != e.Kind {
			return e, true
		}
	}
	return errs[0], true
}

// secretCheck rejects a change that writes a secret: an added line holding
// a redaction marker (it would write the marker over the secret the model
// did not see), or a credential the scanner finds in the added lines that
// the file did not already hold.
func (w *applier) secretCheck(st *fileState) *Rejection {
	if st.action == ActionDelete {
		return nil
	}
	for i, l := range st.after {
		if l.origin < 0 && strings.Contains(l.text, redactedOpen) {
			return newRejection(CodeSecret, st.path,
				fmt.Sprintf("%s:%d: the change writes a line with ctxd's redaction marker %s, which stands for a secret the model was not shown; it would replace the secret with the marker", st.path, i+1, markerIn(l.text)),
				"Keep the line with the marker unchanged, as a context line, or leave it out of the change; do not rewrite it.")
		}
	}
	sc := w.opts.Scanner
	if sc == nil {
		return nil
	}
	after := join(st.after, st.bom)
	found, err := sc.Scan(st.path, after)
	if err != nil {
		return newRejection(CodeSecret, st.path,
			st.path+": the text after the change cannot be scanned for secrets (it is not UTF-8 text or holds NUL bytes), so it cannot be shown to hold none",
			"Write the file as UTF-8 text without NUL bytes.")
	}
	if len(found) == 0 {
		return nil
	}
	known := map[string]bool{}
	if st.before != nil {
		if bf, err := sc.Scan(st.path, st.before.raw); err == nil {
			for _, f := range bf {
				if f.Start >= 0 && f.End <= len(st.before.raw) && f.Start < f.End {
					known[string(st.before.raw[f.Start:f.End])] = true
				}
			}
		}
	}
	// ends[i] is the offset after line i in after.
	ends := make([]int, len(st.after))
	off := 0
	if st.bom {
		off = len(bom)
	}
	for i, l := range st.after {
		off += len(l.text) + len(l.eol)
		ends[i] = off
	}
	for _, f := range found {
		if f.Start < 0 || f.End > len(after) || f.Start >= f.End || known[string(after[f.Start:f.End])] {
			continue
		}
		for i := sort.SearchInts(ends, f.Start+1); i < len(st.after); i++ {
			start := ends[i] - len(st.after[i].text) - len(st.after[i].eol)
			if start >= f.End {
				break
			}
			if st.after[i].origin < 0 {
				return newRejection(CodeSecret, st.path,
					fmt.Sprintf("%s:%d: the change adds a credential (rule %s) on line %d", st.path, i+1, f.RuleID, i+1),
					"Do not write credentials into files: read the value from the environment or a secret store, or leave a placeholder.")
			}
		}
	}
	return nil
}

// markerIn returns the first well-formed redaction marker of s, or the
// marker's opening alone: what follows it is not quoted unless it is a
// rule id.
func markerIn(s string) string {
	for i := 0; i < len(s); {
		k := strings.Index(s[i:], redactedOpen)
		if k < 0 {
			break
		}
		j := i + k + len(redactedOpen)
		e := j
		for e < len(s) && e-j < 64 && isRuleByte(s[e]) {
			e++
		}
		if e > j && e < len(s) && s[e] == ']' {
			return s[i+k : e+1]
		}
		i = j
	}
	return redactedOpen + "…]"
}

package change

import (
	"context"
	"fmt"
	"strings"
)

// fileState is one file while Apply checks it.
type fileState struct {
	path   string
	action Action
	// before is nil for a file the change creates.
	before *fileText
	// after is the text after the change, by lines; nil for a deletion.
	after []oline
	bom   bool
}

// applier holds what the files of one Apply share.
type applier struct {
	opts   Options
	budget int
}

// Apply applies a to files: files[i] is the file a.Files[i] names, already
// resolved and read by the caller, which has also checked the paths
// (sandbox, never-send paths, bundle membership, staleness). It returns
// each file's text before and after and the byte edits between them, or
// the first rejection in the order of the checks, each run over all files:
// CodeContextMismatch and CodeAmbiguousMatch while locating the hunks and
// blocks (a mismatch in any file is reported before an ambiguity),
// CodeSyntaxError, CodeSecret.
//
// ctx bounds the tree-sitter parses of the syntax check. Apply has no
// error result: when ctx is done before the check is complete, the answer
// is rejected with CodeSyntaxError and the message "the syntax check was
// cancelled", since it could not be checked; the caller tells it from a
// real syntax error by ctx.Err().
//
// Apply is deterministic and does no I/O. A nil Answer, or a files slice
// that does not pair with a.Files, is rejected as CodeMalformed.
func Apply(ctx context.Context, a *Answer, files []Input, opts Options) (*Result, *Rejection) {
	if a == nil {
		return nil, malformed("", 0, "there is no answer to apply", "Parse the answer before applying it.")
	}
	if len(files) != len(a.Files) {
		return nil, malformed("", 0, fmt.Sprintf("the answer changes %d files but %d were read", len(a.Files), len(files)),
			"Read one file for each change of the answer, in order.")
	}
	w := &applier{opts: opts, budget: matchBudget}
	states := make([]*fileState, len(files))
	var mismatch, ambiguous *Rejection
	for i, fc := range a.Files {
		st, rej := w.locate(fc, files[i])
		states[i] = st
		switch {
		case rej == nil:
		case rej.Code == CodeContextMismatch:
			if mismatch == nil {
				mismatch = rej
			}
		case ambiguous == nil:
			ambiguous = rej
		}
	}
	if mismatch != nil {
		return nil, mismatch
	}
	if ambiguous != nil {
		return nil, ambiguous
	}
	for _, st := range states {
		if rej := w.syntaxCheck(ctx, st); rej != nil {
			return nil, rej
		}
	}
	for _, st := range states {
		if rej := w.secretCheck(st); rej != nil {
			return nil, rej
		}
	}
	res := &Result{Format: a.Format}
	for _, st := range states {
		res.Files = append(res.Files, st.result())
	}
	return res, nil
}

// result turns a checked state into its FileResult.
func (st *fileState) result() FileResult {
	fr := FileResult{Path: st.path, Action: st.action}
	switch st.action {
	case ActionCreate:
		fr.After = join(st.after, false)
		if len(fr.After) > 0 {
			fr.Edits = []Edit{{NewText: string(fr.After)}}
		}
	case ActionDelete:
		fr.Before = st.before.raw
		if len(fr.Before) > 0 {
			fr.Edits = []Edit{{Start: 0, End: len(fr.Before)}}
		}
	default:
		fr.Before = st.before.raw
		fr.After = join(st.after, st.bom)
		fr.Edits, _ = diffEdits(st.before, st.after)
	}
	return fr
}

// locate finds where each hunk or block of fc applies to in and computes
// the text after. A CodeAmbiguousMatch rejection comes with the state
// computed from the earliest candidates, so that later files are still
// checked for mismatches.
func (w *applier) locate(fc *FileChange, in Input) (*fileState, *Rejection) {
	path := in.Path
	if path == "" {
		path = fc.Path
	}
	st := &fileState{path: path, action: fc.Action}
	if in.Exists {
		st.before = newFileText(in.Text)
		st.bom = st.before.bom
	}
	switch {
	case fc.whole != nil:
		return st, w.wholeFile(st, fc, in)
	case len(fc.blocks) > 0:
		return st, w.searchReplace(st, fc, in)
	default:
		return st, w.unified(st, fc, in)
	}
}

// newLines makes added lines.
func newLines(ls []hline, eol string) []oline {
	out := make([]oline, 0, len(ls))
	for _, l := range ls {
		out = append(out, oline{text: l.text, eol: eol, origin: -1})
	}
	return out
}

// splitLF splits an LF text into lines, without a last empty line.
func splitLF(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// wholeFile applies a whole-file change: the new text replaces the old,
// in the old file's line ends, BOM and final-newline state. Lines the new
// text keeps (equal, or equal but for a redaction marker) keep the file's
// bytes.
func (w *applier) wholeFile(st *fileState, fc *FileChange, in Input) *Rejection {
	lines := splitLF(*fc.whole)
	if !in.Exists {
		st.action = ActionCreate
		st.after = make([]oline, len(lines))
		for i, l := range lines {
			st.after[i] = oline{text: l, eol: "\n", origin: -1}
		}
		finish(st.after, "\n", true)
		return nil
	}
	st.action = ActionModify
	ft := st.before
	pats := make([][]string, len(lines))
	for j, l := range lines {
		if parts, ok := splitMarkers(l); ok {
			pats[j] = parts
		}
	}
	eq := func(i, j int) bool {
		t := ft.lines[i].text
		return t == lines[j] || (pats[j] != nil && globMatch(pats[j], t))
	}
	match := diffMatch(len(ft.lines), len(lines), eq)
	// A placeholder the file does not have stands for code the model
	// left out: the file would lose it.
	for j, l := range lines {
		if match[j] < 0 && isElision(l) {
			return elidedRejection(st.path, j+1, l)
		}
	}
	st.after = make([]oline, len(lines))
	for j, l := range lines {
		if i := match[j]; i >= 0 {
			st.after[j] = ft.lines[i]
		} else {
			st.after[j] = oline{text: l, eol: ft.eol, origin: -1}
		}
	}
	finish(st.after, ft.eol, ft.finalNL)
	return nil
}

// tidy turns the removed and added lines that a run of changes removes
// and adds again unchanged, at its start or end, into context: the
// change is the same, its edits are smaller, and a line with a redaction
// marker written as removed and added again keeps the file's bytes.
func tidy(ls []hline) []hline {
	out := make([]hline, 0, len(ls))
	for i := 0; i < len(ls); {
		if ls[i].op == ' ' {
			out = append(out, ls[i])
			i++
			continue
		}
		var dels, adds []hline
		for ; i < len(ls) && ls[i].op != ' '; i++ {
			if ls[i].op == '-' {
				dels = append(dels, ls[i])
			} else {
				adds = append(adds, ls[i])
			}
		}
		p := 0
		for p < len(dels) && p < len(adds) && dels[p].text == adds[p].text {
			p++
		}
		s := 0
		for s < len(dels)-p && s < len(adds)-p && dels[len(dels)-1-s].text == adds[len(adds)-1-s].text {
			s++
		}
		for _, d := range dels[:p] {
			d.op = ' '
			out = append(out, d)
		}
		out = append(out, dels[p:len(dels)-s]...)
		out = append(out, adds[p:len(adds)-s]...)
		for _, d := range dels[len(dels)-s:] {
			d.op = ' '
			out = append(out, d)
		}
	}
	return out
}

// blockOps turns a block into hunk lines: the lines its SEARCH and
// REPLACE parts share (a longest common subsequence) are context, which
// keeps the file's bytes, the others are removed or added.
func blockOps(b *block) []hline {
	match := diffMatch(len(b.search), len(b.replace), func(i, j int) bool { return b.search[i] == b.replace[j] })
	ops := make([]hline, 0, len(b.search)+len(b.replace))
	var adds []hline
	si := 0
	for j, l := range b.replace {
		i := match[j]
		if i < 0 {
			adds = append(adds, hline{op: '+', text: l, at: b.divider + 1 + j})
			continue
		}
		for ; si < i; si++ {
			ops = append(ops, hline{op: '-', text: b.search[si], at: b.at + 1 + si})
		}
		ops = append(ops, adds...)
		adds = adds[:0]
		ops = append(ops, hline{op: ' ', text: b.search[i], at: b.at + 1 + i})
		si = i + 1
	}
	for ; si < len(b.search); si++ {
		ops = append(ops, hline{op: '-', text: b.search[si], at: b.at + 1 + si})
	}
	return append(ops, adds...)
}

// oldSide returns the patterns of the lines ops expects in the file.
func oldSide(ops []hline) ([]pattern, []hline) {
	var pats []pattern
	var ls []hline
	for _, l := range ops {
		if l.op != '+' {
			pats = append(pats, newPattern(l.text))
			ls = append(ls, l)
		}
	}
	return pats, ls
}

// splice replaces the lines of cur from start with ops: context keeps the
// file's line, removed lines go, added lines come in eol.
func splice(cur []oline, start int, ops []hline, eol string) []oline {
	out := make([]oline, 0, len(cur)+len(ops))
	out = append(out, cur[:start]...)
	k := start
	for _, op := range ops {
		switch op.op {
		case ' ':
			out = append(out, cur[k])
			k++
		case '-':
			k++
		default:
			out = append(out, oline{text: op.text, eol: eol, origin: -1})
		}
	}
	return append(out, cur[k:]...)
}

// place is where a hunk applies.
type place struct {
	start, end int
	ops        []hline
	h          *hunk
}

// unified applies a unified diff's hunks.
func (w *applier) unified(st *fileState, fc *FileChange, in Input) *Rejection {
	switch fc.Action {
	case ActionCreate:
		if in.Exists {
			return newRejection(CodeContextMismatch, st.path, st.path+": the diff creates the file (--- /dev/null), but it already exists",
				"Write a diff against the file's current text (--- a/"+fc.Path+", +++ b/"+fc.Path+") instead of creating it.")
		}
		noNL := false
		for k := range fc.hunks {
			st.after = append(st.after, newLines(fc.hunks[k].lines, "\n")...)
			noNL = fc.hunks[k].newNoNL
		}
		finish(st.after, "\n", !noNL)
		return nil
	case ActionDelete:
		if !in.Exists {
			return newRejection(CodeContextMismatch, st.path, st.path+": the diff deletes the file (+++ /dev/null), but it does not exist",
				"Leave the file out of the change.")
		}
		var removed []hline
		for k := range fc.hunks {
			removed = append(removed, fc.hunks[k].lines...)
		}
		return w.wholeMatch(st, removed)
	}
	if !in.Exists {
		return newRejection(CodeContextMismatch, st.path, st.path+": the diff changes the file, but it does not exist",
			"To create it, write a diff from /dev/null (--- /dev/null, +++ b/"+fc.Path+") whose lines all start with '+'.")
	}
	ft := st.before
	m := newMatcher(texts(ft.lines), &w.budget)
	var places []place
	var amb *Rejection
	from := 0
	for k := range fc.hunks {
		pl, rej := w.placeHunk(st, m, &fc.hunks[k], k, len(fc.hunks), from)
		if rej != nil {
			if rej.Code == CodeContextMismatch {
				return rej
			}
			if amb == nil {
				amb = rej
			}
		}
		places = append(places, pl)
		from = pl.end
	}
	finalNL := ft.finalNL
	var after []oline
	k := 0
	for _, pl := range places {
		after = append(after, ft.lines[k:pl.start]...)
		sub := splice(ft.lines[pl.start:pl.end], 0, pl.ops, ft.eol)
		after = append(after, sub...)
		k = pl.end
		if pl.end == len(ft.lines) {
			switch {
			case pl.h.newNoNL:
				finalNL = false
			case pl.h.oldNoNL:
				finalNL = true
			}
		}
	}
	after = append(after, ft.lines[k:]...)
	finish(after, ft.eol, finalNL)
	st.after = after
	return amb
}

// placeHunk finds where hunk k (of n) applies, at or after line from.
func (w *applier) placeHunk(st *fileState, m *matcher, h *hunk, k, n, from int) (place, *Rejection) {
	what := fmt.Sprintf("hunk %d (answer line %d)", k+1, h.at)
	if n == 1 {
		what = fmt.Sprintf("the hunk at answer line %d", h.at)
	}
	variants := [][]hline{tidy(h.lines)}
	if h.countTail > 0 && h.countTail < len(h.lines) {
		variants = append(variants, tidy(h.lines[:len(h.lines)-h.countTail]))
	}
	var first *Rejection
	for _, ops := range variants {
		pl, rej := w.placeOps(st, m, h, ops, what, from)
		if rej == nil || rej.Code != CodeContextMismatch {
			return pl, rej
		}
		if first == nil {
			first = rej
		}
	}
	return place{}, first
}

// placeOps places one reading of a hunk.
func (w *applier) placeOps(st *fileState, m *matcher, h *hunk, ops []hline, what string, from int) (place, *Rejection) {
	old, oldLines := oldSide(ops)
	nlines := len(m.lines)
	if len(old) == 0 {
		switch a := h.oldStart; {
		case a < 0:
			return place{start: from, end: from, ops: ops, h: h}, newRejection(CodeAmbiguousMatch, st.path, fmt.Sprintf("%s: %s only adds lines and its @@ line gives no line number, so it could go anywhere", st.path, what),
				"Give the hunk a few unchanged context lines around the added ones, or its @@ -N,0 +M,K @@ line numbers.")
		case a > nlines:
			return place{}, newRejection(CodeContextMismatch, st.path, fmt.Sprintf("%s: %s adds lines after line %d, but the file has %d lines", st.path, what, a, nlines),
				"Give the hunk unchanged context lines copied from the file around the added ones.")
		case a < from:
			return place{}, newRejection(CodeContextMismatch, st.path, fmt.Sprintf("%s:%d: %s adds lines after line %d, before the end of the previous hunk (line %d); hunks must be in file order", st.path, a, what, a, from),
				"Order the hunks by their place in the file, and give each unchanged context lines copied from the file.")
		default:
			return place{start: a, end: a, ops: ops, h: h}, nil
		}
	}
	starts, layer, over := m.find(old, from)
	if over {
		// The hunk is left out of the text after, which is only used to
		// look for mismatches in later files.
		return place{start: from, end: from, h: h}, w.tooRepetitive(st.path, what)
	}
	if len(starts) == 0 {
		return place{}, w.mismatchRejection(st.path, st.before.lines, m, old, oldLines, what, h.oldStart, from)
	}
	s := starts[0]
	if len(starts) > 1 {
		// The stated line decides between places that are all as good;
		// past maxCandidates it is checked directly.
		stated := h.oldStart - 1
		if stated >= from && (contains(starts, stated) || (len(starts) == maxCandidates && m.at(old, stated, layer))) {
			s = stated
		} else {
			return place{start: s, end: s + len(old), ops: ops, h: h}, ambiguousRejection(st.path, what, starts,
				"Add unchanged lines around the change, copied from the file, until the hunk matches one place, or give its @@ line numbers as the file has them.")
		}
	}
	return place{start: s, end: s + len(old), ops: ops, h: h}, nil
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// wholeMatch checks a deletion: the removed lines must be the whole file.
func (w *applier) wholeMatch(st *fileState, removed []hline) *Rejection {
	ft := st.before
	old, oldLines := oldSide(removed)
	m := newMatcher(texts(ft.lines), &w.budget)
	if len(old) == len(ft.lines) {
		if len(old) == 0 {
			return nil
		}
		for l := range layers {
			if m.at(old, 0, l) {
				return nil
			}
		}
	}
	what := "the deletion"
	if len(old) != len(ft.lines) {
		what = fmt.Sprintf("the deletion (%d removed lines; the file has %d)", len(old), len(ft.lines))
	}
	return w.mismatchRejection(st.path, ft.lines, m, old, oldLines, what, 1, 0)
}

// searchReplace applies SEARCH/REPLACE blocks in order, each to the text
// the previous ones left.
func (w *applier) searchReplace(st *fileState, fc *FileChange, in Input) *Rejection {
	exists := in.Exists
	eol, finalNL := "\n", true
	var cur []oline
	if exists {
		cur = st.before.lines
		eol, finalNL = st.before.eol, st.before.finalNL
	} else {
		st.action = ActionCreate
	}
	var amb *Rejection
	for k := range fc.blocks {
		b := &fc.blocks[k]
		what := fmt.Sprintf("the SEARCH block at answer line %d", b.at)
		ops := blockOps(b)
		if len(b.search) == 0 {
			switch {
			case !exists:
				exists = true
				cur = newLines(ops, "\n")
			case len(cur) == 0:
				cur = newLines(ops, eol)
			default:
				if amb == nil {
					amb = newRejection(CodeAmbiguousMatch, st.path, fmt.Sprintf("%s: %s is empty, which matches everywhere in the existing file", st.path, what),
						"Put the lines to replace in the SEARCH part; an empty SEARCH only creates a new file.")
				}
			}
			continue
		}
		if !exists {
			return newRejection(CodeContextMismatch, st.path, fmt.Sprintf("%s: %s searches the file, but it does not exist", st.path, what),
				"To create the file, write one block with an empty SEARCH part and the whole new text in its REPLACE part.")
		}
		m := newMatcher(texts(cur), &w.budget)
		old, oldLines := oldSide(ops)
		starts, _, over := m.find(old, 0)
		switch {
		case over:
			if amb == nil {
				amb = w.tooRepetitive(st.path, what)
			}
			continue
		case len(starts) == 0:
			return w.mismatchRejection(st.path, cur, m, old, oldLines, what, -1, 0)
		case len(starts) > 1 && amb == nil:
			amb = ambiguousRejection(st.path, what, starts,
				"Add the lines around the change to the SEARCH part until it matches one place in the file.")
		}
		cur = splice(cur, starts[0], ops, eol)
	}
	after := make([]oline, len(cur))
	copy(after, cur)
	finish(after, eol, finalNL)
	st.after = after
	return amb
}

package contextbuilder

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/ctxd/ctxd/index"
)

// render returns an item's block at its current level: title, content
// after slicing and redaction, and the token count of what is sent (the
// title line and the content). Results are memoized per level.
func (p *pipeline) render(it *item) *rendered {
	lv := LevelFull
	if len(it.levels) > 0 {
		lv = it.levels[it.level]
	}
	if r, ok := it.cache[lv]; ok {
		return r
	}
	r := &rendered{}
	var maps []contentMap
	switch it.typ {
	case BlockFile:
		var segs []segment
		switch lv {
		case LevelRegion:
			segs = regionSegments(it.li, it.regions)
			r.desc = describeSegments(it.li, segs)
			r.title = fmt.Sprintf("%s (TARGET_REGION_ONLY: %s of %d)", it.path, describeSegments(it.li, segs), it.li.lines())
		case LevelSignatures:
			segs = signatureSegments(it.li, p.root.Syntax(it.path).Symbols, span{0, len(it.text)})
			r.desc = fmt.Sprintf("%d declarations", len(segs))
			r.title = it.path + " (SIGNATURES_ONLY)"
		default:
			segs = []segment{{span: span{0, len(it.text)}, line: 1}}
			r.title = it.path
		}
		r.content, maps = segmentsText(it.li, segs, lv)
	case BlockSymbol:
		s := &p.root.Syntax(it.path).Symbols[it.symIdx]
		var segs []segment
		if lv == LevelSignatures {
			segs = signatureSegments(it.li, p.root.Syntax(it.path).Symbols, span{int(s.Range.StartByte), int(s.Range.EndByte)})
		} else {
			sp := symbolSpan(it.li, s)
			segs = []segment{{span: sp, line: it.li.lineOf(sp.start)}}
		}
		r.desc = describeSegments(it.li, segs)
		r.title = fmt.Sprintf("%s %s in %s (%s)", s.Kind, it.symbol, it.path, describeSegments(it.li, segs))
		if lv == LevelSignatures {
			r.title += " (SIGNATURES_ONLY)"
		}
		r.content, maps = segmentsText(it.li, segs, lv)
	default:
		r.title, r.content = it.title, it.fixed
	}
	hidden := hiddenLines(it, r.content, maps)
	p.redact(it, r, maps)
	if len(hidden) > 0 && r.risk == "" {
		p.stripHidden(it, r, hidden)
	}
	r.tokens = p.count(r.title + "\n" + r.content)
	if it.cache == nil {
		it.cache = map[Level]*rendered{}
	}
	it.cache[lv] = r
	if it.typ == BlockFile && lv == LevelFull && !it.target {
		p.opts.Scans.remember(p.blockKey(it), r)
	}
	return r
}

// blockKey names an optional whole-file block's rendering: the file's
// content hash with everything else the rendering depends on.
func (p *pipeline) blockKey(it *item) string {
	return strings.Join([]string{p.redactor.Version(), p.est.Name(), it.path, it.file.SHA256}, "\x00")
}

// recall gives ctxd.budget the rendering of an optional whole file it has
// counted before (same path, content hash, rules and encoding) without
// reading the file again: its tokens, redactions and risk, not its
// content, which the budget does not return. A build always reads, and so
// detects a file changed on disk since indexing; the budget trusts the
// index's hash for these optional blocks until the next build or event.
func (p *pipeline) recall(it *item) bool {
	if p.mode != modeBudget || it.typ != BlockFile || it.target || len(it.levels) != 1 {
		return false
	}
	r, ok := p.opts.Scans.recall(p.blockKey(it))
	if !ok {
		return false
	}
	if it.cache == nil {
		it.cache = map[Level]*rendered{}
	}
	it.cache[LevelFull] = r
	return true
}

// redact scans the content that would be sent and replaces each
// high-confidence secret span with [REDACTED:<rule>]. A finding that
// cannot be removed by a span (uncertain, or the whole text is the
// credential) marks the block as a secret risk instead.
//
// A slice is checked with the findings of its whole file, carried into
// it, because a slice can cut a secret so that no pattern matches what is
// left (the body lines of a key without its BEGIN line).
func (p *pipeline) redact(it *item, r *rendered, maps []contentMap) {
	name := it.reportName(r)
	var findings []Finding
	if it.text == nil {
		// A text not from a file is scanned as it is. A file's blocks
		// (whole, sliced or a symbol) carry the findings of the whole
		// file instead: every byte they show is file text, so every
		// secret they show is one of those. Only the marker lines ctxd
		// puts between slices are new, and they hold no secret.
		f, err := p.redactor.Scan(name, []byte(r.content))
		if err != nil {
			r.risk = riskUnscannable
			return
		}
		findings = f
	}
	if it.text != nil {
		whole, err := p.fileFindings(it)
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
func (r *rendered) apply(findings []Finding, name string, detail func(Finding) string) {
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

// reportName is what the redaction report calls a block: its path, or its
// title for a block not from a file.
func (it *item) reportName(r *rendered) string {
	if it.path != "" {
		return it.path
	}
	return r.title
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
func (p *pipeline) stripHidden(it *item, r *rendered, lines []int) {
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
	findings, err := p.redactor.Scan(name, []byte(r.content))
	if err != nil {
		r.risk = riskUnscannable
		return
	}
	r.apply(findings, name, func(f Finding) string {
		return fmt.Sprintf("rule %s, joined by removing hidden characters", f.RuleID)
	})
}

// fileFindings scans a file's whole text once per build.
func (p *pipeline) fileFindings(it *item) ([]Finding, error) {
	if f, ok := p.findings[it.path]; ok {
		return f, nil
	}
	f, err := p.opts.Scans.scan(p.redactor, it.path, it.file.SHA256, it.text)
	if err != nil {
		return nil, err
	}
	if p.findings == nil {
		p.findings = map[string][]Finding{}
	}
	p.findings[it.path] = f
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

// fit runs Step 4. Required blocks (P0, then P1) are rendered most
// complete first. Optional blocks (P3, then P2 in rank order) are added
// only while the total stays within the soft limit, so optional context
// never causes a warning; the first one that does not fit and every one
// ranked after it are removed (Step 4.1 and 4.2, reverse rank order). Then,
// while over the hard limit: P1 blocks are sliced to SIGNATURES_ONLY in
// reverse rank order (4.3), targets to TARGET_REGION_ONLY (4.4). If P0
// alone is still over the hard limit the build is refused (4.5);
// otherwise P1 blocks are removed in reverse rank order until it fits
// (ctxd's reading of the ContextTooLarge failure mode, which refuses only
// for P0).
func (p *pipeline) fit(ctx context.Context) error {
	var p1, opt []*item
	p0 := append(p.fixedItems(), p.rankedTargets()...)
	for _, it := range p.items {
		if it.priority == P1 {
			p1 = append(p1, it)
		} else {
			opt = append(opt, it)
		}
	}
	total := 0
	for _, it := range p0 {
		r := p.render(it)
		if r.risk != "" {
			return p.secretRefusal(it, r)
		}
		total += r.tokens
	}
	var keep1 []*item
	for _, it := range p1 {
		if !p.allowed(it.path) {
			p.excludeByNamespace(it)
			continue
		}
		if err := p.loadRelated(it); err != nil {
			if errors.Is(err, errSkip) {
				continue
			}
			return err
		}
		r := p.render(it)
		if r.risk != "" {
			p.exclude(it.path, ExcludeSecretRisk, RedactBlockRemoved, RedactReasonSecret, fmt.Sprintf("%s: rule %s found a secret that cannot be redacted safely", it.symbol, r.risk))
			continue
		}
		total += r.tokens
		keep1 = append(keep1, it)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	// 4.1 and 4.2: optional blocks, P3 before P2 is removed first, which
	// is the same as adding P2 first.
	slices.SortStableFunc(opt, func(a, b *item) int { return strings.Compare(string(a.priority), string(b.priority)) })
	var keepOpt []*item
	full, dropped := false, 0
	for _, it := range opt {
		if full {
			p.drop(it, "not included: the soft limit of %d tokens is reached (removed in reverse rank order)")
			dropped++
			continue
		}
		if !p.allowed(it.path) {
			p.excludeByNamespace(it)
			continue
		}
		if it.thread == nil && !p.recall(it) {
			if err := p.loadRelated(it); err != nil {
				if errors.Is(err, errSkip) {
					continue
				}
				return err
			}
		}
		r := p.render(it)
		if r.risk != "" {
			p.exclude(it.excludedPath(), ExcludeSecretRisk, RedactBlockRemoved, RedactReasonSecret, fmt.Sprintf("rule %s found a secret that cannot be redacted safely", r.risk))
			continue
		}
		if total+r.tokens > p.soft {
			full = true
			p.drop(it, "not included: the soft limit of %d tokens is reached (removed in reverse rank order)")
			dropped++
			continue
		}
		total += r.tokens
		keepOpt = append(keepOpt, it)
	}
	if dropped > 0 {
		p.notes = append(p.notes, fmt.Sprintf("fit: removed %d optional (P2/P3) candidates in reverse rank order to stay within the soft limit of %d tokens", dropped, p.soft))
	}
	// 4.3: slice P1 in reverse rank order.
	total = p.sliceWhileOver(total, keep1, LevelSignatures, "P1")
	// 4.4: slice targets (last resort) in reverse rank order.
	total = p.sliceWhileOver(total, p.rankedTargets(), LevelRegion, "target")
	if total > p.hard {
		p0total := 0
		for _, it := range p0 {
			p0total += p.render(it).tokens
		}
		if p0total > p.hard {
			p.total, p.decision = total, DecisionRefuse
			return &Refusal{
				Code:            RefuseContextTooLarge,
				Message:         fmt.Sprintf("the required context (system, constraints and targets, after slicing) needs %d tokens but the hard limit is %d (max_input_tokens %d - response_token_reserve %d)", p0total, p.hard, p.model.MaxInputTokens, p.model.ResponseTokenReserve),
				Advice:          "narrow the scope: select a region or name a symbol (target_symbols) instead of whole files, target fewer files, or use a model with a larger input window",
				BudgetReport:    p.budgetReport(""),
				RedactionReport: &RedactionReport{Redactions: p.sortedRedactions()},
			}
		}
		for i := len(keep1) - 1; i >= 0 && total > p.hard; i-- {
			total -= p.render(keep1[i]).tokens
			p.drop(keep1[i], "removed: after slicing, the hard limit of %d tokens was still exceeded (P1 removed in reverse rank order)")
			keep1 = keep1[:i]
		}
		p.notes = append(p.notes, fmt.Sprintf("fit: removed P1 blocks in reverse rank order to fit the hard limit of %d tokens", p.hard))
	}
	required := append(slices.Clone(p0), keep1...)
	keepOpt, err := p.enforceCaps(required, keepOpt)
	if err != nil {
		return err
	}
	total = 0
	for _, it := range append(required, keepOpt...) {
		total += p.render(it).tokens
	}
	p.total = total
	switch {
	case total <= p.soft:
		p.decision = DecisionOK
	default:
		p.decision = DecisionWarn
		p.notes = append(p.notes, fmt.Sprintf("warning: estimated input %d tokens exceeds the soft limit of %d tokens (hard limit %d); the bundle is sent, consider narrowing the scope", total, p.soft, p.hard))
	}
	p.blocks = append(append(append([]*item{}, p0...), keep1...), keepOpt...)
	return nil
}

// sliceWhileOver moves items to the given level, last ranked first, while
// the total is over the hard limit, and returns the new total.
func (p *pipeline) sliceWhileOver(total int, items []*item, to Level, what string) int {
	for i := len(items) - 1; i >= 0 && total > p.hard; i-- {
		it := items[i]
		j := slices.Index(it.levels, to)
		if j < 0 || j == it.level {
			continue
		}
		before := p.render(it).tokens
		prev := it.level
		it.level = j
		r := p.render(it)
		if r.risk != "" || r.tokens >= before {
			// A slice that saves nothing (a declaration that is all
			// signature) is not worth its loss of content.
			it.level = prev
			continue
		}
		total += r.tokens - before
		p.notes = append(p.notes, fmt.Sprintf("fit: sliced %s block %s to %s (%d -> %d tokens)", what, it.label(), to, before, r.tokens))
	}
	return total
}

// riskUnscannable is the risk of a text the redactor cannot scan: it is
// refused or excluded like a secret that cannot be removed (seed 002: if
// the system cannot prove it has removed secrets, it must refuse).
const riskUnscannable = "unscannable-text"

// errSkip reports that an optional or P1 item was excluded while loading.
var errSkip = errors.New("skipped")

// loadRelated reads a related item. An unreadable file is excluded as
// "binary" (seed 002 edge case 4: what cannot be classified reliably is
// treated as binary); a stale file restarts the build.
func (p *pipeline) loadRelated(it *item) error {
	err := p.read(it)
	var se *staleError
	if errors.As(err, &se) {
		return err
	}
	if err != nil {
		p.exclude(it.path, ExcludeBinary, RedactPathExcluded, RedactReasonBinary, "unreadable, treated as binary: "+readProblem(err))
		return errSkip
	}
	return nil
}

// readProblem describes a read error without the absolute path the
// operating system puts in it: reports are independent of where the
// workspace lives.
func readProblem(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "the file no longer exists"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	case errors.Is(err, index.ErrNotIndexed):
		return "not in the index"
	}
	return "read error"
}

// drop removes a candidate for the budget.
func (p *pipeline) drop(it *item, format string) {
	limit := p.soft
	if strings.Contains(format, "hard") {
		limit = p.hard
	}
	p.exclude(it.excludedPath(), ExcludeTokenBudget, RedactBlockRemoved, RedactReasonBudget, fmt.Sprintf("%s %s %s: ", it.priority, it.reason, it.label())+fmt.Sprintf(format, limit))
}

// label names an item in notes and details.
func (it *item) label() string {
	if it.typ == BlockSymbol {
		return it.symbol + " in " + it.path
	}
	if it.path != "" {
		return it.path
	}
	return it.title
}

// rankedTargets returns the targets in rank order: score (weight minus the
// size penalty), smaller byte_size, path.
func (p *pipeline) rankedTargets() []*item {
	out := slices.Clone(p.targets)
	for _, t := range out {
		t.score = t.baseScore()
	}
	sortRanked(out)
	return out
}

// secretRefusal refuses a required block holding a secret that cannot be
// removed safely.
func (p *pipeline) secretRefusal(it *item, r *rendered) error {
	what := it.label()
	msg := fmt.Sprintf("%s holds a secret (rule %s) that ctxd cannot remove safely by redaction, and it is required context", what, r.risk)
	advice := "move the secret out of the project (an environment variable or a secret manager), or add a deny rule for the file, then retry"
	if r.risk == riskUnscannable {
		msg = fmt.Sprintf("%s cannot be decoded for secret scanning (invalid UTF-8 or NUL bytes), so ctxd cannot prove it holds no secret, and it is required context", what)
		advice = "save the file as UTF-8 text without NUL bytes, or choose another target"
	}
	return &Refusal{
		Code:            RefuseSecretRisk,
		Message:         msg,
		Advice:          advice,
		RedactionReport: &RedactionReport{Redactions: p.sortedRedactions()},
	}
}

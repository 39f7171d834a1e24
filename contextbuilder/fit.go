package contextbuilder

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// fitted is the output of the fit step (seed 002 Step 4): the blocks that
// are sent, at their final slicing levels, with the estimate and the
// decision.
type fitted struct {
	scope
	trail
	// blocks are P0, then the kept P1, then the kept optional blocks;
	// the render step puts them in bundle order.
	blocks   []*item
	total    int
	decision Decision
}

// fit runs the fit step. Required blocks (P0, then P1) are rendered most
// complete first. Optional blocks (P3, then P2 in rank order) are added
// only while the total stays within the soft limit, so optional context
// never causes a warning (Step 4.1 and 4.2). When the required blocks are
// over the hard limit, fitHard cuts them one at a time in the contract's
// order (P1 slices, target slices, P1 removals; Step 4.3 to 4.5) and only
// as far as needed, or refuses when the targets alone do not fit; then
// the optional blocks that did not fit before the cuts get the room the
// cuts left, again in rank order. Those still out are removed, and last
// the policy's caps remove optional blocks.
//
// On the refusal for the hard limit the returned value holds the total
// and decision, which ctxd.budget reports.
func (e *env) fit(ctx context.Context, a assembly) (fitted, error) {
	f := fitted{scope: a.scope, trail: a.trail}
	total, err := e.fitRequired(a.required, &f.trail)
	if err != nil {
		return f, err
	}
	keep1, p1Total, err := e.fitP1(a.p1, &f.trail)
	if err != nil {
		return f, err
	}
	total += p1Total
	if err := ctx.Err(); err != nil {
		return f, err
	}
	opt := &optionals{items: a.optional}
	keepOpt, total, err := e.addOptional(opt, total, &f.trail)
	if err != nil {
		return f, err
	}
	if total > e.limits.hard {
		// Nothing optional was added: the required blocks alone are
		// over the soft limit.
		var refuse bool
		keep1, total, refuse = e.fitHard(a.required, a.targets, keep1, total, &f.trail)
		if refuse {
			e.dropOptional(opt, &f.trail)
			return f, e.tooLarge(a.required, total, &f)
		}
		var more []*item
		if more, total, err = e.addOptional(opt, total, &f.trail); err != nil {
			return f, err
		}
		if len(more) > 0 {
			f.note("fit: added %d optional (P2/P3) blocks in rank order in the room the cuts left, within the soft limit of %d tokens (total %d)", len(more), e.limits.soft, total)
		}
		keepOpt = append(keepOpt, more...)
	}
	e.dropOptional(opt, &f.trail)
	required := append(slices.Clone(a.required), keep1...)
	if keepOpt, err = e.enforceCaps(required, keepOpt, &f.trail); err != nil {
		return f, err
	}
	f.blocks = append(required, keepOpt...)
	f.total = e.tokensOf(f.blocks)
	f.decision = e.decide(f.total, &f.trail)
	return f, nil
}

// fitRequired renders the P0 blocks whole and returns their tokens. A P0
// block holding a secret that cannot be redacted refuses the build.
func (e *env) fitRequired(p0 []*item, t *trail) (int, error) {
	total := 0
	for _, it := range p0 {
		r := e.rendered(it)
		if r.risk != "" {
			return 0, secretRefusal(it, r, t)
		}
		total += r.tokens
	}
	return total, nil
}

// fitP1 reads and renders the P1 blocks whole, leaving out those outside
// the namespaces, unreadable or holding a secret that cannot be redacted.
// It returns the others, in rank order, and their tokens.
func (e *env) fitP1(p1 []*item, t *trail) (keep []*item, total int, err error) {
	for _, it := range p1 {
		if it.outside {
			e.excludeByNamespace(it, t)
			continue
		}
		if err := e.loadRelated(it, t); err != nil {
			if errors.Is(err, errSkip) {
				continue
			}
			return nil, 0, err
		}
		r := e.rendered(it)
		if r.risk != "" {
			t.exclude(it.path, ExcludeSecretRisk, RedactBlockRemoved, RedactReasonSecret, fmt.Sprintf("%s: rule %s found a secret that cannot be redacted safely", it.symbol, r.risk))
			continue
		}
		total += r.tokens
		keep = append(keep, it)
	}
	return keep, total, nil
}

// optionals are the optional blocks in the order fit adds them, with how
// far it got.
type optionals struct {
	items []*item
	// next is the first block not added nor left out yet.
	next int
	// read reports that items[next] is read and rendered: it did not
	// fit, and is the first to try again once the cuts make room.
	read bool
}

// addOptional adds optional blocks in order, each at the most complete
// level that keeps the total within the soft limit, and returns those
// added and the new total. It stops at the first block that fits at no
// level, leaving it and the blocks after it for a later call or for
// dropOptional: a block is never added while a better-ranked one is left
// out, which keeps the removals in reverse rank order, and the blocks
// after the first that does not fit are not read.
func (e *env) addOptional(o *optionals, total int, t *trail) ([]*item, int, error) {
	var keep []*item
	for ; o.next < len(o.items); o.next++ {
		it := o.items[o.next]
		if !o.read {
			r, err := e.admitOptional(it, t)
			if err != nil {
				return nil, 0, err
			}
			if r == nil {
				continue
			}
			o.read = true
		}
		j, ok := e.levelWithin(it, e.limits.soft-total)
		if !ok {
			break
		}
		o.read = false
		it.level = j
		total += e.rendered(it).tokens
		keep = append(keep, it)
		if j > 0 {
			t.note("fit: added %s block %s at %s (%d tokens)", it.priority, it.label(), it.levels[j], e.rendered(it).tokens)
		}
	}
	return keep, total, nil
}

// levelWithin returns the most complete level at which an optional block
// takes at most room tokens. A level below the first whose rendering
// holds a secret that cannot be redacted is skipped; the first level's
// risk was handled when the block was read.
func (e *env) levelWithin(it *item, room int) (int, bool) {
	for j := 0; j < max(1, len(it.levels)); j++ {
		r := e.renderedAt(it, j)
		if j > 0 && r.risk != "" {
			continue
		}
		if r.tokens <= room {
			return j, true
		}
	}
	return 0, false
}

// dropOptional removes the optional blocks addOptional did not reach or
// could not fit (Step 4.1 and 4.2, reverse rank order), unread past the
// first.
func (e *env) dropOptional(o *optionals, t *trail) {
	dropped := len(o.items) - o.next
	for _, it := range o.items[o.next:] {
		t.dropForBudget(it, softLimit, e.limits)
	}
	o.next, o.read = len(o.items), false
	if dropped > 0 {
		t.note("fit: removed %d optional (P2/P3) candidates in reverse rank order to stay within the soft limit of %d tokens", dropped, e.limits.soft)
	}
}

// admitOptional reads (or recalls) and renders an optional block; nil
// when it is left out: outside the namespaces, unreadable, or holding a
// secret that cannot be redacted.
func (e *env) admitOptional(it *item, t *trail) (*rendering, error) {
	if it.outside {
		e.excludeByNamespace(it, t)
		return nil, nil
	}
	if it.thread == nil && !e.recall(it) {
		if err := e.loadRelated(it, t); err != nil {
			if errors.Is(err, errSkip) {
				return nil, nil
			}
			return nil, err
		}
	}
	r := e.rendered(it)
	if r.risk != "" {
		t.exclude(it.excludedPath(), ExcludeSecretRisk, RedactBlockRemoved, RedactReasonSecret, fmt.Sprintf("rule %s found a secret that cannot be redacted safely", r.risk))
		return nil, nil
	}
	return r, nil
}

// tooLarge is Step 4.5's refusal: the targets, sliced, are over the hard
// limit by themselves. The figure the message gives and the budget report's
// estimate are the same: what the P0 blocks need at their final levels.
// The P1 blocks are not counted: they would be removed before a refusal
// (Step 4.5), so counting them would overstate what the request needs;
// a note says what they held. total is the required blocks' total after
// the cuts, P1 included.
func (e *env) tooLarge(p0 []*item, total int, f *fitted) error {
	need := e.tokensOf(p0)
	f.total, f.decision = need, DecisionRefuse
	if p1 := total - need; p1 > 0 {
		f.note("fit: refused: the P0 blocks (system, constraints and targets), sliced, need %d tokens by themselves, over the hard limit of %d; removing the P1 blocks (%d tokens) would not make them fit", need, e.limits.hard, p1)
	} else {
		f.note("fit: refused: the P0 blocks (system, constraints and targets), sliced, need %d tokens by themselves, over the hard limit of %d", need, e.limits.hard)
	}
	r := &Refusal{
		Code:            RefuseContextTooLarge,
		Message:         fmt.Sprintf("the required context (system, constraints and targets, after slicing) needs %d tokens but the hard limit is %d (max_input_tokens %d - response_token_reserve %d)", need, e.limits.hard, e.model.MaxInputTokens, e.model.ResponseTokenReserve),
		BudgetReport:    e.budgetReport(f.notes, need, DecisionRefuse, ""),
		RedactionReport: &RedactionReport{Redactions: f.sortedRedactions()},
	}
	return r.advise(e.tooLargeActions(len(f.targets))...)
}

// tooLargeActions are the ways out of a request too large: a region or a
// symbol when the request gave neither, a smaller region or fewer symbols
// when it gave them (never a symbol again when one was named), fewer
// files when there are several, and a larger budget.
func (e *env) tooLargeActions(targets int) []Action {
	region := e.req.Selection != nil
	named := slices.ContainsFunc(e.req.UserSelectedTargets, func(u UserTarget) bool { return u.Symbol != "" })
	if ps := e.req.PlanStep; ps != nil {
		named = named || len(ps.TargetSymbols) > 0
		for _, t := range ps.TargetFiles {
			if _, lines, err := splitLines(t); err == nil && lines != [2]int{} {
				region = true
			}
		}
	}
	var out []Action
	if !region && !named {
		out = append(out, act(ActionSelectRegion), act(ActionNameSymbol))
	}
	if region {
		out = append(out, act(ActionSmallerRegion))
	}
	if named {
		out = append(out, act(ActionFewerSymbols))
	}
	if targets > 1 {
		out = append(out, act(ActionFewerTargets))
	}
	return append(out, act(ActionRaiseBudget))
}

// decide is the budget decision for the final total; a total over the
// soft limit (made of required blocks only) is sent with a warning.
func (e *env) decide(total int, t *trail) Decision {
	if total <= e.limits.soft {
		return DecisionOK
	}
	t.note("warning: estimated input %d tokens exceeds the soft limit of %d tokens (hard limit %d); the bundle is sent, consider narrowing the scope", total, e.limits.soft, e.limits.hard)
	return DecisionWarn
}

// tokensOf sums the tokens of blocks at their current levels.
func (e *env) tokensOf(blocks []*item) int {
	n := 0
	for _, it := range blocks {
		n += e.rendered(it).tokens
	}
	return n
}

// secretRefusal refuses a required block holding a secret that cannot be
// removed safely.
func secretRefusal(it *item, r *rendering, t *trail) error {
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
		RedactionReport: &RedactionReport{Redactions: t.sortedRedactions()},
	}
}

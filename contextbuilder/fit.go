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
// never causes a warning; the first one that does not fit and every one
// ranked after it are removed (Step 4.1 and 4.2, reverse rank order). Then,
// while over the hard limit: P1 blocks are sliced to SIGNATURES_ONLY in
// reverse rank order (4.3), targets to TARGET_REGION_ONLY (4.4). If P0
// alone is still over the hard limit the build is refused (4.5);
// otherwise P1 blocks are removed in reverse rank order until it fits
// (ctxd's reading of the ContextTooLarge failure mode, which refuses only
// for P0). Last, the policy's caps remove optional blocks.
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
	keepOpt, total, err := e.fitOptional(a.optional, total, &f.trail)
	if err != nil {
		return f, err
	}
	total = e.sliceWhileOver(total, keep1, LevelSignatures, "P1", &f.trail)
	total = e.sliceWhileOver(total, a.targets, LevelRegion, "target", &f.trail)
	if total > e.limits.hard {
		if keep1, err = e.fitHard(a.required, keep1, total, &f); err != nil {
			return f, err
		}
	}
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

// fitOptional adds optional blocks in order while total stays within the
// soft limit (Step 4.1 and 4.2) and returns those kept and the new total.
// Once one does not fit, it and every later one are removed unread.
func (e *env) fitOptional(opt []*item, total int, t *trail) ([]*item, int, error) {
	var keep []*item
	full, dropped := false, 0
	for _, it := range opt {
		if full {
			t.dropForBudget(it, softLimit, e.limits)
			dropped++
			continue
		}
		r, err := e.admitOptional(it, t)
		if err != nil {
			return nil, 0, err
		}
		if r == nil {
			continue
		}
		if total+r.tokens > e.limits.soft {
			full = true
			t.dropForBudget(it, softLimit, e.limits)
			dropped++
			continue
		}
		total += r.tokens
		keep = append(keep, it)
	}
	if dropped > 0 {
		t.note("fit: removed %d optional (P2/P3) candidates in reverse rank order to stay within the soft limit of %d tokens", dropped, e.limits.soft)
	}
	return keep, total, nil
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

// sliceWhileOver moves items to the given level, last ranked first, while
// the total is over the hard limit, and returns the new total.
func (e *env) sliceWhileOver(total int, items []*item, to Level, what string, t *trail) int {
	for i := len(items) - 1; i >= 0 && total > e.limits.hard; i-- {
		it := items[i]
		j := slices.Index(it.levels, to)
		if j < 0 || j == it.level {
			continue
		}
		before := e.rendered(it).tokens
		prev := it.level
		it.level = j
		r := e.rendered(it)
		if r.risk != "" || r.tokens >= before {
			// A slice that saves nothing (a declaration that is all
			// signature) is not worth its loss of content.
			it.level = prev
			continue
		}
		total += r.tokens - before
		t.note("fit: sliced %s block %s to %s (%d -> %d tokens)", what, it.label(), to, before, r.tokens)
	}
	return total
}

// fitHard runs Step 4.5 when the sliced total is still over the hard
// limit: a P0 over it alone is refused, else P1 blocks are removed in
// reverse rank order until the total fits. It returns the P1 blocks kept.
func (e *env) fitHard(p0, keep1 []*item, total int, f *fitted) ([]*item, error) {
	if p0total := e.tokensOf(p0); p0total > e.limits.hard {
		f.total, f.decision = total, DecisionRefuse
		return nil, &Refusal{
			Code:            RefuseContextTooLarge,
			Message:         fmt.Sprintf("the required context (system, constraints and targets, after slicing) needs %d tokens but the hard limit is %d (max_input_tokens %d - response_token_reserve %d)", p0total, e.limits.hard, e.model.MaxInputTokens, e.model.ResponseTokenReserve),
			Advice:          "narrow the scope: select a region or name a symbol instead of whole files (on the command line --target PATH:L1-L2 or --symbol NAME; in a request selection or plan_step.target_symbols), target fewer files, or use a model with a larger input window (model.max_input_tokens; --max-input-tokens)",
			BudgetReport:    e.budgetReport(f.notes, total, DecisionRefuse, ""),
			RedactionReport: &RedactionReport{Redactions: f.sortedRedactions()},
		}
	}
	for i := len(keep1) - 1; i >= 0 && total > e.limits.hard; i-- {
		total -= e.rendered(keep1[i]).tokens
		f.dropForBudget(keep1[i], hardLimit, e.limits)
		keep1 = keep1[:i]
	}
	f.note("fit: removed P1 blocks in reverse rank order to fit the hard limit of %d tokens", e.limits.hard)
	return keep1, nil
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

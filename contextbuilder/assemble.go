package contextbuilder

import (
	"slices"
	"strings"
)

// assembly is the output of the assembly step (seed 002 Step 3): the
// block candidates by priority, each list in the order fit considers it.
type assembly struct {
	scope
	trail
	// required are the P0 blocks: the fixed blocks, then the targets in
	// rank order.
	required []*item
	// targets are the targets in rank order, which fit slices last.
	targets []*item
	// p1 are the P1 blocks (dependencies, base types) in rank order.
	p1 []*item
	// optional are the P2 blocks (the thread's first: a retry is about
	// its previous attempt, so they are removed last), then P3.
	optional []*item
}

// assemble runs the assembly step.
func (e *env) assemble(r ranked) assembly {
	a := assembly{scope: r.scope, trail: r.trail, targets: r.targets}
	a.required = append(e.fixedItems(r.scope.targets), r.targets...)
	for _, it := range append(slices.Clone(r.thread), r.related...) {
		if it.priority == P1 {
			a.p1 = append(a.p1, it)
		} else {
			a.optional = append(a.optional, it)
		}
	}
	// P3 is removed before P2, which is the same as adding P2 first.
	slices.SortStableFunc(a.optional, func(x, y *item) int { return strings.Compare(string(x.priority), string(y.priority)) })
	return a
}

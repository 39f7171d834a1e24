package contextbuilder

import (
	"fmt"
	"slices"
	"strings"
)

// cut is one step that fits the required blocks to the hard limit: a
// block moved to a less complete level (Step 4.3 and 4.4), or a P1 block
// removed (Step 4.5).
type cut struct {
	it   *item
	what string // "P1" or "target", for notes
	// to is the level index a slice moves the block to; -1 removes it.
	to int
	// from and after are the block's tokens before and after a slice;
	// a removal's saving depends on whether the block was sliced.
	from, after int
}

func (c *cut) removal() bool { return c.to < 0 }

// hardPlan is the sequence of cuts in the contract's order with the ones
// taken marked. Cuts are appended as the plan needs them, so a block whose
// cut is never reached is never rendered at its sliced level.
type hardPlan struct {
	base  int // the required blocks' tokens, uncut
	total int // base less the savings of the cuts taken
	cuts  []cut
	taken []bool
	// sliced and removed map a block to the index of its slice and of
	// its removal: a removal saves what the slice left. Only looked up.
	sliced, removed map[*item]int
}

func newHardPlan(total int) *hardPlan {
	return &hardPlan{base: total, total: total, sliced: map[*item]int{}, removed: map[*item]int{}}
}

// saving is what cut i takes off the total, given the other cuts taken:
// a slice saves the difference of its levels; a removal saves the block
// at the level it is left at, so that a slice and a removal of one block
// save the block's whole tokens between them.
func (p *hardPlan) saving(i int) int {
	c := &p.cuts[i]
	if !c.removal() {
		return c.from - c.after
	}
	if j, ok := p.sliced[c.it]; ok && p.taken[j] {
		return p.cuts[j].after
	}
	return c.from
}

func (p *hardPlan) add(c cut) {
	if c.removal() {
		p.removed[c.it] = len(p.cuts)
	} else {
		p.sliced[c.it] = len(p.cuts)
	}
	p.cuts = append(p.cuts, c)
	p.taken = append(p.taken, false)
}

// takeUntil takes cuts in order, from the first not yet considered, until
// the total is within limit; it reports whether it is. A plan never
// takes a cut the bundle fits without: it stops at the first that
// brings the total within the limit.
func (p *hardPlan) takeUntil(from, limit int) bool {
	for i := from; i < len(p.cuts) && p.total > limit; i++ {
		p.take(i, true)
	}
	return p.total <= limit
}

// removes reports whether a removal of it is taken.
func (p *hardPlan) removes(it *item) bool {
	j, ok := p.removed[it]
	return ok && p.taken[j]
}

// take takes or gives back cut i and updates the total. Giving back the
// slice of a removed block changes nothing: its removal then saves what
// the slice saved as well.
func (p *hardPlan) take(i int, on bool) {
	d := p.saving(i)
	if c := &p.cuts[i]; !c.removal() && p.removes(c.it) {
		d = 0
	}
	if on {
		p.taken[i] = true
		p.total -= d
	} else {
		p.taken[i] = false
		p.total += d
	}
}

// minimize gives back, most important first, every taken cut the total
// stays within limit without, and returns them. The cuts come in the
// contract's order, so the later ones weigh more: a target is sliced only
// once every P1 block is, and yet once it is, the P1 slices may save
// nothing the bundle needs. Going back from the last cut keeps the blocks
// the contract ranks highest as complete as the limit allows: each cut
// left taken is one the bundle would not fit without, given the cuts
// after it.
func (p *hardPlan) minimize(limit int) []cut {
	var back []cut
	for i := len(p.cuts) - 1; i >= 0; i-- {
		if !p.taken[i] {
			continue
		}
		p.take(i, false)
		if p.total <= limit {
			if !p.removes(p.cuts[i].it) {
				// The slice of a removed block is not a cut of its own.
				back = append(back, p.cuts[i])
			}
			continue
		}
		p.take(i, true)
	}
	return back
}

// describeCuts counts cuts by kind in the contract's order, e.g. "3 P1
// slices and 1 P1 removal".
func describeCuts(cuts []cut) string {
	kinds := []struct {
		what    string
		removal bool
	}{{"P1", false}, {"target", false}, {"P1", true}}
	var parts []string
	for _, k := range kinds {
		n := 0
		for _, c := range cuts {
			if c.what == k.what && c.removal() == k.removal {
				n++
			}
		}
		if n == 0 {
			continue
		}
		noun := "slice"
		if k.removal {
			noun = "removal"
		}
		if n > 1 {
			noun += "s"
		}
		parts = append(parts, fmt.Sprintf("%d %s %s", n, k.what, noun))
	}
	return strings.Join(parts, " and ")
}

// sliceCut returns the cut that moves it to level to, or false when it
// has no such level, is already at it, or the slice would hold a secret
// that cannot be redacted or save nothing (a declaration that is all
// signature is not worth its loss of content).
func (e *env) sliceCut(it *item, to Level, what string) (cut, bool) {
	j := slices.Index(it.levels, to)
	if j < 0 || j == it.level {
		return cut{}, false
	}
	from := e.rendered(it).tokens
	r := e.renderedAt(it, j)
	if r.risk != "" || r.tokens >= from {
		return cut{}, false
	}
	return cut{it: it, what: what, to: j, from: from, after: r.tokens}, true
}

// renderedAt is an item's rendering at level index j; the item stays at
// its level.
func (e *env) renderedAt(it *item, j int) *rendering {
	prev := it.level
	it.level = j
	r := e.rendered(it)
	it.level = prev
	return r
}

// fitHard runs Step 4.3 to 4.5 on required blocks over the hard limit:
// P1 blocks sliced to SIGNATURES_ONLY last ranked first, then targets to
// TARGET_REGION_ONLY last ranked first, then, if the targets fit by
// themselves, P1 blocks removed last ranked first. The total is checked
// after each cut, and the one that brings it within the hard limit is the
// last; then every earlier cut the bundle fits without is given back
// (minimize), so that no dependency is cut for a target slice that was
// enough alone. The cuts left are made and noted in the contract's order.
// It returns the P1 blocks kept and the new total, or refuse true when
// the targets, sliced, are over the hard limit by themselves: then every
// slice is made (and noted) and the total is the refusal's estimate.
func (e *env) fitHard(p0, targets, keep1 []*item, total int, t *trail) (kept []*item, newTotal int, refuse bool) {
	p := newHardPlan(total)
	for i := len(keep1) - 1; i >= 0; i-- {
		if c, ok := e.sliceCut(keep1[i], LevelSignatures, "P1"); ok {
			p.add(c)
		}
	}
	fits := p.takeUntil(0, e.limits.hard)
	if !fits {
		from := len(p.cuts)
		for i := len(targets) - 1; i >= 0; i-- {
			if c, ok := e.sliceCut(targets[i], LevelRegion, "target"); ok {
				p.add(c)
			}
		}
		fits = p.takeUntil(from, e.limits.hard)
	}
	if !fits {
		if e.tokensOf(p0)-p.savedOn(targets) > e.limits.hard {
			p.apply(e, t)
			return keep1, p.total, true
		}
		from := len(p.cuts)
		for i := len(keep1) - 1; i >= 0; i-- {
			p.add(cut{it: keep1[i], what: "P1", to: -1, from: e.rendered(keep1[i]).tokens})
		}
		p.takeUntil(from, e.limits.hard)
	}
	back := p.minimize(e.limits.hard)
	removed := p.apply(e, t)
	if len(back) > 0 {
		t.note("fit: %s earlier in that order not made: the cuts above alone bring the total within the hard limit of %d tokens", describeCuts(back), e.limits.hard)
	}
	kept = slices.DeleteFunc(slices.Clone(keep1), func(it *item) bool { return slices.Contains(removed, it) })
	return kept, p.total, false
}

// savedOn is what the taken slices of the given blocks save.
func (p *hardPlan) savedOn(blocks []*item) int {
	n := 0
	for i := range p.cuts {
		if c := &p.cuts[i]; p.taken[i] && !c.removal() && slices.Contains(blocks, c.it) {
			n += c.from - c.after
		}
	}
	return n
}

// apply makes the taken cuts in order: a slice sets the block's level, a
// removal records the block's exclusion. Each is noted with the total it
// leaves, so the report shows the total checked after every cut. It
// returns the blocks removed.
func (p *hardPlan) apply(e *env, t *trail) []*item {
	total := p.base
	var removed []*item
	first := true
	for i := range p.cuts {
		if !p.taken[i] {
			continue
		}
		if first {
			first = false
			t.note("fit: the required blocks (P0 and P1) need %d tokens, over the hard limit of %d: cut one block at a time in the contract's order, last ranked first, until they fit", p.base, e.limits.hard)
		}
		c := &p.cuts[i]
		before := total
		total -= p.saving(i)
		if c.removal() {
			t.dropForBudget(c.it, hardLimit, e.limits)
			t.note("fit: removed %s block %s (%d tokens, total %d -> %d)", c.what, c.it.label(), before-total, before, total)
			removed = append(removed, c.it)
			continue
		}
		c.it.level = c.to
		t.note("fit: sliced %s block %s to %s (%d -> %d tokens, total %d -> %d)", c.what, c.it.label(), c.it.levels[c.to], c.from, c.after, before, total)
	}
	return removed
}

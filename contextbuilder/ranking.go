package contextbuilder

import (
	"slices"
	"strings"
)

// Base weights of Step 2 (seed 002).
const (
	weightTarget     = 100
	weightSymbolFile = 90
	weightDependency = 60
	weightBaseType   = 55
	weightCaller     = 40
	weightConfig     = 30
	weightOther      = 0
)

// duplicatePenalty is Step 2's duplicate-signal penalty.
const duplicatePenalty = 5

// ranked is the output of the ranking step (seed 002 Step 2): the
// targets and the related candidates in rank order.
type ranked struct {
	scope
	trail
	// targets are the targets in rank order (scope.targets keeps them by
	// path).
	targets []*item
	related []*item
	thread  []*item
}

// rankCandidates runs the ranking step.
func rankCandidates(s screened) ranked {
	return ranked{
		scope:   s.scope,
		trail:   s.trail,
		targets: rankTargets(s.targets),
		related: rankRelated(s.related, s.targets),
		thread:  s.thread,
	}
}

// rankTargets returns the targets in rank order: score (weight minus the
// size penalty), smaller byte_size, path.
func rankTargets(targets []*item) []*item {
	out := slices.Clone(targets)
	for _, t := range out {
		t.score = t.baseScore()
	}
	sortRanked(out)
	return out
}

// rankRelated computes Step 2's score for every related candidate and
// returns them sorted: higher score, lower hops, smaller byte_size, path,
// then symbol as the final tie-breakers. The duplicate-signal penalty
// applies to a candidate whose file is already represented by a
// better-ranked one (or by a target), so it is applied in rank order and
// the candidates sorted again.
func rankRelated(related, targets []*item) []*item {
	out := slices.Clone(related)
	for _, it := range out {
		it.score = it.baseScore()
	}
	sortRanked(out)
	seen := map[string]bool{}
	for _, t := range targets {
		seen[t.path] = true
	}
	for _, it := range out {
		if seen[it.path] {
			it.score -= duplicatePenalty
		}
		seen[it.path] = true
	}
	sortRanked(out)
	return out
}

// baseScore is Step 2's score before the duplicate-signal penalty: the
// base weight, the size penalty and the distance penalty.
func (it *item) baseScore() int {
	s := it.weight - min(30, int(it.file.ByteSize/200_000))
	if it.hops > 1 {
		s -= 10 * (it.hops - 1)
	}
	return s
}

func sortRanked(items []*item) {
	slices.SortStableFunc(items, func(a, b *item) int {
		switch {
		case a.score != b.score:
			return cmpInt(b.score, a.score)
		case a.hops != b.hops:
			return cmpInt(a.hops, b.hops)
		case a.file.ByteSize != b.file.ByteSize:
			return cmpInt(int(a.file.ByteSize), int(b.file.ByteSize))
		}
		if c := strings.Compare(a.path, b.path); c != 0 {
			return c
		}
		if c := strings.Compare(a.symbol, b.symbol); c != 0 {
			return c
		}
		return cmpInt(a.symIdx, b.symIdx)
	})
}

package ledger

import (
	"sort"
)

// source is what resolution and the event checks read: the events of one
// journal by position, the ref lookups of seed 000, and what the store
// recorded for a DECISION. Positions are line numbers, 0-based, which equal
// event_index on every line that verifies. memSource serves the in-memory
// stream (transactions, stream replay); sqlSource serves the SQLite
// projection (ledger replay) with SQL queries.
type source interface {
	// event returns the readable event at pos (see decodeEvent); ok is
	// false out of range or when the line there is not a readable event.
	event(pos int) (ev Event, ok bool, err error)
	// find answers one ref lookup.
	find(q refQuery) (refHit, error)
	// decision returns what the store recorded for the DECISION at pos,
	// whose payload decoded to dp.
	decision(pos int, dp DecisionPayload) (decisionRecord, error)
}

// refQuery asks for the latest event of a kind, at a position below before,
// whose turn_id (or correlation_id when byCorrelation) is key, preferring
// thread.
type refQuery struct {
	kind          Kind
	byCorrelation bool
	key           string
	thread        string
	before        int
}

// refHit answers a refQuery: found with the position and digest of the
// latest match in the thread; otherwise elsewhere reports whether a match
// exists in another thread.
type refHit struct {
	found     bool
	pos       int
	digest    string
	elsewhere bool
}

// decisionRecord is what a store holds for one DECISION; the stream reads
// it from the payload, the projection from its decisions and resolved_refs
// tables.
type decisionRecord struct {
	intentIndex   int
	result        string
	reason        string
	contextDigest string
	configDigest  string
	bundle        *BundleRef
	resolved      []ResolvedRef
}

// memSource is a source over decoded events: base followed by extra (the
// drafts of a transaction). An Event with Kind "" is an unreadable line.
// Without an index, find scans backwards: a transaction resolves a few refs
// once, while replay indexes every event first.
type memSource struct {
	base, extra []Event
	idx         map[refKey][]int // positions, ascending; nil until buildIndex
}

// refKey keys the lookup index; thread "" collects every thread.
type refKey struct {
	kind          Kind
	byCorrelation bool
	key           string
	thread        string
}

func (m *memSource) len() int { return len(m.base) + len(m.extra) }

func (m *memSource) at(pos int) Event {
	if pos < len(m.base) {
		return m.base[pos]
	}
	return m.extra[pos-len(m.base)]
}

func (m *memSource) event(pos int) (Event, bool, error) {
	if pos < 0 || pos >= m.len() {
		return Event{}, false, nil
	}
	ev := m.at(pos)
	return ev, ev.Kind != "", nil
}

// buildIndex indexes every readable event for find. Map order never reaches
// a result: each list is in position order.
func (m *memSource) buildIndex() {
	m.idx = make(map[refKey][]int)
	for pos := 0; pos < m.len(); pos++ {
		ev := m.at(pos)
		if ev.Kind == "" {
			continue
		}
		for _, k := range []refKey{
			{kind: ev.Kind, key: ev.TurnID, thread: ev.ThreadID},
			{kind: ev.Kind, key: ev.TurnID},
			{kind: ev.Kind, byCorrelation: true, key: ev.CorrelationID, thread: ev.ThreadID},
			{kind: ev.Kind, byCorrelation: true, key: ev.CorrelationID},
		} {
			m.idx[k] = append(m.idx[k], pos)
		}
	}
}

func (m *memSource) find(q refQuery) (refHit, error) {
	before := min(q.before, m.len())
	if m.idx == nil {
		var hit refHit
		for pos := before - 1; pos >= 0; pos-- {
			ev := m.at(pos)
			if ev.Kind != q.kind || keyOf(ev, q.byCorrelation) != q.key {
				continue
			}
			if ev.ThreadID == q.thread {
				return refHit{found: true, pos: pos, digest: ev.Digest}, nil
			}
			hit.elsewhere = true
		}
		return hit, nil
	}
	below := func(list []int) int { return sort.SearchInts(list, before) }
	k := refKey{kind: q.kind, byCorrelation: q.byCorrelation, key: q.key, thread: q.thread}
	if list := m.idx[k]; below(list) > 0 {
		pos := list[below(list)-1]
		return refHit{found: true, pos: pos, digest: m.at(pos).Digest}, nil
	}
	k.thread = ""
	return refHit{elsewhere: below(m.idx[k]) > 0}, nil
}

func keyOf(ev Event, byCorrelation bool) string {
	if byCorrelation {
		return ev.CorrelationID
	}
	return ev.TurnID
}

func (m *memSource) decision(_ int, dp DecisionPayload) (decisionRecord, error) {
	return decisionRecord{
		intentIndex:   dp.IntentIndex,
		result:        dp.Result,
		reason:        dp.Reason,
		contextDigest: dp.ContextDigest,
		configDigest:  dp.Boundary.ContextConfigDigest,
		bundle:        dp.Bundle,
		resolved:      dp.ContextSpec.Retrieval.ResolvedRefs,
	}, nil
}

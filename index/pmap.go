package index

import (
	"maps"
	"slices"
	"sync/atomic"
)

// compactAt is the delta size at which a layered map folds its delta into a
// new base. Below it an edit copies only the delta (cheap on every
// keystroke); at it one edit pays for a full copy, amortized over compactAt
// edits.
const compactAt = 64

// layered is an immutable map from workspace paths to values built for
// copy-on-write: a large shared base plus a small delta of overrides, where a
// nil value in the delta deletes the base entry. With returns a new layered
// map and never changes the receiver, so snapshots can share bases freely.
type layered[V any] struct {
	base  map[string]V
	delta map[string]*V // nil pointer: deleted
	n     int           // number of live entries

	keys atomic.Pointer[[]string] // sorted keys, computed on first use
}

func newLayered[V any](m map[string]V) *layered[V] {
	if m == nil {
		m = map[string]V{}
	}
	return &layered[V]{base: m, n: len(m)}
}

// Get returns the value stored under k.
func (l *layered[V]) Get(k string) (V, bool) {
	if p, ok := l.delta[k]; ok {
		if p == nil {
			var zero V
			return zero, false
		}
		return *p, true
	}
	v, ok := l.base[k]
	return v, ok
}

// Len returns the number of entries.
func (l *layered[V]) Len() int { return l.n }

// With returns a copy of l where k maps to v; del removes k instead.
func (l *layered[V]) With(k string, v V, del bool) *layered[V] {
	_, had := l.Get(k)
	n := l.n
	switch {
	case del && had:
		n--
	case !del && !had:
		n++
	case del && !had:
		return l
	}
	delta := make(map[string]*V, len(l.delta)+1)
	maps.Copy(delta, l.delta)
	if del {
		if _, inBase := l.base[k]; inBase {
			delta[k] = nil
		} else {
			delete(delta, k)
		}
	} else {
		vv := v
		delta[k] = &vv
	}
	out := &layered[V]{base: l.base, delta: delta, n: n}
	if len(delta) >= compactAt {
		out = out.compact()
	}
	if had && !del {
		// Same key set: an edit of an open file must not re-sort the
		// workspace's paths on every keystroke.
		out.keys.Store(l.keys.Load())
	}
	return out
}

func (l *layered[V]) compact() *layered[V] {
	base := make(map[string]V, l.n)
	l.Range(func(k string, v V) { base[k] = v })
	return newLayered(base)
}

// Range calls f for every entry in unspecified order; callers that produce
// output must sort (or use Keys).
func (l *layered[V]) Range(f func(k string, v V)) {
	for k, v := range l.base {
		if _, over := l.delta[k]; over {
			continue
		}
		f(k, v)
	}
	for k, p := range l.delta {
		if p != nil {
			f(k, *p)
		}
	}
}

// Keys returns the sorted keys, computed on first use and shared with the
// maps derived by replacing a value: callers must not modify the slice.
// Concurrent first calls may both compute it; they store equal slices.
func (l *layered[V]) Keys() []string {
	if k := l.keys.Load(); k != nil {
		return *k
	}
	keys := make([]string, 0, l.n)
	l.Range(func(k string, _ V) { keys = append(keys, k) })
	slices.Sort(keys)
	l.keys.Store(&keys)
	return keys
}

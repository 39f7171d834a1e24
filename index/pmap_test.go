package index

import (
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestLayeredMatchesMap applies random sets and deletes to a layered map
// and a plain map and compares them after every step, across compactions;
// older versions must keep their contents (immutability).
func TestLayeredMatchesMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	l := newLayered[int](nil)
	ref := map[string]int{}
	type version struct {
		l   *layered[int]
		ref map[string]int
	}
	var versions []version
	for step := range 2000 {
		k := strconv.Itoa(rng.IntN(150))
		if rng.IntN(4) == 0 {
			l = l.With(k, 0, true)
			delete(ref, k)
		} else {
			l = l.With(k, step, false)
			ref[k] = step
		}
		if rng.IntN(3) == 0 {
			l.Keys() // computed keys must follow later edits correctly
		}
		if step%97 == 0 {
			versions = append(versions, version{l, maps.Clone(ref)})
		}
		if l.Len() != len(ref) {
			t.Fatalf("step %d: Len %d, want %d", step, l.Len(), len(ref))
		}
		if diff := cmp.Diff(slices.Sorted(maps.Keys(ref)), l.Keys(), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("step %d: keys (-want +got):\n%s", step, diff)
		}
	}
	for i, v := range versions {
		got := map[string]int{}
		v.l.Range(func(k string, x int) { got[k] = x })
		if diff := cmp.Diff(v.ref, got); diff != "" {
			t.Errorf("version %d changed (-want +got):\n%s", i, diff)
		}
		for k, want := range v.ref {
			if x, ok := v.l.Get(k); !ok || x != want {
				t.Errorf("version %d: Get(%s) = %d, %v; want %d", i, k, x, ok, want)
			}
		}
	}
}

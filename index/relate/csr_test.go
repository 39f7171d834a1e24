package relate

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBuildCSR checks that a table built from names first and items
// replayed after lists each name's items in the order they came, and
// that a replay of another length is refused.
func TestBuildCSR(t *testing.T) {
	type pair struct {
		name string
		item int32
	}
	in := []pair{{"b", 1}, {"a", 2}, {"b", 3}, {"c", 4}, {"a", 5}, {"b", 6}}
	b := newCSRBuilder(len(in))
	for _, p := range in {
		b.add(p.name)
	}
	c := buildCSR(b, func(put func(int32)) {
		for _, p := range in {
			put(p.item)
		}
	})
	for _, tt := range []struct {
		name string
		want []int32
	}{
		{"a", []int32{2, 5}},
		{"b", []int32{1, 3, 6}},
		{"c", []int32{4}},
		{"d", nil},
	} {
		if diff := cmp.Diff(tt.want, c.get(tt.name)); diff != "" {
			t.Errorf("get(%q) (-want +got):\n%s", tt.name, diff)
		}
	}
	if c.names() != 3 {
		t.Errorf("names() = %d, want 3", c.names())
	}

	short := newCSRBuilder(2)
	short.add("x")
	short.add("y")
	defer func() {
		if recover() == nil {
			t.Error("a replay of fewer items than names was accepted")
		}
	}()
	buildCSR(short, func(put func(int32)) { put(1) })
}

package contextbuilder

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestHardPlan checks the choice of cuts on made-up token counts: cuts
// are taken in the contract's order until the total fits, then every
// earlier cut the total fits without is given back, most important
// first.
func TestHardPlan(t *testing.T) {
	// The required blocks take 1,000 tokens: the fixed blocks 100, the
	// target tg 400, and the P1 blocks a 200 and b 300, a ranked below b.
	// The contract's order: P1 slices last ranked first, the target's
	// slice, then P1 removals last ranked first.
	a, b, tg := &item{symbol: "a"}, &item{symbol: "b"}, &item{path: "t.go"}
	bigSlices := []cut{
		{it: a, what: "P1", to: 1, from: 200, after: 150},
		{it: b, what: "P1", to: 1, from: 300, after: 100},
		{it: tg, what: "target", to: 1, from: 400, after: 100},
	}
	smallSlices := []cut{
		{it: a, what: "P1", to: 1, from: 200, after: 150},
		{it: b, what: "P1", to: 1, from: 300, after: 280},
		{it: tg, what: "target", to: 1, from: 400, after: 100},
	}
	removals := []cut{
		{it: a, what: "P1", to: -1, from: 200},
		{it: b, what: "P1", to: -1, from: 300},
	}
	tests := []struct {
		name      string
		slices    []cut
		limit     int
		wantTaken []bool // slices, then removals when the slices are not enough
		wantTotal int
		wantBack  string
	}{
		{
			name:      "fits uncut",
			slices:    bigSlices,
			limit:     1000,
			wantTaken: []bool{false, false, false},
			wantTotal: 1000,
		},
		{
			name:      "the lowest-ranked slice is enough",
			slices:    bigSlices,
			limit:     960,
			wantTaken: []bool{true, false, false},
			wantTotal: 950,
		},
		{
			// a's slice is not enough; once b is sliced it is not needed.
			name:      "a lower-ranked slice given back",
			slices:    bigSlices,
			limit:     900,
			wantTaken: []bool{false, true, false},
			wantTotal: 800,
			wantBack:  "1 P1 slice",
		},
		{
			name:      "target slice alone",
			slices:    bigSlices,
			limit:     700,
			wantTaken: []bool{false, false, true},
			wantTotal: 700,
			wantBack:  "2 P1 slices",
		},
		{
			// With the target sliced, b's slice is not needed and a's is:
			// the lowest-ranked block is the one cut.
			name:      "target slice and the lowest-ranked slice",
			slices:    bigSlices,
			limit:     680,
			wantTaken: []bool{true, false, true},
			wantTotal: 650,
			wantBack:  "1 P1 slice",
		},
		{
			// Everything sliced is 630; removing a (at 150) is enough. a's
			// slice goes back silently (a is removed whole), b's is not
			// needed.
			name:      "the lowest-ranked removal",
			slices:    smallSlices,
			limit:     500,
			wantTaken: []bool{false, false, true, true, false},
			wantTotal: 500,
			wantBack:  "1 P1 slice",
		},
		{
			// Removing a is not enough, removing b is; then a comes back,
			// sliced.
			name:      "a removal given back",
			slices:    smallSlices,
			limit:     350,
			wantTaken: []bool{true, false, true, false, true},
			wantTotal: 350,
			wantBack:  "1 P1 removal",
		},
		{
			name:      "a removal and a slice given back",
			slices:    smallSlices,
			limit:     400,
			wantTaken: []bool{false, false, true, false, true},
			wantTotal: 400,
			wantBack:  "1 P1 slice and 1 P1 removal",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newHardPlan(1000)
			for _, c := range tt.slices {
				p.add(c)
			}
			fits := p.takeUntil(0, tt.limit)
			if !fits {
				for _, c := range removals {
					p.add(c)
				}
				fits = p.takeUntil(len(tt.slices), tt.limit)
			}
			if !fits {
				t.Fatalf("does not fit %d: total %d", tt.limit, p.total)
			}
			back := describeCuts(p.minimize(tt.limit))
			if diff := cmp.Diff(tt.wantTaken, p.taken); diff != "" {
				t.Errorf("cuts taken (-want +got):\n%s", diff)
			}
			if p.total != tt.wantTotal {
				t.Errorf("total %d, want %d", p.total, tt.wantTotal)
			}
			if back != tt.wantBack {
				t.Errorf("given back %q, want %q", back, tt.wantBack)
			}
			// The total kept as cuts are taken and given back is the one
			// the taken cuts make from scratch.
			want := p.base
			for i := range p.cuts {
				if p.taken[i] {
					want -= p.saving(i)
				}
			}
			if p.total != want {
				t.Errorf("incremental total %d, from scratch %d", p.total, want)
			}
		})
	}
}

package contextbuilder_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/contextbuilder"
)

// fitFiles is a workspace whose target file is far over a small budget
// while its target symbol is not: app.Target uses lib.Near (ranked first:
// its file is smaller) and lib.Far (ranked last), whose bodies are long,
// and package use has three callers of app.Target, ranked by size.
func fitFiles() []string {
	body := func(name string, lines int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "// %s adds up a few numbers.\nfunc %s(x int) int {\n\ts := x\n", name, name)
		for i := range lines {
			fmt.Fprintf(&b, "\ts += %d * x // line %d of a body long enough to be worth slicing away\n", i, i)
		}
		b.WriteString("\treturn s\n}\n")
		return b.String()
	}
	caller := func(name string, lines int) string {
		return "package use\n\nimport \"example.com/fit/app\"\n\n" + body(name+"Pad", lines) + "\n// " + name + " calls the target.\nfunc " + name + "() int { return app.Target() }\n"
	}
	return []string{
		"go.mod", "module example.com/fit\n\ngo 1.22\n",
		"lib/near.go", "package lib\n\n" + body("Near", 6),
		"lib/far.go", "package lib\n\n" + body("Far", 12) + "\n// Unused pads the file.\nfunc Unused() {}\n",
		"app/target.go", "package app\n\nimport \"example.com/fit/lib\"\n\n// Target is what the step changes.\nfunc Target() int { return lib.Near(1) + lib.Far(2) }\n\n" + body("Padding", 120),
		"use/a.go", caller("A", 2),
		"use/b.go", caller("B", 20),
		"use/c.go", caller("C", 120),
	}
}

// fitOutcome is what TestFitMinimal compares of a build.
type fitOutcome struct {
	Tokens   int
	Decision contextbuilder.Decision
	// Sliced are the titles of the sliced blocks, in bundle order.
	Sliced []string
	// Optional are the paths of the P2 blocks sent, in bundle order.
	Optional []string
	// Removed are the targets of the block_removed/budget entries.
	Removed []string
	// Notes are the fit step's notes, in order.
	Notes []string
}

// TestFitMinimal: a target far over a small budget and a target symbol
// well within it. Before issue 29 every P1 block was sliced before the
// target and no caller was sent (243 tokens at every budget below the
// required blocks' 3,185): now fit cuts one block at a time, lowest rank
// first, keeps only the cuts the bundle needs, and gives the room left
// to the optional blocks in rank order.
func TestFitMinimal(t *testing.T) {
	const need = "fit: the required blocks (P0 and P1) need 3185 tokens, over the hard limit of %d: cut one block at a time in the contract's order, last ranked first, until they fit"
	const (
		sliceFar    = "fit: sliced P1 block Far in lib/far.go to SIGNATURES_ONLY (288 -> 24 tokens, total 3185 -> 2921)"
		target      = "app/target.go (TARGET_REGION_ONLY: lines 5-6 of 132)"
		far, near   = "function Far in lib/far.go (line 4) (SIGNATURES_ONLY)", "function Near in lib/near.go (line 4) (SIGNATURES_ONLY)"
		removedOpts = "fit: removed %d optional (P2/P3) candidates in reverse rank order to stay within the soft limit of %d tokens"
	)
	tests := []struct {
		name           string
		maxInputTokens int
		want           fitOutcome
	}{
		{
			// Within the hard limit uncut: nothing is cut, and nothing
			// optional fits the soft limit.
			name:           "no cut",
			maxInputTokens: 3300,
			want: fitOutcome{
				Tokens: 3185, Decision: contextbuilder.DecisionWarn,
				Removed: []string{"use/a.go", "use/b.go", "use/c.go"},
				Notes:   []string{fmt.Sprintf(removedOpts, 3, 2640)},
			},
		},
		{
			// Slicing the lowest-ranked P1 block is enough: the target
			// and Near stay whole.
			name:           "lowest-ranked slice only",
			maxInputTokens: 3000,
			want: fitOutcome{
				Tokens: 2921, Decision: contextbuilder.DecisionWarn,
				Sliced:  []string{"function Far in lib/far.go (line 4) (SIGNATURES_ONLY)"},
				Removed: []string{"use/a.go", "use/b.go", "use/c.go"},
				Notes:   []string{fmt.Sprintf(need, 3000), sliceFar, fmt.Sprintf(removedOpts, 3, 2400)},
			},
		},
		{
			// The target's slice alone fits: the P1 slices before it are
			// not made, and two callers fill the room, best ranked
			// first; use/c.go does not fit. (go.mod is no candidate:
			// the step does not concern the build.)
			name:           "target slice alone, callers in rank order",
			maxInputTokens: 2000,
			want: fitOutcome{
				Tokens: 1215, Decision: contextbuilder.DecisionOK,
				Sliced:   []string{target},
				Optional: []string{"use/a.go", "use/b.go"},
				Removed:  []string{"use/c.go"},
				Notes: []string{
					fmt.Sprintf(need, 2000),
					"fit: sliced target block app/target.go to TARGET_REGION_ONLY (2585 -> 45 tokens, total 3185 -> 645)",
					"fit: 2 P1 slices earlier in that order not made: the cuts above alone bring the total within the hard limit of 2000 tokens",
					"fit: added 2 optional (P2/P3) blocks in rank order in the room the cuts left, within the soft limit of 1600 tokens (total 1215)",
					fmt.Sprintf(removedOpts, 1, 1600),
				},
			},
		},
		{
			// With the target sliced, Far's slice is still needed and
			// Near's is not.
			name:           "target slice and the lowest-ranked slice",
			maxInputTokens: 400,
			want: fitOutcome{
				Tokens: 381, Decision: contextbuilder.DecisionWarn,
				Sliced:  []string{target, far},
				Removed: []string{"use/a.go", "use/b.go", "use/c.go"},
				Notes: []string{
					fmt.Sprintf(need, 400),
					sliceFar,
					"fit: sliced target block app/target.go to TARGET_REGION_ONLY (2585 -> 45 tokens, total 2921 -> 381)",
					"fit: 1 P1 slice earlier in that order not made: the cuts above alone bring the total within the hard limit of 400 tokens",
					fmt.Sprintf(removedOpts, 3, 320),
				},
			},
		},
		{
			// Everything sliced is still over: the lowest-ranked P1
			// block goes, whole, since its slice is then not needed.
			name:           "removal",
			maxInputTokens: 230,
			want: fitOutcome{
				Tokens: 219, Decision: contextbuilder.DecisionWarn,
				Sliced:  []string{target, near},
				Removed: []string{"lib/far.go", "use/a.go", "use/b.go", "use/c.go"},
				Notes: []string{
					fmt.Sprintf(need, 230),
					"fit: sliced P1 block Near in lib/near.go to SIGNATURES_ONLY (162 -> 24 tokens, total 3185 -> 3047)",
					"fit: sliced target block app/target.go to TARGET_REGION_ONLY (2585 -> 45 tokens, total 3047 -> 507)",
					"fit: removed P1 block Far in lib/far.go (288 tokens, total 507 -> 219)",
					fmt.Sprintf(removedOpts, 3, 184),
				},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := &contextbuilder.Request{
				Purpose:  contextbuilder.PurposeDiff,
				PlanStep: &contextbuilder.PlanStep{ID: "s1", TargetFiles: []string{"app/target.go"}, TargetSymbols: []string{"Target"}},
				Model:    &contextbuilder.ModelRequest{MaxInputTokens: intp(tt.maxInputTokens), ResponseTokenReserve: intp(0)},
			}
			res, err := buildText(t, req, fitFiles()...)
			if err != nil {
				t.Fatal(err)
			}
			br := res.BudgetReport
			got := fitOutcome{Tokens: br.EstimatedInputTokens, Decision: br.Decision}
			for _, b := range res.Bundle.Blocks {
				if strings.Contains(b.Title, "SIGNATURES_ONLY") || strings.Contains(b.Title, "TARGET_REGION_ONLY") {
					got.Sliced = append(got.Sliced, b.Title)
				}
				if b.Priority == contextbuilder.P2 {
					got.Optional = append(got.Optional, deref(b.Meta.Path))
				}
			}
			sliced := map[string]bool{}
			for _, r := range res.RedactionReport.Redactions {
				switch {
				case r.Type == contextbuilder.RedactBlockRemoved && r.Reason == contextbuilder.RedactReasonBudget:
					got.Removed = append(got.Removed, r.Target)
				case r.Type == contextbuilder.RedactContentSliced && r.Reason == contextbuilder.RedactReasonBudget:
					sliced[r.Target] = true
				}
			}
			for _, n := range br.Notes {
				if strings.HasPrefix(n, "fit: ") {
					got.Notes = append(got.Notes, n)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("fit (-want +got):\n%s", diff)
			}
			if br.EstimatedInputTokens > br.HardLimitTokens {
				t.Errorf("estimated %d tokens, over the hard limit %d", br.EstimatedInputTokens, br.HardLimitTokens)
			}
			// Every sliced block has its content_sliced entry, with
			// reason budget.
			for _, b := range res.Bundle.Blocks {
				if slices.Contains(got.Sliced, b.Title) && !sliced[deref(b.Meta.Path)] {
					t.Errorf("%s is sliced without a content_sliced/budget entry", b.Title)
				}
			}
		})
	}
}

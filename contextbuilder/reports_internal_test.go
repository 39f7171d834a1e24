package contextbuilder

import (
	"fmt"
	"math/rand/v2"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// covers reports whether a group pattern ("dir/*", "dir/**", "*", "**")
// stands for path p.
func covers(pattern, p string) bool {
	dir := path.Dir(p)
	switch {
	case pattern == "**":
		return true
	case pattern == "*":
		return dir == "."
	case strings.HasSuffix(pattern, "/**"):
		prefix := strings.TrimSuffix(pattern, "**")
		return strings.HasPrefix(p, prefix)
	case strings.HasSuffix(pattern, "/*"):
		return dir == strings.TrimSuffix(pattern, "/*")
	}
	return false
}

// patternOf is the pattern of a grouped excluded candidate's path.
func patternOf(e Excluded) string {
	i := strings.LastIndex(e.Path, " (")
	return e.Path[:i]
}

func TestGroupExcludedSmallUnchanged(t *testing.T) {
	var ex []Excluded
	// 100 of one reason and 100 of another: no reason is over the
	// threshold, however long the list.
	for i := range groupThreshold {
		ex = append(ex, Excluded{Path: fmt.Sprintf("a/f%03d.go", i), Reason: ExcludeTokenBudget})
		ex = append(ex, Excluded{Path: fmt.Sprintf("a/f%03d.go", i), Reason: ExcludePolicy})
	}
	slices.SortFunc(ex, compareExcluded)
	want := slices.Clone(ex)
	if diff := cmp.Diff(want, groupExcluded(ex)); diff != "" {
		t.Errorf("a list without a long reason changed (-want +got):\n%s", diff)
	}
	var rs []Redaction
	for i := range groupThreshold {
		rs = append(rs, Redaction{Type: RedactBlockRemoved, Target: fmt.Sprintf("a/f%03d.go", i), Reason: RedactReasonBudget, Details: "removed"})
		rs = append(rs, Redaction{Type: RedactContentSliced, Target: fmt.Sprintf("a/f%03d.go", i), Reason: RedactReasonBudget, Details: "sliced"})
	}
	slices.SortFunc(rs, compareRedactions)
	wantRs := slices.Clone(rs)
	if diff := cmp.Diff(wantRs, groupRedactions(rs)); diff != "" {
		t.Errorf("a report without a long type and reason changed (-want +got):\n%s", diff)
	}
}

// TestGroupExcludedTable: the few groups it takes, largest directory
// first; other reasons and single entries as they are.
func TestGroupExcludedTable(t *testing.T) {
	var ex []Excluded
	for i := range 60 {
		ex = append(ex, Excluded{Path: fmt.Sprintf("big/f%02d.go", i), Reason: ExcludeTokenBudget})
	}
	for i := range 41 {
		ex = append(ex, Excluded{Path: fmt.Sprintf("small/f%02d.go", i), Reason: ExcludeTokenBudget})
	}
	ex = append(ex, Excluded{Path: "secret.env", Reason: ExcludeDenyRule})
	slices.SortFunc(ex, compareExcluded)
	got := groupExcluded(ex)
	want := []Excluded{{Path: "big/* (60 candidates)", Reason: ExcludeTokenBudget}, {Path: "secret.env", Reason: ExcludeDenyRule}}
	for i := range 41 {
		want = append(want, Excluded{Path: fmt.Sprintf("small/f%02d.go", i), Reason: ExcludeTokenBudget})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("groupExcluded (-want +got):\n%s", diff)
	}
}

// randomTree is n paths in a random tree of directories up to depth 5.
func randomTree(r *rand.Rand, n int) []string {
	seen := map[string]bool{}
	var out []string
	for len(out) < n {
		var segs []string
		for range r.IntN(6) {
			segs = append(segs, fmt.Sprintf("d%d", r.IntN(4)))
		}
		segs = append(segs, fmt.Sprintf("f%d.go", r.IntN(50)))
		p := strings.Join(segs, "/")
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// TestGroupHugeLists: a list of thousands of candidates is cut to at most
// groupThreshold entries per reason, every candidate is in exactly one
// entry, the counts add up, the result is sorted, and the same candidates
// in any order give the same entries.
func TestGroupHugeLists(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{groupThreshold + 1, 500, 5000} {
		paths := randomTree(r, n)
		var ex []Excluded
		var rs []Redaction
		for i, p := range paths {
			reason := ExcludeTokenBudget
			if i%50 == 0 {
				reason = ExcludeSecretRisk // a short reason: kept as it is
			}
			ex = append(ex, Excluded{Path: p, Reason: reason})
			rs = append(rs, Redaction{Type: RedactBlockRemoved, Target: p, Reason: RedactReasonBudget, Details: "removed " + p})
		}
		group := func(ex []Excluded, rs []Redaction) ([]Excluded, []Redaction) {
			ex, rs = slices.Clone(ex), slices.Clone(rs)
			slices.SortFunc(ex, compareExcluded)
			slices.SortFunc(rs, compareRedactions)
			return groupExcluded(ex), groupRedactions(rs)
		}
		gotEx, gotRs := group(ex, rs)
		r.Shuffle(len(ex), func(i, j int) { ex[i], ex[j] = ex[j], ex[i] })
		r.Shuffle(len(rs), func(i, j int) { rs[i], rs[j] = rs[j], rs[i] })
		againEx, againRs := group(ex, rs)
		if diff := cmp.Diff(gotEx, againEx); diff != "" {
			t.Fatalf("n=%d: grouping depends on the input order (-first +second):\n%s", n, diff)
		}
		if diff := cmp.Diff(gotRs, againRs); diff != "" {
			t.Fatalf("n=%d: grouping depends on the input order (-first +second):\n%s", n, diff)
		}
		if !slices.IsSortedFunc(gotEx, compareExcluded) || !slices.IsSortedFunc(gotRs, compareRedactions) {
			t.Errorf("n=%d: grouped lists are not sorted", n)
		}

		perReason, total := map[ExcludeReason]int{}, map[ExcludeReason]int{}
		for _, e := range gotEx {
			perReason[e.Reason]++
			total[e.Reason] += e.Count()
		}
		for _, e := range ex {
			total[e.Reason]--
		}
		for reason, n := range perReason {
			if n > groupThreshold {
				t.Errorf("%d entries of reason %s after grouping", n, reason)
			}
			if total[reason] != 0 {
				t.Errorf("counts of reason %s are off by %d", reason, total[reason])
			}
		}
		for _, e := range ex {
			matched := 0
			for _, g := range gotEx {
				switch {
				case g.Reason != e.Reason:
				case g.Count() == 1 && g.Path == e.Path:
					matched++
				case g.Count() > 1 && covers(patternOf(g), e.Path):
					matched++
				}
			}
			if matched != 1 {
				t.Errorf("n=%d: candidate %s (%s) is in %d entries, want 1", n, e.Path, e.Reason, matched)
			}
		}

		if len(gotRs) > groupThreshold {
			t.Errorf("n=%d: %d redaction entries after grouping", n, len(gotRs))
		}
		sum := 0
		for _, g := range gotRs {
			sum += g.Count()
			if g.Count() > 1 && !strings.HasPrefix(g.Details, fmt.Sprintf("%d entries grouped (more than %d block_removed entries with reason budget are grouped by directory); first: removed ", g.Count(), groupThreshold)) {
				t.Errorf("group details: %q", g.Details)
			}
		}
		if sum != len(rs) {
			t.Errorf("n=%d: redaction groups count %d entries, want %d", n, sum, len(rs))
		}
		for _, x := range rs {
			matched := 0
			for _, g := range gotRs {
				if g.Count() == 1 && g == x || g.Count() > 1 && covers(g.Target, x.Target) {
					matched++
				}
			}
			if matched != 1 {
				t.Errorf("n=%d: redaction of %s is in %d entries, want 1", n, x.Target, matched)
			}
		}
	}
}

func TestCount(t *testing.T) {
	tests := []struct {
		name string
		e    Excluded
		r    Redaction
		want int
	}{
		{"a path", Excluded{Path: "a/b.go"}, Redaction{Target: "a/b.go", Details: "P2 caller a/b.go: not included"}, 1},
		{"a group", Excluded{Path: "a/* (12 candidates)"}, Redaction{Target: "a/*", Details: "12 entries grouped (more than 100 …); first: x"}, 12},
		{"a deep group", Excluded{Path: "a/** (3 candidates)"}, Redaction{Target: "**", Details: "3 entries grouped (…)"}, 3},
		{"a file named like a group", Excluded{Path: "a/b (12 candidates)"}, Redaction{Target: "a/b", Details: "12 entries grouped (…)"}, 1},
		{"not a number", Excluded{Path: "a/* (x candidates)"}, Redaction{Target: "a/*", Details: "x entries grouped (…)"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.e.Count(); got != tt.want {
				t.Errorf("Excluded{%q}.Count() = %d, want %d", tt.e.Path, got, tt.want)
			}
			if got := tt.r.Count(); got != tt.want {
				t.Errorf("Redaction{%q, %q}.Count() = %d, want %d", tt.r.Target, tt.r.Details, got, tt.want)
			}
		})
	}
}

package main

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// nan marks a figure that is undefined for the inputs.
var nan = math.NaN()

func TestScore(t *testing.T) {
	truth := Truth{
		Used:  map[string]int{"a.go": 6, "b.go": 3, "c.go": 1},
		Users: map[string]int{"u1.go": 5, "u2.go": 1, "b.go": 2},
	}
	tests := []struct {
		name  string
		truth Truth
		sel   Selection
		known func(string) bool
		want  Scores
	}{
		{
			name:  "everything relevant",
			truth: truth,
			sel:   Selection{Files: map[string]int{"a.go": 100, "b.go": 50, "c.go": 10, "u1.go": 20, "u2.go": 20}, Total: 1000},
			want:  Scores{UsedRecall: 1, WeightedRecall: 1, TopUsersRecall: 1, Precision: 1, NeitherShare: 0, OutsideShare: 0, Tokens: 1000},
		},
		{
			name:  "partial, with a file in neither set and an unpathed block",
			truth: truth,
			// used: a and c of a, b, c (2/3); weight 7/10; users: u1 of
			// u1, b, u2 (1/3); relevant: a, c, u1 of a, c, u1, x (3/4);
			// neither: x (30) + unpathed (10) of 100+10+20+30+10.
			sel:   Selection{Files: map[string]int{"a.go": 100, "c.go": 10, "u1.go": 20, "x.go": 30}, Unpathed: 10, Total: 500},
			known: func(p string) bool { return p != "x.go" },
			want:  Scores{UsedRecall: 2.0 / 3, WeightedRecall: 0.7, TopUsersRecall: 1.0 / 3, Precision: 0.75, NeitherShare: 40.0 / 170, OutsideShare: 0.25, Tokens: 500},
		},
		{
			name:  "a file included only as a symbol block (zero tokens of its own) still counts",
			truth: truth,
			sel:   Selection{Files: map[string]int{"b.go": 0}, Total: 300},
			want:  Scores{UsedRecall: 1.0 / 3, WeightedRecall: 0.3, TopUsersRecall: 1.0 / 3, Precision: 1, NeitherShare: nan, OutsideShare: 0, Tokens: 300},
		},
		{
			name:  "nothing but the target: precision and shares undefined",
			truth: truth,
			sel:   Selection{Files: map[string]int{}, Total: 200},
			want:  Scores{UsedRecall: 0, WeightedRecall: 0, TopUsersRecall: 0, Precision: nan, NeitherShare: nan, OutsideShare: nan, Tokens: 200},
		},
		{
			name:  "empty truth: recalls undefined, every file is in neither set",
			truth: Truth{Used: map[string]int{}, Users: map[string]int{}},
			sel:   Selection{Files: map[string]int{"x.go": 10}, Total: 50},
			want:  Scores{UsedRecall: nan, WeightedRecall: nan, TopUsersRecall: nan, Precision: 0, NeitherShare: 1, OutsideShare: 0, Tokens: 50},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Score(tt.truth, tt.sel, tt.known)
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateNaNs(), cmpopts.EquateApprox(0, 1e-12)); diff != "" {
				t.Errorf("Score (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTopUsers(t *testing.T) {
	users := map[string]int{"d": 1, "c": 5, "b": 5, "a": 2, "e": 7}
	tests := []struct {
		k    int
		want []string
	}{
		{k: 10, want: []string{"e", "b", "c", "a", "d"}},
		{k: 3, want: []string{"e", "b", "c"}},
		{k: 0, want: []string{}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, TopUsers(users, tt.k)); diff != "" {
			t.Errorf("TopUsers(k=%d) (-want +got):\n%s", tt.k, diff)
		}
	}
	// Only the top 10 count: the 11th user is not looked for.
	many := map[string]int{}
	for i, p := range []string{"f00", "f01", "f02", "f03", "f04", "f05", "f06", "f07", "f08", "f09", "f10"} {
		many[p] = 100 - i
	}
	got := Score(Truth{Used: map[string]int{}, Users: many}, Selection{Files: map[string]int{"f10": 1}}, nil)
	if diff := cmp.Diff(0.0, got.TopUsersRecall); diff != "" {
		t.Errorf("top-10 recall with only the 11th user included (-want +got):\n%s", diff)
	}
}

func TestAverage(t *testing.T) {
	list := []Scores{
		{UsedRecall: 1, WeightedRecall: 0.5, TopUsersRecall: nan, Precision: 0.5, NeitherShare: 0.2, OutsideShare: 0, Tokens: 100},
		{UsedRecall: 0, WeightedRecall: nan, TopUsersRecall: nan, Precision: 1, NeitherShare: 0.4, OutsideShare: 0.5, Tokens: 300},
	}
	want := Mean{
		Scores: Scores{UsedRecall: 0.5, WeightedRecall: 0.5, TopUsersRecall: nan, Precision: 0.75, NeitherShare: 0.3, OutsideShare: 0.25, Tokens: 200},
		N:      [7]int{2, 1, 0, 2, 2, 2, 2},
	}
	if diff := cmp.Diff(want, Average(list), cmpopts.EquateNaNs(), cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("Average (-want +got):\n%s", diff)
	}
}

func TestBaseline(t *testing.T) {
	sibs := []Sized{{"d/a.go", 100}, {"d/b.go", 300}, {"d/c.go", 50}}
	tests := []struct {
		name        string
		start, soft int
		want        Selection
	}{
		{name: "all fit", start: 100, soft: 1000, want: Selection{Files: map[string]int{"d/a.go": 100, "d/b.go": 300, "d/c.go": 50}, Total: 550}},
		{name: "exactly at the limit", start: 100, soft: 500, want: Selection{Files: map[string]int{"d/a.go": 100, "d/b.go": 300}, Total: 500}},
		// b does not fit: it and every later file are left out, even c,
		// which would fit (ctxd's fit step stops the same way).
		{name: "stops at the first misfit", start: 100, soft: 450, want: Selection{Files: map[string]int{"d/a.go": 100}, Total: 200}},
		{name: "target alone over the limit", start: 900, soft: 800, want: Selection{Files: map[string]int{}, Total: 900}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Baseline(sibs, tt.start, tt.soft)); diff != "" {
				t.Errorf("Baseline (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOracleTruth(t *testing.T) {
	o := NewOracle(map[string]map[string]int{
		"t.go": {"a.go": 2, "b.go": 1},
		"u.go": {"t.go": 3, "a.go": 1},
		"v.go": {"t.go": 1},
		"a.go": {},
		"b.go": {},
	})
	want := Truth{Used: map[string]int{"a.go": 2, "b.go": 1}, Users: map[string]int{"u.go": 3, "v.go": 1}}
	if diff := cmp.Diff(want, o.Truth("t.go")); diff != "" {
		t.Errorf("Truth(t.go) (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]bool{true, false}, []bool{o.Known("b.go"), o.Known("x.go")}); diff != "" {
		t.Errorf("Known (-want +got):\n%s", diff)
	}
}

func TestParseBuild(t *testing.T) {
	p := func(s string) *string { return &s }
	var o buildOutput
	o.BudgetReport.EstimatedInputTokens = 42
	add := func(typ, title, content string, path *string) {
		o.Bundle.Blocks = append(o.Bundle.Blocks, block{BlockType: typ, Title: title, Content: content, Meta: blockMeta{Path: path}})
	}
	add("system", "System rules (diff)", "be careful", nil)
	add("constraints", "Constraints", "none", nil)
	add("project_meta", "Project", "go 1.26", nil)
	add("file", "t.go", "package t", p("t.go"))
	add("symbol", "function F in a.go", "func F() {}", p("a.go"))
	add("file", "a.go", "package a", p("a.go"))
	o.Manifest.Selection.IncludedFiles = []includedFile{{Path: "m.go", Reason: "dependency"}, {Path: "t.go", Reason: "target"}}
	bt := func(title, content string) int { return blockTokens(title, content) }
	fixed := bt("System rules (diff)", "be careful") + bt("Constraints", "none")
	a := bt("function F in a.go", "func F() {}") + bt("a.go", "package a")
	want := ctxdRun{
		Fixed:    fixed,
		Target:   bt("t.go", "package t"),
		Reported: 42,
		Sel: Selection{
			Files:    map[string]int{"a.go": a, "m.go": 0},
			Unpathed: bt("Project", "go 1.26"),
			Total:    fixed + bt("Project", "go 1.26") + bt("t.go", "package t") + a,
		},
	}
	if diff := cmp.Diff(want, parseBuild(o, "t.go")); diff != "" {
		t.Errorf("parseBuild (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(ctxdRun{Refused: "REFUSE_CONTEXT_TOO_LARGE"}, parseBuild(buildOutput{Refusal: &refusal{Code: "REFUSE_CONTEXT_TOO_LARGE"}}, "t.go")); diff != "" {
		t.Errorf("parseBuild of a refusal (-want +got):\n%s", diff)
	}
}

func TestCtxdArgs(t *testing.T) {
	want := []string{"build", "--root", "/r", "--purpose", "diff", "--target", "a/b.go", "--model", "gpt-4o",
		"--max-input-tokens", "12000", "--response-token-reserve", "4000", "--soft-limit-pct", "100",
		"--format", "json", "--cache-dir", "/c"}
	if diff := cmp.Diff(want, ctxdArgs("/r", "/c", "a/b.go", 8000)); diff != "" {
		t.Errorf("ctxdArgs (-want +got):\n%s", diff)
	}
}

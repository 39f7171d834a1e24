package contextbuilder_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/contextbuilder"
)

// tooLargeFile is a Go file whose one function is far over a tiny budget
// whole and as its own region.
func tooLargeFile() string {
	var b strings.Builder
	b.WriteString("package big\n\n// Long is long.\nfunc Long() string {\n\ts := Dep()\n")
	for i := range 60 {
		b.WriteString("\ts += \"lorem ipsum dolor sit amet, consectetur adipiscing elit " + strings.Repeat("x", i%7) + "\"\n")
	}
	b.WriteString("\treturn s\n}\n\n// Short is short.\nfunc Short() int { return 1 }\n")
	return b.String()
}

// depFile is a dependency of Long: a P1 block, which the refusal's
// figures leave out.
const depFile = "package big\n\n// Dep is a dependency with a body worth some tokens.\nfunc Dep() string {\n\tx := \"a dependency that takes a few tokens to say\"\n\treturn x + x\n}\n"

// TestTooLargeAdviceFollowsTheRequest: the advice of REFUSE_CONTEXT_TOO_LARGE
// suggests what the request did not already do — never naming a symbol
// when one was named, never a region when one was given — and its message
// and budget report give the same figure (issue 32, items 11 and 17).
func TestTooLargeAdviceFollowsTheRequest(t *testing.T) {
	model := &contextbuilder.ModelRequest{MaxInputTokens: intp(400), ResponseTokenReserve: intp(100)}
	tests := []struct {
		name        string
		step        contextbuilder.PlanStep
		wantActions []contextbuilder.ActionKind
	}{
		{
			name:        "whole file",
			step:        contextbuilder.PlanStep{ID: "s", Text: "Change it.", TargetFiles: []string{"big.go"}},
			wantActions: []contextbuilder.ActionKind{contextbuilder.ActionSelectRegion, contextbuilder.ActionNameSymbol, contextbuilder.ActionRaiseBudget},
		},
		{
			name:        "symbol named",
			step:        contextbuilder.PlanStep{ID: "s", Text: "Change it.", TargetFiles: []string{"big.go"}, TargetSymbols: []string{"Long"}},
			wantActions: []contextbuilder.ActionKind{contextbuilder.ActionFewerSymbols, contextbuilder.ActionRaiseBudget},
		},
		{
			name:        "line range given",
			step:        contextbuilder.PlanStep{ID: "s", Text: "Change it.", TargetFiles: []string{"big.go:4-60"}},
			wantActions: []contextbuilder.ActionKind{contextbuilder.ActionSmallerRegion, contextbuilder.ActionRaiseBudget},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := &contextbuilder.Request{Purpose: contextbuilder.PurposeDiff, PlanStep: &tt.step, Model: model}
			_, err := buildText(t, req, "go.mod", "module example.com/big\n", "big.go", tooLargeFile(), "dep.go", depFile)
			var r *contextbuilder.Refusal
			if !errors.As(err, &r) || r.Code != contextbuilder.RefuseContextTooLarge {
				t.Fatalf("err = %v, want REFUSE_CONTEXT_TOO_LARGE", err)
			}
			var kinds []contextbuilder.ActionKind
			for _, a := range r.Actions {
				kinds = append(kinds, a.Kind)
			}
			if diff := cmp.Diff(tt.wantActions, kinds); diff != "" {
				t.Errorf("actions (-want +got):\n%s", diff)
			}
			if len(tt.step.TargetSymbols) > 0 && (strings.Contains(r.Advice, "name the symbols to change") || strings.Contains(r.Advice, "name a symbol")) {
				t.Errorf("a symbol was named, yet the advice says to name one: %q", r.Advice)
			}
			if r.BudgetReport == nil {
				t.Fatal("no budget report")
			}
			est := r.BudgetReport.EstimatedInputTokens
			if !strings.Contains(r.Message, " needs "+strconv.Itoa(est)+" tokens ") {
				t.Errorf("message %q does not give the budget report's estimate %d", r.Message, est)
			}
		})
	}
}

// TestNeverSendAdviceNamesTheRule: the advice of a never-send refusal
// names the rule that matched and what can be done about that rule, not
// about others (issue 32, item 11: the .env refusal talked about obj/bin
// directories and deny_rules).
func TestNeverSendAdviceNamesTheRule(t *testing.T) {
	tests := []struct {
		name, target string
		files        []string
		want         []string
		notWant      []string
	}{
		{
			name: ".env", target: ".env",
			files:   []string{".env", "API_KEY=x\n"},
			want:    []string{`.env matches the never-send rule "**/.env"`, "environment files", "cannot be switched off", "choose another target"},
			notWant: []string{"obj", "bin", "deny_rules"},
		},
		{
			name: "obj source", target: "internal/obj/a.go",
			files:   []string{"internal/obj/a.go", "package obj\n"},
			want:    []string{`"**/obj/**"`, "move or copy the code"},
			notWant: []string{"deny_rules", "environment"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := &contextbuilder.Request{Purpose: contextbuilder.PurposeDiff, PlanStep: &contextbuilder.PlanStep{ID: "s", Text: "Change it.", TargetFiles: []string{tt.target}}}
			_, err := buildText(t, req, append([]string{"go.mod", "module example.com/m\n"}, tt.files...)...)
			var r *contextbuilder.Refusal
			if !errors.As(err, &r) || r.Code != contextbuilder.RefuseUnsupportedTarget {
				t.Fatalf("err = %v, want REFUSE_UNSUPPORTED_TARGET", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.Advice, w) {
					t.Errorf("advice %q lacks %q", r.Advice, w)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(r.Advice, w) {
					t.Errorf("advice %q names %q, which does not apply", r.Advice, w)
				}
			}
		})
	}
}

// TestAdviceIn: one refusal's actions said in each front end's terms;
// empty terms fall back on the request's words.
func TestAdviceIn(t *testing.T) {
	actions := []contextbuilder.Action{{Kind: contextbuilder.ActionSelectRegion}, {Kind: contextbuilder.ActionRaiseBudget}}
	terms := contextbuilder.Terms{Region: "REGION", Budget: "BUDGET"}
	tests := []struct {
		name  string
		terms contextbuilder.Terms
		want  string
	}{
		{"own terms", terms, "narrow the scope: REGION; or BUDGET"},
		{"fallback", contextbuilder.Terms{Region: "REGION"}, "narrow the scope: REGION; or " + contextbuilder.RequestTerms.Budget},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, contextbuilder.AdviceIn(actions, tt.terms)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	r := &contextbuilder.Refusal{Code: contextbuilder.RefuseContextTooLarge, Advice: "old", Actions: actions}
	if got := r.In(terms); got.Advice != "narrow the scope: REGION; or BUDGET" || r.Advice != "old" {
		t.Errorf("In: got advice %q (original now %q), want the copy re-rendered and the original unchanged", got.Advice, r.Advice)
	}
	plain := &contextbuilder.Refusal{Code: contextbuilder.RefuseSecretRisk, Advice: "move the secret"}
	if got := plain.In(terms); got != plain {
		t.Errorf("In of a refusal without actions = %+v, want it unchanged", got)
	}
}

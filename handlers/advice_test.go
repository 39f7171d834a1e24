package handlers

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/jsonrpc2"

	"github.com/ctxd/ctxd/contextbuilder"
)

// TestRefusalAdviceInTheEditorsTerms: a refusal sent over LSP advises in
// the words of the editor that asked — its setting for the budget, its
// selection and commands — and never with the CLI's flags (issue 32,
// item 11); the code and message are the wire's as before.
func TestRefusalAdviceInTheEditorsTerms(t *testing.T) {
	refusal := func() *contextbuilder.Refusal {
		return &contextbuilder.Refusal{
			Code:    contextbuilder.RefuseContextTooLarge,
			Message: "the required context needs 708 tokens",
			Advice:  "the request's words",
			Actions: []contextbuilder.Action{{Kind: contextbuilder.ActionSelectRegion}, {Kind: contextbuilder.ActionNameSymbol}, {Kind: contextbuilder.ActionRaiseBudget}},
		}
	}
	tests := []struct {
		client  string
		want    []string
		notWant []string
	}{
		{client: "Visual Studio Code", want: []string{"ctxd.model.maxInputTokens", "ctxd: Build Context for Selection", "ctxd: Build Context for Symbol"}, notWant: []string{"--", "vim.g.ctxd", "plan_step"}},
		{client: "code-server", want: []string{"ctxd.model.maxInputTokens"}, notWant: []string{"--"}},
		{client: "Neovim", want: []string{"max_input_tokens in vim.g.ctxd", ":'<,'>CtxdBuild", ":CtxdBuild diff NAME"}, notWant: []string{"--", "ctxd.model.maxInputTokens", "plan_step"}},
		{client: "", want: []string{"model.max_input_tokens", "plan_step.target_symbols"}, notWant: []string{"--"}},
		{client: "Helix", want: []string{"model.max_input_tokens"}, notWant: []string{"--", "vim.g.ctxd", "ctxd.model.maxInputTokens"}},
	}
	for _, tt := range tests {
		t.Run(tt.client, func(t *testing.T) {
			s := newTestSession()
			s.setConfig(&ClientConfig{ClientName: tt.client})
			err := s.wireError("ctxd.buildContext", refusal())
			var je *jsonrpc2.Error
			if !errors.As(err, &je) || je.Code != codeRefused || je.Data == nil {
				t.Fatalf("wireError = %v, want a RequestFailed error with data", err)
			}
			var got contextbuilder.Refusal
			if err := json.Unmarshal(*je.Data, &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(contextbuilder.RefuseContextTooLarge, got.Code); diff != "" {
				t.Errorf("code (-want +got):\n%s", diff)
			}
			for _, w := range tt.want {
				if !strings.Contains(got.Advice, w) {
					t.Errorf("advice %q lacks %q", got.Advice, w)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(got.Advice, w) {
					t.Errorf("advice %q has %q, which is not this client's", got.Advice, w)
				}
			}
			var raw map[string]any
			if err := json.Unmarshal(*je.Data, &raw); err != nil {
				t.Fatal(err)
			}
			for k := range raw {
				if k != "code" && k != "message" && k != "advice" {
					t.Errorf("the refusal's data has field %q, beyond the wire's", k)
				}
			}
		})
	}
}

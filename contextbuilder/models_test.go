package contextbuilder_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/contextbuilder/tokens"
)

func TestLookupModel(t *testing.T) {
	tests := []struct {
		name string
		want string // "" means unknown
	}{
		{"gpt-4o", "gpt-4o"},
		{"GPT-4o", "gpt-4o"},
		{"gpt-4o-mini", "gpt-4o-mini"},
		{"gpt-4o-2024-08-06", "gpt-4o"},
		{"gpt-4o-mini-2024-07-18", "gpt-4o-mini"},
		{"claude-sonnet-4", "claude-sonnet-4"},
		{"anthropic/claude-sonnet-4", "claude-sonnet-4"},
		{"openrouter/anthropic/claude-sonnet-4", "claude-sonnet-4"},
		{"claude-sonnet-4-20250514", "claude-sonnet-4"},
		{"claude-sonnet-4@20250514", "claude-sonnet-4"},
		{"claude-sonnet-4-5", "claude-sonnet-4-5"},
		{"claude-3-5-haiku-latest", "claude-3-5-haiku"},
		{"gemini-2.5-pro", "gemini-2.5-pro"},
		// Only a dated snapshot or -latest extends a name: these are other
		// models, with other windows.
		{"gpt-4-32k", ""},
		{"gpt-4-1106-preview", ""},
		{"gpt-4o-audio-preview", ""},
		{"claude-sonnet-4-x", ""},
		{"llama3", ""},
		{"", ""},
	}
	for _, tt := range tests {
		k, ok := contextbuilder.LookupModel(tt.name)
		if ok != (tt.want != "") || k.Name != tt.want {
			t.Errorf("LookupModel(%q) = %q, %v; want %q", tt.name, k.Name, ok, tt.want)
		}
	}
}

// TestKnownModels: the table is sorted and unique, its encodings are the
// ones the builder counts with, and a window is shrunk by the safety
// margin exactly when the tokenizer is not public.
func TestKnownModels(t *testing.T) {
	ms := contextbuilder.KnownModels()
	if !slices.IsSortedFunc(ms, func(a, b contextbuilder.KnownModel) int { return strings.Compare(a.Name, b.Name) }) {
		t.Error("the table is not sorted by name")
	}
	for i, k := range ms {
		if i > 0 && ms[i-1].Name == k.Name {
			t.Errorf("%s is listed twice", k.Name)
		}
		if got := tokens.EncodingFor(k.Name); got != k.Encoding {
			t.Errorf("%s: the table says %s, the builder counts with %s", k.Name, k.Encoding, got)
		}
		if k.PublicTokenizer != (k.Provider == "openai") {
			t.Errorf("%s: public tokenizer %v for provider %s", k.Name, k.PublicTokenizer, k.Provider)
		}
		want := k.ContextWindow
		if !k.PublicTokenizer {
			want = k.ContextWindow * (100 - contextbuilder.SafetyMarginPct) / 100
		}
		if k.MaxInputTokens() != want || k.MaxOutputTokens <= 0 || k.ContextWindow <= 0 {
			t.Errorf("%s: max input %d, want %d; output %d", k.Name, k.MaxInputTokens(), want, k.MaxOutputTokens)
		}
	}
}

// TestEffectiveModel: a named model brings its window from the table
// (never the config's, which is another model's), an unknown one needs
// max_input_tokens, and what the request or the config gives is used as
// given.
func TestEffectiveModel(t *testing.T) {
	s := func(v string) *string { return &v }
	n := func(v int) *int { return &v }
	model := func(provider, name string, in, out, reserve, soft int) contextbuilder.Model {
		return contextbuilder.Model{Provider: provider, Model: name, MaxInputTokens: in, MaxOutputTokens: out, ResponseTokenReserve: reserve, SoftLimitThresholdPct: soft}
	}
	custom := contextbuilder.Config{Model: contextbuilder.Model{Provider: "ollama", Model: "llama3", MaxInputTokens: 8192, ResponseTokenReserve: 1000}}
	tests := []struct {
		name    string
		config  contextbuilder.Config
		req     *contextbuilder.ModelRequest
		want    contextbuilder.Model
		wantErr string
	}{
		{name: "defaults", want: contextbuilder.DefaultConfig().Model},
		{name: "the defaults' model named", req: &contextbuilder.ModelRequest{Model: s("gpt-4o")}, want: contextbuilder.DefaultConfig().Model},
		{name: "router name of a model whose tokenizer is not public", req: &contextbuilder.ModelRequest{Model: s("anthropic/claude-sonnet-4")},
			want: model("anthropic", "anthropic/claude-sonnet-4", 160000, 64000, 4000, 80)},
		{name: "dated snapshot", req: &contextbuilder.ModelRequest{Model: s("claude-sonnet-4-20250514")},
			want: model("anthropic", "claude-sonnet-4-20250514", 160000, 64000, 4000, 80)},
		{name: "public tokenizer: the whole window", req: &contextbuilder.ModelRequest{Model: s("gpt-4.1")},
			want: model("openai", "gpt-4.1", 1047576, 32768, 4000, 80)},
		{name: "window given", req: &contextbuilder.ModelRequest{Model: s("claude-sonnet-4"), MaxInputTokens: n(200000)},
			want: model("anthropic", "claude-sonnet-4", 200000, 64000, 4000, 80)},
		{name: "unknown model", req: &contextbuilder.ModelRequest{Model: s("my-llama")}, wantErr: `field "model.max_input_tokens" is required for model "my-llama"`},
		{name: "unknown model with its window", req: &contextbuilder.ModelRequest{Model: s("my-llama"), MaxInputTokens: n(8000)},
			want: model("openai", "my-llama", 8000, 16000, 4000, 80)},
		{name: "unknown router model with its window", req: &contextbuilder.ModelRequest{Model: s("ollama/llama3.1"), MaxInputTokens: n(8000)},
			want: model("ollama", "ollama/llama3.1", 8000, 16000, 4000, 80)},
		{name: "config names a known model", config: contextbuilder.Config{Model: contextbuilder.Model{Model: "claude-opus-4"}},
			want: model("anthropic", "claude-opus-4", 160000, 32000, 4000, 80)},
		{name: "config names an unknown model with its window", config: custom,
			want: model("ollama", "llama3", 8192, 16000, 1000, 80)},
		{name: "config's model named again", config: custom, req: &contextbuilder.ModelRequest{Model: s("llama3")},
			want: model("ollama", "llama3", 8192, 16000, 1000, 80)},
		{name: "config names an unknown model without a window", config: contextbuilder.Config{Model: contextbuilder.Model{Model: "llama3"}},
			wantErr: `field "model.max_input_tokens" is required for model "llama3"`},
		{name: "another model than the config's", config: custom, req: &contextbuilder.ModelRequest{Model: s("gpt-4o-mini")},
			want: model("openai", "gpt-4o-mini", 128000, 16384, 1000, 80)},
		{name: "another unknown model than the config's", config: custom, req: &contextbuilder.ModelRequest{Model: s("llama3.1")},
			wantErr: `field "model.max_input_tokens" is required for model "llama3.1"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := contextbuilder.EffectiveModel(tt.config, tt.req)
			if tt.wantErr != "" {
				if !errors.Is(err, contextbuilder.ErrInvalidRequest) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("EffectiveModel = %+v, %v; want an invalid request with %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("EffectiveModel (-want +got):\n%s", diff)
			}
		})
	}
}

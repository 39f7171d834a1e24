package markdown

import (
	"testing"

	"github.com/ctxd/ctxd/contextbuilder"
)

func TestLongestRun(t *testing.T) {
	for s, want := range map[string]int{"": 0, "a": 0, "`": 1, "a``b```c`": 3, "````": 4} {
		if got := longestRun(s, '`'); got != want {
			t.Errorf("longestRun(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestModelName(t *testing.T) {
	tests := []struct {
		m    contextbuilder.Model
		want string
	}{
		{contextbuilder.Model{Provider: "openai", Model: "gpt-4o"}, "openai/gpt-4o"},
		{contextbuilder.Model{Provider: "anthropic", Model: "anthropic/claude-sonnet-4"}, "anthropic/claude-sonnet-4"},
		{contextbuilder.Model{Provider: "openrouter", Model: "anthropic/claude-sonnet-4"}, "openrouter/anthropic/claude-sonnet-4"},
		{contextbuilder.Model{Provider: "a\nb", Model: "m"}, "a b/m"},
	}
	for _, tt := range tests {
		if got := ModelName(tt.m); got != tt.want {
			t.Errorf("ModelName(%+v) = %q, want %q", tt.m, got, tt.want)
		}
	}
}

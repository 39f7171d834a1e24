package contextbuilder

import (
	"regexp"
	"slices"
	"strings"

	"github.com/ctxd/ctxd/contextbuilder/tokens"
)

// This file is ctxd's table of common models: the context window and the
// output limit their providers document, and the tokenizer ctxd counts
// with. A request or a config that names a model without its
// max_input_tokens gets the table's value, so that naming a model changes
// the budget and not only a label; a model the table does not know needs
// max_input_tokens, since guessing a window could overrun it. The front
// ends (LSP, MCP, the CLI) all build through here and share the table.

// SafetyMarginPct is the share of a model's context window that ctxd
// leaves unused when the model's tokenizer is not public (Anthropic,
// Google): ctxd counts with o200k_base, the closest public tokenizer, and
// such a model can cut the same text into more tokens than o200k_base
// does. The margin applies to the table's windows only; a
// max_input_tokens given in a request or a config is used as given.
const SafetyMarginPct = 20

// KnownModel is one row of ctxd's model table.
type KnownModel struct {
	// Name is the model's name as its provider's API spells it, lower
	// case.
	Name string
	// Provider is the provider's name, as a request's model.provider.
	Provider string
	// ContextWindow is the most input tokens the provider documents for
	// the model (for most, input and output share it).
	ContextWindow int
	// MaxOutputTokens is the most tokens the model generates in one
	// answer.
	MaxOutputTokens int
	// Encoding is the tokenizer ctxd counts with (tokens.O200kBase or
	// tokens.Cl100kBase).
	Encoding string
	// PublicTokenizer is true when Encoding is the model's own tokenizer,
	// which makes the counts exact and the window usable whole.
	PublicTokenizer bool
}

// MaxInputTokens is the max_input_tokens ctxd budgets for the model: the
// context window, less SafetyMarginPct percent when the count is an
// estimate.
func (k KnownModel) MaxInputTokens() int {
	if k.PublicTokenizer {
		return k.ContextWindow
	}
	return k.ContextWindow * (100 - SafetyMarginPct) / 100
}

// knownModels is the table, sorted by name: the limits the providers
// (OpenAI, Anthropic, Google) document for each model; a window a provider
// documents differently by tier or beta is listed with the default one.
// A provider that changes a limit changes a row here.
var knownModels = []KnownModel{
	{"claude-3-5-haiku", "anthropic", 200000, 8192, tokens.O200kBase, false},
	{"claude-3-5-sonnet", "anthropic", 200000, 8192, tokens.O200kBase, false},
	{"claude-3-7-sonnet", "anthropic", 200000, 64000, tokens.O200kBase, false},
	{"claude-3-haiku", "anthropic", 200000, 4096, tokens.O200kBase, false},
	{"claude-3-opus", "anthropic", 200000, 4096, tokens.O200kBase, false},
	{"claude-haiku-4-5", "anthropic", 200000, 64000, tokens.O200kBase, false},
	{"claude-opus-4", "anthropic", 200000, 32000, tokens.O200kBase, false},
	{"claude-opus-4-1", "anthropic", 200000, 32000, tokens.O200kBase, false},
	{"claude-opus-4-5", "anthropic", 200000, 64000, tokens.O200kBase, false},
	{"claude-sonnet-4", "anthropic", 200000, 64000, tokens.O200kBase, false},
	{"claude-sonnet-4-5", "anthropic", 200000, 64000, tokens.O200kBase, false},
	{"gemini-1.5-flash", "google", 1048576, 8192, tokens.O200kBase, false},
	{"gemini-1.5-pro", "google", 2097152, 8192, tokens.O200kBase, false},
	{"gemini-2.0-flash", "google", 1048576, 8192, tokens.O200kBase, false},
	{"gemini-2.5-flash", "google", 1048576, 65536, tokens.O200kBase, false},
	{"gemini-2.5-pro", "google", 1048576, 65536, tokens.O200kBase, false},
	{"gpt-3.5-turbo", "openai", 16385, 4096, tokens.Cl100kBase, true},
	{"gpt-4", "openai", 8192, 8192, tokens.Cl100kBase, true},
	{"gpt-4-turbo", "openai", 128000, 4096, tokens.Cl100kBase, true},
	{"gpt-4.1", "openai", 1047576, 32768, tokens.O200kBase, true},
	{"gpt-4.1-mini", "openai", 1047576, 32768, tokens.O200kBase, true},
	{"gpt-4.1-nano", "openai", 1047576, 32768, tokens.O200kBase, true},
	{"gpt-4o", "openai", 128000, 16384, tokens.O200kBase, true},
	{"gpt-4o-mini", "openai", 128000, 16384, tokens.O200kBase, true},
	{"gpt-5", "openai", 272000, 128000, tokens.O200kBase, true},
	{"gpt-5-mini", "openai", 272000, 128000, tokens.O200kBase, true},
	{"gpt-5-nano", "openai", 272000, 128000, tokens.O200kBase, true},
	{"o1", "openai", 200000, 100000, tokens.O200kBase, true},
	{"o1-mini", "openai", 128000, 65536, tokens.O200kBase, true},
	{"o3", "openai", 200000, 100000, tokens.O200kBase, true},
	{"o3-mini", "openai", 200000, 100000, tokens.O200kBase, true},
	{"o4-mini", "openai", 200000, 100000, tokens.O200kBase, true},
}

// KnownModels returns ctxd's model table, sorted by name.
func KnownModels() []KnownModel { return slices.Clone(knownModels) }

// snapshotSuffix is what may follow a table name in a model name: a dated
// snapshot (claude-sonnet-4-20250514, gpt-4o-2024-08-06, Vertex's
// claude-sonnet-4@20250514) or -latest. Nothing else is accepted: gpt-4
// is not gpt-4-32k, nor gpt-4-1106-preview, and a window taken from the
// wrong row could overrun the model's.
var snapshotSuffix = regexp.MustCompile(`^(?:[-@][0-9]{8}|-[0-9]{4}-[0-9]{2}-[0-9]{2}|-latest)$`)

// LookupModel finds a model name in ctxd's table. The match ignores case
// and a leading "provider/" (anthropic/claude-sonnet-4, as routers write
// it), and accepts a dated snapshot of a listed name; ok is false for any
// other name.
func LookupModel(name string) (KnownModel, bool) {
	n := strings.ToLower(strings.TrimSpace(name))
	n = n[strings.LastIndexByte(n, '/')+1:]
	for _, k := range knownModels {
		if n == k.Name {
			return k, true
		}
	}
	for _, k := range knownModels {
		if rest, ok := strings.CutPrefix(n, k.Name); ok && snapshotSuffix.MatchString(rest) {
			return k, true
		}
	}
	return KnownModel{}, false
}

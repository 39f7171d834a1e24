package contextbuilder

import (
	"fmt"
	"strings"

	"github.com/ctxd/ctxd/index/ignore"
)

// ContractVersion names the selection, ranking, slicing and rendering rules
// of this package. It enters config_fingerprint, so a change of rules
// changes every fingerprint instead of silently changing bundles.
const ContractVersion = "ctxd.context_builder.v1"

// BundleVersion is the bundle_version of every bundle (seed 002 V1).
const BundleVersion = 1

// Config is the effective configuration of a build: the defaults a request
// may override and the rules it may not. The zero Config is valid and
// means [DefaultConfig]'s values.
type Config struct {
	// Model holds the default model and budget; zero fields take
	// DefaultConfig's.
	Model Model `json:"model"`
	// DenyRules are extra never-send globs (gitignore syntax, relative to
	// the root) added to the built-in list; they can only exclude more.
	DenyRules []string `json:"deny_rules"`
}

// DefaultConfig returns ctxd's defaults: an OpenAI-style 128k-token model
// with a 16k output, a 4k response reserve and an 80% soft limit.
func DefaultConfig() Config {
	return Config{Model: Model{
		Provider:              "openai",
		Model:                 "gpt-4o",
		MaxInputTokens:        128000,
		MaxOutputTokens:       16000,
		ResponseTokenReserve:  4000,
		SoftLimitThresholdPct: 80,
	}}
}

// DenyMatcher compiles DenyRules, the workspace's own never-send rules,
// as one rules file named "deny_rules" (a match's rule reads
// "deny_rules:N: pattern"); nil without any. The builder, the change
// checker and the read tools all match with it.
func (c Config) DenyMatcher() *ignore.Rules {
	if len(c.DenyRules) == 0 {
		return nil
	}
	return ignore.NewRules("", "deny_rules", []byte(strings.Join(c.DenyRules, "\n")))
}

// withDefaults fills zero fields from DefaultConfig, or, when the config
// names a model of ctxd's table, its provider and limits from the table
// (see LookupModel). A model the table does not know keeps a zero
// MaxInputTokens, which effectiveModel refuses: its window is not guessed.
func (c Config) withDefaults() Config {
	d := DefaultConfig().Model
	m := &c.Model
	if m.Model != "" {
		if k, ok := LookupModel(m.Model); ok {
			d.Provider, d.MaxInputTokens, d.MaxOutputTokens = k.Provider, k.MaxInputTokens(), k.MaxOutputTokens
		} else {
			d.MaxInputTokens = 0
		}
	}
	if m.Provider == "" {
		m.Provider = d.Provider
	}
	if m.Model == "" {
		m.Model = d.Model
	}
	if m.MaxInputTokens == 0 {
		m.MaxInputTokens = d.MaxInputTokens
	}
	if m.MaxOutputTokens == 0 {
		m.MaxOutputTokens = d.MaxOutputTokens
	}
	if m.ResponseTokenReserve == 0 {
		m.ResponseTokenReserve = d.ResponseTokenReserve
	}
	if m.SoftLimitThresholdPct == 0 {
		m.SoftLimitThresholdPct = d.SoftLimitThresholdPct
	}
	if c.DenyRules == nil {
		c.DenyRules = []string{}
	}
	return c
}

// EffectiveModel is the model and budget a build with config c and the
// request's model fields r runs with, or the invalid request error the
// build would fail with: for a front end that checks a request before it
// indexes anything.
func EffectiveModel(c Config, r *ModelRequest) (Model, error) { return effectiveModel(c, r) }

// effectiveModel merges the request's model fields over the config's and
// validates the result. Errors wrap ErrInvalidRequest and name the field.
//
// A request that names another model than the config's does not inherit
// the config's limits, which are that model's: its provider and limits
// come from ctxd's table (LookupModel), the output limit from
// DefaultConfig when the table does not know it, and a model the table
// does not know needs max_input_tokens. The reserve and the soft limit
// are the workspace's preferences and still come from the config.
func effectiveModel(c Config, r *ModelRequest) (Model, error) {
	m := c.withDefaults().Model
	if r != nil && r.Model != nil && *r.Model != m.Model {
		k, known := LookupModel(*r.Model)
		m.MaxInputTokens, m.MaxOutputTokens = 0, DefaultConfig().Model.MaxOutputTokens
		if i := strings.LastIndexByte(*r.Model, '/'); i > 0 {
			// A router's "provider/model" says whose model it is.
			m.Provider = (*r.Model)[:i]
		}
		if known {
			m.Provider, m.MaxInputTokens, m.MaxOutputTokens = k.Provider, k.MaxInputTokens(), k.MaxOutputTokens
		}
	}
	if r != nil {
		set := func(dst *string, v *string) {
			if v != nil {
				*dst = *v
			}
		}
		seti := func(dst *int, v *int) {
			if v != nil {
				*dst = *v
			}
		}
		set(&m.Provider, r.Provider)
		set(&m.Model, r.Model)
		seti(&m.MaxInputTokens, r.MaxInputTokens)
		seti(&m.MaxOutputTokens, r.MaxOutputTokens)
		seti(&m.ResponseTokenReserve, r.ResponseTokenReserve)
		seti(&m.SoftLimitThresholdPct, r.SoftLimitThresholdPct)
	}
	bad := func(format string, args ...any) (Model, error) {
		return Model{}, fmt.Errorf("%w: %s", ErrInvalidRequest, fmt.Sprintf(format, args...))
	}
	switch {
	case strings.TrimSpace(m.Provider) == "":
		return bad("field \"model.provider\" must not be empty")
	case strings.TrimSpace(m.Model) == "":
		return bad("field \"model.model\" must not be empty")
	case m.MaxInputTokens == 0 && (r == nil || r.MaxInputTokens == nil):
		// Only a model the table does not know leaves the window unset.
		return bad("field \"model.max_input_tokens\" is required for model %q: ctxd knows the context windows of common OpenAI, Anthropic and Google models, not this one's", m.Model)
	case m.MaxInputTokens <= 0:
		return bad("field \"model.max_input_tokens\" must be positive, got %d", m.MaxInputTokens)
	case m.MaxOutputTokens <= 0:
		return bad("field \"model.max_output_tokens\" must be positive, got %d", m.MaxOutputTokens)
	case m.ResponseTokenReserve < 0:
		return bad("field \"model.response_token_reserve\" must not be negative, got %d", m.ResponseTokenReserve)
	case m.ResponseTokenReserve >= m.MaxInputTokens:
		return bad("field \"model.response_token_reserve\" (%d) must be less than \"model.max_input_tokens\" (%d): nothing would be left for the context", m.ResponseTokenReserve, m.MaxInputTokens)
	case m.SoftLimitThresholdPct < 1 || m.SoftLimitThresholdPct > 100:
		return bad("field \"model.soft_limit_threshold_pct\" must be between 1 and 100, got %d", m.SoftLimitThresholdPct)
	}
	return m, nil
}

// limit names one of seed 002's two token limits. What fit does with a
// block that does not fit, and how the removal is reported, depends on
// which one it is.
type limit int

const (
	// softLimit bounds what optional blocks may add, so that optional
	// context never causes a warning.
	softLimit limit = iota
	// hardLimit is never exceeded: past it required blocks are sliced,
	// P1 blocks removed, and a P0 that still does not fit is refused.
	hardLimit
)

// limits are one build's values of the two limits, in tokens.
type limits struct{ hard, soft int }

// limitsOf computes seed 002's limits: the hard limit is the input window
// less the response reserve, the soft limit its threshold percentage.
func limitsOf(m Model) limits {
	hard := m.MaxInputTokens - m.ResponseTokenReserve
	return limits{hard: hard, soft: hard * m.SoftLimitThresholdPct / 100}
}

// of returns one limit's value.
func (l limits) of(which limit) int {
	if which == hardLimit {
		return l.hard
	}
	return l.soft
}

// removal is the detail of a block removed because it did not fit under
// the limit, whose value is tokens.
func (which limit) removal(tokens int) string {
	if which == hardLimit {
		return fmt.Sprintf("removed: after slicing, the hard limit of %d tokens was still exceeded (P1 removed in reverse rank order)", tokens)
	}
	return fmt.Sprintf("not included: the soft limit of %d tokens is reached (removed in reverse rank order)", tokens)
}

package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/ctxd/ctxd/internal/strictjson"
	"github.com/gowebpki/jcs"
)

// ConfigPath is where the configuration lives, relative to the workspace
// root.
const ConfigPath = ".ctxd/config.json"

// PolicySchema is the only accepted value of /policy/schema.
const PolicySchema = "ctxd.context_policy.v1"

// SchemaVersion is the only accepted value of /schema_version.
const SchemaVersion = "1"

// The values of Context.EmptyRefsPolicy.
const (
	EmptyRefsDeny  = "DENY"
	EmptyRefsAllow = "ALLOW"
)

// CanonicalSortEventIndexAsc is the only Context.CanonicalSort.
const CanonicalSortEventIndexAsc = "event_index_asc"

// The seed 000 normalization rules; ctxd always applies all three.
const (
	RuleFilterIntentOnly = "FILTER_INTENT_ONLY"
	RuleScopeBound       = "SCOPE_BOUND"
	RuleSortCanonical    = "SORT_CANONICAL"
)

// The values of Policy.Ordering and Override.Ordering.
const (
	OrderingLexicographic       = "lexicographic"
	OrderingStableManifestOrder = "stable_manifest_order"
)

// File is the content of .ctxd/config.json. Every section is optional in
// the file; in a [Config] the File is normalized (see [Config.File]).
type File struct {
	// SchemaVersion is the format version, "1"; required when the file
	// exists.
	SchemaVersion string `json:"schema_version"`
	// Model holds the defaults for builds.
	Model Model `json:"model"`
	// DenyRules are extra never-send patterns (.gitignore syntax, relative
	// to the workspace root) added to ctxd's built-in list. They can only
	// exclude more: negations are rejected. Normalized sorted and
	// deduplicated (without negations order means nothing); empty, never
	// nil, in a Config.
	DenyRules []string `json:"deny_rules"`
	// Context is the seed 000 context configuration.
	Context Context `json:"context"`
	// Normalization is the seed 000 normalization record.
	Normalization Normalization `json:"normalization"`
	// Policy is the seed 001 context policy; nil means no policy: every
	// path is allowed and nothing is capped.
	Policy *Policy `json:"policy,omitempty"`
	// Sandbox relaxes rules of the sandbox (docs/security.md). Its zero
	// value, the default, is the strict sandbox; it is left out of the
	// canonical form then, so the digest of every configuration that does
	// not relax the sandbox is the same as before the section existed.
	Sandbox Sandbox `json:"sandbox,omitzero"`
}

// Sandbox holds the workspace's exceptions to the sandbox.
type Sandbox struct {
	// AllowHardLinks lets ctxd read a regular file that has more than one
	// hard link. By default such a file is not read (outside_sandbox):
	// another name of the same file may be outside the workspace root, and
	// nothing in the workspace tells where, so a link to a secret outside
	// it would otherwise be read and sent. Default false.
	AllowHardLinks bool `json:"allow_hard_links,omitzero"`
}

// Model holds model defaults. A zero field means ctxd's default, which
// the caller fills in; the file cannot set a field to zero.
type Model struct {
	// Provider is the model provider, e.g. "openai".
	Provider string `json:"provider,omitempty"`
	// Model is the provider's model name, e.g. "gpt-4o".
	Model string `json:"model,omitempty"`
	// MaxInputTokens is the model's context window.
	MaxInputTokens int `json:"max_input_tokens,omitempty"`
	// MaxOutputTokens is the most the model may generate.
	MaxOutputTokens int `json:"max_output_tokens,omitempty"`
	// ResponseTokenReserve is kept free for the answer; less than
	// MaxInputTokens when both are set.
	ResponseTokenReserve int `json:"response_token_reserve,omitempty"`
	// SoftLimitThresholdPct is the warning threshold, 1 to 100.
	SoftLimitThresholdPct int `json:"soft_limit_threshold_pct,omitempty"`
}

// Context is seed 000's context configuration. In a Config every field
// holds its effective value: absent members are filled with the defaults.
type Context struct {
	// MaxRefs is the most declared_refs a request may carry, 1 to 1000;
	// default 50.
	MaxRefs int `json:"max_refs"`
	// EmptyRefsPolicy is EmptyRefsDeny or EmptyRefsAllow. ctxd's default
	// is ALLOW although seed 000's example shows DENY: the first turn of
	// every thread has nothing to reference, so DENY would refuse every
	// new conversation; teams that want it opt in.
	EmptyRefsPolicy string `json:"empty_refs_policy"`
	// ExpandLastN is the most prior turns a client should declare when it
	// expands a thread's history itself, 0 to 1000; default 10.
	ExpandLastN int `json:"expand_last_n"`
	// AllowExecutionRefsForPrompt lets EXECUTION refs reach the prompt
	// (never the policy input); default true.
	AllowExecutionRefsForPrompt bool `json:"allow_execution_refs_for_prompt"`
	// CanonicalSort is always CanonicalSortEventIndexAsc.
	CanonicalSort string `json:"canonical_sort"`
	// EnforceScopeBound is always true: a file saying false is invalid,
	// because ctxd never supports cross-thread refs (a seed 000 non-goal).
	EnforceScopeBound bool `json:"enforce_scope_bound"`
}

// Normalization is seed 000's normalization record.
type Normalization struct {
	// Rules names RuleFilterIntentOnly, RuleScopeBound and
	// RuleSortCanonical, each exactly once, in the order written (the
	// order recorded); default in that order. All three are required
	// because ctxd always applies them: omitting one would misdescribe
	// what was applied.
	Rules []string `json:"rules"`
}

// Policy is seed 001's context policy.
type Policy struct {
	// Schema is always PolicySchema.
	Schema string `json:"schema"`
	// Namespaces maps a namespace name to its path globs (non-empty;
	// sorted and deduplicated in a Config). Empty, never nil, in a Config.
	Namespaces map[string][]string `json:"namespaces"`
	// AllowedContextNamespaces lists the namespaces whose files may enter
	// a bundle, each defined in Namespaces (sorted and deduplicated in a
	// Config). nil means no restriction; an empty list allows nothing.
	AllowedContextNamespaces *[]string `json:"allowed_context_namespaces,omitempty"`
	// MaxItems caps the files of a selection; 0 means no cap.
	MaxItems int `json:"max_items,omitempty"`
	// MaxBytes caps the content bytes of a selection; 0 means no cap.
	MaxBytes int `json:"max_bytes,omitempty"`
	// MaxUserMessagesPerThread caps the user messages (INTENT events) of
	// a thread, the current one included (seed 000 example 2); 0 means no
	// cap.
	MaxUserMessagesPerThread int `json:"max_user_messages_per_thread,omitempty"`
	// Ordering is OrderingLexicographic or OrderingStableManifestOrder
	// (the default, filled in a Config).
	Ordering string `json:"ordering,omitempty"`
	// Skills maps a skill name to its override; nil or empty means no
	// skills (nil in a Config).
	Skills map[string]Override `json:"skills,omitempty"`
}

// Override is a skill's narrowing of the [Policy]; a nil or zero field
// inherits the global value. Whether it narrows is checked by
// [Config.Rules].
type Override struct {
	// Namespaces redefines global namespaces, each with a subset of its
	// global globs; nil means no redefinition.
	Namespaces map[string][]string `json:"namespaces,omitempty"`
	// AllowedContextNamespaces replaces the global list; nil inherits it,
	// an empty list allows nothing.
	AllowedContextNamespaces *[]string `json:"allowed_context_namespaces,omitempty"`
	// MaxItems replaces the global cap; 0 inherits it.
	MaxItems int `json:"max_items,omitempty"`
	// MaxBytes replaces the global cap; 0 inherits it.
	MaxBytes int `json:"max_bytes,omitempty"`
	// MaxUserMessagesPerThread replaces the global cap; 0 inherits it.
	MaxUserMessagesPerThread int `json:"max_user_messages_per_thread,omitempty"`
	// Ordering replaces the global ordering; "" inherits it.
	Ordering string `json:"ordering,omitempty"`
}

// Config is a valid configuration. It is read-only after [Parse], [Load]
// or [Default] return it, and safe for concurrent use; [Config.Rules]
// works from the state captured at parse time, so editing File afterwards
// changes neither the rules nor the digest.
type Config struct {
	// File is the normalized configuration: defaults filled in, namespace
	// glob lists, allowed namespace lists and deny rules sorted and
	// deduplicated, empty skill and redefinition maps dropped.
	File File
	// Present reports whether .ctxd/config.json existed (always true from
	// Parse).
	Present bool
	// Canonical is the RFC 8785 (JCS) serialization of File: the
	// context_policies artifact.
	Canonical []byte
	// Digest is the context_config_digest, "sha256:" and the lowercase
	// hex SHA-256 of Canonical.
	Digest string

	// policy is a private deep copy of File.Policy (nil when none).
	policy *Policy
	// globs holds every glob of policy, compiled, by its text.
	globs map[string]*glob
	// zeroCaps lists, per skill, the cap members the file set to an
	// explicit 0: the typed Override cannot tell them from absent ones,
	// but 0 would mean "no cap", a widening when the global cap is set.
	zeroCaps map[string][]string
}

// defaultRules is the default, and canonical, order of the normalization
// rules.
var defaultRules = []string{RuleFilterIntentOnly, RuleScopeBound, RuleSortCanonical}

// defaultFile returns a File holding every default, with fresh slices.
func defaultFile() File {
	return File{
		SchemaVersion: SchemaVersion,
		DenyRules:     []string{},
		Context: Context{
			MaxRefs:                     50,
			EmptyRefsPolicy:             EmptyRefsAllow, // see Context.EmptyRefsPolicy
			ExpandLastN:                 10,
			AllowExecutionRefsForPrompt: true,
			CanonicalSort:               CanonicalSortEventIndexAsc,
			EnforceScopeBound:           true,
		},
		Normalization: Normalization{Rules: slices.Clone(defaultRules)},
	}
}

// Default returns the configuration of a workspace without
// .ctxd/config.json: every default, no policy, Present false. Its Digest
// equals that of a file holding only {"schema_version": "1"}.
func Default() *Config {
	c, err := newConfig(defaultFile(), nil)
	if err != nil {
		// The defaults are constants; serializing them cannot fail.
		panic(fmt.Sprintf("policy: serializing the default configuration: %v", err))
	}
	return c
}

// Parse validates and normalizes the content of .ctxd/config.json. It is
// strict: unknown or duplicate members, wrong types, values out of range,
// numbers with a fraction or exponent, invalid globs and the other rules
// of the package comment are errors. Every error is an *[Error] with
// Reason ReasonInvalid, Path ConfigPath and the Field at fault ("" for
// JSON syntax errors that concern no member; every Message gives the
// line and column). Skill overrides are checked later, by [Config.Rules].
func Parse(data []byte) (*Config, error) {
	doc, serr := decodeDocument(data)
	if serr != nil {
		return nil, invalidError(data, fieldError{offset: serr.offset, field: serr.field, msg: serr.msg}, serr.field == "")
	}
	errs, err := validateSchema(doc)
	if err != nil {
		return nil, &Error{
			Reason:  ReasonInvalid,
			Path:    ConfigPath,
			Message: fmt.Sprintf("%s: cannot be checked: %v", ConfigPath, err),
			Advice:  "This is a ctxd bug: its built-in configuration schema is broken. Report it with the ctxd version.",
			cause:   err,
		}
	}
	if len(errs) > 0 {
		return nil, invalidError(data, first(errs), false)
	}
	if ptr, lit, ok := doc.firstNonInteger(); ok {
		return nil, invalidError(data, fieldError{
			offset: doc.offset(ptr), field: ptr,
			msg: fmt.Sprintf("must be written as a plain integer, without fraction or exponent, got %s", render(json.Number(lit))),
		}, false)
	}
	f := defaultFile()
	if err := strictjson.Decode(data, &f, strictjson.Options{}); err != nil {
		// The schema admits only what File can hold; reaching this is a
		// mismatch between the two, reported without guessing a field.
		return nil, invalidError(data, fieldError{msg: fmt.Sprintf("cannot be decoded: %v", err)}, false)
	}
	if errs := checkFile(&f, doc); len(errs) > 0 {
		return nil, invalidError(data, first(errs), false)
	}
	normalize(&f)
	c, err := newConfig(f, explicitZeroCaps(doc))
	if err != nil {
		return nil, &Error{
			Reason:  ReasonInvalid,
			Path:    ConfigPath,
			Message: fmt.Sprintf("%s: cannot be serialized: %v", ConfigPath, err),
			Advice:  "This is a ctxd bug. Report it with the ctxd version.",
			cause:   err,
		}
	}
	c.Present = true
	return c, nil
}

// invalidError makes the ReasonInvalid error for fe. syntax selects the
// form of a JSON syntax error, which has no field.
func invalidError(data []byte, fe fieldError, syntax bool) *Error {
	line, col := position(data, fe.offset)
	e := &Error{Reason: ReasonInvalid, Path: ConfigPath, Field: fe.field}
	if syntax || fe.field == "" {
		e.Message = fmt.Sprintf("%s: line %d, column %d: %s", ConfigPath, line, col, fe.msg)
	} else {
		e.Message = fmt.Sprintf("%s: %s: %s (line %d, column %d)", ConfigPath, fe.field, fe.msg, line, col)
	}
	if syntax {
		e.Advice = fmt.Sprintf("Fix the JSON syntax of %s at line %d, column %d.", ConfigPath, line, col)
	} else {
		where := fe.field
		if where == "" {
			where = "the top-level value"
		}
		e.Advice = fmt.Sprintf("Correct %s in %s; docs/schemas/config.schema.json describes every member.", where, ConfigPath)
	}
	if fe.advice != "" {
		e.Advice = fe.advice
	}
	return e
}

// normalize puts f in its canonical form; f is valid.
func normalize(f *File) {
	f.DenyRules = sortedSet(f.DenyRules)
	p := f.Policy
	if p == nil {
		return
	}
	p.Namespaces = normalizeNamespaces(p.Namespaces)
	if p.Namespaces == nil {
		p.Namespaces = map[string][]string{}
	}
	p.AllowedContextNamespaces = normalizeAllowed(p.AllowedContextNamespaces)
	if p.Ordering == "" {
		p.Ordering = OrderingStableManifestOrder
	}
	if len(p.Skills) == 0 {
		p.Skills = nil
		return
	}
	for name, o := range p.Skills {
		o.Namespaces = normalizeNamespaces(o.Namespaces)
		o.AllowedContextNamespaces = normalizeAllowed(o.AllowedContextNamespaces)
		p.Skills[name] = o
	}
}

// normalizeNamespaces sorts and deduplicates every glob list; an empty
// map becomes nil.
func normalizeNamespaces(ns map[string][]string) map[string][]string {
	if len(ns) == 0 {
		return nil
	}
	out := make(map[string][]string, len(ns))
	for name, globs := range ns {
		out[name] = sortedSet(globs)
	}
	return out
}

// normalizeAllowed sorts and deduplicates an allowed list, keeping nil
// (unrestricted) apart from empty (nothing allowed).
func normalizeAllowed(a *[]string) *[]string {
	if a == nil {
		return nil
	}
	s := sortedSet(*a)
	return &s
}

// sortedSet returns a sorted copy of s without duplicates, never nil.
func sortedSet(s []string) []string {
	out := slices.Clone(s)
	if out == nil {
		out = []string{}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// newConfig serializes the normalized f and compiles its globs; zero is
// the explicit zero caps of the skills (nil for none).
func newConfig(f File, zero map[string][]string) (*Config, error) {
	raw, err := json.Marshal(f)
	if err != nil {
		return nil, fmt.Errorf("marshaling the configuration: %w", err)
	}
	canon, err := jcs.Transform(raw)
	if err != nil {
		return nil, fmt.Errorf("canonicalizing the configuration: %w", err)
	}
	c := &Config{File: f, Canonical: canon, Digest: digest(canon), zeroCaps: zero}
	if f.Policy != nil {
		c.policy = clonePolicy(f.Policy)
		c.globs = map[string]*glob{}
		add := func(ns map[string][]string) error {
			for _, globs := range ns {
				for _, s := range globs {
					if _, ok := c.globs[s]; ok {
						continue
					}
					g, err := compileGlob(s)
					if err != nil {
						return fmt.Errorf("compiling glob %q: %w", s, err)
					}
					c.globs[s] = g
				}
			}
			return nil
		}
		if err := add(c.policy.Namespaces); err != nil {
			return nil, err
		}
		for _, o := range c.policy.Skills {
			if err := add(o.Namespaces); err != nil {
				return nil, err
			}
		}
	}
	return c, nil
}

// digest returns "sha256:" and the lowercase hex SHA-256 of b.
func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// clonePolicy deep-copies p.
func clonePolicy(p *Policy) *Policy {
	q := *p
	q.Namespaces = cloneNamespaces(p.Namespaces)
	q.AllowedContextNamespaces = cloneAllowed(p.AllowedContextNamespaces)
	if p.Skills != nil {
		q.Skills = make(map[string]Override, len(p.Skills))
		for name, o := range p.Skills {
			o.Namespaces = cloneNamespaces(o.Namespaces)
			o.AllowedContextNamespaces = cloneAllowed(o.AllowedContextNamespaces)
			q.Skills[name] = o
		}
	}
	return &q
}

func cloneNamespaces(ns map[string][]string) map[string][]string {
	if ns == nil {
		return nil
	}
	out := maps.Clone(ns)
	for k, v := range out {
		out[k] = slices.Clone(v)
	}
	return out
}

func cloneAllowed(a *[]string) *[]string {
	if a == nil {
		return nil
	}
	s := slices.Clone(*a)
	if s == nil {
		s = []string{}
	}
	return &s
}

package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/contextbuilder/cbtest"
	"github.com/google/go-cmp/cmp"
)

// defaultContext is Context with every default.
var defaultContext = Context{
	MaxRefs:                     50,
	EmptyRefsPolicy:             "ALLOW",
	ExpandLastN:                 10,
	AllowExecutionRefsForPrompt: true,
	CanonicalSort:               "event_index_asc",
	EnforceScopeBound:           true,
}

var defaultNormalization = Normalization{Rules: []string{"FILTER_INTENT_ONLY", "SCOPE_BOUND", "SORT_CANONICAL"}}

func strs(s ...string) *[]string {
	if s == nil {
		s = []string{}
	}
	return &s
}

// fullConfig uses every member of the file.
const fullConfig = `{
  "schema_version": "1",
  "model": {"provider": "anthropic", "model": "claude-sonnet-4", "max_input_tokens": 200000,
    "max_output_tokens": 8000, "response_token_reserve": 4000, "soft_limit_threshold_pct": 75},
  "deny_rules": ["secrets/**", "*.pem", "secrets/**"],
  "context": {"max_refs": 20, "empty_refs_policy": "DENY", "expand_last_n": 0,
    "allow_execution_refs_for_prompt": false, "canonical_sort": "event_index_asc", "enforce_scope_bound": true},
  "normalization": {"rules": ["SORT_CANONICAL", "FILTER_INTENT_ONLY", "SCOPE_BOUND"]},
  "policy": {
    "schema": "ctxd.context_policy.v1",
    "namespaces": {
      "src": ["src/**", "cmd/**", "src/**"],
      "docs": ["docs/*.md", "README.md"],
      "tests": ["**/*_test.go"]
    },
    "allowed_context_namespaces": ["src", "docs", "src"],
    "max_items": 40,
    "max_bytes": 500000,
    "max_user_messages_per_thread": 5,
    "ordering": "lexicographic",
    "skills": {
      "review": {"allowed_context_namespaces": ["src"], "max_items": 10, "ordering": "stable_manifest_order"},
      "docs-only": {"namespaces": {"docs": ["docs/*.md"]}, "allowed_context_namespaces": ["docs"],
        "max_bytes": 1000, "max_user_messages_per_thread": 2}
    }
  }
}`

var fullFile = File{
	SchemaVersion: "1",
	Model: Model{Provider: "anthropic", Model: "claude-sonnet-4", MaxInputTokens: 200000,
		MaxOutputTokens: 8000, ResponseTokenReserve: 4000, SoftLimitThresholdPct: 75},
	DenyRules: []string{"*.pem", "secrets/**"},
	Context: Context{MaxRefs: 20, EmptyRefsPolicy: "DENY", ExpandLastN: 0,
		AllowExecutionRefsForPrompt: false, CanonicalSort: "event_index_asc", EnforceScopeBound: true},
	Normalization: Normalization{Rules: []string{"SORT_CANONICAL", "FILTER_INTENT_ONLY", "SCOPE_BOUND"}},
	Policy: &Policy{
		Schema: "ctxd.context_policy.v1",
		Namespaces: map[string][]string{
			"src":   {"cmd/**", "src/**"},
			"docs":  {"README.md", "docs/*.md"},
			"tests": {"**/*_test.go"},
		},
		AllowedContextNamespaces: strs("docs", "src"),
		MaxItems:                 40,
		MaxBytes:                 500000,
		MaxUserMessagesPerThread: 5,
		Ordering:                 "lexicographic",
		Skills: map[string]Override{
			"review": {AllowedContextNamespaces: strs("src"), MaxItems: 10, Ordering: "stable_manifest_order"},
			"docs-only": {Namespaces: map[string][]string{"docs": {"docs/*.md"}},
				AllowedContextNamespaces: strs("docs"), MaxBytes: 1000, MaxUserMessagesPerThread: 2},
		},
	},
}

func TestDefault(t *testing.T) {
	c := Default()
	want := File{
		SchemaVersion: "1",
		DenyRules:     []string{},
		Context:       defaultContext,
		Normalization: defaultNormalization,
	}
	if diff := cmp.Diff(want, c.File); diff != "" {
		t.Errorf("Default().File (-want +got):\n%s", diff)
	}
	if c.Present {
		t.Error("Default().Present = true")
	}
	wantCanon := `{"context":{"allow_execution_refs_for_prompt":true,"canonical_sort":"event_index_asc",` +
		`"empty_refs_policy":"ALLOW","enforce_scope_bound":true,"expand_last_n":10,"max_refs":50},` +
		`"deny_rules":[],"model":{},"normalization":{"rules":["FILTER_INTENT_ONLY","SCOPE_BOUND","SORT_CANONICAL"]},` +
		`"schema_version":"1"}`
	if diff := cmp.Diff(wantCanon, string(c.Canonical)); diff != "" {
		t.Errorf("Default().Canonical (-want +got):\n%s", diff)
	}
	if !strings.HasPrefix(c.Digest, "sha256:") || len(c.Digest) != len("sha256:")+64 {
		t.Errorf("Default().Digest = %q, want sha256:<64 hex>", c.Digest)
	}
	if c.Digest != digest(c.Canonical) {
		t.Errorf("Default().Digest = %q, not the digest of Canonical", c.Digest)
	}
	cbtest.Validate(t, "config.schema.json", c.Canonical)
	r, err := c.Rules("")
	if err != nil || r != nil {
		t.Errorf("Default().Rules(\"\") = %v, %v; want nil, nil", r, err)
	}
	minimal, err := Parse([]byte(`{"schema_version": "1"}`))
	if err != nil {
		t.Fatal(err)
	}
	if minimal.Digest != c.Digest {
		t.Errorf("digest of {\"schema_version\": \"1\"} = %s, want Default's %s", minimal.Digest, c.Digest)
	}
}

func TestParseValid(t *testing.T) {
	withDefaults := func(f func(*File)) File {
		file := File{SchemaVersion: "1", DenyRules: []string{}, Context: defaultContext, Normalization: defaultNormalization}
		f(&file)
		return file
	}
	tests := []struct {
		name string
		in   string
		want File
	}{
		{
			name: "minimal",
			in:   `{"schema_version": "1"}`,
			want: withDefaults(func(*File) {}),
		},
		{
			name: "model",
			in:   `{"schema_version": "1", "model": {"provider": "openai", "max_input_tokens": 64000}}`,
			want: withDefaults(func(f *File) { f.Model = Model{Provider: "openai", MaxInputTokens: 64000} }),
		},
		{
			name: "deny rules sorted and deduplicated",
			in:   `{"schema_version": "1", "deny_rules": ["b/**", "\\#hash", "a.key", "b/**"]}`,
			want: withDefaults(func(f *File) { f.DenyRules = []string{"\\#hash", "a.key", "b/**"} }),
		},
		{
			name: "context partly set keeps the other defaults",
			in:   `{"schema_version": "1", "context": {"expand_last_n": 0, "allow_execution_refs_for_prompt": false}}`,
			want: withDefaults(func(f *File) {
				f.Context.ExpandLastN = 0
				f.Context.AllowExecutionRefsForPrompt = false
			}),
		},
		{
			name: "context empty refs DENY",
			in:   `{"schema_version": "1", "context": {"empty_refs_policy": "DENY", "max_refs": 1000}}`,
			want: withDefaults(func(f *File) {
				f.Context.EmptyRefsPolicy = "DENY"
				f.Context.MaxRefs = 1000
			}),
		},
		{
			name: "normalization order kept",
			in:   `{"schema_version": "1", "normalization": {"rules": ["SCOPE_BOUND", "SORT_CANONICAL", "FILTER_INTENT_ONLY"]}}`,
			want: withDefaults(func(f *File) {
				f.Normalization.Rules = []string{"SCOPE_BOUND", "SORT_CANONICAL", "FILTER_INTENT_ONLY"}
			}),
		},
		{
			name: "policy schema only",
			in:   `{"schema_version": "1", "policy": {"schema": "ctxd.context_policy.v1"}}`,
			want: withDefaults(func(f *File) {
				f.Policy = &Policy{Schema: PolicySchema, Namespaces: map[string][]string{}, Ordering: "stable_manifest_order"}
			}),
		},
		{
			name: "policy empty allowed list and empty skills",
			in: `{"schema_version": "1", "policy": {"schema": "ctxd.context_policy.v1",
				"namespaces": {"a": ["a/**"]}, "allowed_context_namespaces": [], "skills": {}}}`,
			want: withDefaults(func(f *File) {
				f.Policy = &Policy{Schema: PolicySchema, Namespaces: map[string][]string{"a": {"a/**"}},
					AllowedContextNamespaces: strs(), Ordering: "stable_manifest_order"}
			}),
		},
		{
			name: "all together",
			in:   fullConfig,
			want: fullFile,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cbtest.Validate(t, "config.schema.json", []byte(tt.in))
			c, err := Parse([]byte(tt.in))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if diff := cmp.Diff(tt.want, c.File); diff != "" {
				t.Errorf("File (-want +got):\n%s", diff)
			}
			if !c.Present {
				t.Error("Present = false")
			}
			cbtest.Validate(t, "config.schema.json", c.Canonical)
			again, err := Parse(c.Canonical)
			if err != nil {
				t.Fatalf("Parse(Canonical): %v", err)
			}
			if diff := cmp.Diff(c.Digest, again.Digest); diff != "" {
				t.Errorf("digest after re-parsing Canonical (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(string(c.Canonical), string(again.Canonical)); diff != "" {
				t.Errorf("Canonical after re-parsing it (-want +got):\n%s", diff)
			}
		})
	}
}

// invalidCase is a file that Parse must reject.
type invalidCase struct {
	name  string
	in    string
	field string
	msg   string // a substring of Message
}

// policyWith wraps policy members in a valid file.
func policyWith(members string) string {
	return `{"schema_version": "1", "policy": {"schema": "ctxd.context_policy.v1", ` + members + `}}`
}

var invalidCases = []invalidCase{
	// JSON itself.
	{name: "empty file", in: "", msg: "line 1, column 1: the file is empty"},
	{name: "blank file", in: " \n\t", msg: "the file is empty"},
	{name: "syntax error", in: "{\n  \"schema_version\": \"1\",\n}", msg: "line 3, column 1: invalid JSON"},
	{name: "truncated", in: `{"schema_version": "1"`, msg: "unexpected end of file"},
	{name: "trailing data", in: `{"schema_version": "1"} {}`, msg: "line 1, column 25: invalid JSON: data after the top-level object"},
	{name: "not UTF-8", in: "{\"schema_version\": \"\xff\"}", msg: "not valid UTF-8"},
	{name: "byte order mark", in: "\uFEFF{\"schema_version\": \"1\"}", msg: "byte order mark"},
	{name: "duplicate member", in: `{"schema_version": "1", "schema_version": "1"}`, field: "/schema_version", msg: "appears more than once"},
	{name: "duplicate nested member", in: `{"schema_version": "1", "context": {"max_refs": 1, "max_refs": 2}}`, field: "/context/max_refs", msg: "more than once"},
	{name: "too deep", in: `{"schema_version": "1", "deny_rules": ` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}`,
		field: "/deny_rules" + strings.Repeat("/0", 31), msg: "nesting deeper than 32"},
	{name: "root not an object", in: `["schema_version"]`, msg: "must be an object, got an array"},
	{name: "root null", in: `null`, msg: "must be an object, got null"},

	// schema_version.
	{name: "schema_version missing", in: `{"model": {}}`, field: "/schema_version", msg: `missing required member "schema_version"`},
	{name: "schema_version wrong", in: `{"schema_version": "2"}`, field: "/schema_version", msg: `must be "1", got "2"`},
	{name: "schema_version number", in: `{"schema_version": 1}`, field: "/schema_version", msg: `must be "1", got 1`},

	// Unknown members at each level.
	{name: "unknown top-level member", in: `{"schema_version": "1", "polcy": {}}`, field: "/polcy", msg: `unknown member "polcy"; expected one of: context, deny_rules, model, normalization, policy, sandbox, schema_version`},
	{name: "unknown model member", in: `{"schema_version": "1", "model": {"temperature": 1}}`, field: "/model/temperature", msg: "unknown member"},
	{name: "unknown context member", in: `{"schema_version": "1", "context": {"max_ref": 1}}`, field: "/context/max_ref", msg: "unknown member"},
	{name: "unknown normalization member", in: `{"schema_version": "1", "normalization": {"rule": []}}`, field: "/normalization/rule", msg: "unknown member"},
	{name: "unknown policy member", in: policyWith(`"max_files": 3`), field: "/policy/max_files", msg: "unknown member"},
	{name: "unknown override member", in: policyWith(`"skills": {"s": {"deny": []}}`), field: "/policy/skills/s/deny", msg: "unknown member"},
	{name: "unknown member with slash is escaped", in: `{"schema_version": "1", "a/b~": 1}`, field: "/a~1b~0", msg: `unknown member "a/b~"`},
	{name: "first unknown member in document order", in: `{"schema_version": "1", "zz": 1, "aa": 2}`, field: "/zz", msg: "unknown member"},

	// Wrong types.
	{name: "model not an object", in: `{"schema_version": "1", "model": "gpt-4o"}`, field: "/model", msg: `must be an object, got "gpt-4o"`},
	{name: "max_input_tokens string", in: `{"schema_version": "1", "model": {"max_input_tokens": "many"}}`, field: "/model/max_input_tokens", msg: `must be a positive integer, got "many"`},
	{name: "max_items string", in: policyWith(`"max_items": "ten"`), field: "/policy/max_items", msg: `/policy/max_items: must be a non-negative integer, got "ten"`},
	{name: "deny_rules not an array", in: `{"schema_version": "1", "deny_rules": "*.pem"}`, field: "/deny_rules", msg: "must be an array"},
	{name: "deny rule not a string", in: `{"schema_version": "1", "deny_rules": [1]}`, field: "/deny_rules/0", msg: "must be a .gitignore pattern"},
	{name: "boolean as string", in: `{"schema_version": "1", "context": {"allow_execution_refs_for_prompt": "yes"}}`, field: "/context/allow_execution_refs_for_prompt", msg: `must be true or false, got "yes"`},
	{name: "null member", in: `{"schema_version": "1", "deny_rules": null}`, field: "/deny_rules", msg: "got null"},
	{name: "allowed list not an array", in: policyWith(`"namespaces": {"a": ["a"]}, "allowed_context_namespaces": "a"`), field: "/policy/allowed_context_namespaces", msg: "must be an array"},
	{name: "namespace globs not an array", in: policyWith(`"namespaces": {"a": "a/**"}`), field: "/policy/namespaces/a", msg: "must be an array"},
	{name: "fraction", in: `{"schema_version": "1", "context": {"max_refs": 10.0}}`, field: "/context/max_refs", msg: "must be written as a plain integer, without fraction or exponent, got 10.0"},
	{name: "exponent", in: policyWith(`"max_bytes": 1e6`), field: "/policy/max_bytes", msg: "plain integer"},
	{name: "fractional value", in: `{"schema_version": "1", "context": {"max_refs": 1.5}}`, field: "/context/max_refs", msg: "must be an integer from 1 to 1000, got 1.5"},
	{name: "huge number", in: `{"schema_version": "1", "model": {"max_output_tokens": 1` + strings.Repeat("0", 100) + `}}`, field: "/model/max_output_tokens", msg: "…"},

	// Bad enums and ranges.
	{name: "empty_refs_policy lower case", in: `{"schema_version": "1", "context": {"empty_refs_policy": "deny"}}`, field: "/context/empty_refs_policy", msg: `must be one of "DENY", "ALLOW", got "deny"`},
	{name: "canonical_sort other", in: `{"schema_version": "1", "context": {"canonical_sort": "event_index_desc"}}`, field: "/context/canonical_sort", msg: `must be "event_index_asc"`},
	{name: "ordering unknown", in: policyWith(`"ordering": "random"`), field: "/policy/ordering", msg: `must be one of "lexicographic", "stable_manifest_order"`},
	{name: "override ordering unknown", in: policyWith(`"skills": {"s": {"ordering": ""}}`), field: "/policy/skills/s/ordering", msg: "must be one of"},
	{name: "max_refs zero", in: `{"schema_version": "1", "context": {"max_refs": 0}}`, field: "/context/max_refs", msg: "must be an integer from 1 to 1000, got 0"},
	{name: "max_refs too large", in: `{"schema_version": "1", "context": {"max_refs": 1001}}`, field: "/context/max_refs", msg: "got 1001"},
	{name: "expand_last_n negative", in: `{"schema_version": "1", "context": {"expand_last_n": -1}}`, field: "/context/expand_last_n", msg: "must be an integer from 0 to 1000, got -1"},
	{name: "soft limit over 100", in: `{"schema_version": "1", "model": {"soft_limit_threshold_pct": 101}}`, field: "/model/soft_limit_threshold_pct", msg: "must be an integer from 1 to 100"},
	{name: "model tokens zero", in: `{"schema_version": "1", "model": {"max_input_tokens": 0}}`, field: "/model/max_input_tokens", msg: "must be a positive integer, got 0"},
	{name: "provider blank", in: `{"schema_version": "1", "model": {"provider": " "}}`, field: "/model/provider", msg: "must be a non-blank string"},
	{name: "model with control character", in: `{"schema_version": "1", "model": {"model": "gpt\u0007"}}`, field: "/model/model", msg: "without control characters"},
	{name: "reserve not below window", in: `{"schema_version": "1", "model": {"max_input_tokens": 1000, "response_token_reserve": 1000}}`, field: "/model/response_token_reserve", msg: "must be less than /model/max_input_tokens (1000), got 1000"},
	{name: "enforce_scope_bound false", in: `{"schema_version": "1", "context": {"enforce_scope_bound": false}}`, field: "/context/enforce_scope_bound", msg: "must be true, got false: ctxd never supports cross-thread refs"},

	// Normalization rules.
	{name: "normalization missing a rule", in: `{"schema_version": "1", "normalization": {"rules": ["FILTER_INTENT_ONLY", "SORT_CANONICAL"]}}`, field: "/normalization/rules", msg: "would misdescribe what was applied"},
	{name: "normalization empty", in: `{"schema_version": "1", "normalization": {"rules": []}}`, field: "/normalization/rules", msg: "FILTER_INTENT_ONLY and SCOPE_BOUND and SORT_CANONICAL"},
	{name: "normalization unknown rule", in: `{"schema_version": "1", "normalization": {"rules": ["FILTER_INTENT_ONLY", "SCOPE_BOUND", "SORT_CANONICAL", "DEDUPE"]}}`, field: "/normalization/rules/3", msg: `got "DEDUPE"`},
	{name: "normalization duplicate", in: `{"schema_version": "1", "normalization": {"rules": ["FILTER_INTENT_ONLY", "SCOPE_BOUND", "SORT_CANONICAL", "SCOPE_BOUND"]}}`, field: "/normalization/rules/3", msg: `"SCOPE_BOUND" is listed twice (items 1 and 3)`},

	// Deny rules.
	{name: "deny rule negation", in: `{"schema_version": "1", "deny_rules": ["*.key", "!public.key"]}`, field: "/deny_rules/1", msg: "is a negation"},
	{name: "deny rule comment", in: `{"schema_version": "1", "deny_rules": ["#secret"]}`, field: "/deny_rules/0", msg: "can never match"},
	{name: "deny rule unterminated class", in: `{"schema_version": "1", "deny_rules": ["[ab"]}`, field: "/deny_rules/0", msg: "can never match"},
	{name: "deny rule blank", in: `{"schema_version": "1", "deny_rules": ["   "]}`, field: "/deny_rules/0", msg: "can never match"},
	{name: "deny rule empty", in: `{"schema_version": "1", "deny_rules": [""]}`, field: "/deny_rules/0", msg: "must be a .gitignore pattern"},
	{name: "deny rule newline", in: `{"schema_version": "1", "deny_rules": ["a\nb"]}`, field: "/deny_rules/0", msg: "without control characters"},

	// Policy.
	{name: "policy schema missing", in: `{"schema_version": "1", "policy": {"max_items": 1}}`, field: "/policy/schema", msg: `missing required member "schema"`},
	{name: "policy schema wrong", in: `{"schema_version": "1", "policy": {"schema": "serverd.context_policy.v1"}}`, field: "/policy/schema", msg: `must be "ctxd.context_policy.v1", got "serverd.context_policy.v1"`},
	{name: "negative max_items", in: policyWith(`"max_items": -1`), field: "/policy/max_items", msg: "must be a non-negative integer, got -1"},
	{name: "negative max_bytes", in: policyWith(`"max_bytes": -1`), field: "/policy/max_bytes", msg: "non-negative"},
	{name: "negative max_user_messages", in: policyWith(`"max_user_messages_per_thread": -5`), field: "/policy/max_user_messages_per_thread", msg: "non-negative"},
	{name: "negative override cap", in: policyWith(`"skills": {"s": {"max_items": -1}}`), field: "/policy/skills/s/max_items", msg: "non-negative"},
	{name: "empty namespace list", in: policyWith(`"namespaces": {"src": []}`), field: "/policy/namespaces/src", msg: "must not be empty"},
	{name: "empty override namespace list", in: policyWith(`"namespaces": {"src": ["src/**"]}, "skills": {"s": {"namespaces": {"src": []}}}`), field: "/policy/skills/s/namespaces/src", msg: "must not be empty"},
	{name: "bad namespace name", in: policyWith(`"namespaces": {"my src": ["src/**"]}`), field: "/policy/namespaces/my src", msg: `the name "my src" is invalid: it must be a name of 1 to 64`},
	{name: "bad skill name", in: policyWith(`"skills": {"-x": {}}`), field: "/policy/skills/-x", msg: "is invalid"},
	{name: "bad override namespace name", in: policyWith(`"namespaces": {"src": ["src/**"]}, "skills": {"s": {"namespaces": {"a/b": ["src/**"]}}}`), field: "/policy/skills/s/namespaces/a~1b", msg: `the name "a/b" is invalid`},
	{name: "first bad name in document order", in: policyWith(`"namespaces": {"zz z": ["a"], "a a": ["b"]}, "max_items": -1`), field: "/policy/namespaces/zz z", msg: "is invalid"},
	{name: "bad glob double star", in: policyWith(`"namespaces": {"src": ["src/**.go"]}`), field: "/policy/namespaces/src/0", msg: `glob "src/**.go" is invalid: "**.go" uses "**" inside a segment`},
	{name: "bad glob absolute", in: policyWith(`"namespaces": {"src": ["src/**", "/etc/*"]}`), field: "/policy/namespaces/src/1", msg: `starts with "/"`},
	{name: "bad glob dotdot", in: policyWith(`"namespaces": {"up": ["../x/**"]}`), field: "/policy/namespaces/up/0", msg: `".." segment`},
	{name: "bad glob class", in: policyWith(`"namespaces": {"c": ["[a-"]}`), field: "/policy/namespaces/c/0", msg: "unterminated"},
	{name: "bad glob empty", in: policyWith(`"namespaces": {"c": [""]}`), field: "/policy/namespaces/c/0", msg: "must be a path glob"},
	{name: "bad glob in override", in: policyWith(`"namespaces": {"src": ["src/**"]}, "skills": {"s": {"namespaces": {"src": ["src//x"]}}}`), field: "/policy/skills/s/namespaces/src/0", msg: "empty segment"},
	{name: "allowed unknown namespace", in: policyWith(`"namespaces": {"src": ["src/**"]}, "allowed_context_namespaces": ["src", "docs"]`), field: "/policy/allowed_context_namespaces/1", msg: `names the namespace "docs", which /policy/namespaces does not define; defined: src`},
	{name: "allowed without namespaces", in: policyWith(`"allowed_context_namespaces": ["src"]`), field: "/policy/allowed_context_namespaces/0", msg: "defined: none"},
	{name: "allowed bad name", in: policyWith(`"allowed_context_namespaces": ["a b"]`), field: "/policy/allowed_context_namespaces/0", msg: "must be a name"},
	{name: "skills not an object", in: policyWith(`"skills": []`), field: "/policy/skills", msg: "must be an object"},

	// Order: the first problem in the document is reported.
	{name: "first error in document order", in: `{"schema_version": "1", "context": {"max_refs": 0}, "model": {"max_input_tokens": 0}}`, field: "/context/max_refs", msg: "got 0"},
	{name: "first error in document order reversed", in: `{"schema_version": "1", "model": {"max_input_tokens": 0}, "context": {"max_refs": 0}}`, field: "/model/max_input_tokens", msg: "got 0"},
}

func TestParseInvalid(t *testing.T) {
	for _, tt := range invalidCases {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse([]byte(tt.in))
			if err == nil {
				t.Fatalf("Parse succeeded with digest %s; want an error", c.Digest)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T %v is not an *Error", err, err)
			}
			type key struct{ Reason, Path, Field string }
			if diff := cmp.Diff(key{ReasonInvalid, ConfigPath, tt.field}, key{e.Reason, e.Path, e.Field}); diff != "" {
				t.Errorf("error %q (-want +got):\n%s", e.Message, diff)
			}
			if !strings.Contains(e.Message, tt.msg) {
				t.Errorf("Message = %q, want it to contain %q", e.Message, tt.msg)
			}
			if !strings.HasPrefix(e.Message, ConfigPath+": ") {
				t.Errorf("Message = %q, want it to start with the file", e.Message)
			}
			if tt.field != "" && !strings.Contains(e.Message, tt.field) {
				t.Errorf("Message = %q, want it to name the field %s", e.Message, tt.field)
			}
			if e.Advice == "" {
				t.Error("Advice is empty")
			}
			if got := err.Error(); got != ReasonInvalid+": "+e.Message {
				t.Errorf("Error() = %q", got)
			}
		})
	}
}

// TestParseDeterministic parses every invalid case repeatedly: the error
// must never depend on map order or on the validator's internal state.
func TestParseDeterministic(t *testing.T) {
	for _, tt := range invalidCases {
		_, first := Parse([]byte(tt.in))
		for range 20 {
			_, err := Parse([]byte(tt.in))
			if diff := cmp.Diff(first, err, cmp.AllowUnexported(Error{})); diff != "" {
				t.Errorf("%s: error changed between runs (-first +now):\n%s", tt.name, diff)
				break
			}
		}
	}
}

// TestMessagesBoundValues checks that a long value is quoted at most 80
// bytes long, so that a secret pasted into the file is not echoed whole.
func TestMessagesBoundValues(t *testing.T) {
	secret := "sk-" + strings.Repeat("A1b2C3d4", 40)
	for _, in := range []string{
		`{"schema_version": "` + secret + `"}`,
		`{"schema_version": "1", "context": {"empty_refs_policy": "` + secret + `"}}`,
		`{"schema_version": "1", "deny_rules": ["!` + secret + `"]}`,
		`{"schema_version": "1", "model": {"provider": "` + secret + `"}}`,
	} {
		_, err := Parse([]byte(in))
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("Parse(%.40q…) = %v, want an *Error", in, err)
		}
		if strings.Contains(e.Message, secret[:100]) || strings.Contains(e.Advice, secret[:100]) {
			t.Errorf("message quotes more than 80 bytes of the value: %q", e.Message)
		}
	}
	if got := quote(strings.Repeat("é", 100)); len(got) > maxQuoted || !strings.HasSuffix(got, "…") {
		t.Errorf("quote(100×é) = %q (%d bytes)", got, len(got))
	}
	if got := quote(strings.Repeat("\x01", 100)); len(got) > maxQuoted {
		t.Errorf("quote(100×\\x01) = %q (%d bytes)", got, len(got))
	}
	if got, want := quote("ten"), `"ten"`; got != want {
		t.Errorf("quote(ten) = %s, want %s", got, want)
	}
}

func TestDigestStable(t *testing.T) {
	base := mustParse(t, fullConfig)
	// The same configuration written differently: other key order,
	// whitespace, list order and duplicates of sets, defaults spelled out.
	same := []string{
		compact(t, fullConfig),
		`{"policy": {"skills": {"docs-only": {"max_user_messages_per_thread": 2, "max_bytes": 1000,
		    "allowed_context_namespaces": ["docs", "docs"], "namespaces": {"docs": ["docs/*.md", "docs/*.md"]}},
		    "review": {"ordering": "stable_manifest_order", "max_items": 10, "allowed_context_namespaces": ["src"]}},
		  "ordering": "lexicographic", "max_user_messages_per_thread": 5, "max_bytes": 500000, "max_items": 40,
		  "allowed_context_namespaces": ["docs", "src"],
		  "namespaces": {"tests": ["**/*_test.go"], "docs": ["README.md", "docs/*.md"], "src": ["cmd/**", "src/**"]},
		  "schema": "ctxd.context_policy.v1"},
		 "normalization": {"rules": ["SORT_CANONICAL", "FILTER_INTENT_ONLY", "SCOPE_BOUND"]},
		 "context": {"enforce_scope_bound": true, "allow_execution_refs_for_prompt": false, "expand_last_n": 0,
		   "empty_refs_policy": "DENY", "max_refs": 20},
		 "deny_rules": ["*.pem", "secrets/**"],
		 "model": {"soft_limit_threshold_pct": 75, "response_token_reserve": 4000, "max_output_tokens": 8000,
		   "max_input_tokens": 200000, "model": "claude-sonnet-4", "provider": "anthropic"},
		 "schema_version": "1"}`,
	}
	for i, in := range same {
		if got := mustParse(t, in).Digest; got != base.Digest {
			t.Errorf("variant %d: digest %s, want %s", i, got, base.Digest)
		}
	}
	// Defaults spelled out equal defaults left out.
	explicit := `{"schema_version": "1", "deny_rules": [], "model": {},
	  "context": {"max_refs": 50, "empty_refs_policy": "ALLOW", "expand_last_n": 10,
	    "allow_execution_refs_for_prompt": true, "canonical_sort": "event_index_asc", "enforce_scope_bound": true},
	  "normalization": {"rules": ["FILTER_INTENT_ONLY", "SCOPE_BOUND", "SORT_CANONICAL"]}}`
	if got, want := mustParse(t, explicit).Digest, Default().Digest; got != want {
		t.Errorf("explicit defaults: digest %s, want Default's %s", got, want)
	}
	pol := policyWith(`"namespaces": {"a": ["a/**"]}`)
	polExplicit := policyWith(`"namespaces": {"a": ["a/**"]}, "ordering": "stable_manifest_order", "max_items": 0, "skills": {}`)
	if got, want := mustParse(t, polExplicit).Digest, mustParse(t, pol).Digest; got != want {
		t.Errorf("explicit policy defaults: digest %s, want %s", got, want)
	}
}

func TestDigestChanges(t *testing.T) {
	// Each variant changes one thing of fullConfig's meaning; every
	// digest must differ from the base and from each other.
	edits := map[string][2]string{
		"model":               {`"max_output_tokens": 8000`, `"max_output_tokens": 8001`},
		"deny rule":           {`"*.pem"`, `"*.key"`},
		"max_refs":            {`"max_refs": 20`, `"max_refs": 21`},
		"empty refs":          {`"empty_refs_policy": "DENY"`, `"empty_refs_policy": "ALLOW"`},
		"expand":              {`"expand_last_n": 0`, `"expand_last_n": 1`},
		"exec refs":           {`"allow_execution_refs_for_prompt": false`, `"allow_execution_refs_for_prompt": true`},
		"normalization order": {`["SORT_CANONICAL", "FILTER_INTENT_ONLY", "SCOPE_BOUND"]`, `["FILTER_INTENT_ONLY", "SORT_CANONICAL", "SCOPE_BOUND"]`},
		"glob":                {`"tests": ["**/*_test.go"]`, `"tests": ["**/*_test.py"]`},
		"namespace name":      {`"tests": [`, `"test": [`},
		"allowed":             {`"allowed_context_namespaces": ["src", "docs", "src"]`, `"allowed_context_namespaces": ["src"]`},
		"allowed dropped":     {`"allowed_context_namespaces": ["src", "docs", "src"],`, ``},
		"max_items":           {`"max_items": 40`, `"max_items": 41`},
		"max_bytes":           {`"max_bytes": 500000`, `"max_bytes": 0`},
		"max_user_messages":   {`"max_user_messages_per_thread": 5,`, ``},
		"ordering":            {`"ordering": "lexicographic"`, `"ordering": "stable_manifest_order"`},
		"skill cap":           {`"max_items": 10`, `"max_items": 9`},
		"skill ordering":      {`"max_items": 10, "ordering": "stable_manifest_order"`, `"max_items": 10`},
		"skill name":          {`"review":`, `"reviews":`},
		"skill allowed":       {`"allowed_context_namespaces": ["docs"]`, `"allowed_context_namespaces": []`},
	}
	base := mustParse(t, fullConfig)
	seen := map[string]string{base.Digest: "base"}
	for _, name := range sortedKeys(edits) {
		e := edits[name]
		if !strings.Contains(fullConfig, e[0]) {
			t.Fatalf("%s: %q not in the base config", name, e[0])
		}
		c := mustParse(t, strings.Replace(fullConfig, e[0], e[1], 1))
		if other, ok := seen[c.Digest]; ok {
			t.Errorf("%s: digest equals that of %s", name, other)
		}
		seen[c.Digest] = name
	}
	// No policy differs from an empty policy (which restricts nothing but
	// is still a policy).
	if a, b := mustParse(t, `{"schema_version": "1"}`).Digest, mustParse(t, policyWith(`"namespaces": {}`)).Digest; a == b {
		t.Error("no policy and an empty policy have the same digest")
	}
}

// TestSchemaCopy fails when the embedded schema and the published one
// differ: go:embed cannot reach docs/schemas, so the package keeps a copy.
func TestSchemaCopy(t *testing.T) {
	root := moduleRoot(t)
	docs, err := os.ReadFile(filepath.Join(root, "docs", "schemas", "config.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(docs, schemaJSON) {
		t.Errorf("docs/schemas/config.schema.json and workspace/policy/config.schema.json differ; copy one over the other")
	}
}

// TestSchemaDescribed checks the schema's own conventions: draft 2020-12,
// the published $id, a description on every member, closed objects, and a
// shape in words for every string definition with a pattern.
func TestSchemaDescribed(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(schemaJSON, &doc); err != nil {
		t.Fatal(err)
	}
	if doc["$schema"] != "https://json-schema.org/draft/2020-12/schema" || doc["$id"] != SchemaID {
		t.Errorf("$schema = %v, $id = %v", doc["$schema"], doc["$id"])
	}
	var walk func(at string, v any)
	walk = func(at string, v any) {
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		if props, ok := m["properties"].(map[string]any); ok {
			if m["additionalProperties"] != false {
				t.Errorf("%s: object with properties lacks additionalProperties: false", at)
			}
			for name, p := range props {
				if d, _ := p.(map[string]any)["description"].(string); d == "" {
					t.Errorf("%s/properties/%s: no description", at, name)
				}
			}
		}
		for k, c := range m {
			walk(at+"/"+k, c)
		}
	}
	walk("#", doc)
	defs := doc["$defs"].(map[string]any)
	for name, d := range defs {
		dm := d.(map[string]any)
		if dm["description"] == nil {
			t.Errorf("$defs/%s: no description", name)
		}
		if _, ok := dm["pattern"]; ok && stringShapes[name] == "" {
			t.Errorf("$defs/%s has a pattern but no entry in stringShapes", name)
		}
	}
	for name := range stringShapes {
		if _, ok := defs[name]; !ok {
			t.Errorf("stringShapes names $defs/%s, which does not exist", name)
		}
	}
	if _, err := loadSchema(); err != nil {
		t.Fatal(err)
	}
}

// TestTypesMatchSchema checks that File's JSON form, as produced for
// Canonical, is exactly what the schema describes, member for member.
func TestTypesMatchSchema(t *testing.T) {
	// The sandbox section is in the canonical form only when it relaxes
	// something.
	c := mustParse(t, strings.Replace(fullConfig, `"schema_version": "1",`, `"schema_version": "1", "sandbox": {"allow_hard_links": true},`, 1))
	var got map[string]any
	if err := json.Unmarshal(c.Canonical, &got); err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	if err := json.Unmarshal(schemaJSON, &schema); err != nil {
		t.Fatal(err)
	}
	props := func(m map[string]any) []string { return sortedKeys(m["properties"].(map[string]any)) }
	defs := schema["$defs"].(map[string]any)
	checks := []struct {
		name   string
		schema map[string]any
		value  map[string]any
	}{
		{"top level", schema, got},
		{"model", schema["properties"].(map[string]any)["model"].(map[string]any), got["model"].(map[string]any)},
		{"context", schema["properties"].(map[string]any)["context"].(map[string]any), got["context"].(map[string]any)},
		{"normalization", schema["properties"].(map[string]any)["normalization"].(map[string]any), got["normalization"].(map[string]any)},
		{"policy", schema["properties"].(map[string]any)["policy"].(map[string]any), got["policy"].(map[string]any)},
		{"sandbox", schema["properties"].(map[string]any)["sandbox"].(map[string]any), got["sandbox"].(map[string]any)},
	}
	for _, ch := range checks {
		if diff := cmp.Diff(props(ch.schema), sortedKeys(ch.value)); diff != "" {
			t.Errorf("%s members (-schema +Go):\n%s", ch.name, diff)
		}
	}
	// Every override member, set at once.
	full := Override{Namespaces: map[string][]string{"a": {"a"}}, AllowedContextNamespaces: strs(), MaxItems: 1, MaxBytes: 1, MaxUserMessagesPerThread: 1, Ordering: "lexicographic"}
	raw, err := json.Marshal(full)
	if err != nil {
		t.Fatal(err)
	}
	var o map[string]any
	if err := json.Unmarshal(raw, &o); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(props(defs["override"].(map[string]any)), sortedKeys(o)); diff != "" {
		t.Errorf("override members (-schema +Go):\n%s", diff)
	}
}

func mustParse(t *testing.T, in string) *Config {
	t.Helper()
	c, err := Parse([]byte(in))
	if err != nil {
		t.Fatalf("Parse: %v\ninput: %s", err, in)
	}
	return c
}

func compact(t *testing.T, in string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(in)); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// moduleRoot walks up from the package directory to go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the working directory")
		}
		dir = parent
	}
}

// TestSandboxSection: allow_hard_links is decoded strictly, enters the
// canonical form and the digest only when true, and a strict (absent or
// false) setting keeps the digest of a file without the section.
func TestSandboxSection(t *testing.T) {
	base := mustParse(t, `{"schema_version": "1"}`)
	for _, tc := range []struct {
		name     string
		in       string
		allow    bool
		sameAsNo bool
	}{
		{"absent", `{"schema_version": "1"}`, false, true},
		{"empty", `{"schema_version": "1", "sandbox": {}}`, false, true},
		{"false", `{"schema_version": "1", "sandbox": {"allow_hard_links": false}}`, false, true},
		{"true", `{"schema_version": "1", "sandbox": {"allow_hard_links": true}}`, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := mustParse(t, tc.in)
			if diff := cmp.Diff(Sandbox{AllowHardLinks: tc.allow}, c.File.Sandbox); diff != "" {
				t.Errorf("Sandbox (-want +got):\n%s", diff)
			}
			if got := c.Digest == base.Digest; got != tc.sameAsNo {
				t.Errorf("digest equal to the file without a sandbox section: %v, want %v (canonical %s)", got, tc.sameAsNo, c.Canonical)
			}
			if got := strings.Contains(string(c.Canonical), `"sandbox":{"allow_hard_links":true}`); got != tc.allow {
				t.Errorf("canonical form %s: holds the sandbox section: %v, want %v", c.Canonical, got, tc.allow)
			}
			cbtest.Validate(t, "config.schema.json", c.Canonical)
		})
	}
	for _, tc := range []struct{ name, in, field string }{
		{"unknown member", `{"schema_version": "1", "sandbox": {"allow_symlinks": true}}`, "/sandbox/allow_symlinks"},
		{"not a boolean", `{"schema_version": "1", "sandbox": {"allow_hard_links": "yes"}}`, "/sandbox/allow_hard_links"},
		{"not an object", `{"schema_version": "1", "sandbox": true}`, "/sandbox"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.in))
			var perr *Error
			if !errors.As(err, &perr) {
				t.Fatalf("Parse(%s) = %v, want an *Error", tc.in, err)
			}
			if perr.Field != tc.field {
				t.Errorf("Field = %q, want %q (message %q)", perr.Field, tc.field, perr.Message)
			}
		})
	}
}

package policy

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// rulesView is what a test compares of a Rules.
type rulesView struct {
	Skill                              string
	Ordering                           string
	MaxItems, MaxBytes, MaxUserMsgs    int
	Allowed                            []string
	SrcGo, DocsMD, Readme, Test, Other []string // Namespaces of sample paths
	AllowSrcGo, AllowDocs, AllowTest   bool
}

func view(r *Rules) rulesView {
	return rulesView{
		Skill: r.Skill, Ordering: r.Ordering,
		MaxItems: r.MaxItems, MaxBytes: r.MaxBytes, MaxUserMsgs: r.MaxUserMessagesPerThread,
		Allowed:    r.AllowedNamespaces(),
		SrcGo:      r.Namespaces("src/a/b.go"),
		DocsMD:     r.Namespaces("docs/guide.md"),
		Readme:     r.Namespaces("README.md"),
		Test:       r.Namespaces("src/a/b_test.go"),
		Other:      r.Namespaces("vendor/x.c"),
		AllowSrcGo: r.Allowed("src/a/b.go"),
		AllowDocs:  r.Allowed("docs/guide.md"),
		AllowTest:  r.Allowed("pkg/x_test.go"),
	}
}

func TestRulesFullConfig(t *testing.T) {
	c := mustParse(t, fullConfig)
	tests := []struct {
		skill string
		want  rulesView
	}{
		{
			skill: "",
			want: rulesView{
				Ordering: "lexicographic", MaxItems: 40, MaxBytes: 500000, MaxUserMsgs: 5,
				Allowed: []string{"docs", "src"},
				SrcGo:   []string{"src"}, DocsMD: []string{"docs"}, Readme: []string{"docs"},
				Test: []string{"src", "tests"}, AllowSrcGo: true, AllowDocs: true, AllowTest: false,
			},
		},
		{
			skill: "review",
			want: rulesView{
				Skill: "review", Ordering: "stable_manifest_order", MaxItems: 10, MaxBytes: 500000, MaxUserMsgs: 5,
				Allowed: []string{"src"},
				SrcGo:   []string{"src"}, DocsMD: []string{"docs"}, Readme: []string{"docs"},
				Test: []string{"src", "tests"}, AllowSrcGo: true, AllowDocs: false, AllowTest: false,
			},
		},
		{
			skill: "docs-only",
			want: rulesView{
				Skill: "docs-only", Ordering: "lexicographic", MaxItems: 40, MaxBytes: 1000, MaxUserMsgs: 2,
				Allowed: []string{"docs"},
				SrcGo:   []string{"src"}, DocsMD: []string{"docs"}, Readme: nil,
				Test: []string{"src", "tests"}, AllowSrcGo: false, AllowDocs: true, AllowTest: false,
			},
		},
	}
	digests := map[string]string{}
	for _, tt := range tests {
		t.Run("skill="+tt.skill, func(t *testing.T) {
			r, err := c.Rules(tt.skill)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, view(r)); diff != "" {
				t.Errorf("Rules(%q) (-want +got):\n%s", tt.skill, diff)
			}
			again, err := c.Rules(tt.skill)
			if err != nil {
				t.Fatal(err)
			}
			if again.Digest != r.Digest || !strings.HasPrefix(r.Digest, "sha256:") {
				t.Errorf("digests %s and %s, want one stable sha256 digest", r.Digest, again.Digest)
			}
			if other, ok := digests[r.Digest]; ok {
				t.Errorf("digest equals that of skill %q", other)
			}
			digests[r.Digest] = tt.skill
		})
	}
	// The same file written differently gives the same rule digests.
	r1, _ := c.Rules("review")
	r2, err := mustParse(t, compact(t, fullConfig)).Rules("review")
	if err != nil || r1.Digest != r2.Digest {
		t.Errorf("rule digest changed with the file's layout: %s, %s (%v)", r1.Digest, r2.Digest, err)
	}
}

func TestRulesImmutable(t *testing.T) {
	c := mustParse(t, fullConfig)
	r, err := c.Rules("")
	if err != nil {
		t.Fatal(err)
	}
	a := r.AllowedNamespaces()
	a[0] = "tests"
	c.File.Policy.Namespaces["tests"][0] = "**"
	(*c.File.Policy.AllowedContextNamespaces)[0] = "tests"
	if !r.Allowed("docs/x.md") || r.Allowed("pkg/x_test.go") {
		t.Error("editing returned slices or Config.File changed the rules")
	}
	r2, err := c.Rules("")
	if err != nil {
		t.Fatal(err)
	}
	if r2.Digest != r.Digest || r2.Allowed("pkg/x_test.go") {
		t.Error("editing Config.File changed later rules")
	}
}

func TestRulesNoPolicy(t *testing.T) {
	for _, c := range []*Config{nil, Default(), mustParse(t, `{"schema_version": "1"}`)} {
		r, err := c.Rules("")
		if err != nil || r != nil {
			t.Errorf("Rules(\"\") = %v, %v; want nil, nil", r, err)
		}
		_, err = c.Rules("review")
		checkError(t, err, ReasonOverrideInvalid, "/policy/skills",
			`skill "review" is not defined in .ctxd/config.json /policy/skills; defined: none`)
	}
	var r *Rules
	if !r.Allowed("anything/at/all") || !r.Allowed("../x") {
		t.Error("nil Rules must allow every path")
	}
	if r.Namespaces("src/x.go") != nil || r.AllowedNamespaces() != nil {
		t.Error("nil Rules must have no namespaces and no allowed list")
	}
}

func TestRulesUnrestricted(t *testing.T) {
	c := mustParse(t, policyWith(`"namespaces": {"src": ["src/**"]}, "skills": {"s": {"allowed_context_namespaces": ["src"]}}`))
	r, err := c.Rules("")
	if err != nil {
		t.Fatal(err)
	}
	if r.AllowedNamespaces() != nil || !r.Allowed("docs/x.md") || !r.Allowed("src/x.go") {
		t.Errorf("without an allowed list every path is allowed; AllowedNamespaces = %v", r.AllowedNamespaces())
	}
	// A skill may restrict what the global policy leaves open.
	s, err := c.Rules("s")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"src"}, s.AllowedNamespaces()); diff != "" || s.Allowed("docs/x.md") || !s.Allowed("src/x.go") {
		t.Errorf("skill s: allowed (-want +got):\n%s", diff)
	}
	// An empty allowed list allows nothing, and says so.
	e := mustParse(t, policyWith(`"namespaces": {"src": ["src/**"]}, "allowed_context_namespaces": []`))
	r, err = e.Rules("")
	if err != nil {
		t.Fatal(err)
	}
	if got := r.AllowedNamespaces(); got == nil || len(got) != 0 || r.Allowed("src/x.go") {
		t.Errorf("empty allowed list: AllowedNamespaces = %#v, Allowed(src/x.go) = %v", got, r.Allowed("src/x.go"))
	}
}

// globalPolicy has every kind of global restriction for the override
// tests; %s is the skill's override.
const globalPolicy = `{"schema_version": "1", "policy": {"schema": "ctxd.context_policy.v1",
  "namespaces": {"src": ["src/**", "cmd/**"], "docs": ["docs/*.md"], "tests": ["**/*_test.go"]},
  "allowed_context_namespaces": ["src", "docs"],
  "max_items": 10, "max_bytes": 1000, "max_user_messages_per_thread": 5,
  "skills": {"s": %s, "other": {}}}}`

// openPolicy has no allowed list and no caps.
const openPolicy = `{"schema_version": "1", "policy": {"schema": "ctxd.context_policy.v1",
  "namespaces": {"src": ["src/**", "cmd/**"], "docs": ["docs/*.md"]},
  "skills": {"s": %s}}}`

func TestRulesOverrides(t *testing.T) {
	tests := []struct {
		name     string
		base     string
		override string
		field    string // "" when the override is valid
		msg      string
		check    func(t *testing.T, r *Rules)
	}{
		// Narrowing is fine.
		{name: "empty override inherits", base: globalPolicy, override: `{}`,
			check: func(t *testing.T, r *Rules) {
				if r.MaxItems != 10 || r.MaxBytes != 1000 || r.MaxUserMessagesPerThread != 5 || r.Ordering != "stable_manifest_order" {
					t.Errorf("inherited %+v", view(r))
				}
			}},
		{name: "namespace subset", base: globalPolicy, override: `{"namespaces": {"src": ["src/**"]}}`,
			check: func(t *testing.T, r *Rules) {
				if r.Allowed("cmd/main.go") || !r.Allowed("src/a.go") {
					t.Error("redefined src still covers cmd/**")
				}
			}},
		{name: "allowed subset", base: globalPolicy, override: `{"allowed_context_namespaces": ["docs"]}`,
			check: func(t *testing.T, r *Rules) {
				if r.Allowed("src/a.go") || !r.Allowed("docs/a.md") {
					t.Error("allowed list not narrowed")
				}
			}},
		{name: "allowed nothing", base: globalPolicy, override: `{"allowed_context_namespaces": []}`,
			check: func(t *testing.T, r *Rules) {
				if r.Allowed("docs/a.md") {
					t.Error("empty allowed list allows docs")
				}
			}},
		{name: "smaller caps", base: globalPolicy, override: `{"max_items": 3, "max_bytes": 1000, "max_user_messages_per_thread": 1}`,
			check: func(t *testing.T, r *Rules) {
				if r.MaxItems != 3 || r.MaxBytes != 1000 || r.MaxUserMessagesPerThread != 1 {
					t.Errorf("caps %+v", view(r))
				}
			}},
		{name: "ordering change", base: globalPolicy, override: `{"ordering": "lexicographic"}`,
			check: func(t *testing.T, r *Rules) {
				if r.Ordering != "lexicographic" {
					t.Errorf("ordering %q", r.Ordering)
				}
			}},
		{name: "caps where the global has none", base: openPolicy, override: `{"max_items": 7, "max_bytes": 0}`,
			check: func(t *testing.T, r *Rules) {
				if r.MaxItems != 7 || r.MaxBytes != 0 {
					t.Errorf("caps %+v", view(r))
				}
			}},
		{name: "allowed list where the global has none", base: openPolicy, override: `{"allowed_context_namespaces": ["docs"]}`,
			check: func(t *testing.T, r *Rules) {
				if r.Allowed("src/a.go") || !r.Allowed("docs/a.md") {
					t.Error("allowed list not applied")
				}
			}},

		// Every widening.
		{name: "new namespace", base: globalPolicy, override: `{"namespaces": {"vendor": ["vendor/**"]}}`,
			field: "/policy/skills/s/namespaces", msg: `defines the namespace "vendor", which /policy/namespaces does not define (defined: docs, src, tests)`},
		{name: "namespace glob not in the global definition", base: globalPolicy, override: `{"namespaces": {"src": ["src/**", "lib/**"]}}`,
			field: "/policy/skills/s/namespaces", msg: `redefines the namespace "src" with the glob "lib/**", which its global definition ["cmd/**", "src/**"] lacks`},
		{name: "namespace glob broader than a global one", base: globalPolicy, override: `{"namespaces": {"docs": ["docs/**"]}}`,
			field: "/policy/skills/s/namespaces", msg: `"docs/**"`},
		{name: "allowed not in global allowed", base: globalPolicy, override: `{"allowed_context_namespaces": ["src", "tests"]}`,
			field: "/policy/skills/s/allowed_context_namespaces", msg: `allows the namespace "tests", which /policy/allowed_context_namespaces does not allow (allowed: docs, src)`},
		{name: "allowed unknown namespace", base: globalPolicy, override: `{"allowed_context_namespaces": ["nope"]}`,
			field: "/policy/skills/s/allowed_context_namespaces", msg: `names the namespace "nope", which /policy/namespaces does not define`},
		{name: "allowed unknown namespace without global list", base: openPolicy, override: `{"allowed_context_namespaces": ["tests"]}`,
			field: "/policy/skills/s/allowed_context_namespaces", msg: `names the namespace "tests"`},
		{name: "larger max_items", base: globalPolicy, override: `{"max_items": 11}`,
			field: "/policy/skills/s/max_items", msg: "is 11, larger than the global cap of 10 (/policy/max_items)"},
		{name: "larger max_bytes", base: globalPolicy, override: `{"max_bytes": 1001}`,
			field: "/policy/skills/s/max_bytes", msg: "larger than the global cap of 1000"},
		{name: "larger max_user_messages", base: globalPolicy, override: `{"max_user_messages_per_thread": 6}`,
			field: "/policy/skills/s/max_user_messages_per_thread", msg: "larger than the global cap of 5"},
		{name: "max_items 0 removes the cap", base: globalPolicy, override: `{"max_items": 0}`,
			field: "/policy/skills/s/max_items", msg: "is 0, which would remove the global cap of 10"},
		{name: "max_bytes 0 removes the cap", base: globalPolicy, override: `{"max_bytes": 0}`,
			field: "/policy/skills/s/max_bytes", msg: "is 0"},
		{name: "max_user_messages 0 removes the cap", base: globalPolicy, override: `{"max_user_messages_per_thread": 0}`,
			field: "/policy/skills/s/max_user_messages_per_thread", msg: "is 0"},
		{name: "first widening in member order", base: globalPolicy, override: `{"max_bytes": 5000, "allowed_context_namespaces": ["tests"]}`,
			field: "/policy/skills/s/allowed_context_namespaces", msg: `"tests"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustParse(t, strings.Replace(tt.base, "%s", tt.override, 1))
			r, err := c.Rules("s")
			if tt.field != "" {
				if err == nil {
					t.Fatalf("Rules(s) succeeded: %+v; want %s", view(r), ReasonOverrideInvalid)
				}
				checkError(t, err, ReasonOverrideInvalid, tt.field, tt.msg)
				if !strings.Contains(err.Error(), ReasonOverrideInvalid) {
					t.Errorf("Error() = %q lacks the reason", err)
				}
				// A broken skill does not break the global policy or
				// other skills.
				if _, err := c.Rules(""); err != nil {
					t.Errorf("global rules: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Rules(s): %v", err)
			}
			if r.Skill != "s" {
				t.Errorf("Skill = %q", r.Skill)
			}
			tt.check(t, r)
		})
	}
}

func TestRulesUnknownSkill(t *testing.T) {
	c := mustParse(t, fullConfig)
	_, err := c.Rules("deploy")
	checkError(t, err, ReasonOverrideInvalid, "/policy/skills",
		`skill "deploy" is not defined in .ctxd/config.json /policy/skills; defined: docs-only, review`)
	var e *Error
	if errors.As(err, &e) && !strings.Contains(e.Advice, `"deploy"`) {
		t.Errorf("Advice = %q, want it to name the skill", e.Advice)
	}
	_, err = c.Rules(strings.Repeat("x", 500))
	if errors.As(err, &e) && len(e.Message) > 300 {
		t.Errorf("a long skill name is echoed whole: %d bytes", len(e.Message))
	}
}

func TestAllowedAndNamespaces(t *testing.T) {
	c := mustParse(t, policyWith(`"namespaces": {
	    "src": ["src/**"], "go": ["**/*.go"], "docs": ["docs/*.md"], "mains": ["cmd/?/main.go"],
	    "cfg": ["[a-c]onfig.[!x]ml", "*.json"], "uni": ["données/é?è.txt"]},
	  "allowed_context_namespaces": ["src", "docs", "mains"]`))
	r, err := c.Rules("")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path    string
		ns      []string
		allowed bool
	}{
		{"src/main.go", []string{"go", "src"}, true},
		{"src/a/b/c.txt", []string{"src"}, true},
		{"src", []string{"src"}, true},
		{"srcx/a.go", []string{"go"}, false},
		{"main.go", []string{"go"}, false},
		{"a/b/c/d.go", []string{"go"}, false},
		{"a/b/c/d.go.txt", nil, false},
		{"docs/intro.md", []string{"docs"}, true},
		{"docs/deep/intro.md", nil, false},
		{"docs/.hidden.md", []string{"docs"}, true},
		{"docs/intro.mdx", nil, false},
		{"cmd/x/main.go", []string{"go", "mains"}, true},
		{"cmd/xy/main.go", []string{"go"}, false},
		{"cmd/main.go", []string{"go"}, false},
		{"config.yml", []string{"cfg"}, false},
		{"bonfig.sml", []string{"cfg"}, false},
		{"config.xml", nil, false},
		{"donfig.yml", nil, false},
		{"package.json", []string{"cfg"}, false},
		{"a/package.json", nil, false},
		{"données/éaè.txt", []string{"uni"}, false},
		{"données/éaaè.txt", nil, false},
		{"SRC/main.go", []string{"go"}, false},
		// Unclean paths match nothing, even "**".
		{"", nil, false},
		{"/src/main.go", nil, false},
		{"src/../../etc/passwd", nil, false},
		{"./src/main.go", nil, false},
		{"src//main.go", nil, false},
		{"src/main.go/", nil, false},
		{"src/\xff.go", nil, false},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.ns, r.Namespaces(tt.path)); diff != "" {
			t.Errorf("Namespaces(%q) (-want +got):\n%s", tt.path, diff)
		}
		if got := r.Allowed(tt.path); got != tt.allowed {
			t.Errorf("Allowed(%q) = %v, want %v", tt.path, got, tt.allowed)
		}
	}
}

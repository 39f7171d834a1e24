package contextbuilder_test

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/contextbuilder"
)

func TestNeverSendRule(t *testing.T) {
	tests := []struct {
		detail   string
		want     string
		wantOK   bool
		scenario string
	}{
		{scenario: "built-in obj/", detail: "deny:10: obj/", want: `the never-send rule "**/obj/**" of the context contract (build output: every directory named obj, at any depth)`, wantOK: true},
		{scenario: "built-in .env", detail: "deny:21: .env", want: `the never-send rule "**/.env" of the context contract (environment files, which hold secrets)`, wantOK: true},
		{scenario: "built-in key", detail: "deny:18: *.key", want: `the never-send rule "**/*.key" of the context contract (key and certificate files)`, wantOK: true},
		{scenario: "workspace rule", detail: "deny_rules:1: **/*.pem", want: `the never-send rule "**/*.pem" of this workspace (deny_rules in .ctxd/config.json)`, wantOK: true},
		{scenario: "not a rule", detail: "nul byte"},
		{scenario: "gitignore is not never-send", detail: ".gitignore:3: build/"},
		{scenario: "empty text", detail: "deny:3: "},
	}
	for _, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			got, ok := contextbuilder.NeverSendRule(tt.detail)
			if diff := cmp.Diff(tt.want, got); diff != "" || ok != tt.wantOK {
				t.Errorf("NeverSendRule(%q) ok = %v, want %v; (-want +got):\n%s", tt.detail, ok, tt.wantOK, diff)
			}
		})
	}
}

// TestExplanations: every code this package raises has a long
// explanation, each code once, and none sends the user to a document they
// may not have.
func TestExplanations(t *testing.T) {
	codes := []contextbuilder.RefusalCode{
		contextbuilder.RefuseContextTooLarge, contextbuilder.RefuseSecretRisk, contextbuilder.RefuseAmbiguousTarget,
		contextbuilder.RefuseUnsupportedTarget, contextbuilder.RefuseOutsideSandbox, contextbuilder.RefuseTargetNotFound,
		contextbuilder.RefuseNamespaceDenied, contextbuilder.RefuseExceedsMaxItems, contextbuilder.RefuseExceedsMaxBytes,
	}
	for _, c := range codes {
		e, ok := contextbuilder.Explain(c)
		if !ok || e.Code != c || e.Summary == "" || len(e.Paragraphs) == 0 {
			t.Errorf("Explain(%s) = %+v, %v: want a summary and paragraphs", c, e, ok)
		}
	}
	if _, ok := contextbuilder.Explain("NO_SUCH_CODE"); ok {
		t.Error("Explain of an unknown code is ok")
	}
	seen := map[contextbuilder.RefusalCode]bool{}
	docs := regexp.MustCompile(`docs/[a-z-]+\.md`)
	for _, e := range contextbuilder.Explanations() {
		if seen[e.Code] {
			t.Errorf("code %s explained twice", e.Code)
		}
		seen[e.Code] = true
		for _, p := range e.Paragraphs {
			if m := docs.FindString(p); m != "" {
				t.Errorf("%s: the explanation points at %s, which an editor user does not have", e.Code, m)
			}
		}
	}
}

// TestAdviceSelfContained: no refusal's advice in the goldens points at
// a document of this repository.
func TestAdviceSelfContained(t *testing.T) {
	files, err := filepath.Glob("testdata/golden/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no goldens: %v", err)
	}
	advice := regexp.MustCompile(`"advice": "[^"\n]*docs/[a-z-]+\.md`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if m := advice.Find(b); m != nil {
			t.Errorf("%s: %s", f, m)
		}
	}
}

func TestWrap(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		width int
		want  []string
	}{
		{name: "short", text: "a b c", width: 10, want: []string{"a b c"}},
		{name: "exactly fits", text: "a b", width: 3, want: []string{"a b"}},
		{name: "breaks at spaces", text: "aaa bbb ccc", width: 7, want: []string{"aaa bbb", "ccc"}},
		{name: "breaks", text: "a b c", width: 3, want: []string{"a b", "c"}},
		{name: "long word alone", text: "a bbbbbbbbbb c", width: 5, want: []string{"a", "bbbbbbbbbb", "c"}},
		{name: "long word first", text: "abcdef g", width: 3, want: []string{"abcdef", "g"}},
		{name: "empty", text: "", width: 5, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, contextbuilder.Wrap(tt.text, tt.width)); diff != "" {
				t.Errorf("Wrap (-want +got):\n%s", diff)
			}
		})
	}
}

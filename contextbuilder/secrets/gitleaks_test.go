package secrets

import (
	"os"
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseGitleaksTOML(t *testing.T) {
	data, err := os.ReadFile("testdata/gitleaks.toml")
	if err != nil {
		t.Fatal(err)
	}
	rules, err := ParseGitleaksTOML(data)
	if err != nil {
		t.Fatal(err)
	}
	want := []Rule{
		{
			ID: "acme-api-token", Description: "ACME internal API token", Kind: Prefixed,
			Keywords: []string{"acme_live_", "acme_test_"},
			Regex:    `\b(acme_(?:live|test)_[0-9a-zA-Z]{32})\b`, SecretGroup: 1,
		},
		{
			ID: "aws-access-token", Description: "AWS access key id", Kind: Prefixed,
			Keywords: []string{"a3t", "akia", "asia", "abia", "acca"},
			Regex:    `\b((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})\b`, SecretGroup: 1, Entropy: 3,
		},
		{
			ID: "acme_db_password", Description: "ACME database password in properties files", Kind: Contextual,
			Keywords:    []string{"acme_db_pass"},
			Regex:       `(?i)[\w.-]{0,50}?(?:acme_db_pass)(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)[\x60'"\s=]{0,5}([^\s'"]{6,64})(?:[\x60'"\s;]|\\[nr]|$)`,
			SecretGroup: 1, Entropy: 2.5, Multiline: true,
		},
		{
			ID: "acme-curl-header", Description: "ACME token in a curl header, possibly on a continuation line", Kind: Contextual,
			Keywords:    []string{"curl"},
			Regex:       `\bcurl\b(?:.*?|.*?(?:[\r\n]{1,2}.*?){1,5})[ \t\n\r](?:-H|--header)(?:=|[ \t]{0,5})"X-Acme-Key:[ \t]{0,5}([\w=~@.+/-]{8,})"`,
			SecretGroup: 1, Multiline: true,
		},
		{
			ID: "acme-composite", Description: "ACME client id, reported only with a secret nearby (in gitleaks)", Kind: Prefixed,
			Keywords: []string{"acmeid-"}, Regex: `\bacmeid-[0-9a-f]{16}\b`,
		},
	}
	if diff := cmp.Diff(want, rules); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}

	// The rules load as extra rules, and the allowlists of the config do
	// not apply (additive only).
	s, err := New(rules)
	if err != nil {
		t.Fatal(err)
	}
	text := "ACME_TOKEN=acme_test_" + strings.Repeat("0", 32) + "\n" +
		"acme.db.password: skipped\n" +
		"ACME_DB_PASS = s3cr3t-Pa55!\n" +
		"curl https://api.acme.test \\\n  -H \"X-Acme-Key: Zm9vYmFyYmF6cXV4\"\n" +
		"client = acmeid-0123456789abcdef\n"
	fs, err := s.Scan("app.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]string{}
	for _, f := range fs {
		found[f.RuleID] = text[f.Start:f.End]
	}
	for id, v := range map[string]string{
		"acme-api-token":   "acme_test_" + strings.Repeat("0", 32),
		"acme_db_password": "s3cr3t-Pa55!",
		"acme-curl-header": "Zm9vYmFyYmF6cXV4",
		"acme-composite":   "acmeid-0123456789abcdef",
	} {
		if found[id] != v {
			t.Errorf("rule %s found %q, want %q (all: %v)", id, found[id], v, found)
		}
	}
	// Still additive: the AWS documented example key is not reported (the
	// engine's EXAMPLE rule), a real-looking one is.
	fs, _ = s.Scan("a", []byte("AKIAIOSFODNN7EXAMPLE AKIAZ3MSJV4WQZ5QNCKF"))
	n := 0
	for _, f := range fs {
		if f.RuleID == "aws-access-token" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("aws-access-token: %d findings, want 1", n)
	}
}

func TestParseGitleaksTOMLErrors(t *testing.T) {
	tests := map[string]string{
		"toml syntax":    "[[rules]\nid = 'x'",
		"path only":      "[[rules]]\nid = \"pkcs12-file\"\npath = '''(?i)(?:^|\\/)[^\\/]+\\.p(?:12|fx)$'''\n",
		"no regex":       "[[rules]]\nid = \"x\"\n",
		"no id":          "[[rules]]\nregex = 'abc'\n",
		"bad regex":      "[[rules]]\nid = \"x\"\nregex = '''(?<=a)b'''\n",
		"wrong type":     "[[rules]]\nid = \"x\"\nregex = 'a'\nentropy = \"high\"\n",
		"duplicate keys": "[[rules]]\nid = \"x\"\nid = \"y\"\nregex = 'a'\n",
	}
	for name, data := range tests {
		if rules, err := ParseGitleaksTOML([]byte(data)); err == nil {
			t.Errorf("%s: parsed %+v", name, rules)
		}
	}
	// Errors from New name the converted id.
	rules, err := ParseGitleaksTOML([]byte("[[rules]]\nid = \"My Rule\"\nregex = '''a(b)(c)'''\nsecretGroup = 3\n"))
	if err != nil {
		t.Fatal(err)
	}
	if rules[0].ID != "my-rule" {
		t.Errorf("id %q", rules[0].ID)
	}
	if _, err := New(rules); err == nil || !strings.Contains(err.Error(), "my-rule") {
		t.Errorf("New: %v", err)
	}
	// An empty config has no rules.
	if rules, err := ParseGitleaksTOML([]byte("title = \"x\"\n")); err != nil || len(rules) != 0 {
		t.Errorf("empty config: %v, %v", rules, err)
	}
}

func TestGitleaksKind(t *testing.T) {
	tests := []struct {
		regex    string
		keywords []string
		want     Kind
	}{
		{`ghp_[0-9a-zA-Z]{36}`, []string{"ghp_"}, Prefixed},
		{`(?i)\b(ghp_[0-9a-z]{36})`, []string{"ghp_"}, Prefixed},
		{`(?:ghp|gho|ghu|ghs|ghr)_[0-9a-zA-Z]{36}`, []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}, Prefixed},
		{`(?:ghp|gho|ghu|ghs|ghr)_[0-9a-zA-Z]{36}`, []string{"ghp_"}, Contextual},
		{`xox[baprs]-[0-9a-zA-Z-]{10,48}`, []string{"xox"}, Prefixed},
		{`xox[baprs]-[0-9a-zA-Z-]{10,48}`, []string{"xoxb-"}, Contextual},
		{`^AGE-SECRET-KEY-1[0-9A-Z]{58}`, []string{"age-secret-key-1"}, Prefixed},
		{`(?i)[\w.-]{0,50}?(?:adafruit)(?:[ \t\w.-]{0,20})=([a-z0-9]{32})`, []string{"adafruit"}, Contextual},
		{`sk_live_[0-9a-z]{32}`, nil, Contextual},
		{`[a-f0-9]{32}`, []string{"a"}, Contextual},
		{`(?:A3T[A-Z0-9]|AKIA|ASIA)[A-Z2-7]{16}`, []string{"a3t", "akia", "asia"}, Prefixed},
	}
	for _, tt := range tests {
		re, err := syntax.Parse(tt.regex, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		got := Contextual
		if prefixedBy(re, tt.keywords) {
			got = Prefixed
		}
		if got != tt.want {
			t.Errorf("kind of %q with %q = %s, want %s", tt.regex, tt.keywords, got, tt.want)
		}
	}
}

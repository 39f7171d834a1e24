package secrets

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The tests in this file check the built-in rule set (rules.json) as data:
// its shape, and every rule's samples against the real scanner.

// Sample markers: a true positive holds its secret between them.
const (
	markOpen  = "««"
	markClose = "»»"
)

// rulesFile reads rules.json strictly: an unknown field is an error.
func rulesFile(t *testing.T) ruleFile {
	t.Helper()
	data, err := os.ReadFile("rules.json")
	if err != nil {
		t.Fatal(err)
	}
	var f ruleFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		t.Fatalf("rules.json: %v", err)
	}
	if dec.More() {
		t.Fatal("rules.json: data after the top-level object")
	}
	return f
}

// unmark removes the markers of a true-positive sample and returns the
// text to scan and the byte span of the marked secret in it.
func unmark(sample string) (text string, start, end int, err error) {
	start = strings.Index(sample, markOpen)
	if start < 0 {
		return "", 0, 0, fmt.Errorf("no %s marker", markOpen)
	}
	rest := sample[start+len(markOpen):]
	n := strings.Index(rest, markClose)
	if n < 0 {
		return "", 0, 0, fmt.Errorf("no %s marker", markClose)
	}
	if n == 0 {
		return "", 0, 0, fmt.Errorf("empty secret between the markers")
	}
	text = sample[:start] + rest[:n] + rest[n+len(markClose):]
	if strings.Contains(text, markOpen) || strings.Contains(text, markClose) {
		return "", 0, 0, fmt.Errorf("more than one marked secret")
	}
	return text, start, start + n, nil
}

// ruleIDShape: lowercase words joined by single dashes.
var ruleIDShape = regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*$`)

// requiredRuleIDs are the credential types that the rule set must cover
// under these stable ids (issue 5's coverage list).
var requiredRuleIDs = []string{
	"aws-access-key-id", "aws-secret-access-key", "aws-session-token",
	"gcp-service-account", "gcp-api-key",
	"azure-storage-connection-string", "azure-sas-token",
	"github-pat-classic", "github-fine-grained-pat", "github-oauth", "github-app-token", "github-refresh-token",
	"gitlab-pat", "bitbucket-app-password", "bitbucket-access-token",
	"npm-token", "pypi-token", "nuget-api-key", "rubygems-api-key",
	"openai-api-key", "anthropic-api-key", "huggingface-token", "cohere-api-key", "groq-api-key",
	"stripe-secret-key", "stripe-restricted-key",
	"slack-bot-token", "slack-user-token", "slack-app-token", "slack-webhook-url",
	"discord-bot-token", "discord-webhook-url", "telegram-bot-token",
	"twilio-api-key", "twilio-auth-token", "sendgrid-api-key", "mailgun-api-key",
	"digitalocean-token", "heroku-api-key", "vault-token", "doppler-token", "databricks-token",
	"shopify-token", "atlassian-api-token", "linear-api-key", "postman-api-key",
	"grafana-service-account-token", "grafana-cloud-token", "newrelic-user-api-key",
	"private-key", "jwt", "age-secret-key",
	"url-credentials", "authorization-header", "connection-string-password",
	"credential-assignment-env", "credential-assignment-yaml", "credential-assignment-json",
	"credential-assignment-xml", "credential-assignment-xml-attr", "credential-assignment-code",
}

// TestRulesFile checks the shape of rules.json: version, ids, kinds,
// keywords, regular expressions, validators and the number of samples.
func TestRulesFile(t *testing.T) {
	f := rulesFile(t)
	if strings.TrimSpace(f.Version) == "" {
		t.Error("version is empty")
	}
	if !strings.HasPrefix(f.Version, "ctxd.secrets.") {
		t.Errorf("version %q does not start with ctxd.secrets.", f.Version)
	}
	if len(f.Rules) < 40 {
		t.Errorf("%d rules, want at least 40", len(f.Rules))
	}
	ids := map[string]bool{}
	for i, r := range f.Rules {
		name := r.ID
		if name == "" {
			name = fmt.Sprintf("#%d", i+1)
		}
		errorf := func(format string, a ...any) {
			t.Helper()
			t.Errorf("rule %s: %s", name, fmt.Sprintf(format, a...))
		}
		if !ruleIDShape.MatchString(r.ID) {
			errorf("id is not lowercase and dash-separated")
		}
		if ids[r.ID] {
			errorf("duplicate id")
		}
		ids[r.ID] = true
		if strings.TrimSpace(r.Description) == "" {
			errorf("no description")
		}
		if r.Kind != Prefixed && r.Kind != Contextual {
			errorf("kind %q is neither %q nor %q", r.Kind, Prefixed, Contextual)
		}
		if len(r.Keywords) == 0 {
			errorf("no keywords")
		}
		for _, k := range r.Keywords {
			if strings.TrimSpace(k) == "" || k != strings.ToLower(k) {
				errorf("keyword %q is empty or not lowercase", k)
			}
		}
		re, err := regexp.Compile(r.Regex)
		if err != nil {
			errorf("regex: %v", err)
			continue
		}
		if r.SecretGroup < 0 || r.SecretGroup > re.NumSubexp() {
			errorf("secret_group %d, but the regex has %d groups", r.SecretGroup, re.NumSubexp())
		}
		if r.Open != "" {
			if _, err := regexp.Compile(r.Open); err != nil {
				errorf("open: %v", err)
			}
		}
		if r.Entropy != 0 && r.Kind != Contextual {
			errorf("entropy %v on a %s rule (only contextual rules use it)", r.Entropy, r.Kind)
		}
		if r.Entropy < 0 || r.Entropy > 8 {
			errorf("entropy %v outside [0, 8]", r.Entropy)
		}
		for _, v := range r.Validators {
			if _, ok := validators[v]; !ok {
				errorf("unknown validator %q", v)
			}
		}
		if n := len(r.Samples.TruePositives); n < 2 {
			errorf("%d true positives, want at least 2", n)
		}
		if n := len(r.Samples.FalsePositives); n < 1 {
			errorf("%d false positives, want at least 1", n)
		}
		for j, s := range r.Samples.TruePositives {
			if _, _, _, err := unmark(s); err != nil {
				errorf("true positive %d: %v", j, err)
			}
		}
		for j, s := range r.Samples.FalsePositives {
			if strings.Contains(s, markOpen) || strings.Contains(s, markClose) {
				errorf("false positive %d holds a marker", j)
			}
		}
	}
	for _, id := range requiredRuleIDs {
		if !ids[id] {
			t.Errorf("no rule %q", id)
		}
	}
}

// TestRulesKeywordsCover checks each rule's keywords against its true
// positives: the regex match that yields the marked secret contains one of
// the keywords, so that the prefilter never hides the rule's matches.
func TestRulesKeywordsCover(t *testing.T) {
	for _, r := range rulesFile(t).Rules {
		re, err := regexp.Compile(r.Regex)
		if err != nil {
			continue // reported by TestRulesFile
		}
		if r.Key != "" {
			checkKeyedKeywords(t, r)
			continue
		}
		for j, s := range r.Samples.TruePositives {
			text, start, end, err := unmark(s)
			if err != nil {
				continue // reported by TestRulesFile
			}
			match, ok := sampleMatch(r, re, text, start, end)
			if !ok {
				t.Errorf("rule %s: true positive %d: the regex yields no match of the marked secret %q", r.ID, j, text[start:end])
				continue
			}
			lower := strings.ToLower(match)
			if !slices.ContainsFunc(r.Keywords, func(k string) bool { return strings.Contains(lower, k) }) {
				t.Errorf("rule %s: true positive %d: match %q holds none of the keywords %q", r.ID, j, match, r.Keywords)
			}
		}
	}
}

// checkKeyedKeywords checks a keyed rule: the key of the pair whose
// value holds each true positive's marked secret contains a keyword.
func checkKeyedKeywords(t *testing.T, r Rule) {
	t.Helper()
	for j, s := range r.Samples.TruePositives {
		text, start, end, err := unmark(s)
		if err != nil {
			continue // reported by TestRulesFile
		}
		found := false
		for ls := 0; ls < len(text); {
			le := strings.IndexByte(text[ls:], '\n')
			if le < 0 {
				le = len(text)
			} else {
				le += ls
			}
			lexPairs([]byte(text), ls, le, func(p pair) {
				if p.valStart <= start && p.valEnd >= end &&
					slices.ContainsFunc(r.Keywords, func(k string) bool { return strings.Contains(p.key, k) }) {
					found = true
				}
			})
			ls = le + 1
		}
		if !found {
			t.Errorf("rule %s: true positive %d: no pair holds the secret %q under a key with one of the keywords %q", r.ID, j, text[start:end], r.Keywords)
		}
	}
}

// sampleMatch runs r's regex the way the scanner does (per line, or on the
// whole text when Multiline) and returns the whole match whose secret
// group is text[start:end].
func sampleMatch(r Rule, re *regexp.Regexp, text string, start, end int) (string, bool) {
	regions := []int{0}
	if !r.Multiline {
		for i := 0; i < len(text); i++ {
			if text[i] == '\n' {
				regions = append(regions, i+1)
			}
		}
	}
	for _, off := range regions {
		sub := text[off:]
		if !r.Multiline {
			if n := strings.IndexByte(sub, '\n'); n >= 0 {
				sub = sub[:n]
			}
			sub = strings.TrimSuffix(sub, "\r")
		}
		for _, m := range re.FindAllStringSubmatchIndex(sub, -1) {
			s, e := m[0], m[1]
			if g := r.SecretGroup; g > 0 && m[2*g] >= 0 {
				s, e = m[2*g], m[2*g+1]
			}
			if off+s == start && off+e == end {
				return sub[m[0]:m[1]], true
			}
		}
	}
	return "", false
}

// TestRulesSamples scans every sample with the built-in scanner: each true
// positive yields a finding of its rule whose span is exactly the marked
// secret, and no false positive yields a finding of its rule.
func TestRulesSamples(t *testing.T) {
	s := Default()
	for _, r := range rulesFile(t).Rules {
		t.Run(r.ID, func(t *testing.T) {
			for j, sample := range r.Samples.TruePositives {
				text, start, end, err := unmark(sample)
				if err != nil {
					t.Errorf("true positive %d: %v", j, err)
					continue
				}
				fs, err := s.Scan(fmt.Sprintf("samples/%s/tp%d", r.ID, j), []byte(text))
				if err != nil {
					t.Errorf("true positive %d: %v", j, err)
					continue
				}
				if !slices.ContainsFunc(fs, func(f Finding) bool {
					return f.RuleID == r.ID && f.Start == start && f.End == end
				}) {
					t.Errorf("true positive %d: no finding of %s at [%d:%d] %q; findings: %s",
						j, r.ID, start, end, text[start:end], describeFindings([]byte(text), fs))
				}
			}
			for j, sample := range r.Samples.FalsePositives {
				fs, err := s.Scan(fmt.Sprintf("samples/%s/fp%d", r.ID, j), []byte(sample))
				if err != nil {
					t.Errorf("false positive %d: %v", j, err)
					continue
				}
				for _, f := range fs {
					if f.RuleID == r.ID {
						t.Errorf("false positive %d %q: finding %s", j, sample, describeFindings([]byte(sample), []Finding{f}))
					}
				}
			}
		})
	}
}

// TestRulesNoUncertain: only a private key block can be unbounded, so no
// true positive of another rule yields an Uncertain finding (of any rule).
func TestRulesNoUncertain(t *testing.T) {
	s := Default()
	for _, r := range rulesFile(t).Rules {
		if r.ID == "private-key" {
			continue
		}
		for j, sample := range r.Samples.TruePositives {
			text, _, _, err := unmark(sample)
			if err != nil {
				continue // reported by TestRulesFile
			}
			fs, err := s.Scan("sample", []byte(text))
			if err != nil {
				t.Errorf("rule %s: true positive %d: %v", r.ID, j, err)
				continue
			}
			for _, f := range fs {
				if f.Confidence == Uncertain {
					t.Errorf("rule %s: true positive %d: uncertain finding %s", r.ID, j, describeFindings([]byte(text), []Finding{f}))
				}
			}
		}
	}
}

// TestRulesEmbedded: the scanner's rules are rules.json's.
func TestRulesEmbedded(t *testing.T) {
	f := rulesFile(t)
	var want []string
	for _, r := range f.Rules {
		want = append(want, r.ID)
	}
	slices.Sort(want)
	var got []string
	for _, r := range Default().Rules() {
		got = append(got, r.ID)
	}
	if !slices.Equal(got, want) {
		t.Errorf("Default() rules %q, rules.json %q", got, want)
	}
	if v := Default().Version(); v != f.Version {
		t.Errorf("Default().Version() = %q, rules.json version %q", v, f.Version)
	}
}

// describeFindings renders findings for failure messages (test data only:
// the samples are fake).
func describeFindings(text []byte, fs []Finding) string {
	if len(fs) == 0 {
		return "none"
	}
	var b strings.Builder
	for i, f := range fs {
		if i > 0 {
			b.WriteString(", ")
		}
		v := ""
		if f.Start >= 0 && f.End <= len(text) && f.Start <= f.End {
			v = string(text[f.Start:f.End])
		}
		fmt.Fprintf(&b, "%s[%d:%d %s]%q", f.RuleID, f.Start, f.End, f.Confidence, v)
	}
	return b.String()
}

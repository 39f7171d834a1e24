package secrets

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// redactAll replaces every finding of text with a marker, merging
// overlapping findings as the builder does (contextbuilder's apply).
func redactAll(text []byte, fs []Finding) string {
	var b strings.Builder
	last := 0
	for _, f := range fs {
		if f.Start < last {
			last = max(last, f.End)
			continue
		}
		b.Write(text[last:f.Start])
		b.WriteString("[REDACTED:" + f.RuleID + "]")
		last = f.End
	}
	b.Write(text[last:])
	return b.String()
}

// leak returns the first 16-byte window of secret found in out ("" for
// none): the attacker's measure of a leak.
func leak(out, secret string) string {
	const w = 16
	if len(secret) < w {
		if strings.Contains(out, secret) {
			return secret
		}
		return ""
	}
	for i := 0; i+w <= len(secret); i++ {
		if strings.Contains(out, secret[i:i+w]) {
			return secret[i : i+w]
		}
	}
	return ""
}

// extentCase is a syntax holding a secret: text is built from the value
// (and pieces of it, for the syntaxes that split a value).
type extentCase struct {
	name string
	// value draws a value; nil: a punctuated password.
	value func(r *rand.Rand) string
	text  func(v string) string
}

const punctSet = ".=+!%?"

// punctuated is a random password of 24 to 40 characters of which 3 to 6
// are from punctSet, never the first.
func punctuated(r *rand.Rand) string {
	const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	n := 24 + r.IntN(17)
	b := make([]byte, n)
	for i := range b {
		b[i] = alnum[r.IntN(len(alnum))]
	}
	for range 3 + r.IntN(4) {
		b[1+r.IntN(n-1)] = punctSet[r.IntN(len(punctSet))]
	}
	return string(b)
}

func randAlnum(r *rand.Rand, n int) string {
	const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = alnum[r.IntN(len(alnum))]
	}
	return string(b)
}

func ghp(r *rand.Rand) string    { return "ghp_" + randAlnum(r, 36) }
func stripe(r *rand.Rand) string { return "sk_live_" + randAlnum(r, 24+r.IntN(20)) }
func awsSecret(r *rand.Rand) string {
	const b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	b := make([]byte, 40)
	for i := range b {
		b[i] = b64[r.IntN(len(b64))]
	}
	return string(b)
}

// halves splits v into two pieces at a random point past a prefix of
// at least 4 bytes.
func halves(v string, at int) (string, string) { return v[:at], v[at:] }

var extentCases = []extentCase{
	// Item 1: values holding punctuation, as the host syntax delimits them.
	{name: "curl bearer double quotes", text: func(v string) string {
		return `curl -sS -H "Authorization: Bearer ` + v + `" https://api.example.com/v1/items`
	}},
	{name: "curl bearer single quotes", text: func(v string) string {
		return `curl -H 'Authorization: Bearer ` + v + `' -X POST https://api.example.com/v1/items`
	}},
	{name: "curl token scheme", text: func(v string) string {
		return `curl -H "Authorization: token ` + v + `" https://api.github.com/user`
	}},
	{name: "makefile ?=", text: func(v string) string { return "API_TOKEN ?= " + v + "\nall:\n\t./build.sh\n" }},
	{name: "makefile :=", text: func(v string) string { return "DB_PASSWORD := " + v + "\n" }},
	{name: "makefile ?= spaced key", text: func(v string) string { return "export SECRET_KEY ?= " + v + "\n" }},
	{name: "env in json object", text: func(v string) string { return `{"env": {"DB_PASSWORD": "` + v + `", "PORT": "8080"}}` }},
	{name: "env in json list", text: func(v string) string {
		return `{"environment": ["PORT=8080", "DB_PASSWORD=` + v + `", "DEBUG=0"]}`
	}},
	{name: "env in json string", text: func(v string) string { return `{"cmd": "API_KEY=` + v + ` ./run.sh"}` }},
	{name: "php variable", text: func(v string) string { return "<?php\n$password = '" + v + "';\n" }},
	{name: "php define", text: func(v string) string { return "<?php\ndefine('DB_PASSWORD', '" + v + "');\n" }},
	{name: "php array", text: func(v string) string { return "<?php\nreturn ['api_key' => \"" + v + "\", 'debug' => false];\n" }},
	{name: "xml element", text: func(v string) string { return "<config>\n  <password>" + v + "</password>\n</config>\n" }},
	{name: "xml attribute", text: func(v string) string { return `<add key="ApiSecret" value="` + v + `" />` }},
	{name: "xml attribute single", text: func(v string) string { return `<connection password='` + v + `' user="app"/>` }},
	{name: "yaml bare", text: func(v string) string { return "db:\n  password: " + v + "\n" }},
	{name: "env bare", text: func(v string) string { return "DB_PASSWORD=" + v + "\n" }},
	{name: "python kwarg", text: func(v string) string { return `conn = connect(host="db", password="` + v + `")` }},
	{name: "url query", text: func(v string) string { return `GET https://api.example.com/x?access_token=` + v + ` HTTP/1.1` }},
	// Item 2: line continuations.
	{name: "aws key continued", value: awsSecret, text: func(v string) string {
		return "aws configure set aws_secret_access_key \\\n  " + v + "\n"
	}},
	{name: "export continued", value: stripe, text: func(v string) string {
		a, b := halves(v, 8+len(v)/3)
		return "export STRIPE_KEY=" + a + "\\\n" + b + "\n"
	}},
	{name: "password continued", text: func(v string) string {
		a, b := halves(v, len(v)/2)
		return "DB_PASSWORD=" + a + "\\\n" + b + "\n"
	}},
	{name: "properties continued indented", value: stripe, text: func(v string) string {
		a, b := halves(v, 12)
		return "stripe.key=" + a + "\\\n    " + b + "\n"
	}},
	{name: "yaml double-quoted continued", value: ghp, text: func(v string) string {
		a, b := halves(v, 14)
		return "deploy:\n  token: \"" + a + "\\\n    " + b + "\"\n"
	}},
	{name: "toml multi-line continued", value: ghp, text: func(v string) string {
		a, b := halves(v, 22)
		return "token = \"\"\"\n" + a + "\\\n  " + b + "\"\"\"\n"
	}},
	// Item 2: concatenation.
	{name: "js plus", value: ghp, text: func(v string) string {
		a, b := halves(v, 4)
		return "const token = '" + a + "' + '" + b + "';\n"
	}},
	{name: "js plus halves", value: ghp, text: func(v string) string {
		a, b := halves(v, 20)
		return "const token = \"" + a + "\" +\n  \"" + b + "\";\n"
	}},
	{name: "python implicit", value: ghp, text: func(v string) string {
		a, b := halves(v, 20)
		return "TOKEN = (\"" + a + "\"\n         \"" + b + "\")\n"
	}},
	{name: "python implicit one line", value: stripe, text: func(v string) string {
		a, b := halves(v, 12)
		return "key = '" + a + "' '" + b + "'\n"
	}},
	{name: "go plus", value: ghp, text: func(v string) string {
		a, b := halves(v, 16)
		return "var tok = \"" + a + "\" + \"" + b + "\"\n"
	}},
	{name: "java plus", value: stripe, text: func(v string) string {
		a, b := halves(v, 8)
		return "String key = \"" + a + "\"\n    + \"" + b + "\";\n"
	}},
	{name: "csharp three pieces", value: ghp, text: func(v string) string {
		return "var t = \"" + v[:10] + "\" + \"" + v[10:25] + "\" + \"" + v[25:] + "\";\n"
	}},
	// The known leak: a detected value repeated where no rule matches.
	{name: "repeated value", text: func(v string) string {
		return "API_KEY=" + v + "\n# previous: " + v + "\nprint(\"" + v + "\")\n"
	}},
	{name: "repeated prefixed", value: ghp, text: func(v string) string {
		return "GITHUB_TOKEN=" + v + "\nsee " + v[4:] + " in the logs\n"
	}},
	// Item 5: a Kubernetes Secret, data before kind, folded value.
	{name: "k8s folded data before kind", value: func(r *rand.Rand) string { return awsSecret(r) + "==" }, text: func(v string) string {
		return "apiVersion: v1\ndata:\n  config: >\n    " + v + "\nkind: Secret\nmetadata:\n  name: app\n"
	}},
	{name: "k8s manifest in a json string", value: func(r *rand.Rand) string { return awsSecret(r) + "==" }, text: func(v string) string {
		return `{"manifest": "apiVersion: v1\ndata:\n  .dockercfg: >\n    ` + v + `\nmetadata:\n  name: app\ntype: Opaque\nkind: Secret\n"}`
	}},
}

// TestExtentLeaks is the attacker's battery of issue 30: fresh random
// values in every syntax; no 16-byte window of a value may survive
// redaction.
func TestExtentLeaks(t *testing.T) {
	s := Default()
	r := rand.New(rand.NewPCG(30, 14))
	for _, c := range extentCases {
		t.Run(c.name, func(t *testing.T) {
			for range 40 {
				gen := c.value
				if gen == nil {
					gen = punctuated
				}
				v := gen(r)
				text := c.text(v)
				fs, err := s.Scan("x", []byte(text))
				if err != nil {
					t.Fatal(err)
				}
				checkInvariants(t, []byte(text), fs)
				out := redactAll([]byte(text), fs)
				if w := leak(out, v); w != "" {
					t.Fatalf("leaks %q of %q:\n%s\n->\n%s\nfindings: %s", w, v, text, out, fmtFindings([]byte(text), fs))
				}
			}
		})
	}
}

func fmtFindings(text []byte, fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "\n  %s %q", f.RuleID, text[f.Start:f.End])
	}
	return b.String()
}

// TestEmptyKeyBlock: a key block whose END line follows with too little
// between to hold a key (gitleaks' false positives) is bounded: its body
// is redacted, nothing is uncertain. A real key without its END line, or
// a long body that no pattern matches, stays uncertain.
func TestEmptyKeyBlock(t *testing.T) {
	body := strings.Repeat("MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7", 2)
	cases := []struct {
		name, text string
		want       []got
	}{
		{"placeholder body", "-----BEGIN PRIVATE KEY-----\nanything\n-----END PRIVATE KEY-----",
			[]got{{"private-key", "anything", 2, High, false}}},
		{"empty", "-----BEGIN OPENSSH PRIVATE KEY----------END OPENSSH PRIVATE KEY-----", nil},
		{"no end", "-----BEGIN PRIVATE KEY-----\n" + body + "\n",
			[]got{{"private-key", "-----BEGIN PRIVATE KEY-----\n" + body + "\n", 1, Uncertain, true}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var g []got
			for _, f := range scanT(t, Default(), "k.pem", c.text) {
				if f.Rule == "private-key" {
					g = append(g, f)
				}
			}
			if diff := cmp.Diff(c.want, g); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

// FuzzJoinView checks the joined view on any text: every synthetic byte
// maps to an offset of the text, in order within a synthetic line, and is
// that byte or the decoding of the escape there; synthetic lines end at
// ends; scanning never panics and its findings stay in bounds.
func FuzzJoinView(f *testing.F) {
	for _, c := range extentCases {
		f.Add(c.text("ghp_" + strings.Repeat("aZ3", 12)))
	}
	f.Add("a\\\n\\\r\n\\")
	f.Add(`'x' + "y" . 'z' .. "w"` + "\n\"q\"\n")
	f.Add(`{"m": "a\nb\nc\nd\\"\t"}`)
	f.Fuzz(func(t *testing.T, text string) {
		jb := joinView([]byte(text))
		if jb != nil {
			if len(jb.buf) != len(jb.orig) {
				t.Fatalf("%d bytes, %d origins", len(jb.buf), len(jb.orig))
			}
			prevEnd := 0
			for _, e := range jb.ends {
				if e <= prevEnd || e > len(jb.buf) {
					t.Fatalf("ends %v of %d bytes", jb.ends, len(jb.buf))
				}
				prevEnd = e
			}
			if prevEnd != len(jb.buf) {
				t.Fatalf("last end %d of %d bytes", prevEnd, len(jb.buf))
			}
			for i, o := range jb.orig {
				if o < 0 || o >= len(text) {
					t.Fatalf("byte %d maps to %d of %d", i, o, len(text))
				}
				if b := jb.buf[i]; b != text[o] && text[o] != '\\' && b != '\n' {
					t.Fatalf("byte %d %q maps to %q", i, b, text[o])
				}
			}
		}
		if !utf8.ValidString(text) || strings.IndexByte(text, 0) >= 0 {
			return
		}
		fs, err := Default().Scan("f", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		checkInvariants(t, []byte(text), fs)
	})
}

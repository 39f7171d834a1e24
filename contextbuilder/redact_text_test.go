package contextbuilder_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/contextbuilder/secrets"
)

// keyText holds a private key on lines 3-7 between ordinary lines.
const keyText = "one\ntwo\n-----BEGIN RSA PRIVATE KEY-----\n" +
	"MIIEowIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi1Ld9kXxh5mNq8V6cQ2Y4nLw8b\n" +
	"q2Xy7bNfPq9WvK3mZtR8sLx4uYh1eGjD6cVbA9nS0pQrT5wXzYkH2mN7jLf3vB1c\n" +
	"Z8aWq4Rt6YuI0oP5sD2fG7hJ9kL3zX1cV8bN4mQ6wE0rT2yU5iO7pA9sD3fG5hJ\n" +
	"-----END RSA PRIVATE KEY-----\neight\n"

// TestRedactLines: lines cut from a file and redacted with the whole
// file's findings, as a bundle's block is.
func TestRedactLines(t *testing.T) {
	secretAt := func(line string) []contextbuilder.Redaction {
		return []contextbuilder.Redaction{{Type: contextbuilder.RedactPatternRedacted, Target: "k.txt", Reason: contextbuilder.RedactReasonSecret, Details: "rule private-key at line " + line}}
	}
	for _, tc := range []struct {
		scenario string
		text     string
		from, to int
		want     *contextbuilder.RedactedLines
	}{
		{scenario: "the whole text", text: keyText,
			want: &contextbuilder.RedactedLines{Content: "one\ntwo\n[REDACTED:private-key]\neight\n", StartLine: 1, EndLine: 8, TotalLines: 8, Redactions: secretAt("3")}},
		{scenario: "a range starting inside the key", text: keyText, from: 5, to: 8,
			want: &contextbuilder.RedactedLines{Content: "[REDACTED:private-key]\neight\n", StartLine: 5, EndLine: 8, TotalLines: 8, Redactions: secretAt("5")}},
		{scenario: "a range ending inside the key", text: keyText, from: 2, to: 4,
			want: &contextbuilder.RedactedLines{Content: "two\n[REDACTED:private-key]", StartLine: 2, EndLine: 4, TotalLines: 8, Redactions: secretAt("3")}},
		{scenario: "a range away from the key", text: keyText, from: 1, to: 2,
			want: &contextbuilder.RedactedLines{Content: "one\ntwo", StartLine: 1, EndLine: 2, TotalLines: 8, Redactions: []contextbuilder.Redaction{}}},
		{scenario: "bounds clamped", text: "a\nb\n", from: 0, to: 9,
			want: &contextbuilder.RedactedLines{Content: "a\nb\n", StartLine: 1, EndLine: 2, TotalLines: 2, Redactions: []contextbuilder.Redaction{}}},
		{scenario: "an empty text", text: "",
			want: &contextbuilder.RedactedLines{Content: "", StartLine: 1, EndLine: 1, TotalLines: 1, Redactions: []contextbuilder.Redaction{}}},
		{scenario: "hidden characters removed", text: "a\nb\u202ec\n", from: 2, to: 2,
			want: &contextbuilder.RedactedLines{Content: "bc\n", StartLine: 2, EndLine: 2, TotalLines: 2, Redactions: []contextbuilder.Redaction{{
				Type: contextbuilder.RedactPatternRedacted, Target: "k.txt", Reason: contextbuilder.RedactReasonPolicy,
				Details: "removed 1 hidden character(s) (bidirectional controls or Unicode tags) at line(s) 2"}}}},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			got, err := contextbuilder.RedactLines(secrets.Default(), contextbuilder.NewScanCache(0), "k.txt", "sha", []byte(tc.text), tc.from, tc.to)
			if err != nil {
				t.Fatalf("RedactLines: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			if strings.Contains(got.Content, "MIIE") || strings.Contains(got.Content, "Z8aW") {
				t.Errorf("key bytes in %q", got.Content)
			}
			if n := contextbuilder.TextLines([]byte(tc.text)); n != got.TotalLines {
				t.Errorf("TextLines = %d, RedactLines counted %d", n, got.TotalLines)
			}
		})
	}
}

// TestRedactLinesRisk: a key that cannot be redacted safely refuses the
// lines that show part of it, as a build refuses a required block, and
// not the others.
func TestRedactLinesRisk(t *testing.T) {
	truncated := strings.TrimSuffix(keyText, "-----END RSA PRIVATE KEY-----\neight\n")
	_, err := contextbuilder.RedactLines(secrets.Default(), nil, "k.txt", "", []byte(truncated), 4, 4)
	var ref *contextbuilder.Refusal
	if !errors.As(err, &ref) || ref.Code != contextbuilder.RefuseSecretRisk || !strings.Contains(ref.Message, "private-key") {
		t.Fatalf("err = %v, want REFUSE_SECRET_RISK naming the rule", err)
	}
	got, err := contextbuilder.RedactLines(secrets.Default(), nil, "k.txt", "", []byte(truncated), 1, 2)
	if err != nil || got.Content != "one\ntwo" {
		t.Errorf("lines before the key: %+v, %v", got, err)
	}
}

// TestRedactLinesRepeatedSecret: a value a rule finds on one line is
// redacted where it is repeated on another line that no rule matches (a
// comment, a plain string), also when only that line is shown.
func TestRedactLinesRepeatedSecret(t *testing.T) {
	const v = "Zk3pQ9xW2mL7vB4nR8tY6uI1oP5aS0dF"
	text := "API_KEY=" + v + "\n# rotated, the old value was " + v + "\nprint(\"" + v + "\")\n"
	for _, r := range [][2]int{{0, 0}, {2, 2}, {3, 3}} {
		got, err := contextbuilder.RedactLines(secrets.Default(), nil, "settings.py", "", []byte(text), r[0], r[1])
		if err != nil {
			t.Fatalf("lines %v: %v", r, err)
		}
		if strings.Contains(got.Content, v[:16]) || strings.Contains(got.Content, v[16:]) {
			t.Errorf("lines %v show the secret: %q", r, got.Content)
		}
		if len(got.Redactions) == 0 {
			t.Errorf("lines %v: no redaction reported", r)
		}
	}
}

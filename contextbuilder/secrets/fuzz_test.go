package secrets

import (
	"bytes"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// redactForTest replaces the findings' spans with "[REDACTED:<rule-id>]",
// the builder's marker. Overlapping spans are merged first (a cluster takes
// the id of its first finding, the longest at the earliest start), so that
// no byte of any finding survives. It returns the redacted text and the
// markers' spans in it.
func redactForTest(text []byte, fs []Finding) ([]byte, []span) {
	var out []byte
	var markers []span
	pos := 0
	for i := 0; i < len(fs); {
		start, end, id := fs[i].Start, fs[i].End, fs[i].RuleID
		j := i + 1
		for j < len(fs) && fs[j].Start < end {
			end = max(end, fs[j].End)
			j++
		}
		out = append(out, text[pos:start]...)
		m := "[REDACTED:" + id + "]"
		markers = append(markers, span{len(out), len(out) + len(m)})
		out = append(out, m...)
		pos = end
		i = j
	}
	out = append(out, text[pos:]...)
	return out, markers
}

// FuzzScan checks, for the built-in rules, the engine test rules and the
// benchmark rules (testdata/bench_rules.json, shaped like a full set), on
// any (path, text):
//
//   - no panic; an error is ErrUndecodable, exactly when the text is not
//     valid UTF-8 or holds a NUL byte, and comes without findings;
//   - findings are in bounds, non-empty, sorted (Start, then longer first),
//     with Line = 1 + newlines before Start, a known rule id and a known
//     confidence; scanning again gives the same findings;
//   - a Multiline rule matched at its start literals (see compiled.starts)
//     finds exactly what its regex finds on the whole text;
//   - redaction is idempotent and never reveals more: let R1 be the text
//     with every finding's span replaced by [REDACTED:<rule-id>]
//     (overlapping spans merged). R1 scans without error, and no finding
//     in R1 overlaps a marker. So redacting R1 again keeps every marker
//     byte for byte and can only replace more of the original text: no
//     marker is ever split, shifted or partly re-exposed, and no byte of a
//     redacted secret comes back.
func FuzzScan(f *testing.F) {
	gh := checksummed("ghp_", "R2a8bK4nQ7wX1vZ3cY6dT9eU0fS5gH")
	key := "-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu\n-----END RSA PRIVATE KEY-----"
	seeds := []string{
		"", "\n", "password=hunter2", "password = 'p@ss:w0rd!' # gitleaks:allow\r\n",
		"token: " + gh + "\n", gh + gh, "x" + gh + "y",
		key, key + "\n" + key, strings.ReplaceAll(key, "\n", `\n`), "-----BEGIN PRIVATE KEY-----\nabc",
		`{"private_key": "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n"}`,
		"AKIAIOSFODNN7EXAMPLE wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		"postgres://admin:s3cr3t@db.example.com:5432/app",
		"Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln",
		"héllo 日本語 password=sécret€🔐 ok", "a\x00b", "\xff\xfe", "BEGIN-BLOCK\nx\nEND-BLOCK", "apikey = q8Z!r2Lw0pX7vB4n",
		"password=[REDACTED:t-password]", "machine h login u password p1\ndefault login x password y", "é machine h\n login u\n password p1",
		"xkey:\n  abcdef0123456789\n", "password = [REDACTED:password-assignment]xyz",
	}
	for _, r := range Default().Rules() {
		for _, tp := range r.Samples.TruePositives {
			seeds = append(seeds, strings.NewReplacer("««", "", "»»", "").Replace(tp))
		}
		seeds = append(seeds, r.Samples.FalsePositives...)
	}
	for i, s := range seeds {
		path := []string{"a.env", "config.yaml", "main.go", "id_rsa", ""}[i%5]
		f.Add(path, []byte(s))
	}
	data, err := os.ReadFile("testdata/bench_rules.json")
	if err != nil {
		f.Fatal(err)
	}
	bench, err := parseRuleFile(data)
	if err != nil {
		f.Fatal(err)
	}
	scanners := []*Scanner{Default(), testScanner(f), bench}
	f.Fuzz(func(t *testing.T, path string, text []byte) {
		for _, s := range scanners {
			checkScan(t, s, path, text)
		}
	})
}

func checkScan(t *testing.T, s *Scanner, path string, text []byte) {
	fs, err := s.Scan(path, text)
	decodable := utf8.Valid(text) && bytes.IndexByte(text, 0) < 0
	if err != nil {
		if !errors.Is(err, ErrUndecodable) || decodable || fs != nil {
			t.Fatalf("Scan(%q): %v with %d findings (decodable %v)", text, err, len(fs), decodable)
		}
		return
	}
	if !decodable {
		t.Fatalf("Scan(%q) accepted undecodable text", text)
	}
	checkInvariants(t, text, fs)
	ids := map[string]bool{UnscannedRuleID: true}
	for _, r := range s.Rules() {
		ids[r.ID] = true
	}
	for _, f := range fs {
		if !ids[f.RuleID] {
			t.Fatalf("unknown rule %q", f.RuleID)
		}
	}
	checkAnchored(t, s, text)
	again, _ := s.Scan(path, text)
	if !slices.Equal(fs, again) {
		t.Fatalf("Scan(%q) not deterministic:\n%+v\n%+v", text, fs, again)
	}

	r1, markers := redactForTest(text, fs)
	fs2, err := s.Scan(path, r1)
	if err != nil {
		t.Fatalf("redacted text %q does not scan: %v", r1, err)
	}
	for _, f := range fs2 {
		for _, m := range markers {
			if f.Start < m.end && m.start < f.End {
				t.Fatalf("rescanning redacted text %q: finding %+v (%q) overlaps marker %q\noriginal %q findings %+v",
					r1, f, r1[f.Start:f.End], r1[m.start:m.end], text, fs)
			}
		}
	}
}

package secrets

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/tools/corpus"
)

// testScanner compiles testdata/engine_rules.json, a small rule set that
// exercises the engine independently of the built-in rules.
func testScanner(t testing.TB) *Scanner {
	t.Helper()
	data, err := os.ReadFile("testdata/engine_rules.json")
	if err != nil {
		t.Fatal(err)
	}
	s, err := parseRuleFile(data)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// got is a finding with its value, for comparisons.
type got struct {
	Rule, Value string
	Line        int
	Confidence  Confidence
	WholeFile   bool
}

func describe(text []byte, fs []Finding) []got {
	var out []got
	for _, f := range fs {
		out = append(out, got{f.RuleID, string(text[f.Start:f.End]), f.Line, f.Confidence, f.WholeFile})
	}
	return out
}

func scanT(t *testing.T, s *Scanner, path, text string) []got {
	t.Helper()
	fs, err := s.Scan(path, []byte(text))
	if err != nil {
		t.Fatalf("Scan(%q): %v", text, err)
	}
	checkInvariants(t, []byte(text), fs)
	return describe([]byte(text), fs)
}

// checkInvariants: spans in bounds, non-empty, on rune boundaries, sorted
// (Start, then longer first), Line = 1 + newlines before Start.
func checkInvariants(t testing.TB, text []byte, fs []Finding) {
	t.Helper()
	for i, f := range fs {
		if f.Start < 0 || f.End > len(text) || f.Start >= f.End {
			t.Fatalf("finding %d %+v out of bounds (len %d)", i, f, len(text))
		}
		if want := 1 + strings.Count(string(text[:f.Start]), "\n"); f.Line != want {
			t.Fatalf("finding %d %+v: Line %d, want %d", i, f, f.Line, want)
		}
		if f.Confidence != High && f.Confidence != Uncertain {
			t.Fatalf("finding %d: confidence %q", i, f.Confidence)
		}
		if i > 0 {
			p := fs[i-1]
			if p.Start > f.Start || (p.Start == f.Start && p.End < f.End) {
				t.Fatalf("findings %d and %d out of order: %+v %+v", i-1, i, p, f)
			}
		}
	}
}

func TestDefaultRulesValid(t *testing.T) {
	if _, err := parseRuleFile(builtinJSON); err != nil {
		t.Fatalf("embedded rules.json: %v", err)
	}
	s := Default()
	if s != Default() {
		t.Error("Default() compiled twice")
	}
	if s.Version() == "" || strings.Contains(s.Version(), "+user") {
		t.Errorf("Default().Version() = %q", s.Version())
	}
	rules := s.Rules()
	if len(rules) == 0 {
		t.Fatal("no built-in rules")
	}
	if !slices.IsSortedFunc(rules, func(a, b Rule) int { return strings.Compare(a.ID, b.ID) }) {
		t.Error("Rules() not sorted by id")
	}
	// Rules returns copies.
	rules[0].Keywords = append(rules[0].Keywords[:0], "mutated")
	if s.Rules()[0].Keywords[0] == "mutated" {
		t.Error("Rules() shares memory with the scanner")
	}
	if n, err := New(nil); err != nil || n != s {
		t.Errorf("New(nil) = %p, %v; want Default()", n, err)
	}
}

func TestScan(t *testing.T) {
	s := testScanner(t)
	gh := checksummed("ghp_", "R2a8bK4nQ7wX1vZ3cY6dT9eU0fS5gH")
	tests := []struct {
		name, path, text string
		want             []got
	}{
		{"nothing", "a.go", "package main\n\nfunc main() {}\n", nil},
		{"empty", "a.go", "", nil},
		{"prefixed", "a.env", "X=1\nGITHUB_TOKEN=" + gh + "\n", []got{{"t-github", gh, 2, High, false}}},
		{"prefixed upper-case keyword line", "a.env", "GHP_NOTE=1 " + gh, []got{{"t-github", gh, 1, High, false}}},
		{"two on one line", "a.txt", gh + " " + gh, []got{{"t-github", gh, 1, High, false}, {"t-github", gh, 1, High, false}}},
		{"whole file token (redacted, not a key file)", "token", "\n  " + gh + "\n\n", []got{{"t-github", gh, 2, High, false}}},
		{"password with punctuation", "a.yaml", "db:\n  password: p@ss:w0rd!\n", []got{{"t-password", "p@ss:w0rd!", 2, High, false}}},
		{"password quoted", "a.json", `{"password": "correct horse battery staple"}`, []got{{"t-password", `"correct horse battery staple"`, 1, High, false}}},
		{"password case-insensitive keyword", "a.ini", "PASSWORD=Hunter2\n", []got{{"t-password", "Hunter2", 1, High, false}}},
		{"keyword without match", "a.go", "// the password is checked elsewhere\n", nil},
		{"aws id", "a.py", "key = 'AKIAZ3MSJV4WQZ5QNCKF'", []got{{"t-aws-id", "AKIAZ3MSJV4WQZ5QNCKF", 1, High, false}}},
		{"aws documented example", "a.py", "key = 'AKIAIOSFODNN7EXAMPLE'", nil},
		{"entropy floor: low", "a.env", "APIKEY=aaaabbbb", nil},
		{"entropy floor: high", "a.env", "APIKEY=q8Z!r2Lw0pX7vB4n", []got{{"t-apikey", "q8Z!r2Lw0pX7vB4n", 1, High, false}}},
		{"keywordless rule", "a.txt", "one\ntwo zz9-123456\n", []got{{"t-nokw", "zz9-123456", 2, High, false}}},
		{"jwt", "a.http", "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig_-x\n", []got{{"t-jwt", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig_-x", 1, High, false}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, scanT(t, s, tt.path, tt.text)); diff != "" {
				t.Errorf("Scan(%q) (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

// TestOffsetsMultibyte: spans are byte offsets, also after multi-byte
// characters on the same and earlier lines.
func TestOffsetsMultibyte(t *testing.T) {
	s := testScanner(t)
	text := "# héllo wörld 日本語 🔑\nnaïve = 1; password=sécret€🔐x ; ok\n"
	fs, err := s.Scan("a.conf", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	want := "sécret€🔐x"
	start := strings.Index(text, want)
	if len(fs) != 1 || fs[0].Start != start || fs[0].End != start+len(want) || fs[0].Line != 2 {
		t.Fatalf("Scan = %+v, want [%d,%d) line 2", fs, start, start+len(want))
	}
}

// TestCRLF: a value never includes the '\r' of a CRLF line, lines count
// '\n', and rules that anchor at the end of a line work as with LF.
func TestCRLF(t *testing.T) {
	s := testScanner(t)
	gh := checksummed("ghp_", "R2a8bK4nQ7wX1vZ3cY6dT9eU0fS5gH")
	text := "a=1\r\npassword=hunter2\r\n\r\ntoken=" + gh + "\r\nPASSWD = y7\r\n"
	want := []got{
		{"t-password", "hunter2", 2, High, false},
		{"t-github", gh, 4, High, false},
		{"t-password", "y7", 5, High, false},
	}
	if diff := cmp.Diff(want, scanT(t, s, "a.env", text)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// A multi-line block with CRLF line ends.
	key := "-----BEGIN RSA PRIVATE KEY-----\r\nMIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu\r\n-----END RSA PRIVATE KEY-----"
	g := scanT(t, s, "id_rsa", key+"\r\n")
	if len(g) != 1 || g[0].Value != key || !g[0].WholeFile || g[0].Confidence != High {
		t.Errorf("CRLF key: %+v", g)
	}
}

func TestUndecodable(t *testing.T) {
	s := testScanner(t)
	utf16le := func(s string) []byte {
		var b []byte
		for _, r := range s {
			b = append(b, byte(r), byte(r>>8))
		}
		return b
	}
	utf16be := func(s string) []byte {
		var b []byte
		for _, r := range s {
			b = append(b, byte(r>>8), byte(r))
		}
		return b
	}
	secret := "password=hunter2"
	tests := map[string][]byte{
		"invalid utf-8":           []byte("password=hunter2 \xff\xfe"),
		"truncated rune":          []byte("password=hunter2 \xe6\x97"),
		"overlong encoding":       []byte("a \xc0\xaf b"),
		"surrogate half":          []byte("a \xed\xa0\x80 b"),
		"NUL":                     []byte("password=hunter2\x00"),
		"utf-16le no bom":         utf16le(secret),
		"utf-16le bom":            append([]byte{0xff, 0xfe}, utf16le(secret)...),
		"utf-16be no bom":         utf16be(secret),
		"utf-16be bom":            append([]byte{0xfe, 0xff}, utf16be(secret)...),
		"latin-1 in a utf-8 file": []byte("password=s\xe9cret"),
	}
	for name, text := range tests {
		t.Run(name, func(t *testing.T) {
			fs, err := s.Scan("dir/file.txt", text)
			if !errors.Is(err, ErrUndecodable) {
				t.Fatalf("err = %v, want ErrUndecodable", err)
			}
			if fs != nil {
				t.Errorf("findings with an error: %+v", fs)
			}
			msg := err.Error()
			if !strings.Contains(msg, "dir/file.txt") {
				t.Errorf("error %q does not name the path", msg)
			}
			if strings.Contains(msg, "hunter2") || strings.Contains(msg, "cret") {
				t.Errorf("error %q reveals content", msg)
			}
		})
	}
	// A UTF-8 byte order mark is fine, and not content: a key block after
	// one is the whole file. A file that is one token is not a key file:
	// its span is redacted like any other.
	gh := checksummed("ghp_", "R2a8bK4nQ7wX1vZ3cY6dT9eU0fS5gH")
	if g := scanT(t, s, "token", "\uFEFF"+gh+"\n"); len(g) != 1 || g[0].WholeFile {
		t.Errorf("BOM, token: %+v", g)
	}
	key := "-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu\n-----END RSA PRIVATE KEY-----"
	if g := scanT(t, s, "id_rsa", "\uFEFF"+key+"\n"); len(g) != 1 || !g[0].WholeFile {
		t.Errorf("BOM, key: %+v", g)
	}
}

// TestAllowCommentsIgnored: inline allow comments of other scanners do not
// suppress anything.
func TestAllowCommentsIgnored(t *testing.T) {
	s := testScanner(t)
	gh := checksummed("ghp_", "R2a8bK4nQ7wX1vZ3cY6dT9eU0fS5gH")
	for _, c := range []string{
		"# gitleaks:allow", "// gitleaks:allow", "#gitleaks:allow", "/* gitleaks:allow */",
		"# pragma: allowlist secret", "// pragma: allowlist nextline secret", "# nosec", "// #nosec G101",
		"# noqa", "# noqa: S105", "// NOSONAR", "# trufflehog:ignore", "# ggignore", "// ctxd:allow", "# detect-secrets: allow",
	} {
		for _, line := range []string{
			"password = hunter2 " + c,
			"token = " + gh + " " + c,
		} {
			if g := scanT(t, s, "a.py", line+"\n"); len(g) != 1 {
				t.Errorf("%q: %+v, want one finding", line, g)
			}
			// On the line before, too.
			if g := scanT(t, s, "a.py", c+"\n"+line+"\n"); len(g) != 1 {
				t.Errorf("%q after %q: %+v, want one finding", line, c, g)
			}
		}
	}
}

// TestPlaceholder: the contextual allowlist accepts exactly the provable
// non-secrets.
func TestPlaceholder(t *testing.T) {
	notSecrets := []string{
		"", "  ", "changeme", "CHANGEME", "change_me", "password", "secret", `""`, `''`, `"changeme"`, "'secret'",
		"<token>", "<your-password-here>", "<YOUR PASSWORD>", "${DB_PASSWORD}", "${env:DB_PASSWORD}", "$DB_PASSWORD", "$(DB_PASSWORD)", "%DB_PASSWORD%",
		"{{ .Values.db.password }}", "{{.Values.password}}", "{{- .Values.password -}}", "{{ .Values.pw | b64enc }}",
		"${{ secrets.DB_PASSWORD }}", "${{secrets.X}}", "${{ secrets['DB_PASSWORD'] }}", "%(db_password)s",
		"process.env.DB_PASSWORD", "process.env['DB_PASSWORD']", `os.environ["DB_PASSWORD"]`, "os.environ.get('PW')",
		`os.getenv("DB_PASSWORD")`, `os.Getenv("DB_PASSWORD")`, "env('DB_PASSWORD')", `ENV["DB_PASSWORD"]`, `ENV.fetch("PW")`, `System.getenv("PW")`,
		"xxxx", "XXXXXXXX", "xxxx-xxxx-xxxx", "****", "********", "••••••", "aaaaaaaa", "00000000", "null", "None", "nil", "true", "FALSE",
	}
	for _, v := range notSecrets {
		if !placeholder([]byte(v)) {
			t.Errorf("placeholder(%q) = false", v)
		}
	}
	secrets := []string{
		"hunter2", "p@ss:w0rd!", "Tr0ub4dor&3", "${DB_PASSWORD:-hunter2}", "${PW-hunter2}", `{{ .Values.pw | default "hunter2" }}`, `{{ "hunter2" }}`,
		`os.getenv("PW","hunter2")`, "env('PW', 'hunter2')", "xxxxhunter2", "changeme2", "<a>b", "$(cat /run/secret)", "passw0rd",
		"process.env.PW || 'hunter2'", "x1x1x1x1", "xy",
	}
	for _, v := range secrets {
		if placeholder([]byte(v)) {
			t.Errorf("placeholder(%q) = true", v)
		}
	}
	for v, want := range map[string]bool{
		"AKIAIOSFODNN7EXAMPLE": true, "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY": true,
		"AKIAIOSFODNN7example": false, "EXAMPLE with spaces": false, `line\nEXAMPLE`: false, strings.Repeat("A", 300) + "EXAMPLE": false,
	} {
		if got := exampleKey([]byte(v)); got != want {
			t.Errorf("exampleKey(%q) = %v", v, got)
		}
	}
}

// TestContextualAllowlist: end to end, placeholders are not reported and
// secrets are, whatever their punctuation.
func TestContextualAllowlist(t *testing.T) {
	s := testScanner(t)
	for _, v := range []string{"changeme", `"changeme"`, `""`, "<token>", `"<your password>"`, "${DB_PASSWORD}", "$PW", `"{{ .Values.pw }}"`, "'${{ secrets.PW }}'", "process.env.PW", "xxxxxxxx", "********", "[REDACTED:t-password]"} {
		if g := scanT(t, s, "a.conf", "password = "+v+"\n"); len(g) != 0 {
			t.Errorf("placeholder %q reported: %+v", v, g)
		}
	}
	for _, v := range []string{"hunter2", "p@ss:w0rd!", "Tr0ub4dor&3", "'${PW:-hunter2}'", `"correct horse"`, "xxxxhunter2", `"[REDACTED]"`} {
		if g := scanT(t, s, "a.conf", "password = "+v+"\n"); len(g) != 1 || g[0].Rule != "t-password" {
			t.Errorf("secret %q not reported: %+v", v, g)
		}
	}
}

// TestMarkersNeverReported: no finding includes a byte of a redaction
// marker; what is around markers is still reported.
func TestMarkersNeverReported(t *testing.T) {
	s := testScanner(t)
	gh := checksummed("ghp_", "R2a8bK4nQ7wX1vZ3cY6dT9eU0fS5gH")
	tests := []struct {
		text string
		want []string
	}{
		{"password = [REDACTED:t-password]\n", nil},
		{"password = \"[REDACTED:t-password]\"\n", nil},
		{"password = [REDACTED:t-password][REDACTED:t-github]\n", nil},
		{"password = [REDACTED:t-password]hunter2\n", []string{"hunter2"}},
		{"password = hunter[REDACTED:x]2\n", []string{"hunter", "2"}},
		{"password = [REDACTED]\n", []string{"[REDACTED]"}},
		{"password = [REDACTED:Upper]\n", []string{"[REDACTED:Upper]"}},
		{"[REDACTED:t-private-key]\n-----BEGIN PRIVATE KEY-----\nabc[REDACTED:t-password]def\n", []string{"-----BEGIN PRIVATE KEY-----\nabc", "def\n"}},
		{"token=" + gh + "[REDACTED:t-github]", []string{gh}},
	}
	for _, tt := range tests {
		var vals []string
		for _, g := range scanT(t, s, "a", tt.text) {
			vals = append(vals, g.Value)
		}
		if !slices.Equal(vals, tt.want) {
			t.Errorf("Scan(%q) = %q, want %q", tt.text, vals, tt.want)
		}
	}
}

// TestExampleOnlyAllowlistForPrefixed: placeholders never exempt a
// prefixed match; documented example keys (…EXAMPLE…) do.
func TestExampleOnlyAllowlistForPrefixed(t *testing.T) {
	s := testScanner(t)
	if g := scanT(t, s, "a", "AKIAIOSFODNN7EXAMPLE\n"); len(g) != 0 {
		t.Errorf("example key reported: %+v", g)
	}
	// All-same-character and x-masks are placeholders only for contextual
	// rules.
	for _, v := range []string{"ghp_" + strings.Repeat("x", 36), "ghp_" + strings.Repeat("a", 36), "AKIAAAAAAAAAAAAAAAAA"} {
		if g := scanT(t, s, "a", v); len(g) != 1 {
			t.Errorf("prefixed %q: %+v, want one finding", v, g)
		}
	}
}

func TestPrivateKeys(t *testing.T) {
	s := testScanner(t)
	body := "MIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu\nKUpRKfFLfRYC9AIKjbJTWit+CqvjWYzvQwECAwEAAQJAIJLixBy2qpFoS4DSmoEm\n"
	key := "-----BEGIN RSA PRIVATE KEY-----\n" + body + "-----END RSA PRIVATE KEY-----"
	escaped := strings.ReplaceAll(key, "\n", `\n`)
	tests := []struct {
		name, text string
		want       []got
	}{
		{"key file", key + "\n", []got{{"t-private-key", key, 1, High, true}}},
		{"key file with blank lines around", "\n\n" + key + "\n\n", []got{{"t-private-key", key, 3, High, true}}},
		{"key in a file", "x = 1\nkey = \"\"\"\n" + key + "\n\"\"\"\n", []got{{"t-private-key", key, 3, High, false}}},
		{"escaped in json", `{"type": "service_account", "private_key": "` + escaped + `\n", "x": 1}`, []got{{"t-private-key", escaped, 1, High, false}}},
		{"two keys", key + "\n" + key + "\n", []got{{"t-private-key", key, 1, High, false}, {"t-private-key", key, 5, High, false}}},
		{"unterminated", "a\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n", []got{{"t-private-key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n", 2, Uncertain, false}}},
		{"unterminated whole file", "-----BEGIN PRIVATE KEY-----\nMIIE", []got{{"t-private-key", "-----BEGIN PRIVATE KEY-----\nMIIE", 1, Uncertain, true}}},
		{"unterminated escaped", `{"k": "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEE"}`, []got{{"t-private-key", `-----BEGIN EC PRIVATE KEY-----\nMHcCAQEE"}`, 1, Uncertain, false}}},
		{"complete then unterminated", key + "\n-----BEGIN PRIVATE KEY-----\nabc\n", []got{
			{"t-private-key", key, 1, High, false},
			{"t-private-key", "-----BEGIN PRIVATE KEY-----\nabc\n", 5, Uncertain, false},
		}},
		{"public key", "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----\n", nil},
		{"prose", "Never commit a private key.\n", nil},
		{"explicit open, terminated", "BEGIN-BLOCK\nabc\nEND-BLOCK\n", []got{{"t-block", "BEGIN-BLOCK\nabc\nEND-BLOCK", 1, High, true}}},
		{"explicit open, unterminated", "x\nBEGIN-BLOCK\nabc\n", []got{{"t-block", "BEGIN-BLOCK\nabc\n", 2, Uncertain, false}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, scanT(t, s, "f", tt.text)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	// The key block is a valid PEM for the pem validator.
	fs, _ := s.Scan("f", []byte(key))
	if len(fs) != 1 || !s.Validated(fs[0], []byte(key)) {
		t.Errorf("pem validator on %+v", fs)
	}
}

// TestDeterminism: the same text gives the same findings, sequentially and
// concurrently.
func TestDeterminism(t *testing.T) {
	s := testScanner(t)
	gh := checksummed("ghp_", "R2a8bK4nQ7wX1vZ3cY6dT9eU0fS5gH")
	var b strings.Builder
	for i := range 200 {
		fmt.Fprintf(&b, "line %d password=%d-p@ss token=%s apikey=q8Z!r2Lw0pX7vB4n%d\n", i, i, gh, i)
		if i%50 == 0 {
			b.WriteString("-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n")
		}
	}
	text := []byte(b.String())
	first, err := s.Scan("a", text)
	if err != nil || len(first) != 200*3+4 {
		t.Fatalf("Scan: %d findings, %v", len(first), err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				again, err := s.Scan("a", text)
				if err != nil || !slices.Equal(first, again) {
					t.Error("Scan is not deterministic")
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestOverlapOrder: findings of different rules at the same start are
// sorted longer first, then by rule id.
func TestOverlapOrder(t *testing.T) {
	extra := []Rule{
		{ID: "x-long", Description: "d", Kind: Prefixed, Keywords: []string{"qq-"}, Regex: `qq-[a-z]+ [a-z]+`},
		{ID: "x-short", Description: "d", Kind: Prefixed, Keywords: []string{"qq-"}, Regex: `qq-[a-z]{3}`},
		{ID: "a-short", Description: "d", Kind: Prefixed, Keywords: []string{"qq-"}, Regex: `qq-[a-z]{3}`},
	}
	s, err := New(extra)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := s.Scan("a", []byte("qq-abc def"))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, f := range fs {
		if strings.HasPrefix(f.RuleID, "x-") || strings.HasPrefix(f.RuleID, "a-") {
			ids = append(ids, f.RuleID)
		}
	}
	if want := []string{"x-long", "a-short", "x-short"}; !slices.Equal(ids, want) {
		t.Errorf("order %v, want %v", ids, want)
	}
}

func TestVersion(t *testing.T) {
	base := Default().Version()
	r1 := Rule{ID: "user-one", Description: "d", Kind: Prefixed, Keywords: []string{"u1-"}, Regex: `u1-[0-9]{8}`}
	r2 := Rule{ID: "user-two", Description: "d", Kind: Contextual, Keywords: []string{"u2"}, Regex: `u2=(\S+)`, SecretGroup: 1}
	s1, err := New([]Rule{r1})
	if err != nil {
		t.Fatal(err)
	}
	v1 := s1.Version()
	if !strings.HasPrefix(v1, base+"+user.") || len(v1) != len(base)+len("+user.")+12 {
		t.Fatalf("Version() = %q", v1)
	}
	s12, _ := New([]Rule{r1, r2})
	s21, _ := New([]Rule{r2, r1})
	if s12.Version() == v1 {
		t.Error("adding a rule does not change the version")
	}
	if s12.Version() != s21.Version() {
		t.Error("the version depends on the order of the extra rules")
	}
	r1b := r1
	r1b.Regex = `u1-[0-9]{9}`
	if s, _ := New([]Rule{r1b}); s.Version() == v1 {
		t.Error("changing a regex does not change the version")
	}
	r1c := r1
	r1c.Validators = []string{}
	if s, _ := New([]Rule{r1c}); s.Version() != v1 {
		t.Error("nil and empty validators give different versions")
	}
	if got := len(s12.Rules()); got != len(Default().Rules())+2 {
		t.Errorf("New: %d rules", got)
	}
	fs, _ := s12.Scan("a", []byte("u1-12345678 u2=abc"))
	if len(fs) < 2 {
		t.Errorf("extra rules not applied: %+v", fs)
	}
}

func TestNewErrors(t *testing.T) {
	builtinID := Default().Rules()[0].ID
	ok := Rule{ID: "user-ok", Description: "d", Kind: Prefixed, Keywords: []string{"uk-"}, Regex: `uk-[0-9]+`}
	with := func(f func(*Rule)) Rule { r := ok; r.Keywords = slices.Clone(ok.Keywords); f(&r); return r }
	tests := []struct {
		name  string
		rules []Rule
		want  string // in the error
	}{
		{"built-in id", []Rule{with(func(r *Rule) { r.ID = builtinID })}, builtinID},
		{"duplicate id", []Rule{ok, ok}, "user-ok"},
		{"bad regex", []Rule{with(func(r *Rule) { r.Regex = `uk-(` })}, "user-ok"},
		{"perl lookahead", []Rule{with(func(r *Rule) { r.Regex = `uk-(?=x)` })}, "user-ok"},
		{"bad open", []Rule{with(func(r *Rule) { r.Open = `[` })}, "user-ok"},
		{"unknown validator", []Rule{with(func(r *Rule) { r.Validators = []string{"luhn"} })}, "luhn"},
		{"bad kind", []Rule{with(func(r *Rule) { r.Kind = "generic" })}, "user-ok"},
		{"no kind", []Rule{with(func(r *Rule) { r.Kind = "" })}, "user-ok"},
		{"secret group too large", []Rule{with(func(r *Rule) { r.SecretGroup = 1 })}, "user-ok"},
		{"upper-case keyword", []Rule{with(func(r *Rule) { r.Keywords = []string{"UK-"} })}, "user-ok"},
		{"empty keyword", []Rule{with(func(r *Rule) { r.Keywords = []string{""} })}, "user-ok"},
		{"no regex", []Rule{with(func(r *Rule) { r.Regex = "" })}, "user-ok"},
		{"empty id", []Rule{with(func(r *Rule) { r.ID = "" })}, "rule #1"},
		{"id with a bracket", []Rule{with(func(r *Rule) { r.ID = "a]b" })}, "a]b"},
		{"id too long", []Rule{with(func(r *Rule) { r.ID = strings.Repeat("a", 65) })}, strings.Repeat("a", 65)},
		{"negative entropy", []Rule{with(func(r *Rule) { r.Entropy = -1 })}, "user-ok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New(tt.rules)
			if err == nil {
				t.Fatalf("New succeeded: %v", s.Version())
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not name %q", err, tt.want)
			}
		})
	}
}

// TestRuleFileErrors: a rules file with an unknown validator, an unknown
// field or no version does not load.
func TestRuleFileErrors(t *testing.T) {
	rule := `{"id":"a","description":"d","kind":"prefixed","keywords":["a-"],"regex":"a-1","validators":[%s],"samples":{"true_positives":[],"false_positives":[]}%s}`
	tests := map[string]string{
		"unknown validator": `{"version":"v","rules":[` + fmt.Sprintf(rule, `"crc64"`, "") + `]}`,
		"unknown field":     `{"version":"v","rules":[` + fmt.Sprintf(rule, "", `,"disabled":true`) + `]}`,
		"no version":        `{"rules":[` + fmt.Sprintf(rule, "", "") + `]}`,
		"syntax":            `{"version":"v","rules":[`,
		"trailing data":     `{"version":"v","rules":[]} {}`,
	}
	for name, data := range tests {
		if _, err := parseRuleFile([]byte(data)); err == nil {
			t.Errorf("%s: loaded", name)
		}
	}
	if _, err := parseRuleFile([]byte(`{"version":"v","rules":[` + fmt.Sprintf(rule, `"pem","jwt","github-crc32","npm-crc32","aws-account-id"`, "") + `]}`)); err != nil {
		t.Errorf("known validators: %v", err)
	}
}

// TestMultilineWholeText: a Multiline rule runs on the whole text when
// one of its keywords occurs anywhere, so a match may begin on a line
// before its keyword's.
func TestMultilineWholeText(t *testing.T) {
	s, err := New([]Rule{{ID: "user-ml", Description: "d", Kind: Prefixed, Keywords: []string{"marker"}, Regex: `(?s)START.*?marker.*?STOP`, Multiline: true}})
	if err != nil {
		t.Fatal(err)
	}
	for text, want := range map[string]string{
		"a\nb START x\ny marker\nSTOP\n": "START x\ny marker\nSTOP",
		"a\nb START marker x\ny\nSTOP\n": "START marker x\ny\nSTOP",
		"START x STOP":                   "",
	} {
		fs, _ := s.Scan("a", []byte(text))
		var vals []string
		for _, f := range fs {
			if f.RuleID == "user-ml" {
				vals = append(vals, text[f.Start:f.End])
			}
		}
		if (want == "" && len(vals) != 0) || (want != "" && !slices.Equal(vals, []string{want})) {
			t.Errorf("Scan(%q): %q, want %q", text, vals, want)
		}
	}
}

// naiveCands are the offsets of r's start literals in text (ASCII case
// folded), found by plain search.
func naiveCands(r *compiled, text []byte) []int {
	lower := []byte(asciiLowerString(string(text)))
	var out []int
	for _, p := range r.starts {
		for i := 0; ; {
			j := bytes.Index(lower[i:], []byte(p))
			if j < 0 {
				break
			}
			out = append(out, i+j)
			i += j + 1
		}
	}
	return out
}

// checkAnchored: for every anchored rule, matching at the start literals
// gives exactly FindAllSubmatchIndex's matches on the whole text.
func checkAnchored(t testing.TB, s *Scanner, text []byte) {
	t.Helper()
	for i := range s.rules {
		r := &s.rules[i]
		if r.anchored == nil {
			continue
		}
		got := r.anchoredMatches(text, naiveCands(r, text))
		want := r.re.FindAllSubmatchIndex(text, -1)
		if len(got) != len(want) {
			t.Fatalf("rule %s on %q: anchored %v, FindAll %v", r.ID, text, got, want)
		}
		for j := range got {
			if !slices.Equal(got[j], want[j]) {
				t.Fatalf("rule %s on %q: anchored %v, FindAll %v", r.ID, text, got, want)
			}
		}
	}
}

func TestAnchoredMultiline(t *testing.T) {
	s := testScanner(t)
	anchored := map[string]bool{}
	for _, r := range s.rules {
		if r.anchored != nil {
			anchored[r.ID] = true
		}
	}
	if !anchored["t-netrc"] || !anchored["t-lineanchor"] || anchored["t-private-key"] || anchored["t-block"] {
		t.Fatalf("anchored rules: %v", anchored)
	}
	texts := []string{
		"machine example.com\n  login alice\n  password s3cr3t!\n",
		"machine a login b password c1 machine d login e password f2",
		"xmachine a login b password c1\n",
		"émachine a login b password c1\n",
		"_machine a login b password c1\n",
		"MACHINE a LOGIN b PASSWORD c1\r\ndefault login x password y2\r\n",
		"default: return\ndefault login x password y2",
		"machine machine login l password p9 login",
		"machine a login b account c password d1",
		"machine\ta\n\nlogin\tb\n\npassword\td1",
		"xkey:\n  abcdef0123456789\nfoo xkey:\n  abcdef0123456789\nXKEY:\n\n  zzzzzzzzzzzz9\n",
		"xkey:\n  abc\n",
		"",
	}
	for _, text := range texts {
		checkAnchored(t, s, []byte(text))
	}
	got := scanT(t, s, ".netrc", texts[0]+texts[5])
	var vals []string
	for _, g := range got {
		vals = append(vals, g.Value)
	}
	if want := []string{"s3cr3t!", "c1", "y2"}; !slices.Equal(vals, want) {
		t.Errorf("netrc values %q, want %q", vals, want)
	}
	// Random texts over the literals' alphabet.
	rng := rand.New(rand.NewPCG(3, 4))
	words := []string{"machine", "MACHINE", "default", "login", "password", "account", "xkey:", "XKEY:", "x", "é", "_", " ", "\n", "\t", "\r\n", "abc123def456", "p@ss"}
	for range 5000 {
		var b strings.Builder
		for range rng.IntN(30) {
			b.WriteString(words[rng.IntN(len(words))])
		}
		checkAnchored(t, s, []byte(b.String()))
	}
	checkAnchored(t, Default(), []byte(strings.Join(texts, "\n")))
}

// BenchmarkScan scans about 20 MB of the Go distribution's own .go files
// (text without secrets, mostly) with the built-in rules, file by file.
func BenchmarkScan(b *testing.B) {
	src, err := corpus.GoSrc()
	if err != nil {
		b.Skipf("Go source tree unavailable: %v", err)
	}
	var files [][]byte
	total := 0
	_ = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if total >= 20<<20 {
			return filepath.SkipAll
		}
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err == nil {
			files = append(files, data)
			total += len(data)
		}
		return nil
	})
	if total < 1<<20 {
		b.Skipf("only %d bytes of Go source under %s", total, src)
	}
	s := Default()
	for _, f := range files {
		if _, err := s.Scan("x.go", f); err != nil {
			b.Skip("undecodable file in GOROOT")
		}
	}
	// bench_rules.json: 51 rules shaped like a full rule set (vendor
	// prefixes, credential assignments, URLs, Authorization headers), some
	// with deliberately common keywords ("sk", "bot", "token", "://").
	data, err := os.ReadFile("testdata/bench_rules.json")
	if err != nil {
		b.Fatal(err)
	}
	heavy, err := parseRuleFile(data)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		s    *Scanner
	}{{"default", s}, {"bench-rules", heavy}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(total))
			n := 0
			for b.Loop() {
				n = 0
				for _, f := range files {
					fs, _ := c.s.Scan("x.go", f)
					n += len(fs)
				}
			}
			b.ReportMetric(float64(n), "findings")
		})
	}
	b.Run("prefilter-only", func(b *testing.B) {
		b.SetBytes(int64(total))
		for b.Loop() {
			for _, f := range files {
				if s.pf != nil {
					s.pf.scan(f, func(int, int) {})
				}
			}
		}
	})
}

package contextbuilder

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// found is a finding reduced to what a test states: rule, the matched
// text, confidence and whole-file flag.
type found struct {
	Rule  string
	Text  string
	Conf  Confidence
	Whole bool
	Line  int
}

func scanBasic(t *testing.T, path, text string) []found {
	t.Helper()
	fs, err := BasicRedactor{}.Scan(path, []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	var out []found
	for _, f := range fs {
		if f.Start < 0 || f.End > len(text) || f.Start >= f.End {
			t.Fatalf("finding %+v out of bounds of a %d-byte text", f, len(text))
		}
		out = append(out, found{f.RuleID, text[f.Start:f.End], f.Confidence, f.WholeFile, f.Line})
	}
	return out
}

func TestBasicRedactor(t *testing.T) {
	const key = "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----"
	tests := []struct {
		name, path, text string
		want             []found
	}{
		{"password in .env style", "app.ini", "user=bob\npassword=hunter2!x\n", []found{{"credential-assignment", "hunter2!x", High, false, 2}}},
		{"quoted password in code", "db.py", `password = "correct horse"` + "\n", []found{{"credential-assignment", "correct horse", High, false, 1}}},
		{"api_key in yaml", "c.yaml", "service:\n  api_key: 9f8e7d6c5b4a\n", []found{{"credential-assignment", "9f8e7d6c5b4a", High, false, 2}}},
		{"prefixed name", "c.env.example", "DB_PASSWORD=s3cr3t\n", []found{{"credential-assignment", "s3cr3t", High, false, 1}}},
		{"go short assignment", "main.go", `token := "ghp_abcdef0123456789"` + "\n", []found{{"credential-assignment", "ghp_abcdef0123456789", High, false, 1}}},
		{"openai key", "notes.md", "key sk-proj-ABCDEFGHIJKLMNOPQRSTUVWXYZ012345 here", []found{{"openai-api-key", "sk-proj-ABCDEFGHIJKLMNOPQRSTUVWXYZ012345", High, false, 1}}},
		{"bearer header", "req.http", "GET /\nAuthorization: Bearer eyJhbGciOiJIUzI1NiJ9.abc.def\n", []found{{"authorization-header", "eyJhbGciOiJIUzI1NiJ9.abc.def", High, false, 2}}},
		{"basic header lower case", "curl.sh", `curl -H "authorization: basic dXNlcjpwYXNz" x`, []found{{"authorization-header", "dXNlcjpwYXNz", High, false, 1}}},
		{"whole key file", "id_rsa", key + "\n", []found{{"private-key", key, High, true, 1}}},
		{"key inside code", "k.go", "const k = `" + key + "`\n", []found{{"private-key", key, High, false, 1}}},
		{"key without end", "k.go", "x\n-----BEGIN PRIVATE KEY-----\nMIIE\n", []found{{"private-key", "-----BEGIN PRIVATE KEY-----\nMIIE\n", Uncertain, false, 2}}},
		{"escaped newlines in json", "sa.json", `{"private_key": "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n"}`,
			// Same start: the longer finding first.
			[]found{{"credential-assignment", `-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n`, High, false, 1}, {"private-key", `-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----`, High, false, 1}}},
		// Not secrets.
		{"placeholder env var", "c.yaml", "password: ${DB_PASSWORD}\n", nil},
		{"placeholder word", "c.ini", "password=changeme\n", nil},
		{"masked", "c.ini", "token=xxxxxxxx\n", nil},
		{"expression in code", "c.go", "password = cfg.Password\n", nil},
		{"call in code", "c.py", "token = os.environ.get('TOKEN')\n", nil},
		{"comparison", "c.go", `if password == "" {` + "\n", nil},
		{"type annotation", "c.ts", "let token: string;\n", nil},
		{"word inside identifier", "c.go", `tokenType := "bearer"` + "\n", nil},
		{"plain prose", "README.md", "Set the password in your keychain.\n", nil},
		{"short sk", "c.txt", "sk-short", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, scanBasic(t, tt.path, tt.text)); diff != "" {
				t.Errorf("Scan(%q) (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

// TestBasicRedactorOffsetsAfterNonASCII checks that findings are byte
// offsets even after multi-byte text (the keyword search lowercases ASCII
// only, so offsets are unchanged).
func TestBasicRedactorOffsetsAfterNonASCII(t *testing.T) {
	text := "// Ünïcødé 🔑 ПАРОЛЬ\nPASSWORD=\"naïve-sécret\"\n"
	got := scanBasic(t, "x.ini", text)
	want := []found{{"credential-assignment", "naïve-sécret", High, false, 2}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// FuzzBasicRedactor: any text scans without panicking, findings are in
// bounds, sorted by start, and scanning is deterministic.
func FuzzBasicRedactor(f *testing.F) {
	for _, s := range []string{"password=abc", "Authorization: Bearer abcdefghij", "-----BEGIN PRIVATE KEY-----\nx", "sk-" + strings.Repeat("a", 30), "token: 'x'\n\x00\xff"} {
		f.Add("a.env", s)
	}
	f.Fuzz(func(t *testing.T, path, text string) {
		a, err := BasicRedactor{}.Scan(path, []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := BasicRedactor{}.Scan(path, []byte(text))
		if diff := cmp.Diff(a, b); diff != "" {
			t.Fatalf("not deterministic:\n%s", diff)
		}
		for i, x := range a {
			if x.Start < 0 || x.End > len(text) || x.Start >= x.End {
				t.Fatalf("finding %+v out of bounds (len %d)", x, len(text))
			}
			if i > 0 && a[i-1].Start > x.Start {
				t.Fatalf("findings not sorted: %+v", a)
			}
		}
	})
}

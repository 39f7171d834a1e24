package main

import (
	"encoding/json"
	"encoding/pem"
	"hash/crc32"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestScanFrame(t *testing.T) {
	token := "ghp_" + "k3Vd9QzT1mWx7LbR2nYp8sHc4FgJ0aEu5iOt"
	id := "AKIA" + "QW3ERT4YU5IOP6AS"
	sc := newScanner([]secret{
		{Label: "GitHub token", Value: token, Parts: []string{token}},
		{Label: "key id", Value: id, Parts: []string{id, id[4:]}},
	})
	if got := sc.needles(); got != 21+1+1 {
		t.Errorf("needles = %d, want 23 (21 pieces of the token, the key id, its random part)", got)
	}
	frame := func(text string) []byte {
		b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "result": map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}}})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, c := range []struct {
		name  string
		raw   []byte
		want  []string // labels found
		whole bool
	}{
		{"whole", frame("const t = \"" + token + "\""), []string{"GitHub token"}, true},
		{"redacted", frame("const t = \"[REDACTED:github-pat]\""), nil, false},
		{"cut by a slice", frame("...\"" + token[:21]), []string{"GitHub token"}, false},
		{"any 20 bytes of it", []byte(token[7:27]), []string{"GitHub token"}, false},
		{"19 bytes are not distinctive", []byte(token[7:26]), nil, false},
		{"JSON escapes", []byte(`{"jsonrpc":"2.0","id":1,"result":{"text":"\u0067hp_` + token[4:] + `"}}`), []string{"GitHub token"}, true},
		{"in a key", []byte(`{"jsonrpc":"2.0","id":1,"result":{"` + token + `":1}}`), []string{"GitHub token"}, true},
		{"a short part whole", frame("id = " + id[4:]), []string{"key id"}, false},
		{"both, in order", frame(id + " " + token), []string{"GitHub token", "key id"}, true},
		{"nothing", frame("package http"), nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := sc.scanFrame(c.raw)
			var labels []string
			for _, l := range got {
				labels = append(labels, l.Secret)
				if l.Whole != c.whole {
					t.Errorf("%s: Whole = %v, want %v", l.Secret, l.Whole, c.whole)
				}
			}
			if strings.Join(labels, "|") != strings.Join(c.want, "|") {
				t.Fatalf("found %q, want %q", labels, c.want)
			}
		})
	}
	if got := sc.scanText([]byte("log: " + token[3:25])); len(got) != 1 {
		t.Errorf("scanText: %d leaks, want 1", len(got))
	}
	if got := sc.scanText([]byte("log: nothing")); len(got) != 0 {
		t.Errorf("scanText: %d leaks, want 0", len(got))
	}
}

func TestPlantSecrets(t *testing.T) {
	root := t.TempDir()
	secrets, err := plantSecrets(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(secrets) != 7 {
		t.Fatalf("%d secrets planted, want 7", len(secrets))
	}
	byLabel := map[string]secret{}
	for _, s := range secrets {
		byLabel[s.Label] = s
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(s.Path)))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), s.Value) {
			t.Errorf("%s: the value is not in %s", s.Label, s.Path)
		}
		if len(s.Parts) == 0 {
			t.Errorf("%s: no part is looked for", s.Label)
		}
		for _, p := range s.Parts {
			if !strings.Contains(s.Value, p) {
				t.Errorf("%s: part %q is not in the value", s.Label, p)
			}
			if len(p) < 16 {
				t.Errorf("%s: part %q is too short to be distinctive", s.Label, p)
			}
		}
		if strings.Contains(s.Label, s.Value) {
			t.Errorf("%s: the label holds the value", s.Label)
		}
	}
	for label, re := range map[string]string{
		"AWS secret access key (.env)":                           `^[A-Za-z0-9+/]{40}$`,
		"AWS access key id (http/deployconfig.go, also in .env)": `^AKIA[A-Z2-7]{16}$`,
		"GitHub token (http/deployconfig.go)":                    `^ghp_[A-Za-z0-9]{36}$`,
		"Slack webhook (http/testdata/deploy.yaml)":              `^https://hooks\.slack\.com/services/T[A-Z0-9]{10}/B[A-Z0-9]{10}/[A-Za-z0-9]{24}$`,
		"database password (http/testdata/deploy.yaml)":          `^[A-Za-z0-9]{24}$`,
		"database password (.env DATABASE_URL)":                  `^[A-Za-z0-9]{20}$`,
		"RSA private key (http/internal/testcert/key.pem)":       `^-----BEGIN RSA PRIVATE KEY-----\n`,
	} {
		s, ok := byLabel[label]
		if !ok {
			t.Errorf("no secret %q", label)
			continue
		}
		if !regexp.MustCompile(re).MatchString(s.Value) {
			t.Errorf("%s = %q, does not match %s", label, s.Value, re)
		}
		if strings.Contains(s.Value, "EXAMPLE") {
			t.Errorf("%s holds EXAMPLE, an allowlisted example marker", label)
		}
	}

	// The GitHub token's checksum is valid: its last six characters are
	// the base62 CRC-32 of the thirty before.
	tok := byLabel["GitHub token (http/deployconfig.go)"].Value
	sum := crc32.ChecksumIEEE([]byte(tok[4:34]))
	check := make([]byte, 6)
	for i := 5; i >= 0; i-- {
		check[i] = base62[sum%62]
		sum /= 62
	}
	if tok[34:] != string(check) {
		t.Errorf("token checksum %q, want %q", tok[34:], check)
	}

	key := byLabel["RSA private key (http/internal/testcert/key.pem)"]
	block, rest := pem.Decode([]byte(key.Value))
	if block == nil || block.Type != "RSA PRIVATE KEY" || len(strings.TrimSpace(string(rest))) != 0 {
		t.Fatalf("the key is not one PEM block: %v", block)
	}
	if len(block.Bytes) != 1192 || block.Bytes[0] != 0x30 {
		t.Errorf("the key's DER is %d bytes starting %x", len(block.Bytes), block.Bytes[:4])
	}
	// The parts leave out the first body line, which every 2048-bit
	// PKCS #1 key starts the same way, and the armor.
	lines := strings.Split(strings.TrimSpace(key.Value), "\n")
	if len(key.Parts) != len(lines)-3 {
		t.Errorf("the key has %d parts for %d lines", len(key.Parts), len(lines))
	}
	for _, p := range key.Parts {
		if strings.HasPrefix(p, "MIIEpAIBAAKCAQEA") || strings.Contains(p, "-----") {
			t.Errorf("part %q is not distinctive", p)
		}
	}
	if !strings.HasPrefix(lines[1], "MIIEpAIBAAKCAQEA") {
		t.Errorf("the key does not start as a 2048-bit PKCS #1 key: %s", lines[1])
	}

	// A scanner over the planted secrets finds each in its own file and
	// none in the tree's ordinary files.
	sc := newScanner(secrets)
	for _, s := range secrets {
		data, _ := os.ReadFile(filepath.Join(root, filepath.FromSlash(s.Path)))
		found := map[string]bool{}
		for _, l := range sc.scanText(data) {
			found[l.Secret] = true
		}
		if !found[s.Label] {
			t.Errorf("%s: not found in %s", s.Label, s.Path)
		}
	}
}

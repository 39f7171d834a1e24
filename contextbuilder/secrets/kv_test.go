package secrets

import (
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// kvGot is a pair as the tests compare it: the key and the value's text,
// read back from the original text through the reported span.
type kvGot struct{ Key, Value string }

func lexAll(text string) []kvGot {
	var out []kvGot
	for ls := 0; ls <= len(text); {
		le := strings.IndexByte(text[ls:], '\n')
		if le < 0 {
			le = len(text)
		} else {
			le += ls
		}
		lexPairs([]byte(text), ls, le, func(p pair) {
			out = append(out, kvGot{p.key, text[p.valStart:p.valEnd]})
		})
		if le == len(text) {
			break
		}
		ls = le + 1
	}
	return out
}

// TestLexPairs: one lexer for every syntax; values are exact spans of the
// original text (also inside escaped strings).
func TestLexPairs(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []kvGot
	}{
		{"env", "TOKEN=abc123", []kvGot{{"token", "abc123"}}},
		{"shell export", `export API_KEY="k3y-v4lue"`, []kvGot{{"api_key", "k3y-v4lue"}}},
		{"go short", `apiToken := "s3cr3tValue"`, []kvGot{{"apitoken", "s3cr3tValue"}}},
		{"make conditional", `SERVICE_TOKEN ?= "v4lue0001"`, []kvGot{{"service_token", "v4lue0001"}}},
		{"make shell", `SERVICE_TOKEN ::= "v4lue0001"`, []kvGot{{"service_token", "v4lue0001"}}},
		{"make append", `SERVICE_TOKEN += "v4lue0001"`, []kvGot{{"service_token", "v4lue0001"}}},
		{"php concat", `$token .= "v4lue0001";`, []kvGot{{"token", "v4lue0001"}}},
		{"ruby hash", `"token" => "v4lue0001"`, []kvGot{{"token", "v4lue0001"}}},
		{"r assign", `token <- "v4lue0001"`, []kvGot{{"token", "v4lue0001"}}},
		{"yaml", `  password: 'p4ss word'`, []kvGot{{"password", "p4ss word"}}},
		{"yaml block", "token: |\n  v4lue0001\n", []kvGot{{"token", "v4lue0001"}}},
		{"json", `{"client_secret": "v4lue0001", "n": 1}`, []kvGot{{"client_secret", "v4lue0001"}, {"n", "1"}}},
		{"flag with value", `tool --token v4lue0001 -v`, []kvGot{{"--token", "v4lue0001"}}},
		{"flag with equals", `tool --token=v4lue0001`, []kvGot{{"--token", "v4lue0001"}}},
		{"short flag", `mysql -p s3cr3t -h db`, []kvGot{{"-p", "s3cr3t"}, {"-h", "db"}}},
		{"curl user", `curl -u deploy:pa55 https://x`, []kvGot{{"-u", "deploy:pa55"}}},
		{"curl header", `curl -H "X-Api-Key: v4lue0001"`, []kvGot{{"-h", "X-Api-Key: v4lue0001"}, {"x-api-key", "v4lue0001"}}},
		{"xml element", `<password>v4lue0001</password>`, []kvGot{{"password", "v4lue0001"}}},
		{"xml element next line", "<password>\n    v4lue0001\n</password>", []kvGot{{"password", "v4lue0001"}}},
		{"xml attribute", `<db password="v4lue0001"/>`, []kvGot{{"password", "v4lue0001"}}},
		{"xml name value", `<add key="ApiToken" value="v4lue0001" />`, []kvGot{{"key", "ApiToken"}, {"value", "v4lue0001"}, {"apitoken", "v4lue0001"}}},
		{"call with quoted key", `System.setProperty("API_TOKEN", "v4lue0001")`, []kvGot{{"api_token", "v4lue0001"}}},
		{"json escaped newline", `{"config.ini": "TOKEN=v4lue0001\nX=1"}`, []kvGot{{"config.ini", `TOKEN=v4lue0001\nX=1`}, {"token", "v4lue0001"}, {"x", "1"}}},
		{"json escaped quotes", `{"cfg": "{\"token\": \"v4lue0001\"}"}`, []kvGot{{"cfg", `{\"token\": \"v4lue0001\"}`}, {"token", "v4lue0001"}}},
		{"not a url", `see https://example.com/x`, nil},
		{"not a path", `std::string token`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, lexAll(tc.text)); diff != "" {
				t.Errorf("lexPairs(%q) (-want +got):\n%s", tc.text, diff)
			}
		})
	}
}

// TestEncodedSecrets: a secret found in a decoded segment redacts the
// whole encoded span of the original.
func TestEncodedSecrets(t *testing.T) {
	s := Default()
	gh := "ghp_" + strings.Repeat("aB3", 12)
	for _, tc := range []struct{ name, text, encoded string }{
		{"base64", "blob: " + b64("token="+gh) + "\n", b64("token=" + gh)},
		{"hex", "h=" + hexs("token="+gh) + "\n", hexs("token=" + gh)},
		{"percent", "q=token%3D" + strings.ReplaceAll(gh, "_", "%5F") + "%26x%3D1\n", "token%3D" + strings.ReplaceAll(gh, "_", "%5F") + "%26x%3D1"},
		{"base64 of base64", "v: " + b64(b64("token="+gh)) + "\n", b64(b64("token=" + gh))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs, err := s.Scan("f", []byte(tc.text))
			if err != nil {
				t.Fatal(err)
			}
			start := strings.Index(tc.text, tc.encoded)
			covered := false
			for _, f := range fs {
				covered = covered || f.Start <= start && f.End >= start+len(tc.encoded)
			}
			if !covered {
				t.Errorf("no finding covers the encoded secret %q: %s", tc.encoded, describeFindings([]byte(tc.text), fs))
			}
		})
	}
}

func b64(s string) string  { return base64.StdEncoding.EncodeToString([]byte(s)) }
func hexs(s string) string { return hex.EncodeToString([]byte(s)) }

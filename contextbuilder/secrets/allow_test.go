package secrets

import (
	"slices"
	"strings"
	"testing"
)

func TestCodeReference(t *testing.T) {
	for v, want := range map[string]bool{
		"cfg.Secret":                     true,
		"process.env.API_KEY":            true,
		"$this->token":                   true,
		"Config::KEY":                    true,
		"settings.AWS_SECRET_ACCESS_KEY": true,
		"t1.G.igWGs93Zzs3r26Bx2zBF0GEsyevo8dCzuxhS7FyqKDGE1IOeF": false, // a token with dots
		"a.b9c8d7e6f5g4h3i2j1k0":                                 false,
		"suRuNtGvfCWDmF":                                         false,
	} {
		if got := codeReference([]byte(v)); got != want {
			t.Errorf("codeReference(%q) = %v, want %v", v, got, want)
		}
	}
}

// TestDottedTokenInNestedEnv: a Yandex-shaped token (dots inside) on an
// env line held in a JSON string is redacted like the same line alone.
func TestDottedTokenInNestedEnv(t *testing.T) {
	tok := "t1.G.igWGs93Zzs3r26Bx2zBF0GEsyevo8dCzuxhS7FyqKDGE1IOeFATzcfmrRpnXuuCspWywuxSn5mQQlA83m_bt8S"
	for _, text := range []string{
		`{"config.ini": "YANDEX_TOKEN=` + tok + `\nBACKUP_ENABLED=true"}`,
		"YANDEX_TOKEN=" + tok + "\nBACKUP_ENABLED=true\n",
	} {
		fs, err := Default().Scan("sample.txt", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		if i := strings.Index(text, tok); !covers(fs, i, i+len(tok)) {
			t.Errorf("%q: token not covered by %+v", text, fs)
		}
	}
}

// TestDigitsKeyedByVendor: a random all-digit ID keyed by a vendor name
// is found in every assignment syntax, though its entropy (2.48 bits) is
// under the keyed rules' floor of 2.5.
func TestDigitsKeyedByVendor(t *testing.T) {
	id := "5111355325540931"
	for _, text := range []string{
		`asana_TOKEN ?= "` + id + `"`,
		`$asanaToken .= "` + id + `"`,
		`{"config.ini": "ASANA_TOKEN=` + id + `\nBACKUP_ENABLED=true"}`,
		"<asanaToken>\n    " + id + "\n</asanaToken>",
	} {
		fs, err := Default().Scan("sample.txt", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		if i := strings.Index(text, id); !covers(fs, i, i+len(id)) {
			t.Errorf("%q: id not covered by %+v", text, fs)
		}
	}
	// Low-entropy numbers stay what they are.
	if fs, _ := Default().Scan("sample.txt", []byte(`asana_workspace_created = 1700000000000000`)); len(fs) != 0 {
		t.Errorf("a timestamp-like number was flagged: %+v", fs)
	}
}

// covers reports whether one finding spans [start, end).
func covers(fs []Finding, start, end int) bool {
	return slices.ContainsFunc(fs, func(f Finding) bool { return f.Start <= start && end <= f.End })
}

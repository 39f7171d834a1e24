package secrets

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// redacted scans text with the built-in rules and returns it with every
// finding replaced by its marker.
func redacted(t *testing.T, text string) string {
	t.Helper()
	fs, err := Default().Scan("f", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, []byte(text), fs)
	out, _ := redactForTest([]byte(text), fs)
	return string(out)
}

// escapeAll writes every byte of s as the escape esc formats.
func escapeAll(s, format string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		fmt.Fprintf(&b, format, c)
	}
	return b.String()
}

// TestEscapedTokens: a token with escaped characters (JSON, Go, C, JS,
// Python, HTML/XML, URLs) or invisible characters inside is found, and the
// whole written form, escapes included, is redacted.
func TestEscapedTokens(t *testing.T) {
	gh := checksummed("ghp_", "R2a8bK4nQ7wX1vZ3cY6dT9eU0fS5gH")
	rest := gh[1:]
	const mark = "[REDACTED:github-pat-classic]"
	for _, tc := range []struct{ name, written, pre, post string }{
		{"json \\u", `\u0067` + rest, `{"remotes": ["`, `"]}`},
		{"json \\u every char", escapeAll(gh, `\u%04x`), `{"remotes": ["`, `"]}`},
		{"json \\u after a surrogate pair", `\u0067` + rest, `x = "\ud83d\ude00`, `"`},
		{"go \\x", `\x67` + rest, `client := dial("`, `")`},
		{"go \\x every char", escapeAll(gh, `\x%02x`), `client := dial("`, `")`},
		{"c octal", `\147` + rest, `const char *k = "`, `";`},
		{"js \\u{}", `\u{67}` + rest, "connect(`", "`)"},
		{"python \\U", `\U00000067` + rest, `k = "`, `"`},
		{"xml decimal", `&#103;` + rest, `<value>`, `</value>`},
		{"xml decimal no semicolon", `&#103` + rest, `<value>`, `</value>`},
		{"xml hex", `&#x67;` + rest, `<param value="`, `" />`},
		{"xml named lowbar", "ghp&lowbar;" + gh[4:], `<value>`, `</value>`},
		{"html double escaped", `&amp;#103;` + rest, `<pre>`, `</pre>`},
		{"json in json", `\\u0067` + rest, `{"cfg": "{\"k\": \"`, `\"}"}`},
		{"url percent", `%67` + rest, `https://api.example.com/v1?access=`, `&x=1`},
		{"soft hyphen", gh[:10] + "\u00ad" + gh[10:], `token list: `, ``},
		{"zero-width space", gh[:4] + "\u200b" + gh[4:20] + "\u200b" + gh[20:], `- `, ``},
		{"word joiner", gh[:7] + "\u2060" + gh[7:], `"`, `"`},
		{"byte order mark", gh[:30] + "\ufeff" + gh[30:], `k: `, ``},
		{"zero-width joiner escaped", gh[:8] + `\u200d` + gh[8:], `"`, `"`},
		{"soft hyphen entity", gh[:8] + `&shy;` + gh[8:], `<b>`, `</b>`},
		{"utf-8 bytes of a zero-width space", gh[:8] + `\xe2\x80\x8b` + gh[8:], `"`, `"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.pre + mark + tc.post
			if diff := cmp.Diff(want, redacted(t, tc.pre+tc.written+tc.post)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestEscapedURLCredentials: "://" written as ":\/\/" (JSON) still makes
// a URL with credentials.
func TestEscapedURLCredentials(t *testing.T) {
	got := redacted(t, `{"dsn": "postgres:\/\/admin:Qx7vLp2m9Rk4@db.internal:5432\/app"}`)
	if strings.Contains(got, "Qx7vLp2m9Rk4") {
		t.Errorf("password not redacted: %s", got)
	}
}

// TestEscapesNoFinding: escapes and invisible characters of ordinary text
// and code make no finding.
func TestEscapesNoFinding(t *testing.T) {
	for _, text := range []string{
		`fmt.Printf("%4d %6d %2d:%02d %5.2f\n", a, b, c, d, e)`,
		`b := []byte("\x00\x01\xff\u00e9\t\"quoted\"\\")`,
		`<p>Fish &amp; chips &lt;3 &#39;quoted&#39; &#x2F;path&#x2F;to&#x2F;file</p>`,
		"Silben\u00adtrennung und ein Wort\u200bmit Nullbreite.\ufeff",
		`{"name": "caf\u00e9", "path": "C:\\Users\\x41\\docs"}`,
		`re := regexp.MustCompile("(a)\\1 \x41\x42\x43")`,
	} {
		if got := redacted(t, text); got != text {
			t.Errorf("redacted %q to %q", text, got)
		}
	}
}

// TestViewRegions: only lines with an escape that can hide a token (or an
// invisible character) get a view, with the lines around them.
func TestViewRegions(t *testing.T) {
	text := "a\nb \\x00\nc\nd \\x67\ne\nf\ng\nh\u00adi\n"
	var got []string
	for _, r := range viewRegions([]byte(text)) {
		got = append(got, text[r.start:r.end])
	}
	want := []string{"c\nd \\x67\ne", "g\nh\u00adi\n"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestMakeView: escapes decode, invisible characters vanish, and every
// view byte maps to the original bytes it came from.
func TestMakeView(t *testing.T) {
	text := `a\u0067&#104;%70` + "\u00ad" + `_\xc3\xa9`
	v := makeView([]byte(text), 0, len(text))
	type m struct {
		B    string
		From string
	}
	var got []m
	for i := range v.text {
		got = append(got, m{string(v.text[i : i+1]), text[v.from[i]:v.to[i]]})
	}
	want := []m{{"a", "a"}, {"g", `\u0067`}, {"h", "&#104;"}, {"p", "%70"}, {"_", "_"}, {"\xc3", `\xc3\xa9`}, {"\xa9", `\xc3\xa9`}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestViewOfBlock: a key block whose BEGIN line hides an invisible
// character is found whole (the view of its first lines alone would hold
// a block without its end, which is no reason to refuse).
func TestViewOfBlock(t *testing.T) {
	body := "MIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu\nKUpRKfFLfRYC9AIKjbJTWit+CqvjWYzvQwECAwEAAQJAIJLixBy2qpFoS4DSmoEm\no3qGy0t6z09AIJtH+5OeRV1be+N4cDYJKffGzDa88vQENZiRm0GRq6a+HPGQMd2k\n"
	text := "# deploy key\n-----BEGIN RSA PRIV\u200bATE KEY-----\n" + body + "-----END RSA PRIVATE KEY-----\nnext: 1\n"
	fs, err := Default().Scan("k", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		Value      string
		Confidence Confidence
	}
	var g []got
	for _, f := range fs {
		g = append(g, got{text[f.Start:f.End], f.Confidence})
	}
	block := text[strings.Index(text, "-----BEGIN"):strings.Index(text, "\nnext")]
	if diff := cmp.Diff([]got{{block, High}}, g); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

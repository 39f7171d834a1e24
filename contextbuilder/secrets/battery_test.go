package secrets

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"
)

// leaks reports whether any 16-byte window of secret survives in out.
func leaks(out, secret string) bool {
	for i := 0; i+16 <= len(secret); i++ {
		if strings.Contains(out, secret[i:i+16]) {
			return true
		}
	}
	return false
}

// TestObfuscationBattery: tokens written with escapes, invisible
// characters and layered encodings, combined at random (a fixed seed):
// no 16-byte window of a token survives redaction.
func TestObfuscationBattery(t *testing.T) {
	r := rand.New(rand.NewPCG(30, 4))
	alnum := "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	rnd := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alnum[r.IntN(len(alnum))]
		}
		return string(b)
	}
	tokens := []func() string{
		func() string { return checksummed("ghp_", rnd(30)) },
		func() string { return "glpat-" + rnd(20) },
		func() string { return "xoxb-" + "1234567890-1234567890-" + rnd(24) },
		func() string { return "sk_live_" + rnd(24) },
		func() string { return "sk-ant-api03-" + rnd(93) + "AA" },
		func() string {
			b := make([]byte, 16)
			for i := range b {
				b[i] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"[r.IntN(32)]
			}
			return "AKIA" + string(b)
		},
	}
	escapers := []func(byte) string{
		func(c byte) string { return fmt.Sprintf(`\u%04x`, c) },
		func(c byte) string { return fmt.Sprintf(`\u{%x}`, c) },
		func(c byte) string { return fmt.Sprintf(`\U%08X`, c) },
		func(c byte) string { return fmt.Sprintf(`\x%02X`, c) },
		func(c byte) string { return fmt.Sprintf(`\%o`, c) },
		func(c byte) string { return fmt.Sprintf("&#%d;", c) },
		func(c byte) string { return fmt.Sprintf("&#X%X;", c) },
		func(c byte) string { return fmt.Sprintf("&#%07d;", c) },
		func(c byte) string { return fmt.Sprintf("%%%02x", c) },
	}
	invis := []string{"\u00ad", "\u200b", "\u200c", "\u200d", "\u200e", "\u2060", "\u2063", "\ufeff", "\u034f", "\ufe0f", "\U000e0041", "&shy;", "&zwj;", `\u200b`, `\xe2\x80\x8b`}
	obfuscate := func(tok string) string {
		var b strings.Builder
		esc := escapers[r.IntN(len(escapers))]
		p := r.Float64() * 0.5
		for i := 0; i < len(tok); i++ {
			if i > 0 && r.Float64() < 0.1 {
				b.WriteString(invis[r.IntN(len(invis))])
			}
			if i == 0 || r.Float64() < p {
				b.WriteString(esc(tok[i]))
			} else {
				b.WriteByte(tok[i])
			}
		}
		return b.String()
	}
	layers := []func(string) string{
		func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) },
		func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) },
		func(s string) string { return hex.EncodeToString([]byte(s)) },
		func(s string) string { return strings.ToUpper(hex.EncodeToString([]byte(s))) },
		func(s string) string { return url.QueryEscape(s) },
		func(s string) string { return b64b(gzipped(s)) },
		func(s string) string { return b64b(zlibbed(s)) },
		func(s string) string { return b64b(utf16le(s, false)) },
		func(s string) string { return b64b(gzipped(string(utf16le(s, true)))) },
		func(s string) string { return strings.Join(wrap(b64(s), 76), "\n") },
		func(s string) string { return strings.Join(wrap(b64(s), 64), `\n`) },
	}
	wrapIn := []func(string) string{
		func(s string) string { return `{"remotes": ["` + s + `"]}` },
		func(s string) string { return "value: \"" + s + "\"\n" },
		func(s string) string { return "<param value=\"" + s + "\" />" },
		func(s string) string { return "client := dial(\"" + s + "\")" },
		func(s string) string { return "x " + s + " y" },
		func(s string) string { return "TOKEN=" + s },
	}
	n, leaked := 0, 0
	for range 2000 {
		tok := tokens[r.IntN(len(tokens))]()
		s, how := tok, []string{}
		if r.IntN(2) == 0 {
			s = obfuscate(s)
			how = append(how, "escaped")
		}
		for range r.IntN(4) {
			k := r.IntN(len(layers))
			if k == 4 && strings.ContainsAny(s, "\n") {
				continue
			}
			s = layers[k](s)
			how = append(how, fmt.Sprint("layer", k))
		}
		text := wrapIn[r.IntN(len(wrapIn))](s)
		fs, err := Default().Scan("f", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		out, _ := redactForTest([]byte(text), fs)
		n++
		if leaks(string(out), tok) || strings.Contains(string(out), s) && s != "" {
			leaked++
			if leaked <= 10 {
				t.Errorf("leak (%v) of %s: %.300q\ninput %q", how, tok, out, text)
			}
		}
	}
	t.Logf("%d texts, %d leaks", n, leaked)
}

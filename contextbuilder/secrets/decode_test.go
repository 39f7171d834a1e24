package secrets

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"encoding/base64"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/google/go-cmp/cmp"
)

func gzipped(s string) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.Bytes()
}

func zlibbed(s string) []byte {
	var b bytes.Buffer
	w := zlib.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.Bytes()
}

func utf16le(s string, bom bool) []byte {
	var b []byte
	if bom {
		b = append(b, 0xFF, 0xFE)
	}
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return b
}

func utf16be(s string) []byte {
	b := []byte{0xFE, 0xFF}
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u>>8), byte(u))
	}
	return b
}

func tarGz(name, content string) []byte {
	var b bytes.Buffer
	gz := gzip.NewWriter(&b)
	tw := tar.NewWriter(gz)
	tw.WriteHeader(&tar.Header{Name: name, Mode: 0o600, Size: int64(len(content))})
	tw.Write([]byte(content))
	tw.Close()
	gz.Close()
	return b.Bytes()
}

func b64b(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// TestLayeredEncodings: PowerShell's -EncodedCommand (base64 of UTF-16LE),
// base64 of gzip or zlib data (also a tar.gz), and base64 up to
// maxDecodeDepth layers deep are decoded and scanned; the whole encoded
// run is redacted. Past the last layer, a run that still decodes to text
// is redacted as encoded-unscanned, and so is a compression bomb.
func TestLayeredEncodings(t *testing.T) {
	gh := checksummed("ghp_", "R2a8bK4nQ7wX1vZ3cY6dT9eU0fS5gH")
	ps := "$env:GH_TOKEN = '" + gh + "'; gh repo clone acme/app"
	nest := func(s string, n int) string {
		for range n {
			s = b64(s)
		}
		return s
	}
	const gm = "[REDACTED:github-pat-classic]"
	const um = "[REDACTED:" + UnscannedRuleID + "]"
	for _, tc := range []struct{ name, pre, enc, post, marker string }{
		{"powershell -EncodedCommand", "powershell.exe -NoProfile -EncodedCommand ", b64b(utf16le(ps, false)), "\n", gm},
		{"utf-16le with bom", "blob: ", b64b(utf16le(ps, true)), "\n", gm},
		{"utf-16be with bom", "blob: ", b64b(utf16be(ps)), "\n", gm},
		{"base64 of gzip", `payload = "`, b64b(gzipped("token=" + gh + "\n")), `"`, gm},
		{"base64 of zlib", `payload = "`, b64b(zlibbed("[auth]\ntoken = " + gh + "\n")), `"`, gm},
		{"hex of gzip", `h = "`, hexs(string(gzipped("token=" + gh))), `"`, gm},
		{"base64 of gzip of gzip", `p: `, b64b(gzipped(string(gzipped("token=" + gh)))), ``, gm},
		{"base64 of tar.gz", `archive: `, b64b(tarGz(".env", "GH_TOKEN="+gh+"\n")), ``, gm},
		{"base64 of gzip of utf-16", `p: `, b64b(gzipped(string(utf16le(ps, false)))), ``, gm},
		{"base64 x3", "v: ", nest(gh, 3), "\n", gm},
		{"base64 x4", "v: ", nest(gh, 4), "\n", gm},
		{"base64 x5: past the last layer", "v: ", nest(gh, 5), "\n", um},
		{"base64 x6: past the last layer", "v: ", nest(gh, 6), "\n", um},
		{"base64 of gzip x3", "v: ", b64b(gzipped(string(gzipped(string(gzipped(gh)))))), "\n", um},
		{"gzip bomb", "v: ", b64b(gzipped(strings.Repeat("A", 1<<20))), "\n", um},
		{"escaped inside base64", "v: ", b64(`{"k": "\u0067` + gh[1:] + `"}`), "\n", gm},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.pre + tc.marker + tc.post
			if diff := cmp.Diff(want, redacted(t, tc.pre+tc.enc+tc.post)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestLayeredNoFinding: encoded data without a secret makes no finding:
// compressed text, UTF-16 text, binary data, hashes.
func TestLayeredNoFinding(t *testing.T) {
	for _, text := range []string{
		"powershell -EncodedCommand " + b64b(utf16le("Get-ChildItem -Recurse | Where-Object { $_.Length -gt 1MB }", false)),
		"data: " + b64b(gzipped("just some ordinary configuration text, nothing secret in here at all\n")),
		"data: " + b64b(zlibbed(strings.Repeat("lorem ipsum dolor sit amet ", 20))),
		"img: " + b64b([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10\x00\x00\x00\x10\x08\x06\x00\x00\x00\x1f\xf3\xffa")),
		"sum: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		"v: " + b64(b64(b64("hello, world: nothing to see here"))),
	} {
		if got := redacted(t, text); got != text {
			t.Errorf("redacted %q to %q", text, got)
		}
	}
}

// TestInflateBounds: inflate stops at its limit and at the ratio bound.
func TestInflateBounds(t *testing.T) {
	big := gzipped(strings.Repeat("x", 10000))
	for _, tc := range []struct {
		name  string
		data  []byte
		limit int
		ok    bool
		n     int
	}{
		{"within", gzipped("hello hello"), 1000, true, 11},
		{"over the limit", gzipped(strings.Repeat("ab", 100)), 100, false, 0},
		{"over the ratio", big, 1 << 20, false, 0},
		{"truncated", gzipped("hello world, a truncated stream")[:20], 1000, true, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, ok := inflate(tc.data, tc.limit)
			if ok != tc.ok || tc.n >= 0 && len(out) != tc.n {
				t.Errorf("inflate: %d bytes, ok %v; want %d, %v", len(out), ok, tc.n, tc.ok)
			}
		})
	}
}

// wrap splits s into lines of n characters.
func wrap(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

// TestWrappedBase64: base64 wrapped over lines (MIME's 76 columns, PEM's
// 64, in a YAML block or a JSON string with escaped newlines) decodes as
// one text, so a token split by a line break is found and every line is
// redacted.
func TestWrappedBase64(t *testing.T) {
	gh := checksummed("ghp_", "R2a8bK4nQ7wX1vZ3cY6dT9eU0fS5gH")
	conf := "[core]\nrepositoryformatversion = 0\nfilemode = true\n[remote]\nurl = https://example.com/x.git\n[auth]\n" + gh + "\n"
	enc := b64(conf)
	const gm = "[REDACTED:github-pat-classic]"
	for _, tc := range []struct{ name, pre, sep, post string }{
		{"yaml block, 64 columns", "data: |\n  ", "\n  ", "\n"},
		{"json string, 76 columns", `{"k": "`, `\n`, `"}`},
		{"crlf, 76 columns", "-----\r\n", "\r\n", "\r\n-----\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			width := 64
			if strings.Contains(tc.name, "76") {
				width = 76
			}
			text := tc.pre + strings.Join(wrap(enc, width), tc.sep) + tc.post
			if diff := cmp.Diff(tc.pre+gm+tc.post, redacted(t, text)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	// Wrapped binary data (a certificate body) stays as it is.
	var bin []byte
	for i := range 300 {
		bin = append(bin, byte(i*7+i/3))
	}
	text := "cert: |\n  " + strings.Join(wrap(b64b(bin), 64), "\n  ") + "\n"
	if got := redacted(t, text); got != text {
		t.Errorf("redacted %q to %q", text, got)
	}
}

// TestLongRun: a base64 run longer than a segment is cut; the pieces that
// decode to text are redacted whole, since a secret may span the cut.
func TestLongRun(t *testing.T) {
	gh := checksummed("ghp_", "R2a8bK4nQ7wX1vZ3cY6dT9eU0fS5gH")
	filler := strings.Repeat("lorem ipsum dolor sit amet, ", (maxSegment/4*3)/28+1)
	// The token's base64 straddles the cut at maxSegment.
	plain := filler[:maxSegment/4*3-12] + gh + " consectetur adipiscing elit"
	text := "blob: " + b64(plain) + "\n"
	got := redacted(t, text)
	// Both pieces are redacted; the extent pass may merge the two
	// adjacent redactions into one.
	mark := "[REDACTED:" + UnscannedRuleID + "]"
	if rest := strings.TrimPrefix(strings.TrimSuffix(got, "\n"), "blob: "); rest == "" || strings.ReplaceAll(rest, mark, "") != "" {
		t.Errorf("got %.200q, want the whole run redacted as %s", got, mark)
	}
}

// TestWrappedLong: a wrapped run is at most a segment long; the pieces
// of a longer wrapped text are redacted as encoded-unscanned (a secret may
// span a cut), and a long wrapped body that is no text stays as it is.
func TestWrappedLong(t *testing.T) {
	long := b64(strings.Repeat("lorem ipsum dolor sit amet ", 4000))
	got := redacted(t, "doc: |\n  "+strings.Join(wrap(long, 76), "\n  ")+"\n")
	want := "doc: |\n  " + strings.Repeat("[REDACTED:"+UnscannedRuleID+"]\n  ", 2) + "[REDACTED:" + UnscannedRuleID + "]\n"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	var bin []byte
	for i := range 1 << 20 {
		bin = append(bin, byte(i*7+i/3))
	}
	text := "cert: |\n  " + strings.Join(wrap(b64b(bin), 76), "\n  ") + "\n"
	if got := redacted(t, text); got != text {
		t.Errorf("binary body redacted: %.200q", got)
	}
}

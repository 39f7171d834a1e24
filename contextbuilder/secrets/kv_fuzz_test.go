package secrets

import (
	"bytes"
	"testing"
)

// FuzzLexPairs: the key/value lexer never panics, and every pair's spans
// are inside the text, in order, and the value's bytes are the original
// text's (no span of a decoded string escapes its literal).
func FuzzLexPairs(f *testing.F) {
	for _, s := range []string{
		`{"config.ini": "TOKEN=v4lue0001\nX=1"}`, "<password>\n  v4lue\n</password>", `curl -u a:b -H "K: v"`,
		`$t .= "x"; A ?= "y"`, "k: |\n  v", `"\u0041=\"b\""`, `--set a.password=x`, `<add key="K" value="V"/>`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		text := []byte(s)
		for ls := 0; ls <= len(text); {
			le := bytes.IndexByte(text[ls:], '\n')
			if le < 0 {
				le = len(text)
			} else {
				le += ls
			}
			lexPairs(text, ls, le, func(p pair) {
				if p.valStart < 0 || p.valEnd > len(text) || p.valStart >= p.valEnd || p.keyStart < 0 || p.keyEnd > len(text) || p.keyStart > p.keyEnd {
					t.Fatalf("pair %+v outside the text (%d bytes)", p, len(text))
				}
			})
			if le == len(text) {
				break
			}
			ls = le + 1
		}
	})
}

// FuzzDecode: segment finding and decoding never panic, segments are
// inside the text, and a scan of any text (with its decoding) stays
// inside it and terminates.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		"dG9rZW49Z2hwX2FCM2FCM2FCM2FCM2FCM2FCM2FCM2FCM2FCM2FCM2FCM2FCMw==", "746f6b656e3d616263313233",
		"q=token%3Dabc%26x%3D1", "ZXlKaGJHY2lPaUpJVXpJMU5pSjku", "====", "%%%41",
	} {
		f.Add(s)
	}
	s := Default()
	f.Fuzz(func(t *testing.T, in string) {
		text := []byte(in)
		encodedSegments(text, func(sg segment) {
			if sg.start < 0 || sg.end > len(text) || sg.start >= sg.end {
				t.Fatalf("segment %+v outside the text", sg)
			}
			decodeSegment(text, sg)
		})
		fs, err := s.Scan("fuzz", text)
		if err != nil {
			return
		}
		for _, f := range fs {
			if f.Start < 0 || f.End > len(text) || f.Start > f.End {
				t.Fatalf("finding %+v outside the text", f)
			}
		}
	})
}

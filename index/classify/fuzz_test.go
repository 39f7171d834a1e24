package classify_test

import (
	"bytes"
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/index/classify"
)

// FuzzDetect: Detect never panics and is deterministic; a binary or
// undecodable verdict has encoding Unknown and a reason, and Decode refuses
// it; a text verdict has no reason, and Decode turns it into valid UTF-8
// without NUL.
func FuzzDetect(f *testing.F) {
	f.Add([]byte("package main\n"))
	f.Add([]byte("caf\xE9"))
	f.Add([]byte("\xFF\xFEh\x00i\x00"))
	f.Add([]byte("\xEF\xBB\xBFh\xC3\xA9"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got := classify.Detect(data)
		if diff := cmp.Diff(got, classify.Detect(bytes.Clone(data))); diff != "" {
			t.Fatalf("Detect not deterministic (-first +second):\n%s", diff)
		}
		if got.Binary || got.Encoding == classify.Unknown {
			if got.Encoding != classify.Unknown || got.Reason == "" {
				t.Fatalf("verdict %+v: want encoding unknown and a reason", got)
			}
			if _, err := classify.Decode(data, got.Encoding); !errors.Is(err, classify.ErrUnknownEncoding) {
				t.Fatalf("Decode of an unknown encoding: %v, want ErrUnknownEncoding", err)
			}
			return
		}
		if got.Reason != "" {
			t.Fatalf("text verdict %+v: want no reason", got)
		}
		out, err := classify.Decode(data, got.Encoding)
		if err != nil {
			t.Fatalf("Decode(%s) of detected text: %v", got.Encoding, err)
		}
		if !utf8.Valid(out) {
			t.Fatalf("Decode(%s) returned invalid UTF-8 %q", got.Encoding, out)
		}
		if bytes.IndexByte(out, 0) >= 0 {
			t.Fatalf("Decode(%s) of text returned a NUL: %q", got.Encoding, out)
		}
		if classify.LineCount(out) < 1 {
			t.Fatalf("LineCount(%q) < 1", out)
		}
	})
}

// FuzzDetectPrefix checks the promise of DetectPrefix: whenever it decides
// from a prefix, Detect of the whole data agrees on the verdict (binary,
// or an unknown encoding), whatever follows the prefix.
func FuzzDetectPrefix(f *testing.F) {
	f.Add([]byte("package main\n"), 4)
	f.Add([]byte("MZ\x00\x00"), 2)
	f.Add([]byte("\xFF\xFEh\x00i\x00"), 3)
	f.Add([]byte("\xEF\xBB\xBF\x00"), 4)
	f.Add([]byte("\x00\x00\xFE\xFFab"), 4)
	f.Fuzz(func(t *testing.T, data []byte, n int) {
		if n < 0 || n > len(data) {
			n = len(data)
		}
		got, ok := classify.DetectPrefix(data[:n])
		if !ok {
			return
		}
		whole := classify.Detect(data)
		if got.Binary != whole.Binary || got.Encoding != whole.Encoding {
			t.Fatalf("DetectPrefix(%q) = %+v, but Detect of the whole %q = %+v", data[:n], got, data, whole)
		}
	})
}

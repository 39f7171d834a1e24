package secrets

import (
	"bytes"
	"testing"
	"unicode/utf8"
)

// FuzzView: on any text, the view regions are in bounds, in order and
// disjoint; a view of decodable text is decodable (valid UTF-8, no NUL),
// every view byte maps to a non-empty span of its region, spans never go
// backwards, and a byte copied as it is (a span of one character) is the
// original's.
func FuzzView(f *testing.F) {
	for _, s := range []string{
		`\u0067hp_x`, `\x67\147\u{67}\U00000067`, `&#103;&#x67;&lowbar;&amp;#103;&shy;`, "%67hp_%4d %2d",
		"a\u00adb\u200bc\ufeffd", `\ud83d\ude00 \ud83d \xe2\x80\x8b \xff \0 \400`, `:\/\/`, "\\", "&#", "&#x;", "&#99999999;",
		"x\ny\n\\u0041\nz", `\u{110000} \u{} &#0; &#x10FFFF;`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		decodable := checkDecodable(text) == nil
		prev := 0
		for _, r := range viewRegions(text) {
			if r.start < prev || r.start > r.end || r.end > len(text) {
				t.Fatalf("region %+v out of order or bounds (previous end %d, %d bytes)", r, prev, len(text))
			}
			prev = r.end
			v := makeView(text, r.start, r.end)
			if len(v.from) != len(v.text) || len(v.to) != len(v.text) {
				t.Fatalf("view of %q: %d bytes, %d/%d map entries", text, len(v.text), len(v.from), len(v.to))
			}
			if decodable && checkDecodable(v.text) != nil {
				t.Fatalf("view %q of decodable %q is not decodable", v.text, text[r.start:r.end])
			}
			last := int32(r.start)
			for i := range v.text {
				from, to := v.from[i], v.to[i]
				if from < last && (i == 0 || from != v.from[i-1]) || from >= to || int(from) < r.start || int(to) > r.end {
					t.Fatalf("view byte %d maps to [%d,%d) in region %+v (last %d)", i, from, to, r, last)
				}
				last = from
				if src := text[from:to]; utf8.RuneCount(src) == 1 && !bytes.Contains(src, v.text[i:i+1]) {
					t.Fatalf("view byte %q copied from %q", v.text[i], src)
				}
			}
		}
	})
}

// FuzzLayers: turning decoded bytes into text never panics, text is
// printable, and inflating respects its limit and ratio.
func FuzzLayers(f *testing.F) {
	f.Add(gzipped("token=ghp_abc"), 1000)
	f.Add(zlibbed("hello hello hello"), 10)
	f.Add(gzipped(string(gzipped("x"))), 1<<16)
	f.Add(utf16le("token=abc", true), 100)
	f.Add(utf16be("token=abc"), 100)
	f.Add(utf16le("token=abcdef", false), 100)
	f.Add([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0, 0xff}, 100)
	f.Add([]byte{0x78, 0x9c, 3, 0, 0, 0, 0, 1, 0, 0}, 5)
	f.Add(tarGz("a", "GH_TOKEN=ghp_x\n"), 4096)
	f.Fuzz(func(t *testing.T, b []byte, limit int) {
		limit = max(0, limit%(1<<20))
		out, res := toText(b, limit, 0)
		if res == isText && !printable(out) {
			t.Fatalf("toText(%q) gave unprintable %q", b, out)
		}
		if res != isText && out != nil {
			t.Fatalf("toText(%q) = %q with result %d", b, out, res)
		}
		if compressed(b) {
			dec, ok := inflate(b, limit)
			if ok && (len(dec) > limit || len(dec) > maxInflateRatio*len(b)) {
				t.Fatalf("inflate(%q, %d) gave %d bytes", b, limit, len(dec))
			}
		}
	})
}

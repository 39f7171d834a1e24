package ignore_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/index/ignore"
)

// TestCompileGlob covers the exported wildmatch engine: git's dialect in
// bytes (as ignore lines use it), with case folding, and on characters (as
// workspace/policy uses it).
func TestCompileGlob(t *testing.T) {
	bytes := ignore.GlobOptions{}
	fold := ignore.GlobOptions{FoldCase: true}
	runes := ignore.GlobOptions{Runes: true}
	tests := []struct {
		glob string
		opts ignore.GlobOptions
		text string
		want bool
	}{
		{"*.go", bytes, "main.go", true},
		{"*.go", bytes, "a/main.go", false}, // '*' stops at '/'
		{"**/*.go", bytes, "main.go", true}, // "**/" may match no directory
		{"**/*.go", bytes, "a/b/main.go", true},
		{"a/**/b", bytes, "a/b", true},
		{"a/**/b", bytes, "a/x/y/b", true},
		{"src/**", bytes, "src", false}, // git needs something below src
		{"src/**", bytes, "src/a/b", true},
		{"foo**/bar", bytes, "foo/x/bar", true}, // the literal start is compared first
		{"a**b", bytes, "a/b", false},           // "**" inside a segment is '*'
		{"a?c", bytes, "a/c", false},
		{"[a-c]x", bytes, "bx", true},
		{"[!a-c]x", bytes, "dx", true},
		{"[!a-c]x", bytes, "/x", false}, // a class never matches '/'
		{"[[:digit:]]", bytes, "7", true},
		{`\*`, bytes, "*", true},
		{`\*`, bytes, "x", false},
		{"README", bytes, "readme", false},
		{"README", fold, "readme", true},
		{"[A-C]x", fold, "bX", true},
		// Bytes or characters: "é" is two bytes.
		{"?", bytes, "é", false},
		{"??", bytes, "é", true},
		{"?", runes, "é", true},
		{"??", runes, "é", false},
		{"[é]", bytes, "é", false},
		{"[é]", runes, "é", true},
		{"[à-ü]", runes, "é", true},
		{"[à-ü]", runes, "a", false},
		{"[!a]", runes, "é", true},
		{"[!é]", runes, "é", false},
		{"*[!é]", runes, "é", false}, // a star grows by characters, never splitting "é"
		{"*?", bytes, "é", true},
		{"*[!é]", bytes, "é", false}, // the class excludes both bytes of "é"
		{"a*", runes, "aéé", true},
		{"cmd/?/main.go", runes, "cmd/é/main.go", true},
		{"cmd/?/main.go", runes, "cmd/ab/main.go", false},
		{"?", runes, "\xff", true}, // an invalid byte is one character
	}
	for _, tt := range tests {
		g, ok := ignore.CompileGlob(tt.glob, tt.opts)
		if !ok {
			t.Errorf("CompileGlob(%q, %+v) failed", tt.glob, tt.opts)
			continue
		}
		matched, unsure := g.Match(tt.text)
		if diff := cmp.Diff([]bool{tt.want, false}, []bool{matched, unsure}); diff != "" {
			t.Errorf("CompileGlob(%q, %+v).Match(%q) (matched, unsure) mismatch (-want +got):\n%s", tt.glob, tt.opts, tt.text, diff)
		}
	}
}

func TestCompileGlobUnmatchable(t *testing.T) {
	for _, glob := range []string{`a\`, "[abc", "[[:nope:]]", "[]"} {
		for _, opts := range []ignore.GlobOptions{{}, {Runes: true}} {
			if _, ok := ignore.CompileGlob(glob, opts); ok {
				t.Errorf("CompileGlob(%q, %+v) succeeded, want a glob git can never match", glob, opts)
			}
		}
	}
}

// FuzzGlobRunes checks that a glob of characters matches ASCII text as a
// glob of bytes does, and that text of valid UTF-8 never makes it match
// half a character: what "?" matches in it is always whole characters.
func FuzzGlobRunes(f *testing.F) {
	seeds := [][2]string{
		{"*.go", "a.go"}, {"[!a-c]?", "dx"}, {"**/x/*", "a/x/b"}, {"[é-ü]*", "ö"},
		{"?*[!é]", "aé"}, {`[\]-a]`, "^"}, {"a/**", "a/b"},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, glob, text string) {
		gr, ok := ignore.CompileGlob(glob, ignore.GlobOptions{Runes: true})
		gb, okb := ignore.CompileGlob(glob, ignore.GlobOptions{})
		if ok != okb {
			t.Fatalf("CompileGlob(%q): runes ok %v, bytes ok %v", glob, ok, okb)
		}
		if !ok {
			return
		}
		mr, ur := gr.Match(text)
		if isASCII(glob) && isASCII(text) {
			if mb, ub := gb.Match(text); mr != mb || ur != ub {
				t.Errorf("glob %q, text %q: runes (%v, %v), bytes (%v, %v)", glob, text, mr, ur, mb, ub)
			}
		}
		// Replacing every character by "?" gives a glob of characters
		// that matches exactly the texts of as many characters.
		if utf8.ValidString(text) && !strings.Contains(text, "/") {
			q, _ := ignore.CompileGlob(strings.Repeat("?", utf8.RuneCountInString(text)), ignore.GlobOptions{Runes: true})
			if m, _ := q.Match(text); !m {
				t.Errorf("text %q does not match one '?' per character", text)
			}
		}
	})
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

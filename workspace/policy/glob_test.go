package policy

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCompileGlobErrors(t *testing.T) {
	tests := []struct {
		glob string
		msg  string // substring of the error; "" when valid
	}{
		{"src/**", ""},
		{"**", ""},
		{"**/**/x", ""},
		{"a/**/b/**", ""},
		{"*.go", ""},
		{"[]]x", ""},
		{"[!]]x", ""},
		{"[^a-z]", ""},
		{"[a-]", ""},
		{"[*?[]", ""},
		{"é?/ü*", ""},
		{"", "empty"},
		{"/src", `starts with "/"`},
		{"src/", `ends with "/"`},
		{"a//b", "empty segment"},
		{"./a", `"." segment`},
		{"a/../b", `".." segment`},
		{`a\*`, "backslash"},
		{"a\tb", "control character"},
		{"a**", `"**" inside a segment`},
		{"***", `"**" inside a segment`},
		{"a/**b/c", `"**" inside a segment`},
		{"[abc", "unterminated"},
		{"[]", "unterminated"},
		{"[!", "unterminated"},
		{"a]", `"]" without "["`},
		{"[z-a]", `reversed range "z-a"`},
		{"[a/b]", "unterminated"},
		{"\xff", "not valid UTF-8"},
	}
	for _, tt := range tests {
		_, err := compileGlob(tt.glob)
		switch {
		case tt.msg == "" && err != nil:
			t.Errorf("compileGlob(%q) = %v, want success", tt.glob, err)
		case tt.msg != "" && err == nil:
			t.Errorf("compileGlob(%q) succeeded, want an error containing %q", tt.glob, tt.msg)
		case tt.msg != "" && !strings.Contains(err.Error(), tt.msg):
			t.Errorf("compileGlob(%q) = %q, want it to contain %q", tt.glob, err, tt.msg)
		}
	}
}

func TestGlobMatch(t *testing.T) {
	tests := []struct {
		glob  string
		match []string
		miss  []string
	}{
		{"src/**", []string{"src", "src/a", "src/a/b/c.go"}, []string{"srcx", "a/src/b", "sr"}},
		{"**/*.go", []string{"a.go", "a/b.go", "a/b/c/.go"}, []string{"a.go/x", "a.gox", "a/b"}},
		{"**", []string{"a", "a/b/c"}, nil},
		{"a/**/b", []string{"a/b", "a/x/b", "a/x/y/b"}, []string{"a", "b", "a/bb", "x/a/b"}},
		{"**/b/**", []string{"b", "x/b", "b/x", "x/y/b/z/w"}, []string{"bb/x", "x/ab"}},
		{"docs/*.md", []string{"docs/a.md", "docs/.md"}, []string{"docs/a/b.md", "docs/a.mdx", "a.md"}},
		{"cmd/?/main.go", []string{"cmd/a/main.go", "cmd/é/main.go"}, []string{"cmd/ab/main.go", "cmd//main.go", "cmd/main.go"}},
		{"*a*b*c", []string{"abc", "xaxbxc", "aabbcc", "abcabc"}, []string{"acb", "ab", "abcx"}},
		{"[a-c][!a-c]", []string{"ad", "cz"}, []string{"dd", "aa", "a"}},
		{"[]]", []string{"]"}, []string{"a"}},
		{"x[*]", []string{"x*"}, []string{"xa"}},
	}
	for _, tt := range tests {
		g, err := compileGlob(tt.glob)
		if err != nil {
			t.Fatalf("compileGlob(%q): %v", tt.glob, err)
		}
		for _, p := range tt.match {
			if !g.match(p) {
				t.Errorf("%q does not match %q", tt.glob, p)
			}
		}
		for _, p := range tt.miss {
			if g.match(p) {
				t.Errorf("%q matches %q", tt.glob, p)
			}
		}
	}
}

// TestGlobMatchLinear checks that a pattern built to make naive
// backtracking explode still answers (a test of the algorithm, not of
// time: an exponential matcher would not finish).
func TestGlobMatchLinear(t *testing.T) {
	g, err := compileGlob(strings.Repeat("**/a/", 30) + "b")
	if err != nil {
		t.Fatal(err)
	}
	if g.match(strings.Repeat("a/", 60) + "c") {
		t.Error("unexpected match")
	}
	s, err := compileGlob(strings.Repeat("*a", 30) + "b")
	if err != nil {
		t.Fatal(err)
	}
	if s.match(strings.Repeat("a", 200)) {
		t.Error("unexpected match")
	}
}

// naiveMatch is a reference matcher written from the syntax's definition
// by plain recursion: exponential, but obviously right, for the
// differential fuzz test.
func naiveMatch(pattern, path string) bool {
	return naiveSegs(strings.Split(pattern, "/"), strings.Split(path, "/"))
}

func naiveSegs(ps, ss []string) bool {
	if len(ps) == 0 {
		return len(ss) == 0
	}
	if ps[0] == "**" {
		for i := 0; i <= len(ss); i++ {
			if naiveSegs(ps[1:], ss[i:]) {
				return true
			}
		}
		return false
	}
	return len(ss) > 0 && naiveSeg([]rune(ps[0]), []rune(ss[0])) && naiveSegs(ps[1:], ss[1:])
}

func naiveSeg(p, s []rune) bool {
	if len(p) == 0 {
		return len(s) == 0
	}
	switch p[0] {
	case '*':
		for i := 0; i <= len(s); i++ {
			if naiveSeg(p[1:], s[i:]) {
				return true
			}
		}
		return false
	case '?':
		return len(s) > 0 && naiveSeg(p[1:], s[1:])
	case '[':
		if len(s) == 0 {
			return false
		}
		i, neg := 1, false
		if i < len(p) && (p[i] == '!' || p[i] == '^') {
			neg, i = true, i+1
		}
		in, first := false, true
		for ; p[i] != ']' || first; first = false {
			lo, hi := p[i], p[i]
			i++
			if i+1 < len(p) && p[i] == '-' && p[i+1] != ']' {
				hi = p[i+1]
				i += 2
			}
			if lo <= s[0] && s[0] <= hi {
				in = true
			}
		}
		return in != neg && naiveSeg(p[i+1:], s[1:])
	default:
		return len(s) > 0 && p[0] == s[0] && naiveSeg(p[1:], s[1:])
	}
}

func FuzzGlob(f *testing.F) {
	seeds := [][2]string{
		{"src/**", "src/a/b.go"},
		{"**/*.go", "a/b/c.go"},
		{"docs/*.md", "docs/x.md"},
		{"cmd/?/main.go", "cmd/a/main.go"},
		{"a/**/b/**/c", "a/x/b/y/z/c"},
		{"[!a-c]*[]]", "dx]"},
		{"*a*a*b", "aaab"},
		{"**/x", "x"},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, path string) {
		g, err := compileGlob(pattern)
		if err != nil {
			return
		}
		got := g.match(path)
		if !cleanPath(path) {
			return
		}
		// Keep the exponential reference to inputs it answers quickly:
		// its cost grows as the path length to the number of stars.
		if strings.Count(pattern, "*") > 4 || len(pattern) > 32 || utf8.RuneCountInString(path) > 24 {
			return
		}
		if want := naiveMatch(pattern, path); got != want {
			t.Errorf("glob %q, path %q: match = %v, reference = %v", pattern, path, got, want)
		}
	})
}

package ignore

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFoldCase is what macOS and Windows get by default (git's
// core.ignorecase=true): ASCII letters match either case, in literals,
// classes and directory prefixes.
func TestFoldCase(t *testing.T) {
	defer func(f bool) { foldCase = f }(foldCase)
	foldCase = true
	stack := Stack{
		NewRules("", ".gitignore", []byte("build/\n*.LOG\n[a-c]x\n[!d]y\nREADME*\n/Docs/**/*.PDF\n")),
		NewRules("Sub", "Sub/.gitignore", []byte("secret\n")),
	}
	tests := []struct {
		rel  string
		want bool
	}{
		{"Build/x", true},
		{"BUILD/y", true},
		{"a.log", true},
		{"a.Log", true},
		{"Bx", true},
		{"Dy", false},
		{"dy", false},
		{"readme.md", true},
		{"docs/a/b.pdf", true},
		{"sub/SECRET", true},
		{"other/secret", false},
	}
	for _, tt := range tests {
		t.Run(tt.rel, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, stack.Match(tt.rel, false).Ignored); diff != "" {
				t.Errorf("Match(%q) mismatch (-want +got):\n%s", tt.rel, diff)
			}
		})
	}
}

// TestPathological: patterns that make naive backtracking exponential
// finish, with git's answer.
func TestPathological(t *testing.T) {
	long := strings.Repeat("a", 200)
	deep := strings.Repeat("a/", 300) + "c"
	tests := []struct {
		name, pattern, path string
		want                bool
	}{
		{"many stars", strings.Repeat("*a", 30) + "*b", long, false},
		{"many stars match", strings.Repeat("*a", 30) + "*", long, true},
		{"many double stars", "/" + strings.Repeat("**/a/", 40) + "b", deep, false},
		{"many double stars match", "/" + strings.Repeat("**/a/", 40) + "**", deep, true},
		{"classes and stars", strings.Repeat("*[a-z]", 40) + "*b", long, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Stack{NewRules("", "x", []byte(tt.pattern))}.Match(tt.path, false).Ignored
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestGiveUp: when the step budget runs out the outcome is unknown, and the
// pattern counts as matching when it ignores and as not matching when it
// re-includes.
func TestGiveUp(t *testing.T) {
	g, ok := compileGlob("*a*a*a*b", false)
	if !ok {
		t.Fatal("compileGlob failed")
	}
	text := strings.Repeat("a", 50)
	matched, unsure := g.run(text, 0, 10)
	if diff := cmp.Diff([]bool{false, true}, []bool{matched, unsure}); diff != "" {
		t.Errorf("run with a 10-step budget mismatch (-want +got):\n%s", diff)
	}
	matched, unsure = g.run(text, 0, maxSteps)
	if diff := cmp.Diff([]bool{false, false}, []bool{matched, unsure}); diff != "" {
		t.Errorf("run with memo from the start mismatch (-want +got):\n%s", diff)
	}
	// The class at the end keeps the shortcuts from deciding first.
	p, _ := compilePattern("*a*a*a*[b]", false)
	n, _ := compilePattern("!*a*a*a*[b]", false)
	defer func(m int) { stepLimit = m }(stepLimit)
	stepLimit = 10
	text += "c"
	got := []bool{p.matches(text, text), n.matches(text, text)}
	if diff := cmp.Diff([]bool{true, false}, got); diff != "" {
		t.Errorf("matches after giving up (ignore, negation) mismatch (-want +got):\n%s", diff)
	}
}

// TestShortcuts checks that the cheap tests in front of the matcher
// (length, literal tail, required literal, simple kinds) agree with the
// matcher itself.
func TestShortcuts(t *testing.T) {
	patterns := []string{
		"*.go", "foo*", "foo", "**/foo", "a/**/b", "*/foo", "/*.c", "x**/y", "a?c", "[ab]*[cd]",
		"**/generated/**", "a/**/*.pb.go", "*.py[cod]", "\\*x", "a\\/b", "**/",
	}
	paths := []string{
		"main.go", "a/main.go", "foo", "foobar", "a/foo", "a/b", "a/x/b", "x/foo", "y/x/foo", "b.c", "a/b.c",
		"x/y", "xx/z/y", "abc", "a/c", "bzzc", "q/generated/r", "generated/s", "a/t/u.pb.go", "v.pyc", "*x",
		"zz", "g", "a/b/c",
	}
	for _, text := range patterns {
		p, ok := compilePattern(text, false)
		if !ok {
			t.Fatalf("compilePattern(%q) failed", text)
		}
		for _, path := range paths {
			base := path[strings.LastIndexByte(path, '/')+1:]
			got := p.matches(path, base)
			want := slowMatch(t, p, text, path, base)
			if got != want {
				t.Errorf("pattern %q, path %q: matches = %v, matcher alone = %v", text, path, got, want)
			}
		}
	}
}

// slowMatch matches like pattern.matches but with the glob matcher alone,
// without any shortcut.
func slowMatch(t testing.TB, p pattern, text, sub, base string) bool {
	s := strings.TrimPrefix(text, "!")
	s = strings.TrimSuffix(s, "/")
	if !p.basename {
		s = strings.TrimPrefix(s, "/")
	}
	name := sub
	if p.basename {
		name = base
	}
	head := s[:len(p.head)]
	if len(name) < len(head) || !equalFold(name[:len(head)], head, p.fold) {
		return false
	}
	g, ok := compileGlob(s[len(head):], p.fold)
	if !ok {
		t.Fatalf("compileGlob(%q) failed", s[len(head):])
	}
	m, _ := g.run(name[len(head):], memoAfter, maxSteps)
	return m
}

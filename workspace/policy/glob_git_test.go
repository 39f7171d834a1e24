package policy

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/index/ignore"
)

// The tests of this file set namespace globs beside gitignore's: the glob
// engine is shared (index/ignore's wildmatch), the syntax around it is not.
// Each row states both answers; the package comment and docs/policy.md
// describe the differences.

// TestGlobVersusWildmatch compares a namespace glob with the same text
// compiled by the wildmatch engine as git uses it (bytes, exact case, no
// line syntax).
func TestGlobVersusWildmatch(t *testing.T) {
	type answers struct{ Policy, Git bool }
	tests := []struct {
		glob, path string
		want       answers
	}{
		// Shared: '*', '?', classes and "**" as whole segments.
		{"src/*.go", "src/a.go", answers{true, true}},
		{"src/*.go", "src/x/a.go", answers{false, false}},
		{"**/*.go", "a.go", answers{true, true}},
		{"**/*.go", "a/b/c.go", answers{true, true}},
		{"a/**/b", "a/b", answers{true, true}},
		{"a/**/b", "a/x/y/b", answers{true, true}},
		{"src/**", "src/a/b", answers{true, true}},
		{"cmd/?/main.go", "cmd/a/main.go", answers{true, true}},
		{"cmd/?/main.go", "cmd/ab/main.go", answers{false, false}},
		{"[a-c][!a-c]", "bz", answers{true, true}},
		{"[]]", "]", answers{true, true}},
		{"x[*]", "x*", answers{true, true}},
		{"docs/*.md", "docs/.md", answers{true, true}}, // no special dot files
		{"!x", "!x", answers{true, true}},              // no negation in a glob itself
		// Differences.
		// A trailing "**" may match no segment.
		{"src/**", "src", answers{true, false}},
		{"**/b/**", "b", answers{true, false}},
		// '?' and classes match characters, not bytes.
		{"cmd/?/main.go", "cmd/é/main.go", answers{true, false}},
		{"[à-ü]", "é", answers{true, false}},
		{"[[:a]", ":", answers{true, true}},         // not a [:name:] class in either
		{"README", "readme", answers{false, false}}, // exact case (git folds only on macOS and Windows)
	}
	for _, tt := range tests {
		g, err := compileGlob(tt.glob)
		if err != nil {
			t.Fatalf("compileGlob(%q): %v", tt.glob, err)
		}
		w, ok := ignore.CompileGlob(tt.glob, ignore.GlobOptions{})
		if !ok {
			t.Fatalf("ignore.CompileGlob(%q) failed", tt.glob)
		}
		m, _ := w.Match(tt.path)
		if diff := cmp.Diff(tt.want, answers{g.match(tt.path), m}); diff != "" {
			t.Errorf("glob %q, path %q mismatch (-want +got):\n%s", tt.glob, tt.path, diff)
		}
	}
}

// TestGlobVersusGitignoreLine compares a namespace glob with the same text
// as the only line of a root .gitignore (whether the file at path is
// ignored): the line syntax anchors, negates and marks directories, the
// namespace syntax does none of that. No row depends on case, which git
// folds on macOS and Windows only.
func TestGlobVersusGitignoreLine(t *testing.T) {
	type answers struct{ Policy, Gitignore bool }
	tests := []struct {
		glob, path string
		want       answers
	}{
		// Shared: a glob with a '/' inside is anchored to the root in both.
		{"src/*.go", "src/a.go", answers{true, true}},
		{"src/*.go", "x/src/a.go", answers{false, false}},
		{"a/**/b", "a/x/b", answers{true, true}},
		// Anchoring: a line without '/' matches a name at any depth.
		{"main.go", "main.go", answers{true, true}},
		{"main.go", "cmd/main.go", answers{false, true}},
		{"*.go", "cmd/main.go", answers{false, true}},
		// A directory's line covers everything below it, as "dir/**" does.
		{"src", "src/a.go", answers{false, true}},
		{"src/**", "src/a.go", answers{true, true}},
		// A leading '!' negates a line; in a glob it is a character.
		{"!x", "!x", answers{true, false}},
		{"!x", "x", answers{false, false}},
	}
	for _, tt := range tests {
		g, err := compileGlob(tt.glob)
		if err != nil {
			t.Fatalf("compileGlob(%q): %v", tt.glob, err)
		}
		line := ignore.Stack{ignore.NewRules("", ".gitignore", []byte(tt.glob))}.Match(tt.path, false).Ignored
		if diff := cmp.Diff(tt.want, answers{g.match(tt.path), line}); diff != "" {
			t.Errorf("glob %q, path %q mismatch (-want +got):\n%s", tt.glob, tt.path, diff)
		}
	}
}

// TestGlobSyntaxVersusGit lists texts git takes as patterns (a line or a
// glob) that a namespace glob rejects, with the part of the error saying
// why.
func TestGlobSyntaxVersusGit(t *testing.T) {
	tests := []struct {
		glob string
		git  string // what the text means to git
		msg  string
	}{
		{"/src", "anchored line", `starts with "/"`},
		{"src/", "directories only", `ends with "/"`},
		{`a\*`, "escaped '*'", "backslash"},
		{"a**b", "'*'", `"**" inside a segment`},
		{"a]", "literal ']'", `"]" without "["`},
		{"[z-a]", "empty range, never matches", "reversed range"},
		{"[[:alpha:]]", "letter class", `"]" without "["`},
		{"a//b", "same as a/b for a path", "empty segment"},
	}
	for _, tt := range tests {
		if _, ok := ignore.CompileGlob(tt.glob, ignore.GlobOptions{}); !ok {
			t.Errorf("ignore.CompileGlob(%q) failed; git takes it (%s)", tt.glob, tt.git)
		}
		_, err := compileGlob(tt.glob)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, tt.msg) {
			t.Errorf("compileGlob(%q) = %q, want an error containing %q", tt.glob, got, tt.msg)
		}
	}
}

package ignore

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzRules parses random ignore-file content and decides a random path
// with it. Nothing may panic, decisions must be deterministic, MatchLeaf
// must agree with Match when no ancestor is ignored, and the shortcuts
// (simple kinds, length, tail, required literal, last-byte index) must
// agree with the plain matcher.
func FuzzRules(f *testing.F) {
	f.Add([]byte("*.log\n!keep.log\nbuild/\n"), "a/keep.log", false)
	f.Add([]byte("**/foo/**\n/a/**/b\nfoo**/bar\n"), "x/foo/y/bar", false)
	f.Add([]byte("[!a-c]x\n[[:alpha:]]*\n\\#x\n\\!y\nz\\ \n"), "dx", true)
	f.Add([]byte("\xEF\xBB\xBFa\r\nb\x00c\n"), "b", false)
	f.Fuzz(func(t *testing.T, data []byte, rel string, isDir bool) {
		root := NewRules("", ".gitignore", data)
		sub := NewRules("a", "a/.gitignore", data)
		stack := Stack{Deny(), root, sub}

		got := stack.Match(rel, isDir)
		again := Stack{Deny(), NewRules("", ".gitignore", data), NewRules("a", "a/.gitignore", data)}.Match(rel, isDir)
		if diff := cmp.Diff(got, again); diff != "" {
			t.Fatalf("Match not deterministic (-first +second):\n%s", diff)
		}
		clean, dir, ok := normalize(rel, isDir)
		if !ok {
			if diff := cmp.Diff(invalidPath, got); diff != "" {
				t.Fatalf("Match(%q) of an invalid path mismatch (-want +got):\n%s", rel, diff)
			}
			return
		}
		if clean == "" {
			return
		}
		ancestorsIgnored := false
		for i := range len(clean) {
			if clean[i] == '/' && stack.Match(clean[:i], true).Ignored {
				ancestorsIgnored = true
			}
		}
		if leaf := stack.MatchLeaf(clean, dir); !ancestorsIgnored {
			if diff := cmp.Diff(got, leaf); diff != "" {
				t.Fatalf("MatchLeaf(%q) disagrees with Match (-Match +MatchLeaf):\n%s", clean, diff)
			}
		}

		// The last-byte index must not change decisions.
		plain := *root
		plain.byEnd = nil
		if diff := cmp.Diff(Stack{root}.Match(clean, dir), Stack{&plain}.Match(clean, dir)); diff != "" {
			t.Fatalf("index changes the decision (-indexed +plain):\n%s", diff)
		}

		// Every pattern's shortcuts agree with the plain matcher.
		base := clean[strings.LastIndexByte(clean, '/')+1:]
		for i := range root.patterns {
			p := &root.patterns[i]
			_, text, _ := strings.Cut(p.rule, ": ")
			want := slowMatch(t, *p, text, clean, base)
			if p.matches(clean, base) != want {
				t.Fatalf("pattern %q, path %q: matches = %v, matcher alone = %v", text, clean, !want, want)
			}
		}
	})
}

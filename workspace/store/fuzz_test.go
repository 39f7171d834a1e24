package store

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"
)

// FuzzMergeGitignore merges ctxd's lines into an arbitrary user
// .gitignore: the user's text is kept as a prefix, every ctxd line is then
// present, and a second merge changes nothing.
func FuzzMergeGitignore(f *testing.F) {
	f.Add("")
	f.Add("*.log\nartifacts/\n")
	f.Add("no newline")
	f.Add(" artifacts/ \r\n\r\n# c\n")
	f.Add(gitignoreHeader + "\n" + strings.Join(gitignoreLines, "\n"))
	f.Fuzz(func(t *testing.T, old string) {
		got, changed := mergeGitignore(old)
		if !strings.HasPrefix(got, old) {
			t.Fatalf("merge dropped user text: %q -> %q", old, got)
		}
		if changed == (got == old) {
			t.Fatalf("changed=%v but old %q, new %q", changed, old, got)
		}
		have := map[string]bool{}
		for _, l := range strings.Split(got, "\n") {
			have[strings.TrimSpace(l)] = true
		}
		for _, l := range gitignoreLines {
			if !have[l] {
				t.Fatalf("line %q missing from %q", l, got)
			}
		}
		if again, ch := mergeGitignore(got); ch || again != got {
			t.Fatalf("second merge changed %q to %q", got, again)
		}
	})
}

// FuzzCheckContent checks arbitrary artifact bytes (a file in the store is
// untrusted input to `ctxd verify`): never a panic, and bytes are accepted
// only when they are the canonical JSON that hashes to the name.
func FuzzCheckContent(f *testing.F) {
	f.Add([]byte(`{"a":1}`), false)
	f.Add([]byte(`{ "a": 1 }`), false)
	f.Add([]byte(`[1e400]`), false)
	f.Add([]byte("\"\\ud800\""), false)
	f.Add([]byte("not json"), true)
	f.Fuzz(func(t *testing.T, data []byte, wrongName bool) {
		sum := sha256.Sum256(data)
		sha := hex.EncodeToString(sum[:])
		if wrongName {
			sha = strings.Repeat("0", 64)
		}
		field, msg := checkContent(sha, data)
		if wrongName {
			if field != FieldSHA256 {
				t.Fatalf("wrong name: field %q", field)
			}
			return
		}
		if field == "" {
			canon, err := jcs.Transform(data)
			if err != nil || string(canon) != string(data) {
				t.Fatalf("accepted non-canonical bytes %q", data)
			}
		} else if field != FieldCanonical || msg == "" {
			t.Fatalf("field %q message %q", field, msg)
		}
	})
}

package index

import (
	"errors"
	"io/fs"
	"testing"
)

// TestResolveInRoot: the real path below the root of a path through links
// inside it, the sandbox's refusal of links that lead out, and the root's
// real directory as the index resolved it.
func TestResolveInRoot(t *testing.T) {
	root, _ := sandboxFixture(t)
	_, r := indexDir(t, root, Options{})
	if r.RealDir() != root {
		t.Fatalf("RealDir() = %q, want %q", r.RealDir(), root)
	}
	for _, tc := range []struct {
		rel     string
		want    string
		wantErr error
	}{
		{rel: "main.go", want: "main.go"},
		{rel: "in/b.go", want: "a/b.go"},
		{rel: "in_abs/c/d.txt", want: "a/c/d.txt"},
		{rel: "out/secret.txt", wantErr: ErrOutsideRoot},
		{rel: "via_in/secret.txt", wantErr: ErrOutsideRoot},
		{rel: "a/missing.go", wantErr: fs.ErrNotExist},
	} {
		got, err := ResolveInRoot(r.RealDir(), tc.rel)
		if tc.wantErr != nil {
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("ResolveInRoot(%q) = %q, %v; want %v", tc.rel, got, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ResolveInRoot(%q) = %q, %v; want %q", tc.rel, got, err, tc.want)
		}
	}
}

//go:build unix

package index

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hardLinkFixture is parent/root (the workspace) and parent/outside with a
// secret; root/hard.txt is a hard link to the secret, root/twins/a.txt and
// root/twins/b.txt two names of one file inside, root/link.txt a symbolic
// link to hard.txt, root/ok.txt an ordinary file. config is written to
// root/.ctxd/config.json unless empty.
func hardLinkFixture(t *testing.T, config string) (root, outside string) {
	t.Helper()
	parent, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root, outside = filepath.Join(parent, "root"), filepath.Join(parent, "outside")
	for _, d := range []string{filepath.Join(root, "twins"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(outside, "secret.txt"), outsideSecret+"\n")
	write(filepath.Join(root, "ok.txt"), "ordinary\n")
	write(filepath.Join(root, "twins", "a.txt"), "twin\n")
	for _, l := range [][2]string{
		{filepath.Join(outside, "secret.txt"), filepath.Join(root, "hard.txt")},
		{filepath.Join(root, "twins", "a.txt"), filepath.Join(root, "twins", "b.txt")},
	} {
		if err := os.Link(l[0], l[1]); err != nil {
			t.Skipf("hard links not supported here: %v", err)
		}
	}
	if err := os.Symlink("hard.txt", filepath.Join(root, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if config != "" {
		if err := os.MkdirAll(filepath.Join(root, ".ctxd"), 0o755); err != nil {
			t.Fatal(err)
		}
		write(filepath.Join(root, ".ctxd", "config.json"), config)
	}
	return root, outside
}

// TestHardLinksRefused: a regular file with more than one hard link is not
// read by the scan, by an event's re-read or by a build's read, whatever
// its other names are, unless the workspace config allows hard links; the
// skip record says how to allow them and never names the outside.
// Options.HardLinks is the root's answer (the workspace layer reads it
// from .ctxd/config.json; workspace/policy tests that reading).
func TestHardLinksRefused(t *testing.T) {
	linked := []string{"hard.txt", "link.txt", "twins/a.txt", "twins/b.txt"}
	for _, tc := range []struct {
		name    string
		policy  func(string) bool
		allowed bool
	}{
		{"no policy", nil, false},
		{"denied", func(string) bool { return false }, false},
		{"allowed", func(string) bool { return true }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, outside := hardLinkFixture(t, "")
			x, r := indexDir(t, root, Options{HardLinks: tc.policy})
			if _, ok := r.File("ok.txt"); !ok {
				t.Error("ok.txt (one link) is not indexed")
			}
			check := func(r *RootSnapshot, when string) {
				t.Helper()
				for _, p := range linked {
					_, indexed := r.File(p)
					s, skipped := r.Skip(p)
					if tc.allowed {
						if !indexed {
							t.Errorf("%s: %s not indexed although hard links are allowed (skip %+v)", when, p, s)
						}
						continue
					}
					if indexed {
						t.Errorf("%s: %s indexed, want it refused", when, p)
					}
					if !skipped || !IsHardLinkSkip(s) || !strings.Contains(s.Detail, `"allow_hard_links": true`) {
						t.Errorf("%s: skip of %s = %+v (%v), want outside_sandbox saying how to allow hard links", when, p, s, skipped)
					}
					if strings.Contains(s.Detail, outside) {
						t.Errorf("%s: skip record of %s names the outside: %q", when, p, s.Detail)
					}
				}
				for _, p := range r.Paths() {
					if b, err := r.ReadText(p); err == nil && strings.Contains(string(b), outsideSecret) && !tc.allowed {
						t.Errorf("%s: %s reads the outside secret", when, p)
					}
				}
			}
			check(r, "scan")
			// An event re-reads the paths one by one.
			u := "file://" + root
			x.FilesChanged(testCtx(t), []string{u + "/hard.txt", u + "/link.txt", u + "/twins/a.txt", u + "/twins/b.txt"})
			check(x.Snapshot().Roots()[0], "event")
		})
	}
}

// TestHardLinkMadeAfterScan: a file indexed with one link that gains a
// second one (a link to it from outside, or it is replaced by a hard link
// to an outside file) is refused by the read itself, which looks at the
// opened descriptor, not at what the scan saw.
func TestHardLinkMadeAfterScan(t *testing.T) {
	root, outside := hardLinkFixture(t, "")
	_, r := indexDir(t, root, Options{})
	if b, err := r.ReadText("ok.txt"); err != nil || string(b) != "ordinary\n" {
		t.Fatalf("ReadText(ok.txt) = %q, %v", b, err)
	}
	if err := os.Link(filepath.Join(root, "ok.txt"), filepath.Join(outside, "other-name.txt")); err != nil {
		t.Fatal(err)
	}
	_, err := r.ReadText("ok.txt")
	var se *SandboxError
	if !errors.Is(err, ErrOutsideRoot) || !errors.As(err, &se) || se.Reason != HardLinkReason {
		t.Errorf("ReadText of a file that gained a hard link = %v, want the hard-link refusal", err)
	}
	if err != nil && strings.Contains(err.Error(), outside) {
		t.Errorf("the refusal names the outside: %v", err)
	}
}

// TestCheckHardLinks is the descriptor check on its own: only regular files
// with several links are refused, and only when the policy says no.
func TestCheckHardLinks(t *testing.T) {
	root, _ := hardLinkFixture(t, "")
	deny := &linkPolicy{allowed: func() bool { return false }}
	allow := &linkPolicy{allowed: func() bool { return true }}
	for _, tc := range []struct {
		path   string
		policy *linkPolicy
		want   bool // refused
	}{
		{"ok.txt", deny, false},
		{"ok.txt", nil, false},
		{"twins/a.txt", deny, true},
		{"twins/a.txt", nil, true},
		{"twins/a.txt", allow, false},
		{"hard.txt", deny, true},
		{"twins", deny, false}, // a directory always has several links
	} {
		f, err := os.Open(filepath.Join(root, filepath.FromSlash(tc.path)))
		if err != nil {
			t.Fatal(err)
		}
		err = checkHardLinks(f, tc.policy)
		f.Close()
		if got := errors.Is(err, ErrOutsideRoot); got != tc.want {
			t.Errorf("checkHardLinks(%s) = %v, refused %v, want %v", tc.path, err, got, tc.want)
		}
	}
	if newLinkPolicy(root, nil).allowed() {
		t.Error("a root without a hard-link policy allows hard links")
	}
}

//go:build unix

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestE2EHardLinkNotSent: a hard link inside the workspace to a file
// outside it is never read through the binary: as a target it is refused
// REFUSE_OUTSIDE_SANDBOX with the advice to allow hard links, and a build
// of another file does not carry it. With "sandbox": {"allow_hard_links":
// true} in .ctxd/config.json the file is read like any other.
func TestE2EHardLinkNotSent(t *testing.T) {
	const secret = "HARDLINK-SECRET-51c2"
	parent := t.TempDir()
	outside := filepath.Join(parent, "outside.txt")
	root := filepath.Join(parent, "w")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(outside, []byte(secret+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n\n// reads hard.txt\nfunc main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(outside, filepath.Join(root, "hard.txt")); err != nil {
		t.Skipf("hard links not supported here: %v", err)
	}

	code, stdout, stderr := ctxdRun(t, "build", "--root", root, "--purpose", "diff", "--target", "hard.txt", "--format", "json")
	if code != 3 || !strings.Contains(stdout, `"REFUSE_OUTSIDE_SANDBOX"`) || !strings.Contains(stdout, `allow_hard_links`) {
		t.Errorf("build of the hard link: exit %d, want 3 with REFUSE_OUTSIDE_SANDBOX and the advice; stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	code, stdout, stderr = ctxdRun(t, "build", "--root", root, "--purpose", "diff", "--target", "main.go", "--format", "json")
	if code != 0 {
		t.Errorf("build of main.go: exit %d; stderr:\n%s", code, stderr)
	}
	for name, out := range map[string]string{"refused build": stdout, "stderr": stderr} {
		if strings.Contains(out, secret) {
			t.Errorf("%s carries the outside file's content", name)
		}
	}
	code, stdout, stderr = ctxdRun(t, "build", "--root", root, "--purpose", "diff", "--target", "hard.txt", "--format", "json", "--log-level", "debug")
	if strings.Contains(stdout+stderr, secret) {
		t.Errorf("the refused build (exit %d) leaks the outside file's content", code)
	}

	if err := os.MkdirAll(filepath.Join(root, ".ctxd"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".ctxd", "config.json"), []byte(`{"schema_version": "1", "sandbox": {"allow_hard_links": true}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = ctxdRun(t, "build", "--root", root, "--purpose", "diff", "--target", "hard.txt", "--format", "json")
	if code != 0 || !strings.Contains(stdout, secret) {
		t.Errorf("build of the hard link with allow_hard_links: exit %d, want 0 with its content; stderr:\n%s", code, stderr)
	}
}

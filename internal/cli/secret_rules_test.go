package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/contextbuilder/secrets"
	"github.com/ctxd/ctxd/index/indextest"
	"github.com/ctxd/ctxd/internal/testenv"
)

// TestMain gives the tests a configuration and state directory of their
// own (testenv.Run).
func TestMain(m *testing.M) { os.Exit(testenv.Run(m)) }

const acmeRules = `
[[rules]]
id = "acme-token"
description = "ACME internal token"
regex = '''\b(acme_[0-9a-z]{24})\b'''
secretGroup = 1
keywords = ["acme_"]
`

func TestLoadSecretRules(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.toml")
	bad := filepath.Join(dir, "bad.toml")
	clash := filepath.Join(dir, "clash.toml")
	os.WriteFile(good, []byte(acmeRules), 0o644)
	os.WriteFile(bad, []byte("[[rules]\nid = "), 0o644)
	os.WriteFile(clash, []byte("[[rules]]\nid = \"private-key\"\nregex = 'x'\n"), 0o644)

	s, path, err := loadSecretRules("")
	if err != nil || path != "" || s.Version() != secrets.Default().Version() {
		t.Errorf("no rules file: got %v, %q, %v; want the built-in rules", s, path, err)
	}
	s, _, err = loadSecretRules(good)
	if err != nil || !strings.Contains(s.Version(), "+user.") {
		t.Errorf("good rules: version %q, err %v; want a +user. version", s.Version(), err)
	}
	for _, p := range []string{filepath.Join(dir, "missing.toml"), bad, clash} {
		if _, _, err := loadSecretRules(p); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("loadSecretRules(%s) error = %v, want an error naming the file", p, err)
		}
	}

	// The default file in the user config directory is read when present.
	conf := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "ctxd", "secret-rules.toml")
	if err := os.MkdirAll(filepath.Dir(conf), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(conf, []byte(acmeRules), 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(conf)
	s, path, err = loadSecretRules("")
	if err != nil || path != conf || !strings.Contains(s.Version(), "+user.") {
		t.Errorf("default file: got version %q, path %q, err %v", s.Version(), path, err)
	}
}

func TestBuildSecretRules(t *testing.T) {
	const token = "acme_0123456789abcdefghijklmn"
	ws := indextest.WriteTree(t, "-- go.mod --\nmodule example.com/a\n\ngo 1.22\n-- a.go --\npackage a\n\nconst key = \""+token+"\"\n")
	rules := filepath.Join(t.TempDir(), "rules.toml")
	os.WriteFile(rules, []byte(acmeRules), 0o644)
	args := []string{"build", "--root", ws, "--cache-dir", "off", "--format", "json", "--purpose", "diff", "--target", "a.go"}

	code, stdout, stderr := runCLI(t, append(args, "--secret-rules", rules)...)
	if code != exitOK || strings.Contains(stdout, token) || !strings.Contains(stdout, "[REDACTED:acme-token]") {
		t.Errorf("with the user's rule: exit %d, the token must be redacted by acme-token:\n%s\n%s", code, stdout, stderr)
	}
	code, _, stderr = runCLI(t, append(args, "--secret-rules", filepath.Join(t.TempDir(), "nope.toml"))...)
	if code != exitUsage || !strings.Contains(stderr, "nope.toml") {
		t.Errorf("missing rules file: exit %d, stderr %q; want 2 naming the file", code, stderr)
	}
}

// Package e2e tests the real ctxd binary from the outside: the LSP server
// on its pipes, the CLI's subcommands and exit codes, the records they
// write, and what never leaves it (secrets, network calls). The binary is
// built once per run from the module's main package.
package e2e

import (
	"os"
	"testing"
)

// TestMain keeps the user's own ctxd config (secret rules) out of the
// tests: the binaries the tests start look the default rules file up under
// a fresh config directory.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ctxd-config-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CONFIG_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

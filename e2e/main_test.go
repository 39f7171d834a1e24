// Package e2e tests the real ctxd binary from the outside: the LSP server
// on its pipes, the CLI's subcommands and exit codes, the records they
// write, and what never leaves it (secrets, network calls). The binary is
// built once per run from the module's main package.
package e2e

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMain keeps the user's own ctxd config (secret rules) and state
// (records) out of the tests: the binaries the tests start look both up
// under a fresh directory.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ctxd-config-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CONFIG_HOME", dir)
	// Builds in workspaces that did not opt in record under the state
	// directory: a fresh one, not the user's.
	os.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

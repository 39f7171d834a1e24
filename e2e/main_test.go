// Package e2e tests the real ctxd binary from the outside: the LSP server
// on its pipes, the CLI's subcommands and exit codes, the records they
// write, and what never leaves it (secrets, network calls). The binary is
// built once per run from the module's main package.
package e2e

import (
	"os"
	"testing"

	"github.com/ctxd/ctxd/internal/testenv"
)

// TestMain gives the tests a configuration and state directory of their
// own (testenv.Run).
func TestMain(m *testing.M) { os.Exit(testenv.Run(m)) }

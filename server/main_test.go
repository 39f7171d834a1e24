package server

import (
	"os"
	"testing"

	"github.com/ctxd/ctxd/internal/testenv"
)

// TestMain gives the tests a configuration and state directory of their
// own (testenv.Run).
func TestMain(m *testing.M) { os.Exit(testenv.Run(m)) }

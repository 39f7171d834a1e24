package server

import (
	"fmt"
	"os"
	"testing"
)

// TestMain keeps the records of the test workspaces that did not opt in
// in a state directory of its own, never the user's.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ctxd-server-state-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("XDG_STATE_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

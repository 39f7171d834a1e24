package main

import (
	"os"
	"testing"
)

// TestMain keeps the user's state directory out of the tests: builds in
// workspaces that did not opt in record under $XDG_STATE_HOME, here a
// fresh directory.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ctxd-state-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_STATE_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

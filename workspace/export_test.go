package workspace

import "github.com/ctxd/ctxd/workspace/store"

// SetPutCanonical replaces how artifacts are written until the returned
// function restores it: the seam of the disk-full tests.
func SetPutCanonical(f func(s *store.Store, kind store.Kind, data []byte) (string, error)) (restore func()) {
	old := putCanonical
	putCanonical = f
	return func() { putCanonical = old }
}

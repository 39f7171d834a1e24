//go:build !unix

package ignore

import "os"

// openFile opens name for reading. Systems without O_NOFOLLOW rely on the
// checks readSmallFile makes before and after opening.
func openFile(name string, follow bool) (*os.File, error) {
	return os.Open(name)
}

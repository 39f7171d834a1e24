//go:build unix

package ignore

import (
	"os"
	"syscall"
)

// openFile opens name for reading without blocking on a FIFO or device and,
// unless follow is set, without following a final symbolic link.
func openFile(name string, follow bool) (*os.File, error) {
	flags := os.O_RDONLY | syscall.O_NONBLOCK
	if !follow {
		flags |= syscall.O_NOFOLLOW
	}
	return os.OpenFile(name, flags, 0)
}

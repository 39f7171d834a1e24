//go:build unix

package prompt

import (
	"os"
	"syscall"
)

// openFlags opens a template without blocking on a FIFO or a device: such
// a file is rejected after the open (not a regular file), and must not
// hang the load first.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK

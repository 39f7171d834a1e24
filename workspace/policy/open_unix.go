//go:build unix

package policy

import (
	"os"
	"syscall"
)

// openFlags opens without blocking on a FIFO or a device: such a file is
// rejected after the open, and must not hang the load first.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK

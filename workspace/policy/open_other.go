//go:build !unix

package policy

import "os"

// openFlags opens for reading; systems without O_NONBLOCK rely on the
// regular-file check made before reading.
const openFlags = os.O_RDONLY

//go:build !unix

package prompt

import "os"

// openFlags opens for reading; systems without O_NONBLOCK rely on the
// type check after the open.
const openFlags = os.O_RDONLY

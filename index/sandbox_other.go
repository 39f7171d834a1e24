//go:build !unix

package index

import (
	"io/fs"
	"os"
)

// linkCount is the number of hard links of a file; os.Stat does not report
// it on this system, so every file counts as having one (docs/security.md,
// known limits).
func linkCount(fs.FileInfo) uint64 { return 1 }

// fileID is 0: os.Stat does not report an inode here, so the cache
// trusts size and modification time alone.
func fileID(fs.FileInfo) uint64 { return 0 }

// openReadFlags opens for reading; systems without O_NONBLOCK and
// O_NOFOLLOW rely on the type check of the opened descriptor.
const openReadFlags = os.O_RDONLY

// clearNonblock has nothing to clear here.
func clearNonblock(*os.File) error { return nil }

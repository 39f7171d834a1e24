//go:build !linux

package index

import (
	"io/fs"
	"os"
)

// hasHole reports no hole: only Linux is asked (lseek SEEK_HOLE); a
// sparse file elsewhere is decided by its first bytes, or read whole.
func hasHole(*os.File, int64, int64) (bool, error) { return false, nil }

// stampOf says nothing here: the change time is read on Linux only, so
// the listing's bytes are never kept for the parse, which reads the file
// again (see [heldText]).
func stampOf(fs.FileInfo) (fileStamp, bool) { return fileStamp{}, false }

// openBeneath has no fast path here: openRegular opens through os.Root.
func openBeneath(string, string) *os.File { return nil }

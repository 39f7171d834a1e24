package index

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// hasHole reports whether the regular file f, of size bytes, has a hole
// (a range never written, which reads as NUL bytes) before its end, by
// lseek(SEEK_HOLE): a sparse file is known to hold NUL bytes without
// reading gigabytes of them. A file system without holes reports none.
// The file's offset is left where it was.
func hasHole(f *os.File, size int64) (bool, error) {
	cur, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return false, nil // not seekable: the read will tell
	}
	hole, herr := f.Seek(0, unix.SEEK_HOLE)
	if _, err := f.Seek(cur, io.SeekStart); err != nil {
		return false, err
	}
	return herr == nil && hole < size, nil
}

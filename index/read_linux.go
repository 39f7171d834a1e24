package index

import (
	"io"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// hasHole reports whether the regular file f, of size bytes, has a hole
// (a range never written, which reads as NUL bytes) before its end, by
// lseek(SEEK_HOLE): a sparse file is known to hold NUL bytes without
// reading gigabytes of them. A file system without holes reports none.
// The file's offset is left at off, where the caller's read was.
func hasHole(f *os.File, size, off int64) (bool, error) {
	hole, herr := f.Seek(0, unix.SEEK_HOLE)
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return false, err
	}
	return herr == nil && hole < size, nil
}

// stampOf is the identity and version of a file as fstat or lstat gave
// it; false when the system's information is not at hand, and then the
// listing's bytes are never kept for the parse (see [heldText]).
func stampOf(info fs.FileInfo) (fileStamp, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fileStamp{}, false
	}
	return fileStamp{
		dev: uint64(st.Dev), ino: st.Ino, links: uint64(st.Nlink), size: st.Size,
		mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(),
	}, true
}

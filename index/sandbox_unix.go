//go:build unix

package index

import (
	"io/fs"
	"os"
	"syscall"
)

// linkCount is the number of hard links of a file (st_nlink); 1 when the
// system does not say.
func linkCount(info fs.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

// fileID is the inode number of a file, which with its size and
// modification time tells the cache a file is unchanged; 0 when the
// system does not say.
func fileID(info fs.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return st.Ino
	}
	return 0
}

// openReadFlags opens a workspace file for reading without following a
// final symbolic link and without blocking: opening a FIFO for reading
// waits for a writer, and a device may wait too. The type is checked on
// the opened descriptor before anything is read.
const openReadFlags = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOFOLLOW

// clearNonblock puts a descriptor opened with O_NONBLOCK, known to be a
// regular file, back into blocking mode, so that no file system can
// answer a read with EAGAIN.
func clearNonblock(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = syscall.SetNonblock(int(fd), false) }); err != nil {
		return err
	}
	return serr
}

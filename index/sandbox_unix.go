//go:build unix

package index

import (
	"io/fs"
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

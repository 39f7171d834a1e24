//go:build linux

package main

import (
	"io/fs"
	"syscall"
)

// statKey identifies a file's content version without reading it: any
// write, rename over it or chmod changes its ctime (which no process can
// set), its inode or its size.
type statKey struct {
	dev, ino     uint64
	size         int64
	mtime, ctime int64
}

// keyOf returns info's key; ok is false when the platform gives none (the
// file is then hashed every time).
func keyOf(info fs.FileInfo) (statKey, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return statKey{}, false
	}
	return statKey{
		dev:   uint64(st.Dev),
		ino:   uint64(st.Ino),
		size:  st.Size,
		mtime: info.ModTime().UnixNano(),
		ctime: st.Ctim.Nano(),
	}, true
}

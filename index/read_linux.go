package index

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"
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

// noOpenat2 is set once openat2 is known to be unavailable (an old
// kernel, a seccomp filter): every open then goes through os.Root.
var noOpenat2 atomic.Bool

// openBeneath opens real (slash-separated, relative) below the directory
// rootReal as openRegular must — inside the root, without following a
// final symbolic link, without blocking — in one openat2 call with
// RESOLVE_BENEATH (no ".." above the root, no absolute link, no link
// resolving outside it) and RESOLVE_NO_MAGICLINKS, where os.Root opens
// each directory on the way in turn: a file four directories down took
// six opens and as many closes. The file it returns is in blocking mode.
// It returns nil on any failure, and the
// caller opens the file through os.Root, which gives the error its
// callers expect; so this path can only refuse more than os.Root, never
// less.
func openBeneath(rootReal, real string) *os.File {
	if noOpenat2.Load() {
		return nil
	}
	dir, err := unix.Open(rootReal, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer unix.Close(dir)
	fd, err := unix.Openat2(dir, real, &unix.OpenHow{
		Flags:   uint64(unix.O_RDONLY | unix.O_NONBLOCK | unix.O_NOFOLLOW | unix.O_CLOEXEC),
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS,
	})
	if err != nil {
		if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM) {
			noOpenat2.Store(true)
		}
		return nil
	}
	// O_NONBLOCK kept the open from waiting on a FIFO; cleared before a
	// byte is read, whatever the file is (openRegular refuses anything
	// but a regular file after), and before os.NewFile, which would
	// otherwise try to register a non-blocking descriptor with the
	// poller (refused for a regular file, a wasted call).
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return nil
	}
	// Named as os.Root names what it opens.
	return os.NewFile(uintptr(fd), filepath.Join(rootReal, filepath.FromSlash(real)))
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

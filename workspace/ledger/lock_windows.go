//go:build windows

package ledger

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// lockRange is the byte range every lock covers: the whole file, as flock
// does on Unix.
const lockRange = ^uint32(0)

func lockFlags(how lockMode) uint32 {
	if how == lockExclusive {
		return windows.LOCKFILE_EXCLUSIVE_LOCK
	}
	return 0
}

// tryLock takes the lock on f if no other holder prevents it; ok is false
// when one does.
func tryLock(f *os.File, how lockMode) (ok bool, err error) {
	err = windows.LockFileEx(windows.Handle(f.Fd()), lockFlags(how)|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, lockRange, lockRange, new(windows.Overlapped))
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return false, nil
	}
	return err == nil, err
}

// waitLock takes the lock on f, waiting for other holders.
func waitLock(f *os.File, how lockMode) error {
	return windows.LockFileEx(windows.Handle(f.Fd()), lockFlags(how), 0, lockRange, lockRange, new(windows.Overlapped))
}

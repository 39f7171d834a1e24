//go:build unix

package ledger

import (
	"errors"
	"os"
	"syscall"
)

func flockHow(how lockMode) int {
	if how == lockExclusive {
		return syscall.LOCK_EX
	}
	return syscall.LOCK_SH
}

// tryLock takes the lock on f if no other holder prevents it; ok is false
// when one does.
func tryLock(f *os.File, how lockMode) (ok bool, err error) {
	err = syscall.Flock(int(f.Fd()), flockHow(how)|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}

// waitLock takes the lock on f, waiting for other holders.
func waitLock(f *os.File, how lockMode) error {
	for {
		err := syscall.Flock(int(f.Fd()), flockHow(how))
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

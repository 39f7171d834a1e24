package index

// The one reader of workspace files. Every byte of a workspace file the
// index, the context builder or a read tool sees comes through readIn:
// the scan, the re-read of a file for its lazy parse, RootSnapshot.ReadText
// and ReadInRoot. It never blocks on the type of a file and never returns
// bytes it cannot vouch for:
//
//   - the file is opened inside the root (os.Root), without following a
//     final symbolic link (O_NOFOLLOW) and without blocking (O_NONBLOCK):
//     opening a FIFO for reading waits for a writer, forever when none
//     comes, and a device may do the same;
//   - the opened descriptor is fstat'ed, and anything but a regular file
//     is refused (ErrNotRegular) before a byte is read; O_NONBLOCK is then
//     cleared, so the read of a regular file is an ordinary one;
//   - at most cap+1 bytes are read, so a file that grows while it is read
//     cannot be read forever (ErrTooLarge);
//   - the descriptor is fstat'ed again after the read: a file whose size,
//     modification time or identity changed, or whose length does not match
//     its size, was read while a writer was at it, and is read again, at
//     most readAttempts times in all, then refused (ErrChanged); a
//     half-written file is never returned;
//   - when asked to (a scan), binary is decided on the first
//     classify.PrefixSize bytes before the rest is read, so a raised
//     --max-file-size never reads gigabytes of a sparse file to find its
//     NUL bytes.
//
// docs/security.md ("Reading files") says the same for users.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/ctxd/ctxd/index/classify"
)

// Errors of the reader, wrapped with the path concerned. A caller reports
// them as a reason to leave the file out (a skip record, an exclusion, a
// refusal), never as a reason to stop.
var (
	// ErrNotRegular: the path names a FIFO, a socket, a device or a
	// directory, which ctxd never reads: a read could block.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge: the file is larger than the caller's size cap, or grew
	// past it while it was read.
	ErrTooLarge = errors.New("larger than the size cap")
	// ErrChanged: the file changed during every one of readAttempts
	// reads; what was read is not a version of the file anyone wrote.
	ErrChanged = errors.New("the file changed while it was read")
)

// readAttempts is how many times a file that changes while it is read is
// read in all before it is refused: a writer saving a file is done after
// one retry nearly always, and a file rewritten without pause is not one
// to send.
const readAttempts = 3

// readHook, when set, runs in every read attempt between the first fstat
// and the read: a test changes the file there to play a writer racing the
// read, deterministically. attempt counts from 1.
var readHook atomic.Pointer[func(f *os.File, attempt int)]

// readSpec says how a file is read.
type readSpec struct {
	// max is the size cap in bytes.
	max int64
	// links is the root's hard-link policy; nil allows no file with
	// several links.
	links *linkPolicy
	// sniff decides binary on the file's prefix before the rest is read
	// (see prefixError).
	sniff bool
}

// capError is a file over the cap: its size, as fstat said or as far as
// the read went.
type capError struct{ size int64 }

func (e *capError) Error() string {
	return fmt.Sprintf("file of %d bytes exceeds the size cap", e.size)
}

// Unwrap makes errors.Is(err, ErrTooLarge) true.
func (e *capError) Unwrap() error { return ErrTooLarge }

// prefixError is a file decided by its prefix (classify.DetectPrefix):
// binary, or in an encoding ctxd does not read. The rest was not read.
type prefixError struct{ res classify.Result }

func (e *prefixError) Error() string { return "decided by its first bytes: " + e.res.Reason }

// notRegularError is ErrNotRegular naming the file's type.
type notRegularError struct{ mode fs.FileMode }

func (e *notRegularError) Error() string { return "not a regular file (" + fileKind(e.mode) + ")" }

// Unwrap makes errors.Is(err, ErrNotRegular) true.
func (e *notRegularError) Unwrap() error { return ErrNotRegular }

// fileKind names the type of a file that is not regular, for a reason.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "an irregular file"
}

// errUnsettled is one read that the file changed under; readIn reads
// again.
var errUnsettled = errors.New("changed during the read")

// readIn reads the file real of the root at rootReal whole, under spec.
// real is relative to rootReal, slash-separated, and names no symbolic
// link (it comes from resolveIn or the walk); a link swapped in since is
// followed only inside the root, by os.Root. It returns the bytes and the
// file's information as fstat gave it after the read. Errors: a
// *SandboxError (hard links), ErrNotRegular, a *capError (ErrTooLarge), a
// *prefixError, ErrChanged, or the system's.
func readIn(rootReal, real string, spec readSpec) ([]byte, fs.FileInfo, error) {
	for attempt := 1; ; attempt++ {
		data, info, err := readOnce(rootReal, real, spec, attempt)
		if !errors.Is(err, errUnsettled) {
			return data, info, err
		}
		if attempt == readAttempts {
			return nil, nil, fmt.Errorf("%w (%d reads, each saw another size or modification time)", ErrChanged, readAttempts)
		}
	}
}

// readOnce is one attempt of readIn.
func readOnce(rootReal, real string, spec readSpec, attempt int) ([]byte, fs.FileInfo, error) {
	f, before, err := openRegular(rootReal, real)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if err := hardLinkRefusal(before, spec.links); err != nil {
		return nil, nil, err
	}
	if before.Size() > spec.max {
		return nil, nil, &capError{size: before.Size()}
	}
	if h := readHook.Load(); h != nil {
		(*h)(f, attempt)
	}
	data, err := readBounded(f, before.Size(), spec)
	if err != nil {
		return nil, nil, err
	}
	after, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if int64(len(data)) != before.Size() || !sameVersion(before, after) {
		return nil, nil, errUnsettled
	}
	return data, after, nil
}

// openRegular opens real inside the root without blocking and returns it
// with its fstat information, or refuses it when it is not a regular file.
func openRegular(rootReal, real string) (*os.File, fs.FileInfo, error) {
	if real == "" {
		return nil, nil, refuse("the workspace root itself, not a file in it")
	}
	f := openBeneath(rootReal, real)
	fast := f != nil
	if !fast {
		var err error
		if f, err = openInRoot(rootReal, real); err != nil {
			return nil, nil, err
		}
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, nil, &notRegularError{mode: info.Mode()}
	}
	if fast {
		return f, info, nil // already in blocking mode
	}
	if err := clearNonblock(f); err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, info, nil
}

// openInRoot opens real through os.Root, with openReadFlags.
func openInRoot(rootReal, real string) (*os.File, error) {
	r, err := os.OpenRoot(rootReal)
	if err != nil {
		return nil, err
	}
	// The opened file keeps its own descriptor: closing the root does
	// not close it.
	defer r.Close()
	return r.OpenFile(filepath.FromSlash(real), openReadFlags, 0)
}

// readBounded reads f, of size bytes by its fstat, to its end, never more
// than spec.max+1 bytes: more is a *capError. With spec.sniff the first
// classify.PrefixSize bytes are read and classified first; a verdict
// there is a *prefixError, and the rest is never read (nor is room for
// it allocated). A file of at most classify.PrefixSize bytes is then
// read whole: its bytes are returned without reading on to the end of
// the file or looking for holes (any hole was read as NUL bytes, which
// the prefix's verdict saw); readOnce's second fstat tells whether it
// grew meanwhile. Most source files are that small, and a read and three
// seeks of each were a tenth of the scan's system calls.
func readBounded(f *os.File, size int64, spec readSpec) ([]byte, error) {
	var head []byte
	if spec.sniff {
		n := min(size, classify.PrefixSize)
		// Room for the byte past size, as below, when the prefix is
		// the file.
		head = make([]byte, n, n+1)
		n2, err := io.ReadFull(f, head)
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, errUnsettled // shorter than fstat said: truncated meanwhile
		}
		if err != nil {
			return nil, err
		}
		head = head[:n2]
		if res, ok := classify.DetectPrefix(head); ok {
			return nil, &prefixError{res: res}
		}
		if size <= classify.PrefixSize {
			return head, nil
		}
		hole, err := hasHole(f, size, int64(len(head)))
		if err != nil {
			return nil, err
		}
		if hole && !isUTF16(head) {
			// A hole reads as NUL bytes: binary by rule 3 of package
			// classify, known without reading up to it.
			return nil, &prefixError{res: classify.Result{Binary: true, Encoding: classify.Unknown, Reason: "nul byte"}}
		}
	}
	// Room for the stated size plus one byte, so that a file that grew
	// since fstat is caught by the cap without io.ReadAll's growth.
	buf := make([]byte, len(head), size+1)
	copy(buf, head)
	data, err := readAllInto(io.LimitReader(f, spec.max+1-int64(len(head))), buf)
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > spec.max {
		return nil, &capError{size: int64(len(data))}
	}
	return data, nil
}

// isUTF16 reports a UTF-16 byte order mark, after which NUL bytes are
// text and only package classify may judge them.
func isUTF16(head []byte) bool {
	return len(head) >= 2 && (head[0] == 0xFF && head[1] == 0xFE || head[0] == 0xFE && head[1] == 0xFF)
}

// sameVersion reports whether two fstat results of one open file describe
// the same version of it: same size and modification time. (A write
// within the timestamp granularity of the file system that keeps the size
// goes unseen here; the sha256 recorded at indexing catches it when the
// builder reads the file again.)
func sameVersion(a, b fs.FileInfo) bool {
	return a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// readAllInto reads r to EOF, appending to buf.
func readAllInto(r io.Reader, buf []byte) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// fileStamp is what the system says of one version of a file: its
// identity (device, inode), its link count, size, modification time and
// change time (ns). Any write, truncation, rename over it, chmod, utimes
// or new hard link gives another stamp: the change time is set by the
// kernel to the current time on each of them and cannot be set back,
// unlike the modification time. Two stamps of one path are equal only
// when nothing was done to the file between them, except within one tick
// of the file system's clock, which [settledAt] rules out.
type fileStamp struct {
	dev, ino, links uint64
	size            int64
	mtime, ctime    int64
}

// settledAt reports whether the file of stamp s had not changed for
// settleWindow when it was read at now: a later change then gets a later
// change time, never the one the stamp holds, even on a file system whose
// clock ticks coarsely.
func (s fileStamp) settledAt(now time.Time) bool {
	before := now.Add(-settleWindow).UnixNano()
	return s.ctime < before && s.mtime < before
}

// settleWindow is racyWindow, a variable so that a test need not wait
// two seconds for the files it wrote to settle.
var settleWindow = racyWindow

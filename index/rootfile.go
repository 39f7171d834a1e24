package index

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Errors of [ReadInRoot] for a path that exists but cannot be read whole:
// not a regular file (a directory, a FIFO, a device, a socket), or larger
// than the caller's cap.
var (
	ErrNotRegular = errors.New("not a regular file")
	ErrTooLarge   = errors.New("larger than the size cap")
)

// ReadInRoot reads the file rel (clean, slash-separated, relative to the
// root whose real directory is rootReal) without ever leaving the root,
// for a reader that needs a file whether or not the index holds it (the
// change checker reads exactly the files an answer touches). It refuses
// what the index would: a link out of the root or swapped in (wrapping
// ErrOutsideRoot), a file with several hard links unless allowHardLinks,
// anything but a regular file (ErrNotRegular), and a file larger than max
// bytes (ErrTooLarge). A missing file gives an error wrapping fs.ErrNotExist. It also
// returns the file's permission bits, which a writer keeps.
func ReadInRoot(rootReal, rel string, max int64, allowHardLinks bool) ([]byte, fs.FileMode, error) {
	real, err := resolveIn(osFS{}, rootReal, rel)
	if err != nil {
		return nil, 0, fmt.Errorf("reading %s: %w", rel, err)
	}
	if real == "" {
		return nil, 0, fmt.Errorf("reading %s: %w", rel, refuse("the workspace root itself, not a file in it"))
	}
	// Checked before opening: opening a FIFO for reading blocks until a
	// writer comes. The descriptor is checked again below.
	info, err := os.Lstat(filepath.Join(rootReal, filepath.FromSlash(real)))
	if err != nil {
		return nil, 0, fmt.Errorf("reading %s: %w", rel, err)
	}
	if !info.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("reading %s: %w", rel, ErrNotRegular)
	}
	links := newLinkPolicy(rootReal, func(string) bool { return allowHardLinks })
	f, err := openInRoot(rootReal, rel, links)
	if err != nil {
		return nil, 0, fmt.Errorf("reading %s: %w", rel, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, 0, fmt.Errorf("reading %s: %w", rel, err)
	}
	if !st.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("reading %s: %w", rel, ErrNotRegular)
	}
	data, err := readCappedFile(f, max)
	if err != nil {
		var ce *capError
		if errors.As(err, &ce) {
			return nil, 0, fmt.Errorf("reading %s: %w (%d bytes)", rel, ErrTooLarge, max)
		}
		return nil, 0, fmt.Errorf("reading %s: %w", rel, err)
	}
	return data, st.Mode().Perm(), nil
}

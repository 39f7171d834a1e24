package index

import (
	"fmt"
	"io/fs"
)

// ReadInRoot reads the file rel (clean, slash-separated, relative to the
// root whose real directory is rootReal) without ever leaving the root,
// for a reader that needs a file whether or not the index holds it (the
// change checker reads exactly the files an answer touches). It refuses
// what the index would: a link out of the root or swapped in (wrapping
// ErrOutsideRoot), a file with several hard links unless allowHardLinks,
// anything but a regular file (ErrNotRegular, without blocking on a FIFO),
// a file larger than max bytes (ErrTooLarge), and a file that changed
// during every read (ErrChanged). A missing file gives an error wrapping
// fs.ErrNotExist. It also returns the file's permission bits, which a
// writer keeps.
func ReadInRoot(rootReal, rel string, max int64, allowHardLinks bool) ([]byte, fs.FileMode, error) {
	links := newLinkPolicy(rootReal, func(string) bool { return allowHardLinks })
	data, info, err := readRel(rootReal, rel, readSpec{max: max, links: links})
	if err != nil {
		return nil, 0, fmt.Errorf("reading %s: %w", rel, err)
	}
	return data, info.Mode().Perm(), nil
}

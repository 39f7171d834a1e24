package contextbuilder

import (
	"errors"
	"io/fs"

	"github.com/ctxd/ctxd/index"
)

// memo holds what one build attempt has read and scanned, so that the
// blocks of one file share one read (and one sha256 check) and one scan.
type memo struct {
	texts    map[string]fileText  // files read, by path
	findings map[string][]Finding // secrets of whole files, by path
}

func newMemo() *memo {
	return &memo{texts: map[string]fileText{}, findings: map[string][]Finding{}}
}

// fileText is a file read once per build and shared by its items.
type fileText struct {
	text []byte
	li   *lineIndex
}

// read loads an item's text: the editor's buffer for an open document,
// else the disk, verified against the indexed sha256. A file changed since
// indexing yields a staleError (the build restarts on a refreshed
// snapshot); any other failure is returned. Reading the snapshot is the
// only I/O of the builder.
func (e *env) read(it *item) error {
	if it.text != nil {
		return nil
	}
	if t, ok := e.mem.texts[it.path]; ok {
		it.text, it.li = t.text, t.li
		return nil
	}
	text, err := e.root.ReadText(it.path)
	if errors.Is(err, index.ErrStale) {
		return &staleError{uris: []string{e.root.URIOf(it.path)}}
	}
	if err != nil {
		return err
	}
	if text == nil {
		text = []byte{}
	}
	it.text = text
	it.li = newLineIndex(text)
	e.mem.texts[it.path] = fileText{it.text, it.li}
	return nil
}

// errSkip reports that an optional or P1 item was excluded while loading.
var errSkip = errors.New("skipped")

// loadRelated reads a related item. An unreadable file is excluded as
// "binary" (seed 002 edge case 4: what cannot be classified reliably is
// treated as binary) and errSkip returned; a stale file restarts the
// build.
func (e *env) loadRelated(it *item, t *trail) error {
	err := e.read(it)
	var se *staleError
	if errors.As(err, &se) {
		return err
	}
	if err != nil {
		t.exclude(it.path, ExcludeBinary, RedactPathExcluded, RedactReasonBinary, "unreadable, treated as binary: "+readProblem(err))
		return errSkip
	}
	return nil
}

// readProblem describes a read error without the absolute path the
// operating system puts in it: reports are independent of where the
// workspace lives.
func readProblem(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "the file no longer exists"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	case errors.Is(err, index.ErrNotIndexed):
		return "not in the index"
	case errors.Is(err, index.ErrNotRegular):
		// Swapped for a FIFO, a socket or a device since indexing:
		// never opened for a read that could block.
		return "not a regular file"
	}
	return "read error"
}

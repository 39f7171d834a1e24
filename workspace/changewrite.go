package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/workspace/change"
)

// writeChange writes an accepted change to disk. Every file is read again
// first: one that changed since the check (an editor saved it, another
// tool wrote it) rejects the whole change as CHANGE_STALE, and nothing is
// written. Then each new text goes to a temporary file beside its target,
// synced, and all are renamed over their targets (a file keeps its mode;
// a new file is 0644); deletions come last. A failure before the renames
// removes the temporary files and writes nothing.
func writeChange(rootReal string, files []checkedFile) *change.Rejection {
	for _, f := range files {
		data, _, err := index.ReadInRoot(rootReal, f.src.rel, MaxChangeFile, true)
		exists := err == nil
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return writeRejection(f.src.rel, err)
		}
		if exists != f.src.exists || exists && digest(data) != f.src.sha {
			return staleWrite(f.src.rel)
		}
	}
	root, err := os.OpenRoot(rootReal)
	if err != nil {
		return writeRejection("", err)
	}
	defer root.Close()
	type pending struct{ tmp, rel string }
	var done []pending
	cleanup := func() {
		for _, p := range done {
			_ = root.Remove(p.tmp)
		}
	}
	for i, f := range files {
		if f.out.Action == change.ActionDelete {
			continue
		}
		rel := filepath.FromSlash(f.src.rel)
		mode := f.src.mode
		if !f.src.exists || mode == 0 {
			mode = 0o644
		}
		if dir := filepath.Dir(rel); dir != "." {
			if err := root.MkdirAll(dir, 0o755); err != nil {
				cleanup()
				return writeRejection(f.src.rel, err)
			}
		}
		tmp := filepath.Join(filepath.Dir(rel), fmt.Sprintf(".%s.ctxd-%d-%d.tmp", filepath.Base(rel), os.Getpid(), i))
		if err := writeTempIn(root, tmp, f.out.After, mode); err != nil {
			_ = root.Remove(tmp)
			cleanup()
			return writeRejection(f.src.rel, err)
		}
		done = append(done, pending{tmp: tmp, rel: rel})
	}
	for _, p := range done {
		if err := root.Rename(p.tmp, p.rel); err != nil {
			cleanup()
			return writeRejection(filepath.ToSlash(p.rel), err)
		}
	}
	for _, f := range files {
		if f.out.Action == change.ActionDelete {
			if err := root.Remove(filepath.FromSlash(f.src.rel)); err != nil {
				return writeRejection(f.src.rel, err)
			}
		}
	}
	return nil
}

// writeTempIn writes data to a new file of root, synced, with mode (the
// umask does not narrow it: the target's mode is kept exactly).
func writeTempIn(root *os.Root, name string, data []byte, mode fs.FileMode) error {
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// staleWrite rejects a write whose file changed between the check and the
// write.
func staleWrite(rel string) *change.Rejection {
	return rejection(change.CodeStale, rel, fmt.Sprintf("%s changed on disk after the answer was checked; nothing was written", rel),
		"check the answer again (or build the context again): the file is not the one the change was checked against",
		fmt.Sprintf("%s changed while your change was being applied; make the change again against its current content.", rel))
}

// writeRejection reports a write that failed; nothing of the change is
// kept. The code is CHANGE_STALE: the files are not as they were checked
// to be, or cannot be made so.
func writeRejection(rel string, err error) *change.Rejection {
	what := "the change"
	if rel != "" {
		what = rel
	}
	return rejection(change.CodeStale, rel, fmt.Sprintf("writing %s failed (%v); nothing was written", what, err),
		"fix the file's permissions or free disk space, then check the answer again with --write",
		fmt.Sprintf("%s could not be written.", what))
}

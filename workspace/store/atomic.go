package store

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// tempSuffix ends every temp file name; Open removes leftovers by it and
// the .gitignore ignores it.
const tempSuffix = ".tmp"

// maxRenameAttempts bounds the retries of a write whose temp file vanished
// before its rename: another process's Open removed it as stale.
const maxRenameAttempts = 3

// errSimulatedCrash is returned when a test hook stops a write before its
// rename.
var errSimulatedCrash = errors.New("simulated crash before rename")

func isTemp(name string) bool { return strings.HasSuffix(name, tempSuffix) }

// WriteFileAtomic replaces the file at path with data, so that a reader
// (or a crash) sees either the old file or the new one, never a mix: it
// writes a temp file ".<base>.<random>.tmp" in the same directory, fsyncs
// it, renames it over path and fsyncs the directory. perm is the mode of
// the new file before the umask, as for [os.WriteFile]; an existing
// file's mode is not kept. The directory must exist.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	dir, base := filepath.Split(path)
	if base == "" || base == "." || base == ".." {
		return fmt.Errorf("writing %s: not a file name", path)
	}
	if dir == "" {
		dir = "."
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer r.Close()
	if err := writeAtomic(r, ".", base, "."+base+".", data, perm, nil); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// writeAtomic writes data to dir/base inside r through a temp file named
// tmpPrefix+<random>+".tmp" in dir. hook, when not nil, runs before the
// rename (tests simulate a crash with it).
func writeAtomic(r *os.Root, dir, base, tmpPrefix string, data []byte, perm os.FileMode, hook func(string) bool) error {
	final := filepath.Join(dir, base)
	for attempt := 1; ; attempt++ {
		tmp, err := writeTemp(r, dir, tmpPrefix, data, perm)
		if err != nil {
			return err
		}
		if hook != nil && hook(tmp) {
			return errSimulatedCrash
		}
		err = r.Rename(tmp, final)
		if err == nil {
			break
		}
		_ = r.Remove(tmp)
		if errors.Is(err, fs.ErrNotExist) && attempt < maxRenameAttempts {
			continue
		}
		return fmt.Errorf("renaming the temp file: %w", err)
	}
	return syncDir(r, dir)
}

// writeTemp creates a new temp file in dir, writes and fsyncs data, and
// returns its name relative to r. On error nothing is left behind.
func writeTemp(r *os.Root, dir, prefix string, data []byte, perm os.FileMode) (string, error) {
	var (
		name string
		f    *os.File
		err  error
	)
	// O_EXCL makes a name collision an error instead of a shared file;
	// with 128 random bits a retry is for robustness, not expectation.
	for range 10 {
		name = filepath.Join(dir, prefix+rand.Text()+tempSuffix)
		f, err = r.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return "", fmt.Errorf("creating a temp file: %w", err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = r.Remove(name)
		return "", fmt.Errorf("writing the temp file: %w", err)
	}
	return name, nil
}

// syncDir fsyncs a directory so that a rename in it survives a power
// loss. Windows cannot open a directory for syncing; NTFS journals the
// rename itself.
func syncDir(r *os.Root, dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := r.Open(dir)
	if err != nil {
		return fmt.Errorf("syncing the directory: %w", err)
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("syncing the directory: %w", err)
	}
	return nil
}

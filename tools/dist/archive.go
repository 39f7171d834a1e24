package main

import (
	"archive/tar"
	"archive/zip"
	"compress/flate"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Entry is one file or directory of an archive, as the archive stores it.
type Entry struct {
	// Name is the slash-separated path inside the archive; a directory's
	// name ends with "/".
	Name string
	// Mode is 0o755 for directories and executables, 0o644 otherwise.
	Mode fs.FileMode
	// Source is the file on disk the contents come from; empty for a directory.
	Source string
}

// Collect walks dir and returns its files and directories, sorted by name,
// each named prefix + "/" + its path relative to dir (prefix itself comes
// first, as a directory). Only the executable bits of the files' modes
// count; their owners and times are ignored. Symbolic links and other
// special files are refused: an archive holds regular files only.
func Collect(dir, prefix string) ([]Entry, error) {
	entries := []Entry{{Name: prefix + "/", Mode: fs.ModeDir | 0o755}}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return fmt.Errorf("relative path of %s: %w", p, err)
		}
		if rel == "." {
			return nil
		}
		name := prefix + "/" + filepath.ToSlash(rel)
		switch {
		case d.IsDir():
			entries = append(entries, Entry{Name: name + "/", Mode: fs.ModeDir | 0o755})
		case d.Type().IsRegular():
			info, err := d.Info()
			if err != nil {
				return fmt.Errorf("stat %s: %w", p, err)
			}
			mode := fs.FileMode(0o644)
			if info.Mode().Perm()&0o111 != 0 {
				mode = 0o755
			}
			entries = append(entries, Entry{Name: name, Mode: mode, Source: p})
		default:
			return fmt.Errorf("%s: not a regular file or directory (%s)", p, d.Type())
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("walk %s: %w", dir, err)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	return entries, nil
}

// WriteTarGz writes entries as a gzip-compressed tar to w: in the given
// order, every entry with modification time mtime, owner and group 0 with
// no names, and the gzip header without a file name or time, so that the
// same entries and contents always give the same bytes.
func WriteTarGz(w io.Writer, entries []Entry, mtime time.Time) error {
	gz, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return fmt.Errorf("gzip writer: %w", err)
	}
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		hdr := &tar.Header{
			Name:    e.Name,
			Mode:    int64(e.Mode.Perm()),
			ModTime: mtime.UTC().Truncate(time.Second),
			Format:  tar.FormatPAX,
		}
		if e.Mode.IsDir() {
			hdr.Typeflag = tar.TypeDir
			if err := tw.WriteHeader(hdr); err != nil {
				return fmt.Errorf("tar header of %s: %w", e.Name, err)
			}
			continue
		}
		data, err := os.ReadFile(e.Source)
		if err != nil {
			return fmt.Errorf("read %s: %w", e.Source, err)
		}
		hdr.Typeflag = tar.TypeReg
		hdr.Size = int64(len(data))
		if err := tw.WriteHeader(hdr); err != nil {
			return fmt.Errorf("tar header of %s: %w", e.Name, err)
		}
		if _, err := tw.Write(data); err != nil {
			return fmt.Errorf("tar contents of %s: %w", e.Name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("close tar: %w", err)
	}
	if err := gz.Close(); err != nil {
		return fmt.Errorf("close gzip: %w", err)
	}
	return nil
}

// WriteZip writes entries as a zip archive to w: in the given order, files
// deflated, every entry with modification time mtime and Unix modes, so
// that the same entries and contents always give the same bytes.
func WriteZip(w io.Writer, entries []Entry, mtime time.Time) error {
	zw := zip.NewWriter(w)
	zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(out, flate.BestCompression)
	})
	for _, e := range entries {
		hdr := &zip.FileHeader{Name: e.Name, Modified: mtime.UTC().Truncate(time.Second)}
		hdr.SetMode(e.Mode)
		if e.Mode.IsDir() {
			hdr.Method = zip.Store
			if _, err := zw.CreateHeader(hdr); err != nil {
				return fmt.Errorf("zip header of %s: %w", e.Name, err)
			}
			continue
		}
		hdr.Method = zip.Deflate
		data, err := os.ReadFile(e.Source)
		if err != nil {
			return fmt.Errorf("read %s: %w", e.Source, err)
		}
		fw, err := zw.CreateHeader(hdr)
		if err != nil {
			return fmt.Errorf("zip header of %s: %w", e.Name, err)
		}
		if _, err := fw.Write(data); err != nil {
			return fmt.Errorf("zip contents of %s: %w", e.Name, err)
		}
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("close zip: %w", err)
	}
	return nil
}

// WriteArchive archives dir into the file out, its entries under the
// directory named after dir's base name: a zip when out ends in ".zip", a
// gzip-compressed tar when it ends in ".tar.gz". The file is written
// next to out and renamed, so that out is never left half written.
func WriteArchive(out, dir string, mtime time.Time) error {
	prefix := path.Base(filepath.ToSlash(filepath.Clean(dir)))
	entries, err := Collect(dir, prefix)
	if err != nil {
		return err
	}
	var write func(io.Writer, []Entry, time.Time) error
	switch {
	case strings.HasSuffix(out, ".zip"):
		write = WriteZip
	case strings.HasSuffix(out, ".tar.gz"):
		write = WriteTarGz
	default:
		return fmt.Errorf("archive %s: the name must end in .zip or .tar.gz", out)
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), ".archive-*")
	if err != nil {
		return fmt.Errorf("create archive %s: %w", out, err)
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp, entries, mtime); err != nil {
		tmp.Close()
		return fmt.Errorf("archive %s: %w", out, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("chmod archive %s: %w", out, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("close archive %s: %w", out, err)
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		return fmt.Errorf("rename archive %s: %w", out, err)
	}
	return nil
}

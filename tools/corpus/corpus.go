// Package corpus finds the real-world corpus ctxd's benchmarks run on: the
// Go source tree that ships with the toolchain ($(go env GOROOT)/src, about
// 7,700 .go files), present on every machine that can build ctxd.
package corpus

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var (
	rootOnce sync.Once
	root     string
	rootErr  error
)

// GoSrc returns $(go env GOROOT)/src. It asks the go command rather than
// runtime.GOROOT, which names the root the test binary was built with.
func GoSrc() (string, error) {
	rootOnce.Do(func() {
		out, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			rootErr = fmt.Errorf("running go env GOROOT: %w", err)
			return
		}
		root = filepath.Join(strings.TrimSpace(string(out)), "src")
		if _, err := os.Stat(root); err != nil {
			rootErr = fmt.Errorf("go source tree: %w", err)
		}
	})
	return root, rootErr
}

// File is one corpus file.
type File struct {
	Path string // absolute
	Data []byte
}

// Files returns [GoFiles] for a benchmark or test, skipping it when the tree
// is absent so that no caller repeats the check.
func Files(tb testing.TB) []File {
	tb.Helper()
	files, err := GoFiles()
	if err != nil || len(files) == 0 {
		tb.Skipf("no Go source tree: %v", err)
	}
	return files
}

// ReadFile returns one file of the tree by its path relative to GoSrc
// ("net/http/server.go"), skipping tb when it cannot be read.
func ReadFile(tb testing.TB, rel string) []byte {
	tb.Helper()
	src, err := GoSrc()
	if err != nil {
		tb.Skipf("no Go source tree: %v", err)
	}
	data, err := os.ReadFile(filepath.Join(src, filepath.FromSlash(rel)))
	if err != nil {
		tb.Skipf("corpus file: %v", err)
	}
	return data
}

// GoFiles returns every .go file under GoSrc in walk (lexical) order;
// unreadable files are left out.
func GoFiles() ([]File, error) {
	src, err := GoSrc()
	if err != nil {
		return nil, err
	}
	var files []File
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		files = append(files, File{Path: p, Data: data})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("walking %s: %w", src, err)
	}
	return files, nil
}

// SkipDir names the directories a copy of a corpus leaves out (and indexbench never samples
// from): ctxd's own records (ctxd never indexes them either; a tree other
// benchmarks built in holds hundreds of MB of them) and the usual vendored
// or test-only trees, which make poor build targets.
func SkipDir(name string) bool {
	switch name {
	case ".ctxd", ".git", "node_modules":
		return true
	}
	return false
}

// CopyTree copies the regular files, directories and symbolic links under
// src to dst, keeping modes, except the directories SkipDir names. ctxd
// records every bundle it builds under .ctxd/ in the workspace, so a
// benchmark works on a copy rather than writing into the user's tree
// (GOROOT/src by default). A copy, not hard links: linking the
// toolchain's files would raise their link count, and every ctxd indexing
// that tree meanwhile would refuse them (sandbox.allow_hard_links).
func CopyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			if p != src && SkipDir(d.Name()) {
				return filepath.SkipDir
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			return os.MkdirAll(target, info.Mode().Perm()|0o700)
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case d.Type().IsRegular():
			info, err := d.Info()
			if err != nil {
				return err
			}
			return CopyFile(p, target, info.Mode().Perm())
		}
		return nil // sockets, devices: nothing a source tree needs
	})
}

// CopyFile copies the file src to dst, which must not exist, with mode.
func CopyFile(src, dst string, mode fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// Binary returns the absolute path of the ctxd binary a benchmark
// measures, or an error saying how to build it when it is not there.
func Binary(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(abs); err != nil {
		return "", fmt.Errorf("%w (build it with make build)", err)
	}
	return abs, nil
}

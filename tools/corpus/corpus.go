// Package corpus finds the real-world corpus ctxd's benchmarks run on: the
// Go source tree that ships with the toolchain ($(go env GOROOT)/src, about
// 7,700 .go files), present on every machine that can build ctxd.
package corpus

import (
	"fmt"
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

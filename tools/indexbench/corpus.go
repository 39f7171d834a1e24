package main

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// skipDir names the directories the harness never copies nor samples
// from: ctxd's own records (ctxd never indexes them either; a tree other
// benchmarks built in holds hundreds of MB of them) and the usual vendored
// or test-only trees, which make poor build targets.
func skipDir(name string) bool {
	switch name {
	case ".ctxd", ".git", "node_modules":
		return true
	}
	return false
}

// copyTree copies the regular files, directories and symbolic links under
// src to dst, keeping modes. ctxd records every bundle it builds under
// .ctxd/ in the workspace, so the harness works on a copy rather than
// writing into the user's tree (GOROOT/src by default); ctags and ctxd
// then read the same bytes from the same disk.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			if p != src && skipDir(d.Name()) {
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
			return copyFile(p, target, info.Mode().Perm())
		}
		return nil // sockets, devices: nothing a source tree needs
	})
}

func copyFile(src, dst string, mode fs.FileMode) error {
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

// sourceFile is a candidate found by scan.
type sourceFile struct {
	rel  string // slash-separated, relative to the root
	size int64
}

// scan lists the root's Go and TypeScript sources (tests, declaration
// files, testdata and vendored code left out), sorted by path.
func scan(root string) ([]sourceFile, error) {
	var out []sourceFile
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable corner of the tree is not a candidate
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (skipDir(name) || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		code := (strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go")) ||
			(strings.HasSuffix(name, ".ts") && !strings.HasSuffix(name, ".d.ts") && !strings.HasSuffix(name, ".test.ts"))
		if !code {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		out = append(out, sourceFile{rel: filepath.ToSlash(rel), size: info.Size()})
		return nil
	})
	slices.SortFunc(out, func(a, b sourceFile) int { return strings.Compare(a.rel, b.rel) })
	return out, err
}

// candidates draws build targets: files of ordinary size (4–48 KB, so
// that a whole-file bundle fits every budget measured) in a seeded order.
// The session keeps the first ones ctxd builds without refusing.
func candidates(files []sourceFile, seed uint64, n int) []string {
	var out []string
	for _, f := range files {
		if f.size >= 4<<10 && f.size <= 48<<10 {
			out = append(out, f.rel)
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0x696e646578))
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out[:min(n, len(out))]
}

// editFile is the buffer the didChange figures type into.
type editFile struct {
	rel       string // relative to the root; the buffer's URI is inside it
	text      string
	lines     int
	generated bool // not a file of the corpus: a buffer the harness wrote
}

// didChangeFile picks the corpus's Go file whose line count is closest
// to 5,000 (between 4,000 and 6,000, not generated code), ties by path;
// without one, a generated 5,000-line buffer at a path of the root that
// does not exist on disk.
func didChangeFile(root string, files []sourceFile) editFile {
	best, bestDiff := editFile{}, 1001
	for _, f := range files {
		// Go runs at roughly 20–40 bytes per line: only files of a
		// plausible size are read.
		if !strings.HasSuffix(f.rel, ".go") || f.size < 60<<10 || f.size > 400<<10 {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f.rel)))
		if err != nil || bytes.Contains(data[:min(len(data), 1024)], []byte("Code generated")) {
			continue
		}
		lines := bytes.Count(data, []byte("\n"))
		if d := abs(lines - 5000); d < bestDiff {
			best, bestDiff = editFile{rel: f.rel, text: string(data), lines: lines}, d
		}
	}
	if best.rel != "" {
		return best
	}
	var b strings.Builder
	b.WriteString("package ctxdbench\n\n")
	for i := range 999 { // five lines each, 4,997 with the header
		fmt.Fprintf(&b, "// step%d adds its index to x.\nfunc step%d(x int) int {\n\treturn x + %d\n}\n\n", i, i, i)
	}
	return editFile{rel: "ctxdbench/didchange.go", text: b.String(), lines: strings.Count(b.String(), "\n"), generated: true}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

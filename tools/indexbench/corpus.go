package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctxd/ctxd/tools/corpus"
)

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
			if p != root && (corpus.SkipDir(name) || name == "testdata" || name == "vendor") {
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

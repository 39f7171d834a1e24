package position

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// goSources loads the .go files of $(go env GOROOT)/src, the corpus every
// machine with a Go toolchain has. Benchmarks skip when it is absent.
func goSources(b *testing.B) [][]byte {
	b.Helper()
	root := filepath.Join(runtime.GOROOT(), "src")
	var files [][]byte
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		if data, err := os.ReadFile(p); err == nil {
			files = append(files, data)
		}
		return nil
	})
	if err != nil || len(files) == 0 {
		b.Skipf("no Go source tree at %s", root)
	}
	return files
}

// BenchmarkMapperCorpus maps the start and end of every line of every Go
// file in GOROOT/src to UTF-16 positions and back: the cost of converting
// selections and symbol ranges at the LSP boundary.
func BenchmarkMapperCorpus(b *testing.B) {
	files := goSources(b)
	var total int64
	for _, f := range files {
		total += int64(len(f))
	}
	b.SetBytes(total)
	b.ReportMetric(float64(len(files)), "files")
	b.ResetTimer()
	for b.Loop() {
		for _, f := range files {
			m := NewMapper(f, UTF16)
			for line := range m.LineCount() {
				p := Position{Line: uint32(line), Character: 1 << 20}
				if off := m.Offset(p); m.Position(off).Line != uint32(line) {
					b.Fatal("round trip moved a line end")
				}
			}
		}
	}
}

// BenchmarkTyping applies one-character insertions to the largest file of
// the corpus, the way an editor sends keystrokes.
func BenchmarkTyping(b *testing.B) {
	files := goSources(b)
	largest := files[0]
	for _, f := range files {
		if len(f) > len(largest) {
			largest = f
		}
	}
	b.ReportMetric(float64(len(largest)), "doc-bytes")
	content := largest
	n := NewMapper(content, UTF16).LineCount()
	i := 0
	b.ResetTimer()
	for b.Loop() {
		line := uint32((i * 7919) % n)
		r := Range{Start: Position{Line: line, Character: 4}, End: Position{Line: line, Character: 4}}
		next, err := ApplyChanges(content, UTF16, []Change{{Range: &r, Text: "x"}})
		if err != nil {
			b.Fatal(err)
		}
		content = next
		i++
	}
}

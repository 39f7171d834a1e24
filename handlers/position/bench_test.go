package position

import (
	"testing"

	"github.com/ctxd/ctxd/tools/corpus"
)

// goSources loads the .go files of $(go env GOROOT)/src. Benchmarks skip
// when the tree is absent.
func goSources(b *testing.B) [][]byte {
	b.Helper()
	files := corpus.Files(b)
	data := make([][]byte, len(files))
	for i, f := range files {
		data[i] = f.Data
	}
	return data
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
	// Reported after the loop: b.Loop resets user metrics when it starts.
	b.ReportMetric(float64(len(files)), "files")
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
	content := largest
	n := NewMapper(content, UTF16).LineCount()
	i := 0
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
	// Reported after the loop: b.Loop resets user metrics when it starts.
	b.ReportMetric(float64(len(largest)), "doc-bytes")
}

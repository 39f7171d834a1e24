package classify_test

import (
	"testing"

	"github.com/ctxd/ctxd/index/classify"
	"github.com/ctxd/ctxd/tools/corpus"
)

// BenchmarkDetect classifies every .go file of $(go env GOROOT)/src.
func BenchmarkDetect(b *testing.B) {
	files := corpus.Files(b)
	var total int64
	for _, f := range files {
		total += int64(len(f.Data))
	}
	b.SetBytes(total)
	binary := 0
	for b.Loop() {
		binary = 0
		for _, f := range files {
			if classify.Detect(f.Data).Binary {
				binary++
			}
		}
	}
	// Reported after the loop: b.Loop resets user metrics when it starts.
	b.ReportMetric(float64(len(files)), "files")
	b.ReportMetric(float64(binary), "binary")
}

// BenchmarkDecode1252 converts Windows-1252 text to UTF-8.
func BenchmarkDecode1252(b *testing.B) {
	data := []byte{}
	for len(data) < 1<<20 {
		data = append(data, "na\xEFve caf\xE9 \x93quoted\x94 plain ascii words here\n"...)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := classify.Decode(data, classify.Windows1252); err != nil {
			b.Fatal(err)
		}
	}
}

package syntax

import (
	"bytes"
	"context"
	"slices"
	"testing"
	"time"

	"github.com/ctxd/ctxd/tools/corpus"
)

// BenchmarkParseCorpus parses and extracts every .go file of
// $(go env GOROOT)/src on one goroutine. MB/s is the throughput; the
// tree-only benchmark below is the part tree-sitter itself takes.
func BenchmarkParseCorpus(b *testing.B) {
	files := corpus.Files(b)
	var total int64
	for _, f := range files {
		total += int64(len(f.Data))
	}
	b.SetBytes(total)
	ctx := context.Background()
	n := 0
	for b.Loop() {
		for _, f := range files {
			if _, err := Parse(ctx, Go, f.Data); err != nil {
				b.Fatal(err)
			}
		}
		n++
	}
	// Reported after the loop: b.Loop resets user metrics when it starts.
	b.ReportMetric(float64(n*len(files))/b.Elapsed().Seconds(), "files/s")
}

// BenchmarkParseCorpusTreeOnly parses every .go file of the corpus without
// extracting anything: the floor BenchmarkParseCorpus is compared with.
func BenchmarkParseCorpusTreeOnly(b *testing.B) {
	files := corpus.Files(b)
	var total int64
	for _, f := range files {
		total += int64(len(f.Data))
	}
	b.SetBytes(total)
	ctx := context.Background()
	s := specs[Go]
	n := 0
	for b.Loop() {
		for _, f := range files {
			tree, err := s.parse(ctx, nil, f.Data)
			if err != nil {
				b.Fatal(err)
			}
			tree.Close()
		}
		n++
	}
	b.ReportMetric(float64(n*len(files))/b.Elapsed().Seconds(), "files/s")
}

// BenchmarkDocEdit types into the corpus file closest to 5,000 lines:
// each operation inserts one character (or deletes the one inserted before,
// alternately, so the text stays the same) at a line start that moves
// through the file, and hands the edit to Doc.Edit. It reports the median
// and 99th percentile latency of Edit. "space" inserts a space, which keeps
// the file free of syntax errors; "letter" inserts an x, which often makes
// an error, and then Edit parses the text again from scratch.
func BenchmarkDocEdit(b *testing.B) {
	files := corpus.Files(b)
	best := files[0].Data
	dist := func(d []byte) int {
		n := bytes.Count(d, []byte{'\n'}) - 5000
		return max(n, -n)
	}
	for _, f := range files {
		if dist(f.Data) < dist(best) {
			best = f.Data
		}
	}
	for _, typed := range []string{" ", "x"} {
		name := map[string]string{" ": "space", "x": "letter"}[typed]
		b.Run(name, func(b *testing.B) {
			benchmarkTyping(b, best, typed)
		})
	}
}

func benchmarkTyping(b *testing.B, src []byte, typed string) {
	src = bytes.Clone(src)
	var starts []int // line starts
	for i := 0; i < len(src); i++ {
		if i == 0 || src[i-1] == '\n' {
			starts = append(starts, i)
		}
	}
	ctx := context.Background()
	d, err := NewDoc(ctx, Go, src)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { d.Close() }()
	if d.File().HasErrors {
		b.Fatal("the benchmark file has syntax errors")
	}
	var times []time.Duration
	i := 0
	for b.Loop() {
		pos := starts[(i/2*7919)%len(starts)]
		e := Edit{Start: pos, End: pos, Text: typed}
		if i%2 != 0 {
			e = Edit{Start: pos, End: pos + len(typed)}
		}
		t0 := time.Now()
		nd, err := d.Edit(ctx, []Edit{e})
		if err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(t0))
		d.Close()
		d = nd
		i++
	}
	slices.Sort(times)
	pct := func(p float64) float64 {
		return float64(times[int(p*float64(len(times)-1))].Microseconds())
	}
	// Reported after the loop: b.Loop resets user metrics when it starts.
	b.ReportMetric(pct(0.50), "p50-µs")
	b.ReportMetric(pct(0.99), "p99-µs")
	b.ReportMetric(float64(bytes.Count(src, []byte{'\n'})), "lines")
}

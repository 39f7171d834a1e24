package index

import (
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// brokenLines returns a Go file of 5,000 lines with a syntax error every
// 50 lines (an unclosed parameter list), the state of a file in the middle
// of a large edit: every parse of it is an incremental one followed by one
// from scratch (see syntax.Doc.Edit).
func brokenLines() []byte { return goLines(10) }

// BenchmarkChangeDocument is what a didChange costs the notification loop:
// one character typed into a 5,000-line file open in an index of the Go
// source tree, from the call to the published snapshot, p50 and p99,
// while the background parser reparses the document on the other
// processor. "broken" types into a file with syntax errors, whose parses
// are two to ten times slower; the change must not care. BenchmarkDidChange
// (graph=true) is the latency to an up-to-date relation graph, parse
// included.
func BenchmarkChangeDocument(b *testing.B) {
	x, err := benchIndex()
	if err != nil {
		b.Skip(err)
	}
	for _, tc := range []struct {
		name string
		text []byte
	}{{"clean", fiveThousandLines()}, {"broken", brokenLines()}} {
		b.Run(tc.name, func(b *testing.B) {
			ctx := testCtx(b)
			src := x.Snapshot().Roots()[0].Root.Dir
			uri := PathToURI(filepath.Join(src, "ctxdbench", "change_"+tc.name+".go"))
			x.OpenDocument(ctx, uri, "go", 1, tc.text)
			var lat []time.Duration
			v := int32(1)
			size := len(tc.text)
			for b.Loop() {
				v++
				// A keystroke that moves through the file, as in
				// syntax.BenchmarkDocEdit.
				pos := int(v) * 7919 % size
				start := time.Now()
				if _, err := x.ChangeDocument(ctx, uri, v, []Edit{{Start: pos, End: pos, Text: "x"}}); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
				size++
			}
			// The last version's extraction, so that the background
			// parser's work is part of the run.
			d, _ := x.Snapshot().Document(uri)
			d.Syntax()
			x.CloseDocument(ctx, uri)
			slices.Sort(lat)
			// Reported after the loop: b.Loop resets user metrics when it starts.
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
			b.ReportMetric(float64(len(x.Snapshot().Roots()[0].Paths())), "files")
		})
	}
}

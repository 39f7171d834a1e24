package index

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxd/ctxd/tools/corpus"
)

// BenchmarkColdIndex indexes the Go source tree without a cache: the
// figure a user waits for the first time ctxd opens a large repository.
// tools/indexbench measures the same through the binary, with peak RSS and
// ctags side by side.
func BenchmarkColdIndex(b *testing.B) {
	src, err := corpus.GoSrc()
	if err != nil {
		b.Skip(err)
	}
	var files int
	var bytes int64
	for b.Loop() {
		x := New(Options{CacheDir: "off"})
		x.SetRoots([]Root{{URI: PathToURI(src), Dir: src}})
		snap, err := x.Wait(testCtx(b))
		if err != nil {
			b.Fatal(err)
		}
		st := snap.Status(false)
		files, bytes = st.Roots[0].Files, st.Roots[0].Bytes
		x.Close()
	}
	perOp := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(float64(files)/perOp, "files/s")
	b.ReportMetric(float64(bytes)/1e6/perOp, "MB/s")
}

// benchIndex is one index of the Go source tree shared by the edit
// benchmarks, so that snapshots are as large as a real workspace's. It
// accepts hard links: toolchain installs may hard-link GOROOT's files,
// which the sandbox otherwise refuses, leaving an empty index.
var benchIndex = sync.OnceValues(func() (*Index, error) {
	src, err := corpus.GoSrc()
	if err != nil {
		return nil, err
	}
	x := New(Options{CacheDir: "off", HardLinks: func(string) bool { return true }})
	x.SetRoots([]Root{{URI: PathToURI(src), Dir: src}})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	_, err = x.Wait(ctx)
	return x, err
})

// fiveThousandLines returns a Go file of 5,000 lines.
func fiveThousandLines() []byte { return goLines(0) }

// goLines returns a Go file of 5,000 lines; with brokenEvery > 0, every
// brokenEvery-th function of its 999 lacks the ")" closing its parameter
// list: the state of a file in the middle of a large edit, whose every
// parse is an incremental one followed by one from scratch (see
// syntax.Doc.Edit).
func goLines(brokenEvery int) []byte {
	var sb strings.Builder
	sb.WriteString("package bench\n\n")
	for i := range 999 { // 5 lines each
		closing := ")"
		if brokenEvery > 0 && i%brokenEvery == 0 {
			closing = ""
		}
		fmt.Fprintf(&sb, "// F%d does little.\nfunc F%d(x int%s int {\n\treturn x + %d\n}\n\n", i, i, closing, i)
	}
	return []byte(sb.String())
}

// BenchmarkDidChange types one character at a time into a 5,000-line file
// open in an index of the Go source tree, and reports the latency from the
// change to the published snapshot, p50 and p99; the reparse runs in the
// background (BenchmarkChangeDocument measures the change alone). "graph"
// variants also bring the relation graph up to date, which the context
// builder needs, and so wait for the reparse.
func BenchmarkDidChange(b *testing.B) {
	x, err := benchIndex()
	if err != nil {
		b.Skip(err)
	}
	for _, withGraph := range []bool{false, true} {
		b.Run(fmt.Sprintf("graph=%v", withGraph), func(b *testing.B) {
			ctx := testCtx(b)
			src := x.Snapshot().Roots()[0].Root.Dir
			uri := PathToURI(filepath.Join(src, "ctxdbench", fmt.Sprintf("five_%v.go", withGraph)))
			text := fiveThousandLines()
			x.OpenDocument(ctx, uri, "go", 1, text)
			if withGraph {
				x.Snapshot().Roots()[0].Graph() // the first build is not an edit
			}
			mid := len(text) / 2
			var lat []time.Duration
			v := int32(1)
			for b.Loop() {
				v++
				start := time.Now()
				if _, err := x.ChangeDocument(ctx, uri, v, []Edit{{Start: mid, End: mid, Text: "x"}}); err != nil {
					b.Fatal(err)
				}
				if withGraph {
					x.Snapshot().Roots()[0].Graph()
				}
				lat = append(lat, time.Since(start))
			}
			x.CloseDocument(ctx, uri)
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
		})
	}
}

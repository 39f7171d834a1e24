package index

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// badlyBroken returns a Go buffer of about 43 KB that tree-sitter parses
// slowly from scratch (its error recovery runs through the whole file):
// os/exec/exec.go of GOROOT/src with every indented line opening "({["
// and every block's closing brace removed, as tools/indexbench builds it;
// nil when the file is not there.
func badlyBroken() []byte {
	data, err := os.ReadFile(filepath.Join(os.Getenv("GOROOT_SRC"), "os", "exec", "exec.go"))
	if err != nil {
		return nil
	}
	text := strings.ReplaceAll(strings.ReplaceAll(string(data), "\n\t", "\n\t({["), "}\n", "\n")
	if i := strings.LastIndexByte(text[:min(len(text), 43<<10)], '\n'); i > 0 {
		text = text[:i+1]
	}
	return []byte(text)
}

// BenchmarkSlowDocumentRequest is the index's part of a keystroke in a
// badly broken buffer followed by a request, as the status bar's
// ctxd.budget makes it: the change, the request's pin and view, and the
// buffer's extraction as the build reads it (p50, p99 per keystroke).
// Only APIs that predate the stale extraction, so that it runs on older
// trees too. GOROOT_SRC names GOROOT/src.
func BenchmarkSlowDocumentRequest(b *testing.B) {
	text := badlyBroken()
	if text == nil {
		b.Skip("GOROOT_SRC/os/exec/exec.go not found")
	}
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "exec.go"), text, 0o644); err != nil {
		b.Fatal(err)
	}
	x, _ := indexDir(b, dir, Options{CacheDir: "off"})
	ctx := testCtx(b)
	uri := PathToURI(filepath.Join(dir, "exec.go"))
	x.OpenDocument(ctx, uri, "go", 1, text)
	d, _ := x.Snapshot().Document(uri)
	d.Syntax() // the open's parse, not measured
	pos := len(text)/2 + strings.IndexByte(string(text[len(text)/2:]), '\n')
	var lat []time.Duration
	v := int32(1)
	for b.Loop() {
		v++
		start := time.Now()
		if _, err := x.ChangeDocument(ctx, uri, v, []Edit{{Start: pos, End: pos, Text: "x"}}); err != nil {
			b.Fatal(err)
		}
		pos++
		view := x.WithDocuments(ctx, x.Snapshot(), x.Pin())
		r, rel, _ := view.Locate(uri)
		f, _ := r.File(rel)
		f.Syntax()
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

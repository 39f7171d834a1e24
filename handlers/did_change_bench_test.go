package handlers

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/index/indextest"
)

// goLines returns a Go file of 5,000 lines; broken puts a syntax error (an
// unclosed parameter list) every 50 lines.
func goLines(broken bool) string {
	var sb strings.Builder
	sb.WriteString("package bench\n\n")
	for i := range 999 { // 5 lines each
		closing := ")"
		if broken && i%10 == 0 {
			closing = ""
		}
		fmt.Fprintf(&sb, "// F%d does little.\nfunc F%d(x int%s int {\n\treturn x + %d\n}\n\n", i, i, closing, i)
	}
	return sb.String()
}

// BenchmarkDidChange is the notification loop's cost of one
// textDocument/didChange on a 5,000-line Go file inside a workspace folder:
// decoding, position mapping (utf-16), the edit, the sha256 and the
// published snapshot, p50 and p99, while the background parser reparses
// the document on the other processor. It must not depend on whether the
// file has syntax errors: "broken" parses cost several times "clean"'s.
func BenchmarkDidChange(b *testing.B) {
	for _, broken := range []bool{false, true} {
		name := map[bool]string{false: "clean", true: "broken"}[broken]
		b.Run(name, func(b *testing.B) {
			text := goLines(broken)
			dir := indextest.WriteTree(b, "-- go.mod --\nmodule bench\n-- f.go --\n"+text)
			ctx := context.Background()
			s := newTestSession()
			b.Cleanup(func() { s.Index.Close() })
			s.Service.SetRoots([]index.Root{{URI: index.PathToURI(dir), Name: "bench", Dir: dir}})
			if _, err := s.Index.Wait(ctx); err != nil {
				b.Fatal(err)
			}
			uri := index.PathToURI(filepath.Join(dir, "f.go"))
			open, _ := json.Marshal(map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "go", "version": 1, "text": text}})
			if err := DidOpen(ctx, s, open); err != nil {
				b.Fatal(err)
			}
			lines := strings.Count(text, "\n")
			var lat []time.Duration
			v := 1
			for b.Loop() {
				v++
				line := v * 7919 % lines
				raw, _ := json.Marshal(map[string]any{
					"textDocument":   map[string]any{"uri": uri, "version": v},
					"contentChanges": []any{rangeChange(line, 1, line, 1, "x")},
				})
				start := time.Now()
				if err := DidChange(ctx, s, raw); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
			}
			d, _ := s.Index.Snapshot().Document(uri)
			d.Syntax() // the background parser's work is part of the run
			slices.Sort(lat)
			// Reported after the loop: b.Loop resets user metrics when it starts.
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
		})
	}
}

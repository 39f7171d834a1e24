package framing_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/server/framing"
)

// BenchmarkReadDidOpen reads one textDocument/didOpen frame per .go file of
// $(go env GOROOT)/src: the traffic of an editor opening the whole Go tree.
// It reports MB/s of framed input.
func BenchmarkReadDidOpen(b *testing.B) {
	root := filepath.Join(runtime.GOROOT(), "src")
	var input bytes.Buffer
	files := 0
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		text, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": map[string]any{
			"textDocument": map[string]any{"uri": "file://" + p, "languageId": "go", "version": 1, "text": string(text)},
		}})
		input.WriteString("Content-Length: ")
		input.WriteString(strconv.Itoa(len(body)))
		input.WriteString("\r\n\r\n")
		input.Write(body)
		files++
		return nil
	})
	if files == 0 {
		b.Skipf("no Go source tree at %s", root)
	}
	data := input.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportMetric(float64(files), "frames/op")
	ctx := context.Background()
	for b.Loop() {
		s := framing.NewStream(&fakeConn{r: bytes.NewReader(data)}, framing.Options{Logger: discardLogger})
		for range files {
			if _, _, err := s.Read(ctx); err != nil {
				b.Fatal(err)
			}
		}
	}
}

package framing_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/ctxd/ctxd/server/framing"
	"github.com/ctxd/ctxd/tools/corpus"
)

// BenchmarkReadDidOpen reads one textDocument/didOpen frame per .go file of
// $(go env GOROOT)/src: the traffic of an editor opening the whole Go tree.
// It reports MB/s of framed input.
func BenchmarkReadDidOpen(b *testing.B) {
	corpusFiles := corpus.Files(b)
	var input bytes.Buffer
	files := len(corpusFiles)
	for _, f := range corpusFiles {
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": map[string]any{
			"textDocument": map[string]any{"uri": "file://" + f.Path, "languageId": "go", "version": 1, "text": string(f.Data)},
		}})
		input.WriteString("Content-Length: ")
		input.WriteString(strconv.Itoa(len(body)))
		input.WriteString("\r\n\r\n")
		input.Write(body)
	}
	data := input.Bytes()
	b.SetBytes(int64(len(data)))
	ctx := context.Background()
	for b.Loop() {
		s := framing.NewStream(&fakeConn{r: bytes.NewReader(data)}, framing.Options{Logger: discardLogger})
		for range files {
			if _, _, err := s.Read(ctx); err != nil {
				b.Fatal(err)
			}
		}
	}
	// Reported after the loop: b.Loop resets user metrics when it starts.
	b.ReportMetric(float64(files), "frames/op")
}

package server

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/contextbuilder/cbtest"
)

// TestCheckChangeOverLSP: ctxd.checkChange checks an answer against the
// editor's buffer (not the disk), and its WorkspaceEdit carries the open
// document's version and ranges in the negotiated encoding (UTF-16 here,
// with a non-ASCII line before the change), so an editor applies it as
// it comes. A rejection is a result, not an error.
func TestCheckChangeOverLSP(t *testing.T) {
	h, _ := newBuildHarness(t, buildWorkspace, "utf-16")
	buffer := strings.Replace(storeBuffer, "// Store keeps items.", "// Store keeps items — “all of them”.", 1)
	h.open("store/store.go", buffer)
	h.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": h.uri("store/store.go"), "version": 2},
		"contentChanges": []any{map[string]any{"text": buffer}},
	})
	// The Put method is only in the buffer: a check against the disk
	// would not find it.
	answer := "--- a/store/store.go\n+++ b/store/store.go\n@@ @@\n // Put stores an item. BUFFER_ONE\n-func (s *Store) Put(name string, n int) { s.items[name] = n }\n+func (s *Store) Put(name string, n int) { s.items[name] += n }\n"
	m := h.command("ctxd.checkChange", map[string]any{"answer": answer})
	if m.Error != nil {
		t.Fatalf("checkChange: %v", m.Error)
	}
	cbtest.ValidateValue(t, "check_change_result.schema.json", m.Result)
	var res struct {
		Status string `json:"status"`
		Edit   struct {
			DocumentChanges []struct {
				TextDocument struct {
					URI     string `json:"uri"`
					Version *int   `json:"version"`
				} `json:"textDocument"`
				Edits []struct {
					Range struct {
						Start struct{ Line, Character int } `json:"start"`
						End   struct{ Line, Character int } `json:"end"`
					} `json:"range"`
					NewText string `json:"newText"`
				} `json:"edits"`
			} `json:"documentChanges"`
		} `json:"edit"`
	}
	if err := json.Unmarshal(m.Result, &res); err != nil {
		t.Fatal(err)
	}
	if res.Status != "accepted" || len(res.Edit.DocumentChanges) != 1 {
		t.Fatalf("verdict %s", m.Result)
	}
	dc := res.Edit.DocumentChanges[0]
	if dc.TextDocument.URI != h.uri("store/store.go") || dc.TextDocument.Version == nil || *dc.TextDocument.Version != 2 {
		t.Errorf("document %+v, want the open document at version 2", dc.TextDocument)
	}
	// Apply the edits to the buffer in UTF-16 units, as an editor does.
	lines := strings.SplitAfter(buffer, "\n")
	for i := len(dc.Edits) - 1; i >= 0; i-- {
		e := dc.Edits[i]
		start := offsetUTF16(lines, e.Range.Start.Line, e.Range.Start.Character)
		end := offsetUTF16(lines, e.Range.End.Line, e.Range.End.Character)
		buffer = buffer[:start] + e.NewText + buffer[end:]
		lines = strings.SplitAfter(buffer, "\n")
	}
	want := strings.Replace(strings.Replace(storeBuffer, "// Store keeps items.", "// Store keeps items — “all of them”.", 1), "s.items[name] = n", "s.items[name] += n", 1)
	if diff := cmp.Diff(want, buffer); diff != "" {
		t.Errorf("buffer after the edit (-want +got):\n%s", diff)
	}

	rej := h.command("ctxd.checkChange", map[string]any{"answer": strings.ReplaceAll(answer, "BUFFER_ONE", "BUFFER_TWO")})
	if rej.Error != nil || !strings.Contains(string(rej.Result), `"CHANGE_CONTEXT_MISMATCH"`) {
		t.Errorf("a wrong context: error %v, result %s", rej.Error, rej.Result)
	}
	if bad := h.command("ctxd.checkChange", map[string]any{"answer": answer, "extra": 1}); errCode(bad) != -32602 {
		t.Errorf("an unknown field: %v", bad.Error)
	}
}

// offsetUTF16 is the byte offset of an LSP position counted in UTF-16
// units.
func offsetUTF16(lines []string, line, char int) int {
	off := 0
	for _, l := range lines[:line] {
		off += len(l)
	}
	units := 0
	for i, r := range lines[line] {
		if units >= char {
			return off + i
		}
		units++
		if r > 0xFFFF {
			units++
		}
	}
	return off + len(lines[line])
}

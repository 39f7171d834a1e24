package server

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/index/indextest"
	"github.com/ctxd/ctxd/server/lsptest"
	"github.com/google/go-cmp/cmp"
)

const indexedWorkspace = `
-- go.mod --
module example.com/shop
-- store/store.go --
package store

// Store keeps items.
type Store struct {
	items map[string]int
}

// Get returns an item.
func (s *Store) Get(name string) int { return s.items[name] }

func NewStore() *Store { return &Store{} }
-- api/handler.ts --
export class Handler {
  handle(): void {}
}
-- .env --
TOKEN=abc
`

type symbolInfo struct {
	Name, ContainerName string
	Kind                int
	Location            struct {
		URI   string
		Range json.RawMessage
	}
}

func TestIndexOverLSP(t *testing.T) {
	dir := indextest.WriteTree(t, indexedWorkspace)
	uri := func(rel string) string { return index.PathToURI(filepath.Join(dir, rel)) }
	h := newHarness(t)
	m := h.call(1, "initialize", map[string]any{
		"processId":        nil,
		"workspaceFolders": []map[string]any{{"uri": index.PathToURI(dir), "name": "shop"}},
		"capabilities": map[string]any{
			"window":    map[string]any{"workDoneProgress": true},
			"workspace": map[string]any{"didChangeWatchedFiles": map[string]any{"dynamicRegistration": true}},
		},
	})
	if m.Error != nil {
		t.Fatal(m.Error)
	}
	var init struct {
		Capabilities struct {
			DocumentSymbolProvider  bool
			WorkspaceSymbolProvider bool
		}
	}
	json.Unmarshal(m.Result, &init)
	if !init.Capabilities.DocumentSymbolProvider || !init.Capabilities.WorkspaceSymbolProvider {
		t.Errorf("capabilities = %s", m.Result)
	}
	h.notify("initialized", map[string]any{})

	// workspace/symbol waits for the scan, then answers in order.
	m = h.call(2, "workspace/symbol", map[string]any{"query": "store"})
	var syms []symbolInfo
	if err := json.Unmarshal(m.Result, &syms); err != nil || m.Error != nil {
		t.Fatalf("workspace/symbol: %v %v", err, m.Error)
	}
	var got []string
	for _, s := range syms {
		got = append(got, s.Name+"@"+strings.TrimPrefix(s.Location.URI, index.PathToURI(dir)+"/"))
	}
	if diff := cmp.Diff([]string{"Store@store/store.go", "NewStore@store/store.go"}, got); diff != "" {
		t.Errorf("workspace/symbol (-want +got):\n%s", diff)
	}

	// Indexing reported progress, and the watcher was registered.
	if _, err := h.c.WaitNotification(h.ctx, "$/progress", func(n *lsptest.Message) bool {
		return strings.Contains(string(n.Params), `"kind":"end"`)
	}); err != nil {
		t.Fatal(err)
	}
	methods := map[string]bool{}
	for _, r := range h.c.ServerRequests() {
		methods[r.Method] = true
	}
	if !methods["window/workDoneProgress/create"] || !methods["client/registerCapability"] {
		t.Errorf("server requests = %v", methods)
	}

	// documentSymbol is hierarchical and in UTF-16 of the open buffer.
	h.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri("api/handler.ts"), "languageId": "typescript", "version": 1,
		"text": "// héllo 😀\nexport class Handler {\n  handle(): void {}\n  other(): void {}\n}\n",
	}})
	m = h.call(3, "textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri("api/handler.ts")}})
	var doc []struct {
		Name     string
		Range    struct{ Start, End struct{ Line, Character int } }
		Children []struct{ Name string }
	}
	if err := json.Unmarshal(m.Result, &doc); err != nil || m.Error != nil {
		t.Fatalf("documentSymbol: %v %v", err, m.Error)
	}
	if len(doc) != 1 || doc[0].Name != "Handler" || len(doc[0].Children) != 2 || doc[0].Children[1].Name != "other" || doc[0].Range.Start.Line != 1 {
		t.Errorf("documentSymbol = %s", m.Result)
	}

	// A file created on disk is indexed after the watcher's event.
	os.WriteFile(filepath.Join(dir, "store", "cache.go"), []byte("package store\n\nfunc Warm() {}\n"), 0o644)
	h.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []map[string]any{{"uri": uri("store/cache.go"), "type": 1}}})
	m = h.call(4, "workspace/symbol", map[string]any{"query": "Warm"})
	if !strings.Contains(string(m.Result), "store/cache.go") {
		t.Errorf("new file not found: %s", m.Result)
	}

	// Status carries the index summary, never .env.
	st := h.call(5, "workspace/executeCommand", map[string]any{"command": "ctxd.indexStatus", "arguments": []any{map[string]any{"skipped": true}}})
	var res struct {
		Index index.Status
	}
	if err := json.Unmarshal(st.Result, &res); err != nil || st.Error != nil {
		t.Fatalf("indexStatus: %v %v", err, st.Error)
	}
	r := res.Index.Roots[0]
	if r.Files != 4 || r.FilesByLanguage["go"] != 2 || r.SkippedByReason["deny_rule"] != 1 || r.OpenFiles != 1 || res.Index.State != index.StateReady {
		t.Errorf("index status = %s", st.Result)
	}
	if strings.Contains(string(st.Result), "TOKEN") {
		t.Error("status leaks file contents")
	}

	// A folder added later is indexed; a removed one disappears.
	other := indextest.WriteTree(t, "-- lib/extra.py --\ndef extra_helper():\n    pass\n")
	h.notify("workspace/didChangeWorkspaceFolders", map[string]any{"event": map[string]any{
		"added": []map[string]any{{"uri": index.PathToURI(other), "name": "other"}}, "removed": []any{},
	}})
	m = h.call(7, "workspace/symbol", map[string]any{"query": "extra_helper"})
	if !strings.Contains(string(m.Result), "lib/extra.py") {
		t.Errorf("symbol of the added folder not found: %s", m.Result)
	}
	h.notify("workspace/didChangeWorkspaceFolders", map[string]any{"event": map[string]any{
		"added": []any{}, "removed": []map[string]any{{"uri": index.PathToURI(other), "name": "other"}},
	}})
	m = h.call(8, "workspace/symbol", map[string]any{"query": "extra_helper"})
	if string(m.Result) != "[]" {
		t.Errorf("symbol of the removed folder still found: %s", m.Result)
	}

	// Bad watched-file params name the field.
	h.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []map[string]any{{"uri": uri("x"), "type": 9}}})
	h.status(6)
}

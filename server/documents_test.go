package server

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/index/indextest"
	"github.com/ctxd/ctxd/server/lsptest"
	"github.com/ctxd/ctxd/workspace"
	"github.com/google/go-cmp/cmp"
)

const docURI = "file:///work/ws/main.go"

func rng(l1, c1, l2, c2 int) map[string]any {
	return map[string]any{"start": map[string]any{"line": l1, "character": c1}, "end": map[string]any{"line": l2, "character": c2}}
}

func open(h *harness, uri string, version int, text string) {
	h.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "go", "version": version, "text": text}})
}

func change(h *harness, uri string, version int, changes ...map[string]any) {
	h.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": version}, "contentChanges": changes})
}

func content(h *harness, uri string) any {
	h.t.Helper()
	m := h.call("content", "test/content", map[string]any{"uri": uri})
	if m.Error != nil {
		h.t.Fatal(m.Error)
	}
	var v any
	if err := json.Unmarshal(m.Result, &v); err != nil {
		h.t.Fatal(err)
	}
	return v
}

func TestDocumentSync(t *testing.T) {
	tests := []struct {
		name     string
		encoding string
		steps    func(h *harness)
		want     any // content of docURI, nil when not open
	}{
		{
			name:  "open",
			steps: func(h *harness) { open(h, docURI, 1, "package main\n") },
			want:  "package main\n",
		},
		{
			name: "incremental then full then incremental in one notification",
			steps: func(h *harness) {
				open(h, docURI, 1, "abc\ndef\n")
				change(h, docURI, 2,
					map[string]any{"range": rng(0, 1, 0, 2), "text": "X"},
					map[string]any{"text": "full\nreplace\n"},
					map[string]any{"range": rng(1, 0, 1, 7), "text": "done"},
				)
			},
			want: "full\ndone\n",
		},
		{
			name: "full change is not an insert at 0:0",
			steps: func(h *harness) {
				open(h, docURI, 1, "old text")
				change(h, docURI, 2, map[string]any{"text": "new"})
			},
			want: "new",
		},
		{
			name: "utf-16 surrogate pairs and CRLF",
			steps: func(h *harness) {
				open(h, docURI, 1, "a😀b\r\né中x\r\n")
				// 😀 is two UTF-16 units: character 3 is just after it.
				change(h, docURI, 2, map[string]any{"range": rng(0, 3, 1, 2), "text": "-"})
			},
			want: "a😀-x\r\n",
		},
		{
			name:     "utf-8 offsets when negotiated",
			encoding: "utf-8",
			steps: func(h *harness) {
				open(h, docURI, 1, "é中x\n")
				// é is 2 bytes, 中 is 3: byte 5 is before x.
				change(h, docURI, 2, map[string]any{"range": rng(0, 2, 0, 5), "text": "_"})
			},
			want: "é_x\n",
		},
		{
			name: "out of range positions are clamped",
			steps: func(h *harness) {
				open(h, docURI, 1, "ab\ncd")
				change(h, docURI, 2, map[string]any{"range": rng(0, 99, 7, 0), "text": "!"})
			},
			want: "ab!",
		},
		{
			name: "stale version is ignored",
			steps: func(h *harness) {
				open(h, docURI, 5, "v5")
				change(h, docURI, 4, map[string]any{"text": "v4"})
			},
			want: "v5",
		},
		{
			name: "change of an unopened document is ignored",
			steps: func(h *harness) {
				change(h, docURI, 2, map[string]any{"text": "ghost"})
			},
			want: nil,
		},
		{
			name: "change without text is rejected whole",
			steps: func(h *harness) {
				open(h, docURI, 1, "keep")
				change(h, docURI, 2, map[string]any{"text": "x"}, map[string]any{"range": rng(0, 0, 0, 1)})
			},
			want: "keep",
		},
		{
			name: "close forgets the buffer",
			steps: func(h *harness) {
				open(h, docURI, 1, "x")
				h.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": docURI}})
			},
			want: nil,
		},
		{
			name: "reopen replaces",
			steps: func(h *harness) {
				open(h, docURI, 1, "first")
				open(h, docURI, 1, "second")
			},
			want: "second",
		},
		{
			name: "uri spellings are normalized",
			steps: func(h *harness) {
				open(h, "file:///work/ws/a%20b.go", 1, "x")
				change(h, "file:///work/ws/a b.go", 2, map[string]any{"text": "y"})
				open(h, docURI, 1, "z")
			},
			want: "z",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, withContentRequest)
			caps := map[string]any{}
			if tt.encoding != "" {
				caps["general"] = map[string]any{"positionEncodings": []string{tt.encoding}}
			}
			h.initialize(caps)
			tt.steps(h)
			if diff := cmp.Diff(tt.want, content(h, docURI)); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOutOfSyncDocument(t *testing.T) {
	h := newHarness(t, withContentRequest)
	h.initialize(nil)
	open(h, docURI, 1, "abc")
	// An inverted range cannot be applied: the buffer is out of sync.
	change(h, docURI, 2, map[string]any{"range": rng(0, 2, 0, 1), "text": "x"})
	msg, err := h.c.WaitNotification(h.ctx, "window/showMessage", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(msg.Params), "out of sync") {
		t.Errorf("showMessage = %s, want it to say the document is out of sync", msg.Params)
	}
	st := h.status(3)
	if len(st.OpenDocuments) != 1 || !st.OpenDocuments[0].OutOfSync || st.OpenDocuments[0].Version != 2 {
		t.Fatalf("status after failed change = %+v, want one out-of-sync document at version 2", st.OpenDocuments)
	}
	// Incremental changes cannot repair it; a full change does.
	change(h, docURI, 3, map[string]any{"range": rng(0, 0, 0, 0), "text": "y"})
	if st := h.status(4); !st.OpenDocuments[0].OutOfSync {
		t.Fatal("incremental change repaired an out-of-sync document")
	}
	change(h, docURI, 4, map[string]any{"range": rng(0, 0, 0, 0), "text": "lost"}, map[string]any{"text": "fresh"}, map[string]any{"range": rng(0, 5, 0, 5), "text": "!"})
	if got := content(h, docURI); got != "fresh!" {
		t.Errorf("content after repair = %q, want %q", got, "fresh!")
	}
	if st := h.status(5); st.OpenDocuments[0].OutOfSync {
		t.Error("full change did not repair the document")
	}
}

func TestSaveAndStatus(t *testing.T) {
	h := newHarness(t)
	h.initialize(nil)
	open(h, docURI, 1, "package main\n\nfunc main() {}\n")
	h.notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": docURI}})
	got := h.status(2).OpenDocuments
	want := []workspace.OpenDocument{{
		URI: docURI, LanguageID: "go", Version: 1, ByteSize: 29, LineCount: 4,
		SHA256: fmt.Sprintf("%x", sha256.Sum256([]byte("package main\n\nfunc main() {}\n"))), Saved: true,
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("open documents (-want +got):\n%s", diff)
	}
}

func TestWorkspaceFolders(t *testing.T) {
	h := newHarness(t)
	m := h.call(1, "initialize", map[string]any{"capabilities": map[string]any{}, "rootUri": "file:///ignored",
		"workspaceFolders": []any{map[string]any{"uri": "file:///b", "name": "b"}, map[string]any{"uri": "file:///a", "name": "a"}}})
	if m.Error != nil {
		t.Fatal(m.Error)
	}
	h.notify("workspace/didChangeWorkspaceFolders", map[string]any{"event": map[string]any{
		"added":   []any{map[string]any{"uri": "file:///c", "name": "c"}, map[string]any{"uri": "file:///a", "name": "a"}},
		"removed": []any{map[string]any{"uri": "file:///b", "name": "b"}},
	}})
	want := []workspace.Folder{{URI: "file:///a", Name: "a"}, {URI: "file:///c", Name: "c"}}
	if diff := cmp.Diff(want, h.status(2).WorkspaceFolders); diff != "" {
		t.Errorf("folders (-want +got):\n%s", diff)
	}
}

func TestRootURIBecomesFolder(t *testing.T) {
	h := newHarness(t)
	h.initialize(nil)
	want := []workspace.Folder{{URI: "file:///work/ws", Name: "ws"}}
	if diff := cmp.Diff(want, h.status(2).WorkspaceFolders); diff != "" {
		t.Errorf("folders (-want +got):\n%s", diff)
	}
}

func TestProgressAndMessages(t *testing.T) {
	h := newHarness(t)
	h.initialize(map[string]any{"window": map[string]any{"workDoneProgress": true}})
	s := h.srv.Session()
	p := s.StartProgress(h.ctx, "Indexing", "scanning")
	if p == nil {
		t.Fatal("StartProgress returned nil although the client supports progress")
	}
	p.Report(h.ctx, "half", 50)
	p.End(h.ctx, "done")
	s.LogMessage(h.ctx, 3, "log line")
	s.ShowMessage(h.ctx, 2, "shown")
	if _, err := h.c.WaitNotification(h.ctx, "window/showMessage", nil); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, n := range h.c.Notifications() {
		switch n.Method {
		case "$/progress":
			var pp struct {
				Token string
				Value struct {
					Kind, Title, Message string
					Percentage           int
				}
			}
			if err := json.Unmarshal(n.Params, &pp); err != nil {
				t.Fatal(err)
			}
			kinds = append(kinds, pp.Token+" "+pp.Value.Kind+" "+pp.Value.Title+pp.Value.Message)
		case "window/logMessage", "window/showMessage":
			kinds = append(kinds, n.Method+" "+string(n.Params))
		}
	}
	want := []string{
		"ctxd/1 begin Indexingscanning",
		"ctxd/1 report half",
		"ctxd/1 end done",
		`window/logMessage {"message":"log line","type":3}`,
		`window/showMessage {"message":"shown","type":2}`,
	}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("notifications (-want +got):\n%s", diff)
	}
	reqs := h.c.ServerRequests()
	if len(reqs) != 1 || reqs[0].Method != "window/workDoneProgress/create" || string(reqs[0].Params) != `{"token":"ctxd/1"}` {
		t.Errorf("server requests = %v, want one workDoneProgress/create", reqs)
	}
}

func TestProgressWithoutClientSupport(t *testing.T) {
	h := newHarness(t)
	h.initialize(nil)
	if p := h.srv.Session().StartProgress(h.ctx, "Indexing", ""); p != nil {
		t.Fatal("StartProgress returned a progress although the client did not announce support")
	}
	h.status(2)
	if reqs := h.c.ServerRequests(); len(reqs) != 0 {
		t.Errorf("server sent requests %v", reqs)
	}
}

func TestProgressRefusedByClient(t *testing.T) {
	h := newHarness(t)
	h.c.AnswerServerRequest = func(*lsptest.Message) (any, *lsptest.WireError) {
		return nil, &lsptest.WireError{Code: -32603, Message: "no"}
	}
	h.initialize(map[string]any{"window": map[string]any{"workDoneProgress": true}})
	if p := h.srv.Session().StartProgress(h.ctx, "Indexing", ""); p != nil {
		t.Fatal("StartProgress returned a progress the client refused")
	}
}

// TestIncrementalEditsOverLSP types into an open document with
// incremental changes (UTF-16 ranges over multi-byte text, several changes
// per notification, an error made and fixed) and checks that the buffer is
// the edited text and that documentSymbol answers exactly what it answers
// for a fresh open of that text: the index's incremental reparse is
// invisible on the wire. A save moves nothing in the index's status.
func TestIncrementalEditsOverLSP(t *testing.T) {
	dir := indextest.WriteTree(t, "-- go.mod --\nmodule example.com/m\n-- a.go --\npackage m\n")
	uri := index.PathToURI(filepath.Join(dir, "a.go"))
	h := newHarness(t, withContentRequest)
	if m := h.call(1, "initialize", map[string]any{"processId": nil, "capabilities": map[string]any{},
		"workspaceFolders": []map[string]any{{"uri": index.PathToURI(dir), "name": "m"}}}); m.Error != nil {
		t.Fatal(m.Error)
	}
	h.notify("initialized", map[string]any{})
	symbols := func(id int) string {
		t.Helper()
		m := h.call(id, "textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}})
		if m.Error != nil {
			t.Fatal(m.Error)
		}
		return string(m.Result)
	}

	open(h, uri, 1, "package m\n\n// 😀 Alpha é.\nfunc Alpha() {}\n")
	change(h, uri, 2, map[string]any{"range": rng(3, 5, 3, 10), "text": "Ä"}) // func Ä() {}
	change(h, uri, 3,
		// After "😀 " (three UTF-16 units), then in the text that left.
		map[string]any{"range": rng(2, 6, 2, 11), "text": "Ä"},
		map[string]any{"range": rng(4, 0, 4, 0), "text": "\ntype T struct {\n\tX int\n"}, // an unclosed struct: an error
	)
	change(h, uri, 4, map[string]any{"range": rng(7, 0, 7, 0), "text": "}\n\nfunc (t T) M😀() {}\n"})
	change(h, uri, 5, map[string]any{"range": rng(9, 12, 9, 14), "text": "e"}) // M😀 → Me
	want := "package m\n\n// 😀 Ä é.\nfunc Ä() {}\n\ntype T struct {\n\tX int\n}\n\nfunc (t T) Me() {}\n"
	if got := content(h, uri); got != want {
		t.Fatalf("content = %q, want %q", got, want)
	}
	incremental := symbols(10)

	h.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
	open(h, uri, 6, want)
	if fresh := symbols(11); fresh != incremental {
		t.Errorf("documentSymbol after incremental edits:\n%s\nafter a fresh open of the same text:\n%s", incremental, fresh)
	}
	if !strings.Contains(incremental, `"name":"Me"`) || !strings.Contains(incremental, `"name":"X"`) {
		t.Errorf("documentSymbol = %s; want Me and X among the symbols", incremental)
	}

	before := mustMarshal(t, h.status(12).Index)
	h.notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": uri}})
	st := h.status(13)
	if after := mustMarshal(t, st.Index); after != before {
		t.Errorf("didSave changed the index status:\n%s\n%s", before, after)
	}
	if len(st.OpenDocuments) != 1 || !st.OpenDocuments[0].Saved || st.OpenDocuments[0].Version != 6 {
		t.Errorf("open documents after save = %+v", st.OpenDocuments)
	}
}

func mustMarshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

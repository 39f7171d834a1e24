package handlers

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/ctxd/ctxd/handlers/position"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/index/buffer"
	"github.com/ctxd/ctxd/index/syntax"
	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/protocol"
)

// recordingClient records the notifications a handler sends.
type recordingClient struct {
	mu    sync.Mutex
	shown []string
}

func (c *recordingClient) Notify(_ context.Context, method string, params any) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p, ok := params.(*protocol.ShowMessageParams); ok && method == protocol.MethodWindowShowMessage {
		c.shown = append(c.shown, fmt.Sprintf("%v %s", p.Type, p.Message))
	}
	return nil
}

func (c *recordingClient) Call(context.Context, string, any, any) error { return nil }

func (c *recordingClient) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.shown
	c.shown = nil
	return s
}

// rangeChange and fullChange build contentChanges entries.
func rangeChange(l1, c1, l2, c2 int, text string) map[string]any {
	return map[string]any{"range": map[string]any{
		"start": map[string]any{"line": l1, "character": c1},
		"end":   map[string]any{"line": l2, "character": c2},
	}, "text": text}
}

func fullChange(text string) map[string]any { return map[string]any{"text": text} }

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDidChangeEdits checks the conversion of LSP content changes to the
// byte edits the index receives: positions in the negotiated encoding,
// each change against the text the previous one left, clamping, and the
// rules for inverted ranges and out-of-sync documents.
func TestDidChangeEdits(t *testing.T) {
	tests := []struct {
		name      string
		text      string
		outOfSync bool
		enc       position.Encoding
		changes   []map[string]any
		want      []index.Edit
	}{
		{
			name: "utf-16: a surrogate pair is two units", text: "a😀b\r\né中x\r\n", enc: position.UTF16,
			// Character 3 is just after 😀 (bytes 1-4); 1:2 is after 中.
			changes: []map[string]any{rangeChange(0, 3, 1, 2, "-")},
			want:    []index.Edit{{Start: 5, End: 13, Text: "-"}},
		},
		{
			name: "utf-16: inside a surrogate pair rounds down", text: "a😀b", enc: position.UTF16,
			changes: []map[string]any{rangeChange(0, 2, 0, 2, "x")},
			want:    []index.Edit{{Start: 1, End: 1, Text: "x"}},
		},
		{
			name: "utf-8 offsets when negotiated", text: "é中x\n", enc: position.UTF8,
			changes: []map[string]any{rangeChange(0, 2, 0, 5, "_")},
			want:    []index.Edit{{Start: 2, End: 5, Text: "_"}},
		},
		{
			name: "utf-32 counts code points", text: "😀é中x", enc: position.UTF32,
			changes: []map[string]any{rangeChange(0, 1, 0, 3, "")},
			want:    []index.Edit{{Start: 4, End: 9}},
		},
		{
			name: "each change against the previous result", text: "ab\ncd\n", enc: position.UTF16,
			changes: []map[string]any{rangeChange(0, 0, 0, 0, "😀\n"), rangeChange(1, 2, 1, 2, "!"), rangeChange(0, 2, 1, 0, "")},
			// After the first change the text is "😀\nab\ncd\n": 1:2 is
			// byte 7; after the second, "😀\nab!\ncd\n": 0:2 is byte 4,
			// 1:0 byte 5.
			want: []index.Edit{{Start: 0, End: 0, Text: "😀\n"}, {Start: 7, End: 7, Text: "!"}, {Start: 4, End: 5}},
		},
		{
			name: "full then ranged", text: "old", enc: position.UTF16,
			changes: []map[string]any{rangeChange(0, 0, 0, 1, "x"), fullChange("new\ntext"), rangeChange(1, 0, 1, 4, "T")},
			want:    []index.Edit{{Start: 0, End: 1, Text: "x"}, {Full: true, Text: "new\ntext"}, {Start: 4, End: 8, Text: "T"}},
		},
		{
			name: "out-of-range positions are clamped", text: "ab\ncd", enc: position.UTF16,
			changes: []map[string]any{rangeChange(0, 99, 7, 0, "!")},
			want:    []index.Edit{{Start: 2, End: 5, Text: "!"}},
		},
		{
			name: "an inverted range ends the list, for the index to refuse", text: "abc", enc: position.UTF16,
			changes: []map[string]any{rangeChange(0, 0, 0, 0, "x"), rangeChange(0, 2, 0, 1, "y"), rangeChange(0, 0, 0, 0, "z")},
			want:    []index.Edit{{Start: 0, End: 0, Text: "x"}, {Start: 2, End: 1, Text: "y"}},
		},
		{
			name: "out of sync: nothing without a full change", text: "abc", outOfSync: true, enc: position.UTF16,
			changes: []map[string]any{rangeChange(0, 0, 0, 0, "y")},
			want:    nil,
		},
		{
			name: "out of sync: from the last full change on", text: "abc", outOfSync: true, enc: position.UTF16,
			changes: []map[string]any{rangeChange(0, 2, 0, 1, "bad"), fullChange("one"), fullChange("two"), rangeChange(0, 3, 0, 3, "!")},
			want:    []index.Edit{{Full: true, Text: "two"}, {Start: 3, End: 3, Text: "!"}},
		},
		{
			name: "no changes", text: "abc", enc: position.UTF16,
			changes: []map[string]any{},
			want:    []index.Edit{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p didChangeParams
			raw := mustJSON(t, map[string]any{"textDocument": map[string]any{"uri": "file:///w/a.txt", "version": 2}, "contentChanges": tt.changes})
			if err := decodeParams(raw, &p); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, p.edits(buffer.FromString(tt.text), tt.outOfSync, tt.enc)); diff != "" {
				t.Errorf("edits (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDidChangeIndex drives didOpen, didChange, didSave and didClose and
// checks what the index then holds, the errors the handlers return and the
// messages the user sees.
func TestDidChangeIndex(t *testing.T) {
	const uri = "file:///w/a.go"
	type step struct {
		method string
		params map[string]any
		err    string   // the handler's error, "" for none
		shown  []string // showMessage notifications
	}
	open := func(v int, text string) step {
		return step{method: "textDocument/didOpen", params: map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "go", "version": v, "text": text}}}
	}
	change := func(v int, changes ...map[string]any) step {
		return step{method: "textDocument/didChange", params: map[string]any{"textDocument": map[string]any{"uri": uri, "version": v}, "contentChanges": changes}}
	}
	outOfSync := func(s step, v int) step {
		s.err = fmt.Sprintf("didChange for %s version %d could not be applied; the document is out of sync until it is reopened", uri, v)
		s.shown = []string{fmt.Sprintf("%v ctxd: %s. Context from this file is refused until then.", protocol.MessageTypeWarning, s.err)}
		return s
	}
	type doc struct {
		Version   int32
		Text      string
		Saved     bool
		OutOfSync bool
	}
	tests := []struct {
		name     string
		encoding position.Encoding
		steps    []step
		want     *doc // nil: not open
	}{
		{
			name:  "edits reach the index",
			steps: []step{open(1, "package a\n\nfunc A() {}\n"), change(2, rangeChange(2, 5, 2, 6, "Bee")), change(3, rangeChange(3, 0, 3, 0, "\nfunc C() {}\n"))},
			want:  &doc{3, "package a\n\nfunc Bee() {}\n\nfunc C() {}\n", false, false},
		},
		{
			name: "multi-byte utf-16 ranges",
			steps: []step{
				open(1, "package a\n\n// 😀 é 中\nfunc A() {}\n"),
				// 2:3 is after "// " and 2:7 after "😀 é" (😀 is two
				// utf-16 units); then 2:4-2:6 is " 中" in the text the
				// first change left.
				change(2, rangeChange(2, 3, 2, 7, "x"), rangeChange(2, 4, 2, 6, "-")),
			},
			want: &doc{2, "package a\n\n// x-\nfunc A() {}\n", false, false},
		},
		{
			name:     "multi-byte utf-8 ranges",
			encoding: position.UTF8,
			steps: []step{
				open(1, "package a\n\n// é中\nfunc A() {}\n"),
				change(2, rangeChange(2, 5, 2, 8, "z")),
			},
			want: &doc{2, "package a\n\n// éz\nfunc A() {}\n", false, false},
		},
		{
			name: "a stale version is ignored",
			steps: []step{
				open(5, "package a\n"),
				func() step {
					s := change(4, fullChange("package b\n"))
					s.err = "didChange for " + uri + " ignored: version 4 is older than the open version 5"
					return s
				}(),
			},
			want: &doc{5, "package a\n", false, false},
		},
		{
			name: "a change of an unopened document is ignored",
			steps: []step{func() step {
				s := change(2, fullChange("ghost"))
				s.err = "textDocument/didChange for " + uri + " ignored: the document is not open"
				return s
			}()},
		},
		{
			name:  "an inverted range puts the document out of sync, the whole change unapplied",
			steps: []step{open(1, "package a\n"), outOfSync(change(2, rangeChange(0, 0, 0, 0, "x"), rangeChange(0, 2, 0, 1, "y")), 2)},
			want:  &doc{2, "package a\n", false, true},
		},
		{
			name: "out of sync: ranged changes do not repair, and warn again",
			steps: []step{
				open(1, "package a\n"),
				outOfSync(change(2, rangeChange(0, 2, 0, 1, "y")), 2),
				outOfSync(change(3, rangeChange(0, 0, 0, 0, "z")), 3),
			},
			want: &doc{3, "package a\n", false, true},
		},
		{
			name: "out of sync: a full change repairs, the changes before it skipped",
			steps: []step{
				open(1, "package a\n"),
				outOfSync(change(2, rangeChange(0, 2, 0, 1, "y")), 2),
				change(3, rangeChange(0, 5, 0, 1, "lost"), fullChange("package b\n"), rangeChange(1, 0, 1, 0, "func F() {}\n")),
			},
			want: &doc{3, "package b\nfunc F() {}\n", false, false},
		},
		{
			name: "save marks the version saved",
			steps: []step{
				open(1, "package a\n"),
				{method: "textDocument/didSave", params: map[string]any{"textDocument": map[string]any{"uri": uri}}},
			},
			want: &doc{1, "package a\n", true, false},
		},
		{
			name: "a change after a save is not saved",
			steps: []step{
				open(1, "package a\n"),
				{method: "textDocument/didSave", params: map[string]any{"textDocument": map[string]any{"uri": uri}}},
				change(2, rangeChange(1, 0, 1, 0, "var V = 1\n")),
			},
			want: &doc{2, "package a\nvar V = 1\n", false, false},
		},
		{
			name: "close forgets the buffer",
			steps: []step{
				open(1, "package a\n"),
				{method: "textDocument/didClose", params: map[string]any{"textDocument": map[string]any{"uri": uri}}},
				{method: "textDocument/didSave", params: map[string]any{"textDocument": map[string]any{"uri": uri}}, err: "textDocument/didSave for " + uri + " ignored: the document is not open"},
				{method: "textDocument/didClose", params: map[string]any{"textDocument": map[string]any{"uri": uri}}, err: "textDocument/didClose for " + uri + " ignored: the document is not open"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			s := newTestSession()
			client := &recordingClient{}
			s.Client = client
			if tt.encoding != "" {
				s.setConfig(&ClientConfig{Encoding: tt.encoding})
			}
			for i, st := range tt.steps {
				err := Notifications()[st.method](ctx, s, mustJSON(t, st.params))
				got := ""
				if err != nil {
					got = err.Error()
				}
				if got != st.err {
					t.Errorf("step %d (%s): error = %q, want %q", i, st.method, got, st.err)
				}
				if diff := cmp.Diff(st.shown, client.take()); diff != "" {
					t.Errorf("step %d (%s): showMessage (-want +got):\n%s", i, st.method, diff)
				}
			}
			d, ok := s.Index.Snapshot().Document(uri)
			if !ok {
				if tt.want != nil {
					t.Fatal("document not open")
				}
				return
			}
			if tt.want == nil {
				t.Fatalf("document open: %+v", d)
			}
			if diff := cmp.Diff(*tt.want, doc{d.Version, string(d.Content()), d.Saved, d.OutOfSync}); diff != "" {
				t.Errorf("document (-want +got):\n%s", diff)
			}
			// Whatever the path, the symbols are those of a fresh parse
			// of the text the index holds.
			want, err := syntax.Parse(ctx, syntax.Go, d.Content())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, d.Syntax()); diff != "" {
				t.Errorf("extraction (-Parse +document):\n%s", diff)
			}
		})
	}
}

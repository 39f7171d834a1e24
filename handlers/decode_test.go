package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/workspace"
	"go.lsp.dev/jsonrpc2"
)

func TestDecodeErrorsNameTheField(t *testing.T) {
	tests := []struct {
		name   string
		target func() any
		raw    string
		want   string // exact message
	}{
		{"absent", func() any { return &didOpenParams{} }, ``, `invalid params: params are missing`},
		{"null", func() any { return &didOpenParams{} }, `null`, `invalid params: params are missing`},
		{"not an object", func() any { return &didOpenParams{} }, `[1]`, `invalid params: expected an object, got JSON array`},
		{"version of wrong type", func() any { return &didOpenParams{} }, `{"textDocument":{"uri":"file:///a","version":"1","text":""}}`, `invalid params: field "textDocument.version": expected an integer, got JSON string`},
		{"version overflow", func() any { return &didOpenParams{} }, `{"textDocument":{"uri":"file:///a","version":3000000000,"text":""}}`, `invalid params: field "textDocument.version": expected an integer, got JSON number 3000000000`},
		{"missing text", func() any { return &didOpenParams{} }, `{"textDocument":{"uri":"file:///a","version":1}}`, `invalid params: missing required field "textDocument.text"`},
		{"missing uri", func() any { return &didOpenParams{} }, `{"textDocument":{"version":1,"text":""}}`, `invalid params: missing required field "textDocument.uri"`},
		{"negative character", func() any { return &didChangeParams{} }, `{"textDocument":{"uri":"file:///a","version":1},"contentChanges":[{"range":{"start":{"line":0,"character":-1},"end":{"line":0,"character":0}},"text":""}]}`, `invalid params: field "contentChanges.range.start.character": expected a non-negative integer, got JSON number -1`},
		{"missing change text", func() any { return &didChangeParams{} }, `{"textDocument":{"uri":"file:///a","version":1},"contentChanges":[{"text":""},{}]}`, `invalid params: missing required field "contentChanges[1].text"`},
		{"missing contentChanges", func() any { return &didChangeParams{} }, `{"textDocument":{"uri":"file:///a","version":1}}`, `invalid params: missing required field "contentChanges"`},
		{"missing version on change", func() any { return &didChangeParams{} }, `{"textDocument":{"uri":"file:///a"},"contentChanges":[]}`, `invalid params: missing required field "textDocument.version"`},
		{"folders event missing", func() any { return &didChangeWorkspaceFoldersParams{} }, `{}`, `invalid params: missing required field "event"`},
		{"strict unknown field", func() any { return &workspace.IndexStatusArgs{} }, `{"x":1}`, `invalid params: unknown field "x"`},
		{"trailing data", func() any { return &didCloseParams{} }, `{"textDocument":{"uri":"file:///a"}} {}`, `invalid params: trailing data after the JSON value`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := tt.target()
			var err error
			if _, ok := v.(*workspace.IndexStatusArgs); ok {
				// ctxd's own arguments: the same decoder, strict.
				if err = workspace.DecodeStrict(json.RawMessage(tt.raw), v); err != nil {
					err = jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
				}
			} else {
				err = decodeParams(json.RawMessage(tt.raw), v)
			}
			var wire *jsonrpc2.Error
			if !errors.As(err, &wire) || wire.Code != jsonrpc2.InvalidParams {
				t.Fatalf("error = %v, want InvalidParams", err)
			}
			if wire.Message != tt.want {
				t.Errorf("message = %q\nwant      %q", wire.Message, tt.want)
			}
		})
	}
}

func newTestSession() *Session {
	return NewSession(slog.New(slog.NewTextHandler(io.Discard, nil)), "test", nil, workspace.ServiceOptions{Index: index.Options{CacheDir: "off"}})
}

// FuzzNotifications feeds arbitrary params to every notification handler and
// to the request decoders: nothing may panic, a rejected notification must
// leave the overlays untouched, and every request error is InvalidParams.
func FuzzNotifications(f *testing.F) {
	f.Add([]byte(`{"textDocument":{"uri":"file:///a","version":2},"contentChanges":[{"range":{"start":{"line":0,"character":1},"end":{"line":0,"character":2}},"text":"x"}]}`))
	f.Add([]byte(`{"textDocument":{"uri":"file:///a","version":3},"contentChanges":[{"text":"full"}]}`))
	f.Add([]byte(`{"textDocument":{"uri":"file:///a","languageId":"go","version":1,"text":"x"}}`))
	f.Add([]byte(`{"event":{"added":[{"uri":"file:///w","name":"w"}],"removed":[]}}`))
	f.Add([]byte(`{"command":"ctxd.indexStatus","arguments":[{}]}`))
	f.Add([]byte(`{"capabilities":{"general":{"positionEncodings":["utf-8"]}},"workspaceFolders":[{"uri":"file:///w","name":"w"}]}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"changes":[{"uri":"file:///a","type":2}]}`))
	f.Add([]byte(`{"query":"main"}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		ctx := context.Background()
		s := newTestSession()
		_ = DidOpen(ctx, s, json.RawMessage(`{"textDocument":{"uri":"file:///a","languageId":"go","version":1,"text":"a😀b\r\nc"}}`))
		for method, h := range Notifications() {
			if method == "initialized" {
				continue // takes no params; it would index whatever folders the fuzzer named
			}
			before := s.Index.Snapshot().Documents()
			if err := h(ctx, s, raw); err != nil && s.Index.Snapshot().Documents() != before && !strings.Contains(err.Error(), "out of sync") {
				t.Fatalf("%s rejected the params (%v) but changed the overlays", method, err)
			}
		}
		for name, h := range map[string]RequestFunc{"initialize": Initialize, "executeCommand": ExecuteCommand, "documentSymbol": DocumentSymbol, "workspaceSymbol": WorkspaceSymbol} {
			if _, err := h(ctx, s, raw); err != nil {
				var wire *jsonrpc2.Error
				if !errors.As(err, &wire) || wire.Code != jsonrpc2.InvalidParams || wire.Message == "" {
					t.Fatalf("%s: error %v is not InvalidParams", name, err)
				}
			}
		}
		docs := s.Index.Snapshot().Documents()
		for _, uri := range docs.URIs() {
			if d, _ := docs.Get(uri); d.URI != uri || d.URI != index.NormalizeURI(d.URI) {
				t.Fatalf("overlay key %q holds document %q", uri, d.URI)
			}
		}
	})
}

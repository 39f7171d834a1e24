package handlers

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/ctxd/ctxd/index"
	"go.lsp.dev/protocol"
)

type didSaveParams struct {
	TextDocument docID `json:"textDocument"`
}

// Validate names the first missing or invalid field.
func (p *didSaveParams) Validate() error { return p.TextDocument.check("textDocument", false) }

// DidSave handles textDocument/didSave by marking the open version saved.
// ctxd asks for no text on save: the buffer it holds already is that text.
func DidSave(ctx context.Context, s *Session, raw json.RawMessage) error {
	var p didSaveParams
	if err := decodeParams(raw, &p); err != nil {
		return err
	}
	uri := p.TextDocument.uri()
	err := s.Index.SaveDocument(uri)
	if errors.Is(err, index.ErrNotOpen) {
		return errNotOpen(protocol.MethodTextDocumentDidSave, uri)
	}
	return err
}

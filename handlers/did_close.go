package handlers

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/ctxd/ctxd/index"
	"go.lsp.dev/protocol"
)

type didCloseParams struct {
	TextDocument docID `json:"textDocument"`
}

// Validate names the first missing or invalid field.
func (p *didCloseParams) Validate() error { return p.TextDocument.check("textDocument", false) }

// DidClose handles textDocument/didClose: the file on disk is the truth
// again.
func DidClose(ctx context.Context, s *Session, raw json.RawMessage) error {
	var p didCloseParams
	if err := decodeParams(raw, &p); err != nil {
		return err
	}
	uri := p.TextDocument.uri()
	err := s.Index.CloseDocument(ctx, uri)
	if errors.Is(err, index.ErrNotOpen) {
		err = errNotOpen(protocol.MethodTextDocumentDidClose, uri)
	}
	s.Logger.Debug("document closed", "uri", uri)
	return err
}

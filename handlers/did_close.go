package handlers

import (
	"context"
	"encoding/json"

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
	err := s.updateOverlays(func(o *index.Overlays) (*index.Overlays, error) {
		if _, ok := o.Get(uri); !ok {
			return nil, errNotOpen(protocol.MethodTextDocumentDidClose, uri)
		}
		return o.Without(uri), nil
	})
	if err == nil {
		s.indexDocument(ctx, uri)
	}
	s.Logger.Debug("document closed", "uri", uri)
	return err
}

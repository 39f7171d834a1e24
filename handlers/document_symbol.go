package handlers

import (
	"context"
	"encoding/json"

	"github.com/ctxd/ctxd/handlers/position"
	"go.lsp.dev/protocol"
)

type documentSymbolParams struct {
	TextDocument docID `json:"textDocument"`
}

// Validate names the first missing or invalid field.
func (p *documentSymbolParams) Validate() error { return p.TextDocument.check("textDocument", false) }

// DocumentSymbol handles textDocument/documentSymbol with the hierarchical
// form: members nest under their class, namespace or type. A file the index
// skips (a rule, binary, too large) or that has no parser gets an empty
// list; a file not yet reached by the initial scan is waited for.
func DocumentSymbol(ctx context.Context, s *Session, raw json.RawMessage) (any, error) {
	var p documentSymbolParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	r, f, ok, err := indexedFile(ctx, s, p.TextDocument.uri())
	if err != nil || !ok || f.Syntax() == nil {
		return []protocol.DocumentSymbol{}, err
	}
	text, err := r.ReadText(f.Path)
	if err != nil {
		return nil, err
	}
	return documentSymbols(f.Syntax().Symbols, position.NewMapper(text, s.Config().Encoding)), nil
}

package handlers

import (
	"context"
	"encoding/json"

	"github.com/ctxd/ctxd/index"
)

type didOpenParams struct {
	TextDocument struct {
		URI        *string `json:"uri"`
		LanguageID string  `json:"languageId"`
		Version    *int32  `json:"version"`
		Text       *string `json:"text"`
	} `json:"textDocument"`
}

// Validate names the first missing or invalid field.
func (p *didOpenParams) Validate() error {
	td := p.TextDocument
	if err := (docID{URI: td.URI, Version: td.Version}).check("textDocument", true); err != nil {
		return err
	}
	if td.Text == nil {
		return missing("textDocument.text")
	}
	return nil
}

// DidOpen handles textDocument/didOpen: the buffer becomes the truth for the
// file. Opening an already open document replaces it (the editor knows best).
// The index holds it from then on (see [index.Index.OpenDocument]).
func DidOpen(ctx context.Context, s *Session, raw json.RawMessage) error {
	var p didOpenParams
	if err := decodeParams(raw, &p); err != nil {
		return err
	}
	td := p.TextDocument
	uri := index.NormalizeURI(*td.URI)
	s.Index.OpenDocument(ctx, uri, td.LanguageID, *td.Version, []byte(*td.Text))
	s.Logger.Debug("document opened", "uri", uri, "version", *td.Version, "bytes", len(*td.Text))
	return nil
}

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
func DidOpen(ctx context.Context, s *Session, raw json.RawMessage) error {
	var p didOpenParams
	if err := decodeParams(raw, &p); err != nil {
		return err
	}
	td := p.TextDocument
	doc := &index.Document{
		URI:        index.NormalizeURI(*td.URI),
		LanguageID: td.LanguageID,
		Version:    *td.Version,
		Content:    []byte(*td.Text),
	}
	_ = s.updateOverlays(func(o *index.Overlays) (*index.Overlays, error) { return o.With(doc), nil })
	s.indexDocument(ctx, doc.URI)
	s.Logger.Debug("document opened", "uri", doc.URI, "version", doc.Version, "bytes", len(doc.Content))
	return nil
}

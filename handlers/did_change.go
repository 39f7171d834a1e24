package handlers

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ctxd/ctxd/handlers/position"
	"github.com/ctxd/ctxd/index"
	"go.lsp.dev/protocol"
)

type didChangeParams struct {
	TextDocument   docID           `json:"textDocument"`
	ContentChanges []contentChange `json:"contentChanges"`
}

// contentChange is TextDocumentContentChangeEvent with Range as a pointer:
// go.lsp.dev/protocol decodes a range-less (full document) change as an
// insertion at 0:0, which would silently corrupt the buffer.
type contentChange struct {
	Range *position.Range `json:"range"`
	// RangeLength is deprecated in LSP and ignored: Range is authoritative.
	RangeLength *uint32 `json:"rangeLength"`
	Text        *string `json:"text"`
}

// Validate names the first missing or invalid field.
func (p *didChangeParams) Validate() error {
	if err := p.TextDocument.check("textDocument", true); err != nil {
		return err
	}
	if p.ContentChanges == nil {
		return missing("contentChanges")
	}
	for i, c := range p.ContentChanges {
		if c.Text == nil {
			return missing(fmt.Sprintf("contentChanges[%d].text", i))
		}
	}
	return nil
}

// DidChange handles textDocument/didChange: the changes apply in order, each
// to the result of the previous one, in the negotiated position encoding.
// A stale version is ignored; a change that cannot be applied leaves the
// document marked out of sync rather than guessing (see
// [index.Document.OutOfSync]) and tells the user.
func DidChange(ctx context.Context, s *Session, raw json.RawMessage) error {
	var p didChangeParams
	if err := decodeParams(raw, &p); err != nil {
		return err
	}
	uri, version, changes := p.TextDocument.uri(), *p.TextDocument.Version, p.changes()
	var edited *index.Document
	err := s.updateOverlays(func(o *index.Overlays) (*index.Overlays, error) {
		doc, ok := o.Get(uri)
		if !ok {
			return nil, errNotOpen(protocol.MethodTextDocumentDidChange, uri)
		}
		if version < doc.Version {
			return nil, fmt.Errorf("didChange for %s ignored: version %d is older than the open version %d", uri, version, doc.Version)
		}
		edited = applyChange(doc, version, changes, s.Config().Encoding)
		return o.With(edited), nil
	})
	if err != nil {
		return err
	}
	s.indexDocument(ctx, uri)
	if !edited.OutOfSync {
		return nil
	}
	err = fmt.Errorf("didChange for %s version %d could not be applied; the document is out of sync until it is reopened", uri, version)
	s.ShowMessage(ctx, protocol.MessageTypeWarning, "ctxd: "+err.Error()+". Context from this file is refused until then.")
	return err
}

func (p *didChangeParams) changes() []position.Change {
	changes := make([]position.Change, len(p.ContentChanges))
	for i, c := range p.ContentChanges {
		changes[i] = position.Change{Range: c.Range, Text: *c.Text}
	}
	return changes
}

// applyChange returns the document after changes. An out-of-sync document
// can only be repaired by a full-content change, so the changes before the
// last full one are skipped for it.
func applyChange(doc *index.Document, version int32, changes []position.Change, enc position.Encoding) *index.Document {
	next := *doc
	next.Version, next.Saved = version, false
	if doc.OutOfSync {
		last := -1
		for i, c := range changes {
			if c.Range == nil {
				last = i
			}
		}
		if last < 0 {
			return &next
		}
		changes, next.Content = changes[last:], nil
	}
	content, err := position.ApplyChanges(next.Content, enc, changes)
	if err != nil {
		next.OutOfSync = true
		return &next
	}
	next.Content, next.OutOfSync = content, false
	return &next
}

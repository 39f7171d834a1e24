package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ctxd/ctxd/handlers/position"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/index/buffer"
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

// DidChange handles textDocument/didChange: each change becomes a byte
// edit of the text the previous one left (positions in the negotiated
// encoding, clamped as LSP asks), and the index applies the edits in order
// at once and reparses in the background (see [index.Index.ChangeDocument]):
// it runs on the server's read loop, where every request behind it waits,
// so it never parses. A stale version is ignored; a change that cannot be
// applied leaves the document marked out of sync rather than guessing (see
// [index.Document.OutOfSync]) and tells the user.
func DidChange(ctx context.Context, s *Session, raw json.RawMessage) error {
	var p didChangeParams
	if err := decodeParams(raw, &p); err != nil {
		return err
	}
	uri, version := p.TextDocument.uri(), *p.TextDocument.Version
	doc, ok := s.Index.Snapshot().Document(uri)
	if !ok {
		return errNotOpen(protocol.MethodTextDocumentDidChange, uri)
	}
	if version < doc.Version {
		return fmt.Errorf("didChange for %s ignored: version %d is older than the open version %d", uri, version, doc.Version)
	}
	_, err := s.Index.ChangeDocument(ctx, uri, version, p.edits(doc.Text(), doc.OutOfSync, s.Config().Encoding))
	if errors.Is(err, index.ErrNotOpen) {
		return errNotOpen(protocol.MethodTextDocumentDidChange, uri)
	}
	if !errors.Is(err, index.ErrOutOfSync) {
		return err // nil, or the index is closed
	}
	err = fmt.Errorf("didChange for %s version %d could not be applied; the document is out of sync until it is reopened", uri, version)
	s.ShowMessage(ctx, protocol.MessageTypeWarning, "ctxd: "+err.Error()+". Context from this file is refused until then.")
	return err
}

// edits converts the changes to byte edits of text, the open document's,
// each against the text the previous one leaves. A document out of sync
// (outOfSync) only takes the changes from its last full-content one on:
// the ranges before it are positions in a text ctxd does not have, and
// without one there is nothing it can apply (no edits: the index keeps it
// out of sync).
func (p *didChangeParams) edits(text *buffer.Text, outOfSync bool, enc position.Encoding) []index.Edit {
	changes := p.ContentChanges
	if outOfSync {
		last := -1
		for i, c := range changes {
			if c.Range == nil {
				last = i
			}
		}
		if last < 0 {
			return nil
		}
		changes = changes[last:]
	}
	edits := make([]index.Edit, 0, len(changes))
	for i, c := range changes {
		e := index.Edit{Full: true, Text: *c.Text}
		if c.Range != nil {
			e = index.Edit{Start: position.LineOffset(text, enc, c.Range.Start), End: position.LineOffset(text, enc, c.Range.End), Text: *c.Text}
			if e.Start > e.End {
				// Inverted after clamping, the range cannot be
				// applied: the index refuses it as it is, and the
				// document goes out of sync. The changes after it are
				// positions in a text that never existed.
				return append(edits, e)
			}
		}
		edits = append(edits, e)
		if i < len(changes)-1 {
			// The next change's positions are in this change's result;
			// the last change's result is the index's to make.
			text, _ = index.ApplyEdits(text, []index.Edit{e})
		}
	}
	return edits
}

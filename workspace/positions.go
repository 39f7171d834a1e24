package workspace

import (
	"errors"
	"fmt"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/index"
)

// Positions converts between a client's line/character positions and byte
// offsets of one text. The builder speaks byte offsets; the front end that
// knows the client's position encoding supplies the conversion (the LSP
// handlers use the negotiated encoding, the CLI LSP's default, UTF-16).
type Positions interface {
	// Offsets returns the byte offsets of r in text, or an error saying
	// why r does not denote a range of it.
	Offsets(text []byte, r contextbuilder.Range) (start, end int, err error)
	// Range returns the client's range of the byte offsets [start, end)
	// of text.
	Range(text []byte, start, end int) contextbuilder.Range
}

// resolveSelection sets the request's selection span from its range, in
// the active file's text as the snapshot holds it (the editor's buffer
// when the file is open). A selection whose file is outside every folder
// or unreadable is left to the builder, which refuses it with the file's
// own reason.
func resolveSelection(snap *index.Snapshot, req *contextbuilder.Request, pos Positions) error {
	sel := req.Selection
	if sel == nil || sel.Span != nil || pos == nil {
		return nil
	}
	root, rel, ok := snap.Locate(sel.URI)
	if !ok {
		return nil
	}
	text, err := root.ReadText(rel)
	if err != nil {
		return nil
	}
	start, end, err := pos.Offsets(text, sel.Range)
	if err != nil {
		return fmt.Errorf("%w: field \"selection.range\": %v", contextbuilder.ErrInvalidRequest, err)
	}
	sel.Span = &contextbuilder.Span{Start: start, End: end}
	return nil
}

// clientRanges puts the candidates of an ambiguous-target refusal in the
// client's units: the builder gives their byte spans and a fallback range
// (0-based line, byte column) that stays when the file cannot be read.
func clientRanges(root *index.RootSnapshot, err error, pos Positions) {
	var refusal *contextbuilder.Refusal
	if pos == nil || root == nil || !errors.As(err, &refusal) {
		return
	}
	for i := range refusal.Candidates {
		c := &refusal.Candidates[i]
		text, rerr := root.ReadText(c.Path)
		if rerr != nil {
			continue
		}
		c.Range = pos.Range(text, c.Span.Start, c.Span.End)
	}
}

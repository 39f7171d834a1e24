package handlers

import (
	"math"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/handlers/position"
	"github.com/ctxd/ctxd/workspace"
)

// Positions returns the service's position conversion for a client that
// counts characters in enc (see [position.Mapper]).
func Positions(enc position.Encoding) workspace.Positions { return positions{enc: enc} }

type positions struct{ enc position.Encoding }

func (p positions) Offsets(text []byte, r contextbuilder.Range) (int, int, error) {
	return position.NewMapper(text, p.enc).OffsetRange(position.Range{Start: toLSP(r.Start), End: toLSP(r.End)})
}

func (p positions) Range(text []byte, start, end int) contextbuilder.Range {
	m := position.NewMapper(text, p.enc)
	return contextbuilder.Range{Start: fromLSP(m.Position(start)), End: fromLSP(m.Position(end))}
}

// toLSP converts a request position to LSP's unsigned one; the request
// was validated (no negative line or character), and a value past
// uint32 saturates, which the mapper clamps to the end anyway.
func toLSP(p contextbuilder.Position) position.Position {
	clamp := func(v int) uint32 { return uint32(min(max(int64(v), 0), math.MaxUint32)) }
	return position.Position{Line: clamp(p.Line), Character: clamp(p.Character)}
}

func fromLSP(p position.Position) contextbuilder.Position {
	return contextbuilder.Position{Line: int(p.Line), Character: int(p.Character)}
}

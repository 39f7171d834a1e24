package handlers

import (
	"cmp"
	"context"
	"slices"

	"github.com/ctxd/ctxd/handlers/position"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/index/syntax"
	"go.lsp.dev/protocol"
)

// symbolKinds maps ctxd's symbol kinds (every one of syntax.SymbolKinds)
// onto LSP's. It is the handlers' own table rather than a kind set of
// index/syntax, which knows nothing about LSP; lspKind's fallback covers a
// kind added there without an entry here.
var symbolKinds = map[syntax.SymbolKind]protocol.SymbolKind{
	syntax.Function:    protocol.SymbolKindFunction,
	syntax.Method:      protocol.SymbolKindMethod,
	syntax.Constructor: protocol.SymbolKindConstructor,
	syntax.Class:       protocol.SymbolKindClass,
	syntax.Interface:   protocol.SymbolKindInterface,
	syntax.Struct:      protocol.SymbolKindStruct,
	syntax.Enum:        protocol.SymbolKindEnum,
	syntax.TypeAlias:   protocol.SymbolKindTypeParameter,
	syntax.Const:       protocol.SymbolKindConstant,
	syntax.Var:         protocol.SymbolKindVariable,
	syntax.Field:       protocol.SymbolKindField,
	syntax.Property:    protocol.SymbolKindProperty,
	syntax.Namespace:   protocol.SymbolKindNamespace,
	syntax.Module:      protocol.SymbolKindModule,
	syntax.EnumMember:  protocol.SymbolKindEnumMember,
}

func lspKind(k syntax.SymbolKind) protocol.SymbolKind {
	if v, ok := symbolKinds[k]; ok {
		return v
	}
	return protocol.SymbolKindVariable
}

// lspRange converts a byte range of text to an LSP range in the session's
// encoding.
func lspRange(m *position.Mapper, r syntax.Range) protocol.Range {
	start, end := m.Position(int(r.StartByte)), m.Position(int(r.EndByte))
	return protocol.Range{
		Start: protocol.Position{Line: start.Line, Character: start.Character},
		End:   protocol.Position{Line: end.Line, Character: end.Character},
	}
}

// indexedFile waits until the index knows the file at uri (an open document
// is known at once; a file on disk once its root's scan reached it) and
// returns it with its root. ok is false for a file that is not indexed:
// skipped by a rule, or outside every root.
func indexedFile(ctx context.Context, s *Session, uri string) (*index.RootSnapshot, *index.File, bool, error) {
	s.ensureIndexing()
	snap, err := s.Index.WaitFor(ctx, func(snap *index.Snapshot) bool {
		r, rel, ok := snap.Locate(uri)
		if !ok {
			return true
		}
		_, known := r.File(rel)
		return known || r.State() != index.StateIndexing
	})
	if err != nil {
		return nil, nil, false, err
	}
	snap = s.Service.AsReceived(ctx, snap) // the versions received before the request
	r, rel, ok := snap.Locate(uri)
	if !ok {
		return nil, nil, false, nil
	}
	f, ok := r.File(rel)
	return r, f, ok, nil
}

// documentSymbols nests symbols by range containment: a symbol is the child
// of the innermost earlier symbol whose range contains it. The signature is
// the selection range (LSP requires it inside the range; the name's own
// range is not kept by the index).
func documentSymbols(syms []syntax.Symbol, m *position.Mapper) []protocol.DocumentSymbol {
	order := make([]int, len(syms))
	for i := range order {
		order[i] = i
	}
	// Outer before inner at equal starts, so containment is seen in order.
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(syms[a].Range.StartByte, syms[b].Range.StartByte),
			cmp.Compare(syms[b].Range.EndByte, syms[a].Range.EndByte))
	})
	children := make([][]int, len(syms))
	var roots, stack []int
	for _, i := range order {
		r := syms[i].Range
		for len(stack) > 0 {
			top := syms[stack[len(stack)-1]].Range
			if top.StartByte <= r.StartByte && r.EndByte <= top.EndByte {
				break
			}
			stack = stack[:len(stack)-1]
		}
		if len(stack) == 0 {
			roots = append(roots, i)
		} else {
			parent := stack[len(stack)-1]
			children[parent] = append(children[parent], i)
		}
		stack = append(stack, i)
	}
	var build func(ids []int) []protocol.DocumentSymbol
	build = func(ids []int) []protocol.DocumentSymbol {
		out := make([]protocol.DocumentSymbol, 0, len(ids))
		for _, i := range ids {
			sym := syms[i]
			sel := sym.Signature
			if sel.IsZero() {
				sel = sym.Range
			}
			out = append(out, protocol.DocumentSymbol{
				Name: sym.Name, Detail: sym.Kind.String(), Kind: lspKind(sym.Kind),
				Range: lspRange(m, sym.Range), SelectionRange: lspRange(m, sel),
				Children: build(children[i]),
			})
		}
		return out
	}
	return build(roots)
}

package handlers

import (
	"context"
	"encoding/json"

	"github.com/ctxd/ctxd/handlers/position"
	"github.com/ctxd/ctxd/index"
	"go.lsp.dev/protocol"
)

// maxWorkspaceSymbols caps a workspace/symbol answer: editors show a short
// list and refine by typing, so more would only cost time.
const maxWorkspaceSymbols = 500

type workspaceSymbolParams struct {
	Query *string `json:"query"`
}

// Validate names the first missing or invalid field.
func (p *workspaceSymbolParams) Validate() error {
	if p.Query == nil {
		return missing("query")
	}
	return nil
}

// WorkspaceSymbol handles workspace/symbol: symbols whose name contains
// the query (case-insensitive), exact matches first, then prefixes, in a
// deterministic order (see index.Snapshot.FindSymbols). It waits for the
// initial scan rather than answer from half an index; cancelling the
// request ends the wait.
func WorkspaceSymbol(ctx context.Context, s *Session, raw json.RawMessage) (any, error) {
	var p workspaceSymbolParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	s.ensureIndexing()
	snap, err := s.Index.Wait(ctx)
	if err != nil {
		return nil, err
	}
	return workspaceSymbols(snap.FindSymbols(*p.Query, maxWorkspaceSymbols), s.Config().Encoding), nil
}

// workspaceSymbols converts matches to LSP, reading each file once to map
// byte offsets to the negotiated encoding. A file that changed on disk
// since indexing is left out rather than reported at a wrong position.
func workspaceSymbols(matches []index.SymbolMatch, enc position.Encoding) []protocol.SymbolInformation {
	out := []protocol.SymbolInformation{}
	type file struct {
		root *index.RootSnapshot
		path string
	}
	mappers := map[file]*position.Mapper{}
	for _, m := range matches {
		mp, seen := mappers[file{m.Root, m.Path}]
		if !seen {
			if text, err := m.Root.ReadText(m.Path); err == nil {
				mp = position.NewMapper(text, enc)
			}
			mappers[file{m.Root, m.Path}] = mp
		}
		if mp == nil {
			continue
		}
		out = append(out, protocol.SymbolInformation{
			Name: m.Symbol.Name, Kind: lspKind(m.Symbol.Kind), ContainerName: m.Symbol.Container,
			Location: protocol.Location{
				URI:   protocol.DocumentURI(m.Root.URIOf(m.Path)),
				Range: lspRange(mp, m.Symbol.Range),
			},
		})
	}
	return out
}

package handlers

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/ctxd/ctxd/index"
)

type didChangeWorkspaceFoldersParams struct {
	Event *struct {
		Added   []Folder `json:"added"`
		Removed []Folder `json:"removed"`
	} `json:"event"`
}

// Validate names the first missing or invalid field.
func (p *didChangeWorkspaceFoldersParams) Validate() error {
	if p.Event == nil {
		return missing("event")
	}
	for _, f := range append(slices.Clone(p.Event.Added), p.Event.Removed...) {
		if f.URI == "" {
			return missing("event.added[].uri / event.removed[].uri")
		}
	}
	return nil
}

// DidChangeWorkspaceFolders handles workspace/didChangeWorkspaceFolders:
// removals first, then additions, as the spec orders them.
func DidChangeWorkspaceFolders(ctx context.Context, s *Session, raw json.RawMessage) error {
	var p didChangeWorkspaceFoldersParams
	if err := decodeParams(raw, &p); err != nil {
		return err
	}
	s.updateFolders(func(cur []Folder) []Folder {
		cur = slices.DeleteFunc(cur, func(f Folder) bool {
			return slices.ContainsFunc(p.Event.Removed, func(r Folder) bool { return index.NormalizeURI(r.URI) == f.URI })
		})
		for _, f := range p.Event.Added {
			cur = append(cur, Folder{URI: index.NormalizeURI(f.URI), Name: f.Name})
		}
		return cur
	})
	s.Logger.Info("workspace folders changed", "folders", len(s.Folders()))
	return nil
}

package handlers

import (
	"context"
	"encoding/json"

	"github.com/ctxd/ctxd/handlers/position"
	"github.com/ctxd/ctxd/index"
)

// IndexStatusResult is the result of ctxd.indexStatus. Field names are
// snake_case like every ctxd output. It never carries file contents.
type IndexStatusResult struct {
	Server           ServerInfo        `json:"server"`
	PositionEncoding position.Encoding `json:"position_encoding"`
	// WorkspaceFolders is sorted by URI; empty, not null, when there are none.
	WorkspaceFolders []Folder `json:"workspace_folders"`
	// OpenDocuments is sorted by URI; empty, not null, when none are open.
	OpenDocuments []OpenDocument `json:"open_documents"`
	// Index summarizes the workspace index: state, snapshot version and
	// fingerprint, files by language, symbols, skipped paths by reason.
	Index index.Status `json:"index"`
}

// ServerInfo names the server and its version.
type ServerInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// OpenDocument describes one editor buffer by its metadata and fingerprint.
type OpenDocument struct {
	URI        string `json:"uri"`
	LanguageID string `json:"language_id"`
	Version    int32  `json:"version"`
	ByteSize   int    `json:"byte_size"`
	LineCount  int    `json:"line_count"`
	SHA256     string `json:"sha256"`
	Saved      bool   `json:"saved"`
	OutOfSync  bool   `json:"out_of_sync"`
}

type indexStatusArgs struct {
	// Skipped asks for the list of skipped paths with their reasons.
	Skipped bool `json:"skipped"`
}

// IndexStatus answers ctxd.indexStatus from one snapshot of the session.
// Its argument is optional: an object whose only field is "skipped".
func IndexStatus(ctx context.Context, s *Session, arg json.RawMessage) (any, error) {
	var args indexStatusArgs
	if !isAbsent(arg) {
		if err := decodeStrict(arg, &args); err != nil {
			return nil, err
		}
	}
	overlays := s.Index.Snapshot().Documents()
	res := &IndexStatusResult{
		Server:           ServerInfo{Name: "ctxd", Version: s.Version},
		PositionEncoding: s.Config().Encoding,
		WorkspaceFolders: s.Folders(),
		OpenDocuments:    []OpenDocument{},
		Index:            s.Index.Status(args.Skipped),
	}
	for _, uri := range overlays.URIs() {
		d, _ := overlays.Get(uri)
		res.OpenDocuments = append(res.OpenDocuments, OpenDocument{
			URI: d.URI, LanguageID: d.LanguageID, Version: d.Version,
			ByteSize: len(d.Content), LineCount: d.LineCount(), SHA256: d.SHA256(),
			Saved: d.Saved, OutOfSync: d.OutOfSync,
		})
	}
	return res, nil
}

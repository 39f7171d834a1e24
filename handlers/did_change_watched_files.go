package handlers

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ctxd/ctxd/index"
	"go.lsp.dev/protocol"
)

type didChangeWatchedFilesParams struct {
	Changes []struct {
		URI  *string `json:"uri"`
		Type *int    `json:"type"`
	} `json:"changes"`
}

// Validate names the first missing or invalid field.
func (p *didChangeWatchedFilesParams) Validate() error {
	if p.Changes == nil {
		return missing("changes")
	}
	for i, c := range p.Changes {
		if c.URI == nil || *c.URI == "" {
			return missing(fmt.Sprintf("changes[%d].uri", i))
		}
		if c.Type == nil || *c.Type < 1 || *c.Type > 3 {
			return fmt.Errorf("field \"changes[%d].type\": must be 1 (created), 2 (changed) or 3 (deleted)", i)
		}
	}
	return nil
}

// DidChangeWatchedFiles handles workspace/didChangeWatchedFiles: the index
// re-reads the changed paths (open documents keep their buffer). The change
// type is validated but not needed: the disk says what happened.
func DidChangeWatchedFiles(ctx context.Context, s *Session, raw json.RawMessage) error {
	var p didChangeWatchedFilesParams
	if err := decodeParams(raw, &p); err != nil {
		return err
	}
	uris := make([]string, len(p.Changes))
	for i, c := range p.Changes {
		uris[i] = index.NormalizeURI(*c.URI)
	}
	s.Index.FilesChanged(ctx, uris)
	noticeConfigChanges(ctx, s, uris)
	return nil
}

// noticeConfigChanges tells the user that an edit of a loaded workspace's
// config or templates applies only after a restart (see
// [workspace.Service.ConfigNotices]).
func noticeConfigChanges(ctx context.Context, s *Session, uris []string) {
	for _, msg := range s.Service.ConfigNotices(uris) {
		s.ShowMessage(ctx, protocol.MessageTypeWarning, "ctxd: "+msg)
	}
}

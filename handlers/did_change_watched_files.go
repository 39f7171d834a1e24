package handlers

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ctxd/ctxd/index"
	"go.lsp.dev/protocol"
)

type didChangeWatchedFilesParams struct {
	Changes []struct {
		URI  *string `json:"uri"`
		Type *int    `json:"type"`
	} `json:"changes"`
}

func (p *didChangeWatchedFilesParams) validate() error {
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
// .ctxd/config.json or templates applies only after a restart: both are
// loaded once and pinned (seed 000: no hot reload), and a silent
// difference between the file and what ctxd enforces would mislead.
func noticeConfigChanges(ctx context.Context, s *Session, uris []string) {
	for _, w := range s.Workspaces.Opened() {
		prefix := index.PathToURI(w.Root()) + "/.ctxd/"
		var config, templates bool
		for _, u := range uris {
			switch rest, ok := strings.CutPrefix(u, prefix); {
			case !ok:
			case rest == "config.json":
				config = true
			case strings.HasPrefix(rest, "templates/"):
				templates = true
			}
		}
		if config {
			if msg, changed := w.ConfigChanged(); changed {
				s.ShowMessage(ctx, protocol.MessageTypeWarning, "ctxd: "+msg)
			}
		}
		if templates {
			s.ShowMessage(ctx, protocol.MessageTypeWarning, "ctxd: prompt templates under .ctxd/templates changed; restart ctxd to apply them: templates are loaded once at startup")
		}
	}
}

package handlers

import (
	"context"
	"encoding/json"

	"go.lsp.dev/protocol"
)

// watcherRegistration is the id of ctxd's file watcher registration.
const watcherRegistration = "ctxd.watch"

// Initialized handles the initialized notification: the client is ready
// for server requests, so indexing starts (its progress needs
// window/workDoneProgress/create) and, when the client allows it, ctxd
// registers a watcher for every file of the workspace. The registration is
// a request, so it is sent from a goroutine of its own: waiting for its
// answer on the read loop would deadlock.
func Initialized(ctx context.Context, s *Session, raw json.RawMessage) error {
	s.startIndexing()
	if !s.Config().WatchFiles || s.Client == nil {
		return nil
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), progressCallTimeout)
		defer cancel()
		params := &protocol.RegistrationParams{Registrations: []protocol.Registration{{
			ID:     watcherRegistration,
			Method: protocol.MethodWorkspaceDidChangeWatchedFiles,
			RegisterOptions: map[string]any{
				"watchers": []map[string]any{{"globPattern": "**/*"}},
			},
		}}}
		if err := s.Client.Call(ctx, protocol.MethodClientRegisterCapability, params, nil); err != nil {
			s.Logger.Warn("registering the file watcher failed; changes on disk are seen when files are opened", "err", err)
		}
	}()
	return nil
}

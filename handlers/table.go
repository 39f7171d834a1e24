package handlers

import (
	"context"
	"encoding/json"

	"go.lsp.dev/protocol"
)

// RequestFunc answers one request. params is the raw "params" member (nil
// when absent). A *jsonrpc2.Error result reaches the client with its code;
// any other error becomes an internal error.
type RequestFunc func(ctx context.Context, s *Session, params json.RawMessage) (any, error)

// NotificationFunc applies one notification. Notifications have no reply,
// so a returned error is only logged; handlers return one whenever they
// ignore or reject a notification, so that the log says why.
type NotificationFunc func(ctx context.Context, s *Session, params json.RawMessage) error

// Requests returns the request handlers by method, as a new map the caller
// may extend. initialize and shutdown are not in it: they drive the
// lifecycle, which the server owns (see [Initialize]).
func Requests() map[string]RequestFunc {
	return map[string]RequestFunc{
		protocol.MethodWorkspaceExecuteCommand:    ExecuteCommand,
		protocol.MethodTextDocumentDocumentSymbol: DocumentSymbol,
		protocol.MethodWorkspaceSymbol:            WorkspaceSymbol,
	}
}

// Notifications returns the notification handlers by method, as a new map
// the caller may extend. exit and $/cancelRequest are handled by the server.
func Notifications() map[string]NotificationFunc {
	return map[string]NotificationFunc{
		protocol.MethodInitialized:                        Initialized,
		protocol.MethodWorkspaceDidChangeWatchedFiles:     DidChangeWatchedFiles,
		protocol.MethodTextDocumentDidOpen:                DidOpen,
		protocol.MethodTextDocumentDidChange:              DidChange,
		protocol.MethodTextDocumentDidSave:                DidSave,
		protocol.MethodTextDocumentDidClose:               DidClose,
		protocol.MethodWorkspaceDidChangeWorkspaceFolders: DidChangeWorkspaceFolders,
	}
}

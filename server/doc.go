// Package server runs ctxd's side of one LSP connection: framing (package
// framing), the lifecycle state machine, dispatch to package handlers,
// cancellation, panic recovery and logging.
//
// [Server] is ctxd's own jsonrpc2.Handler rather than go.lsp.dev/protocol's
// stock chain, which answers one request at a time, dies on a handler panic,
// ignores numeric $/cancelRequest ids and misroutes unknown methods (see
// docs/dependency-defects.md). The rules it enforces:
//
//   - Notifications run on the read loop, one at a time, in arrival order, so
//     that a request always sees every notification sent before it. They
//     must be cheap: a didChange edits text there and leaves parsing to
//     the index's background parser.
//   - A request's context carries the open documents as they were when the
//     read loop received it (workspace.Service.Received), so it sees no
//     notification sent after it either, however late its goroutine runs.
//   - Requests run on a goroutine each; a panic in one becomes an
//     InternalError reply and the server keeps serving.
//   - initialize and shutdown also run on the read loop: they change the
//     state every later message is judged by.
//   - $/cancelRequest (numeric or string id) answers the request at once with
//     RequestCancelled and cancels its context; a finished request's context
//     is always released.
package server

// Package handlers holds one file per LSP method or ctxd command. Each handler
// decodes its params, takes what it needs from the [Session] (an immutable
// snapshot), calls a pure function of the packages below it and returns the
// result; the lifecycle, concurrency, cancellation and panic recovery around
// it belong to package server.
//
// Handlers are looked up in two tables, [Requests] and [Notifications]; the
// ctxd commands reached through workspace/executeCommand are listed in
// [Commands]. Errors that a client should see with a specific JSON-RPC code
// are returned as *jsonrpc2.Error; anything else reaches the client as an
// internal error.
package handlers

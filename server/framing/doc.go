// Package framing carries JSON-RPC messages over the LSP base protocol
// (a "Content-Length: N" header block followed by an N-byte JSON body) and
// keeps the connection alive when the peer gets the framing or the message
// wrong.
//
// It exists because the framing in go.lsp.dev/jsonrpc2 v0.10.0 treats every
// problem as fatal: its NewStream returns an error from Read for a missing,
// non-numeric or non-positive Content-Length, for a body that is not JSON,
// for a batch, for a "jsonrpc" member other than "2.0" and for an id that
// does not fit its ID type (3000000000, 1.5), and its Conn closes the
// connection on any Read error. It also allocates whatever Content-Length
// announces, matches header names case-sensitively and reads header lines
// without bound. One bad frame from an editor would therefore end the
// session, and a single header could exhaust memory.
//
// [NewStream] returns a [Stream] that instead answers the peer with a
// JSON-RPC error response where the protocol allows one, skips the bad
// input (exactly, when the framing says how long it is; by resynchronising
// on the next Content-Length header when it does not) and goes on reading.
// Only a failure of the underlying reader, such as EOF, ends Read with an
// error.
package framing

// Package index holds ctxd's picture of the workspace: today the editor's open
// buffers ([Overlays] of [Document]); the scanned files, symbols and relations
// join it as the index grows.
//
// Everything here is immutable once built. An edit never mutates a value that a
// reader may hold: it produces a new [Overlays] that shares the untouched
// documents with the old one, so a request that took a snapshot keeps a
// consistent view while notifications move on. The package knows nothing about
// LSP: callers convert editor positions to byte offsets before they get here.
package index

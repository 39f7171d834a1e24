// Package index holds ctxd's picture of the workspace: per workspace folder
// (root) the scanned files with their symbols, the paths skipped and why, and
// the relation graph; and the editor's open documents ([Document]), whose
// only owner it is.
//
// An open document is an overlay: its buffer, not the file on disk, is the
// truth for its path while it is open. The index holds each one's version,
// text, saved and out-of-sync flags and extraction, applies the editor's
// edits to the text as byte ranges at once ([Index.ChangeDocument]), and
// hands the same edits to the document's background parser, which owns its
// tree-sitter tree and reparses incrementally off the caller's goroutine,
// coalescing the changes that arrive while it works (see
// [syntax.Doc.Edit]). Every version's [Document.Syntax] is exactly the
// extraction of its own text. [Index.Pin] and [Index.WithDocuments] let a
// request read the documents exactly as they were when it arrived.
//
// Everything readers see is immutable once built. [Index.Snapshot] returns
// the current [Snapshot] (roots and [Overlays] of open documents) without
// blocking; an edit never mutates a value that a reader may hold: it
// publishes a new snapshot that shares everything untouched with the old
// one, so a request that took a snapshot keeps a consistent view while
// notifications move on. The package knows nothing about LSP: callers convert
// editor positions to byte offsets before they get here.
package index

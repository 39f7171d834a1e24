package handlers

import (
	"fmt"

	"github.com/ctxd/ctxd/index"
)

// docID is a (Versioned)TextDocumentIdentifier. Fields are pointers so that
// an absent field can be told from a zero value and reported by name.
type docID struct {
	URI     *string `json:"uri"`
	Version *int32  `json:"version"`
}

// check reports the first missing field of the identifier under prefix
// (e.g. "textDocument"); versioned identifiers also need a version.
func (d docID) check(prefix string, versioned bool) error {
	if d.URI == nil || *d.URI == "" {
		return missing(prefix + ".uri")
	}
	if versioned && d.Version == nil {
		return missing(prefix + ".version")
	}
	return nil
}

// uri returns the normalized URI; call only after check.
func (d docID) uri() string { return index.NormalizeURI(*d.URI) }

// errNotOpen explains a notification about a document the editor never
// opened (or already closed).
func errNotOpen(method, uri string) error {
	return fmt.Errorf("%s for %s ignored: the document is not open", method, uri)
}

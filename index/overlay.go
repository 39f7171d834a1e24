package index

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"slices"
)

// Document is one open editor buffer. The editor's buffer is the truth for an
// open file, so the index prefers it to the file on disk. A Document is never
// modified after it is built; an edit builds a new one.
type Document struct {
	// URI identifies the document as the editor named it, after
	// [NormalizeURI].
	URI string
	// LanguageID is the editor's language identifier ("go", "typescript");
	// empty when the editor sent none.
	LanguageID string
	// Version is the editor's version number; it increases with every change.
	Version int32
	// Content is the full text. Callers must not modify it.
	Content []byte
	// Saved reports whether the editor saved this version to disk.
	Saved bool
	// OutOfSync reports that a change could not be applied (a range that does
	// not fit the text), so Content is the last text ctxd could trust and the
	// editor's buffer differs from it. Nothing may be built from such a
	// document; the next full-content change or didOpen repairs it.
	OutOfSync bool
}

// SHA256 returns the hex sha256 of the content, the fingerprint the manifest
// reports for files.
func (d *Document) SHA256() string {
	sum := sha256.Sum256(d.Content)
	return hex.EncodeToString(sum[:])
}

// LineCount returns the number of lines; an empty document has one line and a
// final line break starts a new (empty) line, as editors count them.
func (d *Document) LineCount() int {
	n := 1
	c := d.Content
	for i := 0; i < len(c); i++ {
		switch c[i] {
		case '\n':
			n++
		case '\r':
			n++
			if i+1 < len(c) && c[i+1] == '\n' {
				i++
			}
		}
	}
	return n
}

// Overlays is an immutable set of open documents keyed by URI. The nil
// *Overlays is valid and empty.
type Overlays struct {
	docs map[string]*Document
}

// Get returns the open document with the given URI.
func (o *Overlays) Get(uri string) (*Document, bool) {
	if o == nil {
		return nil, false
	}
	d, ok := o.docs[uri]
	return d, ok
}

// Len returns the number of open documents.
func (o *Overlays) Len() int {
	if o == nil {
		return 0
	}
	return len(o.docs)
}

// URIs returns the URIs of the open documents in ascending order, so that no
// map order reaches an output.
func (o *Overlays) URIs() []string {
	if o == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(o.docs))
}

// With returns a new set in which d replaces any document with the same URI.
// The receiver is unchanged.
func (o *Overlays) With(d *Document) *Overlays {
	next := &Overlays{docs: make(map[string]*Document, o.Len()+1)}
	if o != nil {
		maps.Copy(next.docs, o.docs)
	}
	next.docs[d.URI] = d
	return next
}

// Without returns a new set without the document with the given URI; it
// returns the receiver itself when no such document is open.
func (o *Overlays) Without(uri string) *Overlays {
	if _, ok := o.Get(uri); !ok {
		return o
	}
	next := &Overlays{docs: maps.Clone(o.docs)}
	delete(next.docs, uri)
	return next
}

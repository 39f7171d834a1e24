package index

import (
	"encoding/hex"
	"errors"
	"maps"
	"slices"
	"sync"

	"github.com/ctxd/ctxd/index/buffer"
	"github.com/ctxd/ctxd/index/syntax"
)

// Edit is one change to an open document's text, in bytes: [Start, End)
// of the text the previous edits of the same list left is replaced by
// Text, or, when Full is set, the whole text is. Callers convert editor
// positions to byte offsets before they get here (the index never sees an
// LSP position). See [syntax.Edit].
type Edit = syntax.Edit

// ApplyEdits returns text after edits, the text [Index.ChangeDocument]
// makes of them: for callers that need an intermediate text, such as the
// one the positions of an editor's next change refer to. Texts are
// immutable; the result shares every chunk the edits do not touch. An
// edit that does not fit gives an error naming it and wrapping
// [syntax.ErrEditRange], and no text: applying a prefix of the list would
// leave a text that is neither the old nor the new one.
func ApplyEdits(text *buffer.Text, edits []Edit) (*buffer.Text, error) {
	for i, e := range edits {
		if e.Full {
			text = buffer.FromString(e.Text)
			continue
		}
		if err := e.Check(i, len(edits), text.Len()); err != nil {
			return nil, err
		}
		text = text.Replace(e.Start, e.End, e.Text)
	}
	return text, nil
}

// Errors of the open-document methods of [Index]; they are wrapped with
// the URI and versions concerned.
var (
	// ErrNotOpen: the document is not open.
	ErrNotOpen = errors.New("document is not open")
	// ErrStaleVersion: a change names a version older than the open one.
	ErrStaleVersion = errors.New("version is older than the open version")
	// ErrOutOfSync: the document is out of sync after the change (see
	// [Document.OutOfSync]); the change was not applied, or applied only
	// as far as its version.
	ErrOutOfSync = errors.New("document is out of sync")
	// ErrClosed: the index was closed.
	ErrClosed = errors.New("index is closed")
)

// Document is one open editor buffer. The editor's buffer is the truth for an
// open file, so the index prefers it to the file on disk. A Document is never
// modified after it is built; an edit builds a new one. The index holds the
// open documents in every [Snapshot] ([Snapshot.Documents]).
type Document struct {
	// URI identifies the document as the editor named it, after
	// [NormalizeURI].
	URI string
	// LanguageID is the editor's language identifier ("go", "typescript");
	// empty when the editor sent none.
	LanguageID string
	// Version is the editor's version number; it increases with every change.
	Version int32
	// text is the full text, in chunks that the versions of the
	// document share (see [Document.Text]).
	text *buffer.Text
	// Saved reports whether the editor saved this version to disk.
	Saved bool
	// OutOfSync reports that a change could not be applied (a range that does
	// not fit the text), so Content is the last text ctxd could trust and the
	// editor's buffer differs from it. Nothing may be built from such a
	// document; the next full-content change or didOpen repairs it.
	OutOfSync bool

	// lang is the language the index parses the document as, from its
	// path; "" for a language without a parser and for URIs that are not
	// files.
	lang syntax.Language
	// syn is the document's background parser, shared by all its
	// versions: it owns the parse tree and brings it to the latest text
	// off the notification loop. nil without lang.
	syn *docParser
	// ver is this version's text as the parser sees it, with the cell of
	// its extraction ([Document.Syntax]); the root's File for the same
	// version shares the cell. nil without lang.
	ver *docVersion
	// fp is the version's sha256, computed on first need and shared by
	// every root snapshot that applies the document (a change, a rescan,
	// a request's view) and by the root's File.
	fp *fingerprint
	// synced is, for a document out of sync, the last document that was
	// in sync: the one the roots hold. nil when in sync.
	synced *Document
}

// SHA256 returns the hex sha256 of the content, the fingerprint the manifest
// reports for files. It is computed on the first call for a version, not
// when the version is made: hashing a 150 KB buffer on every keystroke was
// a quarter of the notification loop's work during an edit storm, for
// fingerprints that only requests read.
func (d *Document) SHA256() string {
	if d.fp == nil {
		return newFingerprint(d.text).get()
	}
	return d.fp.get()
}

// fingerprint is the hex sha256 of an open document's text, computed once,
// by whoever asks first.
type fingerprint struct {
	once sync.Once
	text *buffer.Text // until hashed
	hex  string
}

func newFingerprint(text *buffer.Text) *fingerprint { return &fingerprint{text: text} }

func (p *fingerprint) get() string {
	p.once.Do(func() {
		sum := p.text.Sum256()
		p.hex, p.text = hex.EncodeToString(sum[:]), nil
	})
	return p.hex
}

// LineCount returns the number of lines; an empty document has one line and a
// final line break starts a new (empty) line, as editors count them.
func (d *Document) LineCount() int { return d.text.LineCount() }

// Text returns the full text as the index holds it: immutable chunks,
// shared with the document's other versions, that answer a line or the
// length without flattening the text. A change copies only the chunks its
// edits touch, so typing into a large buffer does not copy the buffer on
// every keystroke.
func (d *Document) Text() *buffer.Text { return d.text }

// Content returns the full text in one slice, flattened on the first call
// for this version. Callers must not modify it.
func (d *Document) Content() []byte { return d.text.Bytes() }

// Syntax returns the extraction of Content: exactly what [syntax.Parse]
// returns for it, although the index parses an edited document
// incrementally and in the background. It waits for the background parser
// when it has not reached this version yet, and parses the text itself
// when the parser went past it; either way it never returns another
// version's extraction. It is nil for a document whose path has no parser,
// whose URI is not a file, or whose parse failed.
func (d *Document) Syntax() *syntax.File {
	if d.ver == nil {
		return nil
	}
	return d.ver.cell.get()
}

// Stale reports that a request for this version would not read its own
// extraction: it is not ready and the document's parses are slow (the
// last took longer than the requests wait for, or overran the parse
// budget), so requests read the stale extraction described (see
// [Index.WithDocuments]). ok is false when requests read, or wait for,
// the version's own extraction. It never waits or parses, and reports the
// document as the roots hold it (the last in sync).
func (d *Document) Stale() (s StaleSyntax, ok bool) {
	d = d.inSync()
	if d.ver == nil || !d.ver.isStale() {
		return StaleSyntax{}, false
	}
	if b := d.ver.base; b != nil {
		s.Has, s.Of = true, b.version
	}
	return s, true
}

// inSync returns the document the roots hold for d: d itself, or the last
// in-sync document when d is out of sync.
func (d *Document) inSync() *Document {
	if d.synced != nil {
		return d.synced
	}
	return d
}

// Overlays is an immutable set of open documents keyed by URI, as a
// [Snapshot] holds them. The nil *Overlays is valid and empty.
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

// with returns a new set in which d replaces any document with the same URI.
// The receiver is unchanged.
func (o *Overlays) with(d *Document) *Overlays {
	next := &Overlays{docs: make(map[string]*Document, o.Len()+1)}
	if o != nil {
		maps.Copy(next.docs, o.docs)
	}
	next.docs[d.URI] = d
	return next
}

// without returns a new set without the document with the given URI; it
// returns the receiver itself when no such document is open.
func (o *Overlays) without(uri string) *Overlays {
	if _, ok := o.Get(uri); !ok {
		return o
	}
	next := &Overlays{docs: maps.Clone(o.docs)}
	delete(next.docs, uri)
	return next
}

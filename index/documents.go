package index

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/ctxd/ctxd/index/classify"
	"github.com/ctxd/ctxd/index/syntax"
)

// The open documents. The index is their only owner: every snapshot holds
// them ([Snapshot.Documents]) with their version, text, parse tree, and
// saved and out-of-sync flags, and a document inside a root also replaces
// the file on disk there. The methods below are the notifications of an
// editor's document sync, in bytes; they serialize with the other writers
// and publish the next snapshot.

// OpenDocument records an editor buffer (didOpen): text at version becomes
// the truth for uri, replacing any document open under that URI, in sync
// and not saved. It is parsed when its path has a parser, and while it is
// open it replaces the file on disk in the root holding it, unless the
// rules skip that path (opening .env must not index it) or the sandbox
// refuses it; a document outside every root, or whose URI is not a file,
// is held all the same, for [Snapshot.Documents] and for a folder added
// later. The index keeps text: the caller must not modify it. After
// [Index.Close] it does nothing.
func (x *Index) OpenDocument(ctx context.Context, uri, languageID string, version int32, text []byte) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed.Load() {
		return
	}
	x.open(ctx, uri, languageID, version, text)
}

// open is OpenDocument. Callers hold x.mu.
func (x *Index) open(ctx context.Context, uri, languageID string, version int32, text []byte) {
	old, _ := x.Snapshot().Document(uri)
	d := &Document{URI: uri, LanguageID: languageID, Version: version, Content: text, lang: languageOf(uri)}
	if d.lang != "" {
		syn, err := syntax.NewDoc(ctx, d.lang, text)
		if err != nil {
			x.log.Warn("parsing open document failed", "uri", uri, "err", err)
		} else {
			d.syn, d.Content = syn, syn.Text()
		}
	}
	x.setDocument(old, d, true)
}

// languageOf is the language an open document is parsed as: the one of
// its path, as for the file on disk; "" for URIs that are not files
// (untitled: and other schemes are never workspace files).
func languageOf(uri string) syntax.Language {
	p, err := URIToPath(uri)
	if err != nil {
		return ""
	}
	return syntax.LanguageForPath(filepath.ToSlash(p))
}

// ChangeDocument applies edits to the open document uri (didChange) and
// makes version its version; the document is then not saved. The edits
// apply in order, each to the text the previous one left, and reach the
// parser as they are: the kept tree is edited and reparsed incrementally
// (see [syntax.Doc.Edit]), so the document's [Document.Syntax] is the
// extraction of the new text. It returns the new document.
//
// It refuses, changing nothing, a document that is not open (an error
// wrapping [ErrNotOpen]) and a version older than the open one
// ([ErrStaleVersion]). An edit that does not fit the text leaves the
// document out of sync at version, with its text as it was before the
// call: none of the edits applies, because a prefix of them would be a
// text the editor never had. A document out of sync ignores the edits
// before the last Full one and is repaired by it; without a Full edit it
// stays out of sync, at version. Both out-of-sync outcomes return the new
// document and an error wrapping [ErrOutOfSync]. While a document is out
// of sync its root keeps the last text that was in sync.
//
// The caller serializes its calls for one document, as an editor's
// notifications are: the edits are positions in the text the caller last
// saw.
func (x *Index) ChangeDocument(ctx context.Context, uri string, version int32, edits []Edit) (*Document, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed.Load() {
		return nil, fmt.Errorf("changing %s: %w", uri, ErrClosed)
	}
	d, ok := x.Snapshot().Document(uri)
	if !ok {
		return nil, fmt.Errorf("changing %s: %w", uri, ErrNotOpen)
	}
	if version < d.Version {
		return nil, fmt.Errorf("changing %s to version %d: %w (%d)", uri, version, ErrStaleVersion, d.Version)
	}
	return x.change(ctx, d, version, edits)
}

// change is ChangeDocument once d is known and the version checked.
// Callers hold x.mu.
func (x *Index) change(ctx context.Context, d *Document, version int32, edits []Edit) (*Document, error) {
	if d.OutOfSync {
		full := -1
		for i, e := range edits {
			if e.Full {
				full = i
			}
		}
		if full < 0 {
			next := d.outOfSync(version)
			x.setDocument(d, next, false)
			return next, fmt.Errorf("changing %s to version %d: no full-content change repairs it: %w", d.URI, version, ErrOutOfSync)
		}
		edits = edits[full:]
	}
	next := &Document{URI: d.URI, LanguageID: d.LanguageID, Version: version, lang: d.lang}
	var err error
	if d.syn != nil {
		next.syn, err = d.syn.Edit(ctx, edits)
		if err == nil {
			next.Content = next.syn.Text()
		} else if !errors.Is(err, syntax.ErrEditRange) {
			// The edits fit but the parse failed (ctx done): the text
			// moves on unparsed, and the next change parses it anew.
			x.log.Warn("parsing open document failed", "uri", d.URI, "err", err)
			next.Content, err = syntax.ApplyEdits(d.Content, edits)
		}
	} else {
		next.Content, err = syntax.ApplyEdits(d.Content, edits)
		if err == nil && d.lang != "" {
			if syn, perr := syntax.NewDoc(ctx, d.lang, next.Content); perr != nil {
				x.log.Warn("parsing open document failed", "uri", d.URI, "err", perr)
			} else {
				next.syn, next.Content = syn, syn.Text()
			}
		}
	}
	if err != nil {
		next = d.outOfSync(version)
		x.setDocument(d, next, false)
		return next, fmt.Errorf("changing %s to version %d: %w: %w", d.URI, version, ErrOutOfSync, err)
	}
	x.setDocument(d, next, true)
	return next, nil
}

// outOfSync returns d at version, out of sync and not saved, with d's text
// and the last document in sync.
func (d *Document) outOfSync(version int32) *Document {
	next := *d
	next.Version, next.Saved, next.OutOfSync, next.synced = version, false, true, d.inSync()
	return &next
}

// SaveDocument marks the open document uri saved (didSave): the editor
// wrote its buffer to disk. The roots do not change: the buffer already
// replaced the file there. It returns an error wrapping [ErrNotOpen] for a
// document that is not open.
func (x *Index) SaveDocument(uri string) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed.Load() {
		return fmt.Errorf("saving %s: %w", uri, ErrClosed)
	}
	d, ok := x.Snapshot().Document(uri)
	if !ok {
		return fmt.Errorf("saving %s: %w", uri, ErrNotOpen)
	}
	next := *d
	next.Saved = true
	x.setDocument(d, &next, false)
	return nil
}

// CloseDocument forgets an editor buffer (didClose); the file falls back
// to its state on disk. It returns an error wrapping [ErrNotOpen] for a
// document that is not open.
func (x *Index) CloseDocument(ctx context.Context, uri string) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed.Load() {
		return fmt.Errorf("closing %s: %w", uri, ErrClosed)
	}
	snap := x.Snapshot()
	d, ok := snap.Document(uri)
	if !ok {
		return fmt.Errorf("closing %s: %w", uri, ErrNotOpen)
	}
	roots, changed := snap.roots, false
	if r, rel, ok := snap.Locate(uri); ok {
		b := r.edit()
		delete(b.r.open, rel)
		x.reloadPath(ctx, b, rel)
		roots, changed = withRoot(roots, b.done()), true
	}
	x.install(roots, snap.docs.without(uri), changed)
	if d.syn != nil {
		d.syn.Close()
	}
	return nil
}

// setDocument publishes next in place of old (nil when next is newly
// opened). With toRoot, next also replaces the file on disk in the
// innermost root holding it, unless it lies outside every root or the
// sandbox refuses it; the version then moves on. Without, only the
// overlays change. The tree old leaves behind is freed: no reader sees
// trees, and the writer edits only the current document's. Callers hold
// x.mu.
func (x *Index) setDocument(old, next *Document, toRoot bool) {
	snap := x.Snapshot()
	roots, changed := snap.roots, false
	if toRoot {
		if _, _, err := snap.LocateChecked(next.URI); err == nil {
			// A buffer refused by the sandbox (behind a link out of
			// the root) is kept for a folder added later, but it is no
			// file of any root.
			if r, rel, ok := snap.Locate(next.URI); ok {
				b := r.edit()
				x.applyDoc(b, rel, next)
				roots, changed = withRoot(roots, b.done()), true
			}
		}
	}
	x.install(roots, snap.docs.with(next), changed)
	if old != nil && old.syn != nil && old.syn != next.syn {
		old.syn.Close()
	}
}

// applyDoc puts an open document into a root being edited, unless the
// rules skip its path: opening .env in the editor must not index it.
func (x *Index) applyDoc(b *rootEdit, rel string, d *Document) {
	if s, ok := ruleSkip(x.checker(b.r), rel, false); ok {
		b.skip(s)
		return
	}
	f := &File{
		Path: rel, Encoding: classify.UTF8, SHA256: d.SHA256(),
		ByteSize: int64(len(d.Content)), LineCount: classify.LineCount(d.Content),
		Open: true, Version: d.Version,
	}
	if d.syn != nil {
		f.Language, f.syn = d.lang, parsedCell(d.syn.File())
	}
	b.r.open[rel] = d
	b.setFile(f)
}

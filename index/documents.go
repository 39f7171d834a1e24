package index

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"time"

	"github.com/ctxd/ctxd/index/buffer"
	"github.com/ctxd/ctxd/index/classify"
	"github.com/ctxd/ctxd/index/syntax"
)

// The open documents. The index is their only owner: every snapshot holds
// them ([Snapshot.Documents]) with their version, text, extraction, and
// saved and out-of-sync flags, and a document inside a root also replaces
// the file on disk there. The methods below are the notifications of an
// editor's document sync, in bytes; they serialize with the other writers
// and publish the next snapshot without parsing: each document's parse
// tree belongs to its background parser (reparse.go).

// OpenDocument records an editor buffer (didOpen): text at version becomes
// the truth for uri, replacing any document open under that URI, in sync
// and not saved. It is parsed in the background when its path has a
// parser (see [Index.ChangeDocument]), and while it is open it replaces
// the file on disk in the root holding it, unless the rules skip that path
// (opening .env must not index it) or the sandbox refuses it; a document
// outside every root, or whose URI is not a file, is held all the same,
// for [Snapshot.Documents] and for a folder added later. The index keeps
// text: the caller must not modify it. After [Index.Close] it does
// nothing.
func (x *Index) OpenDocument(ctx context.Context, uri, languageID string, version int32, text []byte) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed.Load() {
		return
	}
	x.open(uri, languageID, version, text)
}

// open is OpenDocument. Callers hold x.mu.
func (x *Index) open(uri, languageID string, version int32, text []byte) {
	old, _ := x.Snapshot().Document(uri)
	if text == nil {
		text = []byte{}
	}
	d := &Document{URI: uri, LanguageID: languageID, Version: version, text: buffer.New(text), lang: languageOf(uri)}
	if d.lang != "" && !x.overCap(d.text) {
		d.syn, d.ver = x.newDocParser(uri, d.lang, version, d.text)
	}
	d.fp = newFingerprint(d.text)
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
// apply in order, each to the text the previous one left. It returns the
// new document, published at once with its text, sha256 and line count:
// a change never waits for a parse. The document's background parser
// (see reparse.go) reparses the kept tree incrementally with the same
// edits, coalescing the changes that arrive while it parses, and
// [Document.Syntax] (and the root's [File.Syntax]) of every version is
// exactly the extraction of that version's text, waited for or computed
// on demand by whoever asks first.
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
	x.lastChange.Store(time.Now().UnixNano())
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
	return x.change(d, version, edits)
}

// change is ChangeDocument once d is known and the version checked.
// Callers hold x.mu.
func (x *Index) change(d *Document, version int32, edits []Edit) (*Document, error) {
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
	text, err := ApplyEdits(d.text, edits)
	if err != nil {
		next := d.outOfSync(version)
		x.setDocument(d, next, false)
		return next, fmt.Errorf("changing %s to version %d: %w: %w", d.URI, version, ErrOutOfSync, err)
	}
	next := &Document{URI: d.URI, LanguageID: d.LanguageID, Version: version, text: text, lang: d.lang, syn: d.syn}
	switch {
	case d.lang != "" && x.overCap(text):
		// Over the size cap: held for the next edits, never parsed
		// (setDocument closes the parser it had).
		next.syn = nil
	case d.lang != "" && d.syn == nil:
		// Back under the cap: parsed from scratch, as when opened.
		next.syn, next.ver = x.newDocParser(d.URI, d.lang, version, text)
	case d.syn == nil:
	case buffer.Equal(text, d.text):
		// The same text (no edits, or edits that cancel out): the same
		// extraction, and nothing for the parser to do.
		next.ver, next.fp = d.ver, d.fp
	default:
		next.ver = d.syn.add(version, text, slices.Clone(edits))
	}
	if next.fp == nil {
		next.fp = newFingerprint(text)
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
		// Readers of its versions that the parser has not reached parse
		// them themselves.
		d.syn.Close()
	}
	return nil
}

// setDocument publishes next in place of old (nil when next is newly
// opened). With toRoot, next also replaces the file on disk in the
// innermost root holding it, unless it lies outside every root or the
// sandbox refuses it; the version then moves on. Without, only the
// overlays change. When next replaces old by another document (a new
// didOpen), old's parser is closed: no reader sees trees, and its
// versions' readers that the parser has not reached parse them
// themselves. Callers hold x.mu.
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
// rules skip its path (opening .env in the editor must not index it) or it
// is larger than the size cap: then it is skipped as too_large, exactly as
// the file on disk would be, and the disk is not read instead (the buffer
// is the truth while it is open).
func (x *Index) applyDoc(b *rootEdit, rel string, d *Document) { x.applyDocAs(b, rel, d, nil) }

// applyDocAs is applyDoc, with the stale extraction st in place of the
// document's own when st is not nil (see [Index.WithDocuments]).
func (x *Index) applyDocAs(b *rootEdit, rel string, d *Document, st *staleDoc) {
	if s, ok := ruleSkip(x.checker(b.r), rel, false); ok {
		b.skip(s)
		return
	}
	if x.overCap(d.text) {
		b.r.open[rel] = d
		b.skip(tooLarge(rel, int64(d.text.Len()), x.opts.MaxFileSize))
		return
	}
	f := &File{
		Path: rel, Encoding: classify.UTF8, fp: d.fp,
		ByteSize: int64(d.text.Len()), LineCount: d.LineCount(),
		Open: true, Version: d.Version,
	}
	switch {
	case st != nil:
		f.Language, f.syn, f.stale = d.lang, parsedCell(st.file), &st.StaleSyntax
	case d.ver != nil:
		// The document's own cell: the root's file and the overlay share
		// one extraction, computed at most once.
		f.Language, f.syn = d.lang, d.ver.cell
	}
	b.r.open[rel] = d
	b.setFile(f)
}

// overCap reports an editor buffer larger than the size cap
// (Options.MaxFileSize), which the index treats as it treats such a file
// on disk: skipped as too_large, never parsed, tokenized or scanned. The
// text itself is kept, because the editor's next incremental change is
// relative to it.
func (x *Index) overCap(t *buffer.Text) bool { return int64(t.Len()) > x.opts.MaxFileSize }

// Pin returns the current snapshot for a request that has just been
// received, and asks the open documents' background parsers not to go
// past the versions it holds, which the request may read. The server
// calls it on its notification loop, so the snapshot holds exactly the
// document changes received before the request; the request later reads
// them through [Index.WithDocuments], however many changes arrive while it
// waits for its turn. It never blocks on a parse.
func (x *Index) Pin() *Snapshot {
	s := x.Snapshot()
	if s.docs == nil {
		return s
	}
	for _, d := range s.docs.docs {
		if d.ver != nil {
			d.syn.want(d.ver)
		}
	}
	return s
}

// WithDocuments returns snap with the open documents of pinned (a snapshot
// from [Index.Pin]) in place of its own: its roots, with each document
// that differs between the two applied to its root as pinned holds it, and
// a document opened since pinned back to the file's state in pinned (or
// on disk, when pinned did not know the file). A request that had to wait
// for indexing, or ran while the editor kept typing, so builds from
// exactly the buffers received before it. The result is not published:
// it keeps snap's version. With a nil pinned, or pinned's very overlays,
// it returns snap itself; when only the overlays differ (a save), snap's
// roots with pinned's overlays.
//
// A document whose parses are slow (see "Slow documents" in reparse.go)
// and whose pinned version's extraction is not ready is applied with its
// stale extraction instead, decided once here so that the whole request
// reads one: the last parse completed when the version arrived, its
// ranges mapped onto the version's text, or none when no parse had
// completed (then the file has no extraction: text-level answers only,
// never the extraction of the file on disk, which is not this text's).
// The file says so ([File.Stale]), for the budget report. The request
// never waits for such a parse.
func (x *Index) WithDocuments(ctx context.Context, snap, pinned *Snapshot) *Snapshot {
	if pinned == nil {
		return snap
	}
	stale := staleDocuments(pinned.docs)
	if snap.docs == pinned.docs && len(stale) == 0 {
		return snap
	}
	var differ []string
	for _, u := range unionURIs(snap.docs, pinned.docs) {
		now, _ := snap.docs.Get(u)
		then, _ := pinned.docs.Get(u)
		if now == nil || then == nil || now.inSync() != then.inSync() || stale[u] != nil {
			differ = append(differ, u)
		}
	}
	view := &Snapshot{version: snap.version, roots: snap.roots, docs: pinned.docs, fp: snap.fp}
	if len(differ) == 0 {
		// Only overlays differ (a save, a change out of sync): the roots
		// hold the same texts.
		return view
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	edits := map[string]*rootEdit{}
	// texts[dir]: some text of the root differs from snap's. A root whose
	// only difference is a stale extraction has snap's texts, and so its
	// fingerprint: hashing the paths of every file again on each request
	// that reads a slow document would be waste.
	texts := map[string]bool{}
	for _, u := range differ {
		if _, _, err := snap.LocateChecked(u); err != nil {
			continue // no root holds it, now or then
		}
		r, rel, ok := snap.Locate(u)
		if !ok {
			continue
		}
		b := edits[r.Root.Dir]
		if b == nil {
			b = r.edit()
			edits[r.Root.Dir] = b
		}
		now, _ := snap.docs.Get(u)
		if d, ok := pinned.docs.Get(u); ok {
			if now == nil || now.inSync() != d.inSync() {
				texts[r.Root.Dir] = true
			}
			x.applyDocAs(b, rel, d.inSync(), stale[u])
			continue
		}
		texts[r.Root.Dir] = true
		// Opened after the request: the file as the request would have
		// read it.
		delete(b.r.open, rel)
		pr := pinned.rootByDir(r.Root.Dir)
		switch {
		case pr == nil || pr.state == StateIndexing:
			x.reloadPath(ctx, b, rel)
		case pr.hasFile(rel):
			f, _ := pr.files.Get(rel)
			b.setFile(f)
		default:
			b.remove(rel)
			if s, ok := pr.skipped.Get(rel); ok {
				b.skip(s)
			}
		}
	}
	for _, dir := range slices.Sorted(maps.Keys(edits)) {
		r := edits[dir].done()
		if !texts[dir] {
			r.fp = edits[dir].old.fp
		}
		view.roots = withRoot(view.roots, r)
	}
	if len(texts) > 0 {
		view.fp = &lazyFingerprint{}
	}
	return view
}

// staleDoc is the stale extraction a request reads for an open document
// (see [Index.WithDocuments]).
type staleDoc struct {
	StaleSyntax
	file *syntax.File
}

// staleDocuments returns, by URI, the open documents of docs (as the roots
// hold them: the last in sync) whose extraction a request reads stale:
// not ready, and the document's parses are slow. It never waits.
func staleDocuments(docs *Overlays) map[string]*staleDoc {
	var out map[string]*staleDoc
	for _, u := range docs.URIs() {
		d, _ := docs.Get(u)
		d = d.inSync()
		if d.ver == nil {
			continue
		}
		f, exact := d.ver.requestSyntax()
		if exact {
			continue
		}
		if out == nil {
			out = map[string]*staleDoc{}
		}
		s := &staleDoc{file: f}
		if base := d.ver.base; f != nil && base != nil {
			s.Has, s.Of = true, base.version
		}
		out[u] = s
	}
	return out
}

// unionURIs returns the URIs open in a or b, sorted.
func unionURIs(a, b *Overlays) []string {
	return slices.Compact(slices.Sorted(slices.Values(append(a.URIs(), b.URIs()...))))
}

// rootByDir returns the root of s with the given directory, or nil.
func (s *Snapshot) rootByDir(dir string) *RootSnapshot {
	for _, r := range s.roots {
		if r.Root.Dir == dir {
			return r
		}
	}
	return nil
}

// hasFile reports whether r indexes rel from disk (not from an open
// document).
func (r *RootSnapshot) hasFile(rel string) bool {
	_, ok := r.files.Get(rel)
	_, open := r.open[rel]
	return ok && !open
}

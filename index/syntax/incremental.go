package syntax

import (
	"bytes"
	"context"
	"encoding/binary"

	sitter "github.com/smacker/go-tree-sitter"
)

// Doc is an open document parsed incrementally: each [Doc.Update] reparses
// only around the change, reusing the previous tree. A Doc is not safe for
// concurrent use; use it from one goroutine at a time. Its tree never
// leaves it. Close it to free its tree.
type Doc struct {
	s    *spec
	q    *compiledQuery
	src  []byte
	tree *sitter.Tree
	file *File
}

// NewDoc parses src as lang and returns the document. Errors are those of
// [Parse]. The Doc keeps its own copy of src.
func NewDoc(ctx context.Context, lang Language, src []byte) (*Doc, error) {
	s, err := lookup(lang)
	if err != nil {
		return nil, err
	}
	q, err := s.compiled()
	if err != nil {
		return nil, err
	}
	src = bytes.Clone(src)
	tree, err := s.parse(ctx, nil, src)
	if err != nil {
		return nil, err
	}
	return &Doc{s: s, q: q, src: src, tree: tree, file: extract(s, q, tree, src)}, nil
}

// Update replaces the document's text with src and returns its new File,
// the File Parse returns for src. The change is described to tree-sitter as
// a single edit spanning everything between the longest common prefix and
// suffix of the old and new text, so that a keystroke reparses only the
// region around it. When the result has syntax errors, Update parses the
// text again from scratch, a full parse: tree-sitter's error recovery
// differs between incremental and fresh parses. On error (ctx done) the
// document keeps its previous text, tree and File. Update keeps its own
// copy of src.
func (d *Doc) Update(ctx context.Context, src []byte) (*File, error) {
	old := d.src
	pre, suf := commonAffixes(old, src)
	if pre == len(old) && pre == len(src) {
		return d.file, nil // unchanged
	}
	src = bytes.Clone(src)
	edit := sitter.EditInput{
		StartIndex:  uint32(pre),
		OldEndIndex: uint32(len(old) - suf),
		NewEndIndex: uint32(len(src) - suf),
		StartPoint:  pointAt(old, pre),
		OldEndPoint: pointAt(old, len(old)-suf),
		NewEndPoint: pointAt(src, len(src)-suf),
	}
	// Edit a copy (cheap: tree-sitter trees are reference counted and
	// edited copy-on-write) so that a cancelled reparse leaves the document
	// as it was. go-tree-sitter's Tree.Edit passes the old end point as the
	// new one; the reparse repairs the tree (the fuzz test checks every
	// edit), and the extractor computes points from bytes, never from the
	// tree.
	var edited *sitter.Tree
	if d.tree != nil {
		edited = d.tree.Copy()
		edited.Edit(edit)
	}
	tree, err := d.s.parse(ctx, edited, src)
	if edited != nil {
		edited.Close()
	}
	if err == nil && edited != nil && tree.RootNode().HasError() {
		// tree-sitter recovers from syntax errors differently when it
		// reuses an old tree than when it parses from scratch (the fuzz
		// test finds such texts in seconds), and a Doc must give exactly
		// Parse's File: a text with errors is parsed again, from scratch.
		tree.Close()
		tree, err = d.s.parse(ctx, nil, src)
	}
	if err != nil {
		return nil, err
	}
	d.Close()
	d.tree, d.src = tree, src
	d.file = extract(d.s, d.q, tree, src)
	return d.file, nil
}

// File returns the File of the last successful parse.
func (d *Doc) File() *File { return d.file }

// Close frees the document's tree. File still returns the last File; an
// Update after Close parses from scratch.
func (d *Doc) Close() {
	if d.tree != nil {
		d.tree.Close()
		d.tree = nil
	}
}

// commonAffixes returns the lengths of the longest common prefix of a and b
// and of the longest common suffix of what remains after it.
func commonAffixes(a, b []byte) (pre, suf int) {
	n := min(len(a), len(b))
	// Eight bytes at a time first: documents are long, edits short.
	for pre+8 <= n && binary.LittleEndian.Uint64(a[pre:]) == binary.LittleEndian.Uint64(b[pre:]) {
		pre += 8
	}
	for pre < n && a[pre] == b[pre] {
		pre++
	}
	for suf+8 <= n-pre && binary.LittleEndian.Uint64(a[len(a)-suf-8:]) == binary.LittleEndian.Uint64(b[len(b)-suf-8:]) {
		suf += 8
	}
	for suf < n-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	return pre, suf
}

// pointAt returns the tree-sitter point of byte offset off: rows counted at
// '\n', columns in bytes.
func pointAt(src []byte, off int) sitter.Point {
	row := bytes.Count(src[:off], []byte{'\n'})
	col := off - (bytes.LastIndexByte(src[:off], '\n') + 1)
	return sitter.Point{Row: uint32(row), Column: uint32(col)}
}

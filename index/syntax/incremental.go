package syntax

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	sitter "github.com/smacker/go-tree-sitter"
)

// Edit is one change to a text: the bytes [Start, End) are replaced by
// Text, or, when Full is set, the whole text is (Start and End are then
// ignored). Offsets are byte offsets into the text the previous edits of
// the same list left, as an editor's change events are.
type Edit struct {
	Start, End int
	Text       string
	// Full marks a replacement of the whole text: an editor's change
	// without a range, which says what the text is but not what changed.
	Full bool
}

// ErrEditRange is wrapped by the errors of [ApplyEdits] and [Doc.Edit] for
// an edit that does not fit the text: a negative start, a start after the
// end, or an end past the text.
var ErrEditRange = errors.New("edit range does not fit the text")

// ApplyEdits returns src with edits applied in order, each to the result
// of the previous one. It never modifies src; the result is a new slice,
// even with no edits. An edit that does not fit gives an error naming it
// and wrapping [ErrEditRange], and no text: applying a prefix of the list
// would leave a text that is neither the old nor the new one.
func ApplyEdits(src []byte, edits []Edit) ([]byte, error) {
	// Each edit makes a new slice (splice, or the Full text's copy), so src
	// is copied only when no edit does. The index holds open documents in
	// chunks and applies an editor's changes there (index.ApplyEdits); this
	// is the same rule over flat bytes, the one [Doc.Edit] follows.
	cur, fresh := src, false
	for i, e := range edits {
		if e.Full {
			cur, fresh = []byte(e.Text), true
			continue
		}
		if err := e.Check(i, len(edits), len(cur)); err != nil {
			return nil, err
		}
		cur, fresh = splice(cur, e), true
	}
	if !fresh {
		cur = append([]byte{}, src...)
	}
	return cur, nil
}

// Check returns an error wrapping [ErrEditRange], naming e as edit i of n,
// when e, which is not Full, does not fit a text of size bytes.
func (e Edit) Check(i, n, size int) error {
	if e.Start < 0 || e.Start > e.End || e.End > size {
		return fmt.Errorf("edit %d of %d replaces bytes [%d, %d) of a %d-byte text: %w", i, n, e.Start, e.End, size, ErrEditRange)
	}
	return nil
}

// splice returns a new slice: src with e applied.
func splice(src []byte, e Edit) []byte {
	next := make([]byte, 0, len(src)-(e.End-e.Start)+len(e.Text))
	next = append(next, src[:e.Start]...)
	next = append(next, e.Text...)
	return append(next, src[e.End:]...)
}

// Doc is an open document parsed incrementally: [Doc.Edit] describes each
// edit to the previous tree-sitter tree and reparses only around the
// changes, reusing the rest of the tree. A Doc is immutable for its
// readers: Edit returns a new Doc and leaves the receiver as it was. Its
// tree never leaves it, and the tree-sitter calls that use it are not safe
// for concurrent use: Edit and Close must be called from one goroutine at a
// time (Text and File may be called from any). Close a Doc that is no
// longer edited to free its tree early; the garbage collector frees it
// otherwise.
//
// A Doc's tree is always the tree [Parse] builds for its text, never a
// tree-sitter recovery that only an incremental parse would make (see
// [Doc.Edit]): the next edit reuses it, so a divergence would otherwise
// outlive the error that caused it.
type Doc struct {
	s    *spec
	q    *compiledQuery
	src  []byte
	tree *sitter.Tree
	file *File
	// how says how the last parse ran: the test hook that tells an
	// incremental parse from a fresh one without timing it.
	how parseKind
}

// parseKind says how a Doc's tree was built.
type parseKind uint8

const (
	// parsedFresh: parsed from scratch (NewDoc, or an Edit after Close).
	parsedFresh parseKind = iota
	// parsedIncremental: the previous tree, edited, was reparsed and its
	// result kept.
	parsedIncremental
	// parsedRecovered: the previous tree, edited, was reparsed, but the
	// result has syntax errors, so the text was parsed again from scratch.
	parsedRecovered
)

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
	if src == nil {
		src = []byte{}
	}
	tree, err := s.parse(ctx, nil, src)
	if err != nil {
		return nil, err
	}
	return &Doc{s: s, q: q, src: src, tree: tree, file: extractDoc(s, q, tree, src)}, nil
}

// Edit returns the document after edits, applied in order as in
// [ApplyEdits]; its File is the File [Parse] returns for the new text.
//
// Each edit is described to tree-sitter in its own terms (byte offsets,
// and points as rows and byte columns; see editTree) on a copy of the
// receiver's tree,
// which is then reparsed once, reusing every subtree the edits left
// intact: whether the old tree has syntax errors does not matter. Only
// when the new tree has errors is the text parsed again from scratch, and
// that tree kept: tree-sitter recovers from an error differently when it
// can reuse old subtrees, and the File must be Parse's. (The fuzz corpus
// holds the evidence: testdata/fuzz/FuzzIncremental/2e3107a1ab86ed6f, a C
// edit replacing two bytes within a line, diverges with the exact edit;
// 51f632fe50791584, a TypeScript backtick, makes a fresh parse
// restructure a function 1,200 bytes before the edit, so even a reparse
// of everything after the edit would not be exact.)
//
// A Full edit names no change, only the new text; it is the one edit
// described to tree-sitter as the span between the common prefix and
// suffix of the old and new texts.
//
// With no edits, or edits that leave the text as it was, Edit returns the
// receiver. An edit that does not fit gives an error wrapping
// [ErrEditRange]; a done ctx gives one wrapping ctx.Err(). The receiver is
// never changed, on error or success: the caller decides when to Close it.
func (d *Doc) Edit(ctx context.Context, edits []Edit) (*Doc, error) {
	src := d.src
	var tree *sitter.Tree
	if d.tree != nil {
		// Tree-sitter trees are reference counted and edited copy on
		// write: the copy is cheap and leaves d's tree as it was.
		tree = d.tree.Copy()
		defer tree.Close()
	}
	changed := false
	for i, e := range edits {
		if e.Full {
			// A full-content replacement (an editor's change without a
			// range, a reopened buffer) is the one path that carries no
			// real edit: the edit given to tree-sitter is guessed as the
			// span between the texts' common prefix and suffix, which
			// lets it reuse the rest of the tree.
			pre, suf := commonAffixes(src, []byte(e.Text))
			e = Edit{Start: pre, End: len(src) - suf, Text: e.Text[pre : len(e.Text)-suf]}
		} else if err := e.Check(i, len(edits), len(src)); err != nil {
			return nil, err
		}
		if e.Start == e.End && e.Text == "" {
			continue
		}
		next := splice(src, e)
		if tree != nil {
			editTree(tree, inputEdit(src, next, e))
		}
		src, changed = next, true
	}
	if !changed {
		return d, nil
	}
	how := parsedFresh
	if tree != nil {
		how = parsedIncremental
	}
	t, err := d.s.parse(ctx, tree, src)
	if err == nil && how == parsedIncremental && t.RootNode().HasError() {
		t.Close()
		t, err = d.s.parse(ctx, nil, src)
		how = parsedRecovered
	}
	if err != nil {
		return nil, err
	}
	return &Doc{s: d.s, q: d.q, src: src, tree: t, file: extractDoc(d.s, d.q, t, src), how: how}, nil
}

// inputEdit describes e, which turned old into next, to tree-sitter.
func inputEdit(old, next []byte, e Edit) sitter.EditInput {
	newEnd := e.Start + len(e.Text)
	return sitter.EditInput{
		StartIndex:  uint32(e.Start),
		OldEndIndex: uint32(e.End),
		NewEndIndex: uint32(newEnd),
		StartPoint:  pointAt(old, e.Start),
		OldEndPoint: pointAt(old, e.End),
		NewEndPoint: pointAt(next, newEnd),
	}
}

// Text returns the document's text. Callers must not modify it.
func (d *Doc) Text() []byte { return d.src }

// File returns the extraction of the document's text.
func (d *Doc) File() *File { return d.file }

// Close frees the document's tree. Text and File still answer; an Edit
// after Close parses the new text from scratch.
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
// '\n' (tree-sitter's lexer counts no other line break), columns in bytes.
func pointAt(src []byte, off int) sitter.Point {
	row := bytes.Count(src[:off], []byte{'\n'})
	col := off - (bytes.LastIndexByte(src[:off], '\n') + 1)
	return sitter.Point{Row: uint32(row), Column: uint32(col)}
}

package syntax

import (
	"context"
	"runtime"

	sitter "github.com/smacker/go-tree-sitter"
)

// ErrorPos is one place where tree-sitter could not parse a text as its
// language: an ERROR node (text that fits no rule of the grammar) or a
// MISSING node (a token the parser assumed in order to recover, such as a
// closing brace).
type ErrorPos struct {
	// Line is the 0-based line of the node's start and Column its byte
	// offset in that line.
	Line, Column uint32
	// Offset and End are the byte offsets of the node's start and end in
	// the text. A MISSING node is empty: End == Offset.
	Offset, End uint32
	// Missing reports a MISSING node.
	Missing bool
	// Kind is "ERROR" for an ERROR node, and for a MISSING node the kind
	// of node the parser expected there (")", "}", "identifier"), which
	// is what a message about it should name.
	Kind string
}

// SyntaxErrors parses src as lang with tree-sitter and returns the
// positions of its first max ERROR and MISSING nodes in document order
// (all of them when max <= 0). An ERROR node counts once: the errors
// nested in it are not listed, since they are artefacts of the same
// recovery.
//
// Go is parsed with tree-sitter here too, not go/parser: the question is
// only where a text stops parsing, and one parser for every language
// keeps the positions comparable between the texts before and after a
// change.
//
// It returns an error wrapping [ErrUnsupported] for a Language without a
// grammar, and one wrapping ctx.Err() when ctx is done before or during
// the parse. It is safe for concurrent use.
func SyntaxErrors(ctx context.Context, lang Language, src []byte, max int) ([]ErrorPos, error) {
	s, err := lookup(lang)
	if err != nil {
		return nil, err
	}
	// The spec's own pool gives this goroutine a parser of its own and
	// discards one whose parse was cancelled (see spec.parse); the query is
	// not needed, so it is not compiled.
	tree, err := s.parse(ctx, nil, src)
	if err != nil {
		return nil, err
	}
	defer tree.Close()
	out := treeErrors(tree, max)
	// Nodes do not keep their tree alive (dependency-defects.md): the tree
	// stays referenced until the last node has been read.
	runtime.KeepAlive(tree)
	return out, nil
}

// treeErrors walks tree with a cursor, descending only into nodes that
// contain an error, so that a large file with one error costs a walk along
// one path and its siblings rather than the whole tree.
func treeErrors(tree *sitter.Tree, max int) []ErrorPos {
	root := tree.RootNode()
	if root == nil || !root.HasError() {
		return nil
	}
	c := sitter.NewTreeCursor(root)
	defer c.Close()
	var out []ErrorPos
	for {
		n := c.CurrentNode()
		descend := false
		switch {
		case n.IsMissing():
			out = append(out, errorPos(n, true))
		case n.IsError():
			out = append(out, errorPos(n, false))
		case n.HasError():
			descend = true
		}
		if max > 0 && len(out) >= max {
			return out
		}
		if descend && c.GoToFirstChild() {
			continue
		}
		for !c.GoToNextSibling() {
			if !c.GoToParent() {
				return out
			}
		}
	}
}

// errorPos copies a node's position out of the tree.
func errorPos(n *sitter.Node, missing bool) ErrorPos {
	p := n.StartPoint()
	kind := "ERROR"
	if missing {
		kind = n.Type()
	}
	return ErrorPos{
		Line:    p.Row,
		Column:  p.Column,
		Offset:  n.StartByte(),
		End:     n.EndByte(),
		Missing: missing,
		Kind:    kind,
	}
}

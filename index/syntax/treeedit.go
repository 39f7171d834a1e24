package syntax

// go-tree-sitter's Tree.Edit hands tree-sitter the edit's old end point as
// its new end point too (EditInput.c), so after an edit that adds or
// removes line breaks, or changes the length of its last line, the points
// of everything after it would be wrong in the edited tree, and
// tree-sitter's decisions that read points (which nodes an edit invalidates
// in column-sensitive grammars) would rest on them. ts_tree_edit, part of
// the tree-sitter runtime that go-tree-sitter compiles into the binary, is
// declared below from tree-sitter's public C API (api.h) and called with
// the edit as given, as cursor.go does for the query cursor.

/*
#include <stdint.h>

typedef struct {
	uint32_t row;
	uint32_t column;
} ctxd_TSPoint;

typedef struct {
	uint32_t start_byte;
	uint32_t old_end_byte;
	uint32_t new_end_byte;
	ctxd_TSPoint start_point;
	ctxd_TSPoint old_end_point;
	ctxd_TSPoint new_end_point;
} ctxd_TSInputEdit;

void ts_tree_edit(void *self, const ctxd_TSInputEdit *edit);
*/
import "C"

import (
	"reflect"
	"strings"
	"sync/atomic"
	"unsafe"

	sitter "github.com/smacker/go-tree-sitter"
)

// treeField locates the C pointer inside a *sitter.BaseTree: the
// unexported field c of type *C.TSTree. It is looked up by name and type
// once; if a go-tree-sitter upgrade renames or retypes it, ok is false and
// edits go through Tree.Edit (stale points after the edit, which the
// reparse and the extractor do not read; FuzzIncremental checks the
// results either way).
func treeField() (f reflect.StructField, ok bool) {
	f, ok = reflect.TypeFor[sitter.BaseTree]().FieldByName("c")
	ok = ok && f.Type.Kind() == reflect.Pointer &&
		strings.HasSuffix(f.Type.Elem().Name(), "TSTree")
	return f, ok
}

var treeC, treeOK = treeField()

// directEdit is false in tests that check the Tree.Edit path.
var directEdit = func() *atomic.Bool {
	var b atomic.Bool
	b.Store(true)
	return &b
}()

// editTree describes e to tree-sitter on t, which must not be closed.
func editTree(t *sitter.Tree, e sitter.EditInput) {
	if !treeOK || !directEdit.Load() || t.BaseTree == nil {
		t.Edit(e)
		return
	}
	p := *(*unsafe.Pointer)(unsafe.Add(unsafe.Pointer(t.BaseTree), treeC.Offset))
	in := C.ctxd_TSInputEdit{
		start_byte:    C.uint32_t(e.StartIndex),
		old_end_byte:  C.uint32_t(e.OldEndIndex),
		new_end_byte:  C.uint32_t(e.NewEndIndex),
		start_point:   cPoint(e.StartPoint),
		old_end_point: cPoint(e.OldEndPoint),
		new_end_point: cPoint(e.NewEndPoint),
	}
	C.ts_tree_edit(p, &in)
}

func cPoint(p sitter.Point) C.ctxd_TSPoint {
	return C.ctxd_TSPoint{row: C.uint32_t(p.Row), column: C.uint32_t(p.Column)}
}

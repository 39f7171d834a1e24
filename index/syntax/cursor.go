package syntax

// The tree-sitter runtime compiled by go-tree-sitter provides this function,
// but go-tree-sitter does not wrap it; it is declared here (with the cursor
// as void*) and resolved when the binary is linked.

/*
#include <stdint.h>
void ts_query_cursor_set_max_start_depth(void *self, uint32_t max_start_depth);
*/
import "C"

import (
	"reflect"
	"strings"
	"unsafe"

	sitter "github.com/smacker/go-tree-sitter"
)

// cursorField locates the C pointer inside a *sitter.QueryCursor: the
// unexported field c of type *C.TSQueryCursor. It is looked up by name and
// type once; if a go-tree-sitter upgrade renames or retypes it, ok is false
// and cursors run without a start depth limit (slower, same results).
var cursorField = func() (f reflect.StructField, ok bool) {
	f, ok = reflect.TypeFor[sitter.QueryCursor]().FieldByName("c")
	ok = ok && f.Type.Kind() == reflect.Pointer &&
		strings.HasSuffix(f.Type.Elem().Name(), "TSQueryCursor")
	return f, ok
}

var queryCursorC, queryCursorOK = cursorField()

// limitStartDepth makes qc start patterns only at nodes at most depth levels
// below the node it executes on. Patterns still in progress descend as deep
// as they need, but subtrees that no pattern can use are not visited at all:
// for the Go query, rooted at source_file, that is every function body.
// It reports whether the limit could be set.
func limitStartDepth(qc *sitter.QueryCursor, depth uint32) bool {
	if !queryCursorOK {
		return false
	}
	p := *(*unsafe.Pointer)(unsafe.Add(unsafe.Pointer(qc), queryCursorC.Offset))
	if p == nil {
		return false
	}
	C.ts_query_cursor_set_max_start_depth(p, C.uint32_t(depth))
	return true
}

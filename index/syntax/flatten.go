package syntax

// The tree flattener the uses extractors of C#, Java, JavaScript, TypeScript
// and Python read. Walking a tree through go-tree-sitter costs several cgo
// calls and a Go allocation per node; flatten instead has a C function walk
// it with a tree cursor and write every node (its kind and field codes, its
// span, its parent and the end of its subtree) straight into a Go slice, a
// batch per cgo call (one call unless the slice must grow). The extractors
// then walk that slice without any cgo call. The nodes are plain values: they
// outlive the tree, which may be closed as soon as flatten returns.
//
// The C types below mirror tree-sitter's api.h (TSNode, TSTreeCursor); the
// functions are the runtime's, linked into the binary by go-tree-sitter.

/*
#include <stdint.h>
#include <stdbool.h>
#include <stdlib.h>

typedef struct {
	uint32_t context[4];
	const void *id;
	const void *tree;
} ctxd_flat_tsnode;

typedef struct {
	const void *tree;
	const void *id;
	uint32_t context[3];
} ctxd_flat_cursor;

ctxd_flat_cursor ts_tree_cursor_new(ctxd_flat_tsnode node);
void ts_tree_cursor_delete(ctxd_flat_cursor *self);
ctxd_flat_tsnode ts_tree_cursor_current_node(const ctxd_flat_cursor *self);
uint16_t ts_tree_cursor_current_field_id(const ctxd_flat_cursor *self);
bool ts_tree_cursor_goto_first_child(ctxd_flat_cursor *self);
bool ts_tree_cursor_goto_next_sibling(ctxd_flat_cursor *self);
bool ts_tree_cursor_goto_parent(ctxd_flat_cursor *self);
uint16_t ts_node_symbol(ctxd_flat_tsnode node);
bool ts_node_is_named(ctxd_flat_tsnode node);
uint32_t ts_node_start_byte(ctxd_flat_tsnode node);
uint32_t ts_node_end_byte(ctxd_flat_tsnode node);

// ctxd_flat_node is the layout of flatNode.
typedef struct {
	uint8_t kind, field;
	uint16_t pad;
	uint32_t start, end;
	int32_t parent, next;
} ctxd_flat_node;

// ctxd_flat_walk is the state of a walk, kept between batches.
typedef struct {
	ctxd_flat_cursor cur;
	uint32_t n;        // nodes written
	int32_t parent;    // the innermost written ancestor of the cursor's node
	uint32_t depth;    // the cursor's depth below the root
	uint32_t scap;     // the capacity of written
	uint8_t *written;  // per depth: the node there was written
	int named_only;
} ctxd_flat_walk;

static ctxd_flat_walk *ctxd_flat_start(ctxd_flat_tsnode root, int named_only) {
	ctxd_flat_walk *w = malloc(sizeof *w);
	if (w == NULL) {
		return NULL;
	}
	w->scap = 256;
	w->written = malloc(w->scap);
	if (w->written == NULL) {
		free(w);
		return NULL;
	}
	w->cur = ts_tree_cursor_new(root);
	w->n = 0;
	w->parent = -1;
	w->depth = 0;
	w->named_only = named_only;
	return w;
}

static void ctxd_flat_end(ctxd_flat_walk *w) {
	ts_tree_cursor_delete(&w->cur);
	free(w->written);
	free(w);
}

// ctxd_flat_run continues the pre-order walk, writing the nodes (every
// node, or the named ones only) to buf, which holds the nodes written so
// far and room for cap in all; kinds and fields map symbol and field ids
// to codes. It returns the number of nodes once the walk is over, -1 when
// buf is full (call again with a larger copy of it), -2 when out of memory.
static int64_t ctxd_flat_run(ctxd_flat_walk *w, ctxd_flat_node *buf, uint32_t cap,
		const uint8_t *kinds, const uint8_t *fields) {
	for (;;) {
		ctxd_flat_tsnode node = ts_tree_cursor_current_node(&w->cur);
		bool write = !w->named_only || ts_node_is_named(node);
		if (write && w->n >= cap) {
			return -1;
		}
		if (w->depth >= w->scap) {
			uint8_t *s = realloc(w->written, 2 * (size_t)w->scap);
			if (s == NULL) {
				return -2;
			}
			w->written = s;
			w->scap *= 2;
		}
		w->written[w->depth] = write;
		int32_t me = -1;
		if (write) {
			me = (int32_t)w->n++;
			ctxd_flat_node *o = buf + me;
			o->kind = kinds[ts_node_symbol(node)];
			o->field = fields[ts_tree_cursor_current_field_id(&w->cur)];
			o->pad = 0;
			o->start = ts_node_start_byte(node);
			o->end = ts_node_end_byte(node);
			o->parent = w->parent;
			o->next = (int32_t)w->n;
		}
		if (ts_tree_cursor_goto_first_child(&w->cur)) {
			if (write) {
				w->parent = me;
			}
			w->depth++;
			continue;
		}
		for (;;) {
			if (w->depth > 0 && ts_tree_cursor_goto_next_sibling(&w->cur)) {
				break;
			}
			if (w->depth == 0 || !ts_tree_cursor_goto_parent(&w->cur)) {
				return w->n;
			}
			w->depth--;
			if (w->written[w->depth]) {
				buf[w->parent].next = (int32_t)w->n;
				w->parent = buf[w->parent].parent;
			}
		}
	}
}
*/
import "C"

import (
	"reflect"
	"slices"
	"sync"
	"unsafe"

	sitter "github.com/smacker/go-tree-sitter"
)

// flatNode is one node of a flattened tree, in pre-order. K and F are the
// extractor's codes for node kinds and fields (0 for the ones it ignores).
type flatNode[K, F ~uint8] struct {
	kind       K
	field      F
	_          uint16
	start, end uint32
	parent     int32 // the parent's index, -1 for the root
	next       int32 // the index just past the node's subtree
}

// flatTable maps a grammar's symbol and field ids to an extractor's codes.
type flatTable struct {
	kinds  []uint8          // by symbol id, 1<<16 entries
	fields []uint8          // by field id, 1<<16 entries
	byName map[string]uint8 // field name → code, for the slow walk
}

// newFlatTable builds the table of language l: named maps the names of
// named node types to kinds, anon those of anonymous ones (and of the
// grammar's hidden symbols), fields the field names.
func newFlatTable[K, F ~uint8](l *sitter.Language, named, anon map[string]K, fields map[string]F) *flatTable {
	t := &flatTable{kinds: make([]uint8, 1<<16), fields: make([]uint8, 1<<16), byName: map[string]uint8{}}
	for i := uint32(0); i < l.SymbolCount() && i < 1<<16; i++ {
		sym := sitter.Symbol(i)
		if l.SymbolType(sym) == sitter.SymbolTypeRegular {
			t.kinds[i] = uint8(named[l.SymbolName(sym)])
		} else {
			t.kinds[i] = uint8(anon[l.SymbolName(sym)])
		}
	}
	for i := 1; i < 1<<12; i++ {
		name := l.FieldName(i)
		if name == "" {
			break
		}
		t.fields[i] = uint8(fields[name])
	}
	for name, f := range fields {
		t.byName[name] = uint8(f)
	}
	return t
}

// flatNodeC locates the C node inside a *sitter.Node (its unexported field
// c of type C.TSNode); ok is false if a go-tree-sitter upgrade changed it,
// and the tree is then walked through go-tree-sitter's API (slower, same
// result).
var flatNodeC, flatNodeOK = func() (reflect.StructField, bool) {
	f, ok := reflect.TypeFor[sitter.Node]().FieldByName("c")
	ok = ok && f.Type.Kind() == reflect.Struct && f.Type.Size() == unsafe.Sizeof(C.ctxd_flat_tsnode{}) &&
		unsafe.Sizeof(flatNode[uint8, uint8]{}) == unsafe.Sizeof(C.ctxd_flat_node{}) &&
		unsafe.Offsetof(flatNode[uint8, uint8]{}.start) == unsafe.Offsetof(C.ctxd_flat_node{}.start) &&
		unsafe.Offsetof(flatNode[uint8, uint8]{}.next) == unsafe.Offsetof(C.ctxd_flat_node{}.next)
	return f, ok
}()

// flatten returns the nodes of the tree under root in pre-order, every node
// or, with namedOnly, the named ones (a node's parent is then its nearest
// named ancestor); nil for a nil root. srcLen, the source's length, sizes
// the result.
func flatten[K, F ~uint8](root *sitter.Node, t *flatTable, namedOnly bool, srcLen int) []flatNode[K, F] {
	if root == nil {
		return nil
	}
	if flatNodeOK && fastCursor.Load() {
		size := srcLen/3 + 64
		if namedOnly {
			size = srcLen/5 + 64
		}
		if nodes, ok := flattenFast[K, F](root, t, namedOnly, size); ok {
			return nodes
		}
	}
	return flattenSlow[K, F](root, t, namedOnly)
}

// flatBufs holds the buffers the C walk writes to, reused across walks;
// the result is an exact-size copy.
var flatBufs = sync.Pool{New: func() any { return new([]flatNode[uint8, uint8]) }}

func flattenFast[K, F ~uint8](root *sitter.Node, t *flatTable, namedOnly bool, size int) ([]flatNode[K, F], bool) {
	named := C.int(0)
	if namedOnly {
		named = 1
	}
	w := C.ctxd_flat_start(*(*C.ctxd_flat_tsnode)(unsafe.Add(unsafe.Pointer(root), flatNodeC.Offset)), named)
	if w == nil {
		return nil, false
	}
	defer C.ctxd_flat_end(w)
	bp := flatBufs.Get().(*[]flatNode[uint8, uint8])
	defer flatBufs.Put(bp)
	if len(*bp) < size {
		*bp = make([]flatNode[uint8, uint8], size)
	}
	for {
		buf := *bp
		n := int64(C.ctxd_flat_run(w, (*C.ctxd_flat_node)(unsafe.Pointer(&buf[0])), C.uint32_t(len(buf)),
			(*C.uint8_t)(&t.kinds[0]), (*C.uint8_t)(&t.fields[0])))
		switch {
		case n >= 0:
			// Same layout for every K and F.
			return slices.Clone(unsafe.Slice((*flatNode[K, F])(unsafe.Pointer(&buf[0])), n)), true
		case n == -1 && len(buf) < 1<<30:
			grown := make([]flatNode[uint8, uint8], 2*len(buf))
			copy(grown, buf)
			*bp = grown
		default:
			return nil, false
		}
	}
}

// flattenSlow is flatten through go-tree-sitter's API.
func flattenSlow[K, F ~uint8](root *sitter.Node, t *flatTable, namedOnly bool) []flatNode[K, F] {
	c := sitter.NewTreeCursor(root)
	defer c.Close()
	var nodes []flatNode[K, F]
	var written []bool // per depth
	parent := int32(-1)
	for {
		node := c.CurrentNode()
		write := !namedOnly || node.IsNamed()
		me := int32(-1)
		if write {
			me = int32(len(nodes))
			nodes = append(nodes, flatNode[K, F]{
				kind: K(t.kinds[node.Symbol()]), field: F(t.byName[c.CurrentFieldName()]),
				start: node.StartByte(), end: node.EndByte(), parent: parent, next: me + 1,
			})
		}
		written = append(written, write)
		if c.GoToFirstChild() {
			if write {
				parent = me
			}
			continue
		}
		for {
			if len(written) > 1 && c.GoToNextSibling() {
				written = written[:len(written)-1]
				break
			}
			if len(written) == 1 || !c.GoToParent() {
				return nodes
			}
			written = written[:len(written)-1]
			if written[len(written)-1] {
				nodes[parent].next = int32(len(nodes))
				parent = nodes[parent].parent
			}
		}
	}
}

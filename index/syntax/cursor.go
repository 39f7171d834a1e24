package syntax

// go-tree-sitter wraps neither ts_query_cursor_set_max_start_depth nor a way
// to read matches without allocating a Go node (and a map entry) per
// capture and making two more cgo calls per capture for its byte offsets.
// Both matter: the first lets a query skip function bodies, the second is
// most of the Go side of running a query. The functions are part of the
// tree-sitter runtime that go-tree-sitter compiles into the binary; they and
// the types of tree-sitter's public C API (api.h) that they use are declared
// below and resolved when the binary is linked.

/*
#include <stdint.h>
#include <stdbool.h>

typedef struct {
	uint32_t context[4];
	const void *id;
	const void *tree;
} ctxd_TSNode;

typedef struct {
	ctxd_TSNode node;
	uint32_t index;
} ctxd_TSQueryCapture;

typedef struct {
	uint32_t id;
	uint16_t pattern_index;
	uint16_t capture_count;
	const ctxd_TSQueryCapture *captures;
} ctxd_TSQueryMatch;

void ts_query_cursor_set_max_start_depth(void *self, uint32_t max_start_depth);
bool ts_query_cursor_next_match(void *self, ctxd_TSQueryMatch *match);
uint32_t ts_node_start_byte(ctxd_TSNode node);
uint32_t ts_node_end_byte(ctxd_TSNode node);

// ctxd_drain writes the cursor's next matches to buf, each as
// pattern index, capture count, then capture index, start byte, end byte
// per capture. It stops when fewer than reserve words are left (a match
// with more captures than reserve allows is cut to fit) or when the
// matches are exhausted, and sets *done then. It returns the words written.
static uint32_t ctxd_drain(void *cursor, uint32_t *buf, uint32_t cap, uint32_t reserve, int *done) {
	uint32_t n = 0;
	ctxd_TSQueryMatch m;
	*done = 0;
	while (cap - n >= reserve) {
		if (!ts_query_cursor_next_match(cursor, &m)) {
			*done = 1;
			return n;
		}
		uint32_t count = m.capture_count;
		if (2 + 3 * count > reserve) {
			count = (reserve - 2) / 3;
		}
		buf[n++] = m.pattern_index;
		buf[n++] = count;
		for (uint32_t i = 0; i < count; i++) {
			buf[n++] = m.captures[i].index;
			buf[n++] = ts_node_start_byte(m.captures[i].node);
			buf[n++] = ts_node_end_byte(m.captures[i].node);
		}
	}
	return n;
}
*/
import "C"

import (
	"reflect"
	"strings"
	"sync/atomic"
	"unsafe"

	sitter "github.com/smacker/go-tree-sitter"
)

// cursorField locates the C pointer inside a *sitter.QueryCursor: the
// unexported field c of type *C.TSQueryCursor. It is looked up by name and
// type once; if a go-tree-sitter upgrade renames or retypes it, ok is false
// and queries run through go-tree-sitter's own API (slower, same results;
// TestDrainPaths checks that).
func cursorField() (f reflect.StructField, ok bool) {
	f, ok = reflect.TypeFor[sitter.QueryCursor]().FieldByName("c")
	ok = ok && f.Type.Kind() == reflect.Pointer &&
		strings.HasSuffix(f.Type.Elem().Name(), "TSQueryCursor")
	return f, ok
}

var queryCursorC, queryCursorOK = cursorField()

// fastCursor is false in tests that check the go-tree-sitter path.
var fastCursor = func() *atomic.Bool {
	var b atomic.Bool
	b.Store(true)
	return &b
}()

// cursorPtr returns the C cursor of qc, or nil.
func cursorPtr(qc *sitter.QueryCursor) unsafe.Pointer {
	if !queryCursorOK || !fastCursor.Load() {
		return nil
	}
	return *(*unsafe.Pointer)(unsafe.Add(unsafe.Pointer(qc), queryCursorC.Offset))
}

// limitStartDepth makes qc start patterns only at nodes at most depth levels
// below the node it executes on. Patterns still in progress descend as deep
// as they need, but subtrees that no pattern can use are not visited at all.
// It reports whether the limit could be set.
func limitStartDepth(qc *sitter.QueryCursor, depth uint32) bool {
	p := cursorPtr(qc)
	if p == nil {
		return false
	}
	C.ts_query_cursor_set_max_start_depth(p, C.uint32_t(depth))
	return true
}

// rawCapture is a capture as the extractor needs it.
type rawCapture struct {
	index      uint32 // capture id
	start, end uint32 // byte offsets
}

// maxCaptures bounds the captures of one match read by drainMatches; no
// pattern of the queries comes near it (TestQueries checks).
const maxCaptures = 64

// drainMatches calls fn for every match of the executed cursor, in the
// cursor's order, with the captures in the match's order. It reads the
// matches in batches in one cgo call each when it can reach the C cursor,
// and through go-tree-sitter's NextMatch otherwise. Predicates are applied
// either way (see compiledQuery.keep). caps is reused between calls.
func drainMatches(qc *sitter.QueryCursor, cq *compiledQuery, src []byte, fn func(pattern int, caps []rawCapture)) {
	var caps []rawCapture
	if p := cursorPtr(qc); p != nil {
		buf := make([]uint32, 1<<13)
		const reserve = 2 + 3*maxCaptures
		for {
			var done C.int
			n := C.ctxd_drain(p, (*C.uint32_t)(unsafe.Pointer(&buf[0])), C.uint32_t(len(buf)), reserve, &done)
			for i := uint32(0); i < uint32(n); {
				pattern, count := int(buf[i]), buf[i+1]
				i += 2
				caps = caps[:0]
				for range count {
					caps = append(caps, rawCapture{index: buf[i], start: buf[i+1], end: buf[i+2]})
					i += 3
				}
				if cq.keep(pattern, caps, src) {
					fn(pattern, caps)
				}
			}
			if done != 0 {
				return
			}
		}
	}
	for {
		m, ok := qc.NextMatch()
		if !ok {
			return
		}
		if cq.hasPred[m.PatternIndex] {
			m = qc.FilterPredicates(m, src)
			if len(m.Captures) == 0 {
				continue
			}
		}
		caps = caps[:0]
		for _, c := range m.Captures {
			caps = append(caps, rawCapture{index: c.Index, start: c.Node.StartByte(), end: c.Node.EndByte()})
		}
		fn(int(m.PatternIndex), caps)
	}
}

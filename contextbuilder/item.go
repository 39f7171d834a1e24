package contextbuilder

import (
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/index/relate"
)

// item is one block candidate: a target file, a related file or symbol, a
// thread reference, or one of the fixed blocks (system, constraints, …).
// The steps annotate it as it goes: the candidates step reads targets and
// sets levels, the exclusions step marks it, ranking scores it, fit reads
// and slices it, rendering memoizes its block per level.
type item struct {
	typ      BlockType
	priority Priority
	path     string // "" for blocks not from a file
	symbol   string // qualified name, symbol blocks
	symIdx   int    // index in the file's syntax symbols, symbol blocks
	reason   IncludeReason
	weight   int
	hops     int
	score    int
	target   bool
	source   Source
	// outside marks a related candidate outside the policy's namespaces
	// (the exclusions step); fit records its exclusion when it reaches it.
	outside bool

	file    *index.File
	text    []byte
	li      *lineIndex
	regions []span // target regions (byte spans), for TARGET_REGION_ONLY

	levels  []Level // the levels this block may take, most complete first
	level   int     // index into levels
	fixed   string  // content of a block not from a file
	errPath string  // the indexed file last_error names, error_context
	title   string  // title of a block not from a file

	symIdxs []int       // target symbols of a target file
	spec    *targetSpec // the explicit target, P0 target files
	thread  *ThreadRef  // the thread event of a thread block, else nil

	cache map[Level]*rendering
}

// relateRef is a definition found through the relation graph.
type relateRef = relate.SymbolRef

// rendering is an item's block at one level: what is sent, what it costs
// and what was taken out of it.
type rendering struct {
	title, content string
	tokens         int
	redactions     []Redaction
	// risk is non-empty when the text holds a secret that cannot be
	// removed by redacting spans: it names the rule, or is riskUnscannable.
	risk string
	desc string // the slice's line ranges, for content_sliced details
	// lines is the line count of the file a slice or symbol is cut from,
	// for content_sliced details; 0 for a whole file.
	lines int
}

// label names an item in notes and details.
func (it *item) label() string {
	if it.typ == BlockSymbol {
		return it.symbol + " in " + it.path
	}
	if it.path != "" {
		return it.path
	}
	return it.title
}

// reportName is what the redaction report calls a block: its path, or its
// title for a block not from a file.
func (it *item) reportName(r *rendering) string {
	if it.path != "" {
		return it.path
	}
	return r.title
}

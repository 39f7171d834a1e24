package syntax

import (
	"bytes"
	"cmp"
	"slices"
	"sort"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// role is what the extractor does with a capture; see doc.go for the
// capture names.
type role uint8

const (
	roleIgnore       role = iota // @_name: predicate operands
	roleDefinition               // @definition.<kind>, @definition
	roleName                     // @name
	roleBody                     // @body
	roleRange                    // @range
	roleReceiver                 // @receiver
	roleBase                     // @base
	roleExported                 // @exported
	roleUnexported               // @unexported
	roleOpen                     // @open
	roleScope                    // @scope
	roleImport                   // @import.<kind>
	roleImportPath               // @import.path
	roleImportSystem             // @import.system
	rolePackage                  // @package
	roleAttribute                // @attribute
	roleExportName               // @export.name
	roleText                     // @text
	roleLocal                    // @local
)

// capture is the meaning of one capture name.
type capture struct {
	role role
	kind SymbolKind // roleDefinition: empty for a bare @definition
	imp  ImportKind // roleImport
}

var simpleCaptures = map[string]role{
	"definition":    roleDefinition,
	"name":          roleName,
	"body":          roleBody,
	"range":         roleRange,
	"receiver":      roleReceiver,
	"base":          roleBase,
	"exported":      roleExported,
	"unexported":    roleUnexported,
	"open":          roleOpen,
	"scope":         roleScope,
	"import.path":   roleImportPath,
	"import.system": roleImportSystem,
	"package":       rolePackage,
	"attribute":     roleAttribute,
	"export.name":   roleExportName,
	"text":          roleText,
	"local":         roleLocal,
}

var importKinds = []ImportKind{
	ImportPackage, ImportModule, ImportNamespace, ImportInclude, ImportMod, ImportUse,
}

// parseCapture interprets a capture name of the convention; ok is false for
// a name outside it.
func parseCapture(name string) (c capture, ok bool) {
	if strings.HasPrefix(name, "_") {
		return capture{role: roleIgnore}, true
	}
	if r, ok := simpleCaptures[name]; ok {
		return capture{role: r}, true
	}
	if k, ok := strings.CutPrefix(name, "definition."); ok {
		if kind, ok := KindNamed(k); ok {
			return capture{role: roleDefinition, kind: kind}, true
		}
	}
	if k, ok := strings.CutPrefix(name, "import."); ok {
		if i := slices.Index(importKinds, ImportKind(k)); i >= 0 {
			return capture{role: roleImport, imp: importKinds[i]}, true
		}
	}
	return capture{}, false
}

// span is a byte range of the source.
type span struct{ start, end uint32 }

func (s span) len() uint32 { return s.end - s.start }

// record gathers what the matches say about one declaration, identified by
// its definition node and name node.
type record struct {
	node    span
	name    span
	kind    SymbolKind
	kindPat int // pattern index that set kind; the highest wins
	body    span
	hasBody bool
	rng     span // the widest of node and every @range
	recv    span
	hasRecv bool
	bases   []span
	marks   marks
	open    bool
}

// annotation is a match without @name: facts about whatever declarations
// have its definition node.
type annotation struct {
	pattern int
	node    span
	kind    SymbolKind
	body    span
	hasBody bool
	recv    span
	hasRecv bool
	bases   []span
	marks   marks
	open    bool
}

// scope is a container that is not a symbol (a Rust impl block).
type scope struct {
	node  span
	name  span
	bases []span
}

type importRec struct {
	node   span
	path   span
	kind   ImportKind
	system bool
}

type recKey struct {
	node span
	name uint32
}

// extractor turns query matches into a File. It reads the source, never the
// tree: every position it needs comes from the captures.
type extractor struct {
	s   *spec
	src []byte

	records []*record
	byKey   map[recKey]*record
	annots  []annotation
	scopes  []*scope
	imports []importRec
	trivia  []trivium
	texts   []span
	locals  []span
	ranges  []span
	exports map[string]bool
	pkg     string

	lines lineIndex
}

// trivium is a comment or an attribute: what may sit between a
// declaration and its doc comment.
type trivium struct {
	span
	comment bool
}

// extract runs the language's query over tree and builds the File.
func extract(s *spec, cq *compiledQuery, tree *sitter.Tree, src []byte) *File {
	f := extractSymbols(s, cq, tree, src)
	addUses(s.lang, tree.RootNode(), src, f)
	return f
}

// extractSymbols is extract without the uses.
func extractSymbols(s *spec, cq *compiledQuery, tree *sitter.Tree, src []byte) *File {
	root := tree.RootNode()
	qc := sitter.NewQueryCursor()
	defer qc.Close()
	if s.startDepth > 0 {
		limitStartDepth(qc, s.startDepth)
	}
	qc.Exec(cq.q, root)
	x := &extractor{s: s, src: src, byKey: map[recKey]*record{}}
	drainMatches(qc, cq, src, func(pattern int, caps []rawCapture) {
		x.match(cq, pattern, caps)
	})
	f := x.file()
	f.HasErrors = root.HasError()
	return f
}

func (x *extractor) text(s span) string { return string(x.src[s.start:s.end]) }

// match files the captures of one match.
func (x *extractor) match(cq *compiledQuery, pat int, caps []rawCapture) {
	var (
		def, name, body, rng, recv, scopeNode, imp, ipath span
		hasDef, hasName, hasBody, hasRng, hasRecv         bool
		hasScope, hasImp, hasPath, system                 bool
		kind                                              SymbolKind
		ikind                                             ImportKind
		bases                                             []span
		mk                                                marks
		open                                              bool
	)
	for _, c := range caps {
		info := cq.caps[c.index]
		if info.role == roleIgnore {
			continue
		}
		sp := span{c.start, c.end}
		switch info.role {
		case roleDefinition:
			def, hasDef, kind = sp, true, info.kind
		case roleName:
			name, hasName = sp, true
		case roleBody:
			body, hasBody = sp, true
		case roleRange:
			rng, hasRng = sp, true
		case roleReceiver:
			recv, hasRecv = sp, true
		case roleBase:
			bases = append(bases, sp)
		case roleExported:
			mk.exported = true
		case roleUnexported:
			mk.unexported = true
		case roleOpen:
			open = true
		case roleScope:
			scopeNode, hasScope = sp, true
		case roleImport:
			imp, hasImp, ikind = sp, true, info.imp
		case roleImportPath:
			ipath, hasPath = sp, true
		case roleImportSystem:
			system = true
		case rolePackage:
			x.pkg = noSpace(stripComments(x.text(sp)))
		case roleAttribute:
			x.trivia = append(x.trivia, trivium{sp, false})
		case roleExportName:
			if x.exports == nil {
				x.exports = map[string]bool{}
			}
			x.exports[x.text(sp)] = true
		case roleText:
			x.texts = append(x.texts, sp)
		case roleLocal:
			x.locals = append(x.locals, sp)
		}
	}
	switch {
	case hasScope:
		if hasName {
			x.scopes = append(x.scopes, &scope{node: scopeNode, name: name, bases: bases})
		}
	case hasDef && hasName:
		k := recKey{def, name.start}
		r := x.byKey[k]
		if r == nil {
			r = &record{node: def, name: name, kindPat: -1, rng: def}
			x.byKey[k] = r
			x.records = append(x.records, r)
		}
		a := annotation{pattern: pat, node: def, kind: kind, body: body, hasBody: hasBody,
			recv: recv, hasRecv: hasRecv, bases: bases, marks: mk, open: open}
		r.apply(&a)
	case hasDef:
		x.annots = append(x.annots, annotation{pattern: pat, node: def, kind: kind, body: body,
			hasBody: hasBody, recv: recv, hasRecv: hasRecv, bases: bases, marks: mk, open: open})
	}
	if hasRng {
		x.ranges = append(x.ranges, rng)
	}
	if hasImp && hasPath {
		x.imports = append(x.imports, importRec{node: imp, path: ipath, kind: ikind, system: system})
	}
}

// apply merges what one match says into the record.
func (r *record) apply(a *annotation) {
	if a.kind != 0 && a.pattern >= r.kindPat {
		r.kind, r.kindPat = a.kind, a.pattern
	}
	if a.hasBody && !r.hasBody {
		r.body, r.hasBody = a.body, true
	}
	if a.hasRecv && !r.hasRecv {
		r.recv, r.hasRecv = a.recv, true
	}
	r.bases = append(r.bases, a.bases...)
	r.marks.exported = r.marks.exported || a.marks.exported
	r.marks.unexported = r.marks.unexported || a.marks.unexported
	r.open = r.open || a.open
}

// applyRanges widens the range of declarations to the @range nodes around
// them: a range node is the range of the one declaration it contains (with
// whatever that declaration contains). A range node that wraps several
// declarations (a Go group `const ( A = 1; B = 2 )`, `let a = 1, b = 2`) is
// a group, not the range of any one of them, and is ignored. This keeps
// the queries free of anchors, which tree-sitter applies unreliably next to
// hidden nodes, and costs one match per declaration statement.
func (x *extractor) applyRanges() {
	if len(x.ranges) == 0 || len(x.records) == 0 {
		return
	}
	recs := slices.Clone(x.records)
	slices.SortFunc(recs, func(a, b *record) int {
		return cmp.Or(cmp.Compare(a.node.start, b.node.start), cmp.Compare(b.node.end, a.node.end))
	})
	for _, rng := range x.ranges {
		i := sort.Search(len(recs), func(i int) bool { return recs[i].node.start >= rng.start })
		var outer span
		n := 0
		for ; i < len(recs) && recs[i].node.start < rng.end; i++ {
			r := recs[i]
			if r.node.end > rng.end || r.node == outer || (n > 0 && r.node.start < outer.end) {
				continue // not inside, or inside the outer declaration
			}
			outer = r.node
			if n++; n > 1 {
				break
			}
		}
		if n != 1 {
			continue
		}
		for j := sort.Search(len(recs), func(i int) bool { return recs[i].node.start >= outer.start }); j < len(recs) && recs[j].node.start == outer.start; j++ {
			if r := recs[j]; r.node == outer && rng.len() > r.rng.len() {
				r.rng = rng
			}
		}
	}
}

// item is a record, a scope or a local node during nesting.
type item struct {
	node  span
	end   uint32 // node.end, or the end of the file for @open
	rec   *record
	sc    *scope
	local bool // an @local node: what it contains is local
}

// frame is an enclosing container during nesting.
type frame struct {
	start, end uint32
	qname      string
	sym        *Symbol // nil for a scope or local node
	local      bool    // declarations inside are locals and are dropped
}

// kept is a symbol of the File and the record it comes from.
type kept struct {
	sym *Symbol
	rec *record
}

func (x *extractor) file() *File {
	s := x.s
	x.lines = newLineIndex(x.src)

	// Annotations apply to every record with their definition node.
	byNode := make(map[span][]*record, len(x.records))
	for _, r := range x.records {
		byNode[r.node] = append(byNode[r.node], r)
	}
	for i := range x.annots {
		a := &x.annots[i]
		for _, r := range byNode[a.node] {
			r.apply(a)
		}
	}
	x.applyRanges()

	syms, scopeBases := x.nest()

	// The scan finds the references (the names of the symbols left out) and
	// the comments, which the doc comments need.
	names := make([]span, len(syms))
	for i, k := range syms {
		names[i] = k.rec.name
	}
	refs := x.scan(names)
	slices.SortFunc(x.trivia, cmpTrivia)
	x.trivia = slices.CompactFunc(x.trivia, func(a, b trivium) bool { return a.span == b.span })
	for _, k := range syms {
		x.fill(k.sym, k.rec)
	}

	// `impl Trait for Type` adds Trait to the bases of Type when the file
	// declares Type.
	if len(scopeBases) > 0 {
		byName := map[string]*Symbol{}
		for _, k := range syms {
			if k.sym.Kind.IsType() && byName[k.sym.QualifiedName] == nil {
				byName[k.sym.QualifiedName] = k.sym
			}
		}
		for _, sb := range scopeBases {
			if sym := byName[sb.qname]; sym != nil {
				sym.Bases = x.addBases(sym.Bases, sb.bases)
			}
		}
	}

	f := &File{
		Language: s.lang,
		Package:  x.pkg,
		Symbols:  make([]Symbol, 0, len(syms)),
		Imports:  x.importList(),
		Refs:     refs,
	}
	for _, k := range syms {
		f.Symbols = append(f.Symbols, *k.sym)
	}
	slices.SortStableFunc(f.Symbols, func(a, b Symbol) int {
		return cmp.Or(
			cmp.Compare(a.Range.StartByte, b.Range.StartByte),
			cmp.Compare(a.Name, b.Name),
			cmp.Compare(a.Range.EndByte, b.Range.EndByte),
			cmp.Compare(a.Kind, b.Kind),
			cmp.Compare(a.Container, b.Container),
		)
	})
	if s.namespaces {
		for _, sym := range f.Symbols {
			if sym.Kind == Namespace {
				f.Namespaces = append(f.Namespaces, sym.QualifiedName)
			}
		}
		slices.Sort(f.Namespaces)
		f.Namespaces = slices.Compact(f.Namespaces)
	}
	return f
}

// scopeBase is the bases a scope (a Rust `impl Trait for Type`) gives the
// symbol named like it.
type scopeBase struct {
	qname string
	bases []span
}

// nest walks the records, scopes and local nodes from the outside in,
// giving every declaration its container, kind and visibility, and returns
// the symbols of the File: those not inside a function body, a closure
// (@local) or a blank declaration. Ranges, docs and bases are filled later.
func (x *extractor) nest() ([]kept, []scopeBase) {
	s := x.s

	// Scopes found by several patterns merge by node.
	var scopes []*scope
	seenScope := map[span]*scope{}
	for _, sc := range x.scopes {
		if prev := seenScope[sc.node]; prev != nil {
			prev.bases = append(prev.bases, sc.bases...)
			continue
		}
		seenScope[sc.node] = sc
		scopes = append(scopes, sc)
	}

	eof := uint32(len(x.src))
	items := make([]item, 0, len(x.records)+len(scopes)+len(x.locals))
	for _, r := range x.records {
		if r.kind == 0 {
			continue
		}
		it := item{node: r.node, end: r.node.end, rec: r}
		if r.open {
			it.end = eof
		}
		items = append(items, it)
	}
	for _, sc := range scopes {
		items = append(items, item{node: sc.node, end: sc.node.end, sc: sc})
	}
	for _, l := range x.locals {
		items = append(items, item{node: l, end: l.end, local: true})
	}
	slices.SortStableFunc(items, func(a, b item) int {
		return cmp.Or(
			cmp.Compare(a.node.start, b.node.start),
			cmp.Compare(b.end, a.end),
			cmp.Compare(a.nameStart(), b.nameStart()),
		)
	})

	var syms []kept
	var scopeBases []scopeBase
	var stack []frame
	for _, it := range items {
		for len(stack) > 0 {
			top := stack[len(stack)-1]
			inside := top.start <= it.node.start && it.end <= top.end &&
				!(top.start == it.node.start && top.end == it.end)
			if inside {
				break
			}
			stack = stack[:len(stack)-1]
		}
		var parent *frame
		if len(stack) > 0 {
			parent = &stack[len(stack)-1]
		}
		local := parent != nil && (parent.local || (parent.sym != nil && parent.sym.Kind.IsCallable()))
		container := ""
		var parentSym *Symbol
		if parent != nil {
			container, parentSym = parent.qname, parent.sym
		}

		switch {
		case it.local:
			stack = append(stack, frame{start: it.node.start, end: it.end, local: true})
			continue
		case it.sc != nil:
			qname := join(container, s.container(x.text(it.sc.name)))
			if !local && len(it.sc.bases) > 0 {
				scopeBases = append(scopeBases, scopeBase{qname, it.sc.bases})
			}
			stack = append(stack, frame{start: it.node.start, end: it.end, qname: qname, local: local})
			continue
		}

		r := it.rec
		name := strings.TrimSpace(x.text(r.name))
		if len(name) >= 2 && (name[0] == '"' || name[0] == '\'') && name[len(name)-1] == name[0] {
			name = name[1 : len(name)-1] // a module named by a string
		} else if s.nameSep != "" {
			if i := strings.LastIndex(name, s.nameSep); i >= 0 {
				prefix := strings.ReplaceAll(noSpace(name[:i]), s.nameSep, ".")
				container = join(container, strings.Trim(stripTypeArgs(prefix), "."))
				name = strings.TrimSpace(name[i+len(s.nameSep):])
			}
		}
		if r.hasRecv {
			container = join(container, s.container(x.text(r.recv)))
		}
		kind := r.kind
		if name == "" || name == "_" {
			// A blank declaration declares nothing anyone can refer to, and
			// neither do the fields or methods of a blank type.
			if kind.IsContainer() {
				stack = append(stack, frame{start: it.node.start, end: it.end, local: true})
			}
			continue
		}
		if s.kind != nil {
			kind = s.kind(kind, name, container, parentSym)
		}
		mk := r.marks
		if parent == nil && x.exports[name] {
			mk.exported = true
		}
		sym := &Symbol{
			Name:          name,
			Kind:          kind,
			Container:     container,
			QualifiedName: join(container, name),
			Exported:      s.exported(name, mk, parentSym),
		}
		if kind.IsContainer() {
			stack = append(stack, frame{start: it.node.start, end: it.end, qname: sym.QualifiedName, sym: sym, local: local})
		}
		if !local {
			syms = append(syms, kept{sym, r})
		}
	}
	return syms, scopeBases
}

func (it item) nameStart() uint32 {
	switch {
	case it.rec != nil:
		return it.rec.name.start
	case it.sc != nil:
		return it.sc.name.start
	}
	return it.node.start
}

func join(container, name string) string {
	switch {
	case container == "":
		return name
	case name == "":
		return container
	}
	return container + "." + name
}

// fill sets the ranges, doc and bases of a kept symbol.
func (x *extractor) fill(sym *Symbol, r *record) {
	start := r.rng.start
	end := trimRight(x.src, start, r.rng.end)
	sym.Range = x.lines.rangeOf(start, end)
	sym.Signature = sym.Range
	if r.hasBody && r.body.start > start && r.body.start <= end {
		if e := trimRight(x.src, start, r.body.start); e > start {
			sym.Signature = x.lines.rangeOf(start, e)
		}
	}
	if d, ok := x.doc(start); ok {
		sym.Doc = x.lines.rangeOf(d.start, d.end)
	}
	sym.Bases = x.addBases(nil, r.bases)
}

// addBases appends the normalized names of the base nodes, in source order,
// without duplicates.
func (x *extractor) addBases(out []string, nodes []span) []string {
	if len(nodes) == 0 {
		return out
	}
	nodes = slices.Clone(nodes)
	slices.SortFunc(nodes, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	for _, n := range nodes {
		b := x.s.base(x.text(n))
		if b != "" && !slices.Contains(out, b) {
			out = append(out, b)
		}
	}
	return out
}

// doc finds the doc comment of a declaration starting at pos: the
// contiguous doc-style comments directly above it, each first on its line,
// with no blank line between them or before the declaration. Attributes
// (Rust #[...]) between the comments and the declaration are skipped.
func (x *extractor) doc(pos uint32) (span, bool) {
	if len(x.trivia) == 0 {
		return span{}, false
	}
	j := sort.Search(len(x.trivia), func(i int) bool { return x.trivia[i].end > pos }) - 1
	var d span
	found := false
	cur := pos
	for ; j >= 0; j-- {
		t := x.trivia[j]
		if t.end > cur { // nested in the trivium after it
			break
		}
		gap := x.src[t.end:cur]
		if !isBlank(gap) || bytes.Count(gap, []byte{'\n'}) > 1 {
			break
		}
		if !t.comment {
			if found {
				break
			}
			cur = t.start
			continue
		}
		if !x.s.isDoc(x.src[t.start:t.end]) || !x.startsLine(t.start) {
			break
		}
		if !found {
			d.end = t.end
			found = true
		}
		d.start = t.start
		cur = t.start
	}
	return d, found
}

func cmpTrivia(a, b trivium) int {
	return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.end, b.end))
}

// startsLine reports whether only spaces and tabs precede pos on its line.
func (x *extractor) startsLine(pos uint32) bool {
	for i := int(pos) - 1; i >= 0; i-- {
		switch x.src[i] {
		case ' ', '\t':
		case '\n':
			return true
		default:
			return false
		}
	}
	return true
}

func isBlank(b []byte) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\n', '\r', '\f', '\v':
		default:
			return false
		}
	}
	return true
}

// trimRight returns end moved back over trailing white space, not before
// start.
func trimRight(src []byte, start, end uint32) uint32 {
	for end > start {
		switch src[end-1] {
		case ' ', '\t', '\n', '\r', '\f', '\v':
			end--
			continue
		}
		break
	}
	return end
}

// importList expands the import records in source order.
func (x *extractor) importList() []Import {
	out := []Import{}
	slices.SortStableFunc(x.imports, func(a, b importRec) int {
		return cmp.Or(cmp.Compare(a.node.start, b.node.start), cmp.Compare(a.path.start, b.path.start))
	})
	var last importRec
	for i, im := range x.imports {
		if i > 0 && im == last {
			continue
		}
		last = im
		end := trimRight(x.src, im.node.start, im.node.end)
		rng := x.lines.rangeOf(im.node.start, end)
		for _, p := range x.s.importPaths(x.text(im.path)) {
			if p != "" {
				out = append(out, Import{Path: p, Kind: im.kind, System: im.system, Range: rng})
			}
		}
	}
	return out
}

// lineIndex maps byte offsets to points. tree-sitter counts rows at '\n'
// only and columns in bytes; so does this.
type lineIndex []uint32

func newLineIndex(src []byte) lineIndex {
	l := make(lineIndex, 1, len(src)/32+1)
	for i := 0; ; {
		j := bytes.IndexByte(src[i:], '\n')
		if j < 0 {
			return l
		}
		i += j + 1
		l = append(l, uint32(i))
	}
}

func (l lineIndex) point(off uint32) Point {
	i := sort.Search(len(l), func(i int) bool { return l[i] > off }) - 1
	return Point{Line: uint32(i), Column: off - l[i]}
}

func (l lineIndex) rangeOf(start, end uint32) Range {
	return Range{Start: l.point(start), End: l.point(end), StartByte: start, EndByte: end}
}

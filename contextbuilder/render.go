package contextbuilder

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// bundled is the output of the render step: the blocks in bundle order
// with what they leave out recorded, and — except for ctxd.budget — the
// bundle's identity.
type bundled struct {
	fitted
	correlationID string
	bundleID      string
	fingerprint   string // bundle_fingerprint
	// built are the bundle's blocks, kept by a build only: a manifest
	// needs their fingerprint, not the blocks.
	built []Block
	// canonBlocks is the JCS form of built that bundle_fingerprint
	// hashed, kept by a build for its artifact and reply.
	canonBlocks []byte
}

// render runs the render step: it orders the blocks (INV-CONTEXT-1) and
// records their redactions and slices; then, unless this is ctxd.budget,
// it makes each block (content, meta, block_id) and hashes it into
// bundle_fingerprint as it goes.
func (e *env) render(f fitted) (bundled, error) {
	sortItems(f.blocks)
	e.account(f.blocks, &f.trail)
	b := bundled{fitted: f}
	if e.mode == modeBudget {
		return b, nil
	}
	req, err := canonical(portableRequest(e.snap, e.root, e.req))
	if err != nil {
		return b, err
	}
	b.correlationID = e.req.CorrelationID
	if b.correlationID == "" {
		b.correlationID = derivedCorrelation(req)
	}
	// A build keeps the canonical blocks: sized from the rendered contents
	// (memoized by now), with room for escapes and each block's members.
	size := 0
	if e.mode == modeBuild {
		for _, it := range f.blocks {
			size += len(e.rendered(it).content)*9/8 + 640
		}
	}
	h := newBundleHash(e.mode == modeBuild, size)
	// block_id: from the bundle's inputs (INV-CONTEXT-2: the index and
	// config fingerprints and the canonical request) and the block's
	// position and sort key, so ids are stable and unique.
	inputs := strings.Join([]string{e.root.Fingerprint(), e.configFP, string(req)}, "\x00")
	if e.mode == modeBuild {
		b.built = make([]Block, 0, len(f.blocks))
	}
	for i, it := range f.blocks {
		blk := e.block(it)
		key := strings.Join([]string{string(blk.Priority), string(blk.BlockType), deref(blk.Meta.Path), deref(blk.Meta.Symbol), blk.Title}, "\x00")
		blk.BlockID = uuidOf("ctxd.block", inputs, fmt.Sprint(i), key)
		h.block(&blk)
		if e.mode == modeBuild {
			b.built = append(b.built, blk)
		}
	}
	b.fingerprint, b.canonBlocks = h.sum(BundleVersion, e.req.Purpose, b.correlationID, e.model)
	b.bundleID = uuidFromHex(b.fingerprint)
	return b, nil
}

// sortItems orders blocks by INV-CONTEXT-1: priority, block type, then the
// type's key (path for files, symbol for symbols, title otherwise), with
// path and title as explicit final tie-breakers.
func sortItems(items []*item) {
	slices.SortStableFunc(items, func(a, b *item) int {
		if c := strings.Compare(string(a.priority), string(b.priority)); c != 0 {
			return c
		}
		if c := cmpInt(blockTypeOrder[a.typ], blockTypeOrder[b.typ]); c != 0 {
			return c
		}
		if c := strings.Compare(a.sortKey(), b.sortKey()); c != 0 {
			return c
		}
		if c := strings.Compare(a.path, b.path); c != 0 {
			return c
		}
		return strings.Compare(a.title, b.title)
	})
}

// sortKey is a block's INV-CONTEXT-1 key within its type.
func (it *item) sortKey() string {
	switch it.typ {
	case BlockFile:
		return it.path
	case BlockSymbol:
		return it.symbol
	}
	return it.title
}

// account records what each block leaves out: its secret redactions and
// its slice. Every mode does it, so that ctxd.budget's counts agree with a
// build's report.
func (e *env) account(blocks []*item, t *trail) {
	for _, it := range blocks {
		r := e.rendered(it)
		t.redacts = append(t.redacts, r.redactions...)
		if it.typ == BlockSymbol {
			lv := it.levels[it.level]
			reason, what := RedactReasonPolicy, "declaration only"
			if lv == LevelSignatures {
				reason, what = RedactReasonBudget, "SIGNATURES_ONLY"
			}
			t.redacts = append(t.redacts, Redaction{Type: RedactContentSliced, Target: it.path, Reason: reason, Details: fmt.Sprintf("%s %s: %s, %s of %d", it.reason, it.symbol, what, r.desc, r.lines)})
		} else if it.typ == BlockFile && it.levels[it.level] != LevelFull {
			t.redacts = append(t.redacts, Redaction{Type: RedactContentSliced, Target: it.path, Reason: RedactReasonBudget, Details: fmt.Sprintf("%s: %s, %s of %d", it.levels[it.level], it.reason, r.desc, r.lines)})
		}
	}
}

// block makes an item's block, without its id.
func (e *env) block(it *item) Block {
	r := e.rendered(it)
	return Block{BlockType: it.typ, Priority: it.priority, Title: r.title, Content: r.content, Meta: e.meta(it, r)}
}

// meta fills a block's meta. A file or symbol block describes the whole
// file it comes from (hash, encoding, size and lines of the file as read),
// whatever part of it the content shows.
func (e *env) meta(it *item, r *rendering) BlockMeta {
	if it.path == "" {
		m := BlockMeta{Encoding: "utf-8", ByteSize: int64(len(r.content)), LineCount: countLines(r.content), Source: it.source}
		if it.errPath != "" {
			if f, ok := e.root.File(it.errPath); ok {
				m.Path, m.Hash = ptr(it.errPath), ptr(f.SHA256())
			}
		}
		return m
	}
	m := BlockMeta{Path: ptr(it.path), Hash: ptr(it.file.SHA256()), Encoding: string(it.file.Encoding), ByteSize: it.file.ByteSize, LineCount: it.file.LineCount, Source: SourceFilesystem}
	if it.file.Open {
		// The editor's buffer, held by the index.
		m.Source = SourceIndex
	}
	if it.typ == BlockSymbol {
		m.Symbol = ptr(it.symbol)
		m.Source = SourceIndex
	}
	return m
}

func countLines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func ptr(s string) *string { return &s }

// createdAt formats the only wall-clock field.
func createdAt(t time.Time) string {
	if t.IsZero() {
		t = time.Unix(0, 0)
	}
	return t.UTC().Format(time.RFC3339)
}

// rendered returns an item's block at its current level: title, content
// after slicing and redaction, and the token count of what is sent (the
// title line and the content). Results are memoized per level.
func (e *env) rendered(it *item) *rendering {
	lv := LevelFull
	if len(it.levels) > 0 {
		lv = it.levels[it.level]
	}
	if r, ok := it.cache[lv]; ok {
		return r
	}
	var key []byte
	shared := e.opts.Scans != nil
	if shared {
		key, shared = e.renderKey(it, lv)
	}
	r, ok := e.opts.Scans.rendering(key)
	if !shared || !ok {
		r = e.makeRendering(it, lv)
		if shared {
			e.opts.Scans.keep(string(key), r)
		}
	}
	if it.cache == nil {
		it.cache = map[Level]*rendering{}
	}
	it.cache[lv] = r
	if it.typ == BlockFile && lv == LevelFull && !it.target {
		e.opts.Scans.remember(e.blockKey(it), r)
	}
	return r
}

// makeRendering slices, redacts and counts an item's block at a level.
func (e *env) makeRendering(it *item, lv Level) *rendering {
	r := &rendering{}
	var maps []contentMap
	switch it.typ {
	case BlockFile:
		maps = e.sliceFile(it, lv, r)
	case BlockSymbol:
		maps = e.sliceSymbol(it, lv, r)
	default:
		r.title, r.content = it.title, it.fixed
	}
	hidden := hiddenLines(it, r.content, maps)
	e.redact(it, r, maps)
	if len(hidden) > 0 && r.risk == "" {
		e.stripHidden(it, r, hidden)
	}
	r.tokens = e.count(r.title + "\n" + r.content)
	return r
}

// renderKey names the renderings later builds may share (ScanCache.keep):
// those that are a function of their file's bytes, named by its sha256,
// and of what the key lists besides — a whole file by its path, a
// symbol's declaration by its path, kind, qualified name and the byte
// ranges of its declaration and doc comment — under the same rules and
// token estimator. ok is false for the others: a slice to signatures
// depends on every symbol of the file, a target region on the request, a
// block not from a file on its own text.
func (e *env) renderKey(it *item, lv Level) (key []byte, ok bool) {
	if it.path == "" || it.text == nil || it.file == nil || lv != LevelFull {
		return nil, false
	}
	sha := it.file.SHA256()
	if sha == "" {
		return nil, false
	}
	b := make([]byte, 0, 160+len(it.path)+len(it.symbol))
	b = append(b, e.redactor.Version()...)
	b = append(b, 0)
	b = append(b, e.est.Name()...)
	b = append(b, 0)
	b = append(b, it.path...)
	b = append(b, 0)
	b = append(b, sha...)
	switch it.typ {
	case BlockFile:
		return append(b, "\x00file"...), true
	case BlockSymbol:
		syn := e.root.Syntax(it.path)
		if syn == nil || it.symIdx >= len(syn.Symbols) {
			return nil, false
		}
		s := &syn.Symbols[it.symIdx]
		b = append(b, "\x00symbol\x00"...)
		b = append(b, s.Kind.String()...)
		b = append(b, 0)
		b = append(b, it.symbol...)
		for _, n := range []uint32{s.Range.StartByte, s.Range.EndByte, s.Doc.StartByte, s.Doc.EndByte} {
			b = append(b, 0)
			b = strconv.AppendUint(b, uint64(n), 10)
		}
		return b, true
	}
	return nil, false
}

// sliceFile sets a file block's title and content at a level and returns
// where its content comes from in the file.
func (e *env) sliceFile(it *item, lv Level, r *rendering) []contentMap {
	var segs []segment
	switch lv {
	case LevelRegion:
		segs = regionSegments(it.li, it.regions)
		r.desc = describeSegments(it.li, segs)
		r.lines = it.li.lines()
		r.title = fmt.Sprintf("%s (TARGET_REGION_ONLY: %s of %d)", it.path, r.desc, r.lines)
	case LevelSignatures:
		segs = signatureSegments(it.li, e.root.Syntax(it.path).Symbols, span{0, len(it.text)})
		r.desc = fmt.Sprintf("%d declarations", len(segs))
		r.lines = it.li.lines()
		r.title = it.path + " (SIGNATURES_ONLY)"
	default:
		segs = []segment{{span: span{0, len(it.text)}, line: 1}}
		r.title = it.path
	}
	var maps []contentMap
	r.content, maps = segmentsText(it.li, segs, lv)
	return maps
}

// sliceSymbol sets a symbol block's title and content at a level: the
// declaration with its doc comment, or its signatures.
func (e *env) sliceSymbol(it *item, lv Level, r *rendering) []contentMap {
	syms := e.root.Syntax(it.path).Symbols
	s := &syms[it.symIdx]
	var segs []segment
	if lv == LevelSignatures {
		segs = signatureSegments(it.li, syms, span{int(s.Range.StartByte), int(s.Range.EndByte)})
	} else {
		sp := symbolSpan(it.li, s)
		segs = []segment{{span: sp, line: it.li.lineOf(sp.start)}}
	}
	r.desc = describeSegments(it.li, segs)
	r.lines = it.li.lines()
	r.title = fmt.Sprintf("%s %s in %s (%s)", s.Kind, it.symbol, it.path, r.desc)
	if lv == LevelSignatures {
		r.title += " (SIGNATURES_ONLY)"
	}
	var maps []contentMap
	r.content, maps = segmentsText(it.li, segs, lv)
	return maps
}

// blockKey names an optional whole-file block's rendering: the file's
// content hash with everything else the rendering depends on.
func (e *env) blockKey(it *item) string {
	return strings.Join([]string{e.redactor.Version(), e.est.Name(), it.path, it.file.SHA256()}, "\x00")
}

// recall gives ctxd.budget the rendering of an optional whole file it has
// counted before (same path, content hash, rules and encoding) without
// reading the file again: its tokens, redactions and risk, not its
// content, which the budget does not return. A build always reads, and so
// detects a file changed on disk since indexing; the budget trusts the
// index's hash for these optional blocks until the next build or event.
func (e *env) recall(it *item) bool {
	if e.mode != modeBudget || it.typ != BlockFile || it.target || len(it.levels) != 1 {
		return false
	}
	r, ok := e.opts.Scans.recall(e.blockKey(it))
	if !ok {
		return false
	}
	if it.cache == nil {
		it.cache = map[Level]*rendering{}
	}
	it.cache[LevelFull] = r
	return true
}

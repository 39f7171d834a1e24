package mcp

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/contextbuilder/tokens"
	"github.com/ctxd/ctxd/workspace/markdown"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// A recorded bundle is served in parts as resources, from the artifact
// the build recorded (the same redacted bytes), each part within the
// server's result budget:
//
//	ctxd://bundles/<id>/blocks              index of the blocks, with their links
//	ctxd://bundles/<id>/blocks/<n>          block n (1-based), as Markdown
//	ctxd://bundles/<id>/manifest            included files, exclusions, fingerprints
//	ctxd://bundles/<id>/redactions          the redaction report
//	ctxd://bundles/<id>/budget              the budget report and its notes
//
// A part over the budget is paged: <part>/pages/<k> is its page k, and
// each page names the next.
const (
	bundleScheme   = "ctxd://bundles/"
	bundleTemplate = "ctxd://bundles/{bundle_id}/{+part}"
)

// bundleURI is the URI of a part of bundle id.
func bundleURI(id string, part ...string) string {
	return bundleScheme + id + "/" + strings.Join(part, "/")
}

// blockURI is the URI of block n (1-based) of bundle id.
func blockURI(id string, n int) string { return bundleURI(id, "blocks", strconv.Itoa(n)) }

// bundleSummary is build_context's structuredContent in summary detail:
// what the bundle is, counted, with where to read each part.
type bundleSummary struct {
	BundleID      string           `json:"bundle_id"`
	CorrelationID string           `json:"correlation_id"`
	Purpose       string           `json:"purpose"`
	BudgetReport  budgetSummary    `json:"budget_report"`
	Manifest      manifestSummary  `json:"manifest"`
	Redactions    redactionSummary `json:"redaction_report"`
	Blocks        blocksSummary    `json:"blocks"`
	// MaxResultTokens is the budget this result was fitted to.
	MaxResultTokens int `json:"max_result_tokens"`
}

// budgetSummary is a budget report without its notes, which are counted.
type budgetSummary struct {
	EstimatedInputTokens int    `json:"estimated_input_tokens"`
	MaxInputTokens       int    `json:"max_input_tokens"`
	SoftLimitTokens      int    `json:"soft_limit_tokens"`
	HardLimitTokens      int    `json:"hard_limit_tokens"`
	ReserveOutputTokens  int    `json:"reserve_output_tokens"`
	Decision             string `json:"decision"`
	Notes                int    `json:"notes"`
	URI                  string `json:"uri,omitempty"`
}

// manifestSummary is a manifest with its lists counted by reason.
type manifestSummary struct {
	TargetFiles        []string                    `json:"target_files"`
	TargetSymbols      []string                    `json:"target_symbols"`
	IncludedFiles      int                         `json:"included_files"`
	IncludedByReason   map[string]int              `json:"included_by_reason"`
	ExcludedCandidates int                         `json:"excluded_candidates"`
	ExcludedByReason   map[string]int              `json:"excluded_by_reason"`
	Fingerprints       contextbuilder.Fingerprints `json:"fingerprints"`
	URI                string                      `json:"uri,omitempty"`
}

// redactionSummary counts a redaction report's entries by type.
type redactionSummary struct {
	Redactions int            `json:"redactions"`
	ByType     map[string]int `json:"by_type"`
	URI        string         `json:"uri,omitempty"`
}

// blocksSummary says which blocks the result shows in full (1-based
// numbers) and where the others are.
type blocksSummary struct {
	Total  int `json:"total"`
	Tokens int `json:"tokens"`
	// Shown are the numbers of the blocks shown in full, as ranges
	// ("1-3,5"); "" when none is.
	Shown  string `json:"shown"`
	Linked int    `json:"linked"`
	URI    string `json:"uri,omitempty"`
}

// ranges writes sorted numbers as "1-3,5".
func ranges(ns []int) string {
	var b strings.Builder
	for i := 0; i < len(ns); {
		j := i
		for j+1 < len(ns) && ns[j+1] == ns[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		if j > i {
			fmt.Fprintf(&b, "%d-%d", ns[i], ns[j])
		} else {
			fmt.Fprintf(&b, "%d", ns[i])
		}
		i = j + 1
	}
	return b.String()
}

func summarizeBudget(br *contextbuilder.BudgetReport) budgetSummary {
	return budgetSummary{
		EstimatedInputTokens: br.EstimatedInputTokens, MaxInputTokens: br.MaxInputTokens,
		SoftLimitTokens: br.SoftLimitTokens, HardLimitTokens: br.HardLimitTokens,
		ReserveOutputTokens: br.ReserveOutputTokens, Decision: string(br.Decision), Notes: len(br.Notes),
	}
}

func summarizeManifest(m *contextbuilder.Manifest) manifestSummary {
	sel := m.Selection
	return manifestSummary{
		TargetFiles: nonNil(sel.TargetFiles), TargetSymbols: nonNil(sel.TargetSymbols),
		IncludedFiles:      len(sel.IncludedFiles),
		IncludedByReason:   countBy(sel.IncludedFiles, func(f contextbuilder.IncludedFile) string { return string(f.Reason) }),
		ExcludedCandidates: len(sel.ExcludedCandidates),
		ExcludedByReason:   countBy(sel.ExcludedCandidates, func(e contextbuilder.Excluded) string { return string(e.Reason) }),
		Fingerprints:       m.Fingerprints,
	}
}

func summarizeRedactions(rr *contextbuilder.RedactionReport) redactionSummary {
	return redactionSummary{
		Redactions: len(rr.Redactions),
		ByType:     countBy(rr.Redactions, func(r contextbuilder.Redaction) string { return string(r.Type) }),
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// estimatorOf is the tokenizer of a bundle's model.
func estimatorOf(r *contextbuilder.Result) *tokens.Estimator {
	if r != nil && r.Bundle != nil {
		return tokens.ForModel(r.Bundle.Model.Model)
	}
	return tokens.ForModel("")
}

// fitBuild is build_context's result within the budget. In summary
// detail, the text is the bundle's Markdown head, the blocks that fit in
// full in the bundle's order, and where the rest is; each block not shown
// is a resource link (as many as fit, then the index's link, which lists
// them all); structuredContent is the [bundleSummary]. In full detail it
// is the LSP command's whole result and the whole Markdown, if they fit.
func fitBuild(r *contextbuilder.Result, ra resultArgs) (*sdk.CallToolResult, error) {
	sh := shaper{est: estimatorOf(r), max: ra.max}
	if ra.page > 1 {
		// Only a refusal's candidates are paged; a bundle's parts are
		// resources.
		return nil, invalidArgs("field %q: %d is past the last page (1); read the blocks not shown through their resource links", argPage, ra.page)
	}
	if ra.detail == detailFull {
		var md strings.Builder
		if err := markdown.Write(&md, r); err != nil {
			return nil, fmt.Errorf("build_context: %w", err)
		}
		res := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: md.String()}}, StructuredContent: jsonText(r.AppendCanonical(nil))}
		return sh.check("build_context", res, `use "detail": "summary" and read the parts through their resource links`), nil
	}
	b := r.Bundle
	id := b.BundleID
	sum := bundleSummary{
		BundleID: id, CorrelationID: b.CorrelationID, Purpose: string(b.Purpose),
		BudgetReport: summarizeBudget(r.BudgetReport), Manifest: summarizeManifest(r.Manifest),
		Redactions: summarizeRedactions(r.RedactionReport), MaxResultTokens: ra.max,
	}
	sum.BudgetReport.URI = bundleURI(id, "budget")
	sum.Manifest.URI = bundleURI(id, "manifest")
	sum.Redactions.URI = bundleURI(id, "redactions")

	n := len(b.Blocks)
	sections := make([]string, n)
	costs := make([]int, n)
	links := make([]*sdk.ResourceLink, n)
	linkCosts := make([]int, n)
	allLinks := 0
	for i := range b.Blocks {
		blk := &b.Blocks[i]
		sections[i] = markdown.Block(blk)
		costs[i] = sh.count(sections[i])
		links[i] = &sdk.ResourceLink{
			URI: blockURI(id, i+1), Name: fmt.Sprintf("block-%d", i+1), Title: markdown.OneLine(blk.Title), MIMEType: "text/markdown",
			Description: fmt.Sprintf("%s %s, %d tokens", blk.Priority, blk.BlockType, costs[i]),
		}
		linkCosts[i] = sh.countJSON(links[i])
		allLinks += linkCosts[i]
		sum.Blocks.Tokens += costs[i]
	}
	sum.Blocks.Total = n
	sum.Blocks.URI = bundleURI(id, "blocks")
	index := &sdk.ResourceLink{URI: sum.Blocks.URI, Name: "blocks", Title: fmt.Sprintf("All %d blocks of bundle %s", n, id), MIMEType: "text/markdown",
		Description: "each block's title, size and link; paged"}
	manifestLink := &sdk.ResourceLink{URI: sum.Manifest.URI, Name: "manifest", Title: "Manifest of bundle " + id, MIMEType: "text/markdown",
		Description: "included files with reasons, exclusions with reasons, fingerprints; paged"}

	head := markdown.HeaderWithoutNotes(r)
	if k := len(r.BudgetReport.Notes); k > 0 {
		head += fmt.Sprintf("- budget notes: %d, at %s\n", k, sum.BudgetReport.URI)
	}
	// The required blocks (P0: the targets) not shown are also named in
	// the text, for a host that does not show resource links to the
	// model; at most maxNamed of them.
	const maxNamed = 8
	tail := func(shown []bool, linked int) string {
		var t strings.Builder
		k := 0
		for _, s := range shown {
			if s {
				k++
			}
		}
		if k < n {
			fmt.Fprintf(&t, "\n## Not shown here\n\n%d of %d blocks are shown above in full; the other %d are resources: read each with resources/read "+
				"at the link that follows this text (%d listed; the index %s lists all %d). This result is limited to max_result_tokens %d; the bundle itself is %d tokens.\n",
				k, n, n-k, linked, sum.Blocks.URI, n, ra.max, r.BudgetReport.EstimatedInputTokens)
			named := 0
			for i := range b.Blocks {
				if shown[i] || b.Blocks[i].Priority != contextbuilder.P0 || named == maxNamed {
					continue
				}
				if named == 0 {
					t.WriteString("\nRequired blocks not shown:\n\n")
				}
				named++
				fmt.Fprintf(&t, "- %s (%s, %d tokens): %s\n", markdown.InlineCode(markdown.OneLine(b.Blocks[i].Title)), b.Blocks[i].BlockType, costs[i], blockURI(id, i+1))
			}
		}
		man := sum.Manifest
		fmt.Fprintf(&t, "\n## Manifest\n\n- included files: %d%s\n- excluded candidates: %d%s\n- redactions: %d%s\n- details: %s, %s, %s\n",
			man.IncludedFiles, byReason(man.IncludedByReason), man.ExcludedCandidates, byReason(man.ExcludedByReason),
			sum.Redactions.Redactions, byReason(sum.Redactions.ByType), sum.Manifest.URI, sum.Redactions.URI, sum.BudgetReport.URI)
		return t.String()
	}

	// What every result holds, at its largest: the head, the tail, the
	// summary with every block number, the index and manifest links.
	worst := sum
	alternate := make([]int, 0, (n+1)/2)
	for i := 1; i <= n; i += 2 {
		alternate = append(alternate, i)
	}
	worst.Blocks.Shown = ranges(alternate)
	fixed := sh.count(head) + sh.count(tail(make([]bool, n), n)) + sh.countJSON(worst) + sh.countJSON(index) + sh.countJSON(manifestLink) + 16
	room := ra.max - fixed
	linkRoom := min(room/4, allLinks)
	showRoom := room - linkRoom
	shown := make([]bool, n)
	var text strings.Builder
	text.WriteString(head)
	var shownNs []int
	for i := range b.Blocks {
		if costs[i] <= showRoom {
			shown[i] = true
			showRoom -= costs[i]
			text.WriteString(sections[i])
			shownNs = append(shownNs, i+1)
		}
	}
	sum.Blocks.Shown = ranges(shownNs)
	linkRoom += showRoom
	content := []sdk.Content{nil}
	for i := range b.Blocks {
		if shown[i] {
			continue
		}
		sum.Blocks.Linked++
		if linkCosts[i] <= linkRoom {
			linkRoom -= linkCosts[i]
			content = append(content, links[i])
		}
	}
	text.WriteString(tail(shown, len(content)-1))
	content[0] = &sdk.TextContent{Text: text.String()}
	content = append(content, index, manifestLink)
	res := &sdk.CallToolResult{Content: content, StructuredContent: sum}
	return sh.check("build_context", res, "name fewer targets"), nil
}

// byReason is " (reason n, …)" of counts, or "".
func byReason(m map[string]int) string {
	if len(m) == 0 {
		return ""
	}
	parts := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// addBundleResources registers the template of a recorded bundle's parts.
func (s *Server) addBundleResources() {
	s.mcp.AddResourceTemplate(&sdk.ResourceTemplate{
		URITemplate: bundleTemplate, Name: "bundle-part", Title: "Part of a recorded context bundle", MIMEType: "text/markdown",
		Description: "A part of a bundle build_context recorded, from its artifact: blocks (index), blocks/<n>, manifest, redactions, budget; " +
			"<part>/pages/<k> for page k of a part over the result budget. build_context links each block it does not show.",
	}, s.readBundlePart)
}

// readBundlePart serves resources/read of a bundle part.
func (s *Server) readBundlePart(ctx context.Context, req *sdk.ReadResourceRequest) (res *sdk.ReadResourceResult, err error) {
	defer s.recoverRead(&res, &err)
	uri := req.Params.URI
	id, part, page, perr := parseBundleURI(uri)
	if perr != "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("resource %s: %s", uri, perr)}
	}
	p, err := s.partPages(ctx, uri, id, part)
	if err != nil {
		return nil, err
	}
	text, ok := p.page(bundleURI(id, part), page)
	if !ok {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("resource %s: %s has %d pages", uri, part, p.count())}
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: text}}}, nil
}

// partCache keeps the paged parts of the bundle read last: an agent reads
// a bundle's parts one after the other, often a large block page by page,
// and each read would otherwise decode the whole artifact and count the
// tokens of every line again. An artifact never changes (it is addressed
// by its hash), so what was paged stays true.
type partCache struct {
	mu    sync.Mutex
	id    string
	r     *contextbuilder.Result
	parts map[string]*textPage
}

// partPages returns the pages of one part of bundle id, from the cache
// when it holds them.
func (s *Server) partPages(ctx context.Context, uri, id, part string) (*textPage, error) {
	c := &s.parts
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.id != id {
		rb, err := s.svc.RecordedBundle(ctx, s.caller(), id)
		if err != nil {
			return nil, s.readError(uri, err)
		}
		c.id, c.r, c.parts = id, &rb.Result, map[string]*textPage{}
	}
	if p, ok := c.parts[part]; ok {
		return p, nil
	}
	r := c.r
	sh := shaper{est: estimatorOf(r), max: s.maxResult}
	var p *textPage
	switch {
	case part == "blocks":
		p = indexPages(sh, r)
	case strings.HasPrefix(part, "blocks/"):
		n, err := strconv.Atoi(strings.TrimPrefix(part, "blocks/"))
		if err != nil || n < 1 || n > len(r.Bundle.Blocks) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("resource %s: bundle %s has blocks 1 to %d", uri, id, len(r.Bundle.Blocks))}
		}
		p = blockPages(sh, r, n)
	case part == "manifest":
		p = manifestPages(sh, r)
	case part == "redactions":
		p = redactionPages(sh, r)
	case part == "budget":
		p = budgetPages(sh, r)
	default:
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("resource %s: a bundle's parts are blocks, blocks/<n>, manifest, redactions and budget", uri)}
	}
	c.parts[part] = p
	return p, nil
}

// parseBundleURI splits ctxd://bundles/<id>/<part>[/pages/<k>]; a
// problem is returned as text.
func parseBundleURI(uri string) (id, part string, page int, problem string) {
	rest, ok := strings.CutPrefix(uri, bundleScheme)
	if !ok {
		return "", "", 0, "not a bundle resource"
	}
	id, part, ok = strings.Cut(rest, "/")
	if !ok || id == "" || part == "" {
		return "", "", 0, "expected ctxd://bundles/<bundle_id>/<part>"
	}
	page = 1
	if i := strings.Index(part, "/pages/"); i >= 0 {
		k, err := strconv.Atoi(part[i+len("/pages/"):])
		if err != nil || k < 1 {
			return "", "", 0, "a page is a positive integer"
		}
		part, page = part[:i], k
	}
	return id, part, page, ""
}

// textPage is a part of a bundle as Markdown lines under a title, paged
// within the budget.
type textPage struct {
	sh    shaper
	title string
	// pre is text every page starts with after the title (a block's
	// heading and fence), post ends it (the closing fence).
	pre, post string
	lines     []string
	// ranges are the pages' [start, end) line ranges.
	ranges [][2]int
}

// newTextPages pages lines so that each page, with its title, pre, post
// and the next page's URI, fits the shaper's budget.
func newTextPages(sh shaper, title, pre, post string, lines []string) *textPage {
	p := &textPage{sh: sh, title: title, pre: pre, post: post, lines: lines}
	costs := make([]int, len(lines))
	for i, l := range lines {
		costs[i] = sh.count(l)
	}
	fixed := sh.count(title) + sh.count(pre) + sh.count(post) + pageOverhead
	p.ranges = pages(costs, max(sh.max-fixed, 1))
	return p
}

func (p *textPage) count() int { return len(p.ranges) }

// page is the text of page k (1-based) of the part at base.
func (p *textPage) page(base string, k int) (string, bool) {
	if k > len(p.ranges) {
		return "", false
	}
	r := p.ranges[k-1]
	var b strings.Builder
	b.WriteString(p.title)
	if len(p.ranges) > 1 {
		fmt.Fprintf(&b, " (page %d of %d)", k, len(p.ranges))
	}
	b.WriteString("\n")
	b.WriteString(p.pre)
	for _, l := range p.lines[r[0]:r[1]] {
		b.WriteString(l)
	}
	b.WriteString(p.post)
	if k < len(p.ranges) {
		fmt.Fprintf(&b, "\nNext page: %s/pages/%d\n", base, k+1)
	}
	return b.String(), true
}

// indexPages lists every block with its size and link.
func indexPages(sh shaper, r *contextbuilder.Result) *textPage {
	b := r.Bundle
	lines := make([]string, len(b.Blocks))
	for i := range b.Blocks {
		blk := &b.Blocks[i]
		lines[i] = fmt.Sprintf("- %d. %s %s %s: %d tokens, %s\n", i+1, blk.Priority, blk.BlockType, markdown.InlineCode(markdown.OneLine(blk.Title)),
			sh.count(markdown.Block(blk)), blockURI(b.BundleID, i+1))
	}
	return newTextPages(sh, fmt.Sprintf("# Blocks of ctxd bundle %s", b.BundleID), "\n", "", lines)
}

// blockPages is block n (1-based): whole when it fits, else its content
// by lines, each page a fenced part saying which lines it holds.
func blockPages(sh shaper, r *contextbuilder.Result, n int) *textPage {
	blk := &r.Bundle.Blocks[n-1]
	title := fmt.Sprintf("# Block %d of %d of ctxd bundle %s", n, len(r.Bundle.Blocks), r.Bundle.BundleID)
	whole := markdown.Block(blk)
	if sh.count(title)+sh.count(whole)+pageOverhead <= sh.max {
		return newTextPages(sh, title, "", "", []string{whole})
	}
	lines := strings.SplitAfter(blk.Content, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	// The heading and fences of a part cost about what an empty block's
	// do; each page then renders its own pieces.
	frame := markdown.BlockPart(blk, "", fmt.Sprintf("lines %d-%d of %d", len(lines), len(lines), len(lines)))
	fixed := sh.count(title) + sh.count(frame) + pageOverhead
	ps := splitLines(lines, max(sh.max-fixed, 1))
	texts := make([]string, len(ps))
	for i, pc := range ps {
		texts[i] = pc.text
	}
	p := newTextPages(sh, title, frame, "", texts)
	return &textPage{sh: sh, title: title, lines: partsOf(blk, ps, p.ranges, len(lines)), ranges: unitRanges(len(p.ranges))}
}

// piece is a block's line, or a part of a line too long for a page.
type piece struct {
	text string
	line int  // 1-based
	cut  bool // a part of its line
}

// splitLines makes pieces of lines: each line whole, or cut at rune
// boundaries into parts of at most room bytes when it alone is over room
// tokens (a token is at least a byte, so such a part fits). Minified code
// has such lines.
func splitLines(lines []string, room int) []piece {
	var out []piece
	for i, l := range lines {
		if len(l) <= room {
			out = append(out, piece{text: l, line: i + 1})
			continue
		}
		for rest := l; rest != ""; {
			n := min(room, len(rest))
			for n > 1 && n < len(rest) && !utf8.RuneStart(rest[n]) {
				n--
			}
			out = append(out, piece{text: rest[:n], line: i + 1, cut: true})
			rest = rest[n:]
		}
	}
	return out
}

// partsOf renders each range of pieces of a block as its own fenced part,
// saying which lines it holds.
func partsOf(blk *contextbuilder.Block, ps []piece, ranges [][2]int, total int) []string {
	out := make([]string, len(ranges))
	for i, r := range ranges {
		var b strings.Builder
		for _, pc := range ps[r[0]:r[1]] {
			b.WriteString(pc.text)
		}
		if r[0] == r[1] {
			out[i] = markdown.BlockPart(blk, "", fmt.Sprintf("no lines of %d", total))
			continue
		}
		first, last := ps[r[0]], ps[r[1]-1]
		label := fmt.Sprintf("lines %d-%d of %d", first.line, last.line, total)
		if first.cut || last.cut {
			label += "; a line too long for one page is cut across pages, with no break added"
		}
		out[i] = markdown.BlockPart(blk, b.String(), label)
	}
	return out
}

// unitRanges are n pages of one line each.
func unitRanges(n int) [][2]int {
	out := make([][2]int, n)
	for i := range out {
		out[i] = [2]int{i, i + 1}
	}
	return out
}

// manifestPages lists the targets, included files, exclusions (with the
// redaction report's details) and fingerprints.
func manifestPages(sh shaper, r *contextbuilder.Result) *textPage {
	m := r.Manifest
	var lines []string
	for _, t := range m.Selection.TargetFiles {
		lines = append(lines, fmt.Sprintf("- target file %s\n", markdown.InlineCode(t)))
	}
	for _, t := range m.Selection.TargetSymbols {
		lines = append(lines, fmt.Sprintf("- target symbol %s\n", markdown.InlineCode(t)))
	}
	for _, f := range m.Selection.IncludedFiles {
		lines = append(lines, fmt.Sprintf("- included %s: %s, %d bytes, %s, sha256 %s\n", markdown.InlineCode(f.Path), f.Reason, f.ByteSize, f.Encoding, f.Hash))
	}
	for _, e := range m.Selection.ExcludedCandidates {
		lines = append(lines, fmt.Sprintf("- excluded %s: %s\n", markdown.InlineCode(e.Path), markdown.OneLine(string(e.Reason))))
	}
	fp := m.Fingerprints
	lines = append(lines, fmt.Sprintf("- fingerprints: project index %s, config %s, bundle %s\n", fp.ProjectIndexFingerprint, fp.ConfigFingerprint, fp.BundleFingerprint))
	return newTextPages(sh, fmt.Sprintf("# Manifest of ctxd bundle %s", m.BundleID), "\n", "", lines)
}

// redactionPages lists the redaction report.
func redactionPages(sh shaper, r *contextbuilder.Result) *textPage {
	var lines []string
	for _, red := range r.RedactionReport.Redactions {
		l := fmt.Sprintf("- %s %s: %s", markdown.OneLine(string(red.Type)), markdown.InlineCode(red.Target), markdown.OneLine(string(red.Reason)))
		if red.Details != "" {
			l += " — " + markdown.OneLine(red.Details)
		}
		lines = append(lines, l+"\n")
	}
	if len(lines) == 0 {
		lines = []string{"None.\n"}
	}
	return newTextPages(sh, fmt.Sprintf("# Redactions of ctxd bundle %s", r.Bundle.BundleID), "\n", "", lines)
}

// budgetPages is the budget report with its notes.
func budgetPages(sh shaper, r *contextbuilder.Result) *textPage {
	br := r.BudgetReport
	lines := []string{fmt.Sprintf("- decision %s: %d tokens estimated; max input %d, soft limit %d, hard limit %d, output reserve %d\n",
		br.Decision, br.EstimatedInputTokens, br.MaxInputTokens, br.SoftLimitTokens, br.HardLimitTokens, br.ReserveOutputTokens)}
	for _, n := range br.Notes {
		lines = append(lines, "- "+markdown.OneLine(n)+"\n")
	}
	return newTextPages(sh, fmt.Sprintf("# Budget report of ctxd bundle %s", r.Bundle.BundleID), "\n", "", lines)
}

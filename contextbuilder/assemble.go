package contextbuilder

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ctxd/ctxd/contextbuilder/tokens"
)

// account sorts the kept blocks (INV-CONTEXT-1) and records what each one
// leaves out: its secret redactions and its slice. Both ctxd.budget and a
// build do it, so their counts agree.
func (p *pipeline) account() {
	sortItems(p.blocks)
	for _, it := range p.blocks {
		r := p.render(it)
		p.redacts = append(p.redacts, r.redactions...)
		if it.typ == BlockSymbol {
			lv := it.levels[it.level]
			reason, what := RedactReasonPolicy, "declaration only"
			if lv == LevelSignatures {
				reason, what = RedactReasonBudget, "SIGNATURES_ONLY"
			}
			p.redacts = append(p.redacts, Redaction{Type: RedactContentSliced, Target: it.path, Reason: reason, Details: fmt.Sprintf("%s %s: %s, %s of %d", it.reason, it.symbol, what, r.desc, it.li.lines())})
		} else if it.typ == BlockFile && it.levels[it.level] != LevelFull {
			p.redacts = append(p.redacts, Redaction{Type: RedactContentSliced, Target: it.path, Reason: RedactReasonBudget, Details: fmt.Sprintf("%s: %s, %s of %d", it.levels[it.level], it.reason, r.desc, it.li.lines())})
		}
	}
}

// assemble turns the ordered blocks into the bundle: content, meta,
// fingerprints and ids.
func (p *pipeline) assemble() error {
	blocks := make([]Block, 0, len(p.blocks))
	for _, it := range p.blocks {
		r := p.render(it)
		b := Block{BlockType: it.typ, Priority: it.priority, Title: r.title, Content: r.content}
		b.Meta = p.meta(it, r)
		blocks = append(blocks, b)
	}
	req, err := canonical(p.portableRequest())
	if err != nil {
		return err
	}
	correlation := p.req.CorrelationID
	if correlation == "" {
		correlation = derivedCorrelation(req)
	}
	bundle := &Bundle{
		BundleVersion: BundleVersion,
		CreatedAt:     createdAt(p.opts.CreatedAt),
		Purpose:       p.req.Purpose,
		CorrelationID: correlation,
		Model:         p.model,
		Blocks:        blocks,
	}
	// block_id: from the bundle's inputs (INV-CONTEXT-2: the index and
	// config fingerprints and the canonical request) and the block's
	// position and sort key, so ids are stable and unique.
	inputs := strings.Join([]string{p.root.Fingerprint(), p.configFP, string(req)}, "\x00")
	for i := range bundle.Blocks {
		b := &bundle.Blocks[i]
		key := strings.Join([]string{string(b.Priority), string(b.BlockType), deref(b.Meta.Path), deref(b.Meta.Symbol), b.Title}, "\x00")
		b.BlockID = uuidOf("ctxd.block", inputs, fmt.Sprint(i), key)
	}
	bfp, err := fingerprint(fpBundle(bundle))
	if err != nil {
		return err
	}
	bundle.BundleID = uuidFromHex(bfp)
	p.bundle = bundle
	p.bundleFP = bfp
	return nil
}

// portableRequest is the request with every URI and absolute path made
// relative to the root, so that ids derived from it do not depend on where
// the workspace lives (INV-CONTEXT-2).
func (p *pipeline) portableRequest() *Request {
	r := *p.req
	rel := func(s string) string {
		if _, ok := asURI(s); !ok {
			return s
		}
		if q, err := p.relPath(s); err == nil {
			return "root:" + q
		}
		return s
	}
	r.ActiveFile = rel(r.ActiveFile)
	if r.Selection != nil {
		sel := *r.Selection
		sel.URI = rel(sel.URI)
		r.Selection = &sel
	}
	if r.PlanStep != nil {
		ps := *r.PlanStep
		ps.TargetFiles = slices.Clone(ps.TargetFiles)
		for i, t := range ps.TargetFiles {
			ps.TargetFiles[i] = rel(t)
		}
		r.PlanStep = &ps
	}
	r.UserSelectedTargets = slices.Clone(r.UserSelectedTargets)
	for i := range r.UserSelectedTargets {
		r.UserSelectedTargets[i].Path = rel(r.UserSelectedTargets[i].Path)
	}
	if r.LastError != nil {
		le := *r.LastError
		le.Path = rel(le.Path)
		r.LastError = &le
	}
	return &r
}

// fpBundle is the bundle without bundle_id and created_at: the input of
// bundle_fingerprint (docs/contract.md, "Fingerprints and ids").
func fpBundle(b *Bundle) any {
	type block struct {
		BlockID   string    `json:"block_id,omitempty"`
		BlockType BlockType `json:"block_type"`
		Priority  Priority  `json:"priority"`
		Title     string    `json:"title"`
		Content   string    `json:"content"`
		Meta      BlockMeta `json:"meta"`
	}
	type bundle struct {
		BundleVersion int     `json:"bundle_version"`
		Purpose       Purpose `json:"purpose"`
		CorrelationID string  `json:"correlation_id"`
		Model         Model   `json:"model"`
		Blocks        []block `json:"blocks"`
	}
	out := bundle{BundleVersion: b.BundleVersion, Purpose: b.Purpose, CorrelationID: b.CorrelationID, Model: b.Model, Blocks: []block{}}
	for _, x := range b.Blocks {
		out.Blocks = append(out.Blocks, block(x))
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func ptr(s string) *string { return &s }

// meta fills a block's meta. A file or symbol block describes the whole
// file it comes from (hash, encoding, size and lines of the file as read),
// whatever part of it the content shows.
func (p *pipeline) meta(it *item, r *rendered) BlockMeta {
	if it.path == "" {
		m := BlockMeta{Encoding: "utf-8", ByteSize: int64(len(r.content)), LineCount: countLines(r.content), Source: it.source}
		if it.errPath != "" {
			if f, ok := p.root.File(it.errPath); ok {
				m.Path, m.Hash = ptr(it.errPath), ptr(f.SHA256)
			}
		}
		return m
	}
	m := BlockMeta{Path: ptr(it.path), Hash: ptr(it.file.SHA256), Encoding: string(it.file.Encoding), ByteSize: it.file.ByteSize, LineCount: it.file.LineCount, Source: SourceFilesystem}
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

// sortedRedactions returns the redaction entries in canonical order:
// target, type, reason, details; exact duplicates removed.
func (p *pipeline) sortedRedactions() []Redaction {
	out := slices.Clone(p.redacts)
	slices.SortFunc(out, func(a, b Redaction) int {
		return cmp.Or(strings.Compare(a.Target, b.Target), strings.Compare(string(a.Type), string(b.Type)), strings.Compare(string(a.Reason), string(b.Reason)), strings.Compare(a.Details, b.Details))
	})
	if out == nil {
		out = []Redaction{}
	}
	return slices.Compact(out)
}

// budgetReport is the budget report; the estimator comes first in notes.
func (p *pipeline) budgetReport(bundleID string) *BudgetReport {
	notes := []string{p.est.Note()}
	if tokens.EncodingFor(p.model.Model) == p.est.Name() && p.model.Provider != "openai" && p.model.Provider != "azure" {
		notes = append(notes, fmt.Sprintf("estimator: %s's tokenizer is not public; %s is used as the estimate", p.model.Model, p.est.Name()))
	}
	notes = append(notes, p.notes...)
	return &BudgetReport{
		BundleID:             bundleID,
		EstimatedInputTokens: p.total,
		MaxInputTokens:       p.model.MaxInputTokens,
		SoftLimitTokens:      p.soft,
		HardLimitTokens:      p.hard,
		ReserveOutputTokens:  p.model.ResponseTokenReserve,
		Decision:             p.decision,
		Notes:                notes,
	}
}

// manifest is the manifest of the assembled bundle.
func (p *pipeline) manifest() *Manifest {
	sel := Selection{TargetFiles: []string{}, TargetSymbols: slices.Clone(p.symbols), IncludedFiles: []IncludedFile{}, ExcludedCandidates: []Excluded{}}
	if sel.TargetSymbols == nil {
		sel.TargetSymbols = []string{}
	}
	for _, t := range p.targets {
		sel.TargetFiles = append(sel.TargetFiles, t.path)
	}
	// One entry per file, with the reason of its best-ranked block: a
	// target before anything else, then by weight.
	best := map[string]*item{}
	for _, it := range p.blocks {
		if it.path == "" {
			continue
		}
		if b, ok := best[it.path]; !ok || it.weight > b.weight || it.target && !b.target {
			best[it.path] = it
		}
	}
	for _, it := range best {
		sel.IncludedFiles = append(sel.IncludedFiles, IncludedFile{Path: it.path, Hash: it.file.SHA256, Encoding: string(it.file.Encoding), ByteSize: it.file.ByteSize, Reason: it.reason})
	}
	slices.SortFunc(sel.IncludedFiles, func(a, b IncludedFile) int { return strings.Compare(a.Path, b.Path) })
	// A path with a block in the bundle is not an excluded candidate even
	// when another of its blocks was removed (a P2 file whose P1 symbol
	// stays): the removal is in the redaction report, and no excluded path
	// appears in a block.
	for _, x := range p.excluded {
		if _, in := best[x.Path]; !in {
			sel.ExcludedCandidates = append(sel.ExcludedCandidates, x)
		}
	}
	slices.SortFunc(sel.ExcludedCandidates, func(a, b Excluded) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), strings.Compare(string(a.Reason), string(b.Reason)))
	})
	sel.ExcludedCandidates = slices.Compact(sel.ExcludedCandidates)
	return &Manifest{
		BundleID:      p.bundle.BundleID,
		CorrelationID: p.bundle.CorrelationID,
		Purpose:       p.req.Purpose,
		Selection:     sel,
		Fingerprints: Fingerprints{
			ProjectIndexFingerprint: p.root.Fingerprint(),
			ConfigFingerprint:       p.configFP,
			BundleFingerprint:       p.bundleFP,
		},
	}
}

// result is the four outputs.
func (p *pipeline) result() *Result {
	return &Result{
		Bundle:          p.bundle,
		Manifest:        p.manifest(),
		RedactionReport: &RedactionReport{BundleID: p.bundle.BundleID, Redactions: p.sortedRedactions()},
		BudgetReport:    p.budgetReport(p.bundle.BundleID),
	}
}

// budgetResult is the budget report with counts.
func (p *pipeline) budgetResult() *BudgetResult {
	id := ""
	if p.bundle != nil {
		id = p.bundle.BundleID
	}
	c := Counts{Blocks: map[Priority]int{P0: 0, P1: 0, P2: 0, P3: 0}, Excluded: len(p.excluded), Redactions: len(p.sortedRedactions()), TargetFiles: len(p.targets)}
	files := map[string]bool{}
	for _, it := range p.blocks {
		c.Blocks[it.priority]++
		if it.path != "" {
			files[it.path] = true
		}
	}
	c.Files = len(files)
	return &BudgetResult{BudgetReport: p.budgetReport(id), Counts: c}
}

// configFingerprint is sha256 of the JCS form of the effective config with
// the contract, estimator and rule-set versions (docs/contract.md).
func configFingerprint(c Config, est *tokens.Estimator, r Redactor, pol *Policy) (string, error) {
	return fingerprint(struct {
		Contract  string `json:"contract_version"`
		Config    Config `json:"config"`
		Estimator string `json:"estimator"`
		Redactor  string `json:"redactor"`
		Policy    string `json:"policy,omitempty"`
	}{ContractVersion, c.withDefaults(), est.Note(), r.Version(), pol.digest()})
}

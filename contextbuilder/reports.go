package contextbuilder

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ctxd/ctxd/contextbuilder/tokens"
)

// outputs is the output of the reports step: what the run's mode returns,
// the rest nil.
type outputs struct {
	bundle     *Bundle          // modeBuild
	manifest   *Manifest        // modeBuild, modeManifest
	redactions *RedactionReport // modeBuild, modeManifest
	budget     *BudgetReport    // every mode
	counts     Counts           // modeBudget
}

// reports runs the reports step.
func (e *env) reports(b bundled) outputs {
	if e.mode == modeBudget {
		return outputs{budget: e.budgetReport(b.notes, b.total, b.decision, ""), counts: e.counts(b)}
	}
	out := outputs{
		manifest:   e.manifest(b),
		redactions: &RedactionReport{BundleID: b.bundleID, Redactions: b.sortedRedactions()},
		budget:     e.budgetReport(b.notes, b.total, b.decision, b.bundleID),
	}
	if e.mode == modeBuild {
		out.bundle = &Bundle{
			BundleID:      b.bundleID,
			BundleVersion: BundleVersion,
			CreatedAt:     createdAt(e.opts.CreatedAt),
			Purpose:       e.req.Purpose,
			CorrelationID: b.correlationID,
			Model:         e.model,
			Blocks:        b.built,
		}
		if b.built != nil {
			out.bundle.canon = &canonBlocks{data: b.canonBlocks, n: len(b.built)}
			if len(b.built) > 0 {
				out.bundle.canon.first = &b.built[0]
			}
		}
	}
	return out
}

// sortedRedactions returns the redaction entries in canonical order:
// target, type, reason, details; exact duplicates removed.
func (t *trail) sortedRedactions() []Redaction {
	out := slices.Clone(t.redacts)
	slices.SortFunc(out, func(a, b Redaction) int {
		return cmp.Or(strings.Compare(a.Target, b.Target), strings.Compare(string(a.Type), string(b.Type)), strings.Compare(string(a.Reason), string(b.Reason)), strings.Compare(a.Details, b.Details))
	})
	if out == nil {
		out = []Redaction{}
	}
	return slices.Compact(out)
}

// budgetReport is the budget report; the estimator comes first in notes.
func (e *env) budgetReport(steps []string, total int, decision Decision, bundleID string) *BudgetReport {
	notes := []string{e.est.Note()}
	if tokens.EncodingFor(e.model.Model) == e.est.Name() && e.model.Provider != "openai" && e.model.Provider != "azure" {
		notes = append(notes, fmt.Sprintf("estimator: %s's tokenizer is not public; %s is used as the estimate", e.model.Model, e.est.Name()))
	}
	notes = append(notes, steps...)
	return &BudgetReport{
		BundleID:             bundleID,
		EstimatedInputTokens: total,
		MaxInputTokens:       e.model.MaxInputTokens,
		SoftLimitTokens:      e.limits.soft,
		HardLimitTokens:      e.limits.hard,
		ReserveOutputTokens:  e.model.ResponseTokenReserve,
		Decision:             decision,
		Notes:                notes,
	}
}

// manifest is the manifest of the rendered bundle.
func (e *env) manifest(b bundled) *Manifest {
	sel := Selection{TargetFiles: []string{}, TargetSymbols: slices.Clone(b.symbols), IncludedFiles: []IncludedFile{}, ExcludedCandidates: []Excluded{}}
	if sel.TargetSymbols == nil {
		sel.TargetSymbols = []string{}
	}
	for _, t := range b.targets {
		sel.TargetFiles = append(sel.TargetFiles, t.path)
	}
	best := bestBlocks(b.blocks)
	for _, it := range best {
		sel.IncludedFiles = append(sel.IncludedFiles, IncludedFile{Path: it.path, Hash: it.file.SHA256, Encoding: string(it.file.Encoding), ByteSize: it.file.ByteSize, Reason: it.reason})
	}
	slices.SortFunc(sel.IncludedFiles, func(a, b IncludedFile) int { return strings.Compare(a.Path, b.Path) })
	// A path with a block in the bundle is not an excluded candidate even
	// when another of its blocks was removed (a P2 file whose P1 symbol
	// stays): the removal is in the redaction report, and no excluded path
	// appears in a block.
	for _, x := range b.excluded {
		if _, in := best[x.Path]; !in {
			sel.ExcludedCandidates = append(sel.ExcludedCandidates, x)
		}
	}
	slices.SortFunc(sel.ExcludedCandidates, func(a, b Excluded) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), strings.Compare(string(a.Reason), string(b.Reason)))
	})
	sel.ExcludedCandidates = slices.Compact(sel.ExcludedCandidates)
	return &Manifest{
		BundleID:      b.bundleID,
		CorrelationID: b.correlationID,
		Purpose:       e.req.Purpose,
		Selection:     sel,
		Fingerprints: Fingerprints{
			ProjectIndexFingerprint: e.root.Fingerprint(),
			ConfigFingerprint:       e.configFP,
			BundleFingerprint:       b.fingerprint,
		},
	}
}

// bestBlocks maps each file with a block to the block that gives its
// reason: a target before anything else, then by weight. Only lookups are
// made in it; the manifest sorts what it lists.
func bestBlocks(blocks []*item) map[string]*item {
	best := map[string]*item{}
	for _, it := range blocks {
		if it.path == "" {
			continue
		}
		if b, ok := best[it.path]; !ok || it.weight > b.weight || it.target && !b.target {
			best[it.path] = it
		}
	}
	return best
}

// counts summarizes the selection for ctxd.budget.
func (e *env) counts(b bundled) Counts {
	c := Counts{Blocks: map[Priority]int{P0: 0, P1: 0, P2: 0, P3: 0}, Excluded: len(b.excluded), Redactions: len(b.sortedRedactions()), TargetFiles: len(b.targets)}
	files := map[string]bool{}
	for _, it := range b.blocks {
		c.Blocks[it.priority]++
		if it.path != "" {
			files[it.path] = true
		}
	}
	c.Files = len(files)
	return c
}

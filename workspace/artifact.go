package workspace

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/workspace/ledger"
)

// ContextSchema is the schema of a contexts artifact: everything a build
// returned, with the policy's selection metrics.
const ContextSchema = "ctxd.context_selection.v1"

// Orderings of a selection's items (seed 001).
const (
	// OrderingLexicographic sorts items by path, symbol, then title.
	OrderingLexicographic = "lexicographic"
	// OrderingManifest keeps the bundle's order (INV-CONTEXT-1).
	OrderingManifest = "stable_manifest_order"
)

// contextArtifact is the JSON stored under artifacts/contexts of the records (see Locate): the
// four outputs as returned to the client, plus the selection metrics and
// the policy the build ran under.
type contextArtifact struct {
	Schema          string                          `json:"schema"`
	Bundle          *contextbuilder.Bundle          `json:"bundle"`
	Manifest        *contextbuilder.Manifest        `json:"manifest"`
	RedactionReport *contextbuilder.RedactionReport `json:"redaction_report"`
	BudgetReport    *contextbuilder.BudgetReport    `json:"budget_report"`
	Selection       selection                       `json:"selection"`
	Policy          policyRef                       `json:"policy"`
	// ThreadID is the thread of the build; "" outside a thread.
	ThreadID string `json:"thread_id,omitempty"`
}

// canonical is the artifact's RFC 8785 (JCS) form, the bytes the store
// writes: members in key order, the builder's outputs as their own
// AppendCanonical writes them (the bundle's blocks are the bytes its
// fingerprint hashed, not written again), the rest written here.
// TestContextArtifactIsJCS checks it against the jcs module.
func (a *contextArtifact) canonical() []byte {
	return a.appendCanonical(nil)
}

// artifactBuffers are buffers for the canonical bytes of context
// artifacts, which are garbage as soon as the store has written them: a
// build reuses one instead of allocating the size of its bundle again,
// which would bring the collector's next cycle — a scan of the whole
// index — that much nearer.
var artifactBuffers = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledArtifact is the largest buffer kept for reuse.
const maxPooledArtifact = 8 << 20

// withCanonical calls f with the artifact's canonical bytes, valid only
// during the call, in a buffer reused across builds.
func (a *contextArtifact) withCanonical(f func([]byte) error) error {
	bp := artifactBuffers.Get().(*[]byte)
	data := a.appendCanonical((*bp)[:0])
	err := f(data)
	if cap(data) <= maxPooledArtifact {
		*bp = data[:0]
		artifactBuffers.Put(bp)
	}
	return err
}

// appendCanonical appends the artifact's canonical form to dst.
func (a *contextArtifact) appendCanonical(dst []byte) []byte {
	// The blocks are nearly all of it: size the buffer once, with room
	// for the escapes of their JSON strings.
	n := 4096 + 256*len(a.Selection.Items)
	if a.Bundle != nil {
		for i := range a.Bundle.Blocks {
			n += len(a.Bundle.Blocks[i].Content)*9/8 + 640
		}
	}
	dst = slices.Grow(dst, n)
	dst = append(dst, `{"budget_report":`...)
	dst = a.BudgetReport.AppendCanonical(dst)
	dst = append(dst, `,"bundle":`...)
	dst = a.Bundle.AppendCanonical(dst)
	dst = append(dst, `,"manifest":`...)
	dst = a.Manifest.AppendCanonical(dst)
	dst = append(dst, `,"policy":{"context_config_digest":`...)
	dst = contextbuilder.AppendJCSString(dst, a.Policy.ContextConfigDigest)
	dst = append(dst, `,"policy_artifact_sha256":`...)
	dst = contextbuilder.AppendJCSString(dst, a.Policy.PolicyArtifact)
	dst = append(dst, `,"rules_digest":`...)
	dst = contextbuilder.AppendJCSString(dst, a.Policy.RulesDigest)
	dst = append(dst, `,"skill":`...)
	dst = contextbuilder.AppendJCSString(dst, a.Policy.Skill)
	dst = append(dst, `},"redaction_report":`...)
	dst = a.RedactionReport.AppendCanonical(dst)
	dst = append(dst, `,"schema":`...)
	dst = contextbuilder.AppendJCSString(dst, a.Schema)
	dst = append(dst, `,"selection":{"items":`...)
	if a.Selection.Items == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i := range a.Selection.Items {
			it := &a.Selection.Items[i]
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"block_id":`...)
			dst = contextbuilder.AppendJCSString(dst, it.BlockID)
			dst = append(dst, `,"block_type":`...)
			dst = contextbuilder.AppendJCSString(dst, string(it.BlockType))
			dst = append(dst, `,"bytes":`...)
			dst = contextbuilder.AppendJCSInt(dst, int64(it.Bytes))
			dst = append(dst, `,"path":`...)
			dst = contextbuilder.AppendJCSString(dst, it.Path)
			dst = append(dst, `,"priority":`...)
			dst = contextbuilder.AppendJCSString(dst, string(it.Priority))
			dst = append(dst, `,"symbol":`...)
			dst = contextbuilder.AppendJCSString(dst, it.Symbol)
			dst = append(dst, `,"title":`...)
			dst = contextbuilder.AppendJCSString(dst, it.Title)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	dst = append(dst, `,"ordering":`...)
	dst = contextbuilder.AppendJCSString(dst, a.Selection.Ordering)
	dst = append(dst, `,"total_bytes":`...)
	dst = contextbuilder.AppendJCSInt(dst, int64(a.Selection.TotalBytes))
	dst = append(dst, `,"total_items":`...)
	dst = contextbuilder.AppendJCSInt(dst, int64(a.Selection.TotalItems))
	dst = append(dst, '}')
	if a.ThreadID != "" {
		dst = append(dst, `,"thread_id":`...)
		dst = contextbuilder.AppendJCSString(dst, a.ThreadID)
	}
	return append(dst, '}')
}

// policyRef names the configuration and rules a build ran under.
type policyRef struct {
	Skill               string `json:"skill"`
	RulesDigest         string `json:"rules_digest"`
	ContextConfigDigest string `json:"context_config_digest"`
	PolicyArtifact      string `json:"policy_artifact_sha256"`
}

// selection is seed 001's selection: the context items (file, symbol and
// thread blocks) in the policy's ordering with canonical totals.
type selection struct {
	Ordering   string          `json:"ordering"`
	Items      []selectionItem `json:"items"`
	TotalItems int             `json:"total_items"`
	TotalBytes int             `json:"total_bytes"`
}

type selectionItem struct {
	BlockID   string                   `json:"block_id"`
	BlockType contextbuilder.BlockType `json:"block_type"`
	Priority  contextbuilder.Priority  `json:"priority"`
	Path      string                   `json:"path"`
	Symbol    string                   `json:"symbol"`
	Title     string                   `json:"title"`
	Bytes     int                      `json:"bytes"`
}

// countsAsItem mirrors the builder's policy count: workspace content and
// thread blocks (P2 blocks not from a file).
func countsAsItem(b *contextbuilder.Block) bool {
	switch b.BlockType {
	case contextbuilder.BlockFile, contextbuilder.BlockSymbol:
		return true
	}
	return b.Priority == contextbuilder.P2 && b.Meta.Path == nil
}

// selectionOf lists a bundle's context items in the given ordering.
func selectionOf(b *contextbuilder.Bundle, ordering string) selection {
	s := selection{Ordering: ordering, Items: []selectionItem{}}
	for i := range b.Blocks {
		blk := &b.Blocks[i]
		if !countsAsItem(blk) {
			continue
		}
		it := selectionItem{BlockID: blk.BlockID, BlockType: blk.BlockType, Priority: blk.Priority, Title: blk.Title, Bytes: len(blk.Content)}
		if blk.Meta.Path != nil {
			it.Path = *blk.Meta.Path
		}
		if blk.Meta.Symbol != nil {
			it.Symbol = *blk.Meta.Symbol
		}
		s.Items = append(s.Items, it)
		s.TotalItems++
		s.TotalBytes += it.Bytes
	}
	if ordering == OrderingLexicographic {
		slices.SortStableFunc(s.Items, func(a, b selectionItem) int {
			return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Symbol, b.Symbol), cmp.Compare(a.Title, b.Title), cmp.Compare(a.BlockID, b.BlockID))
		})
	}
	return s
}

// auditSelection appends context_selected: what was selected (digests,
// counts, reasons) or why nothing was, never contents. A bundle whose
// selection cannot be audited is not returned (the caller refuses), so
// nothing leaves ctxd without a record.
//
// th is the request's thread; nil outside a thread.
func (w *Workspace) auditSelection(req *contextbuilder.Request, th *ledger.Thread, res *contextbuilder.Result, b *built, err error) error {
	if w.audit == nil || req == nil {
		return nil
	}
	data := map[string]any{"purpose": req.Purpose}
	if req.Skill != "" {
		data["skill"] = req.Skill
	}
	if th != nil {
		data["thread_id"], data["turn_id"] = th.ThreadID, th.TurnID
	}
	if b != nil && b.contextDigest != "" {
		data["context_digest"] = b.contextDigest
	}
	var ref *contextbuilder.Refusal
	switch {
	case res != nil:
		m := res.Manifest
		data["result"] = "selected"
		data["correlation_id"] = m.CorrelationID
		data["bundle_id"] = m.BundleID
		data["bundle_fingerprint"] = m.Fingerprints.BundleFingerprint
		data["project_index_fingerprint"] = m.Fingerprints.ProjectIndexFingerprint
		data["config_fingerprint"] = m.Fingerprints.ConfigFingerprint
		data["context_artifact_sha256"] = b.contextSHA
		data["blocks"] = len(res.Bundle.Blocks)
		data["included_files"] = len(m.Selection.IncludedFiles)
		data["excluded"] = exclusionCounts(m.Selection.ExcludedCandidates)
		data["redactions"] = redactionCount(res.RedactionReport.Redactions)
		data["estimated_input_tokens"] = res.BudgetReport.EstimatedInputTokens
		data["decision"] = res.BudgetReport.Decision
	case errors.As(err, &ref):
		data["result"] = "refused"
		data["reason"] = ref.Code
	default:
		data["result"] = "failed"
	}
	if err := w.audit.Append(ledger.AuditContextSelected, data); err != nil {
		return fmt.Errorf("appending to the audit trail: %w", err)
	}
	return nil
}

// exclusionCounts counts excluded candidates by reason, each group of a
// long list (docs/contract.md, "Long lists") for the candidates it stands
// for.
func exclusionCounts(ex []contextbuilder.Excluded) map[string]int {
	out := map[string]int{}
	for _, e := range ex {
		out[string(e.Reason)] += e.Count()
	}
	return out
}

// redactionCount counts redaction entries, each group of a long list for
// the entries it stands for.
func redactionCount(rs []contextbuilder.Redaction) int {
	n := 0
	for _, r := range rs {
		n += r.Count()
	}
	return n
}

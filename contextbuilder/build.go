package contextbuilder

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ctxd/ctxd/contextbuilder/tokens"
	"github.com/ctxd/ctxd/index"
)

// Options are the inputs of a build besides the snapshot and the request.
type Options struct {
	// Config is the effective config; the zero Config means DefaultConfig.
	Config Config
	// Redactor scans every text that would be sent; nil means
	// secrets.Default(), the built-in rules.
	Redactor Redactor
	// CreatedAt is written to created_at, the only wall-clock field; it is
	// outside every fingerprint and id. The zero time is written as
	// 1970-01-01T00:00:00Z.
	CreatedAt time.Time
	// Tokens memoizes token counts across builds; nil means no memo. It
	// never changes a count, only its cost.
	Tokens *tokens.Cache
	// Scans memoizes the redactor's findings for whole files across
	// builds; nil means no memo. Like Tokens it changes costs, not
	// results.
	Scans *ScanCache
	// Relations memoizes the relation graph's answers about each target
	// across builds on the same folder snapshot; nil means no memo. Like
	// Tokens it changes costs, not results.
	Relations *RelationCache
	// Refresh re-reads the given files from disk into the index and
	// returns the new snapshot. The builder calls it when a file changed
	// on disk since it was indexed (seed 002 edge case 2); nil means such
	// a file cannot be read deterministically.
	Refresh func(ctx context.Context, uris []string) *index.Snapshot
	// OnDemand, when set, is told the size of the demand set and the
	// number of runs of a build made before its folder was parsed (see
	// index.Demand): the files it depended on, for the log.
	OnDemand func(files, runs int)
	// Policy is seed 001's effective context policy; nil means none.
	Policy *Policy
	// ThreadRefs are the earlier thread events the request referenced,
	// resolved by the ledger, in event order; each becomes a P2 block.
	// Nil means none (a request without a thread, or refs that admit no
	// content).
	ThreadRefs []ThreadRef
}

// Root returns the workspace folder a request builds from: the one holding
// the active file, else the first explicit target given as a URI, else
// the first folder. It fails like Build would (a *Refusal) when the
// request names a document outside every folder or no folder is open.
// Callers use it to pick the folder's configuration before building.
func Root(snap *index.Snapshot, req *Request) (*index.RootSnapshot, error) {
	if req == nil {
		return nil, fmt.Errorf("%w: the request object is missing", ErrInvalidRequest)
	}
	return chooseRoot(snap, req)
}

// Build runs the whole contract and returns the four outputs. A refusal
// is returned as a *Refusal error; a malformed request as an error
// wrapping ErrInvalidRequest; ctx's error when cancelled.
func Build(ctx context.Context, snap *index.Snapshot, req *Request, opts Options) (*Result, error) {
	out, err := runWithRefresh(ctx, snap, req, opts, modeBuild)
	if err != nil {
		return nil, err
	}
	return &Result{Bundle: out.bundle, Manifest: out.manifest, RedactionReport: out.redactions, BudgetReport: out.budget}, nil
}

// BuildManifest selects exactly as Build does and returns the manifest and
// reports without block contents (ctxd.manifest). Its fingerprints and ids
// equal Build's for the same inputs.
//
// What it skips: the bundle itself. Each block is made, given its
// block_id and streamed into the bundle_fingerprint hash, then dropped;
// no Bundle, block list or Result is kept, and created_at is never
// formatted. What it cannot skip: bundle_fingerprint (and so bundle_id)
// hashes every block's title, content and meta, so every kept block is
// read, sliced, redacted and counted exactly as in a build — the token
// counts also decide which blocks are kept — and the canonical request is
// needed for correlation_id and the block ids inside the hash.
func BuildManifest(ctx context.Context, snap *index.Snapshot, req *Request, opts Options) (*ManifestResult, error) {
	out, err := runWithRefresh(ctx, snap, req, opts, modeManifest)
	if err != nil {
		return nil, err
	}
	return &ManifestResult{Manifest: out.manifest, RedactionReport: out.redactions, BudgetReport: out.budget}, nil
}

// Budget selects as Build does and returns the budget report with counts
// (ctxd.budget). A selection that Build would refuse for its size gives a
// report with decision refuse_hard_limit instead of an error, since a
// status bar wants to show it; other refusals are errors.
//
// What it skips: everything after the blocks are chosen and ordered —
// the canonical request, block ids, bundle_fingerprint, manifest and
// bundle (its report's bundle_id is ""); and, with a ScanCache, the
// reading of optional whole files it has counted before under the same
// content hash. What it cannot skip: the selection, slicing and redaction
// of every block, since its token estimate counts the text that would be
// sent, after redaction.
func Budget(ctx context.Context, snap *index.Snapshot, req *Request, opts Options) (*BudgetResult, error) {
	out, err := runWithRefresh(ctx, snap, req, opts, modeBudget)
	var ref *Refusal
	if errors.As(err, &ref) && ref.Code == RefuseContextTooLarge && out.budget != nil && out.budget.Decision == DecisionRefuse {
		return &BudgetResult{BudgetReport: out.budget, Counts: out.counts}, nil
	}
	if err != nil {
		return nil, err
	}
	return &BudgetResult{BudgetReport: out.budget, Counts: out.counts}, nil
}

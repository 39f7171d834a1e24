package contextbuilder

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ctxd/ctxd/contextbuilder/secrets"
	"github.com/ctxd/ctxd/contextbuilder/tokens"
	"github.com/ctxd/ctxd/handlers/position"
	"github.com/ctxd/ctxd/index"
)

type mode int

const (
	modeBuild mode = iota
	modeBudget
)

// maxRefreshes bounds how often a build restarts after finding files that
// changed on disk since indexing; past it the workspace is changing faster
// than it can be read deterministically.
const maxRefreshes = 3

// staleError reports files whose disk content no longer matches the index.
type staleError struct{ uris []string }

func (e *staleError) Error() string { return fmt.Sprintf("%d files changed on disk", len(e.uris)) }

// run is the whole contract for one request: it retries with a refreshed
// snapshot when files changed on disk since indexing (seed 002 edge case
// 2: the filesystem is the source of truth and the manifest carries the
// new hash).
func run(ctx context.Context, snap *index.Snapshot, req *Request, opts Options, m mode) (*pipeline, error) {
	if req == nil {
		return nil, fmt.Errorf("%w: the request object is missing", ErrInvalidRequest)
	}
	if err := req.Validate(); err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		p, err := newPipeline(snap, req, opts, m)
		if err != nil {
			return nil, err
		}
		err = p.run(ctx)
		var stale *staleError
		if !errors.As(err, &stale) {
			return p, err
		}
		if opts.Refresh == nil || attempt >= maxRefreshes {
			return nil, &Refusal{
				Code:    RefuseUnsupportedTarget,
				Message: fmt.Sprintf("%s changed on disk while the context was built and could not be read deterministically", strings.Join(relPaths(snap, stale.uris), ", ")),
				Advice:  "save or stop editing the file and retry",
			}
		}
		snap = opts.Refresh(ctx, stale.uris)
	}
}

// relPaths turns file URIs into workspace-relative paths for messages.
func relPaths(snap *index.Snapshot, uris []string) []string {
	out := make([]string, len(uris))
	for i, u := range uris {
		out[i] = u
		if _, rel, ok := snap.Locate(u); ok {
			out[i] = rel
		}
	}
	return out
}

// pipeline holds one build's state. It is used by one goroutine.
type pipeline struct {
	req      *Request
	opts     Options
	mode     mode
	snap     *index.Snapshot
	root     *index.RootSnapshot
	model    Model
	est      *tokens.Estimator
	redactor Redactor
	enc      position.Encoding

	hard, soft int

	targets  []*item // P0 file items of targets, sorted by path
	items    []*item // every block candidate, ranked
	excluded []Excluded
	redacts  []Redaction
	notes    []string
	symbols  []string             // target symbols (qualified names)
	texts    map[string]fileText  // files read by this build, by path
	findings map[string][]Finding // secrets of whole files, by path

	configFP string
	total    int
	decision Decision
	blocks   []*item // the blocks of the bundle, in INV-CONTEXT-1 order
	bundle   *Bundle
	bundleFP string
}

func newPipeline(snap *index.Snapshot, req *Request, opts Options, m mode) (*pipeline, error) {
	model, err := effectiveModel(opts.Config, req.Model)
	if err != nil {
		return nil, err
	}
	p := &pipeline{req: req, opts: opts, mode: m, snap: snap, model: model, redactor: opts.Redactor, enc: opts.PositionEncoding}
	if p.redactor == nil {
		p.redactor = secrets.Default()
	}
	if p.enc == "" {
		p.enc = position.UTF16
	}
	p.est = tokens.ForModel(model.Model)
	p.hard, p.soft = limits(model)
	return p, nil
}

// run executes the selection algorithm's steps in order.
func (p *pipeline) run(ctx context.Context) error {
	fp, err := configFingerprint(p.opts.Config, p.est, p.redactor, p.opts.Policy)
	if err != nil {
		return err
	}
	p.configFP = fp
	if err := p.chooseRoot(); err != nil {
		return err
	}
	// Step 0 and Step 1 for explicit targets: resolve, exclude or refuse.
	if err := p.resolveTargets(); err != nil {
		return err
	}
	if err := p.loadTargets(); err != nil {
		return err
	}
	if err := p.checkNamespaces(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	// Step 0 for index-derived items, then Step 2 (ranking) and Step 3
	// (priorities): the items come out ranked, with their priority.
	if p.req.Purpose != PurposeIntent && len(p.targets) > 0 {
		p.relate(ctx)
	}
	// Thread references (seed 000) join the optional blocks ahead of the
	// ranked P2 candidates.
	p.items = append(p.threadItems(), p.items...)
	// Step 4: fit to budget.
	if err := p.fit(ctx); err != nil {
		return err
	}
	p.account()
	if p.mode == modeBudget {
		// ctxd.budget produces no bundle, so it skips ordering, meta and
		// fingerprints: its report's bundle_id is "".
		return nil
	}
	return p.assemble()
}

// count returns the tokens of a text sent to the model.
func (p *pipeline) count(text string) int {
	return p.opts.Tokens.Count(p.est, text)
}

// createdAt formats the only wall-clock field.
func createdAt(t time.Time) string {
	if t.IsZero() {
		t = time.Unix(0, 0)
	}
	return t.UTC().Format(time.RFC3339)
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
		var ka, kb string
		switch a.typ {
		case BlockFile:
			ka, kb = a.path, b.path
		case BlockSymbol:
			ka, kb = a.symbol, b.symbol
		default:
			ka, kb = a.title, b.title
		}
		if c := strings.Compare(ka, kb); c != 0 {
			return c
		}
		if c := strings.Compare(a.path, b.path); c != 0 {
			return c
		}
		return strings.Compare(a.title, b.title)
	})
}

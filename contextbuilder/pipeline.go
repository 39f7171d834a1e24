package contextbuilder

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ctxd/ctxd/contextbuilder/secrets"
	"github.com/ctxd/ctxd/contextbuilder/tokens"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/index/ignore"
)

// mode is what an entry point needs from a run. The previews stop or skip
// work as soon as their outputs no longer depend on it.
type mode int

const (
	// modeBuild produces the bundle and its three reports
	// (ctxd.buildContext).
	modeBuild mode = iota
	// modeManifest produces the manifest and the reports: the blocks are
	// hashed for bundle_fingerprint as they are made, never kept
	// (ctxd.manifest).
	modeManifest
	// modeBudget produces the budget report and counts: no ids, no
	// fingerprint, and optional whole files counted before are recalled
	// rather than read (ctxd.budget).
	modeBudget
)

// maxRefreshes bounds how often a build restarts after finding files that
// changed on disk since indexing; past it the workspace is changing faster
// than it can be read deterministically.
const maxRefreshes = 3

// staleError reports files whose disk content no longer matches the index.
type staleError struct{ uris []string }

func (e *staleError) Error() string { return fmt.Sprintf("%d files changed on disk", len(e.uris)) }

// runWithRefresh is the whole contract for one request: it retries with a
// refreshed snapshot when files changed on disk since indexing (seed 002
// edge case 2: the filesystem is the source of truth and the manifest
// carries the new hash).
func runWithRefresh(ctx context.Context, snap *index.Snapshot, req *Request, opts Options, m mode) (outputs, error) {
	if req == nil {
		return outputs{}, fmt.Errorf("%w: the request object is missing", ErrInvalidRequest)
	}
	if err := req.Validate(); err != nil {
		return outputs{}, err
	}
	for attempt := 0; ; attempt++ {
		out, err := runOnDemand(ctx, snap, req, opts, m)
		var stale *staleError
		if !errors.As(err, &stale) {
			return out, err
		}
		if opts.Refresh == nil || attempt >= maxRefreshes {
			return outputs{}, &Refusal{
				Code:    RefuseUnsupportedTarget,
				Message: fmt.Sprintf("%s changed on disk while the context was built and could not be read deterministically", strings.Join(relPaths(snap, stale.uris), ", ")),
				Advice:  "save or stop editing the file and retry",
			}
		}
		snap = opts.Refresh(ctx, stale.uris)
	}
}

// runOnDemand runs the build once on a folder whose files are all parsed.
// On a folder still being parsed it runs on the folder's demand set
// (index.Demand) until a run needs no file outside it: that run is the
// build of the complete index, byte for byte, since each of its lookups
// saw every file that could answer it. Every run but the last is
// discarded whatever its outcome, a refusal included: a run that could
// not find a symbol may find it once the files naming it are parsed.
func runOnDemand(ctx context.Context, snap *index.Snapshot, req *Request, opts Options, m mode) (outputs, error) {
	e, err := newEnv(snap, req, opts, m)
	if err != nil {
		return outputs{}, err
	}
	d := e.root.Demand()
	if d == nil {
		return e.run(ctx)
	}
	defer d.Close()
	whole := e.root
	for {
		// The memo of texts read stays: it depends on the files, not
		// on the graph. Only the candidates step asks the graph: a run
		// that may not be the last stops after it, and the last goes
		// on from its candidates.
		e.root = d.Root()
		c, err := e.candidates(ctx)
		if ctx.Err() != nil {
			return outputs{}, ctx.Err()
		}
		grew, gerr := d.Grow(ctx)
		if gerr != nil {
			return outputs{}, gerr
		}
		if !grew {
			if opts.OnDemand != nil {
				opts.OnDemand(d.Files(), d.Runs())
			}
			if err != nil {
				return outputs{}, err
			}
			return e.runFrom(ctx, c)
		}
		if d.Complete() {
			// Every file is parsed now (Demand answered nil had they
			// been before): the whole root's graph is the one the
			// runs would converge to, and it answers repeated
			// questions from its memo.
			e.root = whole
			if opts.OnDemand != nil {
				opts.OnDemand(d.Files(), d.Runs())
			}
			return e.run(ctx)
		}
	}
}

// run executes the steps of seed 002's selection algorithm in order, each
// taking the previous step's output.
func (e *env) run(ctx context.Context) (outputs, error) {
	c, err := e.candidates(ctx)
	if err != nil {
		return outputs{}, err
	}
	return e.runFrom(ctx, c)
}

// runFrom runs the steps after the candidates step.
func (e *env) runFrom(ctx context.Context, c candidates) (outputs, error) {
	s, err := e.exclusions(c)
	if err != nil {
		return outputs{}, err
	}
	a := e.assemble(rankCandidates(s))
	f, err := e.fit(ctx, a)
	if err != nil {
		if e.mode == modeBudget && f.decision == DecisionRefuse {
			// A status bar shows a selection too large to send rather
			// than an error: the reports come with the refusal.
			return e.reports(bundled{fitted: f}), err
		}
		return outputs{}, err
	}
	b, err := e.render(f)
	if err != nil {
		return outputs{}, err
	}
	return e.reports(b), nil
}

// env is the read-only context of one build attempt, shared by its steps:
// the request and options, the snapshot and the folder built from, the
// effective model with its limits, the estimator and the redactor. Its
// memo of the texts read and the files scanned is the only thing the
// steps add to it. A build attempt runs on one goroutine.
type env struct {
	req      *Request
	opts     Options
	mode     mode
	snap     *index.Snapshot
	root     *index.RootSnapshot
	model    Model
	limits   limits
	est      *tokens.Estimator
	redactor Redactor
	configFP string
	mem      *memo
	// newFiles are the plan step's new files that do not exist yet,
	// sorted: targets without content (set by resolveTargets).
	newFiles []string
	// deny are the workspace's own never-send rules (Config.DenyRules);
	// nil without any.
	deny *ignore.Rules
}

// newEnv computes what every step shares: the effective model (an
// invalid budget is an invalid request), the config fingerprint, and the
// folder to build from (a refusal when the request points outside every
// folder).
func newEnv(snap *index.Snapshot, req *Request, opts Options, m mode) (*env, error) {
	model, err := effectiveModel(opts.Config, req.Model)
	if err != nil {
		return nil, err
	}
	e := &env{req: req, opts: opts, mode: m, snap: snap, model: model, limits: limitsOf(model), redactor: opts.Redactor, mem: newMemo()}
	if e.redactor == nil {
		e.redactor = secrets.Default()
	}
	e.est = tokens.ForModel(model.Model)
	e.deny = opts.Config.DenyMatcher()
	if e.configFP, err = configFingerprint(opts.Config, e.est, e.redactor, opts.Policy); err != nil {
		return nil, err
	}
	if e.root, err = chooseRoot(snap, req); err != nil {
		return nil, err
	}
	return e, nil
}

// count returns the tokens of a text sent to the model.
func (e *env) count(text string) int {
	return e.opts.Tokens.Count(e.est, text)
}

// scope is what a request is about: its targets and target symbols,
// settled by the candidates step and carried unchanged to the reports.
type scope struct {
	targets []*item  // P0 target files, sorted by path
	symbols []string // qualified names of the target symbols, sorted
}

// trail is what the steps record on the way, in the order it happened:
// the candidates left out (manifest), the redaction report's entries and
// the budget report's notes. Each step's output carries it to the next.
type trail struct {
	excluded []Excluded
	redacts  []Redaction
	notes    []string
}

// exclude records a candidate left out, in the manifest and the redaction
// report.
func (t *trail) exclude(rel string, why ExcludeReason, typ RedactionType, reason RedactionReason, details string) {
	t.excluded = append(t.excluded, Excluded{Path: rel, Reason: why})
	t.redacts = append(t.redacts, Redaction{Type: typ, Target: rel, Reason: reason, Details: details})
}

// dropForBudget removes a candidate that does not fit under one of the
// limits.
func (t *trail) dropForBudget(it *item, which limit, l limits) {
	t.exclude(it.excludedPath(), ExcludeTokenBudget, RedactBlockRemoved, RedactReasonBudget,
		fmt.Sprintf("%s %s %s: %s", it.priority, it.reason, it.label(), which.removal(l.of(which))))
}

// note adds a note to the budget report.
func (t *trail) note(format string, args ...any) {
	t.notes = append(t.notes, fmt.Sprintf(format, args...))
}

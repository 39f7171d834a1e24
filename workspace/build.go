package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/internal/strictjson"
	"github.com/ctxd/ctxd/workspace/ledger"
	"github.com/ctxd/ctxd/workspace/policy"
	"github.com/ctxd/ctxd/workspace/store"
)

// prepared is what the config and policy make of a request before the
// builder runs.
type prepared struct {
	opts   contextbuilder.Options
	rules  *policy.Rules
	thread *ledger.Thread
}

// prepare applies the loaded config and the effective policy (the
// request's skill narrowed over the global policy) to the builder's
// options, and decodes the request's thread.
func (w *Workspace) prepare(req *contextbuilder.Request, opts contextbuilder.Options) (*prepared, error) {
	if req == nil {
		return nil, fmt.Errorf("%w: the request object is missing", contextbuilder.ErrInvalidRequest)
	}
	if w.configErr != nil {
		return nil, asRefusal(w.configErr)
	}
	rules, err := w.config.Rules(req.Skill)
	if err != nil {
		return nil, asRefusal(err)
	}
	opts.Config = w.builderConfig()
	opts.Policy = builderPolicy(rules)
	th, err := decodeThread(req.Thread)
	if err != nil {
		return nil, err
	}
	return &prepared{opts: opts, rules: rules, thread: th}, nil
}

// decodeThread decodes the request's thread object strictly; nil when the
// request has none.
func decodeThread(raw json.RawMessage) (*ledger.Thread, error) {
	if strictjson.Absent(raw) {
		return nil, nil
	}
	var t ledger.Thread
	if err := strictjson.Decode(raw, &t, strictjson.Options{}); err != nil {
		return nil, fmt.Errorf("%w: field \"thread\": %w", contextbuilder.ErrInvalidRequest, err)
	}
	if err := t.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", contextbuilder.ErrInvalidRequest, err)
	}
	return &t, nil
}

// Manifest selects as Build does, under the config and policy, and
// returns the manifest without contents. It records nothing: it is a
// preview. A thread's references are resolved read-only.
func (w *Workspace) Manifest(ctx context.Context, snap *index.Snapshot, req *contextbuilder.Request, opts contextbuilder.Options) (*contextbuilder.ManifestResult, error) {
	pr, err := w.preview(ctx, req, opts)
	if err != nil {
		return nil, err
	}
	release, err := w.gate.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	return contextbuilder.BuildManifest(ctx, snap, req, pr.opts)
}

// Budget is [contextbuilder.Budget] under the config and policy; like
// Manifest it records nothing.
func (w *Workspace) Budget(ctx context.Context, snap *index.Snapshot, req *contextbuilder.Request, opts contextbuilder.Options) (*contextbuilder.BudgetResult, error) {
	pr, err := w.preview(ctx, req, opts)
	if err != nil {
		return nil, err
	}
	release, err := w.gate.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	return contextbuilder.Budget(ctx, snap, req, pr.opts)
}

// preview prepares a request that records nothing: thread references are
// resolved against the ledger as it is, and fail as a build would.
func (w *Workspace) preview(ctx context.Context, req *contextbuilder.Request, opts contextbuilder.Options) (*prepared, error) {
	pr, err := w.prepare(req, opts)
	if err != nil || pr.thread == nil {
		return pr, err
	}
	if err := w.state(); err != nil {
		return nil, stateRefusal(err)
	}
	_, err = w.ledger.Transact(ctx, func(v *ledger.View) ([]ledger.Draft, error) {
		refs, _, _, err := w.resolve(v, pr)
		if err != nil {
			return nil, err
		}
		pr.opts.ThreadRefs = refs
		return nil, nil
	})
	if err != nil {
		return nil, asRefusal(err)
	}
	return pr, nil
}

// resolve resolves the thread's declared refs (seed 000), applies the
// governance policy to the INTENTs only (invariant 1: EXECUTION events
// never reach it), and returns the thread blocks for the builder with the
// resolved refs and the normative inputs.
func (w *Workspace) resolve(v *ledger.View, pr *prepared) ([]contextbuilder.ThreadRef, []ledger.ResolvedRef, normative, error) {
	resolved, err := v.Resolve(*pr.thread, w.settings())
	if err != nil {
		return nil, nil, normative{}, err
	}
	inputs, digests, err := v.Intents(resolved)
	if err != nil {
		return nil, resolved, normative{}, err
	}
	norm := normative{inputs: inputs, digests: digests}
	if err := w.govern(pr.rules, inputs); err != nil {
		return nil, resolved, norm, err
	}
	var refs []contextbuilder.ThreadRef
	for _, in := range inputs {
		refs = append(refs, contextbuilder.ThreadRef{RefID: in.RefID, Kind: contextbuilder.ThreadIntent, TurnID: turnOf(v, in.EventIndex), EventIndex: in.EventIndex, Text: in.UserInput})
	}
	if w.config.File.Context.AllowExecutionRefsForPrompt {
		execs, err := v.Executions(resolved)
		if err != nil {
			return nil, resolved, norm, err
		}
		for _, e := range execs {
			refs = append(refs, contextbuilder.ThreadRef{RefID: e.RefID, Kind: contextbuilder.ThreadExecution, TurnID: e.TurnID, EventIndex: e.EventIndex, Text: e.Output})
		}
	}
	slices.SortFunc(refs, func(a, b contextbuilder.ThreadRef) int { return a.EventIndex - b.EventIndex })
	return refs, resolved, norm, nil
}

// normative is the I_context of a decision: the referenced INTENT
// payloads and their digests.
type normative struct {
	inputs  []ledger.NormativeInput
	digests []string
}

// turnOf is the turn of an event of the view.
func turnOf(v *ledger.View, index int) string {
	evs := v.Events()
	if index >= 0 && index < len(evs) {
		return evs[index].TurnID
	}
	return ""
}

// govern is the policy decision on the normative inputs (seed 000 example
// 2): the referenced user messages plus the current one must not exceed
// max_user_messages_per_thread.
func (w *Workspace) govern(rules *policy.Rules, inputs []ledger.NormativeInput) error {
	if rules == nil || rules.MaxUserMessagesPerThread <= 0 || len(inputs)+1 <= rules.MaxUserMessagesPerThread {
		return nil
	}
	return &contextbuilder.Refusal{
		Code:    RefuseMaxUserMessages,
		Message: fmt.Sprintf("the request references %d earlier user messages of the thread; with the current one that is %d, over max_user_messages_per_thread %d", len(inputs), len(inputs)+1, rules.MaxUserMessagesPerThread),
		Advice:  "reference fewer earlier intents (declared_refs), or start a new thread",
	}
}

// Build runs the governed build: config and policy, the thread's refs,
// the builder, and the record of what was selected: the bundle as a
// contexts artifact, a context_selected audit event and, with a thread,
// the INTENT and DECISION ledger events (a refusal is recorded as a DENY
// decision). It returns the builder's result or a *contextbuilder.Refusal.
func (w *Workspace) Build(ctx context.Context, snap *index.Snapshot, req *contextbuilder.Request, opts contextbuilder.Options) (*contextbuilder.Result, error) {
	res, _, err := w.build(ctx, snap, req, opts)
	return res, err
}

// built is what a recorded build produced besides the result.
type built struct {
	contextSHA    string
	contextDigest string
	rules         *policy.Rules
}

func (w *Workspace) build(ctx context.Context, snap *index.Snapshot, req *contextbuilder.Request, opts contextbuilder.Options) (*contextbuilder.Result, *built, error) {
	pr, err := w.prepare(req, opts)
	if err != nil {
		if w.state() == nil {
			th, _ := decodeThread(req.Thread)            // best effort: the refusal may be about the thread itself
			_ = w.auditSelection(req, th, nil, nil, err) // the refusal is the answer; a broken trail shows in verify
		}
		return nil, nil, err
	}
	if err := w.state(); err != nil {
		return nil, nil, stateRefusal(err)
	}
	if pr.thread == nil {
		res, release, err := w.sharedBuild(ctx, snap, req, func() (*contextbuilder.Result, error) {
			return contextbuilder.Build(ctx, snap, req, pr.opts)
		})
		if release != nil {
			defer release() // the record is written under the gate too
		}
		if err != nil {
			_ = w.auditSelection(req, nil, nil, nil, err) // likewise
			return nil, nil, err
		}
		b := &built{rules: pr.rules}
		if b.contextSHA, err = w.putContext(res, pr, ""); err != nil {
			return nil, nil, stateRefusal(err)
		}
		if err := w.auditSelection(req, nil, res, b, nil); err != nil {
			return nil, nil, stateRefusal(err)
		}
		return res, b, nil
	}
	return w.buildThread(ctx, snap, req, pr)
}

// buildThread is a build within a thread, under the ledger's lock so that
// the refs it resolves and the events it appends form one step of the
// chain.
func (w *Workspace) buildThread(ctx context.Context, snap *index.Snapshot, req *contextbuilder.Request, pr *prepared) (*contextbuilder.Result, *built, error) {
	root, err := contextbuilder.Root(snap, req)
	if err != nil {
		return nil, nil, err
	}
	// The gate before the ledger's lock, always in that order: a build
	// holding the lock never waits for a slot another build holds while
	// waiting for the lock. A thread's builds are not shared: each
	// resolves its refs against the ledger as it is.
	release, err := w.gate.acquire(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer release()
	correlation, reqFP, err := contextbuilder.RequestIdentity(snap, root, req)
	if err != nil {
		return nil, nil, err
	}
	th := *pr.thread
	intentType, userInput := string(req.Purpose), userInputOf(req)
	var (
		res     *contextbuilder.Result
		refusal error
		b       = &built{rules: pr.rules}
	)
	_, err = w.ledger.Transact(ctx, func(v *ledger.View) ([]ledger.Draft, error) {
		res, refusal = nil, nil
		intentIndex := v.Len()
		intent := ledger.Draft{Kind: ledger.KindIntent, ThreadID: th.ThreadID, TurnID: th.TurnID, ParentTurnID: th.ParentTurnID, CorrelationID: correlation,
			Payload: ledger.IntentPayload{IntentType: intentType, UserInput: userInput, RequestFingerprint: "sha256:" + reqFP}}
		dec := ledger.DecisionPayload{IntentIndex: intentIndex, Result: ledger.ResultDeny, Boundary: ledger.Boundary{ContextConfigDigest: w.config.Digest}}
		refs, resolved, norm, rerr := w.resolve(v, pr)
		if rerr == nil {
			pr.opts.ThreadRefs = refs
			res, rerr = contextbuilder.Build(ctx, snap, req, pr.opts)
		}
		var ref *contextbuilder.Refusal
		switch rerr = asRefusal(rerr); {
		case errors.As(rerr, &ref):
			refusal = ref
			dec.Reason = string(ref.Code)
		case rerr != nil:
			return nil, rerr // not a decision: a malformed request, cancellation or a fault
		default:
			sha, err := w.putContext(res, pr, th.ThreadID)
			if err != nil {
				return nil, err
			}
			b.contextSHA = sha
			dec.Result = ledger.ResultAllow
			dec.Bundle = &ledger.BundleRef{BundleID: res.Bundle.BundleID, BundleFingerprint: res.Manifest.Fingerprints.BundleFingerprint, ArtifactSHA256: sha}
			dec.AssembledContext.Workspace = ledger.WorkspaceInputs{ProjectIndexFingerprint: res.Manifest.Fingerprints.ProjectIndexFingerprint, ConfigFingerprint: res.Manifest.Fingerprints.ConfigFingerprint}
		}
		dec.ContextSpec = ledger.NewContextSpec(th, intentType, userInput, resolved, norm.digests, w.settings())
		dec.AssembledContext.NormativeInputs = norm.inputs
		digest, err := ledger.ContextDigest(dec.ContextSpec, dec.AssembledContext)
		if err != nil {
			return nil, err
		}
		dec.ContextDigest = digest
		b.contextDigest = digest
		return []ledger.Draft{intent, {Kind: ledger.KindDecision, ThreadID: th.ThreadID, TurnID: th.TurnID, ParentTurnID: th.ParentTurnID, CorrelationID: correlation, Payload: dec}}, nil
	})
	if err != nil {
		err = asRefusal(err)
		var ref *contextbuilder.Refusal
		if !errors.As(err, &ref) && !errors.Is(err, contextbuilder.ErrInvalidRequest) && ctx.Err() == nil {
			err = stateRefusal(err)
		}
		_ = w.auditSelection(req, &th, nil, nil, err) // the refusal is the answer; a broken trail shows in verify
		return nil, nil, err
	}
	if refusal != nil {
		_ = w.auditSelection(req, &th, nil, b, refusal) // likewise
		return nil, nil, refusal
	}
	if err := w.auditSelection(req, &th, res, b, nil); err != nil {
		return nil, nil, stateRefusal(err)
	}
	return res, b, nil
}

// userInputOf is the INTENT's user_input: the intent text, else the plan
// step's text, else "".
func userInputOf(req *contextbuilder.Request) string {
	switch {
	case req.Intent != nil && strings.TrimSpace(req.Intent.Text) != "":
		return req.Intent.Text
	case req.PlanStep != nil:
		return req.PlanStep.Text
	}
	return ""
}

// putCanonical writes an artifact; a test replaces it to inject a write
// error (a full disk) without filling one.
var putCanonical = (*store.Store).PutCanonical

// putContext stores a build's outputs as a contexts artifact.
func (w *Workspace) putContext(res *contextbuilder.Result, pr *prepared, threadID string) (string, error) {
	a := contextArtifact{
		Schema:          ContextSchema,
		Bundle:          res.Bundle,
		Manifest:        res.Manifest,
		RedactionReport: res.RedactionReport,
		BudgetReport:    res.BudgetReport,
		Selection:       selectionOf(res.Bundle, w.ordering(pr.rules)),
		Policy: policyRef{
			ContextConfigDigest: w.config.Digest,
			PolicyArtifact:      w.policySHA,
		},
		ThreadID: threadID,
	}
	if pr.rules != nil {
		a.Policy.Skill, a.Policy.RulesDigest = pr.rules.Skill, pr.rules.Digest
	}
	// The artifact is written from the canonical bytes made while
	// building, not encoded and canonicalized again: see
	// contextArtifact.canonical.
	var sha string
	err := a.withCanonical(func(data []byte) (err error) {
		sha, err = putCanonical(w.store, store.KindContext, data)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("writing the context artifact: %w", err)
	}
	return sha, nil
}

// ordering is the policy's ordering of the selection's items.
func (w *Workspace) ordering(r *policy.Rules) string {
	if r != nil && r.Ordering != "" {
		return r.Ordering
	}
	return OrderingManifest
}

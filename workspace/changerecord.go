package workspace

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/workspace/ledger"
)

// findBundle loads the manifest of a recorded bundle: the audit trail
// maps a bundle id to its context artifact; the ledger names the thread
// turn that produced it, when there is one.
func (w *Workspace) findBundle(id string) (*bundleRef, error) {
	_, data, err := w.bundleArtifact(id, "build the context first, or check the answer without a bundle id")
	if err != nil {
		return nil, err
	}
	var art struct {
		Manifest *contextbuilder.Manifest `json:"manifest"`
		ThreadID string                   `json:"thread_id"`
	}
	if err := json.Unmarshal(data, &art); err != nil || art.Manifest == nil {
		return nil, fmt.Errorf("reading the artifact of bundle %s: no manifest (%v)", id, err)
	}
	ref := &bundleRef{id: id, manifest: art.Manifest}
	if art.ThreadID != "" {
		evs, err := w.ledger.Events()
		if err != nil {
			return nil, fmt.Errorf("reading the ledger: %w", err)
		}
		ref.threadID, ref.turnID = decisionTurn(evs, id)
	}
	return ref, nil
}

// recordCheck records the answer and its verdict: as the EXECUTION of the
// argument's turn, else of the bundle's turn; always as an audit event
// (counts and codes, never the answer). A turn named by the argument
// that cannot be recorded is an error; the bundle's own turn is recorded
// at best effort.
func (w *Workspace) recordCheck(ctx context.Context, a *CheckChangeArgs, ref *bundleRef, res *CheckChangeResult) (*Recorded, error) {
	check := &ledger.ChangeCheck{Status: string(res.Status), Format: string(res.Format), BundleID: res.BundleID, Files: make([]ledger.ChangedFile, len(res.Files))}
	for i, f := range res.Files {
		cf := ledger.ChangedFile{Path: f.Path, Action: string(f.Action)}
		if f.SHA256Before != nil {
			cf.SHA256Before = *f.SHA256Before
		}
		if f.SHA256After != nil {
			cf.SHA256After = *f.SHA256After
		}
		check.Files[i] = cf
	}
	if res.Failure != nil {
		check.Code = string(res.Failure.Code)
	}
	thread, turn, explicit := a.ThreadID, a.TurnID, a.ThreadID != ""
	if !explicit && ref != nil {
		thread, turn = ref.threadID, ref.turnID
	}
	var rec *Recorded
	if thread != "" {
		r, err := w.recordExecution(ctx, Execution{ThreadID: thread, TurnID: turn, Output: a.Answer}, check, false)
		if err != nil && explicit {
			return nil, err
		}
		rec = r
	}
	if w.state() == nil && w.audit != nil {
		data := map[string]any{"status": res.Status, "format": res.Format, "files": len(res.Files), "answer_digest": digest([]byte(a.Answer))}
		if res.BundleID != "" {
			data["bundle_id"] = res.BundleID
		}
		if res.Failure != nil {
			data["code"] = res.Failure.Code
		}
		if res.Written {
			data["written"] = true
		}
		if rec != nil {
			data["event_digest"] = rec.EventDigest
		}
		_ = w.audit.Append(ledger.AuditChangeChecked, data) // a broken trail shows in verify
	}
	return rec, nil
}

// decisionTurn finds the thread turn whose ALLOW DECISION produced the
// bundle; "" when no DECISION names it.
func decisionTurn(evs []ledger.Event, bundleID string) (thread, turn string) {
	for i := len(evs) - 1; i >= 0; i-- {
		ev := evs[i]
		if ev.Kind != ledger.KindDecision || !strings.Contains(string(ev.Payload), bundleID) {
			continue
		}
		var p struct {
			Bundle *ledger.BundleRef `json:"bundle"`
		}
		if json.Unmarshal(ev.Payload, &p) == nil && p.Bundle != nil && p.Bundle.BundleID == bundleID {
			return ev.ThreadID, ev.TurnID
		}
	}
	return "", ""
}

package workspace

import (
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/workspace/ledger"
)

// MaxExecutionOutput bounds a recorded model output (4 MiB): the ledger is
// read whole by replay and a larger output is not a diff a user reviews.
const MaxExecutionOutput = 4 << 20

// Execution is ctxd.recordExecution's argument: a model's output for a
// turn of a thread (seed 000 EXECUTION).
type Execution struct {
	ThreadID string `json:"thread_id"`
	TurnID   string `json:"turn_id"`
	Output   string `json:"output"`
}

// Recorded is what recording an EXECUTION returns: the reference a later
// build declares to bring the output back, and the event's position and
// digest in the ledger.
type Recorded struct {
	RefID        string `json:"ref_id"`
	EventIndex   int    `json:"event_index"`
	EventDigest  string `json:"event_digest"`
	OutputDigest string `json:"output_digest"`
}

// RecordExecution appends an EXECUTION event for a turn that has an INTENT
// in the thread. The output is observational: a later build may show it
// to the model (as a diff_hint block) but never to the policy or the
// context_digest.
//
// The output is required, and a turn records one output: a second record
// of the same turn is refused (CodeDuplicateExecution), so that retrying a
// call cannot make the thread's history say the model answered twice. A
// new attempt is a new turn.
func (w *Workspace) RecordExecution(ctx context.Context, e Execution) (*Recorded, error) {
	if e.Output == "" {
		return nil, fmt.Errorf("%w: field \"output\" is required: the model's output for the turn, verbatim", ErrInvalidArgs)
	}
	return w.recordExecution(ctx, e, nil, true)
}

// CodeDuplicateExecution refuses a second EXECUTION record of a turn.
const CodeDuplicateExecution contextbuilder.RefusalCode = "EXECUTION_ALREADY_RECORDED"

// recordExecution is RecordExecution with the verdict of a change check,
// when the output was checked as a change.
// once refuses a turn that already has an EXECUTION.
func (w *Workspace) recordExecution(ctx context.Context, e Execution, check *ledger.ChangeCheck, once bool) (*Recorded, error) {
	th := ledger.Thread{ThreadID: e.ThreadID, TurnID: e.TurnID, DeclaredRefs: []string{}}
	if err := th.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", contextbuilder.ErrInvalidRequest, err)
	}
	switch {
	case len(e.Output) > MaxExecutionOutput:
		return nil, fmt.Errorf("%w: field \"output\" has %d bytes, more than the %d ctxd records", contextbuilder.ErrInvalidRequest, len(e.Output), MaxExecutionOutput)
	case !utf8.ValidString(e.Output):
		return nil, fmt.Errorf("%w: field \"output\" is not valid UTF-8", contextbuilder.ErrInvalidRequest)
	}
	if err := w.state(); err != nil {
		return nil, stateRefusal(err)
	}
	payload := ledger.ExecutionPayload{Output: e.Output, OutputDigest: digest([]byte(e.Output)), Check: check}
	evs, err := w.ledger.Transact(ctx, func(v *ledger.View) ([]ledger.Draft, error) {
		if !v.HasIntent(e.ThreadID, e.TurnID) {
			return nil, &ledger.RefError{
				Code:    ledger.CodeRefNotFound,
				RefID:   "intent:" + e.TurnID,
				Message: fmt.Sprintf("thread %q has no INTENT for turn %q, so there is no request this output answers", e.ThreadID, e.TurnID),
				Advice:  "build context with this thread_id and turn_id first, then record the model's output for that turn",
			}
		}
		if once && v.HasExecution(e.ThreadID, e.TurnID) {
			return nil, &contextbuilder.Refusal{
				Code:    CodeDuplicateExecution,
				Message: fmt.Sprintf("turn %q of thread %q already has a recorded output; a turn records one", e.TurnID, e.ThreadID),
				Advice:  "record a new attempt under a new turn_id (built with the thread first), or leave the recorded output as it is",
			}
		}
		return []ledger.Draft{{Kind: ledger.KindExecution, ThreadID: e.ThreadID, TurnID: e.TurnID, Payload: payload}}, nil
	})
	if err != nil {
		return nil, asRefusal(err)
	}
	if len(evs) != 1 {
		return nil, fmt.Errorf("recording the execution: the ledger appended %d events, want 1", len(evs))
	}
	return &Recorded{RefID: "execution:" + e.TurnID, EventIndex: evs[0].Index, EventDigest: evs[0].Digest, OutputDigest: payload.OutputDigest}, nil
}

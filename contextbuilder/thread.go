package contextbuilder

import (
	"fmt"
	"strings"
)

// ThreadRefKind is the kind of a thread event admitted into a bundle.
type ThreadRefKind string

// Thread event kinds (seed 000).
const (
	// ThreadIntent is an earlier INTENT of the thread: the user's words.
	ThreadIntent ThreadRefKind = "intent"
	// ThreadExecution is an earlier EXECUTION: a model's output, for
	// example the diff of a failed attempt. It is observational: it may
	// shape the prompt, never governance.
	ThreadExecution ThreadRefKind = "execution"
)

// ThreadRef is an earlier event of the request's thread that the client
// referenced (seed 000 declared_refs, resolved by the ledger). The
// builder turns each into a P2 block: an intent becomes a project_meta
// block, an execution a diff_hint block ("the previous attempt").
type ThreadRef struct {
	// RefID is the reference as the client wrote it.
	RefID string
	Kind  ThreadRefKind
	// TurnID is the turn the event belongs to.
	TurnID string
	// EventIndex is the event's position in the workspace ledger; blocks
	// are titled by it so that their order is the ledger's.
	EventIndex int
	// Text is the event's content: the intent text or the model output.
	Text string
}

// threadItems makes the blocks of the thread references. They rank above
// every other P2 block (a retry is about its previous attempt), so the
// budget and the policy caps remove them last among the optional blocks,
// in reverse event order.
func (e *env) threadItems() []*item {
	var out []*item
	for i := range e.opts.ThreadRefs {
		ref := &e.opts.ThreadRefs[i]
		it := &item{priority: P2, source: SourceUser, thread: ref, fixed: ref.Text}
		switch ref.Kind {
		case ThreadExecution:
			it.typ, it.reason = BlockDiffHint, "thread_execution"
			it.title = fmt.Sprintf("Previous attempt (turn %s, event %06d)", ref.TurnID, ref.EventIndex)
		default:
			it.typ, it.reason = BlockProjectMeta, "thread_intent"
			it.title = fmt.Sprintf("Earlier request (turn %s, event %06d)", ref.TurnID, ref.EventIndex)
		}
		out = append(out, it)
	}
	return out
}

// excludedPath is the path an exclusion of the item is reported under:
// the file, or "thread:<ref>" for a thread block, which has none.
func (it *item) excludedPath() string {
	if it.thread != nil {
		return "thread:" + strings.TrimSpace(it.thread.RefID)
	}
	return it.path
}

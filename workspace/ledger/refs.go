package ledger

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits of the identifiers a thread carries.
const (
	// MaxIDBytes bounds thread_id, turn_id and parent_turn_id.
	MaxIDBytes = 128
	// MaxRefBytes bounds each declared ref and a correlation_id (which a
	// ref may name).
	MaxRefBytes = 256
)

// Prefixes of declared refs; any other ref is a correlation_id.
const (
	// RefIntentPrefix + turn_id names the latest INTENT of that turn.
	RefIntentPrefix = "intent:"
	// RefExecutionPrefix + turn_id names the latest EXECUTION of that turn.
	RefExecutionPrefix = "execution:"
)

// Thread is the request's `thread` object (docs/protocol.md). ParentTurnID is ""
// for a first turn; nil and empty DeclaredRefs are the same (and marshal as
// []).
type Thread struct {
	ThreadID     string   `json:"thread_id"`
	TurnID       string   `json:"turn_id"`
	ParentTurnID string   `json:"parent_turn_id,omitempty"`
	DeclaredRefs []string `json:"declared_refs"`
}

// MarshalJSON writes nil slices as [].
func (t Thread) MarshalJSON() ([]byte, error) {
	type plain Thread
	p := plain(t)
	p.DeclaredRefs = nonNil(p.DeclaredRefs)
	return json.Marshal(p)
}

// Validate checks the thread's limits: thread_id and turn_id non-empty,
// parent_turn_id possibly empty, each at most [MaxIDBytes]; each declared
// ref non-empty and at most [MaxRefBytes]; all valid UTF-8 with printable
// characters only (no control, format or separator characters but the
// ASCII space). The error names the field, e.g. field
// "thread.declared_refs[2]", and wraps [ErrInvalidThread]. The number of
// refs is limited by [Settings.MaxRefs] at resolution, not here.
func (t Thread) Validate() error {
	if p := textProblem(t.ThreadID, MaxIDBytes); p != "" {
		return fmt.Errorf("%w: field %q %s", ErrInvalidThread, "thread.thread_id", p)
	}
	if p := textProblem(t.TurnID, MaxIDBytes); p != "" {
		return fmt.Errorf("%w: field %q %s", ErrInvalidThread, "thread.turn_id", p)
	}
	if t.ParentTurnID != "" {
		if p := textProblem(t.ParentTurnID, MaxIDBytes); p != "" {
			return fmt.Errorf("%w: field %q %s", ErrInvalidThread, "thread.parent_turn_id", p)
		}
	}
	for i, r := range t.DeclaredRefs {
		if p := textProblem(r, MaxRefBytes); p != "" {
			return fmt.Errorf("%w: field %q %s", ErrInvalidThread, fmt.Sprintf("thread.declared_refs[%d]", i), p)
		}
	}
	return nil
}

// textProblem says what is wrong with an identifier, "" when nothing. It
// never quotes the value: identifiers come from clients.
func textProblem(s string, max int) string {
	switch {
	case s == "":
		return "is empty"
	case len(s) > max:
		return fmt.Sprintf("is %d bytes long; the limit is %d", len(s), max)
	case !utf8.ValidString(s):
		return "is not valid UTF-8"
	}
	for i, r := range s {
		if !unicode.IsPrint(r) {
			return fmt.Sprintf("has a non-printable character U+%04X at byte %d", r, i)
		}
	}
	return ""
}

// RefError is a resolution failure of seed 000: Code is one of
// [CodeRefNotFound], [CodeCrossThreadRef], [CodeMaxRefsExceeded],
// [CodeEmptyRefsDenied]; RefID is the failing ref ("" for the count
// checks); Message names the ref; Advice says what the client should do.
type RefError struct {
	Code, RefID, Message, Advice string
}

// Error returns "CODE: message".
func (e *RefError) Error() string {
	return e.Code + ": " + e.Message
}

// parseRef splits a declared ref into its lookup.
func parseRef(ref string) (kind Kind, byCorrelation bool, key string) {
	if turn, ok := strings.CutPrefix(ref, RefIntentPrefix); ok {
		return KindIntent, false, turn
	}
	if turn, ok := strings.CutPrefix(ref, RefExecutionPrefix); ok {
		return KindExecution, false, turn
	}
	return KindIntent, true, ref
}

// ordering returns the canonical ordering the settings ask for.
func (s Settings) ordering() (string, error) {
	switch s.CanonicalSort {
	case "", OrderingEventIndexAsc:
		return OrderingEventIndexAsc, nil
	default:
		return "", fmt.Errorf("%w: canonical_sort %q is not supported; use %q", ErrInvalidSettings, s.CanonicalSort, OrderingEventIndexAsc)
	}
}

// resolve implements seed 000's resolution against the events of src below
// position before. The count checks come first, then each ref in the
// client's order; the first failing ref is reported. The result is sorted
// by event_index and holds each event once, under the first ref (in the
// client's order) that named it.
func resolve(src source, t Thread, s Settings, before int) ([]ResolvedRef, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	if _, err := s.ordering(); err != nil {
		return nil, err
	}
	if s.MaxRefs < 0 {
		return nil, fmt.Errorf("%w: max_refs is negative (%d)", ErrInvalidSettings, s.MaxRefs)
	}
	n := len(t.DeclaredRefs)
	if n > s.MaxRefs {
		return nil, &RefError{
			Code:    CodeMaxRefsExceeded,
			Message: fmt.Sprintf("declared_refs has %d refs; the limit (context.max_refs) is %d", n, s.MaxRefs),
			Advice:  fmt.Sprintf("declare at most %d refs", s.MaxRefs),
		}
	}
	if n == 0 {
		if s.EmptyRefsPolicy == ResultAllow {
			return []ResolvedRef{}, nil
		}
		return nil, &RefError{
			Code:    CodeEmptyRefsDenied,
			Message: "declared_refs is empty and context.empty_refs_policy is not ALLOW",
			Advice:  "declare at least one ref (intent:<turn_id>, execution:<turn_id> or a correlation_id), or set context.empty_refs_policy to ALLOW",
		}
	}
	out := make([]ResolvedRef, 0, n)
	seen := make(map[int]bool, n)
	for i, ref := range t.DeclaredRefs {
		kind, byCorrelation, key := parseRef(ref)
		hit, err := src.find(refQuery{kind: kind, byCorrelation: byCorrelation, key: key, thread: t.ThreadID, before: before})
		if err != nil {
			return nil, fmt.Errorf("resolving declared_refs[%d]: %w", i, err)
		}
		if !hit.found {
			what := fmt.Sprintf("%s event of turn %q", kind, key)
			if byCorrelation {
				what = fmt.Sprintf("INTENT event with correlation_id %q", key)
			}
			if hit.elsewhere {
				return nil, &RefError{
					Code:    CodeCrossThreadRef,
					RefID:   ref,
					Message: fmt.Sprintf("ref %q (declared_refs[%d]) names an %s in another thread, not in thread %q", ref, i, what, t.ThreadID),
					Advice:  "reference only events of the current thread",
				}
			}
			return nil, &RefError{
				Code:    CodeRefNotFound,
				RefID:   ref,
				Message: fmt.Sprintf("ref %q (declared_refs[%d]) matches no %s in the ledger", ref, i, what),
				Advice:  "use intent:<turn_id>, execution:<turn_id> or the correlation_id of an earlier request of this thread",
			}
		}
		if seen[hit.pos] {
			continue
		}
		seen[hit.pos] = true
		admitted := AdmittedGovernance
		if kind == KindExecution {
			admitted = AdmittedExecutionOnly
		}
		out = append(out, ResolvedRef{RefID: ref, EventIndex: hit.pos, EventDigest: hit.digest, AdmittedFor: admitted})
	}
	// Positions are unique after deduplication, so this order is total.
	slices.SortFunc(out, func(a, b ResolvedRef) int { return a.EventIndex - b.EventIndex })
	return out, nil
}

// replaySettings are the settings a DECISION is re-resolved with: its
// recorded ordering, and no count limits (they are not recorded in the
// spec; a count refusal is checked separately).
func replaySettings(spec ContextSpec) Settings {
	return Settings{
		MaxRefs:         math.MaxInt,
		EmptyRefsPolicy: ResultAllow,
		CanonicalSort:   spec.AssemblyRules.Ordering,
	}
}

// View is a read-only view of the ledger inside [Ledger.Transact]: every
// event so far, in order. It is valid only during the call of f.
type View struct {
	src *memSource
}

// Events returns every event, in event_index order. The slice must not be
// modified.
func (v *View) Events() []Event {
	return v.src.base[:len(v.src.base):len(v.src.base)]
}

// Len returns the number of events, which is the index the next appended
// event will get.
func (v *View) Len() int { return len(v.src.base) }

// Resolve resolves the thread's declared refs against every event so far
// (seed 000). A resolution failure is a [*RefError]; an invalid thread
// wraps [ErrInvalidThread], unusable settings [ErrInvalidSettings]. The
// result is never nil.
func (v *View) Resolve(t Thread, s Settings) ([]ResolvedRef, error) {
	return resolve(v.src, t, s, v.Len())
}

// Intents returns the normative inputs of refs (I_context, rule
// FILTER_INTENT_ONLY): the governance refs only, in event_index order, with
// the digests of their INTENT payloads in the same order — the policy input
// and the spec's normative_input_digests. A ref whose event is not the
// INTENT it names fails with [ErrStaleRef]. Both results are never nil.
func (v *View) Intents(refs []ResolvedRef) ([]NormativeInput, []string, error) {
	return intents(v.src, refs)
}

// Executions returns the execution_only refs of refs with their outputs
// (O_context), in event_index order, for prompt construction only. A ref
// whose event is not the EXECUTION it names fails with [ErrStaleRef]. The
// result is never nil.
func (v *View) Executions(refs []ResolvedRef) ([]ExecutionRef, error) {
	out := []ExecutionRef{}
	for _, r := range admitted(refs, AdmittedExecutionOnly) {
		ev, err := refEvent(v.src, r, KindExecution)
		if err != nil {
			return nil, err
		}
		var p ExecutionPayload
		if err := decodeStrict(ev.Payload, &p); err != nil {
			return nil, fmt.Errorf("%w: ref %q: the EXECUTION payload at event_index %d cannot be decoded", ErrStaleRef, r.RefID, r.EventIndex)
		}
		out = append(out, ExecutionRef{RefID: r.RefID, TurnID: ev.TurnID, EventIndex: r.EventIndex, Output: p.Output})
	}
	return out, nil
}

// HasIntent reports whether the thread has an INTENT for the turn.
func (v *View) HasIntent(threadID, turnID string) bool {
	for _, ev := range v.src.base {
		if ev.Kind == KindIntent && ev.ThreadID == threadID && ev.TurnID == turnID {
			return true
		}
	}
	return false
}

// HasExecution reports whether the thread has an EXECUTION for the turn.
func (v *View) HasExecution(threadID, turnID string) bool {
	for _, ev := range v.src.base {
		if ev.Kind == KindExecution && ev.ThreadID == threadID && ev.TurnID == turnID {
			return true
		}
	}
	return false
}

// intents implements View.Intents over any source.
func intents(src source, refs []ResolvedRef) ([]NormativeInput, []string, error) {
	inputs, digests := []NormativeInput{}, []string{}
	for _, r := range admitted(refs, AdmittedGovernance) {
		ev, err := refEvent(src, r, KindIntent)
		if err != nil {
			return nil, nil, err
		}
		var p IntentPayload
		if err := decodeStrict(ev.Payload, &p); err != nil {
			return nil, nil, fmt.Errorf("%w: ref %q: the INTENT payload at event_index %d cannot be decoded", ErrStaleRef, r.RefID, r.EventIndex)
		}
		d, err := PayloadDigest(ev.Payload)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: ref %q: %w", ErrStaleRef, r.RefID, err)
		}
		inputs = append(inputs, NormativeInput{RefID: r.RefID, EventIndex: r.EventIndex, IntentType: p.IntentType, UserInput: p.UserInput})
		digests = append(digests, d)
	}
	return inputs, digests, nil
}

// admitted returns the refs admitted for one purpose, sorted by event_index
// and each event once (the first ref naming it wins).
func admitted(refs []ResolvedRef, purpose string) []ResolvedRef {
	var out []ResolvedRef
	seen := map[int]bool{}
	for _, r := range refs {
		if r.AdmittedFor != purpose || seen[r.EventIndex] {
			continue
		}
		seen[r.EventIndex] = true
		out = append(out, r)
	}
	slices.SortStableFunc(out, func(a, b ResolvedRef) int { return a.EventIndex - b.EventIndex })
	return out
}

// refEvent returns the event a ref names, checking its kind and digest.
func refEvent(src source, r ResolvedRef, kind Kind) (Event, error) {
	ev, ok, err := src.event(r.EventIndex)
	if err != nil {
		return Event{}, err
	}
	if !ok || ev.Kind != kind {
		return Event{}, fmt.Errorf("%w: ref %q: event_index %d is not an %s event", ErrStaleRef, r.RefID, r.EventIndex, kind)
	}
	if ev.Digest != r.EventDigest {
		return Event{}, fmt.Errorf("%w: ref %q: event %d has digest %s, not %s", ErrStaleRef, r.RefID, r.EventIndex, ev.Digest, r.EventDigest)
	}
	return ev, nil
}

package ledger

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ctxd/ctxd/internal/strictjson"
	"github.com/gowebpki/jcs"
)

// Kind is the kind of a ledger event (seed 000).
type Kind string

// The three event kinds of seed 000.
const (
	// KindIntent records a request: the normative input policy may see.
	KindIntent Kind = "INTENT"
	// KindDecision records what ctxd decided for an INTENT and the context
	// it assembled, pinned by context_digest.
	KindDecision Kind = "DECISION"
	// KindExecution records a model's output: observational, never normative.
	KindExecution Kind = "EXECUTION"
)

// Values of [ResolvedRef.AdmittedFor].
const (
	// AdmittedGovernance marks an INTENT ref: policy input and spec input.
	AdmittedGovernance = "governance"
	// AdmittedExecutionOnly marks an EXECUTION ref: prompt input only.
	AdmittedExecutionOnly = "execution_only"
)

// Values of [DecisionPayload.Result]. ResultAllow is also the value of
// [Settings.EmptyRefsPolicy] that admits an empty declared_refs.
const (
	ResultAllow = "ALLOW"
	ResultDeny  = "DENY"
)

// Error codes of seed 000's failure modes, verbatim; [RefError.Code] holds one.
const (
	CodeRefNotFound     = "REF_NOT_FOUND"
	CodeCrossThreadRef  = "CROSS_THREAD_REF"
	CodeMaxRefsExceeded = "MAX_REFS_EXCEEDED"
	CodeEmptyRefsDenied = "EMPTY_REFS_DENIED"
)

// Normalization rules of seed 000's configuration. They are recorded, in
// the configuration's order, in every context_spec; ctxd applies all three
// whatever the list says, because the invariants they implement are not
// optional.
const (
	RuleFilterIntentOnly = "FILTER_INTENT_ONLY"
	RuleScopeBound       = "SCOPE_BOUND"
	RuleSortCanonical    = "SORT_CANONICAL"
)

// OrderingEventIndexAsc is the only canonical ordering: refs sorted by
// event_index, ascending (invariant 4).
const OrderingEventIndexAsc = "event_index_asc"

// SpecSchemaVersion is context_spec.assembly_rules.schema_version.
const SpecSchemaVersion = "1"

// JournalFile is the name of the ledger journal inside the directory given
// to [Open].
const JournalFile = "events.jsonl"

// Settings is seed 000's "context" + "normalization" configuration (from
// .ctxd/config.json). The zero value denies everything: MaxRefs 0 admits no
// ref and an EmptyRefsPolicy other than "ALLOW" denies an empty list.
type Settings struct {
	// MaxRefs is the longest declared_refs admitted; longer lists fail
	// with MAX_REFS_EXCEEDED. Negative values are invalid.
	MaxRefs int
	// EmptyRefsPolicy is "DENY" or "ALLOW"; any value but "ALLOW" denies
	// an empty declared_refs with EMPTY_REFS_DENIED (fail closed).
	EmptyRefsPolicy string
	// ExpandLastN is pinned through ConfigDigest only: auto-expansion of
	// thread history is a seed non-goal.
	ExpandLastN int
	// AllowExecutionRefsForPrompt says whether execution_only refs may
	// reach the prompt. Resolution records EXECUTION refs either way (they
	// are part of the audit trail); the caller skips [View.Executions]
	// when it is false.
	AllowExecutionRefsForPrompt bool
	// CanonicalSort is the ref ordering; "" means "event_index_asc", the
	// only supported value.
	CanonicalSort string
	// EnforceScopeBound is pinned through ConfigDigest; refs are bound to
	// their thread whatever its value, since cross-thread context is a seed
	// non-goal (invariant 5).
	EnforceScopeBound bool
	// NormalizationRules are recorded in context_spec in this order,
	// duplicates dropped; nil records an empty list.
	NormalizationRules []string
	// ConfigDigest is context_config_digest, "sha256:…", pinned in every
	// DECISION; "" is recorded as is (and fails verification against a
	// real config digest).
	ConfigDigest string
}

// Event is one line of the ledger journal. Index, PrevDigest and Digest are
// the hash chain (see [Open]); Obs is observational and covered by the
// line's event_digest but by no context_digest.
type Event struct {
	Index         int             `json:"event_index"`
	PrevDigest    string          `json:"prev_digest"`
	Digest        string          `json:"event_digest"`
	Kind          Kind            `json:"kind"`
	ThreadID      string          `json:"thread_id"`
	TurnID        string          `json:"turn_id"`
	ParentTurnID  string          `json:"parent_turn_id,omitempty"`
	CorrelationID string          `json:"correlation_id,omitempty"`
	Payload       json.RawMessage `json:"payload"`
	Obs           json.RawMessage `json:"_obs,omitempty"` // {"recorded_at": RFC 3339} – observational
}

// eventBody is an Event without its chain members: what a Draft becomes
// before the journal seals it.
type eventBody struct {
	Kind          Kind            `json:"kind"`
	ThreadID      string          `json:"thread_id"`
	TurnID        string          `json:"turn_id"`
	ParentTurnID  string          `json:"parent_turn_id,omitempty"`
	CorrelationID string          `json:"correlation_id,omitempty"`
	Payload       json.RawMessage `json:"payload"`
	Obs           json.RawMessage `json:"_obs,omitempty"`
}

// obs is the _obs member of ledger and audit lines.
type obs struct {
	RecordedAt string `json:"recorded_at"`
}

// IntentPayload is the payload of an INTENT event.
type IntentPayload struct {
	IntentType         string `json:"intent_type"`         // the build's purpose
	UserInput          string `json:"user_input"`          // intent text, "" when none
	RequestFingerprint string `json:"request_fingerprint"` // given by the caller
}

// ExecutionPayload is the payload of an EXECUTION event: a model's output.
type ExecutionPayload struct {
	Output string `json:"output"`
	// OutputDigest is "sha256:"+hex(sha256(output bytes)). Transact
	// computes it; a non-empty value must equal it.
	OutputDigest string `json:"output_digest"`
	// Check is the verdict of ctxd's change check on the output
	// (ctxd.checkChange); nil for an output recorded as is. Like the
	// output it is observational: no policy or context_digest reads it.
	Check *ChangeCheck `json:"check,omitempty"`
}

// Verdicts of a [ChangeCheck].
const (
	CheckAccepted = "accepted"
	CheckRejected = "rejected"
)

// ChangeCheck is what checking a model's answer as a change concluded:
// accepted (the files it changes, with their fingerprints before and
// after) or rejected (the rejection's code).
type ChangeCheck struct {
	Status string `json:"status"`
	// Format is the answer's format ("unified", "search_replace",
	// "whole_file"); "" when no change was found.
	Format string `json:"format,omitempty"`
	// Code is the rejection's code; "" when accepted.
	Code string `json:"code,omitempty"`
	// BundleID is the bundle the answer was checked against; "" when it
	// was checked against the files as they were.
	BundleID string        `json:"bundle_id,omitempty"`
	Files    []ChangedFile `json:"files"`
}

// ChangedFile is one file of a checked change. The digests are
// "sha256:<hex>"; SHA256Before is "" for a file the change creates (or a
// file a rejected change named but that could not be read), SHA256After
// "" for a deletion and for every file of a rejected change.
type ChangedFile struct {
	Path         string `json:"path"`
	Action       string `json:"action"`
	SHA256Before string `json:"sha256_before,omitempty"`
	SHA256After  string `json:"sha256_after,omitempty"`
}

// Problem says what is inconsistent in a recorded check, or "".
func (c *ChangeCheck) Problem() string {
	switch c.Status {
	case CheckAccepted:
		if c.Code != "" {
			return "an accepted check carries the rejection code " + c.Code
		}
		if len(c.Files) == 0 {
			return "an accepted check changes no file"
		}
		for _, f := range c.Files {
			if f.Action != "delete" && f.SHA256After == "" {
				return "accepted file " + f.Path + " has no sha256_after"
			}
		}
	case CheckRejected:
		if c.Code == "" {
			return "a rejected check has no code"
		}
		for _, f := range c.Files {
			if f.SHA256After != "" {
				return "rejected file " + f.Path + " has a sha256_after"
			}
		}
	default:
		return fmt.Sprintf("status is %q, want %q or %q", c.Status, CheckAccepted, CheckRejected)
	}
	return ""
}

// ResolvedRef is one declared ref after resolution: the event it names,
// that event's digest, and what it is admitted for.
type ResolvedRef struct {
	RefID       string `json:"ref_id"`
	EventIndex  int    `json:"event_index"`
	EventDigest string `json:"event_digest"`
	AdmittedFor string `json:"admitted_for"`
}

// Identity is context_spec.identity: the causal position of the request.
// ParentTurnID is "" for a thread's first turn.
type Identity struct {
	ThreadID     string `json:"thread_id"`
	TurnID       string `json:"turn_id"`
	ParentTurnID string `json:"parent_turn_id"`
}

// SpecIntent is context_spec.intent: the current request.
type SpecIntent struct {
	IntentType string `json:"intent_type"`
	UserInput  string `json:"user_input"`
}

// Normalization is context_spec.retrieval.normalization: the rules applied
// and the digest of the configuration that chose them (invariant 2).
type Normalization struct {
	AppliedRules []string `json:"applied_rules"`
	ConfigDigest string   `json:"config_digest"`
}

// MarshalJSON writes nil slices as [].
func (n Normalization) MarshalJSON() ([]byte, error) {
	type plain Normalization
	p := plain(n)
	p.AppliedRules = nonNil(p.AppliedRules)
	return json.Marshal(p)
}

// Retrieval is context_spec.retrieval: what the client declared, what it
// resolved to, and how it was normalized.
type Retrieval struct {
	DeclaredRefs  []string      `json:"declared_refs"`
	ResolvedRefs  []ResolvedRef `json:"resolved_refs"`
	Normalization Normalization `json:"normalization"`
}

// MarshalJSON writes nil slices as [].
func (r Retrieval) MarshalJSON() ([]byte, error) {
	type plain Retrieval
	p := plain(r)
	p.DeclaredRefs = nonNil(p.DeclaredRefs)
	p.ResolvedRefs = nonNil(p.ResolvedRefs)
	return json.Marshal(p)
}

// AssemblyRules is context_spec.assembly_rules: the determinism parameters.
type AssemblyRules struct {
	SchemaVersion string `json:"schema_version"`
	Ordering      string `json:"ordering"`
}

// ContextSpec is what a DECISION's context was built from; with the
// [AssembledContext] it is the whole input of context_digest.
type ContextSpec struct {
	Identity              Identity      `json:"identity"`
	Intent                SpecIntent    `json:"intent"`
	Retrieval             Retrieval     `json:"retrieval"`
	AssemblyRules         AssemblyRules `json:"assembly_rules"`
	NormativeInputDigests []string      `json:"normative_input_digests"`
}

// MarshalJSON writes nil slices as [].
func (s ContextSpec) MarshalJSON() ([]byte, error) {
	type plain ContextSpec
	p := plain(s)
	p.NormativeInputDigests = nonNil(p.NormativeInputDigests)
	return json.Marshal(p)
}

// NormativeInput is one governance ref as policy sees it: an INTENT's type
// and text, never an EXECUTION's output.
type NormativeInput struct {
	RefID      string `json:"ref_id"`
	EventIndex int    `json:"event_index"`
	IntentType string `json:"intent_type"`
	UserInput  string `json:"user_input"`
}

// WorkspaceInputs names the workspace state a bundle was built from; both
// are "" when no bundle was built (a DENY).
type WorkspaceInputs struct {
	ProjectIndexFingerprint string `json:"project_index_fingerprint"`
	ConfigFingerprint       string `json:"config_fingerprint"`
}

// AssembledContext is the normative part of what ctxd assembled: never
// EXECUTION content.
type AssembledContext struct {
	// NormativeInputs are the governance refs, in event_index order.
	NormativeInputs []NormativeInput `json:"normative_inputs"`
	Workspace       WorkspaceInputs  `json:"workspace"`
}

// MarshalJSON writes nil slices as [].
func (a AssembledContext) MarshalJSON() ([]byte, error) {
	type plain AssembledContext
	p := plain(a)
	p.NormativeInputs = nonNil(p.NormativeInputs)
	return json.Marshal(p)
}

// Boundary is a DECISION's boundary: the configuration digest it was made
// under (invariant 3).
type Boundary struct {
	ContextConfigDigest string `json:"context_config_digest"`
}

// BundleRef names the bundle artifact an ALLOW decision produced.
type BundleRef struct {
	BundleID          string `json:"bundle_id"`
	BundleFingerprint string `json:"bundle_fingerprint"`
	ArtifactSHA256    string `json:"artifact_sha256"`
}

// DecisionPayload is the payload of a DECISION event.
type DecisionPayload struct {
	IntentIndex      int              `json:"intent_event_index"` // the INTENT this decides
	Result           string           `json:"result"`             // ALLOW | DENY
	Reason           string           `json:"reason,omitempty"`   // the refusal/error code when DENY
	ContextSpec      ContextSpec      `json:"context_spec"`
	AssembledContext AssembledContext `json:"assembled_context"`
	// ContextDigest is [ContextDigest] of the spec and assembled context.
	// Transact computes it when "" and refuses a value that differs.
	ContextDigest string     `json:"context_digest"`
	Boundary      Boundary   `json:"boundary"`
	Bundle        *BundleRef `json:"bundle,omitempty"` // nil when DENY
}

// ExecutionRef is an execution_only ref with the output it points to, for
// prompt construction after the DECISION.
type ExecutionRef struct {
	RefID      string `json:"ref_id"`
	TurnID     string `json:"turn_id"`
	EventIndex int    `json:"event_index"`
	Output     string `json:"output"`
}

// Draft is an event [Ledger.Transact] is asked to append. Payload is an
// [IntentPayload], [ExecutionPayload] or [DecisionPayload] (or a non-nil
// pointer to one) matching Kind. ParentTurnID and CorrelationID may be "".
type Draft struct {
	Kind                                          Kind
	ThreadID, TurnID, ParentTurnID, CorrelationID string
	Payload                                       any
}

// Ledger is the workspace's seed-000 event ledger: INTENT, DECISION and
// EXECUTION events in a hash-chained journal, <dir>/events.jsonl. A Ledger
// is safe for concurrent use, and several Ledgers (in one or many processes)
// may share a directory: every transaction holds an flock on
// events.jsonl.lock. The zero value is not usable; call [Open].
type Ledger struct {
	j *journal

	events []Event // decoded j.recs; guarded by j.sem
}

// Open opens the ledger in dir (<root>/.ctxd/ledger). Nothing is created
// until the first append. If the journal exists and ends with a torn line
// (a crash mid-write), the line is moved to events.jsonl.torn-<nanos> and
// the journal cut back to its last complete line. now stamps _obs.recorded_at
// and names moved-aside tails; nil means time.Now. A corrupt journal is not
// an error here: every later Transact and Events call reports it.
func Open(dir string, now func() time.Time) (*Ledger, error) {
	l := &Ledger{j: newJournal(filepath.Join(dir, JournalFile), now)}
	if err := l.j.recoverOnOpen(); err != nil {
		return nil, fmt.Errorf("opening ledger: %w", err)
	}
	return l, nil
}

// KeepProjection keeps the SQLite projection at sqlitePath (see [Project])
// current: after every append, while still holding the journal's lock, a
// projection that exists is rewritten from the journal, so that `ctxd
// verify` finds it equal to a fresh one. A missing projection is not
// created (`ctxd verify --mode ledger` or `--repair` does). A failure to
// rewrite it does not fail the append, which is already durable: the
// projection stays as it was, and verification reports it as out of date.
// Call it before the Ledger is shared.
func (l *Ledger) KeepProjection(sqlitePath string) {
	l.j.appended = func(data []byte) {
		if _, err := os.Lstat(sqlitePath); err != nil {
			return
		}
		img, err := projectionImage(data)
		if err != nil {
			return
		}
		_ = writeImage(sqlitePath, img, true) // see above: verification reports a stale projection
	}
}

// Events returns every event in order, after reading what other processes
// appended. A torn tail is left out (the next append moves it aside); a
// corrupt journal is an error wrapping [ErrCorrupt]. The slice is the
// caller's.
func (l *Ledger) Events() ([]Event, error) {
	var out []Event
	err := l.j.read(func(recs []record) error {
		if err := l.sync(recs); err != nil {
			return err
		}
		out = slices.Clone(l.events[:len(recs)])
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading ledger: %w", err)
	}
	return out, nil
}

// sync decodes the records not yet in l.events. The caller holds j.sem.
func (l *Ledger) sync(recs []record) error {
	n := len(l.events)
	if n > len(recs) || (n > 0 && l.events[n-1].Digest != recs[n-1].digest) {
		l.events = nil
	}
	for i := len(l.events); i < len(recs); i++ {
		ev, ferr := decodeEvent(recs[i].line)
		if ferr != nil {
			return fmt.Errorf("%w: %s line %d (event_index %d): %s: %s; run `ctxd verify` to see every finding",
				ErrCorrupt, l.j.path, i+1, i, ferr.field, ferr.message)
		}
		l.events = append(l.events, ev)
	}
	l.events = l.events[:len(recs)]
	return nil
}

// Transact runs f on a read-only [View] of every event so far and appends
// the drafts f returns, in order (possibly none), as one write. It holds the
// journal lock from reading to appending, so no other writer's event can
// come between what f saw and what it appends; the View is valid only
// during f. If f returns an error nothing is appended and the error is
// returned as is. Each draft is checked as verification would check its
// event (IDs, payload, and for a DECISION its intent, refs, digests): a
// draft that could not verify fails with [ErrInvalidDraft] and nothing is
// appended. ExecutionPayload.OutputDigest and an empty
// DecisionPayload.ContextDigest are filled in. Transact returns the
// appended events; waiting for the lock ends with ctx.
func (l *Ledger) Transact(ctx context.Context, f func(v *View) ([]Draft, error)) ([]Event, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var appended []Event
	_, err := l.j.update(ctx, func(recs []record) ([]record, error) {
		if err := l.sync(recs); err != nil {
			return nil, err
		}
		base := l.events[:len(recs):len(recs)]
		drafts, err := f(&View{src: &memSource{base: base}})
		if err != nil {
			return nil, err
		}
		if len(drafts) == 0 {
			return nil, nil
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out, evs, err := l.seal(base, nextPrev(recs), drafts)
		if err != nil {
			return nil, err
		}
		appended = evs
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	return appended, nil
}

// seal validates the drafts and turns them into journal records that follow
// base, checking each event against base plus the drafts before it.
func (l *Ledger) seal(base []Event, prev string, drafts []Draft) ([]record, []Event, error) {
	src := &memSource{base: base}
	recs := make([]record, 0, len(drafts))
	for k, d := range drafts {
		index := len(base) + k
		body, err := l.draftBody(d)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: drafts[%d] (%s): %w", ErrInvalidDraft, k, d.Kind, err)
		}
		rec, err := seal(body, index, prev)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: drafts[%d] (%s): %w", ErrInvalidDraft, k, d.Kind, err)
		}
		ev, ferr := decodeEvent(rec.line)
		if ferr != nil {
			return nil, nil, fmt.Errorf("%w: drafts[%d] (%s): %s: %s", ErrInvalidDraft, k, d.Kind, ferr.field, ferr.message)
		}
		src.extra = append(src.extra, ev)
		field, msg, err := checkEvent(src, index, ev, nil)
		if err != nil {
			return nil, nil, err
		}
		if field != "" {
			return nil, nil, fmt.Errorf("%w: drafts[%d] (%s): %s: %s", ErrInvalidDraft, k, d.Kind, field, msg)
		}
		recs = append(recs, rec)
		prev = rec.digest
	}
	return recs, src.extra, nil
}

// draftBody builds the journal body of a draft, filling in the digests the
// ledger computes itself.
func (l *Ledger) draftBody(d Draft) (eventBody, error) {
	var payload any
	switch d.Kind {
	case KindIntent:
		p, ok := payloadAs[IntentPayload](d.Payload)
		if !ok {
			return eventBody{}, fmt.Errorf("payload is %T, want ledger.IntentPayload", d.Payload)
		}
		payload = p
	case KindExecution:
		p, ok := payloadAs[ExecutionPayload](d.Payload)
		if !ok {
			return eventBody{}, fmt.Errorf("payload is %T, want ledger.ExecutionPayload", d.Payload)
		}
		if !utf8.ValidString(p.Output) {
			// JSON would replace the bad bytes, and the digest of what is
			// stored would no longer be the digest of what was given.
			return eventBody{}, fmt.Errorf("payload.output is not valid UTF-8")
		}
		digest := sha256Digest([]byte(p.Output))
		if p.OutputDigest != "" && p.OutputDigest != digest {
			return eventBody{}, fmt.Errorf("payload.output_digest is %s, but the output hashes to %s", p.OutputDigest, digest)
		}
		p.OutputDigest = digest
		payload = p
	case KindDecision:
		p, ok := payloadAs[DecisionPayload](d.Payload)
		if !ok {
			return eventBody{}, fmt.Errorf("payload is %T, want ledger.DecisionPayload", d.Payload)
		}
		if p.ContextDigest == "" {
			digest, err := ContextDigest(p.ContextSpec, p.AssembledContext)
			if err != nil {
				return eventBody{}, err
			}
			p.ContextDigest = digest
		}
		payload = p
	default:
		return eventBody{}, fmt.Errorf("unknown kind %q", d.Kind)
	}
	raw, err := json.Marshal(payload)
	if err != nil {
		return eventBody{}, fmt.Errorf("encoding payload: %w", err)
	}
	o, err := json.Marshal(obs{RecordedAt: l.j.now().UTC().Format(time.RFC3339Nano)})
	if err != nil {
		return eventBody{}, fmt.Errorf("encoding _obs: %w", err)
	}
	return eventBody{
		Kind:          d.Kind,
		ThreadID:      d.ThreadID,
		TurnID:        d.TurnID,
		ParentTurnID:  d.ParentTurnID,
		CorrelationID: d.CorrelationID,
		Payload:       raw,
		Obs:           o,
	}, nil
}

// payloadAs accepts a T or a non-nil *T.
func payloadAs[T any](p any) (T, bool) {
	switch v := p.(type) {
	case T:
		return v, true
	case *T:
		if v != nil {
			return *v, true
		}
	}
	var zero T
	return zero, false
}

// fieldError is a finding about one field of a line or event.
type fieldError struct {
	field, message string
}

// decodeEvent decodes a journal line into an Event, strictly: no unknown
// member, a known kind, a JSON object payload. A line that decodes is a
// readable event for lookups, even when its chain or payload fails
// verification; stream and ledger replay use this one predicate.
func decodeEvent(line []byte) (Event, *fieldError) {
	var ev Event
	if err := decodeExact(line, &ev); err != nil {
		return Event{}, &fieldError{"line", "not a ledger event: " + jsonProblem(err)}
	}
	switch ev.Kind {
	case KindIntent, KindExecution, KindDecision:
	default:
		return Event{}, &fieldError{"kind", fmt.Sprintf("unknown kind %q", ev.Kind)}
	}
	if len(ev.Payload) == 0 || ev.Payload[0] != '{' {
		return Event{}, &fieldError{"payload", "missing or not a JSON object"}
	}
	return ev, nil
}

// decodeStrict unmarshals one JSON value, refusing unknown members and
// trailing data (ctxd's one strict decoder).
func decodeStrict(data []byte, v any) error {
	return strictjson.Decode(data, v, strictjson.Options{})
}

// errNotExact reports data that decodes but is not what encoding the
// decoded value gives back.
var errNotExact = errors.New("not in the format ctxd writes")

// decodeExact is decodeStrict plus a round trip: data must be, up to
// canonicalization, exactly the encoding of the value it decodes to.
// encoding/json matches member names regardless of case and decodes null as
// an empty value; the round trip refuses both, and empty optional members
// ctxd never writes, so that a readable event means one thing to every
// reader (Go, SQLite's json_extract, a person).
func decodeExact(data []byte, v any) error {
	if err := decodeStrict(data, v); err != nil {
		return err
	}
	again, err := json.Marshal(v)
	if err != nil {
		return err
	}
	want, err := jcs.Transform(again)
	if err != nil {
		return err
	}
	got, err := jcs.Transform(data)
	if err != nil || !bytes.Equal(got, want) {
		return errNotExact
	}
	return nil
}

// jsonProblem describes a decoding error without quoting the data.
func jsonProblem(err error) string {
	if errors.Is(err, errNotExact) {
		return "members differ from the format ctxd writes (misspelled or null members, empty optional ones)"
	}
	switch e := err.(type) {
	case *json.UnmarshalTypeError:
		return fmt.Sprintf("member %q has the wrong type", e.Field)
	case *json.SyntaxError:
		return "invalid JSON"
	default:
		if strings.HasPrefix(err.Error(), "json: unknown field") {
			return "has an unknown member"
		}
		return "cannot be decoded"
	}
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

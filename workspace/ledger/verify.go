package ledger

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
)

// Mode selects how [VerifyLedger] replays the ledger (seed 000 "Replay
// Modes").
type Mode string

const (
	// ModeStream replays the journal file itself.
	ModeStream Mode = "stream"
	// ModeLedger projects the journal into SQLite ([Project]) and replays
	// from SQL queries against the projection.
	ModeLedger Mode = "ledger"
)

// Values of [Check.Source].
const (
	SourceLedger = "ledger"
	SourceAudit  = "audit"
)

// Values of [Check.Status].
const (
	StatusOK       = "ok"
	StatusMismatch = "mismatch"
	StatusSkipped  = "skipped"
	// StatusIncomplete marks what an interrupted write leaves and a repair
	// completes: a journal's last line cut short (bytes a crashed append
	// wrote before it died), or a projection that shows an earlier state of
	// the journal. Nothing it covers is trusted or forged: the finding is
	// not tampering, and `ctxd verify --repair` (or the next append) clears
	// it.
	StatusIncomplete = "incomplete"
)

// VerifyOptions configures [VerifyLedger].
type VerifyOptions struct {
	// Mode is the replay mode; "" means ModeStream.
	Mode Mode
	// ConfigDigest is the current config's digest; "" skips that check
	// (reported by one file-level "skipped" Check).
	ConfigDigest string
	// CheckBundle verifies a DECISION's bundle artifact; nil skips it
	// (reported by one file-level "skipped" Check). It returns "" when the
	// artifact matches, else the name of the first differing field (e.g.
	// "bundle_fingerprint") and a message.
	CheckBundle func(ref BundleRef) (field, message string)
	// SQLitePath is the projection file (<root>/.ctxd/ledger.sqlite),
	// compared in both modes with a fresh projection of the journal when it
	// exists, and created by ModeLedger when it does not; required in
	// ModeLedger, "" skips the comparison in ModeStream.
	SQLitePath string
}

// Check is one verification finding. Per-line checks come first, in line
// order, one per line; file-level checks (EventIndex -1) follow.
type Check struct {
	Source     string `json:"source"`      // "ledger" | "audit"
	EventIndex int    `json:"event_index"` // the line's position, 0-based; -1 for file-level findings
	// Kind is the event's kind (ledger) or event name (audit) when the
	// line can be read, else "".
	Kind   string `json:"kind,omitempty"`
	Status string `json:"status"` // "ok" | "mismatch" | "skipped" | "incomplete"
	// Field is the first differing field: "line" (not JSON, not canonical,
	// incomplete), "event_index", "prev_digest", "event_digest", "kind",
	// "payload", "payload.output_digest", "intent_event_index",
	// "context_spec.identity", "context_spec.intent", "context_digest",
	// "resolved_refs", "normative_input_digests",
	// "assembled_context.normative_inputs",
	// "boundary.context_config_digest", a field named by CheckBundle, …
	// "" when Status is "ok".
	Field   string `json:"field,omitempty"`
	Message string `json:"message,omitempty"`
}

// VerifyLedger replays the ledger journal in dir and returns one Check per
// line, then file-level checks: an incomplete last line, the checks opts
// skips, and the projection's. Every line must be canonical JSON
// continuing the hash chain; every event must be well-formed; every
// DECISION must recompute: its context_digest from its stored spec and
// assembled context, its resolved_refs by resolving declared_refs again
// against the events before its INTENT (with the CURRENT digests of those
// events), its normative_input_digests from the referenced INTENT payloads
// only, its boundary against opts.ConfigDigest, its bundle through
// opts.CheckBundle.
//
// Both modes build the projection of the journal afresh, in memory. When
// the file at opts.SQLitePath exists it must be byte for byte that
// projection; otherwise every differing row of every table is a
// "projection.<table>" mismatch, and a file SQLite cannot read, or one
// that differs only in bytes no row shows, a "projection" mismatch. The
// file is never overwritten ([Project] rebuilds it); ModeLedger creates it
// when it is missing, as the projection it replayed.
//
// ModeLedger replays from SQL queries against the fresh projection,
// ModeStream from the journal's bytes; they return the same Checks for the
// same files. A missing journal gives no checks (and a projection, if any,
// is compared with that of an empty journal) and no error; errors are I/O
// failures.
func VerifyLedger(dir string, opts VerifyOptions) ([]Check, error) {
	path := filepath.Join(dir, JournalFile)
	if opts.Mode != "" && opts.Mode != ModeStream && opts.Mode != ModeLedger {
		return nil, fmt.Errorf("%w: unknown mode %q", ErrInvalidOptions, opts.Mode)
	}
	if opts.Mode == ModeLedger && opts.SQLitePath == "" {
		return nil, fmt.Errorf("%w: ledger mode needs SQLitePath", ErrInvalidOptions)
	}
	data, exists, disk, err := readJournalAndProjection(path, opts.SQLitePath)
	if err != nil {
		return nil, fmt.Errorf("verifying ledger: %w", err)
	}
	var fresh []byte
	if disk != nil || (exists && opts.Mode == ModeLedger) {
		if fresh, err = projectionImage(data); err != nil {
			return nil, fmt.Errorf("verifying ledger: projecting: %w", err)
		}
	}
	var projChecks []Check
	if disk != nil {
		if projChecks, err = checkProjection(projectionName(opts.SQLitePath), disk, fresh, data, path); err != nil {
			return nil, fmt.Errorf("verifying ledger: %w", err)
		}
	}
	if !exists {
		return nonNil(projChecks), nil
	}
	var checks []Check
	switch opts.Mode {
	case "", ModeStream:
		lines, tail := splitLines(data)
		evs := make([]Event, len(lines))
		for i, line := range lines {
			if ev, ferr := decodeEvent(line); ferr == nil {
				evs[i] = ev
			}
		}
		src := &memSource{base: evs}
		src.buildIndex()
		checks, err = verifyLedgerLines(lines, tail, src, opts)
	case ModeLedger:
		if disk == nil {
			if err := writeImage(opts.SQLitePath, fresh, false); err != nil && !errors.Is(err, fs.ErrExist) {
				return nil, fmt.Errorf("verifying ledger: writing the projection: %w", err)
			}
		}
		_, tail := splitLines(data)
		checks, err = verifyImage(fresh, tail, opts)
	}
	if err != nil {
		return nil, err
	}
	return append(checks, projChecks...), nil
}

// verifyImage runs the checks against a projection image, reading
// everything through SQL. tail is the journal's bytes after its last
// newline, which the projection records only by length (meta
// torn_tail_bytes): whether they are a write cut short or something else
// depends on the bytes.
func verifyImage(img, tail []byte, opts VerifyOptions) ([]Check, error) {
	db, conn, err := imageConn(img)
	if err != nil {
		return nil, fmt.Errorf("opening the projection: %w", err)
	}
	defer db.Close()
	defer conn.Close()
	lines, torn, err := projectedLines(conn)
	if err != nil {
		return nil, fmt.Errorf("reading the projection: %w", err)
	}
	if torn != len(tail) {
		return nil, fmt.Errorf("reading the projection: meta torn_tail_bytes is %d, the journal's tail has %d bytes", torn, len(tail))
	}
	src, err := newSQLSource(conn)
	if err != nil {
		return nil, fmt.Errorf("reading the projection: %w", err)
	}
	defer src.close()
	checks, err := verifyLedgerLines(lines, tail, src, opts)
	if err != nil {
		return nil, fmt.Errorf("reading the projection: %w", err)
	}
	return checks, nil
}

// verifyLedgerLines is the replay shared by both modes: lines are the
// complete lines in order, tail the bytes after the last newline, src the
// same events as a source.
func verifyLedgerLines(lines [][]byte, tail []byte, src source, opts VerifyOptions) ([]Check, error) {
	checks := make([]Check, 0, len(lines)+3)
	prev, prevKnown := genesisDigest, true
	decisions := 0
	for i, line := range lines {
		c := Check{Source: SourceLedger, EventIndex: i, Status: StatusOK}
		ev, readable, err := src.event(i)
		if err != nil {
			return nil, err
		}
		if readable {
			c.Kind = string(ev.Kind)
			if ev.Kind == KindDecision {
				decisions++
			}
		}
		lc := verifyLine(line, i, prev, prevKnown)
		prev, prevKnown = lc.rec.digest, lc.digestOK
		field, msg := lc.field, lc.message
		switch {
		case field != "":
		case !readable:
			// Both sources call a line readable exactly when decodeEvent
			// accepts it, so this names the reason.
			if _, ferr := decodeEvent(line); ferr != nil {
				field, msg = ferr.field, ferr.message
			}
		default:
			if field, msg, err = checkEvent(src, i, ev, &opts); err != nil {
				return nil, err
			}
		}
		if field != "" {
			c.Status, c.Field, c.Message = StatusMismatch, field, msg
		}
		checks = append(checks, c)
	}
	checks = append(checks, tailChecks(SourceLedger, JournalFile, tail, len(lines), prev, prevKnown)...)
	if decisions > 0 && opts.ConfigDigest == "" {
		checks = append(checks, Check{Source: SourceLedger, EventIndex: -1, Status: StatusSkipped,
			Field: "boundary.context_config_digest", Message: "no current config digest was given; pinned config digests were not compared"})
	}
	if decisions > 0 && opts.CheckBundle == nil {
		checks = append(checks, Check{Source: SourceLedger, EventIndex: -1, Status: StatusSkipped,
			Field: "bundle", Message: "bundle artifacts were not checked"})
	}
	return checks, nil
}

// tailChecks reports the bytes after a journal's last newline (name is the
// journal's file name, index and prev what the next line would carry).
//
// An append is one write(2) of whole lines, so a process killed in the
// middle (or a power cut) leaves a prefix of them: the tail is then the
// start of one JSON object, cut short, or a whole line that verifies as
// the next one and lacks only its newline. That is an incomplete write,
// not tampering: it was never chained to, the next append moves it aside,
// and so does `ctxd verify --repair`. Any other tail (bytes no write of
// ctxd's begins with, a complete object that does not continue the chain)
// is a mismatch.
func tailChecks(source, name string, tail []byte, index int, prev string, prevKnown bool) []Check {
	if len(tail) == 0 {
		return nil
	}
	if problem := tailProblem(tail, index, prev, prevKnown); problem != "" {
		return []Check{{Source: source, EventIndex: -1, Status: StatusMismatch, Field: "line",
			Message: fmt.Sprintf("the file ends with %d bytes after its last newline that no interrupted write leaves: %s", len(tail), problem)}}
	}
	return []Check{{Source: source, EventIndex: -1, Status: StatusIncomplete, Field: "line",
		Message: fmt.Sprintf("the file ends with an incomplete line of %d bytes, a write interrupted by a crash; it was never chained to and is not trusted. "+
			"`ctxd verify --repair` (or the next append) moves it to %s.torn-<time>", len(tail), name)}}
}

// tailProblem says why tail cannot be what an interrupted append left, or
// "" when it can (see tailChecks).
func tailProblem(tail []byte, index int, prev string, prevKnown bool) string {
	if tail[0] != '{' {
		return "it does not start a JSON object"
	}
	dec := json.NewDecoder(bytes.NewReader(tail))
	var v json.RawMessage
	switch err := dec.Decode(&v); {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "" // an object cut short
	case err != nil:
		return "it is not the start of a JSON object"
	case dec.InputOffset() != int64(len(tail)):
		return "a JSON object followed by other bytes"
	}
	if c := verifyLine(tail, index, prev, prevKnown); c.field != "" {
		return fmt.Sprintf("a whole line without its newline that does not verify as line %d (%s: %s)", index, c.field, c.message)
	}
	return "" // a whole line, cut before its newline
}

// checkEvent checks a readable event whose line verified: identifiers,
// payload, and for a DECISION everything checkDecision recomputes. opts is
// nil inside a transaction (no config digest or bundle to compare yet).
// field is "" when the event is sound; err is an I/O failure of src.
func checkEvent(src source, pos int, ev Event, opts *VerifyOptions) (field, msg string, err error) {
	for _, f := range []struct {
		name, value string
		max         int
		optional    bool
	}{
		{"thread_id", ev.ThreadID, MaxIDBytes, false},
		{"turn_id", ev.TurnID, MaxIDBytes, false},
		{"parent_turn_id", ev.ParentTurnID, MaxIDBytes, true},
		{"correlation_id", ev.CorrelationID, MaxRefBytes, true},
	} {
		if f.optional && f.value == "" {
			continue
		}
		if p := textProblem(f.value, f.max); p != "" {
			return f.name, f.name + " " + p, nil
		}
	}
	switch ev.Kind {
	case KindIntent:
		var p IntentPayload
		if err := decodeExact(ev.Payload, &p); err != nil {
			return "payload", "not an INTENT payload: " + jsonProblem(err), nil
		}
	case KindExecution:
		var p ExecutionPayload
		if err := decodeExact(ev.Payload, &p); err != nil {
			return "payload", "not an EXECUTION payload: " + jsonProblem(err), nil
		}
		if want := sha256Digest([]byte(p.Output)); p.OutputDigest != want {
			return "payload.output_digest", fmt.Sprintf("is %s, but the output hashes to %s", p.OutputDigest, want), nil
		}
		if p.Check != nil {
			if msg := p.Check.Problem(); msg != "" {
				return "payload.check", msg, nil
			}
		}
	case KindDecision:
		return checkDecision(src, pos, ev, opts)
	}
	return "", "", nil
}

// checkDecision recomputes a DECISION from the events before it.
func checkDecision(src source, pos int, ev Event, opts *VerifyOptions) (field, msg string, err error) {
	var dp DecisionPayload
	if err := decodeExact(ev.Payload, &dp); err != nil {
		return "payload", "not a DECISION payload: " + jsonProblem(err), nil
	}
	rec, err := src.decision(pos, dp)
	if err != nil {
		return "", "", err
	}
	spec := dp.ContextSpec
	if rec.result != ResultAllow && rec.result != ResultDeny {
		return "result", fmt.Sprintf("is %q, want ALLOW or DENY", rec.result), nil
	}

	// The INTENT it decides.
	ii := rec.intentIndex
	if ii < 0 || ii >= pos {
		return "intent_event_index", fmt.Sprintf("is %d; it must name an earlier event", ii), nil
	}
	intent, ok, err := src.event(ii)
	if err != nil {
		return "", "", err
	}
	if !ok || intent.Kind != KindIntent {
		return "intent_event_index", fmt.Sprintf("event %d is not a readable INTENT", ii), nil
	}
	if intent.ThreadID != ev.ThreadID || intent.TurnID != ev.TurnID {
		return "intent_event_index", fmt.Sprintf("the INTENT at %d belongs to another thread or turn", ii), nil
	}
	var ip IntentPayload
	if err := decodeStrict(intent.Payload, &ip); err != nil {
		return "intent_event_index", fmt.Sprintf("the INTENT at %d has an unreadable payload", ii), nil
	}
	if spec.Identity != (Identity{ThreadID: ev.ThreadID, TurnID: ev.TurnID, ParentTurnID: ev.ParentTurnID}) {
		return "context_spec.identity", "differs from the DECISION's thread_id, turn_id and parent_turn_id", nil
	}
	if spec.Intent != (SpecIntent{IntentType: ip.IntentType, UserInput: ip.UserInput}) {
		return "context_spec.intent", fmt.Sprintf("differs from the payload of the INTENT at %d", ii), nil
	}
	if spec.AssemblyRules.SchemaVersion != SpecSchemaVersion {
		return "context_spec.assembly_rules", fmt.Sprintf("schema_version is %q, want %q", spec.AssemblyRules.SchemaVersion, SpecSchemaVersion), nil
	}
	if spec.AssemblyRules.Ordering != OrderingEventIndexAsc {
		return "context_spec.assembly_rules", fmt.Sprintf("ordering is %q, want %q", spec.AssemblyRules.Ordering, OrderingEventIndexAsc), nil
	}

	// Same context was assembled (invariant 6).
	digest, err := ContextDigest(spec, dp.AssembledContext)
	if err != nil {
		return "context_digest", "cannot be recomputed", nil
	}
	if digest != rec.contextDigest {
		return "context_digest", fmt.Sprintf("is %s, but the stored spec and assembled context hash to %s", rec.contextDigest, digest), nil
	}

	// Same refs were resolved.
	if field, msg, err := checkResolution(src, spec, rec, ii); field != "" || err != nil {
		return field, msg, err
	}

	// No observation leaked.
	inputs, digests, err := intents(src, rec.resolved)
	if errors.Is(err, ErrStaleRef) {
		return "normative_input_digests", err.Error(), nil
	} else if err != nil {
		return "", "", err
	}
	if !slices.Equal(digests, spec.NormativeInputDigests) {
		msg, err := leakMessage(src, rec.resolved, spec.NormativeInputDigests, digests)
		return "normative_input_digests", msg, err
	}
	if !slices.Equal(inputs, dp.AssembledContext.NormativeInputs) {
		return "assembled_context.normative_inputs", "differs from the referenced INTENT payloads", nil
	}

	// Same config was used.
	if spec.Retrieval.Normalization.ConfigDigest != rec.configDigest {
		return "context_spec.retrieval.normalization.config_digest", fmt.Sprintf("is %s, but the boundary pins %s", spec.Retrieval.Normalization.ConfigDigest, rec.configDigest), nil
	}
	if opts != nil && opts.ConfigDigest != "" && rec.configDigest != opts.ConfigDigest {
		return "boundary.context_config_digest", fmt.Sprintf("is %s, but the current config digest is %s", rec.configDigest, opts.ConfigDigest), nil
	}

	if rec.bundle != nil && rec.result == ResultDeny {
		return "bundle", "a DENY decision carries no bundle", nil
	}
	if rec.bundle != nil && opts != nil && opts.CheckBundle != nil {
		if field, msg := opts.CheckBundle(*rec.bundle); field != "" {
			return field, msg, nil
		}
	}
	return "", "", nil
}

// checkResolution resolves the spec's declared refs again against the
// events before the INTENT at ii and compares with the stored refs. A
// refusal for a count limit cannot be re-checked (the limits are pinned by
// the config digest, not recorded), so only its consistency is checked.
func checkResolution(src source, spec ContextSpec, rec decisionRecord, ii int) (field, msg string, err error) {
	declared := spec.Retrieval.DeclaredRefs
	if rec.result == ResultDeny && (rec.reason == CodeMaxRefsExceeded || rec.reason == CodeEmptyRefsDenied) {
		if len(rec.resolved) > 0 {
			return "resolved_refs", fmt.Sprintf("a %s refusal resolves no ref, but %d are recorded", rec.reason, len(rec.resolved)), nil
		}
		if rec.reason == CodeEmptyRefsDenied && len(declared) > 0 {
			return "resolved_refs", fmt.Sprintf("EMPTY_REFS_DENIED, but %d refs were declared", len(declared)), nil
		}
		return "", "", nil
	}
	t := Thread{ThreadID: spec.Identity.ThreadID, TurnID: spec.Identity.TurnID, ParentTurnID: spec.Identity.ParentTurnID, DeclaredRefs: declared}
	want, err := resolve(src, t, replaySettings(spec), ii)
	var re *RefError
	switch {
	case errors.As(err, &re):
		if rec.result == ResultDeny && rec.reason == re.Code && len(rec.resolved) == 0 {
			return "", "", nil
		}
		return "resolved_refs", "resolving declared_refs again fails: " + re.Error(), nil
	case errors.Is(err, ErrInvalidThread), errors.Is(err, ErrInvalidSettings):
		return "context_spec", err.Error(), nil
	case err != nil:
		return "", "", err
	}
	if rec.result == ResultDeny && isRefCode(rec.reason) {
		return "resolved_refs", fmt.Sprintf("the decision was refused with %s, but declared_refs resolve", rec.reason), nil
	}
	if slices.Equal(want, rec.resolved) {
		return "", "", nil
	}
	for i := range max(len(want), len(rec.resolved)) {
		switch {
		case i >= len(rec.resolved):
			return "resolved_refs", fmt.Sprintf("resolving again gives %d refs, %d are recorded", len(want), len(rec.resolved)), nil
		case i >= len(want):
			return "resolved_refs", fmt.Sprintf("resolving again gives %d refs, %d are recorded", len(want), len(rec.resolved)), nil
		case want[i] != rec.resolved[i]:
			w, g := want[i], rec.resolved[i]
			return "resolved_refs", fmt.Sprintf("resolved_refs[%d] is {%q, %d, %s, %s}, resolving again gives {%q, %d, %s, %s}",
				i, g.RefID, g.EventIndex, g.EventDigest, g.AdmittedFor, w.RefID, w.EventIndex, w.EventDigest, w.AdmittedFor), nil
		}
	}
	return "resolved_refs", "differs from resolving declared_refs again", nil
}

func isRefCode(code string) bool {
	switch code {
	case CodeRefNotFound, CodeCrossThreadRef, CodeMaxRefsExceeded, CodeEmptyRefsDenied:
		return true
	}
	return false
}

// leakMessage explains the first difference between the stored and the
// recomputed normative_input_digests, naming an EXECUTION payload that
// leaked into them.
func leakMessage(src source, refs []ResolvedRef, stored, want []string) (string, error) {
	for i, d := range stored {
		if i < len(want) && d == want[i] {
			continue
		}
		for _, r := range admitted(refs, AdmittedExecutionOnly) {
			ev, ok, err := src.event(r.EventIndex)
			if err != nil {
				return "", err
			}
			if !ok {
				continue
			}
			if pd, err := PayloadDigest(ev.Payload); err == nil && pd == d {
				return fmt.Sprintf("normative_input_digests[%d] is the payload digest of EXECUTION event %d: an observation leaked into the normative inputs", i, r.EventIndex), nil
			}
		}
		if i < len(want) {
			return fmt.Sprintf("normative_input_digests[%d] is %s, but the referenced INTENT payload hashes to %s", i, d, want[i]), nil
		}
		return fmt.Sprintf("normative_input_digests[%d] is %s, which is no referenced INTENT's payload digest", i, d), nil
	}
	return fmt.Sprintf("%d digests are recorded, but the referenced INTENTs give %d", len(stored), len(want)), nil
}

// VerifyAudit replays the audit trail at path and returns one Check per
// line (chain, canonical form, a non-empty event name and a data member),
// then a file-level Check for an incomplete last line. A missing file gives
// no checks and no error; errors are I/O failures.
func VerifyAudit(path string) ([]Check, error) {
	data, exists, err := readShared(path)
	if err != nil || !exists {
		return []Check{}, err
	}
	lines, tail := splitLines(data)
	checks := make([]Check, 0, len(lines)+1)
	prev, prevKnown := genesisDigest, true
	for i, line := range lines {
		c := Check{Source: SourceAudit, EventIndex: i, Status: StatusOK}
		name, ferr := decodeAudit(line)
		if ferr == nil {
			c.Kind = name
		}
		lc := verifyLine(line, i, prev, prevKnown)
		prev, prevKnown = lc.rec.digest, lc.digestOK
		field, msg := lc.field, lc.message
		if field == "" && ferr != nil {
			field, msg = ferr.field, ferr.message
		}
		if field != "" {
			c.Status, c.Field, c.Message = StatusMismatch, field, msg
		}
		checks = append(checks, c)
	}
	return append(checks, tailChecks(SourceAudit, filepath.Base(path), tail, len(lines), prev, prevKnown)...), nil
}

// sqlNull is a helper for nullable text columns.
func sqlNull(s sql.NullString) string {
	if s.Valid {
		return s.String
	}
	return ""
}

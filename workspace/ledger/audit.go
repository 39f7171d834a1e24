package ledger

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// Audit event names of seed 001.
const (
	AuditPolicyLoaded    = "context_policy_loaded"
	AuditContextSelected = "context_selected"
	AuditPromptBuilt     = "prompt_built"
	// AuditChangeChecked records the verdict on a model's answer
	// (ctxd.checkChange): status, format, code, counts and digests,
	// never the answer.
	AuditChangeChecked = "change_checked"
)

// BundleArtifact returns the context artifact's sha256 that the trail
// records for the bundle id (the latest context_selected event naming
// it), or "" when none does or the trail does not exist yet. Lines that
// are not audit events are skipped: verify reports them.
func (a *Audit) BundleArtifact(bundleID string) (string, error) {
	data, err := os.ReadFile(a.j.path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("reading the audit trail: %w", err)
	}
	found := ""
	for line := range bytes.Lines(data) {
		if !bytes.Contains(line, []byte(bundleID)) {
			continue
		}
		var l struct {
			Event string `json:"event"`
			Data  struct {
				BundleID string `json:"bundle_id"`
				Artifact string `json:"context_artifact_sha256"`
			} `json:"data"`
		}
		if json.Unmarshal(line, &l) != nil || l.Event != AuditContextSelected || l.Data.BundleID != bundleID || l.Data.Artifact == "" {
			continue
		}
		found = l.Data.Artifact
	}
	return found, nil
}

// MaxAuditEventBytes bounds an audit event name.
const MaxAuditEventBytes = 128

// Audit is the workspace's audit trail, <root>/.ctxd/audit.jsonl: a
// hash-chained journal (the same line format, locking and crash recovery as
// the ledger's) of lines {event_index, prev_digest, event_digest, event,
// data, _obs}. It is safe for concurrent use, across goroutines and
// processes. The zero value is not usable; call [OpenAudit].
type Audit struct {
	j *journal
}

// auditBody is an audit line without its chain members.
type auditBody struct {
	Event string          `json:"event"`
	Data  json.RawMessage `json:"data"`
	Obs   json.RawMessage `json:"_obs"`
}

// auditLine is a whole audit line, for verification.
type auditLine struct {
	Index  int             `json:"event_index"`
	Prev   string          `json:"prev_digest"`
	Digest string          `json:"event_digest"`
	Event  *string         `json:"event"`
	Data   json.RawMessage `json:"data"`
	Obs    json.RawMessage `json:"_obs"`
}

// OpenAudit opens the audit trail at path. Nothing is created until the
// first Append; an existing file's torn tail is moved aside as in [Open].
// now stamps _obs.recorded_at and names moved-aside tails; nil means
// time.Now.
func OpenAudit(path string, now func() time.Time) (*Audit, error) {
	a := &Audit{j: newJournal(path, now)}
	if err := a.j.recoverOnOpen(); err != nil {
		return nil, fmt.Errorf("opening audit trail: %w", err)
	}
	return a, nil
}

// Append records one event: event is its name (see AuditPolicyLoaded and
// the other constants; non-empty, printable, at most [MaxAuditEventBytes],
// else [ErrInvalidAuditEvent]) and data any value encoding/json marshals
// (nil is recorded as null). The line is appended with one write and
// synced before Append returns; a corrupt trail fails with [ErrCorrupt].
func (a *Audit) Append(event string, data any) error {
	if p := textProblem(event, MaxAuditEventBytes); p != "" {
		return fmt.Errorf("%w: the event name %s", ErrInvalidAuditEvent, p)
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("appending audit event %s: encoding data: %w", event, err)
	}
	o, err := json.Marshal(obs{RecordedAt: a.j.now().UTC().Format(time.RFC3339Nano)})
	if err != nil {
		return fmt.Errorf("appending audit event %s: %w", event, err)
	}
	_, err = a.j.update(context.Background(), func(recs []record) ([]record, error) {
		rec, err := seal(auditBody{Event: event, Data: raw, Obs: o}, len(recs), nextPrev(recs))
		if err != nil {
			return nil, err
		}
		return []record{rec}, nil
	})
	if err != nil {
		return fmt.Errorf("appending audit event %s: %w", event, err)
	}
	return nil
}

// decodeAudit reads an audit line's event name, strictly.
func decodeAudit(line []byte) (string, *fieldError) {
	var l auditLine
	if err := decodeExact(line, &l); err != nil {
		return "", &fieldError{"line", "not an audit event: " + jsonProblem(err)}
	}
	if l.Event == nil {
		return "", &fieldError{"event", "missing"}
	}
	if p := textProblem(*l.Event, MaxAuditEventBytes); p != "" {
		return "", &fieldError{"event", "the event name " + p}
	}
	if len(l.Data) == 0 {
		return "", &fieldError{"data", "missing"}
	}
	return *l.Event, nil
}

package contextbuilder

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
)

// ErrInvalidRequest is wrapped by every error about a malformed build
// request: unknown or missing fields, bad enums, impossible budgets. The
// LSP edge maps it to InvalidParams and the CLI to exit code 2.
var ErrInvalidRequest = errors.New("invalid build request")

// Request is a build request (docs/protocol.md), snake_case like the seed
// schemas. The zero value of an optional field means "absent".
type Request struct {
	// Purpose is required: intent, plan or diff.
	Purpose Purpose `json:"purpose"`
	// CorrelationID is echoed in the bundle and manifest; empty means
	// ctxd derives one from the request (deterministic, a UUIDv8).
	CorrelationID string `json:"correlation_id,omitempty"`
	// ActiveFile is the document URI of the file open in the editor. With
	// no explicit target it is the target.
	ActiveFile string `json:"active_file,omitempty"`
	// Selection is the editor selection; its URI must be the active
	// file's. It defines the target region; the symbols enclosing it
	// become target symbols.
	Selection *SelectionRange `json:"selection,omitempty"`
	Intent    *Intent         `json:"intent,omitempty"`
	PlanStep  *PlanStep       `json:"plan_step,omitempty"`
	// UserSelectedTargets are the user's answer to a disambiguation.
	UserSelectedTargets []UserTarget `json:"user_selected_targets,omitempty"`
	LastError           *LastError   `json:"last_error,omitempty"`
	Constraints         []Constraint `json:"constraints,omitempty"`
	// Model overrides the config's model defaults field by field.
	Model *ModelRequest `json:"model,omitempty"`
	// Skill names a policy override (seed 001); accepted and carried into
	// the canonical request, enforced by the policy issue.
	Skill string `json:"skill,omitempty"`
	// Thread is seed 000's thread reference; accepted as an object and
	// carried into the canonical request, used by the ledger issue.
	Thread json.RawMessage `json:"thread,omitempty"`
}

// SelectionRange is the editor selection: {uri, range} on the wire, and
// the byte span the range selects in the file's text.
type SelectionRange struct {
	URI string `json:"uri"`
	// Range is the selection as the client sent it. The builder never
	// interprets it (its units depend on the client's position encoding,
	// which the builder does not know); it stays in the canonical request,
	// so request_fingerprint and the derived correlation_id depend on it.
	Range Range `json:"range"`
	// Span is the selection as byte offsets of the active file's text, as
	// the builder reads it. The caller resolves Range to Span before
	// building; a selection without a Span is an invalid request.
	Span *Span `json:"-"`
}

// Position is a line and character of a request's range as the client
// sent them, both 0-based. Their units are the client's; the builder only
// validates and echoes them.
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// Range is a range of a request as the client sent it: Start inclusive,
// End exclusive.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Span is a half-open range of byte offsets of a file's text.
type Span struct {
	Start, End int
}

// Intent is the user's request in words.
type Intent struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// PlanStep is the plan step a diff is generated for. TargetFiles are
// workspace-relative paths (or file URIs); "path:L1-L2" names lines L1 to
// L2 (1-based, inclusive) as the target region of that file. NewFiles
// are the files the step creates (workspace-relative paths): one that
// does not exist yet is a target without content, listed in the
// manifest's target_files and the diff hint, so that a change checked
// against the bundle may create it; one that exists is a target like
// those of TargetFiles.
type PlanStep struct {
	ID            string   `json:"id"`
	Text          string   `json:"text"`
	TargetFiles   []string `json:"target_files,omitempty"`
	TargetSymbols []string `json:"target_symbols,omitempty"`
	NewFiles      []string `json:"new_files,omitempty"`
}

// UserTarget is one explicit choice: a path, and optionally the symbol
// (qualified name) in it.
type UserTarget struct {
	Path   string `json:"path"`
	Symbol string `json:"symbol,omitempty"`
}

// LastError is the error of a previous attempt, for retries. Range, when
// set, is shown to the model as the 1-based line and character of its
// start, in the client's units.
type LastError struct {
	Message string `json:"message"`
	Path    string `json:"path,omitempty"`
	Range   *Range `json:"range,omitempty"`
}

// ConstraintScope is where a constraint comes from.
type ConstraintScope string

// Constraint scopes (seed 002 inputs).
const (
	ScopeSystem  ConstraintScope = "system"
	ScopeProject ConstraintScope = "project"
	ScopeSession ConstraintScope = "session"
	ScopeUser    ConstraintScope = "user"
)

// Constraint is one active constraint.
type Constraint struct {
	Scope ConstraintScope `json:"scope"`
	ID    string          `json:"id"`
	Text  string          `json:"text"`
}

// ModelRequest carries the request's model fields; nil fields take the
// config's defaults.
type ModelRequest struct {
	Provider              *string `json:"provider,omitempty"`
	Model                 *string `json:"model,omitempty"`
	MaxInputTokens        *int    `json:"max_input_tokens,omitempty"`
	MaxOutputTokens       *int    `json:"max_output_tokens,omitempty"`
	ResponseTokenReserve  *int    `json:"response_token_reserve,omitempty"`
	SoftLimitThresholdPct *int    `json:"soft_limit_threshold_pct,omitempty"`
}

// Validate checks the request's enums and required fields. Errors wrap
// [ErrInvalidRequest] and name the field; the first problem found, in
// field order, is the one reported.
func (r *Request) Validate() error {
	for _, check := range []func() string{r.checkPurpose, r.checkSelection, r.checkTask, r.checkLastError, r.checkConstraints, r.checkThread} {
		if msg := check(); msg != "" {
			return fmt.Errorf("%w: %s", ErrInvalidRequest, msg)
		}
	}
	return nil
}

func (r *Request) checkPurpose() string {
	switch r.Purpose {
	case PurposeIntent, PurposePlan, PurposeDiff:
	case "":
		return "field \"purpose\" is required (intent, plan or diff)"
	default:
		return fmt.Sprintf("field \"purpose\": %q is not one of intent, plan, diff", r.Purpose)
	}
	if r.CorrelationID != "" && !isUUID(r.CorrelationID) {
		return fmt.Sprintf("field \"correlation_id\": %q is not a UUID (8-4-4-4-12 lowercase hex digits)", r.CorrelationID)
	}
	return ""
}

func (r *Request) checkSelection() string {
	if r.Selection == nil {
		return ""
	}
	if r.Selection.URI == "" {
		return "field \"selection.uri\" is required"
	}
	if r.ActiveFile != "" && r.Selection.URI != r.ActiveFile {
		return "field \"selection.uri\" must equal \"active_file\""
	}
	if msg := checkRange("selection.range", r.Selection.Range); msg != "" {
		return msg
	}
	s, e := r.Selection.Range.Start, r.Selection.Range.End
	if e.Line < s.Line || (e.Line == s.Line && e.Character < s.Character) {
		return "field \"selection.range\": end is before start"
	}
	return ""
}

// maxCoordinate is the largest line or character number: the wire's
// positions are LSP positions, unsigned 32-bit integers.
const maxCoordinate = math.MaxUint32

// checkRange rejects a line or character number that no LSP position can
// hold.
func checkRange(field string, rg Range) string {
	for _, c := range []struct {
		name string
		v    int
	}{{"start.line", rg.Start.Line}, {"start.character", rg.Start.Character}, {"end.line", rg.End.Line}, {"end.character", rg.End.Character}} {
		if c.v < 0 || int64(c.v) > maxCoordinate {
			return fmt.Sprintf("field %q: %d is not a line or character number (0 to %d)", field+"."+c.name, c.v, int64(maxCoordinate))
		}
	}
	return ""
}

func (r *Request) checkTask() string {
	if r.Purpose == PurposeDiff && r.PlanStep == nil && r.ActiveFile == "" && r.Selection == nil && len(r.UserSelectedTargets) == 0 {
		return "purpose \"diff\" needs a target: \"plan_step\", \"active_file\", \"selection\" or \"user_selected_targets\""
	}
	if r.Intent != nil && (r.Intent.ID == "" || strings.TrimSpace(r.Intent.Text) == "") {
		return "fields \"intent.id\" and \"intent.text\" are required when \"intent\" is given"
	}
	if r.PlanStep != nil && r.PlanStep.ID == "" {
		return "field \"plan_step.id\" is required when \"plan_step\" is given"
	}
	for i, t := range r.UserSelectedTargets {
		if t.Path == "" {
			return fmt.Sprintf("field \"user_selected_targets[%d].path\" is required", i)
		}
	}
	return ""
}

func (r *Request) checkLastError() string {
	if r.LastError == nil {
		return ""
	}
	if r.LastError.Message == "" {
		return "field \"last_error.message\" is required"
	}
	if r.LastError.Range != nil {
		return checkRange("last_error.range", *r.LastError.Range)
	}
	return ""
}

func (r *Request) checkConstraints() string {
	for i, c := range r.Constraints {
		switch c.Scope {
		case ScopeSystem, ScopeProject, ScopeSession, ScopeUser:
		default:
			return fmt.Sprintf("field \"constraints[%d].scope\": %q is not one of system, project, session, user", i, c.Scope)
		}
		if strings.TrimSpace(c.Text) == "" {
			return fmt.Sprintf("field \"constraints[%d].text\" is required", i)
		}
		if c.ID == "" {
			return fmt.Sprintf("field \"constraints[%d].id\" is required", i)
		}
	}
	return ""
}

func (r *Request) checkThread() string {
	if len(r.Thread) > 0 && !bytes.HasPrefix(bytes.TrimSpace(r.Thread), []byte("{")) && !bytes.Equal(bytes.TrimSpace(r.Thread), []byte("null")) {
		return "field \"thread\" must be an object"
	}
	return ""
}

// isUUID reports whether s is a canonical lowercase UUID, the form of every
// id in the seed schemas.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range []byte(s) {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
				return false
			}
		}
	}
	return true
}

package workspace

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"syscall"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/workspace/ledger"
	"github.com/ctxd/ctxd/workspace/policy"
	"github.com/ctxd/ctxd/workspace/prompt"
)

// Codes this package raises besides the seeds' (documented in
// docs/policy.md).
const (
	// RefuseMaxUserMessages is the governance denial of seed 000 example 2:
	// the thread's referenced user messages plus the current one exceed
	// policy.max_user_messages_per_thread.
	RefuseMaxUserMessages contextbuilder.RefusalCode = "context_selection_exceeds_max_user_messages"
	// RefuseSelectionFailed is seed 001's context_selection_failed: the
	// selection could not be recorded (artifact, ledger or audit write).
	RefuseSelectionFailed contextbuilder.RefusalCode = policy.ReasonSelectionFailed
	// RefuseRecordDiskFull is ctxd's addition beside seed 001's
	// context_selection_failed: the record could not be written because
	// the disk holding it is full (ENOSPC). It has its own code because
	// its remedy is the user's (free space), not a permission or a bug,
	// and a client may retry once space is free.
	RefuseRecordDiskFull contextbuilder.RefusalCode = "context_record_disk_full"
)

// rawJSON is a JSON document stored as is.
type rawJSON = json.RawMessage

// asRefusal turns the errors of the policy, ledger and prompt packages
// into refusals with their reason as the code; other errors are returned
// unchanged.
func asRefusal(err error) error {
	var pe *policy.Error
	var re *ledger.RefError
	var te *prompt.Error
	switch {
	case errors.As(err, &pe):
		return &contextbuilder.Refusal{Code: contextbuilder.RefusalCode(pe.Reason), Message: pe.Message, Advice: pe.Advice}
	case errors.As(err, &re):
		return &contextbuilder.Refusal{Code: contextbuilder.RefusalCode(re.Code), Message: re.Message, Advice: re.Advice}
	case errors.As(err, &te):
		// The refusal's message names the template file and member, as
		// the config's does: the error's text without its reason prefix.
		msg := strings.TrimPrefix(te.Error(), te.Reason+": ")
		return &contextbuilder.Refusal{Code: contextbuilder.RefusalCode(te.Reason), Message: msg, Advice: te.Advice}
	}
	return err
}

// stateRefusal refuses an operation that must be recorded when the
// record (see Locate) could not be opened or written; err names the
// directory.
//
// A full disk (ENOSPC) is [RefuseRecordDiskFull], whose message names no
// path: the error's own text holds the absolute name of a temporary file.
func stateRefusal(err error) error {
	if errors.Is(err, syscall.ENOSPC) {
		return &contextbuilder.Refusal{
			Code:    RefuseRecordDiskFull,
			Message: "ctxd records every bundle it builds and cannot: no space is left on the disk that holds the records (" + recordsWhere + "); nothing was answered without a record",
			Advice:  "free disk space there, then retry; `ctxd verify --root DIR` checks what was recorded",
		}
	}
	return &contextbuilder.Refusal{
		Code:    RefuseSelectionFailed,
		Message: fmt.Sprintf("ctxd records every bundle it builds and cannot: %v", err),
		Advice:  recordsAdvice + ", then restart ctxd",
	}
}

// recordsAdvice tells the user how to make the record writable, wherever
// it is.
const recordsAdvice = "make the records directory writable (a directory, not a link): " + recordsWhere

// recordsWhere names where records live, relative to the workspace or to
// the user's state directory (see Locate).
const recordsWhere = ".ctxd in a workspace with a .ctxd/config.json, else ctxd/workspaces under $XDG_STATE_HOME (default ~/.local/state)"

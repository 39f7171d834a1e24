// Package change checks a model's answer against the files it touches and
// turns it into an edit set, or a typed rejection.
//
// The checker is pure, like the context builder: [Parse] reads an answer's
// text into an [Answer] (unified diffs, SEARCH/REPLACE blocks or whole
// files, prose ignored), and [Apply] applies it to the bytes of the files
// the caller read, giving a [Result] (per file the bytes before and after
// and the byte edits) or a [Rejection] (a [Code], a message, advice and an
// error_context ready for the retry). It does no I/O: the workspace layer
// resolves paths against the sandbox, checks the bundle's manifest, reads
// and writes files and records the verdict.
package change

import (
	"github.com/ctxd/ctxd/contextbuilder"
)

// Format is how an answer writes its change.
type Format string

// Formats of an answer.
const (
	FormatUnified       Format = "unified"
	FormatSearchReplace Format = "search_replace"
	FormatWholeFile     Format = "whole_file"
)

// Action is what a change does to one file.
type Action string

// Actions.
const (
	ActionModify Action = "modify"
	ActionCreate Action = "create"
	ActionDelete Action = "delete"
)

// Code is a rejection's code. The checks run in the order of the
// constants: a rejection names the first check that failed.
type Code string

// Rejection codes.
const (
	CodeMalformed       Code = "CHANGE_MALFORMED"
	CodeOutsideSandbox  Code = "CHANGE_OUTSIDE_SANDBOX"
	CodeNeverSendPath   Code = "CHANGE_NEVER_SEND_PATH"
	CodeNotInBundle     Code = "CHANGE_NOT_IN_BUNDLE"
	CodeStale           Code = "CHANGE_STALE"
	CodeContextMismatch Code = "CHANGE_CONTEXT_MISMATCH"
	CodeAmbiguousMatch  Code = "CHANGE_AMBIGUOUS_MATCH"
	CodeSyntaxError     Code = "CHANGE_SYNTAX_ERROR"
	CodeSecret          Code = "CHANGE_SECRET"
)

// Codes lists every rejection code in check order.
func Codes() []Code {
	return []Code{CodeMalformed, CodeOutsideSandbox, CodeNeverSendPath, CodeNotInBundle, CodeStale,
		CodeContextMismatch, CodeAmbiguousMatch, CodeSyntaxError, CodeSecret}
}

// Rejection is why an answer was not accepted. ErrorContext is what a
// retry sends back to the model as the build request's last_error: it
// names the file and says what to correct, and never carries a secret.
type Rejection struct {
	Code         Code                     `json:"code"`
	Message      string                   `json:"message"`
	Advice       string                   `json:"advice"`
	ErrorContext contextbuilder.LastError `json:"error_context"`
}

// Error returns the code and message.
func (r *Rejection) Error() string { return string(r.Code) + ": " + r.Message }

// Answer is a parsed answer: its format and one FileChange per path, in
// the order the answer first names each path.
type Answer struct {
	Format Format
	Files  []*FileChange
}

// FileChange is the change of one path as the answer writes it.
type FileChange struct {
	// Path is the path as the answer names it, cleaned of diff prefixes
	// (a/, b/), quotes and Markdown decoration, '/'-separated. It may be
	// absolute or climb with "..": the caller's sandbox check decides.
	Path string
	// Action is what the answer declares: ActionDelete for a unified diff
	// to /dev/null, ActionCreate for one from /dev/null, else
	// ActionModify. SEARCH/REPLACE and whole-file changes are
	// ActionModify here; Apply makes them ActionCreate when the file does
	// not exist.
	Action Action
	// Line is the 1-based line of the answer where the change of this
	// path starts, for messages.
	Line int

	hunks  []hunk  // unified
	blocks []block // search_replace
	whole  *string // whole_file: the new text as written (LF)
}

// Input is one file as the caller read it, in the order of Answer.Files.
type Input struct {
	// Path is the root-relative path messages name.
	Path string
	// Exists reports whether the file exists; Text is then its bytes.
	Exists bool
	Text   []byte
}

// Options configures Apply.
type Options struct {
	// Scanner finds credentials in added text; nil skips CHANGE_SECRET
	// (and leaves the closest lines of a mismatch unredacted), which only
	// tests should do.
	// It is the scanner builds use (secrets.Default() or the user's
	// rules through contextbuilder.Redactor).
	Scanner contextbuilder.Redactor
}

// Edit replaces the bytes [Start, End) of a file's text before the change
// with NewText. A FileResult's edits are sorted and do not overlap.
type Edit struct {
	Start, End int
	NewText    string
}

// FileResult is the accepted change of one file.
type FileResult struct {
	Path   string
	Action Action
	// Before is nil for ActionCreate; After is nil for ActionDelete.
	Before, After []byte
	Edits         []Edit
}

// Result is an accepted answer: one FileResult per Input, in order.
type Result struct {
	Format Format
	Files  []FileResult
}

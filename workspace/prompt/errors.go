package prompt

import "strings"

// Fail-closed reasons of prompt assembly (seed 001), used verbatim as
// refusal codes.
const (
	// ReasonBuildFailed: a template is missing or malformed, or the
	// prompt cannot be assembled from the bundle within the budget.
	ReasonBuildFailed = "prompt_build_failed"
	// ReasonWriteFailed: the prompt artifact could not be stored. This
	// package never writes; the caller storing the artifact uses it.
	ReasonWriteFailed = "prompt_write_failed"
)

// Error is a prompt failure. Every error this package returns is an
// *Error.
type Error struct {
	// Reason is [ReasonBuildFailed] or [ReasonWriteFailed].
	Reason string
	// Path is the workspace-relative, slash-separated template file
	// concerned, such as ".ctxd/templates/x.json"; empty when the error
	// is not about a file (a built-in template, the bundle, the budget).
	Path string
	// Field is a JSON pointer into the template file, such as "/id";
	// empty when the error concerns the whole file or no file.
	Field string
	// Message says what is wrong.
	Message string
	// Advice says how to fix it.
	Advice string
}

// Error returns "<reason>: [<path> ][<field>: ]<message>".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Reason)
	b.WriteString(": ")
	if e.Path != "" {
		b.WriteString(e.Path)
		if e.Field != "" {
			b.WriteString(" " + e.Field)
		}
		b.WriteString(": ")
	} else if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Message)
	return b.String()
}

// buildErr returns a ReasonBuildFailed error.
func buildErr(path, field, advice, message string) *Error {
	return &Error{Reason: ReasonBuildFailed, Path: path, Field: field, Message: message, Advice: advice}
}

package policy

import (
	"strconv"
	"unicode/utf8"
)

// The seed 001 fail-closed reasons, verbatim. This package returns the
// first three; the selection reasons are defined here so that the code
// enforcing a [Rules] value reports the same strings.
const (
	// ReasonReadFailed: .ctxd/config.json exists but could not be read
	// (permissions, not a regular file, not UTF-8, too large, or a symbolic
	// link leading out of the workspace).
	ReasonReadFailed = "context_policy_read_failed"
	// ReasonInvalid: the file was read but is not a valid configuration.
	ReasonInvalid = "context_policy_invalid"
	// ReasonOverrideInvalid: a build named a skill that is not defined or
	// whose override widens the global policy.
	ReasonOverrideInvalid = "context_policy_override_invalid"
	// ReasonNamespaceDenied: a required file lies in no allowed namespace.
	ReasonNamespaceDenied = "context_namespace_denied"
	// ReasonExceedsMaxItems: the files that cannot be dropped already
	// exceed max_items.
	ReasonExceedsMaxItems = "context_selection_exceeds_max_items"
	// ReasonExceedsMaxBytes: the files that cannot be dropped already
	// exceed max_bytes.
	ReasonExceedsMaxBytes = "context_selection_exceeds_max_bytes"
	// ReasonSelectionFailed: the selection could not be made for another
	// reason.
	ReasonSelectionFailed = "context_selection_failed"
)

// Error is the error of every function of this package. Its fields are
// meant to be shown to the user as they are; none of them quotes file
// content beyond a member's value bounded to 80 bytes.
type Error struct {
	// Reason is one of the Reason constants.
	Reason string
	// Path is the file involved, workspace-relative and '/'-separated
	// (ConfigPath); "" when no file is involved.
	Path string
	// Field is the JSON pointer (RFC 6901) of the offending member, such
	// as "/policy/max_items"; "" when the error concerns the whole file
	// (unreadable, not JSON) or no member.
	Field string
	// Message says what is wrong, naming the file and the member; for a
	// JSON syntax error it gives the line and column.
	Message string
	// Advice says what to do about it.
	Advice string

	// cause is the underlying error (an I/O error), nil when none; exposed
	// through Unwrap so that callers can test for fs.ErrPermission.
	cause error
}

// Error returns the reason followed by the message.
func (e *Error) Error() string {
	return e.Reason + ": " + e.Message
}

// Unwrap returns the I/O error that caused a ReasonReadFailed, nil
// otherwise.
func (e *Error) Unwrap() error {
	return e.cause
}

// maxQuoted bounds a value quoted in a message, quotes included.
const maxQuoted = 80

// quote returns s as a Go-syntax quoted string of at most maxQuoted bytes,
// cut at a character boundary and marked with "…" when s was longer.
func quote(s string) string {
	q := strconv.Quote(s)
	if len(q) <= maxQuoted {
		return q
	}
	// Escapes make the quoted form longer than s by an unknown amount:
	// shorten s until its quoted form plus the ellipsis fits.
	n := len(s)
	for {
		if n > maxQuoted {
			n = maxQuoted
		}
		n--
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		q = strconv.Quote(s[:n]) + "…"
		if len(q) <= maxQuoted || n == 0 {
			return q
		}
	}
}

package ledger

import "errors"

// Sentinel errors of the package. Every error that reports one of these
// wraps it, so callers test with [errors.Is]; [RefError] is the typed error
// of reference resolution.
var (
	// ErrCorrupt reports a journal whose complete lines do not verify: a line
	// that is not canonical JSON, a broken hash chain, an event that cannot be
	// decoded. It is never repaired automatically; appends fail until a person
	// has looked at the findings of `ctxd verify`.
	ErrCorrupt = errors.New("journal is corrupt")

	// ErrInvalidThread reports a request's thread object that breaks the
	// limits of [Thread.Validate]; the message names the offending field.
	ErrInvalidThread = errors.New("invalid thread")

	// ErrInvalidDraft reports a [Draft] that [Ledger.Transact] refuses to
	// append, because the event it would write could not verify.
	ErrInvalidDraft = errors.New("invalid draft")

	// ErrInvalidSettings reports [Settings] the resolver cannot honour, such
	// as an ordering other than event_index_asc.
	ErrInvalidSettings = errors.New("invalid context settings")

	// ErrStaleRef reports a [ResolvedRef] that no longer names the event it
	// was resolved to: the event at its index has another kind or digest.
	ErrStaleRef = errors.New("resolved ref does not match the ledger")

	// ErrInvalidAuditEvent reports an audit event name that is empty, too
	// long or not printable.
	ErrInvalidAuditEvent = errors.New("invalid audit event")

	// ErrInvalidOptions reports [VerifyOptions] that cannot be honoured, such
	// as an unknown mode or ledger mode without a database path.
	ErrInvalidOptions = errors.New("invalid verify options")
)

package contextbuilder

// RefusalCode is the stable code of a refusal.
type RefusalCode string

// Refusal codes (seed 002 failure modes; docs/contract.md lists them).
const (
	RefuseContextTooLarge   RefusalCode = "REFUSE_CONTEXT_TOO_LARGE"
	RefuseSecretRisk        RefusalCode = "REFUSE_SECRET_RISK"
	RefuseAmbiguousTarget   RefusalCode = "REFUSE_AMBIGUOUS_TARGET"
	RefuseUnsupportedTarget RefusalCode = "REFUSE_UNSUPPORTED_TARGET"
	RefuseOutsideSandbox    RefusalCode = "REFUSE_OUTSIDE_SANDBOX"
	// RefuseTargetNotFound is ctxd's addition: a named target file or
	// symbol does not exist in the index (see docs/contract.md).
	RefuseTargetNotFound RefusalCode = "REFUSE_TARGET_NOT_FOUND"
)

// Refusal is a fail-closed answer: the build did not produce a bundle.
// It is returned as an error; the LSP edge sends it as JSON-RPC error
// -32803 with the Refusal as data, the CLI prints {"refusal": …} and
// exits 3. The reports are those computed before refusing; nil when the
// refusal came first.
type Refusal struct {
	Code            RefusalCode      `json:"code"`
	Message         string           `json:"message"`
	Advice          string           `json:"advice"`
	BudgetReport    *BudgetReport    `json:"budget_report,omitempty"`
	RedactionReport *RedactionReport `json:"redaction_report,omitempty"`
	Manifest        *Manifest        `json:"manifest,omitempty"`
	// Candidates lists the choices of an ambiguous target, sorted by path
	// then range; the client retries with one of them in
	// user_selected_targets.
	Candidates []Candidate `json:"candidates,omitempty"`
}

// Error implements error with the code and message.
func (r *Refusal) Error() string { return string(r.Code) + ": " + r.Message }

// Candidate is one definition an ambiguous symbol name could mean.
type Candidate struct {
	Path   string `json:"path"`
	Symbol string `json:"symbol"`
	Kind   string `json:"kind"`
	// Range is the declaration's range: a 0-based line and a byte column.
	// The caller, which knows the client's position encoding, replaces it
	// with the client's units when it can read the file's text.
	Range Range `json:"range"`
	// Span is the declaration as byte offsets of the file's text, for the
	// caller to convert; it is not part of the wire form.
	Span Span `json:"-"`
}

package contextbuilder

// Confidence says how sure a Redactor is that a finding is a secret.
type Confidence string

// Confidences.
const (
	// High: a known secret shape; redacting the span removes it.
	High Confidence = "high"
	// Uncertain: something that may be a secret and that ctxd cannot
	// prove removed by redacting a span (seed 002: "If uncertainty
	// exists: refuse").
	Uncertain Confidence = "uncertain"
)

// Finding is one secret found in a text.
type Finding struct {
	// RuleID names the rule; it appears in [REDACTED:<rule-id>] and in the
	// redaction report, never the value.
	RuleID string
	// Start and End are byte offsets of the secret value in the text
	// (half-open). Only this span is replaced.
	Start, End int
	// Line is the 1-based line of Start.
	Line       int
	Confidence Confidence
	// WholeFile says that the text is a credential as a whole (a key
	// file): the block is removed instead of redacted.
	WholeFile bool
}

// Redactor finds secrets in text that would be sent. Implementations are
// deterministic: the same (path, text) always gives the same findings in
// the same order. The secrets issue provides the full engine; [BasicRedactor]
// covers seed 002's example patterns.
type Redactor interface {
	// Version names the rule set; it enters config_fingerprint.
	Version() string
	// Scan returns the findings in text (the decoded UTF-8 content of
	// path), sorted by Start. An error means the text could not be
	// scanned, which the builder treats as a secret risk.
	Scan(path string, text []byte) ([]Finding, error)
}

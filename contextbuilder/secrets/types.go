// Package secrets finds credentials in text that ctxd would send to a model,
// so that the context builder can redact them span-exactly or refuse.
//
// The main types are [Scanner], which applies a rule set to a text, [Rule],
// one credential type, and [Finding], one match with its byte span and
// confidence. The built-in rules are embedded, versioned data
// (rules.json); [Default] returns the scanner of the built-in rules, [New]
// one that adds the user's own rules (gitleaks TOML, [ParseGitleaksTOML]).
// No file in a scanned workspace can change or disable a rule, and inline
// allow comments (gitleaks:allow, pragma: allowlist secret, …) are ignored.
package secrets

// Confidence says how sure the scanner is that a finding is a secret that
// redacting its span removes.
type Confidence string

// Confidences.
const (
	// High: a known secret shape; replacing the span removes it.
	High Confidence = "high"
	// Uncertain: something that may be a secret and whose extent cannot be
	// bounded (a private key without its END line): the builder refuses or
	// excludes instead of redacting.
	Uncertain Confidence = "uncertain"
)

// Finding is one secret found in a text.
type Finding struct {
	// RuleID names the rule; it appears in [REDACTED:<rule-id>] and in the
	// redaction report, never the value.
	RuleID string
	// Start and End are byte offsets of the secret value in the text
	// (half-open); only this span is replaced.
	Start, End int
	// Line is the 1-based line of Start.
	Line       int
	Confidence Confidence
	// WholeFile says that the text is a credential as a whole (a key
	// file): the block is removed instead of redacted.
	WholeFile bool
}

// Kind separates rules by how they recognize a secret.
type Kind string

// Rule kinds.
const (
	// Prefixed: the secret carries a vendor prefix or fixed shape (ghp_,
	// AKIA, xoxb-, sk_live_, -----BEGIN … PRIVATE KEY-----). A match is
	// always reported; validators can only raise confidence.
	Prefixed Kind = "prefixed"
	// Contextual: the secret is recognized by its context (a URL's
	// userinfo, an Authorization header, password = …); allowlists of
	// provable non-secrets (placeholders, references) apply.
	Contextual Kind = "contextual"
)

// Rule is one credential type. The built-in rules are in rules.json with
// exactly these field names.
type Rule struct {
	// ID is stable, lowercase and dash-separated ("github-pat-classic").
	ID          string `json:"id"`
	Description string `json:"description"`
	Kind        Kind   `json:"kind"`
	// Keywords are lowercase literals of which at least one occurs in any
	// text the rule matches; the prefilter runs the rule only on lines
	// holding one.
	Keywords []string `json:"keywords"`
	// Regex is a Go RE2 expression matched against one line at a time
	// (unless Multiline); for a keyed rule (Key set), against the value of
	// each key/value pair whose key matches Key.
	Regex string `json:"regex"`
	// Key, when set, makes the rule keyed: a Go RE2 expression matched
	// against the keys (lower-cased, without quotes) of the pairs that
	// the key/value lexer finds on the lines holding one of the keywords,
	// in any syntax (assignments, YAML, JSON, XML, flags, headers, text
	// nested in escaped strings). Regex then applies to the pair's value
	// and SecretGroup to Regex's groups within the value.
	Key string `json:"key,omitempty"`
	// SecretGroup is the capture group holding the secret value; 0 means
	// the whole match.
	SecretGroup int `json:"secret_group,omitempty"`
	// Multiline lets the rule match across lines (private key blocks).
	// Regex then runs on the whole text when one of the keywords occurs
	// anywhere in it.
	Multiline bool `json:"multiline,omitempty"`
	// Open, for a rule that matches blocks, is a Go RE2 expression of the
	// block's opening (a BEGIN line). An Open match that no Regex match of
	// the rule covers is a block whose end is missing: it yields one
	// Uncertain finding from Open's start to the end of the text. When
	// empty, a Multiline rule with the "pem" validator uses the BEGIN line
	// of a PEM/OpenSSH/PGP private key, so that a truncated key is never
	// missed.
	Open string `json:"open,omitempty"`
	// Entropy, when > 0, is the minimum Shannon entropy (bits per byte) of
	// the secret value for a contextual match.
	Entropy float64 `json:"entropy,omitempty"`
	// Validators name structural checks ("github-crc32", "npm-crc32",
	// "jwt", "pem", "aws-account-id", …) that raise confidence.
	Validators []string `json:"validators,omitempty"`
	// Samples are checked by a test: every true positive yields a finding
	// of this rule whose value is the marked secret; no false positive
	// yields one.
	Samples Samples `json:"samples"`
}

// Samples are a rule's test data.
type Samples struct {
	// TruePositives are texts with one secret each; the secret value is
	// the part between the markers «« and »» (removed before scanning).
	TruePositives []string `json:"true_positives"`
	// FalsePositives are texts the rule must not match.
	FalsePositives []string `json:"false_positives"`
}

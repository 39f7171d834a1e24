package contextbuilder

// This file holds the four outputs of seed 002 with exactly its V1 field
// names and enums. Every slice field is encoded as [] when empty, never
// null, so that the JSON form (and therefore every fingerprint) has one
// shape.

// BlockType is a ContextBlock's block_type. Its order in [blockTypeOrder]
// is INV-CONTEXT-1's tie-break after priority.
type BlockType string

// Block types (seed 002).
const (
	BlockSystem       BlockType = "system"
	BlockConstraints  BlockType = "constraints"
	BlockProjectMeta  BlockType = "project_meta"
	BlockFile         BlockType = "file"
	BlockSymbol       BlockType = "symbol"
	BlockErrorContext BlockType = "error_context"
	BlockDiffHint     BlockType = "diff_hint"
)

// blockTypeOrder is the fixed ordering list of INV-CONTEXT-1.
var blockTypeOrder = map[BlockType]int{
	BlockSystem: 0, BlockConstraints: 1, BlockProjectMeta: 2, BlockFile: 3,
	BlockSymbol: 4, BlockErrorContext: 5, BlockDiffHint: 6,
}

// Priority is P0 (required) to P3 (optional). The string order is the
// priority order.
type Priority string

// Priorities (seed 002, Step 3).
const (
	P0 Priority = "P0"
	P1 Priority = "P1"
	P2 Priority = "P2"
	P3 Priority = "P3"
)

// Source says where a block's content comes from.
type Source string

// Block sources.
const (
	SourceIndex      Source = "index"
	SourceFilesystem Source = "filesystem"
	SourceUser       Source = "user"
	SourceSystem     Source = "system"
)

// Purpose is the kind of AI call the bundle is for.
type Purpose string

// Purposes (seed 002 scope).
const (
	PurposeIntent Purpose = "intent"
	PurposePlan   Purpose = "plan"
	PurposeDiff   Purpose = "diff"
)

// Block is a seed 002 ContextBlock.
type Block struct {
	BlockID   string    `json:"block_id"`
	BlockType BlockType `json:"block_type"`
	Priority  Priority  `json:"priority"`
	Title     string    `json:"title"`
	// Content is the text sent to the model: after slicing and
	// redaction. Empty in the fast paths (ctxd.manifest, ctxd.budget),
	// which never return a Block.
	Content string    `json:"content"`
	Meta    BlockMeta `json:"meta"`
}

// BlockMeta is a block's meta. Path, Symbol and Hash are null for blocks
// that do not come from a file (system, constraints, error context
// without a path).
type BlockMeta struct {
	Path   *string `json:"path"`
	Symbol *string `json:"symbol"`
	// Hash is the sha256 of the whole file as read (not of the slice), so
	// that a block can be checked against the workspace later.
	Hash      *string `json:"hash"`
	Encoding  string  `json:"encoding"`
	ByteSize  int64   `json:"byte_size"`
	LineCount int     `json:"line_count"`
	Source    Source  `json:"source"`
}

// Bundle is a seed 002 ContextBundle.
type Bundle struct {
	BundleID      string  `json:"bundle_id"`
	BundleVersion int     `json:"bundle_version"`
	CreatedAt     string  `json:"created_at"`
	Purpose       Purpose `json:"purpose"`
	CorrelationID string  `json:"correlation_id"`
	Model         Model   `json:"model"`
	Blocks        []Block `json:"blocks"`

	// canon is the canonical form of Blocks that bundle_fingerprint
	// hashed, for [Bundle.AppendCanonical]; nil for a bundle not made by
	// a build.
	canon *canonBlocks
}

// Model is the bundle's model and budget parameters, every field set
// (request values over config defaults).
type Model struct {
	Provider              string `json:"provider"`
	Model                 string `json:"model"`
	MaxInputTokens        int    `json:"max_input_tokens"`
	MaxOutputTokens       int    `json:"max_output_tokens"`
	ResponseTokenReserve  int    `json:"response_token_reserve"`
	SoftLimitThresholdPct int    `json:"soft_limit_threshold_pct"`
}

// Manifest is a seed 002 ContextManifest.
type Manifest struct {
	BundleID      string       `json:"bundle_id"`
	CorrelationID string       `json:"correlation_id"`
	Purpose       Purpose      `json:"purpose"`
	Selection     Selection    `json:"selection"`
	Fingerprints  Fingerprints `json:"fingerprints"`
}

// Selection is the manifest's selection: what was chosen and what was
// left out, each with its reason.
type Selection struct {
	// TargetFiles are the target paths, sorted.
	TargetFiles []string `json:"target_files"`
	// TargetSymbols are the qualified names of the target symbols, sorted.
	TargetSymbols      []string       `json:"target_symbols"`
	IncludedFiles      []IncludedFile `json:"included_files"`
	ExcludedCandidates []Excluded     `json:"excluded_candidates"`
}

// IncludeReason is why a file is in the bundle.
type IncludeReason string

// Include reasons (seed 002 ContextManifest).
const (
	ReasonTarget       IncludeReason = "target"
	ReasonDependency   IncludeReason = "dependency"
	ReasonInterface    IncludeReason = "interface"
	ReasonCaller       IncludeReason = "caller"
	ReasonBaseType     IncludeReason = "base_type"
	ReasonConfig       IncludeReason = "config"
	ReasonUserSelected IncludeReason = "user_selected"
)

// IncludedFile is one file with at least one block in the bundle, sorted
// by path.
type IncludedFile struct {
	Path     string        `json:"path"`
	Hash     string        `json:"hash"`
	Encoding string        `json:"encoding"`
	ByteSize int64         `json:"byte_size"`
	Reason   IncludeReason `json:"reason"`
}

// ExcludeReason is why a candidate is not in the bundle.
type ExcludeReason string

// Exclude reasons: seed 002's enum, plus policy (docs/contract.md, seed 001
// caps).
const (
	ExcludeDenyRule       ExcludeReason = "deny_rule"
	ExcludeBinary         ExcludeReason = "binary"
	ExcludeTooLarge       ExcludeReason = "too_large"
	ExcludeTokenBudget    ExcludeReason = "token_budget"
	ExcludeOutsideSandbox ExcludeReason = "outside_sandbox"
	ExcludeSecretRisk     ExcludeReason = "secret_risk"
	ExcludeDuplicate      ExcludeReason = "duplicate"
	ExcludePolicy         ExcludeReason = "policy"
)

// Excluded is one candidate left out, sorted by path then reason.
type Excluded struct {
	Path   string        `json:"path"`
	Reason ExcludeReason `json:"reason"`
}

// Fingerprints are the manifest's fingerprints (docs/contract.md).
type Fingerprints struct {
	ProjectIndexFingerprint string `json:"project_index_fingerprint"`
	ConfigFingerprint       string `json:"config_fingerprint"`
	BundleFingerprint       string `json:"bundle_fingerprint"`
}

// RedactionType is a redaction entry's type.
type RedactionType string

// Redaction types (seed 002 RedactionReport).
const (
	RedactPathExcluded    RedactionType = "path_excluded"
	RedactPatternRedacted RedactionType = "pattern_redacted"
	RedactBlockRemoved    RedactionType = "block_removed"
	RedactContentSliced   RedactionType = "content_sliced"
)

// RedactionReason is a redaction entry's reason.
type RedactionReason string

// Redaction reasons (seed 002 RedactionReport).
const (
	RedactReasonSecret   RedactionReason = "secret"
	RedactReasonDenyRule RedactionReason = "deny_rule"
	RedactReasonBudget   RedactionReason = "budget"
	RedactReasonBinary   RedactionReason = "binary"
	RedactReasonPolicy   RedactionReason = "policy"
)

// RedactionReport is a seed 002 RedactionReport.
type RedactionReport struct {
	BundleID   string      `json:"bundle_id"`
	Redactions []Redaction `json:"redactions"`
}

// Redaction is one exclusion, redaction, removal or slice. Details never
// hold the removed text: they name rules, line ranges and slicing levels.
type Redaction struct {
	Type RedactionType `json:"type"`
	// Target is the path concerned.
	Target  string          `json:"target"`
	Reason  RedactionReason `json:"reason"`
	Details string          `json:"details"`
}

// Decision is the budget decision.
type Decision string

// Budget decisions (seed 002 Budgeting Rules).
const (
	DecisionOK     Decision = "ok"
	DecisionWarn   Decision = "warn_soft_limit"
	DecisionRefuse Decision = "refuse_hard_limit"
)

// BudgetReport is a seed 002 BudgetReport.
type BudgetReport struct {
	BundleID             string   `json:"bundle_id"`
	EstimatedInputTokens int      `json:"estimated_input_tokens"`
	MaxInputTokens       int      `json:"max_input_tokens"`
	SoftLimitTokens      int      `json:"soft_limit_tokens"`
	HardLimitTokens      int      `json:"hard_limit_tokens"`
	ReserveOutputTokens  int      `json:"reserve_output_tokens"`
	Decision             Decision `json:"decision"`
	// Notes hold the estimator's name and version first, then warnings
	// and the fit-to-budget steps taken, in the order they happened.
	Notes []string `json:"notes"`
}

// Result is the output of ctxd.buildContext and `ctxd build --format
// json`.
type Result struct {
	Bundle          *Bundle          `json:"bundle"`
	Manifest        *Manifest        `json:"manifest"`
	RedactionReport *RedactionReport `json:"redaction_report"`
	BudgetReport    *BudgetReport    `json:"budget_report"`
}

// ManifestResult is the output of ctxd.manifest: the same selection as a
// build, without block contents.
type ManifestResult struct {
	Manifest        *Manifest        `json:"manifest"`
	RedactionReport *RedactionReport `json:"redaction_report"`
	BudgetReport    *BudgetReport    `json:"budget_report"`
}

// BudgetResult is the output of ctxd.budget.
type BudgetResult struct {
	BudgetReport *BudgetReport `json:"budget_report"`
	Counts       Counts        `json:"counts"`
}

// Counts summarizes a selection for status bars.
type Counts struct {
	// Blocks counts blocks by priority ("P0".."P3"); every priority is
	// present, zero when empty.
	Blocks      map[Priority]int `json:"blocks"`
	Files       int              `json:"files"`
	Excluded    int              `json:"excluded"`
	Redactions  int              `json:"redactions"`
	TargetFiles int              `json:"target_files"`
}

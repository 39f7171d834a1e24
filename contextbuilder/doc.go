// Package contextbuilder is the pure Context Builder of seed 002: it turns
// an index snapshot, the effective config and a build request into the
// contract's four outputs — the context bundle, its manifest, the
// redaction report and the budget report — or a refusal.
//
// It is pure and deterministic. Its only I/O is reading file text through
// the snapshot; it writes nothing. created_at is the only wall-clock
// field, and no map order, goroutine order or clock reaches an output:
// every ordering has explicit tie-breakers. It works in byte offsets and
// 1-based lines of the texts it reads: a request's ranges are carried as
// the client sent them (they enter the canonical request and so the ids),
// and the selection is given to it as a byte span ([SelectionRange.Span]).
//
// # Entry points and types
//
// [Build] (the full build), [BuildManifest] and [Budget] (two previews)
// take a [Request] — decoded strictly by the workspace layer, checked by
// [Request.Validate] — and [Options]: the [Config], the [Redactor], the
// [Policy], thread references, created_at and memos ([tokens.Cache],
// [ScanCache], [RelationCache]). They return a [Result] (the [Bundle] with its [Block]s,
// the [Manifest], the [RedactionReport] and the [BudgetReport]), a
// [ManifestResult] or a [BudgetResult], or a [*Refusal] as the error when
// the build fails closed (an ambiguous target lists its [Candidate]s).
// Output field names are exactly seed 002's V1 names; docs/contract.md
// explains every field and decision.
//
// # Steps
//
// A build runs seed 002's selection algorithm as explicit steps, each
// taking the previous step's output (pipeline.go holds the sequence, in
// env.run, and env, the read-only context the steps share):
//
//  1. candidates.go, targets.go — candidates: the explicit targets
//     resolved, looked up, read and given their regions, then the
//     related candidates from the index (dependencies, base types,
//     callers, config files) and the thread references (thread.go).
//  2. exclusions.go — exclusions: the policy's namespaces; a target
//     outside them is refused, a related candidate marked.
//  3. ranking.go — ranking: scores and tie-breakers of Step 2.
//  4. assemble.go — assembly: the blocks by priority (Step 3), the
//     fixed blocks (fixed.go) first.
//  5. fit.go — fit: the budget (Step 4), with the policy's caps
//     (policy.go).
//  6. render.go — render: the blocks in bundle order, their content
//     sliced (slice.go) and redacted (redact.go), block ids and the
//     bundle fingerprint (fingerprint.go).
//  7. reports.go — reports: the manifest, the redaction report and the
//     budget report.
//
// The previews stop or skip what their outputs do not depend on; each
// entry point's documentation says what.
//
// # Sub-packages
//
// tokens counts tokens with each model family's BPE encoding (and
// memoizes counts); secrets is the secret scanner behind the default
// Redactor; cbtest validates outputs against the JSON Schemas in tests.
package contextbuilder

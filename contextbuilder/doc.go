// Package contextbuilder turns an index snapshot, the effective config and a
// build request into the four outputs of the Context Builder contract (seed
// 002): the context bundle, its manifest, the redaction report and the
// budget report. It is pure and deterministic — no clock but created_at, no
// map or goroutine order reaches an output — and knows nothing about LSP.
//
// The entry points are [Build] (ctxd.buildContext), [BuildManifest]
// (ctxd.manifest) and [Budget] (ctxd.budget), each taking a [Request]
// (decoded strictly by [DecodeRequest]) and [Options] (the [Config], the
// [Redactor], the position encoding, memos). They return a [Result],
// [ManifestResult] or [BudgetResult], or a [*Refusal] as the error when the
// build fails closed. The outputs are [Bundle] with its [Block]s,
// [Manifest], [RedactionReport] and [BudgetReport], with exactly the seed's
// V1 field names; docs/contract.md explains every field and decision.
//
// Sub-packages: position (LSP positions ↔ byte offsets), tokens (BPE token
// counts), secrets (the secret scanner behind the default Redactor), cbtest
// (JSON Schema validation for tests).
package contextbuilder

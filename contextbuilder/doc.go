// Package contextbuilder turns an index snapshot, the effective config and a
// build request into the four outputs of the Context Builder contract (seed
// 002): the context bundle, its manifest, the redaction report and the
// budget report. It is pure and deterministic, and knows nothing about LSP.
//
// The package is laid out now so that the dependency direction
// main → server → handlers → contextbuilder → index is fixed from the first
// commit; its types arrive with the context builder issue.
package contextbuilder

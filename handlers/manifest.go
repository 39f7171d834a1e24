package handlers

import (
	"context"
	"encoding/json"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/workspace"
)

// Manifest answers ctxd.manifest: the same selection as ctxd.buildContext
// for the same request and index, as {manifest, redaction_report,
// budget_report} without block contents. Its fingerprints and ids equal
// the build's.
func Manifest(ctx context.Context, s *Session, arg json.RawMessage) (any, error) {
	return runBuilder(ctx, s, "ctxd.manifest", arg, (*workspace.Workspace).Manifest, func(r *contextbuilder.ManifestResult) []any {
		return append(manifestFields(r.Manifest), budgetFields(r.BudgetReport)...)
	})
}

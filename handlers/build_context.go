package handlers

import (
	"context"
	"encoding/json"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/workspace"
)

// BuildContext answers ctxd.buildContext: the build request in
// arguments[0] (docs/schemas/build_request.schema.json) gives
// {bundle, manifest, redaction_report, budget_report}, built from the
// index once its initial scan is done, with open documents read from the
// editor's buffer. A refusal is error -32803 with the refusal as data.
func BuildContext(ctx context.Context, s *Session, arg json.RawMessage) (any, error) {
	return runBuilder(ctx, s, "ctxd.buildContext", arg, (*workspace.Workspace).Build, func(r *contextbuilder.Result) []any {
		fields := append(manifestFields(r.Manifest), budgetFields(r.BudgetReport)...)
		if r.Bundle != nil {
			fields = append(fields, "blocks", len(r.Bundle.Blocks))
		}
		return fields
	})
}

package handlers

import (
	"context"
	"encoding/json"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/workspace"
)

// Budget answers ctxd.budget: {budget_report, counts} for the selection
// ctxd.buildContext would make, cheap enough for a status bar on every
// edit. A selection too large to build is a report with decision
// refuse_hard_limit, not an error; other refusals are errors as in
// ctxd.buildContext.
func Budget(ctx context.Context, s *Session, arg json.RawMessage) (any, error) {
	return runBuilder(ctx, s, "ctxd.budget", arg, (*workspace.Workspace).Budget, func(r *contextbuilder.BudgetResult) []any {
		return append(budgetFields(r.BudgetReport), "files", r.Counts.Files, "excluded", r.Counts.Excluded)
	})
}

package contextbuilder

import (
	"context"
	"errors"

	"github.com/ctxd/ctxd/index"
)

type mode int

const (
	modeBuild mode = iota
	modeBudget
)

type pipeline struct{}

func run(ctx context.Context, snap *index.Snapshot, req *Request, opts Options, m mode) (*pipeline, error) {
	return nil, errors.New("not implemented yet")
}

func (p *pipeline) result() *Result             { return nil }
func (p *pipeline) budgetResult() *BudgetResult { return nil }

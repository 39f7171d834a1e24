package handlers

import (
	"context"
	"encoding/json"
	"time"

	"github.com/ctxd/ctxd/workspace"
	"github.com/ctxd/ctxd/workspace/ledger"
	"go.lsp.dev/jsonrpc2"
)

type verifyArgs struct {
	// Mode is "stream" (default) or "ledger".
	Mode            ledger.Mode `json:"mode,omitempty"`
	WorkspaceFolder string      `json:"workspace_folder,omitempty"`
}

// Verify answers ctxd.verify: replays what the workspace recorded (ledger,
// audit trail, artifacts) and returns the report of `ctxd verify --json`
// (docs/schemas/verify_report.schema.json). A mismatch is data in the
// report, not an error.
func Verify(ctx context.Context, s *Session, arg json.RawMessage) (any, error) {
	start := time.Now()
	var a verifyArgs
	if !isAbsent(arg) {
		if err := decodeStrict(arg, &a); err != nil {
			return nil, err
		}
	}
	if a.Mode != "" && a.Mode != ledger.ModeStream && a.Mode != ledger.ModeLedger {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "field \"mode\": must be \"stream\" or \"ledger\", got %q", a.Mode)
	}
	dir, err := folderDir(s, a.WorkspaceFolder)
	if err != nil {
		return nil, err
	}
	rep, err := workspace.Verify(dir, a.Mode)
	if err != nil {
		return nil, buildError(s, "ctxd.verify", err, start)
	}
	s.Logger.Info("ctxd.verify", "ok", rep.OK, "mismatches", rep.Counts.Mismatches, "ledger_events", rep.Counts.LedgerEvents, "duration", time.Since(start))
	return rep, nil
}

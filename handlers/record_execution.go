package handlers

import (
	"context"
	"encoding/json"
	"time"

	"github.com/ctxd/ctxd/workspace"
)

type recordExecutionArgs struct {
	workspace.Execution
	// WorkspaceFolder names the folder whose ledger records the event;
	// optional with a single folder.
	WorkspaceFolder string `json:"workspace_folder,omitempty"`
}

// RecordExecution answers ctxd.recordExecution: {thread_id, turn_id,
// output[, workspace_folder]} appends the model's output as an EXECUTION
// event of the thread (seed 000) and returns {ref_id, event_index,
// event_digest, output_digest}; a later build declares ref_id to show the
// output to the model as the previous attempt.
func RecordExecution(ctx context.Context, s *Session, arg json.RawMessage) (any, error) {
	start := time.Now()
	var a recordExecutionArgs
	if err := decodeStrict(arg, &a); err != nil {
		return nil, err
	}
	dir, err := folderDir(s, a.WorkspaceFolder)
	if err != nil {
		return nil, err
	}
	rec, err := s.Workspaces.Get(dir).RecordExecution(ctx, a.Execution)
	if err != nil {
		return nil, buildError(s, "ctxd.recordExecution", err, start)
	}
	s.Logger.Info("ctxd.recordExecution", "event_index", rec.EventIndex, "output_digest", rec.OutputDigest, "duration", time.Since(start))
	return rec, nil
}

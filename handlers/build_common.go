package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/workspace"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// codeRefused is LSP 3.17's RequestFailed (-32803; go.lsp.dev/protocol
// v0.12.0 predates it): the request was valid but the builder refused it.
// The error's data is the [contextbuilder.Refusal].
const codeRefused jsonrpc2.Code = -32803

// builder is the shape shared by the governed builds of
// [workspace.Workspace]: Build, Manifest and Budget (method expressions),
// and renderPrompt's closure.
type builder[T any] func(*workspace.Workspace, context.Context, *index.Snapshot, *contextbuilder.Request, contextbuilder.Options) (*T, error)

// runBuilder is the plumbing of the context commands: decode arguments[0]
// strictly, then [runRequest].
func runBuilder[T any](ctx context.Context, s *Session, command string, arg json.RawMessage, build builder[T], summary func(*T) []any) (any, error) {
	start := time.Now()
	req, err := contextbuilder.DecodeRequest(arg)
	if err != nil {
		return nil, buildError(s, command, err, start)
	}
	return runRequest(ctx, s, command, req, build, summary, start)
}

// runRequest waits for the initial scan (a build right after initialize
// must not see an empty index), picks the workspace folder the request
// builds from (its config, policy and ledger, opened once), calls build on
// one snapshot with the session's options, and maps its errors to the
// wire. summary gives the log fields of a result: counts, decisions,
// fingerprints, never contents.
func runRequest[T any](ctx context.Context, s *Session, command string, req *contextbuilder.Request, build builder[T], summary func(*T) []any, start time.Time) (any, error) {
	req.ActiveFile = index.NormalizeURI(req.ActiveFile)
	if req.Selection != nil {
		req.Selection.URI = index.NormalizeURI(req.Selection.URI)
	}
	if s.RedactorErr != nil {
		return nil, buildError(s, command, &contextbuilder.Refusal{
			Code:    contextbuilder.RefuseSecretRisk,
			Message: "the secret rules could not be loaded (" + s.RedactorErr.Error() + "), so ctxd cannot prove a bundle holds no secret",
			Advice:  "fix or remove the rules file named in the message (or the --secret-rules flag), then restart ctxd",
		}, start)
	}
	s.ensureIndexing()
	snap, err := s.Index.Wait(ctx)
	if err != nil {
		return nil, buildError(s, command, err, start)
	}
	if err := checkInSync(snap.Documents()); err != nil {
		return nil, buildError(s, command, err, start)
	}
	root, err := contextbuilder.Root(snap, req)
	if err != nil {
		return nil, buildError(s, command, err, start)
	}
	res, err := build(s.Workspaces.Get(root.Root.Dir), ctx, snap, req, s.buildOptions())
	if err == nil && res == nil {
		err = errors.New("the builder returned no result and no error")
	}
	if err != nil {
		return nil, buildError(s, command, err, start)
	}
	s.Logger.Info(command, append([]any{"purpose", req.Purpose, "active_file", req.ActiveFile,
		"snapshot_version", snap.Version(), "duration", time.Since(start)}, summary(res)...)...)
	return res, nil
}

// buildOptions are the builder's options for one request: the negotiated
// position encoding, the session's token memo, and a refresh that re-reads
// files changed on disk into the index (open documents keep their buffer).
func (s *Session) buildOptions() contextbuilder.Options {
	return contextbuilder.Options{
		PositionEncoding: s.Config().Encoding,
		CreatedAt:        time.Now().UTC(),
		Tokens:           s.Tokens,
		Scans:            s.Scans,
		Redactor:         s.Redactor,
		Refresh: func(ctx context.Context, uris []string) *index.Snapshot {
			s.Index.FilesChanged(ctx, uris)
			return s.Index.Snapshot()
		},
	}
}

// checkInSync refuses to build while an open document is out of sync: its
// buffer in the editor differs from the last text ctxd could apply, and any
// file may end up in a bundle as a dependency. ContentModified (-32801)
// tells the client that reopening the document (or a full-content change)
// repairs it.
func checkInSync(o *index.Overlays) error {
	for _, uri := range o.URIs() {
		if d, _ := o.Get(uri); d.OutOfSync {
			return jsonrpc2.Errorf(protocol.CodeContentModified,
				"%s is out of sync (a change could not be applied); reopen it or send its full content before building context", uri)
		}
	}
	return nil
}

// buildError maps a builder error to the wire and logs the decision:
//   - a *contextbuilder.Refusal → RequestFailed (-32803) whose message is
//     the refusal's Error() and whose data is the refusal itself;
//   - an invalid request → InvalidParams (-32602) with the message, which
//     names the field;
//   - cancellation → the context's error, wrapped, which the server answers
//     with RequestCancelled;
//   - a *jsonrpc2.Error (from this package) → as is;
//   - anything else → InternalError without the error's text, which the
//     log keeps: an error may quote what it failed on.
func buildError(s *Session, command string, err error, start time.Time) error {
	elapsed := time.Since(start)
	var refusal *contextbuilder.Refusal
	var wire *jsonrpc2.Error
	switch {
	case errors.As(err, &refusal):
		s.Logger.Info(command+" refused", "code", refusal.Code, "duration", elapsed)
		data, merr := json.Marshal(refusal)
		if merr != nil {
			s.Logger.Error(command+": encoding the refusal failed", "code", refusal.Code, "err", merr)
			return jsonrpc2.Errorf(jsonrpc2.InternalError, "internal error in %s: the server logged the details and keeps serving", command)
		}
		raw := json.RawMessage(data)
		return &jsonrpc2.Error{Code: codeRefused, Message: refusal.Error(), Data: &raw}
	case errors.Is(err, contextbuilder.ErrInvalidRequest):
		s.Logger.Info(command+" rejected: invalid request", "duration", elapsed)
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		s.Logger.Debug(command+" cancelled", "duration", elapsed)
		return fmt.Errorf("%s: %w", command, err)
	case errors.As(err, &wire):
		s.Logger.Info(command+" rejected", "code", wire.Code, "duration", elapsed)
		return wire
	default:
		s.Logger.Error(command+" failed", "err", err, "duration", elapsed)
		return jsonrpc2.Errorf(jsonrpc2.InternalError, "internal error in %s: the server logged the details and keeps serving", command)
	}
}

// budgetFields are the log fields of a budget report.
func budgetFields(r *contextbuilder.BudgetReport) []any {
	if r == nil {
		return nil
	}
	return []any{"decision", r.Decision, "estimated_input_tokens", r.EstimatedInputTokens, "hard_limit_tokens", r.HardLimitTokens}
}

// manifestFields are the log fields of a manifest.
func manifestFields(m *contextbuilder.Manifest) []any {
	if m == nil {
		return nil
	}
	return []any{"included_files", len(m.Selection.IncludedFiles), "excluded_candidates", len(m.Selection.ExcludedCandidates),
		"bundle_fingerprint", m.Fingerprints.BundleFingerprint}
}

// folderDir picks the workspace folder of a command that names no file:
// the folder whose URI is given, else the only folder. Several folders
// and no choice is InvalidParams listing them.
func folderDir(s *Session, uri string) (string, error) {
	s.ensureIndexing()
	roots := s.Index.Snapshot().Roots()
	if uri != "" {
		uri = index.NormalizeURI(uri)
		for _, r := range roots {
			if r.Root.URI == uri {
				return r.Root.Dir, nil
			}
		}
		return "", jsonrpc2.Errorf(jsonrpc2.InvalidParams, "field \"workspace_folder\": %q is not a workspace folder of this session", uri)
	}
	switch len(roots) {
	case 0:
		return "", jsonrpc2.Errorf(jsonrpc2.InvalidParams, "no workspace folder is open")
	case 1:
		return roots[0].Root.Dir, nil
	}
	names := make([]string, len(roots))
	for i, r := range roots {
		names[i] = r.Root.URI
	}
	return "", jsonrpc2.Errorf(jsonrpc2.InvalidParams, "several workspace folders are open; name one in field \"workspace_folder\": %s", strings.Join(names, ", "))
}

package workspace

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/workspace/ledger"
)

// governed is the shape of a governed build of one folder's [Workspace]:
// Build, Manifest and Budget (method expressions), and RenderPrompt's
// closure.
type governed[T any] func(*Workspace, context.Context, *index.Snapshot, *contextbuilder.Request, contextbuilder.Options) (*T, error)

// runBuild is the life of a context command below the wire: refuse when
// the secret rules are unusable, wait for the initial scan (a build right
// after initialize must not see an empty index), refuse while a document
// is out of sync, pick the folder the request builds from (its config,
// policy and record, opened once), run build on one snapshot with the
// service's options, and log the outcome. summary gives the log fields of
// a result: counts, decisions, fingerprints, never contents.
func runBuild[T any](ctx context.Context, s *Service, c Caller, command string, req *contextbuilder.Request, build governed[T], summary func(*T) []any) (*T, error) {
	start := time.Now()
	req.ActiveFile = index.NormalizeURI(req.ActiveFile)
	if req.Selection != nil {
		req.Selection.URI = index.NormalizeURI(req.Selection.URI)
	}
	if s.redactorErr != nil {
		return nil, s.failed(command, s.rulesRefusal("a bundle holds no secret"), start)
	}
	c.ready()
	// A build waits for the folder's files to be listed, not parsed: it
	// parses what it needs itself (index.Demand).
	snap, err := s.index.WaitListed(ctx)
	if err != nil {
		return nil, s.failed(command, err, start)
	}
	snap = s.AsReceived(ctx, snap) // the open documents received before the request
	if err := checkInSync(snap.Documents()); err != nil {
		return nil, s.failed(command, err, start)
	}
	root, err := contextbuilder.Root(snap, req)
	if err != nil {
		return nil, s.failed(command, err, start)
	}
	if err := resolveSelection(snap, req, c.Positions); err != nil {
		return nil, s.failed(command, err, start)
	}
	res, err := build(s.Workspace(root.Root.Dir), ctx, snap, req, s.buildOptions())
	clientRanges(root, err, c.Positions)
	if err == nil && res == nil {
		err = errors.New("the builder returned no result and no error")
	}
	if err != nil {
		return nil, s.failed(command, err, start)
	}
	s.log.Info(command, append([]any{"purpose", req.Purpose, "active_file", req.ActiveFile,
		"snapshot_version", snap.Version(), "duration", time.Since(start)}, summary(res)...)...)
	return res, nil
}

// BuildContext is ctxd.buildContext: {bundle, manifest, redaction_report,
// budget_report}, built from the index once its initial scan is done,
// with open documents read from the editor's buffer, and recorded.
func (s *Service) BuildContext(ctx context.Context, c Caller, req *contextbuilder.Request) (*contextbuilder.Result, error) {
	return runBuild(ctx, s, c, "ctxd.buildContext", req, (*Workspace).Build, func(r *contextbuilder.Result) []any {
		fields := append(manifestFields(r.Manifest), budgetFields(r.BudgetReport)...)
		if r.Bundle != nil {
			fields = append(fields, "blocks", len(r.Bundle.Blocks))
		}
		return fields
	})
}

// Manifest is ctxd.manifest: the same selection as ctxd.buildContext for
// the same request and index, without block contents; its fingerprints
// and ids equal the build's. It records nothing.
func (s *Service) Manifest(ctx context.Context, c Caller, req *contextbuilder.Request) (*contextbuilder.ManifestResult, error) {
	return runBuild(ctx, s, c, "ctxd.manifest", req, (*Workspace).Manifest, func(r *contextbuilder.ManifestResult) []any {
		return append(manifestFields(r.Manifest), budgetFields(r.BudgetReport)...)
	})
}

// Budget is ctxd.budget: {budget_report, counts}, cheap enough for a
// status bar on every edit. A selection too large to build is a report
// with decision refuse_hard_limit, not an error.
func (s *Service) Budget(ctx context.Context, c Caller, req *contextbuilder.Request) (*contextbuilder.BudgetResult, error) {
	return runBuild(ctx, s, c, "ctxd.budget", req, (*Workspace).Budget, func(r *contextbuilder.BudgetResult) []any {
		return append(budgetFields(r.BudgetReport), "files", r.Counts.Files, "excluded", r.Counts.Excluded)
	})
}

// RenderPrompt is ctxd.renderPrompt: the build of the request rendered
// with a template into a ctxd.prompt.v1, stored as an artifact.
func (s *Service) RenderPrompt(ctx context.Context, c Caller, pr *PromptRequest) (*PromptResult, error) {
	render := func(w *Workspace, ctx context.Context, snap *index.Snapshot, req *contextbuilder.Request, opts contextbuilder.Options) (*PromptResult, error) {
		return w.RenderPrompt(ctx, snap, req, pr.TemplateID, opts)
	}
	return runBuild(ctx, s, c, "ctxd.renderPrompt", &pr.Request, render, func(r *PromptResult) []any {
		return append(manifestFields(r.Manifest), "template_id", r.Prompt.TemplateID, "prompt_artifact", r.PromptArtifact, "total_tokens", r.Prompt.TokenCounts.Total)
	})
}

// RecordExecutionArgs is ctxd.recordExecution's argument.
type RecordExecutionArgs struct {
	Execution
	// WorkspaceFolder names the folder whose ledger records the event;
	// optional with a single folder.
	WorkspaceFolder string `json:"workspace_folder,omitempty"`
}

// RecordExecution is ctxd.recordExecution: it appends the model's output
// as an EXECUTION event of the thread (seed 000).
func (s *Service) RecordExecution(ctx context.Context, c Caller, a *RecordExecutionArgs) (*Recorded, error) {
	start := time.Now()
	dir, err := s.folderDir(c, a.WorkspaceFolder)
	if err != nil {
		return nil, s.failed("ctxd.recordExecution", err, start)
	}
	rec, err := s.Workspace(dir).RecordExecution(ctx, a.Execution)
	if err != nil {
		return nil, s.failed("ctxd.recordExecution", err, start)
	}
	s.log.Info("ctxd.recordExecution", "event_index", rec.EventIndex, "output_digest", rec.OutputDigest, "duration", time.Since(start))
	return rec, nil
}

// VerifyArgs is ctxd.verify's argument; every field is optional.
type VerifyArgs struct {
	// Mode is "stream" (default) or "ledger".
	Mode            ledger.Mode `json:"mode,omitempty"`
	WorkspaceFolder string      `json:"workspace_folder,omitempty"`
}

// Validate checks the mode.
func (a *VerifyArgs) Validate() error {
	if a.Mode != "" && a.Mode != ledger.ModeStream && a.Mode != ledger.ModeLedger {
		return fmt.Errorf("field \"mode\": must be \"stream\" or \"ledger\", got %q", a.Mode)
	}
	return nil
}

// Verify is ctxd.verify: it replays what the folder recorded (ledger,
// audit trail, artifacts). A mismatch is data in the report, not an
// error.
func (s *Service) Verify(ctx context.Context, c Caller, a *VerifyArgs) (*Report, error) {
	start := time.Now()
	dir, err := s.folderDir(c, a.WorkspaceFolder)
	if err != nil {
		return nil, s.failed("ctxd.verify", err, start)
	}
	rep, err := Verify(dir, a.Mode)
	if err != nil {
		return nil, s.failed("ctxd.verify", err, start)
	}
	s.log.Info("ctxd.verify", "ok", rep.OK, "mismatches", rep.Counts.Mismatches, "ledger_events", rep.Counts.LedgerEvents, "duration", time.Since(start))
	return rep, nil
}

// folderDir picks the folder of a command that names no file: the folder
// whose URI is given, else the only folder. Several folders and no choice
// is an invalid argument listing them.
func (s *Service) folderDir(c Caller, uri string) (string, error) {
	c.ready()
	roots := s.index.Snapshot().Roots()
	if uri != "" {
		uri = index.NormalizeURI(uri)
		for _, r := range roots {
			if r.Root.URI == uri {
				return r.Root.Dir, nil
			}
		}
		return "", invalid("field \"workspace_folder\": %q is not a workspace folder of this session", uri)
	}
	switch len(roots) {
	case 0:
		return "", invalid("no workspace folder is open")
	case 1:
		return roots[0].Root.Dir, nil
	}
	names := make([]string, len(roots))
	for i, r := range roots {
		names[i] = r.Root.URI
	}
	return "", invalid("several workspace folders are open; name one in field \"workspace_folder\": %s", strings.Join(names, ", "))
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

// CheckChange is ctxd.checkChange: it checks a model's answer against the
// files it touches (the editor's buffers for open documents) and, with a
// bundle id, that bundle's manifest, and returns the verdict with the
// accepted change as a WorkspaceEdit in the client's positions; the
// editor applies it. The verdict is recorded.
func (s *Service) CheckChange(ctx context.Context, c Caller, a *CheckChangeArgs) (*CheckChangeResult, error) {
	const command = "ctxd.checkChange"
	start := time.Now()
	if s.redactorErr != nil {
		return nil, s.failed(command, s.rulesRefusal("a change adds no secret"), start)
	}
	dir, err := s.folderDir(c, a.WorkspaceFolder)
	if err != nil {
		return nil, s.failed(command, err, start)
	}
	snap := s.AsReceived(ctx, s.index.Snapshot())
	if err := checkInSync(snap.Documents()); err != nil {
		return nil, s.failed(command, err, start)
	}
	res, err := s.Workspace(dir).CheckChange(ctx, a, CheckOptions{Positions: c.Positions, Redactor: s.redactor, Documents: snap.Documents()})
	if err != nil {
		return nil, s.failed(command, err, start)
	}
	fields := []any{"status", res.Status, "format", res.Format, "files", len(res.Files), "duration", time.Since(start)}
	if res.Failure != nil {
		fields = append(fields, "code", res.Failure.Code)
	}
	s.log.Info(command, fields...)
	return res, nil
}

// rulesRefusal refuses every command that scans for secrets while the
// user's secret rules could not be loaded: ctxd cannot prove what, in
// words, it would have checked.
func (s *Service) rulesRefusal(what string) *contextbuilder.Refusal {
	return &contextbuilder.Refusal{
		Code:    contextbuilder.RefuseSecretRisk,
		Message: "the secret rules could not be loaded (" + s.redactorErr.Error() + "), so ctxd cannot prove " + what,
		Advice:  "fix or remove the rules file named in the message (or the --secret-rules flag), then restart ctxd",
	}
}

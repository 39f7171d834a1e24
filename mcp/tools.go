package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/internal/strictjson"
	"github.com/ctxd/ctxd/workspace"
	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// tool declares one MCP tool: its name and description for the agent, its
// input schema (made from the LSP command's Go types where there is one),
// which result arguments it takes, and its call, which decodes the
// arguments, calls the service and fits the result to the budget.
type tool struct {
	name, title, description string
	// readOnly tools change nothing; the others only append records
	// under .ctxd (never destructive).
	readOnly bool
	// paged tools take "page" for their long lists; detail tools take
	// "detail" (summary or full).
	paged, detail bool
	in            func() (*jsonschema.Schema, error)
	call          func(ctx context.Context, s *Server, args json.RawMessage, ra resultArgs) (*sdk.CallToolResult, error)
}

// Tool descriptions say when to call a tool in a sentence or two: they
// are sent in every conversation (tools/list), so the details live in
// docs/mcp.md and in the refusals and errors themselves.
const (
	// resultNote ends the descriptions of tools whose result is fitted to
	// max_result_tokens.
	resultNote = " Long lists are paged (\"page\": 2)."
)

// tools are the MCP tools (tools/list sorts them by name). The first eight
// are LSP commands of workspace.Commands under an agent's name; the last
// four read the workspace for an agent inside the same boundary.
var tools = []tool{
	{
		name: "build_context", title: "Build a context bundle", detail: true, paged: true,
		description: "Call before planning or writing a change instead of reading files: the context for plan_step.target_files " +
			"(or plan_step.target_symbols), budgeted, secrets redacted, recorded. Blocks over max_result_tokens are a resource link " +
			"each (resources/read). A refusal is a tool error with advice to follow.",
		in: buildRequestSchema,
		call: buildCall((*workspace.Service).BuildContext, func(s *Server, r *contextbuilder.Result, ra resultArgs) (*sdk.CallToolResult, error) {
			if r.Bundle == nil || r.Manifest == nil || r.RedactionReport == nil || r.BudgetReport == nil {
				return nil, fmt.Errorf("build_context: the builder returned an incomplete result")
			}
			return fitBuild(r, ra)
		}),
	},
	{
		name: "manifest", title: "Preview a bundle's manifest", readOnly: true, detail: true, paged: true,
		description: "What build_context would include and exclude for the same arguments, with reasons and fingerprints, " +
			"without contents or records: call it to check or explain a selection." + resultNote,
		in:   sharedRequestSchema,
		call: buildCall((*workspace.Service).Manifest, fitManifest),
	},
	{
		name: "budget", title: "Estimate a bundle's tokens", readOnly: true, detail: true, paged: true,
		description: "The token estimate of build_context's bundle for the same arguments against the model's limits " +
			"(decision ok, warn_soft_limit or refuse_hard_limit): the cheapest call to choose targets or model.max_input_tokens." + resultNote,
		in:   sharedRequestSchema,
		call: buildCall((*workspace.Service).Budget, fitBudget),
	},
	{
		name: "render_prompt", title: "Render a provider-ready prompt", detail: true, paged: true,
		description: "Build the bundle as build_context does and render it with a prompt template (template_id; the MCP prompts " +
			"list them) into [system, user] messages, recorded: call it when you send the prompt to a model yourself." + resultNote,
		in:   promptRequestSchema,
		call: promptCall,
	},
	{
		name: "record_execution", title: "Record a model's output",
		description: "Record a model's output for a thread turn built with build_context's thread {thread_id, turn_id}; once per " +
			"turn. A later build declaring execution:<turn_id> brings it back as the previous attempt.",
		in:   recordSchema,
		call: argsCall((*workspace.Service).RecordExecution, func(a *workspace.RecordExecutionArgs) string { return a.WorkspaceFolder }, nil),
	},
	{
		name: "check_change", title: "Check a model's change",
		description: "Check a model's answer (unified diff, SEARCH/REPLACE or whole files) before applying it, against its bundle " +
			"(bundle_id) or the files as they are. A rejection's failure.error_context is the last_error of the retry. Writes nothing.",
		in:   checkChangeSchema,
		call: argsCall((*workspace.Service).CheckChange, func(a *workspace.CheckChangeArgs) string { return a.WorkspaceFolder }, nil),
	},
	{
		name: "verify", title: "Verify the workspace's records", readOnly: true, paged: true,
		description: "Replay the workspace's records (ledger, audit trail, artifacts) and recompute every digest; ok is false " +
			"when anything does not verify, and mismatches come first." + resultNote,
		in:   verifySchema,
		call: argsCall((*workspace.Service).Verify, func(a *workspace.VerifyArgs) string { return a.WorkspaceFolder }, verifyPaging),
	},
	{
		name: "index_status", title: "Show the workspace index", readOnly: true, paged: true,
		description: "What ctxd indexed: state, files by language, symbols, skipped paths by reason (skipped: true lists them). " +
			"Call it when a path you expect is missing." + resultNote,
		in:   indexStatusSchema,
		call: argsCall((*workspace.Service).IndexStatus, nil, &paging{lists: []string{"index.roots.0.skipped_files"}}),
	},
	{
		name: "search_symbols", title: "Search symbols", readOnly: true, paged: true,
		description: "Find definitions by name (exact, then prefix, then substring; kind filters): path and lines of each, " +
			"to name targets for build_context or read a region with read_file.",
		in:   agentSchema[workspace.SearchSymbolsArgs](patch{path: "query", description: "A name or part of one; Type.Method works."}),
		call: argsCall((*workspace.Service).SearchSymbols, func(a *workspace.SearchSymbolsArgs) string { return a.WorkspaceFolder }, &paging{lists: []string{"symbols"}}),
	},
	{
		name: "find_references", title: "Find references", readOnly: true, paged: true,
		description: "Where a symbol is used: callers and users from ctxd's relation graph, with file, line and the enclosing symbol.",
		in:          agentSchema[workspace.FindReferencesArgs](patch{path: "path", description: "The file of the definition, when the name has several."}),
		call:        argsCall((*workspace.Service).FindReferences, func(a *workspace.FindReferencesArgs) string { return a.WorkspaceFolder }, &paging{lists: []string{"references"}}),
	},
	{
		name: "read_file", title: "Read a file, redacted", readOnly: true,
		description: "Read lines of a workspace file with every secret redacted, instead of a host's own file read. Never-send " +
			"files (.env, keys) and paths outside the root are refused with a REFUSE_* code.",
		in:   agentSchema[workspace.ReadFileArgs](patch{path: "start_line", description: "1-based, inclusive; absent: 1."}),
		call: readCall,
	},
	{
		name: "list_files", title: "List files", readOnly: true, paged: true,
		description: "List workspace files under path matching glob (\"**/*.go\"), ignore-aware; never-send and ignored paths are " +
			"named as excluded with their rule, never read.",
		in:   agentSchema[workspace.ListFilesArgs](patch{path: "path", description: "A directory, workspace-relative; absent: the root."}),
		call: argsCall((*workspace.Service).ListFiles, func(a *workspace.ListFilesArgs) string { return a.WorkspaceFolder }, &paging{lists: []string{"files", "excluded"}}),
	},
}

// readCall is read_file's call: the lines asked for, redacted; lines that
// do not fit the result budget are left for the next call, which the
// result names (never cut silently).
func readCall(ctx context.Context, s *Server, args json.RawMessage, ra resultArgs) (*sdk.CallToolResult, error) {
	if strictjson.Absent(args) {
		args = json.RawMessage("{}")
	}
	var a workspace.ReadFileArgs
	if err := workspace.DecodeStrict(args, &a); err != nil {
		return nil, err
	}
	if a.WorkspaceFolder != "" {
		return nil, invalidArgs("field %q: ctxd mcp serves one workspace folder; leave the field out", folderField)
	}
	res, err := s.svc.ReadFile(ctx, s.caller(), &a)
	if err != nil {
		return nil, err
	}
	return fitRead(res, ra), nil
}

// addTool registers t with its schema and its call wrapped in the
// failure mapping, progress and panic recovery.
func (s *Server) addTool(t tool) error {
	in, err := t.in()
	if err != nil {
		return fmt.Errorf("input schema: %w", err)
	}
	addResultArgs(in, t)
	no := false
	s.mcp.AddTool(&sdk.Tool{
		Name: t.name, Title: t.title, Description: t.description,
		InputSchema: in,
		Annotations: &sdk.ToolAnnotations{
			ReadOnlyHint: t.readOnly,
			// Records are appended, never rewritten; nothing leaves the
			// machine.
			DestructiveHint: &no, OpenWorldHint: &no,
		},
	}, s.handler(t))
	return nil
}

// handler is t's MCP handler: it takes the result arguments, runs the
// call with progress, turns its failure into a tool error
// ([Server.failure]) and recovers a panic into an internal tool error,
// so that a bug in one call never stops the server an agent relies on.
func (s *Server) handler(t tool) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (res *sdk.CallToolResult, err error) {
		start := time.Now()
		defer func() {
			if v := recover(); v != nil {
				s.log.Error("tool panicked; ctxd keeps serving", "tool", t.name, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				res, err = internalError(t.name), nil
			}
		}()
		defer s.progress(ctx, req, t.name)()
		args, ra, err := s.takeResultArgs(req.Params.Arguments, &t)
		if err == nil {
			res, err = t.call(ctx, s, args, ra)
		}
		if err != nil {
			return s.failure(t.name, err, ra)
		}
		s.log.Debug("tool call", "tool", t.name, "duration", time.Since(start))
		return res, nil
	}
}

// progress reports a call's progress to a client that asked for it (a
// progressToken in the request): once the call has run for
// s.progressAfter, then at that interval, until the returned stop is
// called. A build has no meaningful fraction done, so the progress is a
// count of intervals with a message, as the spec allows without a total.
func (s *Server) progress(ctx context.Context, req *sdk.CallToolRequest, name string) (stop func()) {
	tok := req.Params.GetProgressToken()
	if tok == nil || req.Session == nil {
		return func() {}
	}
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(s.progressAfter)
		defer tick.Stop()
		for n := 1; ; n++ {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			err := req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{
				ProgressToken: tok, Progress: float64(n),
				Message: fmt.Sprintf("%s: still working (%s)", name, (time.Duration(n) * s.progressAfter).Round(time.Millisecond)),
			})
			if err != nil {
				return
			}
		}
	}()
	return func() {
		close(done)
		<-stopped
	}
}

// buildCall is the call of a tool taking a build request: decode it
// strictly, paths only, refresh its named targets from disk, run the
// service method, fit its result.
func buildCall[R any](run func(*workspace.Service, context.Context, workspace.Caller, *contextbuilder.Request) (*R, error),
	fit func(*Server, *R, resultArgs) (*sdk.CallToolResult, error)) func(context.Context, *Server, json.RawMessage, resultArgs) (*sdk.CallToolResult, error) {
	return func(ctx context.Context, s *Server, args json.RawMessage, ra resultArgs) (*sdk.CallToolResult, error) {
		req, err := decodeRequest(args)
		if err != nil {
			return nil, err
		}
		s.refreshTargets(ctx, req)
		res, err := run(s.svc, ctx, s.caller(), req)
		if err != nil {
			return nil, err
		}
		return fit(s, res, ra)
	}
}

// promptCall is render_prompt's call: a build request plus template_id.
func promptCall(ctx context.Context, s *Server, args json.RawMessage, ra resultArgs) (*sdk.CallToolResult, error) {
	if strictjson.Absent(args) {
		args = json.RawMessage("{}")
	}
	pr, err := workspace.DecodePromptRequest(args)
	if err != nil {
		return nil, err
	}
	if err := pathsOnly(&pr.Request); err != nil {
		return nil, err
	}
	s.refreshTargets(ctx, &pr.Request)
	res, err := s.svc.RenderPrompt(ctx, s.caller(), pr)
	if err != nil {
		return nil, err
	}
	return fitPrompt(res, ra)
}

// paging names the lists of a JSON result that are paged, and how the
// result is ordered first.
type paging struct {
	lists []string
	// prepare reorders or trims the decoded result before paging (a
	// mismatch first); nil keeps it.
	prepare func(any)
}

// argsCall is the call of a tool whose argument is a plain command
// argument type A, decoded with the service's strict decoder; absent
// arguments are an empty object, and the service checks what a call
// requires. folder returns the LSP command's workspace_folder, which the
// MCP schema leaves out (one folder is served) and the call rejects. The
// result is fitted as JSON, its lists pg paged.
func argsCall[A, R any](run func(*workspace.Service, context.Context, workspace.Caller, *A) (*R, error), folder func(*A) string, pg *paging) func(context.Context, *Server, json.RawMessage, resultArgs) (*sdk.CallToolResult, error) {
	return func(ctx context.Context, s *Server, args json.RawMessage, ra resultArgs) (*sdk.CallToolResult, error) {
		if strictjson.Absent(args) {
			args = json.RawMessage("{}")
		}
		var a A
		if err := workspace.DecodeStrict(args, &a); err != nil {
			return nil, err
		}
		if folder != nil && folder(&a) != "" {
			return nil, invalidArgs("field %q: ctxd mcp serves one workspace folder; leave the field out", folderField)
		}
		res, err := run(s.svc, ctx, s.caller(), &a)
		if err != nil {
			return nil, err
		}
		if pg != nil && pg.prepare != nil {
			pg.prepare(res)
		}
		return fitJSON(ra.tool, res, pg, ra)
	}
}

// decodeRequest decodes a build request with the service's one strict
// decoder (the LSP commands'), then rejects the editor's fields.
func decodeRequest(args json.RawMessage) (*contextbuilder.Request, error) {
	if strictjson.Absent(args) {
		args = json.RawMessage("{}") // so that the error names the required "purpose"
	}
	req, err := workspace.DecodeBuildRequest(args)
	if err != nil {
		return nil, err
	}
	if err := pathsOnly(req); err != nil {
		return nil, err
	}
	return req, nil
}

// pathsOnly rejects the fields that address an editor: a document URI and
// LSP positions, whose units an agent has no way to know.
func pathsOnly(req *contextbuilder.Request) error {
	switch {
	case req.ActiveFile != "":
		return invalidArgs("field %q: MCP tools name files by path; put the file in \"plan_step.target_files\"", "active_file")
	case req.Selection != nil:
		return invalidArgs("field %q: MCP tools take no editor positions; name the lines as \"path:L1-L2\" in \"plan_step.target_files\"", "selection")
	case req.LastError != nil && req.LastError.Range != nil:
		return invalidArgs("field %q: MCP tools take no editor positions; put the location in \"last_error.message\" (\"main.go:12:5: …\")", "last_error.range")
	}
	return nil
}

// invalidArgs is an invalid argument of a tool, classified as the
// service's invalid arguments are.
func invalidArgs(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{workspace.ErrInvalidArgs}, args...)...)
}

// refreshTargets tells the index about the files a request names, as an
// editor's file watcher would: an agent writes files between calls and
// sends no notification, so a target it just created or changed is read
// from disk before the build (whether it exists, changed or is gone is
// decided by the index from the disk). A path with a line range is tried
// with and without it; the index's sandbox ignores any path outside the
// folder. Files the request does not name are refreshed by the builder
// itself when they changed on disk.
func (s *Server) refreshTargets(ctx context.Context, req *contextbuilder.Request) {
	var named []string
	if req.PlanStep != nil {
		named = append(named, req.PlanStep.TargetFiles...)
	}
	for _, t := range req.UserSelectedTargets {
		named = append(named, t.Path)
	}
	var uris []string
	for _, p := range named {
		for _, cand := range []string{p, stripRange(p)} {
			if u := s.uriOf(cand); u != "" && !slices.Contains(uris, u) {
				uris = append(uris, u)
			}
		}
	}
	if len(uris) > 0 {
		s.svc.Index().FilesChanged(ctx, uris)
	}
}

// stripRange returns p without a trailing ":L1-L2", or p.
func stripRange(p string) string {
	if i := strings.LastIndexByte(p, ':'); i > 0 {
		return p[:i]
	}
	return p
}

// uriOf returns the file URI a named path means, or "" for a path that
// cannot be inside the folder.
func (s *Server) uriOf(p string) string {
	switch {
	case p == "":
		return ""
	case strings.HasPrefix(p, "file://"):
		return p
	case filepath.IsAbs(p):
		return index.PathToURI(p)
	case filepath.IsLocal(filepath.FromSlash(p)):
		return index.PathToURI(filepath.Join(s.root, filepath.FromSlash(p)))
	}
	return ""
}

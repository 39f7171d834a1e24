package mcp

import (
	"bytes"
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
	"github.com/ctxd/ctxd/workspace/markdown"
	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// tool declares one MCP tool: its name and description for the agent, how
// its schemas are made from the LSP command's Go types, and its call,
// which decodes the arguments, calls the service and encodes the result.
type tool struct {
	name, title, description string
	// readOnly tools change nothing; the others only append records
	// under .ctxd (never destructive).
	readOnly bool
	in, out  func() (*jsonschema.Schema, error)
	// result describes the output schema: what structuredContent holds.
	result string
	call   func(ctx context.Context, s *Server, args json.RawMessage) (*sdk.CallToolResult, error)
}

// refusalHelp ends the description of every context tool: what a refusal
// is and what to do about it.
const refusalHelp = " A refusal is a tool error (isError) whose first text says the code, message and advice, and whose second text is " +
	"{\"refusal\": {code, message, advice, candidates?, budget_report?, …}} as JSON. Codes: REFUSE_AMBIGUOUS_TARGET (retry with one of " +
	"its candidates in user_selected_targets), REFUSE_CONTEXT_TOO_LARGE (fewer targets, a line range, or a larger model.max_input_tokens), " +
	"REFUSE_TARGET_NOT_FOUND, REFUSE_OUTSIDE_SANDBOX, REFUSE_UNSUPPORTED_TARGET, REFUSE_SECRET_RISK, the policy's context_* reasons and the " +
	"thread's REF_NOT_FOUND, CROSS_THREAD_REF, MAX_REFS_EXCEEDED, EMPTY_REFS_DENIED. A refusal means nothing may be sent: follow its " +
	"advice rather than reading the files another way. Invalid arguments are a tool error naming the field."

// tools are the MCP tools (tools/list sorts them by name). Each one is an
// LSP command of workspace.Commands under an agent's name.
var tools = []tool{
	{
		name:   "build_context",
		result: "ctxd.buildContext's result: {bundle, manifest, redaction_report, budget_report} (docs/contract.md).",
		title:  "Build a context bundle",
		description: "Build the context a model needs for a change in this workspace: the target files, the declarations they use, " +
			"their callers and config files, ordered by priority, sliced to the token budget, with every secret redacted. Call it " +
			"before planning or writing a change, instead of reading whole files: name the files to change in plan_step.target_files " +
			"(workspace-relative paths, \"path:L1-L2\" for a region) and/or symbols in plan_step.target_symbols. The text result is the " +
			"bundle as Markdown, to read directly; structuredContent is {bundle, manifest, redaction_report, budget_report}, the same " +
			"bytes as `ctxd build --format json` and the LSP command ctxd.buildContext. The bundle is recorded under .ctxd." + refusalHelp,
		in:   buildRequestSchema,
		out:  outputSchema[contextbuilder.Result],
		call: buildCall((*workspace.Service).BuildContext, buildResult),
	},
	{
		name:   "manifest",
		result: "ctxd.manifest's result: {manifest, redaction_report, budget_report}.",
		title:  "Preview a bundle's manifest",
		description: "What build_context would select for the same arguments, without block contents: included files with the reason " +
			"for each, excluded candidates with theirs (deny rules, secrets, budget, policy), fingerprints, and the redaction and budget " +
			"reports. Its fingerprints and ids equal build_context's. Call it to check or explain a selection before building; it records " +
			"nothing." + refusalHelp,
		readOnly: true,
		in:       buildRequestSchema,
		out:      outputSchema[contextbuilder.ManifestResult],
		call:     buildCall((*workspace.Service).Manifest, manifestResult),
	},
	{
		name:   "budget",
		result: "ctxd.budget's result: {budget_report, counts}.",
		title:  "Estimate a bundle's tokens",
		description: "The token estimate of the bundle build_context would build for the same arguments, against the soft and hard " +
			"limits (decision ok, warn_soft_limit or refuse_hard_limit), with counts of files, blocks and exclusions. The cheapest call: " +
			"use it to choose targets or a model budget. A bundle over the hard limit is a report with decision refuse_hard_limit, not " +
			"an error; it records nothing." + refusalHelp,
		readOnly: true,
		in:       buildRequestSchema,
		out:      outputSchema[contextbuilder.BudgetResult],
		call:     buildCall((*workspace.Service).Budget, jsonResult[contextbuilder.BudgetResult]),
	},
	{
		name:   "render_prompt",
		result: "ctxd.renderPrompt's result: the ctxd.prompt.v1 prompt, its and its bundle's artifacts, and the build's manifest and reports.",
		title:  "Render a provider-ready prompt",
		description: "Build the bundle as build_context does (recorded too) and render it with one of the workspace's prompt templates " +
			"into a provider-ready prompt: [system, user] messages with token counts, stored as a hash-addressed artifact under .ctxd. " +
			"Call it when you send the prompt to a model yourself. template_id picks the template (the MCP prompts list them); absent " +
			"means default-<purpose>. Template failures are refused as prompt_build_failed or prompt_write_failed." + refusalHelp,
		in:   promptRequestSchema,
		out:  outputSchema[workspace.PromptResult],
		call: promptCall,
	},
	{
		name:   "record_execution",
		result: "ctxd.recordExecution's result: the ref a later build declares (execution:<turn_id>) and the event's index and digests.",
		title:  "Record a model's output",
		description: "Record a model's output for a turn of a thread as an EXECUTION event of the workspace ledger (seed 000), after " +
			"build_context or render_prompt built that turn with thread {thread_id, turn_id}. A later build of the thread brings it back " +
			"as the previous attempt when its thread.declared_refs has execution:<turn_id>. Refused with REF_NOT_FOUND when the turn " +
			"was never built; invalid arguments are a tool error naming the field.",
		in:   recordSchema,
		out:  outputSchema[workspace.Recorded],
		call: argsCall((*workspace.Service).RecordExecution, func(a *workspace.RecordExecutionArgs) string { return a.WorkspaceFolder }),
	},
	{
		name:   "check_change",
		result: "ctxd.checkChange's result: {status, format, bundle_id?, files: [{path, action, sha256_before, sha256_after}], failure?: {code, message, advice, error_context}, recorded?}.",
		title:  "Check a model's change",
		description: "Check a model's answer before applying it: answer is the raw text (a unified diff, SEARCH/REPLACE blocks after a path " +
			"line, or whole files in fenced blocks after their path; prose is ignored). With bundle_id (from build_context) the bundle's " +
			"manifest is the reference: only its files may change, and only while their sha256 is unchanged. Checks, in order: " +
			"CHANGE_MALFORMED, CHANGE_OUTSIDE_SANDBOX, CHANGE_NEVER_SEND_PATH, CHANGE_NOT_IN_BUNDLE, CHANGE_STALE, CHANGE_CONTEXT_MISMATCH " +
			"(the failure quotes the closest lines the file has), CHANGE_AMBIGUOUS_MATCH, CHANGE_SYNTAX_ERROR, CHANGE_SECRET. A rejection " +
			"is a result (status rejected), not a tool error: pass failure.error_context as last_error to build_context and ask the " +
			"model again. Nothing is written: an accepted change gives each file's sha256 before and after; apply it with your own " +
			"edit tool or `ctxd check-change --write`. The verdict is recorded (as the EXECUTION of thread_id/turn_id when given).",
		in:   checkChangeSchema,
		out:  outputSchema[workspace.CheckChangeResult],
		call: argsCall((*workspace.Service).CheckChange, func(a *workspace.CheckChangeArgs) string { return a.WorkspaceFolder }),
	},
	{
		name:   "verify",
		result: "ctxd.verify's result: ok, the mode, counts and one check per ledger event, audit event, artifact and config.",
		title:  "Verify the workspace's records",
		description: "Replay what ctxd recorded in this workspace (the .ctxd ledger, audit trail and artifacts) and recompute every " +
			"digest. ok is false when anything does not verify, and each mismatch names its first differing field; a mismatch is data " +
			"in the report, not a tool error. Call it to prove a recorded bundle or decision was not altered. mode stream (default) " +
			"replays the ledger file, ledger verifies from SQL queries on its SQLite projection.",
		in:   verifySchema,
		out:  outputSchema[workspace.Report],
		call: argsCall((*workspace.Service).Verify, func(a *workspace.VerifyArgs) string { return a.WorkspaceFolder }),
	},
	{
		name:   "index_status",
		result: "ctxd.indexStatus's result: the server, the folder, and the index's state and counts.",
		title:  "Show the workspace index",
		description: "The workspace index ctxd builds from: state (indexing, ready, failed), files by language, symbols, skipped paths " +
			"by reason (skipped: true lists each one), snapshot version and fingerprint. Call it to check that ctxd sees the files you " +
			"expect before building, or to learn why a path is not indexed (ignored, never-send rule, binary, too large).",
		readOnly: true,
		in:       indexStatusSchema,
		out:      outputSchema[workspace.IndexStatusResult],
		call:     argsCall((*workspace.Service).IndexStatus, nil),
	},
}

// addTool registers t with its schemas and its call wrapped in the
// failure mapping and panic recovery.
func (s *Server) addTool(t tool) error {
	in, err := t.in()
	if err != nil {
		return fmt.Errorf("input schema: %w", err)
	}
	out, err := t.out()
	if err != nil {
		return fmt.Errorf("output schema: %w", err)
	}
	out.Description = t.result
	no := false
	s.mcp.AddTool(&sdk.Tool{
		Name: t.name, Title: t.title, Description: t.description,
		InputSchema: in, OutputSchema: out,
		Annotations: &sdk.ToolAnnotations{
			Title: t.title, ReadOnlyHint: t.readOnly,
			// Records are appended, never rewritten; nothing leaves the
			// machine.
			DestructiveHint: &no, OpenWorldHint: &no,
		},
	}, s.handler(t))
	return nil
}

// handler is t's MCP handler: it runs the call, turns its failure into a
// tool error ([Server.failure]) and recovers a panic into an internal
// tool error, so that a bug in one call never stops the server an agent
// relies on.
func (s *Server) handler(t tool) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (res *sdk.CallToolResult, err error) {
		start := time.Now()
		defer func() {
			if v := recover(); v != nil {
				s.log.Error("tool panicked; ctxd keeps serving", "tool", t.name, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				res, err = internalError(t.name), nil
			}
		}()
		res, err = t.call(ctx, s, req.Params.Arguments)
		if err != nil {
			return s.failure(t.name, err)
		}
		s.log.Debug("tool call", "tool", t.name, "duration", time.Since(start))
		return res, nil
	}
}

// buildCall is the call of a tool taking a build request: decode it
// strictly, paths only, refresh its named targets from disk, run the
// service method, encode its result.
func buildCall[R any](run func(*workspace.Service, context.Context, workspace.Caller, *contextbuilder.Request) (*R, error),
	encode func(*Server, *R) (*sdk.CallToolResult, error)) func(context.Context, *Server, json.RawMessage) (*sdk.CallToolResult, error) {
	return func(ctx context.Context, s *Server, args json.RawMessage) (*sdk.CallToolResult, error) {
		req, err := decodeRequest(args)
		if err != nil {
			return nil, err
		}
		s.refreshTargets(ctx, req)
		res, err := run(s.svc, ctx, s.caller(), req)
		if err != nil {
			return nil, err
		}
		return encode(s, res)
	}
}

// promptCall is render_prompt's call: a build request plus template_id.
func promptCall(ctx context.Context, s *Server, args json.RawMessage) (*sdk.CallToolResult, error) {
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
	s.remember(nil, res.Manifest.AppendCanonical(nil))
	return jsonResult(s, res)
}

// argsCall is the call of a tool whose argument is a plain command
// argument type A, decoded with the service's strict decoder; absent
// arguments are an empty object, and the service checks what a call
// requires. folder returns the LSP command's workspace_folder, which the
// MCP schema leaves out (one folder is served) and the call rejects.
func argsCall[A, R any](run func(*workspace.Service, context.Context, workspace.Caller, *A) (*R, error), folder func(*A) string) func(context.Context, *Server, json.RawMessage) (*sdk.CallToolResult, error) {
	return func(ctx context.Context, s *Server, args json.RawMessage) (*sdk.CallToolResult, error) {
		if strictjson.Absent(args) {
			args = json.RawMessage("{}")
		}
		var a A
		if err := workspace.DecodeStrict(args, &a); err != nil {
			return nil, err
		}
		if folder != nil && folder(&a) != "" {
			return nil, invalidArgs("field %q: ctxd mcp serves one workspace folder (its --root); leave the field out", folderField)
		}
		res, err := run(s.svc, ctx, s.caller(), &a)
		if err != nil {
			return nil, err
		}
		return jsonResult(s, res)
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
// service's invalid requests are.
func invalidArgs(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{contextbuilder.ErrInvalidRequest}, args...)...)
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

// buildResult encodes build_context's result: structuredContent is the
// result's canonical JSON, the bytes ctxd.buildContext replies with and
// the artifact records, and the text is its Markdown rendering, the
// document `ctxd build --format markdown` prints.
func buildResult(s *Server, r *contextbuilder.Result) (*sdk.CallToolResult, error) {
	if r.Bundle == nil || r.Manifest == nil || r.RedactionReport == nil || r.BudgetReport == nil {
		return nil, fmt.Errorf("build_context: the builder returned an incomplete result")
	}
	var md bytes.Buffer
	if err := markdown.Write(&md, r); err != nil {
		return nil, fmt.Errorf("build_context: %w", err)
	}
	s.remember(r.Bundle.AppendCanonical(nil), r.Manifest.AppendCanonical(nil))
	return &sdk.CallToolResult{
		Content:           []sdk.Content{&sdk.TextContent{Text: md.String()}},
		StructuredContent: json.RawMessage(r.AppendCanonical(nil)),
	}, nil
}

// manifestResult encodes the manifest tool's result and remembers the
// manifest for the session's resource.
func manifestResult(s *Server, r *contextbuilder.ManifestResult) (*sdk.CallToolResult, error) {
	if r.Manifest != nil {
		s.remember(nil, r.Manifest.AppendCanonical(nil))
	}
	return jsonResult(s, r)
}

// jsonResult encodes a result as structuredContent and, for a client that
// shows only text, as the same object in indented JSON.
func jsonResult[R any](_ *Server, r *R) (*sdk.CallToolResult, error) {
	text, err := indentJSON(r)
	if err != nil {
		return nil, err
	}
	return &sdk.CallToolResult{
		Content:           []sdk.Content{&sdk.TextContent{Text: text}},
		StructuredContent: json.RawMessage(compact(text)),
	}, nil
}

// indentJSON encodes v indented by two spaces, with HTML characters as
// they are (the text is read, never embedded in a page).
func indentJSON(v any) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("encoding the result: %w", err)
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil
}

// compact returns the compact form of the valid JSON text.
func compact(text string) []byte {
	var buf bytes.Buffer
	_ = json.Compact(&buf, []byte(text)) // text was just encoded
	return buf.Bytes()
}

// remember keeps the session's last bundle and manifest for the
// resources; nil leaves one as it was.
func (s *Server) remember(bundle, manifest []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if bundle != nil {
		s.last.bundle = bundle
	}
	if manifest != nil {
		s.last.manifest = manifest
	}
}

package workspace

import (
	"context"
	"encoding/json"
	"reflect"
	"time"
)

// ProtocolVersion is the version of the command protocol every front end
// speaks: the ctxd.* commands' names, arguments and results (the same
// over LSP, MCP and the CLI's JSON). It is bumped when a change would
// break a client built for the previous one; `ctxd version --json`
// reports it, and tools/gencontract gives it to the editor clients, which
// refuse a server that speaks another.
const ProtocolVersion = 1

// Command declares one ctxd command once for every front end: its wire
// name, argument and result types, title and documentation. The LSP
// front end dispatches workspace/executeCommand by it, tools/gencontract
// generates the command table of docs/protocol.md, the JSON Schemas of
// the arguments and results, and the TypeScript and Lua contracts of the
// editor clients from it, and a test fails when any of them drifts.
type Command struct {
	// Name is the wire name, e.g. "ctxd.buildContext".
	Name string
	// Title is the one-line description shown in docs and editor menus.
	Title string
	// Arg and Result are the Go types of arguments[0] and of the result.
	Arg, Result reflect.Type
	// ArgOptional reports whether arguments[0] may be absent or null.
	ArgOptional bool
	// ArgSchema and ResultSchema name the JSON Schemas of the argument
	// and the result under docs/schemas.
	ArgSchema, ResultSchema string

	invoke func(ctx context.Context, s *Service, c Caller, arg json.RawMessage) (any, error)
}

// Invoke decodes arg (arguments[0], nil when absent) strictly into the
// command's argument type and runs the command. Errors are for [Classify].
func (c Command) Invoke(ctx context.Context, s *Service, caller Caller, arg json.RawMessage) (any, error) {
	return c.invoke(ctx, s, caller, arg)
}

// declare builds a Command from its typed run function; decode turns the
// raw argument into *A (one strict decoder, see decode.go).
func declare[A, R any](name, title string, optional bool, argSchema, resultSchema string,
	decode func(json.RawMessage) (*A, error), run func(*Service, context.Context, Caller, *A) (*R, error)) Command {
	return Command{
		Name: name, Title: title, ArgOptional: optional,
		Arg: reflect.TypeFor[A](), Result: reflect.TypeFor[R](),
		ArgSchema: argSchema, ResultSchema: resultSchema,
		invoke: func(ctx context.Context, s *Service, c Caller, raw json.RawMessage) (any, error) {
			start := time.Now()
			a, err := decode(raw)
			if err != nil {
				return nil, s.failed(name, err, start)
			}
			return run(s, ctx, c, a)
		},
	}
}

// Commands lists the ctxd commands in the order they are advertised in
// executeCommandProvider.commands. A command is added here, and only here.
var Commands = []Command{
	declare("ctxd.buildContext",
		"Build context: the bundle, manifest, redaction report and budget report for a build request (purpose, active file and selection, intent, plan step, constraints, model budget); refusals are error -32803 with the reason as data",
		false, "build_request.schema.json", "build_result.schema.json", DecodeBuildRequest, (*Service).BuildContext),
	declare("ctxd.manifest",
		"Context manifest: what ctxd.buildContext would select (files with reasons, exclusions, fingerprints) and its redaction and budget reports, without block contents",
		false, "build_request.schema.json", "manifest_result.schema.json", DecodeBuildRequest, (*Service).Manifest),
	declare("ctxd.budget",
		"Context budget: the budget report (estimated tokens against the soft and hard limits, decision) and counts of a build request, cheap enough for every edit",
		false, "build_request.schema.json", "budget_result.schema.json", DecodeBuildRequest, (*Service).Budget),
	declare("ctxd.renderPrompt",
		"Render prompt: a build request plus an optional template_id gives a provider-ready ctxd.prompt.v1 ([system, user] messages from a template and the bundle) with token counts, stored as a hash-addressed artifact",
		false, "render_prompt_request.schema.json", "render_prompt_result.schema.json", DecodePromptRequest, (*Service).RenderPrompt),
	declare("ctxd.recordExecution",
		"Record execution: {thread_id, turn_id, output} appends a model's output to the thread's ledger as an EXECUTION event; later builds reference it (execution:<turn_id>) as the previous attempt",
		false, "record_execution_args.schema.json", "record_execution_result.schema.json", decodeArgs[RecordExecutionArgs](false), (*Service).RecordExecution),
	declare("ctxd.checkChange",
		"Check change: a model's raw answer (unified diff, SEARCH/REPLACE blocks or whole files), optionally with the bundle_id it answered, checked against the files it touches (sandbox, never-send paths, the bundle's files and hashes, context match, syntax, secrets); accepted gives per file the sha256 before and after and a WorkspaceEdit to apply, rejected a typed failure with an error_context for the retry",
		false, "check_change_args.schema.json", "check_change_result.schema.json", decodeArgs[CheckChangeArgs](false), (*Service).CheckChange),
	declare("ctxd.verify",
		"Verify: replay the workspace's ledger (stream or SQLite ledger mode), audit trail and artifacts, recomputing every digest; per-event ok or mismatch with the first differing field",
		true, "verify_args.schema.json", "verify_report.schema.json", decodeArgs[VerifyArgs](true), (*Service).Verify),
	declare("ctxd.indexStatus",
		"Index status: server, position encoding, folders, open documents, and the index (files by language, symbols, skipped paths by reason, snapshot version and fingerprint, indexing state)",
		true, "index_status_args.schema.json", "index_status_result.schema.json", decodeArgs[IndexStatusArgs](true), (*Service).IndexStatus),
}

// CommandNames returns the advertised command names.
func CommandNames() []string {
	names := make([]string, len(Commands))
	for i, c := range Commands {
		names[i] = c.Name
	}
	return names
}

// LookupCommand returns the command named name.
func LookupCommand(name string) (Command, bool) {
	for _, c := range Commands {
		if c.Name == name {
			return c, true
		}
	}
	return Command{}, false
}

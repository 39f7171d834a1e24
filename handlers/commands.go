package handlers

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"go.lsp.dev/jsonrpc2"
)

// Command is one ctxd command reached through workspace/executeCommand. Its
// argument is arguments[0] of the request (nil when absent).
type Command struct {
	// Name is the wire name, e.g. "ctxd.indexStatus".
	Name string
	// Title is the one-line description shown in docs and editor menus.
	Title string
	// Run answers the command.
	Run func(ctx context.Context, s *Session, arg json.RawMessage) (any, error)
}

// Commands lists the ctxd commands in the order they are advertised in
// executeCommandProvider.commands. New commands are added here, and only
// here, so the advertised list and the dispatch cannot drift apart.
var Commands = []Command{
	{Name: "ctxd.buildContext", Title: "Build context: the bundle, manifest, redaction report and budget report for a build request (purpose, active file and selection, intent, plan step, constraints, model budget); refusals are error -32803 with the reason as data", Run: BuildContext},
	{Name: "ctxd.manifest", Title: "Context manifest: what ctxd.buildContext would select (files with reasons, exclusions, fingerprints) and its redaction and budget reports, without block contents", Run: Manifest},
	{Name: "ctxd.budget", Title: "Context budget: the budget report (estimated tokens against the soft and hard limits, decision) and counts of a build request, cheap enough for every edit", Run: Budget},
	{Name: "ctxd.renderPrompt", Title: "Render prompt: a build request plus an optional template_id gives a provider-ready ctxd.prompt.v1 ([system, user] messages from a template and the bundle) with token counts, stored as a hash-addressed artifact", Run: RenderPrompt},
	{Name: "ctxd.recordExecution", Title: "Record execution: {thread_id, turn_id, output} appends a model's output to the thread's ledger as an EXECUTION event; later builds reference it (execution:<turn_id>) as the previous attempt", Run: RecordExecution},
	{Name: "ctxd.verify", Title: "Verify: replay the workspace's ledger (stream or SQLite ledger mode), audit trail and artifacts, recomputing every digest; per-event ok or mismatch with the first differing field", Run: Verify},
	{Name: "ctxd.indexStatus", Title: "Index status: server, position encoding, folders, open documents, and the index (files by language, symbols, skipped paths by reason, snapshot version and fingerprint, indexing state)", Run: IndexStatus},
}

// CommandNames returns the advertised command names.
func CommandNames() []string {
	names := make([]string, len(Commands))
	for i, c := range Commands {
		names[i] = c.Name
	}
	return names
}

type executeCommandParams struct {
	Command   *string           `json:"command"`
	Arguments []json.RawMessage `json:"arguments"`
}

func (p *executeCommandParams) validate() error {
	if p.Command == nil || *p.Command == "" {
		return missing("command")
	}
	return nil
}

// ExecuteCommand handles workspace/executeCommand by dispatching to the
// named [Command]. An unknown command is InvalidParams listing the known
// ones, since the method itself exists.
func ExecuteCommand(ctx context.Context, s *Session, raw json.RawMessage) (any, error) {
	var p executeCommandParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	i := slices.IndexFunc(Commands, func(c Command) bool { return c.Name == *p.Command })
	if i < 0 {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "unknown command %q; ctxd provides %s", *p.Command, strings.Join(CommandNames(), ", "))
	}
	var arg json.RawMessage
	if len(p.Arguments) > 0 {
		arg = p.Arguments[0]
	}
	return Commands[i].Run(ctx, s, arg)
}

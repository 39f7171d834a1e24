package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/workspace"
	"github.com/ctxd/ctxd/workspace/markdown"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Kinds of a tool error that is not a refusal, as its JSON text names
// them ({"error": {"kind", "message"}}).
const (
	kindInvalid   = "invalid_arguments"
	kindOutOfSync = "out_of_sync"
	kindInternal  = "internal"
)

// toolError is the JSON form of a tool error other than a refusal.
type toolError struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// failure turns a failed call into its MCP answer, by the service's
// classification (the LSP server and the CLI map the same kinds):
//
//   - a refusal → a tool error (isError) whose first text is the code,
//     message, advice and candidates for a reader, and whose second text
//     is {"refusal": …} as JSON, the CLI's shape, for a program;
//   - invalid arguments → a tool error whose message names the field;
//   - cancellation → a protocol error (the client stopped waiting);
//   - anything else → an internal tool error without the error's text,
//     which may quote what it failed on (the log keeps it).
//
// Tool errors carry no structuredContent: a client validates
// structuredContent against the tool's output schema, which describes a
// result.
func (s *Server) failure(tool string, err error, ra resultArgs) (*sdk.CallToolResult, error) {
	f := workspace.Classify(err)
	switch f.Kind {
	case workspace.FailRefused:
		return refusalResult(tool, f.Refusal, ra), nil
	case workspace.FailInvalid:
		return errorResult(kindInvalid, mcpMessage(f.Message)), nil
	case workspace.FailOutOfSync:
		return errorResult(kindOutOfSync, f.Message), nil
	case workspace.FailCancelled:
		return nil, fmt.Errorf("%s: %w", tool, err)
	}
	// The service logged its own failures; this one may come from the
	// encoding here.
	s.log.Error("tool failed", "tool", tool, "err", err)
	return internalError(tool), nil
}

// editorTargets is how the request's validation lists the ways to name a
// target, the editor's among them; an agent has only the tools' ways.
var editorTargets = strings.NewReplacer(
	`"plan_step", "active_file", "selection" or "user_selected_targets"`,
	`"plan_step" ("target_files" or "target_symbols") or "user_selected_targets"`,
)

// mcpMessage is an invalid-argument message in the MCP tools' terms: it
// names no editor field the tools reject.
func mcpMessage(msg string) string { return editorTargets.Replace(msg) }

// internalError is the tool error of a bug or an I/O failure.
func internalError(tool string) *sdk.CallToolResult {
	return errorResult(kindInternal, "internal error in "+tool+": ctxd logged the details and keeps serving")
}

// errorResult is a tool error of kind with message: the message as the
// first text, {"error": {kind, message}} as the second.
func errorResult(kind, message string) *sdk.CallToolResult {
	data, _ := marshal(map[string]toolError{"error": {Kind: kind, Message: message}}) // strings always encode
	return &sdk.CallToolResult{
		IsError: true,
		Content: []sdk.Content{&sdk.TextContent{Text: message}, &sdk.TextContent{Text: string(data)}},
	}
}

// refusalSummary is a refusal as a summary-detail tool error shows it:
// its code, message and advice (in MCP terms), its candidates (paged), and
// the budget figures without the notes, lists and reports that made a
// refusal tens of kilobytes.
type refusalSummary struct {
	Code       contextbuilder.RefusalCode `json:"code"`
	Message    string                     `json:"message"`
	Advice     string                     `json:"advice"`
	Candidates []contextbuilder.Candidate `json:"candidates,omitempty"`
	// BudgetReport is the refusal's budget figures, when it has them.
	BudgetReport *budgetSummary `json:"budget_report,omitempty"`
	// Redactions counts the refusal's redaction report, when it has one.
	Redactions *redactionSummary `json:"redaction_report,omitempty"`
}

// refusalResult is the tool error of a refusal, within the result budget:
// the first text for a reader, the second {"refusal": …} as JSON, the
// candidates of an ambiguous target paged. In full detail the JSON is the
// whole refusal, as the CLI prints it.
func refusalResult(tool string, r *contextbuilder.Refusal, ra resultArgs) *sdk.CallToolResult {
	r = mcpRefusal(r)
	sh := shaper{est: estimatorOf(nil), max: ra.max}
	var v any
	if ra.detail == detailFull {
		v = map[string]*contextbuilder.Refusal{"refusal": r}
	} else {
		sum := refusalSummary{Code: r.Code, Message: r.Message, Advice: r.Advice, Candidates: r.Candidates}
		if r.BudgetReport != nil {
			b := summarizeBudget(r.BudgetReport)
			sum.BudgetReport = &b
		}
		if r.RedactionReport != nil {
			rs := summarizeRedactions(r.RedactionReport)
			sum.Redactions = &rs
		}
		v = map[string]refusalSummary{"refusal": sum}
	}
	// The text repeats the candidates of the page: half the budget each.
	data, err := sh.pageJSON(v, []string{"refusal.candidates"}, ra.page, ra.max/2, nextPage(tool))
	if err != nil {
		if f := workspace.Classify(err); f.Kind == workspace.FailInvalid {
			return errorResult(kindInvalid, f.Message)
		}
		return internalError(tool)
	}
	var paged struct {
		Refusal struct {
			Candidates []contextbuilder.Candidate `json:"candidates"`
		} `json:"refusal"`
		Page pageInfo `json:"page"`
	}
	_ = json.Unmarshal(data, &paged) // just encoded
	shown := *r
	shown.Candidates = paged.Refusal.Candidates
	text := refusalText(tool, &shown)
	if paged.Page.Total > paged.Page.Shown {
		text += fmt.Sprintf("\n(candidates %d of %d shown, page %d of %d: %s)", paged.Page.Shown, paged.Page.Total, paged.Page.Page, paged.Page.Pages, paged.Page.Next)
	}
	res := &sdk.CallToolResult{
		IsError: true,
		Content: []sdk.Content{&sdk.TextContent{Text: text}, &sdk.TextContent{Text: string(data)}},
	}
	if n := sh.total(res); n > ra.max {
		return tooLarge(tool, n, ra.max, `use "detail": "summary"`)
	}
	return res
}

// refusalText is a refusal for a reader (a model): what was refused and
// why, what to do, and for an ambiguous target the candidates to retry
// with.
func refusalText(tool string, r *contextbuilder.Refusal) string {
	var b strings.Builder
	fmt.Fprintf(&b, "ctxd refused %s: %s: %s\n", tool, r.Code, markdown.OneLine(r.Message))
	if r.Advice != "" {
		fmt.Fprintf(&b, "advice: %s\n", markdown.OneLine(r.Advice))
	}
	if len(r.Candidates) > 0 {
		b.WriteString("candidates (retry the same call with one or more of them in user_selected_targets):\n")
		for _, c := range r.Candidates {
			target, _ := json.Marshal(contextbuilder.UserTarget{Path: c.Path, Symbol: c.Symbol}) // strings always encode
			fmt.Fprintf(&b, "- %s (%s, line %d)\n", target, markdown.OneLine(c.Kind), c.Range.Start.Line+1)
		}
	}
	if br := r.BudgetReport; br != nil && br.Decision == contextbuilder.DecisionRefuse {
		fmt.Fprintf(&b, "budget: %d tokens estimated, hard limit %d\n", br.EstimatedInputTokens, br.HardLimitTokens)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

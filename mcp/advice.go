package mcp

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/ctxd/ctxd/contextbuilder"
)

// An agent can only act on its tools' arguments, so a refusal's advice is
// said in them. The package that refuses says what can be done once, as
// actions (contextbuilder.Action); mcpTerms are the words MCP says them in.
// A refusal made without actions (the workspace's own, whose advice is not
// about the request's scope) keeps its advice, less any aside that names
// a command-line flag, which an agent cannot pass.

// mcpTerms are the MCP tools' words for a refusal's actions.
var mcpTerms = contextbuilder.Terms{
	Region:      "name the region to change as \"path:L1-L2\" in plan_step.target_files instead of whole files",
	Symbol:      "name the symbols to change in plan_step.target_symbols",
	Symbols:     "plan_step.target_symbols",
	Budget:      "raise model.max_input_tokens for a model with a larger input window (max_result_tokens only limits what one tool result shows, not the bundle)",
	FileSizeCap: "ask the user to raise the server's indexing size cap where ctxd mcp is configured, if the file really must be sent",
	Target:      "name the file to change in plan_step.target_files",
	Folder:      "the user starts ctxd mcp with the project folder as its root",
	Inside:      "name a file inside the workspace root by its workspace-relative path (no \"..\", no absolute path outside the root)",
	FindPath:    "relative to the workspace root, / separators; list_files shows them",
	FindSymbol:  "search_symbols finds a name from part of it; Type.Method is the qualified form",
	Pick: func(c contextbuilder.Candidate) string {
		ex, _ := json.Marshal(contextbuilder.UserTarget{Path: c.Path, Symbol: c.Symbol}) // strings always encode
		return "retry the same call with one or more of the candidates in user_selected_targets, e.g. \"user_selected_targets\": [" + string(ex) +
			"]; naming the file in plan_step.target_files also narrows the name to the definitions in that file"
	},
}

// mcpAdvice is r's advice in the MCP tools' terms.
func mcpAdvice(r *contextbuilder.Refusal) string {
	if len(r.Actions) > 0 {
		return contextbuilder.AdviceIn(r.Actions, mcpTerms)
	}
	return scrubFlags(r.Advice)
}

var (
	// flagAside is a parenthesis or a clause naming a command-line flag.
	flagAside = regexp.MustCompile(`\s*\([^()]*--[a-z][^()]*\)|;?\s*[^;,()]*--[a-z][-a-z]*[^;,()]*`)
	// cliFlag is a command-line flag.
	cliFlag = regexp.MustCompile(`(^|[\s(;,])--[a-z][-a-z]*`)
)

// scrubFlags removes the asides of an advice that name a CLI flag.
func scrubFlags(advice string) string {
	if !cliFlag.MatchString(advice) {
		return advice
	}
	out := strings.TrimSpace(flagAside.ReplaceAllString(advice, ""))
	return strings.TrimSuffix(strings.TrimSuffix(out, ","), ";")
}

// mcpRefusal is r with its advice in MCP terms.
func mcpRefusal(r *contextbuilder.Refusal) *contextbuilder.Refusal {
	cp := *r
	cp.Advice = mcpAdvice(r)
	return &cp
}

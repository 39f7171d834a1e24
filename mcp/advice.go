package mcp

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/ctxd/ctxd/contextbuilder"
)

// A refusal's advice is written once, by the package that refuses, for
// every front end: it names the request fields and the CLI's flags
// side by side. An agent can only act on its tool's arguments, so the MCP
// front end says the advice of the refusals that name flags in MCP terms
// (plan_step.target_files, plan_step.target_symbols,
// user_selected_targets, model.max_input_tokens), and removes what is
// left of a flag from any other advice.

// mcpAdvice is r's advice in the MCP tools' terms.
func mcpAdvice(r *contextbuilder.Refusal) string {
	switch r.Code {
	case contextbuilder.RefuseAmbiguousTarget:
		if len(r.Candidates) > 0 {
			c := r.Candidates[0]
			ex, _ := json.Marshal(contextbuilder.UserTarget{Path: c.Path, Symbol: c.Symbol}) // strings always encode
			return "retry the same call with one or more of the candidates in user_selected_targets, e.g. \"user_selected_targets\": [" + string(ex) +
				"]; naming the file in plan_step.target_files also narrows the name to the definitions in that file"
		}
	case contextbuilder.RefuseContextTooLarge:
		if strings.Contains(r.Message, "size cap") {
			return "name a smaller file, or the region to change as \"path:L1-L2\" in plan_step.target_files; ctxd does not index a file over the " +
				"server's size cap (the user can raise it where ctxd mcp is configured)"
		}
		return "narrow the scope: name the region to change as \"path:L1-L2\" in plan_step.target_files, or the symbols in plan_step.target_symbols, " +
			"instead of whole files; target fewer files; or raise model.max_input_tokens for a model with a larger input window. " +
			"(max_result_tokens only limits what one tool result shows, not the bundle)"
	case contextbuilder.RefuseTargetNotFound:
		return "check the paths in plan_step.target_files (relative to the workspace root, / separators; list_files shows them) and the names in " +
			"plan_step.target_symbols (search_symbols finds them; Type.Method is the qualified form); a diff needs a target that exists"
	case contextbuilder.RefuseOutsideSandbox:
		return "name a file inside the workspace root by its workspace-relative path (no \"..\", no absolute path outside the root)"
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

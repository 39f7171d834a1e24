package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/workspace"
	"github.com/ctxd/ctxd/workspace/markdown"
	"github.com/ctxd/ctxd/workspace/prompt"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// codeRefused is the JSON-RPC error code of a refused prompts/get (which,
// unlike a tool call, has no error result): LSP's RequestFailed, which
// ctxd's LSP commands answer refusals with, outside JSON-RPC's reserved
// range; the error's data is the refusal.
const codeRefused = -32803

// recoverRead turns a panic in a resource read into an internal error:
// the server keeps serving.
func (s *Server) recoverRead(res **sdk.ReadResourceResult, err *error) {
	if v := recover(); v != nil {
		s.log.Error("resource read panicked; ctxd keeps serving", "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
		*res, *err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error in resources/read: ctxd logged the details and keeps serving"}
	}
}

// readError is the JSON-RPC error of a failed resources/read: a bundle
// never recorded is not found, a refusal says its code and advice.
func (s *Server) readError(uri string, err error) error {
	f := workspace.Classify(err)
	switch f.Kind {
	case workspace.FailInvalid:
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("resource %s: %s", uri, f.Message)}
	case workspace.FailRefused:
		r := mcpRefusal(f.Refusal)
		return &jsonrpc.Error{Code: codeRefused, Message: markdown.OneLine(string(r.Code) + ": " + r.Message + "; advice: " + r.Advice)}
	case workspace.FailCancelled:
		return err
	}
	s.log.Error("resource read failed", "err", err)
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error in resources/read: ctxd logged the details and keeps serving"}
}

// Prompt arguments: strings, as MCP prompts take.
const (
	argIntent        = "intent"
	argTargetFiles   = "target_files"
	argTargetSymbols = "target_symbols"
	argSelected      = "user_selected_targets"
)

// addPrompts lists each prompt template of the workspace (the built-in
// ones and those of .ctxd/templates) as an MCP prompt of the same name.
// Getting one builds the bundle and renders it as render_prompt does.
func (s *Server) addPrompts(set *prompt.Set) {
	for _, id := range set.IDs() {
		purpose := ""
		for _, p := range []contextbuilder.Purpose{contextbuilder.PurposeIntent, contextbuilder.PurposePlan, contextbuilder.PurposeDiff} {
			if _, _, err := set.Resolve(string(p), id); err == nil {
				purpose = string(p)
				break
			}
		}
		if purpose == "" {
			continue // Resolve accepts every template of a loaded set for its purpose
		}
		s.mcp.AddPrompt(&sdk.Prompt{
			Name:  id,
			Title: fmt.Sprintf("ctxd %s prompt (%s)", purpose, id),
			Description: fmt.Sprintf("The prompt template %q (purpose %s) rendered with a fresh ctxd context bundle of this workspace, "+
				"built and recorded as render_prompt does. MCP prompts have no system role: the template's system message, which "+
				"holds the context, comes first as a user message, then its user message.", id, purpose),
			Arguments: []*sdk.PromptArgument{
				{Name: argIntent, Title: "Intent", Description: "The change wanted, in words."},
				{Name: argTargetFiles, Title: "Target files", Description: "Files to change: workspace-relative paths separated by commas, each optionally path:L1-L2.",
					Required: purpose == string(contextbuilder.PurposeDiff)},
				{Name: argTargetSymbols, Title: "Target symbols", Description: "Symbols to change, separated by commas (Type.Method for a method)."},
				{Name: argSelected, Title: "Selected targets", Description: "The answer to an ambiguous target: the refusal's candidates as a JSON array of {path, symbol}, or path#symbol separated by commas."},
			},
		}, s.promptHandler(id, contextbuilder.Purpose(purpose)))
	}
}

// promptHandler renders the template id for prompts/get.
func (s *Server) promptHandler(id string, purpose contextbuilder.Purpose) sdk.PromptHandler {
	return func(ctx context.Context, req *sdk.GetPromptRequest) (res *sdk.GetPromptResult, err error) {
		defer func() {
			if v := recover(); v != nil {
				s.log.Error("prompt panicked; ctxd keeps serving", "prompt", id, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error in prompts/get: ctxd logged the details and keeps serving"}
			}
		}()
		pr, err := promptRequest(id, purpose, req.Params.Arguments)
		if err != nil {
			return nil, s.promptError(id, err)
		}
		s.refreshTargets(ctx, &pr.Request)
		out, err := s.svc.RenderPrompt(ctx, s.caller(), pr)
		if err != nil {
			return nil, s.promptError(id, err)
		}
		res = &sdk.GetPromptResult{Description: fmt.Sprintf("ctxd prompt %s for bundle %s (%d tokens)", id, out.Prompt.BundleID, out.Prompt.TokenCounts.Total)}
		for _, m := range out.Prompt.Messages {
			res.Messages = append(res.Messages, &sdk.PromptMessage{Role: "user", Content: &sdk.TextContent{Text: m.Content}})
		}
		return res, nil
	}
}

// promptRequest turns a prompt's string arguments into render_prompt's
// request, as ctxd build turns its flags into one: the intent, and a plan
// step naming the targets.
func promptRequest(id string, purpose contextbuilder.Purpose, args map[string]string) (*workspace.PromptRequest, error) {
	for name := range args {
		switch name {
		case argIntent, argTargetFiles, argTargetSymbols, argSelected:
		default:
			return nil, invalidArgs("argument %q: the prompt takes %s, %s, %s and %s", name, argIntent, argTargetFiles, argTargetSymbols, argSelected)
		}
	}
	req := contextbuilder.Request{Purpose: purpose}
	intent := strings.TrimSpace(args[argIntent])
	if intent != "" {
		req.Intent = &contextbuilder.Intent{ID: "mcp", Text: intent}
	}
	files, symbols := splitList(args[argTargetFiles]), splitList(args[argTargetSymbols])
	if len(files) > 0 || len(symbols) > 0 {
		req.PlanStep = &contextbuilder.PlanStep{ID: "mcp", Text: intent, TargetFiles: files, TargetSymbols: symbols}
	}
	sel, err := selectedTargets(args[argSelected])
	if err != nil {
		return nil, err
	}
	req.UserSelectedTargets = sel
	if err := req.Validate(); err != nil {
		return nil, err
	}
	return &workspace.PromptRequest{Request: req, TemplateID: id}, nil
}

// selectedTargets reads the user_selected_targets prompt argument: the
// refusal's candidates as JSON ([{"path", "symbol"}], as the tools take
// them), or path#symbol entries separated by commas (as a person types
// them).
func selectedTargets(arg string) ([]contextbuilder.UserTarget, error) {
	arg = strings.TrimSpace(arg)
	if arg == "" {
		return nil, nil
	}
	if strings.HasPrefix(arg, "[") {
		var out []contextbuilder.UserTarget
		if err := workspace.DecodeStrict([]byte(arg), &out); err != nil {
			return nil, invalidArgs("argument %q: %v", argSelected, err)
		}
		return out, nil
	}
	var out []contextbuilder.UserTarget
	for _, e := range splitList(arg) {
		path, sym, ok := strings.Cut(e, "#")
		if !ok || path == "" || sym == "" {
			return nil, invalidArgs("argument %q: %q is not path#symbol", argSelected, e)
		}
		out = append(out, contextbuilder.UserTarget{Path: path, Symbol: sym})
	}
	return out, nil
}

// splitList splits a comma-separated argument, dropping blanks.
func splitList(s string) []string {
	var out []string
	for part := range strings.SplitSeq(s, ",") {
		if p := strings.TrimSpace(part); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// promptError is the JSON-RPC error of a failed prompts/get: a refusal
// with its code and the refusal as data, an invalid argument naming it,
// anything else internal.
func (s *Server) promptError(id string, err error) error {
	f := workspace.Classify(err)
	switch f.Kind {
	case workspace.FailRefused:
		r := mcpRefusal(f.Refusal)
		data, merr := json.Marshal(refusalSummary{Code: r.Code, Message: r.Message, Advice: r.Advice, Candidates: r.Candidates})
		if merr != nil {
			break
		}
		msg := f.Message
		if advice := mcpAdvice(f.Refusal); advice != "" {
			msg += "; advice: " + strings.ReplaceAll(advice, "user_selected_targets, e.g. \"user_selected_targets\": ", "the prompt argument user_selected_targets, e.g. ")
		}
		return &jsonrpc.Error{Code: codeRefused, Message: markdown.OneLine(msg), Data: data}
	case workspace.FailInvalid, workspace.FailOutOfSync:
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: f.Message}
	case workspace.FailCancelled:
		return err
	}
	s.log.Error("prompt failed", "prompt", id, "err", err)
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error in prompts/get: ctxd logged the details and keeps serving"}
}

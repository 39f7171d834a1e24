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

// The session's resources: the last bundle build_context built and the
// last manifest (of build_context, manifest or render_prompt), as the
// canonical JSON ctxd records, so that an agent can read them again
// without rebuilding.
const (
	BundleResource   = "ctxd://session/bundle.json"
	ManifestResource = "ctxd://session/manifest.json"
)

// codeRefused is the JSON-RPC error code of a refused prompts/get (which,
// unlike a tool call, has no error result): LSP's RequestFailed, which
// ctxd's LSP commands answer refusals with, outside JSON-RPC's reserved
// range; the error's data is the refusal.
const codeRefused = -32803

func (s *Server) addResources() {
	for _, r := range []struct {
		uri, name, title, description string
		get                           func(lastBuild) []byte
		missing                       string
	}{
		{BundleResource, "last-bundle", "Last context bundle",
			"The bundle of the last successful build_context of this session ({bundle_id, blocks, …}, canonical JSON).",
			func(l lastBuild) []byte { return l.bundle }, "no bundle was built in this session yet: call build_context first"},
		{ManifestResource, "last-manifest", "Last context manifest",
			"The manifest of the last successful build_context, manifest or render_prompt of this session (what was included or excluded and why, fingerprints; canonical JSON).",
			func(l lastBuild) []byte { return l.manifest }, "no manifest was computed in this session yet: call build_context or manifest first"},
	} {
		s.mcp.AddResource(&sdk.Resource{URI: r.uri, Name: r.name, Title: r.title, Description: r.description, MIMEType: "application/json"},
			func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
				s.mu.Lock()
				data := r.get(s.last)
				s.mu.Unlock()
				if data == nil {
					return nil, &jsonrpc.Error{Code: sdk.CodeResourceNotFound, Message: r.missing}
				}
				return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: r.uri, MIMEType: "application/json", Text: string(data)}}}, nil
			})
	}
}

// Prompt arguments: strings, as MCP prompts take.
const (
	argIntent        = "intent"
	argTargetFiles   = "target_files"
	argTargetSymbols = "target_symbols"
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
		s.remember(nil, out.Manifest.AppendCanonical(nil))
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
		case argIntent, argTargetFiles, argTargetSymbols:
		default:
			return nil, invalidArgs("argument %q: the prompt takes %s, %s and %s", name, argIntent, argTargetFiles, argTargetSymbols)
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
	if err := req.Validate(); err != nil {
		return nil, err
	}
	return &workspace.PromptRequest{Request: req, TemplateID: id}, nil
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
		data, merr := json.Marshal(f.Refusal)
		if merr != nil {
			break
		}
		msg := f.Message
		if f.Refusal.Advice != "" {
			msg += "; advice: " + f.Refusal.Advice
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

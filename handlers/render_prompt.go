package handlers

import (
	"context"
	"encoding/json"
	"time"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/workspace"
)

// RenderPrompt answers ctxd.renderPrompt: a build request plus an optional
// template_id gives a provider-ready ctxd.prompt.v1 ([system, user]
// messages) built from the bundle and the template, stored as an artifact
// (docs/schemas/render_prompt_result.schema.json). Refusals are as in
// ctxd.buildContext, plus prompt_build_failed and prompt_write_failed.
func RenderPrompt(ctx context.Context, s *Session, arg json.RawMessage) (any, error) {
	start := time.Now()
	req, templateID, err := workspace.DecodePromptRequest(arg)
	if err != nil {
		return nil, buildError(s, "ctxd.renderPrompt", err, start)
	}
	render := func(w *workspace.Workspace, ctx context.Context, snap *index.Snapshot, req *contextbuilder.Request, opts contextbuilder.Options) (*workspace.PromptResult, error) {
		return w.RenderPrompt(ctx, snap, req, templateID, opts)
	}
	return runRequest(ctx, s, "ctxd.renderPrompt", req, render, func(r *workspace.PromptResult) []any {
		return append(manifestFields(r.Manifest), "template_id", r.Prompt.TemplateID, "prompt_artifact", r.PromptArtifact, "total_tokens", r.Prompt.TokenCounts.Total)
	}, start)
}

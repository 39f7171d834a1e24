package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/contextbuilder/tokens"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/workspace/ledger"
	"github.com/ctxd/ctxd/workspace/prompt"
	"github.com/ctxd/ctxd/workspace/store"
)

// PromptResult is ctxd.renderPrompt's answer: the provider-ready prompt,
// where it and its bundle are stored, and the build's manifest and
// reports (the bundle itself is inside the prompt's system message).
type PromptResult struct {
	Prompt *prompt.Prompt `json:"prompt"`
	// PromptArtifact and ContextArtifact are workspace-relative paths of
	// the hash-addressed artifacts.
	PromptArtifact  string                          `json:"prompt_artifact"`
	ContextArtifact string                          `json:"context_artifact"`
	Manifest        *contextbuilder.Manifest        `json:"manifest"`
	RedactionReport *contextbuilder.RedactionReport `json:"redaction_report"`
	BudgetReport    *contextbuilder.BudgetReport    `json:"budget_report"`
}

// PromptRequest is ctxd.renderPrompt's argument: a build request with one
// more optional field, template_id (empty: the purpose's default
// template).
type PromptRequest struct {
	contextbuilder.Request
	TemplateID string `json:"template_id,omitempty"`
}

// DecodePromptRequest decodes ctxd.renderPrompt's argument: template_id is
// taken out, and the rest is decoded as a build request.
func DecodePromptRequest(raw json.RawMessage) (*PromptRequest, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return nil, fmt.Errorf("%w: arguments[0] must be a JSON object", contextbuilder.ErrInvalidRequest)
	}
	var id string
	if t, ok := obj["template_id"]; ok {
		if err := json.Unmarshal(t, &id); err != nil {
			return nil, fmt.Errorf("%w: field \"template_id\" must be a string", contextbuilder.ErrInvalidRequest)
		}
		delete(obj, "template_id")
	}
	rest, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", contextbuilder.ErrInvalidRequest, err)
	}
	req, err := DecodeBuildRequest(rest)
	if err != nil {
		return nil, err
	}
	return &PromptRequest{Request: *req, TemplateID: id}, nil
}

// RenderPrompt builds (and records) the bundle for req, then renders it
// with the template into a ctxd.prompt.v1 artifact and appends a
// prompt_built audit event. Failures of the template or its rendering are
// refused as prompt_build_failed, of storing it as prompt_write_failed.
func (w *Workspace) RenderPrompt(ctx context.Context, snap *index.Snapshot, req *contextbuilder.Request, templateID string, opts contextbuilder.Options) (*PromptResult, error) {
	if req == nil {
		return nil, fmt.Errorf("%w: the request object is missing", contextbuilder.ErrInvalidRequest)
	}
	if w.templatesErr != nil {
		return nil, w.promptFailed(req, asRefusal(w.templatesErr))
	}
	tmpl, tmplSHA, err := w.templates.Resolve(string(req.Purpose), templateID)
	if err != nil {
		return nil, w.promptFailed(req, asRefusal(err))
	}
	res, b, err := w.build(ctx, snap, req, opts)
	if err != nil {
		return nil, err
	}
	m := res.Bundle.Model
	p, err := prompt.Render(tmpl, tmplSHA, prompt.Input{
		Bundle:            res.Bundle,
		BundleFingerprint: res.Manifest.Fingerprints.BundleFingerprint,
		IntentText:        intentText(req),
		PlanStepText:      planStepText(req),
		Estimator:         tokens.ForModel(m.Model),
		HardLimit:         m.MaxInputTokens - m.ResponseTokenReserve,
	})
	if err != nil {
		return nil, w.promptFailed(req, asRefusal(err))
	}
	sha, err := w.store.Put(store.KindPrompt, p)
	if err != nil {
		return nil, w.promptFailed(req, &contextbuilder.Refusal{
			Code:    prompt.ReasonWriteFailed,
			Message: fmt.Sprintf("the prompt could not be stored: %v", err),
			Advice:  recordsAdvice + ", then retry",
		})
	}
	if err := w.audit.Append(ledger.AuditPromptBuilt, map[string]any{
		"result": "built", "template_id": p.TemplateID, "template_sha256": p.TemplateSHA256,
		"bundle_id": p.BundleID, "bundle_fingerprint": p.BundleFingerprint, "correlation_id": p.CorrelationID,
		"context_artifact_sha256": b.contextSHA, "prompt_artifact_sha256": sha, "total_tokens": p.TokenCounts.Total,
	}); err != nil {
		return nil, &contextbuilder.Refusal{Code: prompt.ReasonWriteFailed, Message: fmt.Sprintf("the prompt could not be audited: %v", err), Advice: recordsAdvice + ", then retry"}
	}
	return &PromptResult{
		Prompt: p, PromptArtifact: w.store.Path(store.KindPrompt, sha), ContextArtifact: w.store.Path(store.KindContext, b.contextSHA),
		Manifest: res.Manifest, RedactionReport: res.RedactionReport, BudgetReport: res.BudgetReport,
	}, nil
}

// promptFailed audits a failed prompt and returns the refusal.
func (w *Workspace) promptFailed(req *contextbuilder.Request, err error) error {
	if w.state() != nil {
		return err
	}
	data := map[string]any{"result": "failed", "purpose": req.Purpose}
	var ref *contextbuilder.Refusal
	if errors.As(err, &ref) {
		data["reason"] = ref.Code
	}
	_ = w.audit.Append(ledger.AuditPromptBuilt, data) // the refusal is the answer
	return err
}

func intentText(req *contextbuilder.Request) string {
	if req.Intent == nil {
		return ""
	}
	return strings.TrimSpace(req.Intent.Text)
}

func planStepText(req *contextbuilder.Request) string {
	if req.PlanStep == nil {
		return ""
	}
	return strings.TrimSpace(req.PlanStep.Text)
}

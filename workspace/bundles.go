package workspace

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/workspace/store"
)

// RecordedBundle is a bundle as the folder recorded it when it was built:
// the four outputs of the build, read back from its context artifact. The
// blocks are the bytes that were returned, redacted as they were.
type RecordedBundle struct {
	// Artifact is the sha256 of the context artifact the result was read
	// from.
	Artifact string
	contextbuilder.Result
}

// RecordedBundle reads the bundle a build of this session or an earlier
// one recorded under id, so that a front end can serve it again in parts
// (MCP's resource links) without rebuilding. An id the folder never
// recorded is an invalid argument naming bundle_id.
func (s *Service) RecordedBundle(ctx context.Context, c Caller, id string) (*RecordedBundle, error) {
	const command = "ctxd.recordedBundle"
	start := time.Now()
	dir, err := s.folderDir(c, "")
	if err != nil {
		return nil, s.failed(command, err, start)
	}
	rb, err := s.Workspace(dir).recordedBundle(id)
	if err != nil {
		return nil, s.failed(command, err, start)
	}
	return rb, nil
}

// bundleArtifact returns the sha256 and bytes of the context artifact of
// the bundle id; an id never recorded is an invalid request whose message
// ends with advice.
func (w *Workspace) bundleArtifact(id, advice string) (string, []byte, error) {
	if err := w.state(); err != nil {
		return "", nil, stateRefusal(err)
	}
	sha, err := w.audit.BundleArtifact(id)
	if err != nil {
		return "", nil, fmt.Errorf("finding bundle %s: %w", id, err)
	}
	if sha == "" {
		return "", nil, invalidRequest("field \"bundle_id\": no bundle %q is recorded for this workspace folder; %s", id, advice)
	}
	data, err := w.store.Get(store.KindContext, sha)
	if err != nil {
		return "", nil, fmt.Errorf("reading the artifact of bundle %s: %w", id, err)
	}
	return sha, data, nil
}

// recordedBundle decodes the artifact of bundle id.
func (w *Workspace) recordedBundle(id string) (*RecordedBundle, error) {
	sha, data, err := w.bundleArtifact(id, "build the context first and use the bundle_id it returned")
	if err != nil {
		return nil, err
	}
	var art contextArtifact
	if err := json.Unmarshal(data, &art); err != nil || art.Bundle == nil || art.Manifest == nil || art.RedactionReport == nil || art.BudgetReport == nil {
		return nil, fmt.Errorf("reading the artifact of bundle %s: incomplete (%v)", id, err)
	}
	return &RecordedBundle{Artifact: sha, Result: contextbuilder.Result{
		Bundle: art.Bundle, Manifest: art.Manifest, RedactionReport: art.RedactionReport, BudgetReport: art.BudgetReport,
	}}, nil
}

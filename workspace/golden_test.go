package workspace_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/contextbuilder/cbtest"
	"github.com/ctxd/ctxd/index/indextest"
	"github.com/ctxd/ctxd/workspace"
	"github.com/ctxd/ctxd/workspace/ledger"
)

var _ = indextest.UpdateFlag("the want.json sections of testdata/golden/*.txtar")

// step is one operation of a golden session: "build" and "prompt" take a
// build request (prompt also template_id), "record" an execution,
// "verify" a mode. Setup files (after-setup/<path>) are written before the
// first step, so that a case can break .ctxd after the config loaded.
type step struct {
	Op         string          `json:"op"`
	Request    json.RawMessage `json:"request,omitempty"`
	TemplateID string          `json:"template_id,omitempty"`
	Execution  json.RawMessage `json:"execution,omitempty"`
	Mode       ledger.Mode     `json:"mode,omitempty"`
}

// outcome is what a step gives, reduced to what a reader checks: the
// refusal, or the decision, blocks and exclusions of a result.
type outcome struct {
	Op       string                  `json:"op"`
	Refusal  *contextbuilder.Refusal `json:"refusal,omitempty"`
	Error    string                  `json:"error,omitempty"`
	Decision string                  `json:"decision,omitempty"`
	Blocks   []string                `json:"blocks,omitempty"`
	Excluded []string                `json:"excluded,omitempty"`
	Prompt   []string                `json:"prompt_roles,omitempty"`
	Recorded *workspace.Recorded     `json:"recorded,omitempty"`
	Verified *verifySummary          `json:"verified,omitempty"`
}

type verifySummary struct {
	OK         bool     `json:"ok"`
	Events     int      `json:"ledger_events"`
	Mismatches []string `json:"mismatches"`
}

// eventSummary is a ledger event as the golden file shows it.
type eventSummary struct {
	Index         int      `json:"event_index"`
	Kind          string   `json:"kind"`
	Thread        string   `json:"thread_id"`
	Turn          string   `json:"turn_id"`
	Result        string   `json:"result,omitempty"`
	Reason        string   `json:"reason,omitempty"`
	ResolvedRefs  []string `json:"resolved_refs,omitempty"`
	ContextDigest string   `json:"context_digest,omitempty"`
}

// TestGoldenSessions runs each testdata/golden archive (ws/… files,
// steps.json, optional after-setup/… files) as a session on one workspace
// and compares every step's outcome and the ledger with want.json.
// `go test ./workspace -run GoldenSessions -update`
// rewrites want.json.
func TestGoldenSessions(t *testing.T) {
	indextest.Goldens(t, "testdata/golden/*.txtar", func(t *testing.T, g *indextest.Golden) {
		g.Check(t, "want.json", runSession(t, g))
	})
}

func runSession(t *testing.T, g *indextest.Golden) []byte {
	t.Helper()
	var steps []step
	for _, f := range g.Archive.Files {
		switch {
		case f.Name == "steps.json":
			if err := json.Unmarshal(f.Data, &steps); err != nil {
				t.Fatalf("steps.json: %v", err)
			}
		case f.Name == "want.json", strings.HasPrefix(f.Name, "ws/"), strings.HasPrefix(f.Name, "after-setup/"):
		default:
			t.Fatalf("unknown archive file %q", f.Name)
		}
	}
	files := map[string]string{}
	for _, f := range g.Under("ws") {
		files[f.Name] = string(f.Data)
	}
	e := newEnv(t, files)
	indextest.WriteFiles(t, e.dir, g.Under("after-setup"))
	ctx := context.Background()
	var out struct {
		Steps  []outcome      `json:"steps"`
		Ledger []eventSummary `json:"ledger"`
	}
	for i, s := range steps {
		o := outcome{Op: s.Op}
		var err error
		switch s.Op {
		case "build":
			var res *contextbuilder.Result
			res, err = e.w.Build(ctx, e.x.Snapshot(), decodeRequest(t, i, s.Request), e.opts)
			if err == nil {
				o.summarize(res.Bundle, res.Manifest, res.BudgetReport)
			}
		case "prompt":
			var res *workspace.PromptResult
			res, err = e.w.RenderPrompt(ctx, e.x.Snapshot(), decodeRequest(t, i, s.Request), s.TemplateID, e.opts)
			if err == nil {
				cbtest.ValidateValue(t, "render_prompt_result.schema.json", res)
				o.summarize(nil, res.Manifest, res.BudgetReport)
				for _, m := range res.Prompt.Messages {
					o.Prompt = append(o.Prompt, m.Role)
				}
			}
		case "record":
			var ex workspace.Execution
			if err := json.Unmarshal(s.Execution, &ex); err != nil {
				t.Fatalf("step %d: %v", i, err)
			}
			o.Recorded, err = e.w.RecordExecution(ctx, ex)
		case "verify":
			var r *workspace.Report
			r, err = workspace.Verify(e.dir, s.Mode)
			if err == nil {
				v := &verifySummary{OK: r.OK, Events: r.Counts.LedgerEvents, Mismatches: []string{}}
				for _, c := range mismatches(r) {
					v.Mismatches = append(v.Mismatches, c.Source+" "+c.Field)
				}
				o.Verified = v
			}
		default:
			t.Fatalf("step %d: unknown op %q", i, s.Op)
		}
		var ref *contextbuilder.Refusal
		switch {
		case errors.As(err, &ref):
			cbtest.ValidateValue(t, "refusal.schema.json", ref)
			o.Refusal = ref
		case err != nil:
			o.Error = err.Error()
		}
		out.Steps = append(out.Steps, o)
	}
	if _, err := os.Stat(filepath.Join(e.records(), "ledger", "events.jsonl")); err == nil {
		for _, ev := range e.events() {
			s := eventSummary{Index: ev.Index, Kind: string(ev.Kind), Thread: ev.ThreadID, Turn: ev.TurnID}
			if ev.Kind == ledger.KindDecision {
				d := decision(t, ev)
				s.Result, s.Reason, s.ContextDigest = d.Result, d.Reason, d.ContextDigest
				for _, r := range d.ContextSpec.Retrieval.ResolvedRefs {
					s.ResolvedRefs = append(s.ResolvedRefs, fmt.Sprintf("%s@%d %s", r.RefID, r.EventIndex, r.AdmittedFor))
				}
			}
			out.Ledger = append(out.Ledger, s)
		}
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

func decodeRequest(t *testing.T, i int, raw json.RawMessage) *contextbuilder.Request {
	t.Helper()
	req, err := workspace.DecodeBuildRequest(raw)
	if err != nil {
		t.Fatalf("step %d: request: %v", i, err)
	}
	return req
}

// summarize keeps a result's decision, blocks (priority, type, title) and
// exclusions (path: reason).
func (o *outcome) summarize(b *contextbuilder.Bundle, m *contextbuilder.Manifest, br *contextbuilder.BudgetReport) {
	o.Decision = string(br.Decision)
	if b != nil {
		for _, blk := range b.Blocks {
			o.Blocks = append(o.Blocks, fmt.Sprintf("%s %s %s", blk.Priority, blk.BlockType, blk.Title))
		}
	}
	for _, x := range m.Selection.ExcludedCandidates {
		o.Excluded = append(o.Excluded, x.Path+": "+string(x.Reason))
	}
}

func init() { indextest.PinGoPlatform() }

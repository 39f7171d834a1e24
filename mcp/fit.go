package mcp

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/workspace"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// fitJSON is a JSON result within the budget: its compact JSON as the
// text (for a client that shows only text) and as structuredContent, the
// lists pg names paged so that both fit.
func fitJSON(tool string, v any, pg *paging, ra resultArgs) (*sdk.CallToolResult, error) {
	sh := shaper{est: estimatorOf(nil), max: ra.max}
	var lists []string
	if pg != nil {
		lists = pg.lists
	}
	// The text and the structuredContent are the same JSON: half each.
	data, err := sh.pageJSON(v, lists, ra.page, ra.max/2, nextPage(tool))
	if err != nil {
		return nil, err
	}
	res := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(data)}}, StructuredContent: json.RawMessage(data)}
	hint := ""
	if len(lists) > 0 {
		hint = "page it"
	}
	return sh.check(tool, res, hint), nil
}

// jsonText is canonical JSON bytes as a structuredContent value.
func jsonText(b []byte) json.RawMessage { return json.RawMessage(b) }

// manifestView is the manifest tool's summary: the counts, and the
// included and excluded files paged.
type manifestView struct {
	BundleID           string                        `json:"bundle_id"`
	Manifest           manifestSummary               `json:"manifest"`
	RedactionReport    redactionSummary              `json:"redaction_report"`
	BudgetReport       budgetSummary                 `json:"budget_report"`
	IncludedFiles      []contextbuilder.IncludedFile `json:"included_files"`
	ExcludedCandidates []contextbuilder.Excluded     `json:"excluded_candidates"`
}

// fitManifest is the manifest tool's result: in summary detail the
// counts by reason and the file lists paged; in full detail the LSP
// command's whole result.
func fitManifest(_ *Server, r *contextbuilder.ManifestResult, ra resultArgs) (*sdk.CallToolResult, error) {
	if r.Manifest == nil || r.RedactionReport == nil || r.BudgetReport == nil {
		return nil, fmt.Errorf("manifest: the builder returned an incomplete result")
	}
	if ra.detail == detailFull {
		return fitJSON("manifest", r, nil, ra)
	}
	v := manifestView{
		BundleID: r.Manifest.BundleID, Manifest: summarizeManifest(r.Manifest),
		RedactionReport: summarizeRedactions(r.RedactionReport), BudgetReport: summarizeBudget(r.BudgetReport),
		IncludedFiles: r.Manifest.Selection.IncludedFiles, ExcludedCandidates: r.Manifest.Selection.ExcludedCandidates,
	}
	return fitJSON("manifest", v, &paging{lists: []string{"included_files", "excluded_candidates"}}, ra)
}

// budgetView is the budget tool's summary: the report with its notes
// paged, and the counts.
type budgetView struct {
	BudgetReport budgetWithNotes       `json:"budget_report"`
	Counts       contextbuilder.Counts `json:"counts"`
}

type budgetWithNotes struct {
	budgetSummary
	NoteList []string `json:"note_list"`
}

// fitBudget is the budget tool's result, its notes paged.
func fitBudget(_ *Server, r *contextbuilder.BudgetResult, ra resultArgs) (*sdk.CallToolResult, error) {
	if r.BudgetReport == nil {
		return nil, fmt.Errorf("budget: the builder returned an incomplete result")
	}
	if ra.detail == detailFull {
		return fitJSON("budget", r, &paging{lists: []string{"budget_report.notes"}}, ra)
	}
	v := budgetView{BudgetReport: budgetWithNotes{budgetSummary: summarizeBudget(r.BudgetReport), NoteList: r.BudgetReport.Notes}, Counts: r.Counts}
	return fitJSON("budget", v, &paging{lists: []string{"budget_report.note_list"}}, ra)
}

// promptPartLines is how many lines of a message one part holds.
const promptPartLines = 20

// promptPart is a run of lines of one of a prompt's messages.
type promptPart struct {
	Message int    `json:"message"`
	Role    string `json:"role"`
	// Lines are the part's lines of the message, "first-last" (1-based).
	Lines string `json:"lines"`
	Text  string `json:"text"`
}

// promptView is render_prompt's summary: the prompt's metadata and its
// messages as parts, paged; the reports summarised.
type promptView struct {
	Prompt          promptMeta       `json:"prompt"`
	PromptArtifact  string           `json:"prompt_artifact"`
	ContextArtifact string           `json:"context_artifact"`
	Manifest        manifestSummary  `json:"manifest"`
	RedactionReport redactionSummary `json:"redaction_report"`
	BudgetReport    budgetSummary    `json:"budget_report"`
}

type promptMeta struct {
	Schema         string               `json:"schema"`
	TemplateID     string               `json:"template_id"`
	TemplateSHA256 string               `json:"template_sha256"`
	BundleID       string               `json:"bundle_id"`
	CorrelationID  string               `json:"correlation_id"`
	Purpose        string               `json:"purpose"`
	Model          contextbuilder.Model `json:"model"`
	TokenCounts    any                  `json:"token_counts"`
	// Roles are the messages' roles, in order.
	Roles []string `json:"roles"`
	// Parts are the messages' lines in parts: concatenated in order,
	// over every page, they are the messages.
	Parts []promptPart `json:"parts"`
}

// fitPrompt is render_prompt's result: in full detail the LSP command's;
// in summary detail the messages cut into parts of lines, paged, so that
// the whole prompt is read over as many pages as it needs.
func fitPrompt(r *workspace.PromptResult, ra resultArgs) (*sdk.CallToolResult, error) {
	if r.Prompt == nil || r.Manifest == nil || r.RedactionReport == nil || r.BudgetReport == nil {
		return nil, fmt.Errorf("render_prompt: the renderer returned an incomplete result")
	}
	if ra.detail == detailFull {
		return fitJSON("render_prompt", r, nil, ra)
	}
	p := r.Prompt
	meta := promptMeta{Schema: p.Schema, TemplateID: p.TemplateID, TemplateSHA256: p.TemplateSHA256, BundleID: p.BundleID,
		CorrelationID: p.CorrelationID, Purpose: p.Purpose, Model: p.Model, TokenCounts: p.TokenCounts, Parts: []promptPart{}}
	for i, m := range p.Messages {
		meta.Roles = append(meta.Roles, m.Role)
		lines := strings.SplitAfter(m.Content, "\n")
		for lo := 0; lo < len(lines); lo += promptPartLines {
			hi := min(lo+promptPartLines, len(lines))
			text := strings.Join(lines[lo:hi], "")
			if text == "" {
				continue
			}
			meta.Parts = append(meta.Parts, promptPart{Message: i, Role: m.Role, Lines: fmt.Sprintf("%d-%d", lo+1, hi), Text: text})
		}
	}
	v := promptView{Prompt: meta, PromptArtifact: r.PromptArtifact, ContextArtifact: r.ContextArtifact,
		Manifest: summarizeManifest(r.Manifest), RedactionReport: summarizeRedactions(r.RedactionReport), BudgetReport: summarizeBudget(r.BudgetReport)}
	return fitJSON("render_prompt", v, &paging{lists: []string{"prompt.parts"}}, ra)
}

// verifyPaging pages a verify report's checks, those that did not verify
// first (in their order), so that the first page shows what is wrong.
var verifyPaging = &paging{
	lists: []string{"checks"},
	prepare: func(v any) {
		if rep, ok := v.(*workspace.Report); ok {
			slices.SortStableFunc(rep.Checks, func(a, b workspace.Check) int {
				return boolRank(a.Status != workspace.StatusMismatch) - boolRank(b.Status != workspace.StatusMismatch)
			})
		}
	},
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// readView is read_file's result: the file's lines and, when the lines
// asked for do not all fit the result budget, where to go on.
type readView struct {
	*workspace.ReadFileResult
	// More says how to read the lines not shown; "" when all are.
	More string `json:"more,omitempty"`
}

// fitRead is read_file's result within the budget: the text is a header
// line and the lines, structuredContent the same as JSON; the lines that
// do not fit are left to a next call from the first of them.
func fitRead(r *workspace.ReadFileResult, ra resultArgs) *sdk.CallToolResult {
	sh := shaper{est: estimatorOf(nil), max: ra.max}
	lines := strings.SplitAfter(r.Content, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	// The content is in the text and, escaped, in the JSON: start from
	// half the room each after what the rest costs, then shrink until the
	// measured result fits (escaping costs more tokens than the text).
	bare := *r
	bare.Content = ""
	fixed := sh.countJSON(readView{ReadFileResult: &bare, More: strings.Repeat("x", 120)}) + 64
	room := (ra.max - fixed) / 2
	used, keep := 0, 0
	for _, l := range lines {
		c := sh.count(l)
		if used+c > room && keep > 0 {
			break
		}
		used += c
		keep++
	}
	for {
		res := readResult(r, lines, keep, ra.max)
		if keep <= 1 || sh.total(res) <= ra.max {
			return sh.check("read_file", res, "read fewer lines (start_line, end_line)")
		}
		keep = max(keep*9/10, 1)
	}
}

// readResult is read_file's result showing the first keep lines of r.
func readResult(r *workspace.ReadFileResult, lines []string, keep, max int) *sdk.CallToolResult {
	v := readView{ReadFileResult: r}
	if keep < len(lines) {
		cut := *r
		cut.Content = strings.Join(lines[:keep], "")
		cut.EndLine = r.StartLine + keep - 1
		v = readView{ReadFileResult: &cut, More: fmt.Sprintf("lines %d-%d not shown (max_result_tokens %d): call read_file with start_line %d", cut.EndLine+1, r.EndLine, max, cut.EndLine+1)}
	}
	data, err := marshal(v)
	if err != nil {
		return internalError("read_file")
	}
	head := fmt.Sprintf("%s, lines %d-%d of %d, sha256 %s", v.Path, v.StartLine, v.EndLine, v.TotalLines, v.SHA256)
	if v.More != "" {
		head += "; " + v.More
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: head + "\n\n" + v.Content}}, StructuredContent: json.RawMessage(data)}
}

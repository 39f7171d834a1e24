package contextbuilder_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/contextbuilder/cbtest"
)

// TestLongListsGrouped: a target with more callers than fit leaves them
// out as token_budget candidates; past the threshold the manifest and the
// redaction report group them by directory, the outputs stay valid, and
// the groups account for every caller.
func TestLongListsGrouped(t *testing.T) {
	const callers = 150
	files := []wsFile{
		{path: "go.mod", data: []byte("module example.com/m\n\ngo 1.22\n")},
		{path: "lib/lib.go", data: []byte("package lib\n\n// F is called everywhere.\nfunc F() int { return 1 }\n")},
	}
	for i := range callers {
		// Two directories per group of ten: groups of several entries.
		files = append(files, wsFile{
			path: fmt.Sprintf("c%02d/u%03d.go", i/10, i),
			data: []byte(fmt.Sprintf("package c%02d\n\nimport \"example.com/m/lib\"\n\n// U%03d uses F and carries some text to count: %s\nfunc U%03d() int { return lib.F() }\n", i/10, i, strings.Repeat("filler ", 40), i)),
		})
	}
	root := tempRoot(t)
	(&genWS{}).write(t, root, files)
	budget, reserve := 2500, 500
	req := &contextbuilder.Request{
		Purpose:  contextbuilder.PurposeDiff,
		PlanStep: &contextbuilder.PlanStep{ID: "s", TargetFiles: []string{"lib/lib.go"}},
		Model:    &contextbuilder.ModelRequest{MaxInputTokens: &budget, ResponseTokenReserve: &reserve},
	}
	res, err := contextbuilder.Build(context.Background(), indexDir(t, root).Snapshot(), req, contextbuilder.Options{CreatedAt: goldenTime})
	if err != nil {
		t.Fatal(err)
	}
	cbtest.ValidateValue(t, "build_result.schema.json", res)
	checkCanonical(t, res)

	ex := res.Manifest.Selection.ExcludedCandidates
	left, groups := 0, 0
	for _, e := range ex {
		if e.Reason != contextbuilder.ExcludeTokenBudget {
			continue
		}
		left += e.Count()
		if e.Count() > 1 {
			groups++
		}
	}
	included := len(res.Manifest.Selection.IncludedFiles) - 1 // the target
	if left+included < callers || groups == 0 || len(ex) > 100 {
		t.Errorf("%d excluded entries (%d groups) standing for %d callers, %d callers included; want groups accounting for all %d callers in at most 100 entries:\n%v", len(ex), groups, left, included, callers, ex)
	}
	removed := 0
	for _, r := range res.RedactionReport.Redactions {
		if r.Type == contextbuilder.RedactBlockRemoved {
			removed += r.Count()
		}
	}
	if removed != left {
		t.Errorf("the redaction report's block_removed entries stand for %d removals, the manifest's for %d", removed, left)
	}
}

// TestSlicedSymbol: a content_sliced entry names the block it is about,
// so that a summary shows each block its own slice (issue 32, item 15).
func TestSlicedSymbol(t *testing.T) {
	sliced := func(details string) contextbuilder.Redaction {
		return contextbuilder.Redaction{Type: contextbuilder.RedactContentSliced, Target: "h.go", Reason: contextbuilder.RedactReasonBudget, Details: details}
	}
	tests := []struct {
		name   string
		red    contextbuilder.Redaction
		symbol string
		ok     bool
	}{
		{"symbol block", sliced("dependency Header.Add: SIGNATURES_ONLY, line 30 of 274"), "Header.Add", true},
		{"declaration only", sliced("caller nop: declaration only, line 2788 of 3278"), "nop", true},
		{"file block", sliced("TARGET_REGION_ONLY: target, lines 554-593 of 1053"), "", true},
		{"group", contextbuilder.Redaction{Type: contextbuilder.RedactContentSliced, Target: "dir/*", Details: "120 entries grouped (more than 100 content_sliced entries with reason budget are grouped by directory); first: dependency A: SIGNATURES_ONLY"}, "", false},
		{"not sliced", contextbuilder.Redaction{Type: contextbuilder.RedactBlockRemoved, Details: "dependency A: removed"}, "", false},
		{"no level", sliced("SIGNATURES_ONLY"), "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sym, ok := contextbuilder.SlicedSymbol(tt.red)
			if diff := cmp.Diff([]any{tt.symbol, tt.ok}, []any{sym, ok}); diff != "" {
				t.Errorf("SlicedSymbol(%q) (-want +got):\n%s", tt.red.Details, diff)
			}
		})
	}
}

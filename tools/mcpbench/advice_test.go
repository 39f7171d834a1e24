package main

import (
	"strings"
	"testing"
)

func TestAdviceHits(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string // the matches, in order
	}{
		// ctxd's own advice texts, as the CLI-minded builder wrote them.
		{"choose one of the candidates and retry with it selected by path and qualified name: on the command line add --select PATH#SYMBOL (e.g. --select a/a.go#Handle), over LSP or MCP add it to user_selected_targets",
			[]string{"--select"}},
		{"narrow the scope: select a region or name a symbol instead of whole files (on the command line --target PATH:L1-L2 or --symbol NAME; in a request selection or plan_step.target_symbols), target fewer files, or use a model with a larger input window (model.max_input_tokens; --max-input-tokens)",
			[]string{"--target", "--symbol", "--max-input-tokens"}},
		{"check the path (relative to the workspace folder; on the command line, to --root)", []string{"--root"}},
		{"single-dash flags count too: -target x.go", []string{"-target"}},
		{"--target=x.go", []string{"--target"}},
		{"(--symbol)", []string{"--symbol"}},
		// Editor fields.
		{`field "active_file": MCP tools name files by path`, []string{"active_file"}},
		{"set active_file to the document", []string{"active_file"}},
		{`field "selection": MCP tools take no editor positions`, []string{`"selection"`}},
		{"put the range in `selection`", []string{"`selection`"}},
		{"selection: {uri, range}", []string{"selection:"}},
		{"the request.selection range", []string{"t.selection"}},
		{"selection.range.start", []string{"selection.r"}},
		// Ordinary words and allowed names.
		{"select a region or name a symbol", nil},
		{"make a selection in the editor, then retry.", nil},
		{"retry with the candidate in user_selected_targets", nil},
		{"plan_step.target_files and plan_step.target_symbols", nil},
		{"a larger model.max_input_tokens", nil},
		{"runs as non-root; re-select the file; sub-symbol", nil},
		{"--targets is not a flag of ctxd", nil},
		{"inactive_files", nil},
	} {
		hits := adviceHits(c.text)
		var got []string
		for _, h := range hits {
			got = append(got, h.Match)
			if !strings.Contains(h.Near, strings.TrimSpace(h.Match)) {
				t.Errorf("%q: Near %q does not show %q", c.text, h.Near, h.Match)
			}
		}
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("adviceHits(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestAdviceHitsOnce(t *testing.T) {
	// The refusal's two texts (for a reader, and as JSON) say the same
	// advice: one name is one hit.
	text := "advice: add --select PATH#SYMBOL (e.g. --select a.go#F)\n{\"advice\": \"add --select PATH#SYMBOL\"}"
	if got := adviceHits(text); len(got) != 1 {
		t.Errorf("%d hits, want 1: %+v", len(got), got)
	}
}

func TestNear(t *testing.T) {
	text := "ééé alpha --select beta\ngamma"
	i := strings.Index(text, "--select")
	// 8 bytes before the match fall in the middle of an é, which is kept
	// whole; the newline becomes a space.
	if got := near(text, i, i+len("--select"), 8); got != "…é alpha --select beta ga…" {
		t.Errorf("near = %q", got)
	}
	// 11 bytes reach the start of an é and the end of the text.
	if got := near(text, i, i+len("--select"), 11); got != "…éé alpha --select beta gamma" {
		t.Errorf("near = %q", got)
	}
	if got := near("--root", 0, 6, 10); got != "--root" {
		t.Errorf("near = %q", got)
	}
}

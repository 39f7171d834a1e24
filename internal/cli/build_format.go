package cli

// The human renderer of `ctxd build --format summary` (--format markdown
// is workspace/markdown's, shared with MCP's build_context). It is a pure
// function of the build result, so the same result prints the same bytes;
// created_at is the only field that varies between two builds of the same
// inputs.

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/workspace"
	"github.com/ctxd/ctxd/workspace/markdown"
)

// formatSummary writes a compact human report of r for someone who has
// never read the contract: the decision and token counts, one line per
// block, what was left out and why (each path once, with the rule in
// words), what was changed inside sent blocks, where the build was
// recorded (under root, as the user wrote it; "" leaves the line out) and
// the fingerprints, each said in words.
func formatSummary(w io.Writer, r *contextbuilder.Result, root string) error {
	bw := bufio.NewWriter(w)
	b, m, rr, br := r.Bundle, r.Manifest, r.RedactionReport, r.BudgetReport

	fmt.Fprintf(bw, "ctxd build: %s bundle for %s, %d blocks\n", markdown.OneLine(string(b.Purpose)), markdown.ModelName(b.Model), len(b.Blocks))
	fmt.Fprintf(bw, "decision:  %s\n", decisionText(br.Decision))
	fmt.Fprintf(bw, "tokens:    %d estimated; soft limit %d, hard limit %d (max input %d - reserve %d)\n",
		br.EstimatedInputTokens, br.SoftLimitTokens, br.HardLimitTokens, br.MaxInputTokens, br.ReserveOutputTokens)
	var notes []string
	estimator := ""
	for _, n := range br.Notes {
		if rest, ok := strings.CutPrefix(n, "estimator:"); ok && estimator == "" {
			estimator = strings.TrimSpace(rest)
			continue
		}
		notes = append(notes, n)
	}
	if estimator != "" {
		fmt.Fprintf(bw, "estimator: %s\n", markdown.OneLine(estimator))
	}
	for _, n := range notes {
		fmt.Fprintf(bw, "note:      %s\n", markdown.OneLine(n))
	}

	reasons := map[string]contextbuilder.IncludeReason{}
	for _, f := range m.Selection.IncludedFiles {
		reasons[f.Path] = f.Reason
	}
	// Each block shows its own slice: a symbol block the entry of its
	// symbol, a file block the entry of the file's block. An entry that
	// names no block (a group of entries) is shown on every block of its
	// file.
	type blockKey struct{ path, symbol string }
	sliced := map[blockKey][]string{}
	for _, red := range rr.Redactions {
		if red.Type != contextbuilder.RedactContentSliced {
			continue
		}
		k, d := blockKey{path: red.Target, symbol: "*"}, red.Details
		if sym, ok := contextbuilder.SlicedSymbol(red); ok {
			k.symbol = sym
			if sym != "" {
				// "dependency Header.Add: SIGNATURES_ONLY, …": the row
				// names the symbol already.
				_, d, _ = strings.Cut(d, ": ")
			}
		}
		sliced[k] = append(sliced[k], markdown.OneLine(d))
	}
	fmt.Fprintf(bw, "\nblocks (%d):\n", len(b.Blocks))
	var rows [][]string
	for _, blk := range b.Blocks {
		label, extra := markdown.OneLine(blk.Title), ""
		if blk.Meta.Path != nil {
			label = markdown.OneLine(*blk.Meta.Path)
			if reason, ok := reasons[*blk.Meta.Path]; ok {
				extra = "(" + markdown.OneLine(string(reason)) + ")"
			}
			sym := ""
			if blk.Meta.Symbol != nil {
				sym = *blk.Meta.Symbol
			}
			s := append(slices.Clone(sliced[blockKey{*blk.Meta.Path, sym}]), sliced[blockKey{*blk.Meta.Path, "*"}]...)
			if len(s) > 0 {
				extra = strings.TrimSpace(extra + " sliced: " + strings.Join(s, "; "))
			}
		}
		if blk.Meta.Symbol != nil {
			label += " " + markdown.OneLine(*blk.Meta.Symbol)
		}
		rows = append(rows, []string{markdown.OneLine(string(blk.Priority)), markdown.OneLine(string(blk.BlockType)), label, fmt.Sprintf("%d bytes", len(blk.Content)), extra})
	}
	writeTable(bw, rows)

	// An exclusion is recorded twice, in the manifest (path and reason)
	// and in the redaction report (the rule or limit that decided): it is
	// shown once, with both. A path left out for the budget may have had
	// several blocks removed, and other blocks of it may be sent: its line
	// says how many were removed and that the others are sent.
	details := map[string]string{}
	removals := map[string]int{}
	folded := make([]bool, len(rr.Redactions))
	excluded := map[string]bool{}
	for _, e := range m.Selection.ExcludedCandidates {
		excluded[e.Path] = true
	}
	sent := map[string]bool{}
	for _, blk := range b.Blocks {
		if blk.Meta.Path != nil && blk.BlockType != contextbuilder.BlockErrorContext {
			sent[*blk.Meta.Path] = true
		}
	}
	nFolded := 0
	for i, red := range rr.Redactions {
		if excluded[red.Target] && (red.Type == contextbuilder.RedactPathExcluded || red.Type == contextbuilder.RedactBlockRemoved) {
			if _, seen := details[red.Target]; !seen {
				details[red.Target] = detailText(red)
			}
			if red.Type == contextbuilder.RedactBlockRemoved {
				removals[red.Target] += red.Count()
			}
			folded[i] = true
			nFolded++
		}
	}
	fmt.Fprintf(bw, "\nleft out (%d): not sent to the model\n", len(m.Selection.ExcludedCandidates))
	rows = nil
	for _, e := range m.Selection.ExcludedCandidates {
		d := details[e.Path]
		if n := removals[e.Path]; n > 1 {
			d = fmt.Sprintf("%d blocks removed; first: %s", n, d)
		}
		if sent[e.Path] && e.Reason == contextbuilder.ExcludeTokenBudget {
			d = strings.TrimSpace("other blocks of this file are sent; " + d)
		}
		rows = append(rows, []string{markdown.OneLine(e.Path), markdown.OneLine(string(e.Reason)), d})
	}
	writeTable(bw, rows)

	// The count is the redaction report's, so that it matches the report;
	// the entries shown under "left out" are counted there and not
	// repeated here.
	rows = nil
	for i, red := range rr.Redactions {
		if !folded[i] {
			rows = append(rows, []string{markdown.OneLine(string(red.Type)), markdown.OneLine(red.Target), markdown.OneLine(string(red.Reason)), detailText(red)})
		}
	}
	if nFolded > 0 {
		fmt.Fprintf(bw, "\nredactions (%d): %d under \"left out\" above; %d sent, but changed (secrets masked, bodies sliced)\n", len(rr.Redactions), nFolded, len(rows))
	} else {
		fmt.Fprintf(bw, "\nredactions (%d): sent, but changed (secrets masked, bodies sliced)\n", len(rows))
	}
	writeTable(bw, rows)

	if root != "" {
		// Where the build recorded: the workspace's .ctxd/ when it opted
		// in, else the user's state directory (workspace.Locate).
		dir := filepath.Join(root, ".ctxd")
		if rec, err := workspace.Locate(root); err == nil && !rec.InWorkspace {
			dir = rec.Dir
		}
		fmt.Fprintf(bw, "\nrecorded:  %s%c (the bundle under artifacts/contexts/, the event in audit.jsonl)\n", markdown.OneLine(dir), filepath.Separator)
		fmt.Fprintf(bw, "           'ctxd verify --root %s' checks what was recorded\n", markdown.OneLine(root))
	}

	fp := m.Fingerprints
	fmt.Fprintf(bw, "\nfingerprints (sha256; the same inputs give the same values):\n")
	fmt.Fprintf(bw, "  files     %s  the workspace's files and contents (project_index_fingerprint)\n", markdown.OneLine(fp.ProjectIndexFingerprint))
	fmt.Fprintf(bw, "  settings  %s  model, limits, deny rules, policy, estimator and secret rules (config_fingerprint)\n", markdown.OneLine(fp.ConfigFingerprint))
	fmt.Fprintf(bw, "  bundle    %s  the blocks above (bundle_fingerprint)\n", markdown.OneLine(fp.BundleFingerprint))
	fmt.Fprintf(bw, "bundle id: %s\n", markdown.OneLine(b.BundleID))
	return bw.Flush()
}

// decisionText is the budget decision with what it means.
func decisionText(d contextbuilder.Decision) string {
	switch d {
	case contextbuilder.DecisionOK:
		return "ok (under the soft limit)"
	case contextbuilder.DecisionWarn:
		return "warn_soft_limit (over the soft limit, under the hard limit: sent, with a warning)"
	}
	return markdown.OneLine(string(d))
}

// detailText is a redaction's details for a person: a never-send rule in
// words ("the never-send rule "**/.env" of the context contract (…)")
// rather than the rule file's "deny:21: .env".
func detailText(red contextbuilder.Redaction) string {
	if red.Reason == contextbuilder.RedactReasonDenyRule {
		if desc, ok := contextbuilder.NeverSendRule(red.Details); ok {
			return markdown.OneLine(desc)
		}
	}
	return markdown.OneLine(red.Details)
}

// writeTable writes rows as columns aligned with two spaces between them,
// each line indented by two spaces and without trailing blanks. Cells must
// not hold control characters (see oneLine).
func writeTable(w io.Writer, rows [][]string) {
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
	for _, row := range rows {
		fmt.Fprintf(tw, "  %s\n", strings.Join(row, "\t"))
	}
	_ = tw.Flush() // writes to a bytes.Buffer cannot fail
	for line := range strings.Lines(buf.String()) {
		io.WriteString(w, strings.TrimRight(line, " \n")+"\n")
	}
}

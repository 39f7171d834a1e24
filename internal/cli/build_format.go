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
	"strings"
	"text/tabwriter"
	"unicode"

	"github.com/ctxd/ctxd/contextbuilder"
)

// formatSummary writes a compact human report of r: the decision and
// token counts, one line per block, the excluded candidates and
// redactions with their reasons, and the fingerprints.
func formatSummary(w io.Writer, r *contextbuilder.Result) error {
	bw := bufio.NewWriter(w)
	b, m, rr, br := r.Bundle, r.Manifest, r.RedactionReport, r.BudgetReport

	fmt.Fprintf(bw, "ctxd build: %s bundle for %s, %d blocks\n", oneLine(string(b.Purpose)), modelName(b.Model), len(b.Blocks))
	fmt.Fprintf(bw, "decision:  %s\n", oneLine(string(br.Decision)))
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
		fmt.Fprintf(bw, "estimator: %s\n", oneLine(estimator))
	}
	for _, n := range notes {
		fmt.Fprintf(bw, "note:      %s\n", oneLine(n))
	}

	reasons := map[string]contextbuilder.IncludeReason{}
	for _, f := range m.Selection.IncludedFiles {
		reasons[f.Path] = f.Reason
	}
	sliced := map[string][]string{}
	for _, red := range rr.Redactions {
		if red.Type == contextbuilder.RedactContentSliced {
			sliced[red.Target] = append(sliced[red.Target], oneLine(red.Details))
		}
	}
	fmt.Fprintf(bw, "\nblocks (%d):\n", len(b.Blocks))
	var rows [][]string
	for _, blk := range b.Blocks {
		label, extra := oneLine(blk.Title), ""
		if blk.Meta.Path != nil {
			label = oneLine(*blk.Meta.Path)
			if reason, ok := reasons[*blk.Meta.Path]; ok {
				extra = "(" + oneLine(string(reason)) + ")"
			}
			if s := sliced[*blk.Meta.Path]; len(s) > 0 {
				extra = strings.TrimSpace(extra + " sliced: " + strings.Join(s, "; "))
			}
		}
		if blk.Meta.Symbol != nil {
			label += " " + oneLine(*blk.Meta.Symbol)
		}
		rows = append(rows, []string{oneLine(string(blk.Priority)), oneLine(string(blk.BlockType)), label, fmt.Sprintf("%d bytes", len(blk.Content)), extra})
	}
	writeTable(bw, rows)

	fmt.Fprintf(bw, "\nexcluded (%d):\n", len(m.Selection.ExcludedCandidates))
	rows = nil
	for _, e := range m.Selection.ExcludedCandidates {
		rows = append(rows, []string{oneLine(e.Path), oneLine(string(e.Reason))})
	}
	writeTable(bw, rows)

	fmt.Fprintf(bw, "\nredactions (%d):\n", len(rr.Redactions))
	rows = nil
	for _, red := range rr.Redactions {
		rows = append(rows, []string{oneLine(string(red.Type)), oneLine(red.Target), oneLine(string(red.Reason)), oneLine(red.Details)})
	}
	writeTable(bw, rows)

	fp := m.Fingerprints
	fmt.Fprintf(bw, "\nfingerprints:\n")
	fmt.Fprintf(bw, "  project index  %s\n", oneLine(fp.ProjectIndexFingerprint))
	fmt.Fprintf(bw, "  config         %s\n", oneLine(fp.ConfigFingerprint))
	fmt.Fprintf(bw, "  bundle         %s\n", oneLine(fp.BundleFingerprint))
	fmt.Fprintf(bw, "bundle id:      %s\n", oneLine(b.BundleID))
	return bw.Flush()
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

// modelName is "provider/model".
func modelName(m contextbuilder.Model) string {
	return oneLine(m.Provider) + "/" + oneLine(m.Model)
}

// oneLine makes s safe for one line of a terminal or a Markdown list:
// control characters (newlines, tabs, escape sequences) become spaces.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}

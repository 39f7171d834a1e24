// Package markdown renders a build result as one Markdown document
// ([Write]): the readable form of a context bundle that `ctxd build
// --format markdown` prints and MCP's build_context returns as its text,
// so that a person and a model read the same document.
package markdown

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"unicode"

	"github.com/ctxd/ctxd/contextbuilder"
)

// Write writes r as a Markdown document: a header with the
// purpose, model, decision and tokens, each block as a "## title" section
// with its content in a fenced code block, then the excluded candidates,
// the redactions and the fingerprints. It is pure: the same result gives
// the same bytes.
//
// Every line outside the fenced contents is one line of text whatever the
// result holds (control characters become spaces), and each fence is
// longer than any backtick run of its content, so that no content can
// close its fence and pass for ctxd's own text.
func Write(w io.Writer, r *contextbuilder.Result) error {
	if r == nil || r.Bundle == nil || r.Manifest == nil || r.RedactionReport == nil || r.BudgetReport == nil {
		return errors.New("rendering markdown: the result is incomplete")
	}
	bw := bufio.NewWriter(w)
	m, rr := r.Manifest, r.RedactionReport
	writeHeader(bw, r)
	for i := range r.Bundle.Blocks {
		writeBlock(bw, &r.Bundle.Blocks[i])
	}

	fmt.Fprintf(bw, "\n## Excluded\n\n")
	if len(m.Selection.ExcludedCandidates) == 0 {
		fmt.Fprintf(bw, "None.\n")
	}
	for _, e := range m.Selection.ExcludedCandidates {
		fmt.Fprintf(bw, "- %s: %s%s\n", inlineCode(e.Path), OneLine(string(e.Reason)), exclusionDetails(rr, e.Path))
	}

	fmt.Fprintf(bw, "\n## Redactions\n\n")
	if len(rr.Redactions) == 0 {
		fmt.Fprintf(bw, "None.\n")
	}
	for _, red := range rr.Redactions {
		fmt.Fprintf(bw, "- %s %s: %s", OneLine(string(red.Type)), inlineCode(red.Target), OneLine(string(red.Reason)))
		if red.Details != "" {
			fmt.Fprintf(bw, " — %s", OneLine(red.Details))
		}
		fmt.Fprintf(bw, "\n")
	}

	fp := m.Fingerprints
	fmt.Fprintf(bw, "\n## Fingerprints\n\n")
	fmt.Fprintf(bw, "- project index: %s\n", inlineCode(fp.ProjectIndexFingerprint))
	fmt.Fprintf(bw, "- config: %s\n", inlineCode(fp.ConfigFingerprint))
	fmt.Fprintf(bw, "- bundle: %s\n", inlineCode(fp.BundleFingerprint))
	return bw.Flush()
}

// HeaderWithoutNotes is the document's head without the budget notes:
// the title line and the list of the purpose, model, decision, tokens, ids
// and targets, for a reader that shows the notes elsewhere (MCP pages
// them).
func HeaderWithoutNotes(r *contextbuilder.Result) string {
	cp := *r
	br := *r.BudgetReport
	br.Notes = nil
	cp.BudgetReport = &br
	return render(func(bw *bufio.Writer) { writeHeader(bw, &cp) })
}

// render returns what write writes, into a strings.Builder, which never
// fails.
func render(write func(*bufio.Writer)) string {
	var sb strings.Builder
	bw := bufio.NewWriter(&sb)
	write(bw)
	_ = bw.Flush()
	return sb.String()
}

func writeHeader(bw *bufio.Writer, r *contextbuilder.Result) {
	b, m, br := r.Bundle, r.Manifest, r.BudgetReport
	fmt.Fprintf(bw, "# ctxd context bundle (%s)\n\n", OneLine(string(b.Purpose)))
	fmt.Fprintf(bw, "- purpose: %s\n", OneLine(string(b.Purpose)))
	fmt.Fprintf(bw, "- model: %s (max input %d, max output %d, response reserve %d, soft limit %d%%)\n",
		ModelName(b.Model), b.Model.MaxInputTokens, b.Model.MaxOutputTokens, b.Model.ResponseTokenReserve, b.Model.SoftLimitThresholdPct)
	fmt.Fprintf(bw, "- decision: %s\n", OneLine(string(br.Decision)))
	fmt.Fprintf(bw, "- tokens: %d estimated, soft limit %d, hard limit %d\n", br.EstimatedInputTokens, br.SoftLimitTokens, br.HardLimitTokens)
	fmt.Fprintf(bw, "- bundle: %s, version %d, created %s\n", inlineCode(b.BundleID), b.BundleVersion, OneLine(b.CreatedAt))
	fmt.Fprintf(bw, "- correlation id: %s\n", inlineCode(b.CorrelationID))
	if len(m.Selection.TargetFiles) > 0 {
		fmt.Fprintf(bw, "- target files: %s\n", codeList(m.Selection.TargetFiles))
	}
	if len(m.Selection.TargetSymbols) > 0 {
		fmt.Fprintf(bw, "- target symbols: %s\n", codeList(m.Selection.TargetSymbols))
	}
	if len(br.Notes) > 0 {
		fmt.Fprintf(bw, "\nBudget notes:\n\n")
		for _, n := range br.Notes {
			fmt.Fprintf(bw, "- %s\n", OneLine(n))
		}
	}
}

// Block is one block's section of the document: a "## title" heading,
// its type, priority, path, symbol and size, and its content in a fence
// longer than any backtick run of the content.
func Block(blk *contextbuilder.Block) string {
	return render(func(bw *bufio.Writer) { writeBlock(bw, blk) })
}

// BlockPart is a part of a block's content: the same heading and fence
// as [Block], the meta line ending with label (which lines these are), so
// that a reader of one part knows it is not the whole block.
func BlockPart(blk *contextbuilder.Block, content, label string) string {
	cp := *blk
	cp.Content = content
	return render(func(bw *bufio.Writer) { writeBlockPart(bw, &cp, label) })
}

func writeBlock(bw *bufio.Writer, blk *contextbuilder.Block) {
	writeBlockPart(bw, blk, fmt.Sprintf("%d bytes", len(blk.Content)))
}

func writeBlockPart(bw *bufio.Writer, blk *contextbuilder.Block, size string) {
	title := OneLine(blk.Title)
	if title == "" {
		title = string(blk.BlockType)
	}
	fmt.Fprintf(bw, "\n## %s\n\n", title)
	meta := []string{inlineCode(string(blk.BlockType)), OneLine(string(blk.Priority))}
	if blk.Meta.Path != nil {
		meta = append(meta, "path "+inlineCode(*blk.Meta.Path))
	}
	if blk.Meta.Symbol != nil {
		meta = append(meta, "symbol "+inlineCode(*blk.Meta.Symbol))
	}
	meta = append(meta, size)
	fmt.Fprintf(bw, "%s\n\n", strings.Join(meta, " · "))
	fence := strings.Repeat("`", max(3, longestRun(blk.Content, '`')+1))
	fmt.Fprintf(bw, "%s%s\n%s", fence, fenceLang(blk.Meta.Path), blk.Content)
	if blk.Content != "" && !strings.HasSuffix(blk.Content, "\n") {
		bw.WriteString("\n")
	}
	fmt.Fprintf(bw, "%s\n", fence)
}

// InlineCode is s as a Markdown code span, on one line.
func InlineCode(s string) string { return inlineCode(s) }

// exclusionDetails returns " — details" of the first path_excluded or
// block_removed redaction about target, or "".
func exclusionDetails(rr *contextbuilder.RedactionReport, target string) string {
	for _, red := range rr.Redactions {
		if red.Target == target && red.Details != "" &&
			(red.Type == contextbuilder.RedactPathExcluded || red.Type == contextbuilder.RedactBlockRemoved) {
			return " — " + OneLine(red.Details)
		}
	}
	return ""
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	best, cur := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			cur++
			best = max(best, cur)
		} else {
			cur = 0
		}
	}
	return best
}

// inlineCode renders s as a Markdown code span whose delimiter is longer
// than any backtick run inside it.
func inlineCode(s string) string {
	s = OneLine(s)
	if s == "" {
		return "(none)"
	}
	delim := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return delim + s + delim
}

// codeList renders items as comma-separated code spans.
func codeList(items []string) string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = inlineCode(s)
	}
	return strings.Join(out, ", ")
}

// fenceLangs maps file extensions to the info string of a fenced block,
// for syntax highlighting in Markdown viewers.
var fenceLangs = map[string]string{
	".go": "go", ".ts": "typescript", ".tsx": "tsx", ".js": "javascript", ".jsx": "jsx",
	".mjs": "javascript", ".cjs": "javascript", ".py": "python", ".java": "java", ".rs": "rust",
	".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp",
	".cs": "csharp", ".json": "json", ".md": "markdown", ".yaml": "yaml", ".yml": "yaml",
	".toml": "toml", ".sh": "sh", ".xml": "xml", ".html": "html", ".css": "css", ".sql": "sql",
	".mod": "go.mod",
}

// fenceLang is the info string for a block from path p, or "".
func fenceLang(p *string) string {
	if p == nil {
		return ""
	}
	return fenceLangs[strings.ToLower(path.Ext(*p))]
}

// ModelName is "provider/model", each part on one line; a model named
// with its provider already ("anthropic/claude-sonnet-4", as routers
// write it) is not prefixed again.
func ModelName(m contextbuilder.Model) string {
	if strings.HasPrefix(m.Model, m.Provider+"/") {
		return OneLine(m.Model)
	}
	return OneLine(m.Provider) + "/" + OneLine(m.Model)
}

// OneLine makes s safe for one line of a terminal, a Markdown list or a
// heading: control characters (newlines, tabs, escape sequences) become
// spaces. Every front end that puts text from a workspace on one line
// (the CLI's summary, MCP's refusal texts) uses it.
func OneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}

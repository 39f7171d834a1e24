package main

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/ctxd/ctxd/contextbuilder"
)

// The refusal explanations (contextbuilder.Explanations, which `ctxd
// explain CODE` prints) as each editor shows them: a Vim help file and a
// TypeScript table. Generating them from the one table keeps the three in
// step; TestGeneratedFilesUpToDate fails on a stale copy.
const (
	vimRefusalsFile = "editors/nvim/doc/ctxd-refusals.txt"
	tsRefusalsFile  = "editors/vscode/src/refusals.gen.ts"
)

// vimCodesTag is the help tag of the list of codes: what the plugin's
// refusal window points to (`:help ctxd-refusals`). The file's own tag is
// *ctxd-refusals.txt*; doc/ctxd.txt's section on how refusals are shown
// is *ctxd-refusal-ui*, since Vim's :helptags fails on a tag defined
// twice.
const vimCodesTag = "ctxd-refusals"

// vimTag is the help tag of one code: "ctxd-" and the code as it is, so
// that :help ctxd-REFUSE_SECRET_RISK finds it.
func vimTag(code contextbuilder.RefusalCode) string {
	return "ctxd-" + string(code)
}

// helpWidth is 'textwidth' of the help file (the modeline says 78).
const helpWidth = 78

// vimRefusals renders the Vim help file.
func vimRefusals() []byte {
	var b bytes.Buffer
	exps := contextbuilder.Explanations()
	b.WriteString("*ctxd-refusals.txt*  What each ctxd refusal means and what to do\n\n")
	for _, l := range contextbuilder.Wrap(header+" Source: contextbuilder's Explanations, also printed by `ctxd explain CODE`.", helpWidth) {
		b.WriteString(l + "\n")
	}
	b.WriteString("\n" + strings.Repeat("=", helpWidth) + "\n")
	b.WriteString(rightTag("REFUSAL CODES", vimCodesTag))
	b.WriteString("\n")
	for _, l := range contextbuilder.Wrap("When ctxd will not build a bundle it refuses, with a code, a message (what happened) and an advice (what to do); see |ctxd-refusal-ui| for how the plugin shows one. Below, each code is explained at length. The codes:", helpWidth) {
		b.WriteString(l + "\n")
	}
	b.WriteString("\n")
	for _, e := range exps {
		b.WriteString("  |" + vimTag(e.Code) + "|\n")
	}
	for _, e := range exps {
		b.WriteString("\n" + strings.Repeat("=", helpWidth) + "\n")
		b.WriteString(rightTag(string(e.Code), vimTag(e.Code)))
		b.WriteString("\n")
		paras := append([]string{upperFirst(e.Summary) + "."}, e.Paragraphs...)
		for i, p := range paras {
			if i > 0 {
				b.WriteString("\n")
			}
			for _, l := range contextbuilder.Wrap(p, helpWidth) {
				b.WriteString(l + "\n")
			}
		}
	}
	b.WriteString("\n vim:tw=78:ts=8:et:ft=help:norl:\n")
	return b.Bytes()
}

// rightTag is a heading line with *tag* at the right margin, as Vim's own
// help files write them.
func rightTag(title, tag string) string {
	t := "*" + tag + "*"
	pad := helpWidth - len(title) - len(t)
	if pad < 1 {
		return title + "\n" + strings.Repeat(" ", max(helpWidth-len(t), 0)) + t + "\n"
	}
	return title + strings.Repeat(" ", pad) + t + "\n"
}

// tsRefusals renders the TypeScript table.
func tsRefusals() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// %s\n// The long explanation of each refusal code, as `ctxd explain CODE` prints it\n// (contextbuilder's Explanations).\n\n", header)
	b.WriteString("/** What a refusal code means and what to do: a one-line summary, then paragraphs of plain text. */\n")
	b.WriteString("export interface RefusalExplanation {\n  readonly summary: string;\n  readonly paragraphs: readonly string[];\n}\n\n")
	b.WriteString("/** The explanation of every refusal code, by code. */\n")
	b.WriteString("export const RefusalExplanations: Readonly<Record<string, RefusalExplanation>> = {\n")
	for _, e := range contextbuilder.Explanations() {
		fmt.Fprintf(&b, "  %s: {\n    summary: %s,\n    paragraphs: [\n", jsString(string(e.Code)), jsString(e.Summary))
		for _, p := range e.Paragraphs {
			fmt.Fprintf(&b, "      %s,\n", jsString(p))
		}
		b.WriteString("    ],\n  },\n")
	}
	b.WriteString("};\n\n")
	b.WriteString("/** The explanation of code as text (the summary, then the paragraphs, separated by blank lines); undefined for an unknown code. */\n")
	b.WriteString("export function explainRefusal(code: string): string | undefined {\n")
	b.WriteString("  const e = Object.prototype.hasOwnProperty.call(RefusalExplanations, code) ? RefusalExplanations[code] : undefined;\n")
	b.WriteString("  if (e === undefined) {\n    return undefined;\n  }\n")
	b.WriteString("  return [`${code}: ${e.summary}`, ...e.paragraphs].join(\"\\n\\n\");\n}\n")
	return b.Bytes()
}

// Package table renders the benchmarks' tables (tools/changebench,
// tools/mcpbench): [Plain] for a terminal, [Markdown] for a document. It
// is used by tools only, never linked into ctxd.
package table

import "strings"

// Plain aligns a table's columns with two spaces between them; the last
// column is not padded.
func Plain(rows [][]string) string {
	width := map[int]int{}
	for _, row := range rows {
		for i, c := range row {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	var b strings.Builder
	for _, row := range rows {
		for i, c := range row {
			if i > 0 {
				b.WriteString("  ")
			}
			b.WriteString(c)
			if i < len(row)-1 {
				b.WriteString(strings.Repeat(" ", width[i]-len([]rune(c))))
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// Markdown renders a table as Markdown, the first row as its header; a
// cell's "|" is escaped and a line break becomes a space, so that no cell
// breaks the table.
func Markdown(rows [][]string) string {
	var b strings.Builder
	esc := strings.NewReplacer("|", `\|`, "\n", " ")
	for i, row := range rows {
		cells := make([]string, len(row))
		for j, c := range row {
			cells[j] = esc.Replace(c)
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
		if i == 0 {
			b.WriteString("|" + strings.Repeat(" --- |", len(row)) + "\n")
		}
	}
	return b.String()
}

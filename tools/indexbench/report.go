package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"
)

// row is one figure of the table.
type row struct {
	figure string
	ctxd   string  // the figure, with its CPU time and context
	ctags  string  // what it is compared with
	ratio  float64 // ctxd / ctags; NaN when there is nothing to compare
	goal   string  // "" when the issue sets none
	met    int     // 0 no goal or no figure, 1 met, -1 missed
}

// goalRatio judges a ratio against its ceiling; ref, the time the ratio
// is to (ctags' wall time), turns the ceiling into a time too, which a
// rounded ratio could not show ("0.03× ≤ 0.03×: MISSED").
func (r *row) goalRatio(ceiling float64, ref time.Duration) {
	r.goal = "≤ " + fmtRatio(ceiling)
	if ref > 0 {
		r.goal += " = " + fmtDur(time.Duration(ceiling*float64(ref)))
	}
	r.judge(!math.IsNaN(r.ratio), r.ratio <= ceiling)
}

// goalAbs judges a measured value against a ceiling given as text.
func (r *row) goalAbs(ceiling string, ok, met bool) {
	r.goal = "≤ " + ceiling
	r.judge(ok, met)
}

func (r *row) judge(measured, met bool) {
	switch {
	case !measured:
		r.met = 0
	case met:
		r.met = 1
	default:
		r.met = -1
	}
}

func (r row) goalCell() string {
	switch r.met {
	case 1:
		return r.goal + ": met"
	case -1:
		return r.goal + ": MISSED"
	}
	return r.goal
}

func (r row) ratioCell() string {
	if math.IsNaN(r.ratio) {
		return "—"
	}
	return fmtRatio(r.ratio)
}

// failedRow is a figure that could not be measured.
func failedRow(figure string, err error) row {
	msg := err.Error()
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return row{figure: figure, ctxd: "failed: " + msg, ratio: math.NaN()}
}

// printTable writes the rows as an aligned text table.
func printTable(w io.Writer, rows []row) {
	head := []string{"figure", "ctxd", "ctags -R", "ratio", "goal"}
	cells := [][]string{head}
	for _, r := range rows {
		cells = append(cells, []string{r.figure, r.ctxd, r.ctags, r.ratioCell(), r.goalCell()})
	}
	width := make([]int, len(head))
	for _, c := range cells {
		for i, s := range c {
			width[i] = max(width[i], len([]rune(s)))
		}
	}
	for _, c := range cells {
		var b strings.Builder
		for i, s := range c {
			b.WriteString(s)
			if i < len(c)-1 {
				b.WriteString(strings.Repeat(" ", width[i]-len([]rune(s))+2))
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

// writeMarkdown writes a section: a heading, the notes as a list, the
// rows as a table.
func writeMarkdown(w io.Writer, title string, notes []string, rows []row) {
	fmt.Fprintf(w, "### %s\n\n", title)
	for _, n := range notes {
		fmt.Fprintf(w, "- %s\n", n)
	}
	fmt.Fprintln(w, "\n| figure | ctxd | `ctags -R` | ratio | goal |\n|---|---|---|---|---|")
	esc := strings.NewReplacer("|", `\|`)
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", esc.Replace(r.figure), esc.Replace(r.ctxd), esc.Replace(r.ctags), r.ratioCell(), r.goalCell())
	}
	fmt.Fprintln(w)
}

// percentile is the nearest-rank p-th percentile (0 < p <= 100) of ds.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	k := int(math.Ceil(p/100*float64(len(s)))) - 1
	return s[max(0, min(k, len(s)-1))]
}

// fmtDur prints a duration with three significant digits or so.
func fmtDur(d time.Duration) string {
	ms := float64(d) / float64(time.Millisecond)
	switch {
	case d >= 10*time.Second:
		return fmt.Sprintf("%.1f s", d.Seconds())
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d >= 100*time.Millisecond:
		return fmt.Sprintf("%.0f ms", ms)
	case d >= 10*time.Millisecond:
		return fmt.Sprintf("%.1f ms", ms)
	}
	return fmt.Sprintf("%.2f ms", ms)
}

func fmtMB(kB int64) string { return fmt.Sprintf("%d MB", (kB+512)/1024) }

func fmtRatio(r float64) string {
	switch {
	case r >= 10:
		return fmt.Sprintf("%.0f×", r)
	case r >= 0.1:
		return fmt.Sprintf("%.2f×", r)
	}
	return fmt.Sprintf("%.2g×", r)
}

// ratio is a/b, NaN when either is unknown.
func ratio(a, b float64) float64 {
	if a <= 0 || b <= 0 {
		return math.NaN()
	}
	return a / b
}

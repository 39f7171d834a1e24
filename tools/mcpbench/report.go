package main

// The report: one row per figure, with its value, its goal and whether the
// goal is met, missed or not available (the server lacks the feature the
// goal measures, which is not the same as failing it); plain text for the
// terminal, Markdown for -md.

import (
	"fmt"
	"strings"

	"github.com/ctxd/ctxd/tools/table"
)

// status is a row's verdict.
type status int

const (
	info         status = iota // a figure without a goal
	met                        // the goal is met
	missed                     // the goal is missed
	notAvailable               // the server has no such feature yet
)

func (s status) String() string {
	switch s {
	case met:
		return "met"
	case missed:
		return "MISSED"
	case notAvailable:
		return "not available"
	}
	return ""
}

// row is one figure of the report.
type row struct {
	figure, value, goal string
	status              status
}

// report is the run's outcome.
type report struct {
	header  []string
	rows    []row
	details []string
}

// figure adds a row without a goal.
func (r *report) figure(figure, value string) {
	r.rows = append(r.rows, row{figure: figure, value: value})
}

// goal adds a row with a goal; ok decides met or missed.
func (r *report) goal(figure, value, goal string, ok bool) {
	st := missed
	if ok {
		st = met
	}
	r.rows = append(r.rows, row{figure: figure, value: value, goal: goal, status: st})
}

// unavailable adds a goal the server cannot be measured on.
func (r *report) unavailable(figure, value, goal string) {
	r.rows = append(r.rows, row{figure: figure, value: value, goal: goal, status: notAvailable})
}

// detail adds a line to the notes after the table.
func (r *report) detail(format string, args ...any) {
	r.details = append(r.details, fmt.Sprintf(format, args...))
}

// counts returns how many goals are met, missed and not available.
func (r *report) counts() (nMet, nMissed, nNA int) {
	for _, x := range r.rows {
		switch x.status {
		case met:
			nMet++
		case missed:
			nMissed++
		case notAvailable:
			nNA++
		}
	}
	return
}

// allMet says every goal is met: none missed, none not available.
func (r *report) allMet() bool {
	_, nMissed, nNA := r.counts()
	return nMissed == 0 && nNA == 0
}

func (r *report) summary() string {
	nMet, nMissed, nNA := r.counts()
	return fmt.Sprintf("goals: %d met, %d missed, %d not available", nMet, nMissed, nNA)
}

func (r *report) table() [][]string {
	t := [][]string{{"figure", "value", "goal", "met"}}
	for _, x := range r.rows {
		t = append(t, []string{x.figure, x.value, x.goal, x.status.String()})
	}
	return t
}

// text renders the report for a terminal.
func (r *report) text() string {
	var b strings.Builder
	b.WriteString(strings.Join(r.header, "\n") + "\n\n")
	b.WriteString(table.Plain(r.table()))
	b.WriteString("\n" + r.summary() + "\n")
	if len(r.details) > 0 {
		b.WriteString("\n" + strings.Join(r.details, "\n") + "\n")
	}
	return b.String()
}

// markdown renders the report for a document.
func (r *report) markdown() string {
	var b strings.Builder
	b.WriteString("## ctxd mcp as an agent host sees it (tools/mcpbench)\n\n")
	for _, h := range r.header[1:] {
		b.WriteString(h + "  \n")
	}
	b.WriteString("\n" + table.Markdown(r.table()))
	b.WriteString("\n" + r.summary() + "\n")
	if len(r.details) > 0 {
		b.WriteString("\n```\n" + strings.Join(r.details, "\n") + "\n```\n")
	}
	return b.String()
}

// size renders a byte count with its KiB.
func size(n int) string {
	if n < 1024 {
		return groupDigits(n) + " B"
	}
	return fmt.Sprintf("%s B (%.1f KiB)", groupDigits(n), float64(n)/1024)
}

// groupDigits writes n with thousands separators.
func groupDigits(n int) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

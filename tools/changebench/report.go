package main

// The tables: valid answers per language × format, invalid answers per
// rejection code, the bytes rejected answers changed, CPU time, and the
// first failures of each kind.

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/ctxd/ctxd/tools/table"
)

// report is the run's outcome, ready to print.
type report struct {
	header  []string
	valid   [][]string
	invalid [][]string
	summary []string
	goals   []string
	details []string // failures, skips, notes, errors
	ok      bool
}

func (r *report) met() bool { return r.ok }

// variantOrder sorts a row's variant after its language.
func variantOrder(lang string) (string, int) {
	base, v, _ := strings.Cut(lang, " ")
	return base, map[string]int{"": 0, "CRLF": 1, "BOM": 2, "noEOL": 3}[v]
}

func cell(ok, total int) string {
	if total == 0 {
		return "-"
	}
	return fmt.Sprintf("%d/%d", ok, total)
}

func pct(ok, total int) string {
	if total == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(ok)/float64(total))
}

// cellPct is "ok/total pct", or "-" without any answer.
func cellPct(ok, total int) string {
	if total == 0 {
		return "-"
	}
	return cell(ok, total) + " " + pct(ok, total)
}

// sortedCounts renders a count map as "key n, key n", most first.
func sortedCounts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if m[a] != m[b] {
			return m[b] - m[a]
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s ×%d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

func (b *bench) report(bin string, specs []pkgSpec) *report {
	r := &report{ok: true}
	names := make([]string, len(specs))
	for i, p := range specs {
		names[i] = p.kind + ":" + p.String()
	}
	var samples []string
	for _, k := range slices.Sorted(maps.Keys(b.samples)) {
		samples = append(samples, fmt.Sprintf("%s %d", k, b.samples[k]))
	}
	r.header = []string{
		"changebench: ctxd check-change --json --write on answers made from real release-to-release changes (" + bin + ")",
		"releases: " + strings.Join(names, ", "),
		"samples (changed files): " + strings.Join(samples, ", "),
	}
	if len(b.excluded) > 0 {
		r.header = append(r.header, "changed files left out: "+sortedCounts(b.excluded))
	}

	// Valid: language × format.
	langs := map[string]bool{}
	for key := range b.rows {
		if lang, _, ok := strings.Cut(key, "\t"); ok {
			langs[lang] = true
		}
	}
	langList := slices.Sorted(maps.Keys(langs))
	slices.SortFunc(langList, func(x, y string) int {
		bx, vx := variantOrder(x)
		by, vy := variantOrder(y)
		if c := strings.Compare(bx, by); c != 0 {
			return c
		}
		return vx - vy
	})
	r.valid = append(r.valid, append(append([]string{"language"}, validFormats...), "all", "skipped"))
	allOK, allTotal := 0, 0
	colOK, colTotal := make([]int, len(validFormats)), make([]int, len(validFormats))
	for _, lang := range langList {
		line := []string{lang}
		ok, total, skipped := 0, 0, 0
		for i, f := range validFormats {
			row := b.rows[lang+"\t"+f]
			if row == nil {
				line = append(line, "-")
				continue
			}
			s := cell(row.ok, row.total)
			if n := sum(row.skipped); n > 0 {
				s += fmt.Sprintf(" (%d skipped)", n)
				skipped += n
			}
			line = append(line, s)
			ok, total = ok+row.ok, total+row.total
			colOK[i], colTotal[i] = colOK[i]+row.ok, colTotal[i]+row.total
		}
		line = append(line, cellPct(ok, total), fmt.Sprint(skipped))
		r.valid = append(r.valid, line)
		allOK, allTotal = allOK+ok, allTotal+total
	}
	totals := []string{"all"}
	for i := range validFormats {
		totals = append(totals, cell(colOK[i], colTotal[i]))
	}
	r.valid = append(r.valid, append(totals, cellPct(allOK, allTotal), ""))

	// Invalid: per code.
	codeLangs := map[string]bool{}
	for _, c := range rejectionCodes {
		if row := b.rows[c]; row != nil {
			for l := range row.byLang {
				codeLangs[l] = true
			}
		}
	}
	cl := slices.Sorted(maps.Keys(codeLangs))
	r.invalid = append(r.invalid, append(append([]string{"code"}, cl...), "all", "skipped samples", "wrong outcomes seen"))
	invOK, invTotal := 0, 0
	missingCodes := []string{}
	for _, c := range rejectionCodes {
		row := b.rows[c]
		if row == nil {
			row = newRow()
		}
		if row.total == 0 {
			missingCodes = append(missingCodes, c)
		}
		line := []string{c}
		for _, l := range cl {
			n := row.byLang[l]
			line = append(line, cell(n[0], n[1]))
		}
		line = append(line, cellPct(row.ok, row.total), fmt.Sprint(sum(row.skipped)), sortedCounts(row.outcomes))
		r.invalid = append(r.invalid, line)
		invOK, invTotal = invOK+row.ok, invTotal+row.total
	}
	r.invalid = append(r.invalid, append(append([]string{"all"}, make([]string, len(cl))...), cellPct(invOK, invTotal), "", ""))

	cpu := b.cpu.Seconds()
	perSec := "-"
	if cpu > 0 {
		perSec = fmt.Sprintf("%.1f", float64(b.answers)/cpu)
	}
	r.summary = []string{
		fmt.Sprintf("bytes changed by rejected answers: %d (%d entries changed, in %d answers)", b.rejBytes, b.rejPaths, len(b.rejChanged)),
		fmt.Sprintf("ctxd check-change: %d runs, CPU %s (user+sys), %s answers per CPU-second", b.answers, b.cpu.Round(time.Millisecond), perSec),
		fmt.Sprintf("ctxd build (bundles for the stale / not-in-bundle answers): %d runs, CPU %s", b.builds, b.buildCPU.Round(time.Millisecond)),
	}

	goal := func(name string, met bool, detail string) {
		status := "met"
		if !met {
			status, r.ok = "MISSED", false
		}
		r.goals = append(r.goals, fmt.Sprintf("%-62s %s (%s)", name, status, detail))
	}
	goal("100% of valid answers applied byte-exactly:", allOK == allTotal && allTotal > 0, cell(allOK, allTotal)+", "+pct(allOK, allTotal))
	detail := cell(invOK, invTotal) + ", " + pct(invOK, invTotal)
	if len(missingCodes) > 0 {
		detail += "; no answer for " + strings.Join(missingCodes, ", ")
	}
	goal("100% of invalid answers rejected with the right code:", invOK == invTotal && invTotal > 0 && len(missingCodes) == 0, detail)
	goal("0 bytes changed by a rejected answer:", b.rejBytes == 0 && b.rejPaths == 0, fmt.Sprintf("%d bytes, %d entries", b.rejBytes, b.rejPaths))
	if len(b.errors) > 0 {
		goal("every sample set up:", false, fmt.Sprintf("%d errors", len(b.errors)))
	}

	// Details.
	add := func(s string) { r.details = append(r.details, s) }
	printFailures := func(title string, row *rowStats) {
		if row == nil || row.ok == row.total {
			return
		}
		add(fmt.Sprintf("== %s: %d of %d failed; the first %d:", title, row.total-row.ok, row.total, len(row.failures)))
		for _, f := range row.failures {
			s := fmt.Sprintf("  - %s — %s: expected %s, got %s", f.sample, f.what, f.expected, f.got)
			if f.message != "" {
				s += "\n      ctxd: " + f.message
			}
			add(s)
		}
	}
	for _, lang := range langList {
		for _, f := range validFormats {
			printFailures("valid "+lang+" / "+f, b.rows[lang+"\t"+f])
		}
	}
	for _, c := range rejectionCodes {
		printFailures("invalid "+c, b.rows[c])
	}
	if len(b.rejChanged) > 0 {
		add(fmt.Sprintf("== rejected answers that changed bytes: %d; the first %d:", len(b.rejChanged), min(b.maxFails, len(b.rejChanged))))
		for _, f := range b.rejChanged[:min(b.maxFails, len(b.rejChanged))] {
			add(fmt.Sprintf("  - %s — %s: %s\n      ctxd: %s", f.sample, f.what, f.got, f.message))
		}
	}
	for _, lang := range langList {
		for _, f := range validFormats {
			if row := b.rows[lang+"\t"+f]; row != nil && row.notesCount > 0 {
				add(fmt.Sprintf("== note, valid %s / %s: %d applied exactly but with a --json verdict that is off; the first %d:", lang, f, row.notesCount, len(row.notes)))
				for _, n := range row.notes {
					add(fmt.Sprintf("  - %s — %s: %s", n.sample, n.what, n.got))
				}
			}
		}
	}
	var skips []string
	for _, key := range slices.Sorted(maps.Keys(b.rows)) {
		if row := b.rows[key]; len(row.skipped) > 0 {
			skips = append(skips, fmt.Sprintf("  %s: %s", strings.ReplaceAll(key, "\t", " / "), sortedCounts(row.skipped)))
		}
	}
	if len(skips) > 0 {
		add("== samples skipped (no such answer can be made from them, not failures):")
		r.details = append(r.details, skips...)
	}
	if len(b.errors) > 0 {
		add(fmt.Sprintf("== errors setting samples up: %d", len(b.errors)))
		for _, e := range b.errors[:min(len(b.errors), 20)] {
			add("  - " + e)
		}
	}
	return r
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func (r *report) text() string {
	var b strings.Builder
	b.WriteString(strings.Join(r.header, "\n") + "\n\n")
	b.WriteString("valid answers: applied byte-exactly / total (skipped samples: no such answer can be made)\n")
	b.WriteString(table.Plain(r.valid) + "\n")
	b.WriteString("invalid answers: rejected with the right code / total\n")
	b.WriteString(table.Plain(r.invalid) + "\n")
	b.WriteString(strings.Join(r.summary, "\n") + "\n\n")
	b.WriteString("goals:\n  " + strings.Join(r.goals, "\n  ") + "\n")
	if len(r.details) > 0 {
		b.WriteString("\n" + strings.Join(r.details, "\n") + "\n")
	}
	return b.String()
}

func (r *report) markdown() string {
	var b strings.Builder
	b.WriteString("## ctxd check-change on real changes (tools/changebench)\n\n")
	for _, h := range r.header[1:] {
		b.WriteString(h + "  \n")
	}
	b.WriteString("\nValid answers: applied byte-exactly / total\n\n" + table.Markdown(r.valid))
	b.WriteString("\nInvalid answers: rejected with the right code / total\n\n" + table.Markdown(r.invalid))
	b.WriteString("\n")
	for _, s := range r.summary {
		b.WriteString("- " + s + "\n")
	}
	b.WriteString("\nGoals:\n\n")
	for _, g := range r.goals {
		b.WriteString("- " + strings.Join(strings.Fields(g), " ") + "\n")
	}
	if len(r.details) > 0 {
		b.WriteString("\n```\n" + strings.Join(r.details, "\n") + "\n```\n")
	}
	return b.String()
}

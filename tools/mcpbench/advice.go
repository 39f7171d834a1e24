package main

// The advice matcher: an agent over MCP has no command line and no editor,
// so a refusal that tells it to pass a CLI flag, or to set the editor's
// request fields (active_file, selection), gives advice it cannot follow.

import (
	"regexp"
	"strings"
)

// adviceRules are what a refusal's texts must not name. Each pattern is
// anchored so that ordinary words do not match: a flag is a dash or two
// and the name, not inside a word ("non-root", "re-select"); active_file
// is an identifier wherever it appears; selection only counts as the
// field when it is quoted, followed by ':' or '=', or part of a dotted
// path, since "a selection" is ordinary English.
var adviceRules = []struct {
	name string
	re   *regexp.Regexp
}{
	{"CLI flag", regexp.MustCompile(`(?:^|[^A-Za-z0-9_-])(--?(?:select|target|symbol|max-input-tokens|root))(?:[^A-Za-z0-9_-]|$)`)},
	{"editor field", regexp.MustCompile(`\b(active_file)\b`)},
	{"editor field", regexp.MustCompile(`(["'` + "`" + `]selection["'` + "`" + `])`)},
	{"editor field", regexp.MustCompile(`\b(selection\s*[:=])`)},
	{"editor field", regexp.MustCompile(`([A-Za-z_]\.selection)\b`)},
	{"editor field", regexp.MustCompile(`\b(selection\.[A-Za-z_])`)},
}

// adviceHit is one forbidden name found in a text.
type adviceHit struct {
	Kind  string // "CLI flag" or "editor field"
	Match string // the name as it appears
	Near  string // the text around it, on one line
}

// adviceHits returns the forbidden names text holds, in the order of the
// rules and then of their position, each distinct match once.
func adviceHits(text string) []adviceHit {
	var out []adviceHit
	seen := map[string]bool{}
	for _, r := range adviceRules {
		for _, loc := range r.re.FindAllStringSubmatchIndex(text, -1) {
			start, end := loc[2], loc[3]
			m := text[start:end]
			if seen[m] {
				continue
			}
			seen[m] = true
			out = append(out, adviceHit{Kind: r.name, Match: m, Near: near(text, start, end, 30)})
		}
	}
	return out
}

// near is text[start:end] with up to n bytes of context each side, on one
// line.
func near(text string, start, end, n int) string {
	from, to := max(0, start-n), min(len(text), end+n)
	// Keep whole UTF-8 characters at the edges.
	for from > 0 && from < len(text) && text[from]&0xC0 == 0x80 {
		from--
	}
	for to < len(text) && text[to]&0xC0 == 0x80 {
		to++
	}
	s := strings.Join(strings.Fields(text[from:to]), " ")
	if from > 0 {
		s = "…" + s
	}
	if to < len(text) {
		s += "…"
	}
	return s
}

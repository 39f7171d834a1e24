package main

// The pure half of the benchmark: a git diff's hunks, and every answer made
// from them (the valid formats and the invalid mutations). Nothing here
// does I/O; answers_test.go covers it.

import (
	"bytes"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
)

// hunk is one hunk of a unified diff. lines keep their marker (' ', '-',
// '+' or '\' for "\ No newline at end of file") and their bytes as the
// diff wrote them (a CRLF file's lines end in '\r').
type hunk struct {
	oldStart, oldCount int
	newStart, newCount int
	section            string // what follows the second @@ (the enclosing function), with its leading space
	lines              []string
}

var hunkHeader = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$`)

// parseHunks reads the hunks of a one-file unified diff (git diff's
// output): everything before the first @@ line is the header and is
// dropped.
func parseHunks(diff string) ([]hunk, error) {
	var hunks []hunk
	lines := strings.Split(diff, "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	for i, l := range lines {
		if strings.HasPrefix(l, "@@ ") {
			m := hunkHeader.FindStringSubmatch(l)
			if m == nil {
				return nil, fmt.Errorf("line %d: bad hunk header %q", i+1, l)
			}
			h := hunk{oldStart: atoi(m[1]), oldCount: 1, newStart: atoi(m[3]), newCount: 1, section: m[5]}
			if m[2] != "" {
				h.oldCount = atoi(m[2])
			}
			if m[4] != "" {
				h.newCount = atoi(m[4])
			}
			hunks = append(hunks, h)
			continue
		}
		if len(hunks) == 0 {
			continue // diff --git, index, ---, +++
		}
		if l == "" || !strings.ContainsRune(" -+\\", rune(l[0])) {
			return nil, fmt.Errorf("line %d: not a hunk line: %q", i+1, l)
		}
		h := &hunks[len(hunks)-1]
		h.lines = append(h.lines, l)
	}
	for i, h := range hunks {
		old, nw := 0, 0
		for _, l := range h.lines {
			switch l[0] {
			case ' ':
				old++
				nw++
			case '-':
				old++
			case '+':
				nw++
			}
		}
		if old != h.oldCount || nw != h.newCount {
			return nil, fmt.Errorf("hunk %d: header says -%d +%d, lines say -%d +%d", i+1, h.oldCount, h.newCount, old, nw)
		}
	}
	if len(hunks) == 0 {
		return nil, fmt.Errorf("no hunk in the diff")
	}
	return hunks, nil
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// headerMode is how renderUnified writes the hunk headers.
type headerMode int

const (
	headersExact   headerMode = iota // git's own line numbers
	headersBare                      // "@@ @@": no numbers at all
	headersShifted                   // every start moved by shiftLines
)

// shiftLines is how far headersShifted moves each hunk's starts.
const shiftLines = 7

// rangeText is one side of a hunk header as git writes it: "start" for a
// one-line range, "start,count" otherwise.
func rangeText(start, count int) string {
	if count == 1 {
		return strconv.Itoa(start)
	}
	return strconv.Itoa(start) + "," + strconv.Itoa(count)
}

// headerLine renders a hunk's @@ line in the given mode.
func headerLine(h hunk, mode headerMode) string {
	switch mode {
	case headersBare:
		return "@@ @@"
	case headersShifted:
		return "@@ -" + rangeText(h.oldStart+shiftLines, h.oldCount) + " +" + rangeText(h.newStart+shiftLines, h.newCount) + " @@" + h.section
	}
	return "@@ -" + rangeText(h.oldStart, h.oldCount) + " +" + rangeText(h.newStart, h.newCount) + " @@" + h.section
}

// diffPath is how a unified diff's ---/+++ lines name a path: git's a/ and
// b/ prefixes for a relative path, none for an absolute one.
func diffPath(prefix, p string) string {
	if strings.HasPrefix(p, "/") {
		return p
	}
	return prefix + p
}

// renderUnified writes a one-file unified diff of path.
func renderUnified(path string, hunks []hunk, mode headerMode) string {
	var b strings.Builder
	b.WriteString("--- " + diffPath("a/", path) + "\n")
	b.WriteString("+++ " + diffPath("b/", path) + "\n")
	for _, h := range hunks {
		b.WriteString(headerLine(h, mode) + "\n")
		for _, l := range h.lines {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// fenced wraps a diff in a ```diff fence between two lines of prose.
func fenced(path, diff string) string {
	f := fence(diff)
	return "Here is the change to " + path + ", as a unified diff:\n\n" + f + "diff\n" + diff + f +
		"\n\nIt keeps the rest of the file as it is. Let me know if you want the tests updated too.\n"
}

// fence returns a code fence longer than any run of backticks in text (at
// least three).
func fence(text string) string {
	longest, run := 0, 0
	for i := 0; i < len(text); i++ {
		if text[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// infoString is the fence's language for a path's extension.
func infoString(path string) string {
	switch ext(path) {
	case ".go":
		return "go"
	case ".ts", ".tsx":
		return "typescript"
	case ".js", ".mjs":
		return "javascript"
	case ".py":
		return "python"
	}
	return ""
}

// block is one SEARCH/REPLACE block, as lines without their newlines.
type block struct {
	search, replace []string
}

// blocksOf turns each hunk into a block: SEARCH = its context and removed
// lines, REPLACE = its context and added lines, each in order.
func blocksOf(hunks []hunk) []block {
	out := make([]block, 0, len(hunks))
	for _, h := range hunks {
		var b block
		for _, l := range h.lines {
			switch l[0] {
			case ' ':
				b.search = append(b.search, l[1:])
				b.replace = append(b.replace, l[1:])
			case '-':
				b.search = append(b.search, l[1:])
			case '+':
				b.replace = append(b.replace, l[1:])
			}
		}
		out = append(out, b)
	}
	return out
}

// Markers of the SEARCH/REPLACE format.
const (
	markSearch  = "<<<<<<< SEARCH"
	markDivider = "======="
	markReplace = ">>>>>>> REPLACE"
)

// renderSearchReplace writes the path line, then one fence holding every
// block.
func renderSearchReplace(path string, blocks []block) string {
	var body strings.Builder
	for _, b := range blocks {
		body.WriteString(markSearch + "\n")
		for _, l := range b.search {
			body.WriteString(l + "\n")
		}
		body.WriteString(markDivider + "\n")
		for _, l := range b.replace {
			body.WriteString(l + "\n")
		}
		body.WriteString(markReplace + "\n")
	}
	f := fence(body.String())
	return path + "\n" + f + infoString(path) + "\n" + body.String() + f + "\n"
}

// renderWholeFile writes the path line, then a fence holding the whole new
// content (a final newline added when the content has none: the checker
// keeps the file's own final-newline state).
func renderWholeFile(path string, content []byte) string {
	text := string(content)
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	f := fence(text)
	return "The whole file, rewritten:\n\n" + path + "\n" + f + infoString(path) + "\n" + text + f + "\n"
}

// fileLines splits a file into its lines without the newlines (a final
// newline ends the last line, it does not start an empty one).
func fileLines(text []byte) []string {
	if len(text) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")
}

// countSeq counts the places where seq occurs as consecutive whole lines of
// lines (overlapping occurrences count).
func countSeq(lines, seq []string) int {
	if len(seq) == 0 {
		return 0
	}
	n := 0
outer:
	for i := 0; i+len(seq) <= len(lines); i++ {
		for j, s := range seq {
			if lines[i+j] != s {
				continue outer
			}
		}
		n++
	}
	return n
}

// searchesUnique reports whether every block's SEARCH occurs exactly once
// in the old file, and the first one that does not.
func searchesUnique(old []byte, blocks []block) (bool, int) {
	lines := fileLines(old)
	for i, b := range blocks {
		if countSeq(lines, b.search) != 1 {
			return false, i
		}
	}
	return true, -1
}

// hasFinalNewline reports whether a non-empty text ends in a newline.
func hasFinalNewline(text []byte) bool {
	return len(text) == 0 || text[len(text)-1] == '\n'
}

// hasMarkerLine reports whether a line of text is one of the
// SEARCH/REPLACE markers, which such an answer cannot carry.
func hasMarkerLine(text []byte) bool {
	for _, l := range fileLines(text) {
		l = strings.TrimSuffix(l, "\r")
		if l == markSearch || l == markDivider || l == markReplace || strings.HasPrefix(l, "<<<<<<< ") || strings.HasPrefix(l, ">>>>>>> ") {
			return true
		}
	}
	return false
}

// cloneHunks deep-copies hunks so that a mutation leaves the original.
func cloneHunks(hunks []hunk) []hunk {
	out := make([]hunk, len(hunks))
	for i, h := range hunks {
		h.lines = append([]string(nil), h.lines...)
		out[i] = h
	}
	return out
}

var word = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]{2,}`)

// mismatchWord replaces a word of a context or removed line: no file holds
// it.
const mismatchWord = "changebenchMismatch"

// alterContext returns the hunks with one word of one old-side line
// changed: the first removed line that has a word, else the first context
// line that has one. ok is false when no old-side line has a word. what
// names the line altered (for the report).
func alterContext(hunks []hunk) (out []hunk, what string, ok bool) {
	out = cloneHunks(hunks)
	for _, marker := range []byte{'-', ' '} {
		for hi := range out {
			for li, l := range out[hi].lines {
				if l[0] != marker {
					continue
				}
				loc := word.FindStringIndex(l[1:])
				if loc == nil {
					continue
				}
				out[hi].lines[li] = l[:1+loc[0]] + mismatchWord + l[1+loc[1]:]
				kind := "removed"
				if marker == ' ' {
					kind = "context"
				}
				return out, fmt.Sprintf("hunk %d, %s line %q: word %q changed", hi+1, kind, strings.TrimSpace(l[1:]), l[1+loc[0]:1+loc[1]]), true
			}
		}
	}
	return nil, "", false
}

// alterBlocks is alterContext for SEARCH/REPLACE blocks: one word of the
// first SEARCH line that has one.
func alterBlocks(blocks []block) ([]block, bool) {
	out := make([]block, len(blocks))
	for i, b := range blocks {
		out[i] = block{search: append([]string(nil), b.search...), replace: append([]string(nil), b.replace...)}
	}
	for bi := range out {
		for li, l := range out[bi].search {
			if loc := word.FindStringIndex(l); loc != nil {
				out[bi].search[li] = l[:loc[0]] + mismatchWord + l[loc[1]:]
				return out, true
			}
		}
	}
	return nil, false
}

// commentPrefix is a line comment's opening in a file of path's language.
func commentPrefix(path string) string {
	if ext(path) == ".py" {
		return "#"
	}
	return "//"
}

// syntaxChecked reports whether ctxd parses a path's language with
// tree-sitter, so that a broken line must be CHANGE_SYNTAX_ERROR.
func syntaxChecked(path string) bool {
	switch ext(path) {
	case ".go", ".ts", ".tsx", ".js", ".mjs", ".py":
		return true
	}
	return false
}

// breakSyntax returns the hunks with " (((" appended to one added line
// that looks like code (no comment, string delimiter that may span lines,
// or continuation): the first such line. When no added line is code (a
// change of comments only), it adds a hunk that appends a line "(((" at the
// end of the file, at top level, when the file ends in a newline and the
// last hunk leaves its last three lines alone. ok is false when neither
// can be done. what describes the broken line.
func breakSyntax(hunks []hunk, path string, old, nw []byte) (out []hunk, what string, ok bool) {
	out = cloneHunks(hunks)
	inside := spanned(nw, path)
	for hi := range out {
		line := out[hi].newStart // the new file's 1-based line of the hunk's next ' ' or '+' line
		for li, l := range out[hi].lines {
			n := line
			if l[0] != '-' && l[0] != '\\' {
				line++
			}
			if l[0] != '+' || !codeLine(l[1:], path) || n-1 < len(inside) && inside[n-1] {
				continue
			}
			body := strings.TrimSuffix(l, "\r")
			out[hi].lines[li] = body + " (((" + l[len(body):]
			return out, fmt.Sprintf("hunk %d, added line %q + \" (((\"", hi+1, strings.TrimSpace(l[1:])), true
		}
	}
	lines := fileLines(old)
	last := hunks[len(hunks)-1]
	if !hasFinalNewline(old) || len(lines) < 3 || last.oldStart+last.oldCount-1 >= len(lines)-3 {
		return nil, "", false
	}
	delta := 0
	for _, h := range hunks {
		delta += h.newCount - h.oldCount
	}
	cr := ""
	if strings.HasSuffix(lines[len(lines)-1], "\r") {
		cr = "\r"
	}
	start := len(lines) - 2
	h := hunk{oldStart: start, oldCount: 3, newStart: start + delta, newCount: 4}
	for _, l := range lines[start-1:] {
		h.lines = append(h.lines, " "+l)
	}
	h.lines = append(h.lines, "+((("+cr)
	return append(out, h), "a hunk added that appends the line \"(((\" to the file", true
}

// spanned marks the lines of text that a multi-line string or comment
// starts before or goes on after (a Python docstring, a Go raw string, a
// JavaScript template literal, a /* */ comment): text appended to such a
// line may land inside the string or comment, where it breaks nothing.
// The scan is lexical and rough (no escapes inside triple quotes, no
// regular expressions); a line it is unsure about is marked.
func spanned(text []byte, path string) []bool {
	python := strings.HasSuffix(path, ".py")
	lines := strings.Split(string(text), "\n")
	out := make([]bool, len(lines))
	open := "" // the delimiter that closes the region the scan is in
	for i, l := range lines {
		startedInside := open != ""
		for j := 0; j < len(l); {
			rest := l[j:]
			if open != "" {
				k := strings.Index(rest, open)
				if k < 0 {
					j = len(l)
					continue
				}
				j += k + len(open)
				open = ""
				continue
			}
			switch {
			case python && (strings.HasPrefix(rest, `"""`) || strings.HasPrefix(rest, "'''")):
				open = rest[:3]
				j += 3
			case python && rest[0] == '#', !python && strings.HasPrefix(rest, "//"):
				j = len(l)
			case !python && strings.HasPrefix(rest, "/*"):
				open = "*/"
				j += 2
			case !python && rest[0] == '`':
				open = "`"
				j++
			case rest[0] == '"' || rest[0] == '\'':
				// A one-line string: skip to its end (escapes honoured).
				q := rest[0]
				k := 1
				for k < len(rest) && rest[k] != q {
					if rest[k] == '\\' {
						k++
					}
					k++
				}
				j += k + 1
			default:
				j++
			}
		}
		out[i] = startedInside || open != ""
	}
	return out
}

// codeLine reports whether appending to line surely stays outside comments
// and strings.
func codeLine(line, path string) bool {
	t := strings.TrimSpace(line)
	if t == "" || strings.HasPrefix(t, "*") || strings.HasSuffix(t, "\\") {
		return false
	}
	for _, bad := range []string{"//", "/*", "*/", "`", "#", `"""`, "'''"} {
		if strings.Contains(t, bad) {
			return false
		}
	}
	if strings.Count(t, `"`)%2 == 1 || strings.Count(t, "'")%2 == 1 {
		return false
	}
	return true
}

// credential is a freshly made credential of one of two shapes, from r:
// an AWS access key id (AKIA + 16 of A-Z2-7) or a GitHub personal access
// token (ghp_ + 30 base62 characters + their base62 CRC-32, the shape
// GitHub issues). The tool's source holds no credential, only the
// prefixes.
func credential(r *rand.Rand, github bool) (name, value string) {
	if !github {
		const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
		b := []byte("AKIA")
		for range 16 {
			b = append(b, alphabet[r.IntN(len(alphabet))])
		}
		return "awsKey", string(b)
	}
	const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	body := make([]byte, 30)
	for i := range body {
		body[i] = base62[r.IntN(len(base62))]
	}
	sum := uint64(crc32.ChecksumIEEE(body))
	check := make([]byte, 6)
	for i := 5; i >= 0; i-- {
		check[i] = base62[sum%62]
		sum /= 62
	}
	return "githubToken", "ghp_" + string(body) + string(check)
}

// addSecret returns the hunks with one added line that assigns a
// credential, as a line comment (valid syntax wherever it lands): it is
// inserted after the first added line of the first hunk that has one, or
// after the first removed line, with that line's indentation.
func addSecret(hunks []hunk, path, name, value string) []hunk {
	out := cloneHunks(hunks)
	for _, marker := range []byte{'+', '-'} {
		for hi := range out {
			for li, l := range out[hi].lines {
				if l[0] != marker {
					continue
				}
				if li+1 < len(out[hi].lines) && out[hi].lines[li+1][0] == '\\' {
					continue // the file's last line, without a newline
				}
				indent := l[1 : 1+len(l[1:])-len(strings.TrimLeft(l[1:], " \t"))]
				cr := ""
				if strings.HasSuffix(l, "\r") {
					cr = "\r"
				}
				add := "+" + indent + commentPrefix(path) + " " + name + ` = "` + value + `"` + cr
				h := &out[hi]
				h.lines = append(h.lines[:li+1], append([]string{add}, h.lines[li+1:]...)...)
				h.newCount++
				for k := hi + 1; k < len(out); k++ {
					out[k].newStart++
				}
				return out
			}
		}
	}
	return nil
}

// ambiguousLine returns a line of text that occurs at least twice as a
// whole line (not blank): the most frequent, then the shortest, then the
// first in byte order. ok is false when every line is unique.
func ambiguousLine(text []byte) (line string, count int, ok bool) {
	counts := map[string]int{}
	for _, l := range fileLines(text) {
		if strings.TrimSpace(l) != "" {
			counts[l]++
		}
	}
	for l, n := range counts {
		if n < 2 {
			continue
		}
		if !ok || n > count || (n == count && (len(l) < len(line) || (len(l) == len(line) && l < line))) {
			line, count, ok = l, n, true
		}
	}
	return line, count, ok
}

// ambiguousAnswer is a SEARCH/REPLACE answer whose one block searches a
// line occurring more than once and appends a comment to it.
func ambiguousAnswer(path, line string) string {
	body := strings.TrimSuffix(line, "\r")
	repl := body + " " + commentPrefix(path) + " changebench" + line[len(body):]
	return renderSearchReplace(path, []block{{search: []string{line}, replace: []string{repl}}})
}

// prose is an answer without any change.
func prose(path string) string {
	return "I read " + path + " carefully. The code there already handles this case,\n" +
		"so no change is needed: the behaviour you describe comes from the caller.\n" +
		"If you want, I can add a test that shows it.\n"
}

// truncated is a diff cut after its file header, before any hunk.
func truncated(path string) string {
	return "Here is the diff:\n\n" + "--- " + diffPath("a/", path) + "\n+++ " + diffPath("b/", path) + "\n"
}

// toCRLF converts LF line ends to CRLF (the text holds no CR).
func toCRLF(text []byte) []byte {
	return bytes.ReplaceAll(text, []byte("\n"), []byte("\r\n"))
}

// bom is UTF-8's byte order mark.
var bom = []byte{0xEF, 0xBB, 0xBF}

// ext is a path's extension, lower case.
func ext(p string) string {
	i := strings.LastIndexByte(p, '.')
	if i < 0 || strings.ContainsRune(p[i:], '/') {
		return ""
	}
	return strings.ToLower(p[i:])
}

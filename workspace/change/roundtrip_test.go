package change

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// textFile is a file as lines plus the bytes around them.
type textFile struct {
	lines   []string
	eol     string
	bom     bool
	finalNL bool
}

func (f textFile) bytes() string {
	var b strings.Builder
	if f.bom {
		b.WriteString(bom)
	}
	for i, l := range f.lines {
		b.WriteString(l)
		if i < len(f.lines)-1 || f.finalNL {
			b.WriteString(f.eol)
		}
	}
	return b.String()
}

// op is one line of an edit script.
type op struct {
	kind byte // ' ', '-', '+'
	text string
}

// randomEdits returns an edit script of lines: a few places where some
// lines are removed and new (unique) lines added.
func randomEdits(r *rand.Rand, lines []string, iter int) []op {
	var ops []op
	edits := 0
	added := 0
	for i := 0; i <= len(lines); {
		if r.IntN(8) == 0 || (edits == 0 && i == len(lines)) {
			del := min(r.IntN(4), len(lines)-i)
			add := r.IntN(4)
			if del+add == 0 {
				add = 1
			}
			if del == len(lines) && add == 0 {
				add = 1
			}
			for k := range del {
				ops = append(ops, op{'-', lines[i+k]})
			}
			for range add {
				added++
				ops = append(ops, op{'+', fmt.Sprintf("new line %d.%d beta", iter, added)})
			}
			i += del
			edits++
		}
		if i < len(lines) {
			ops = append(ops, op{' ', lines[i]})
		}
		i++
	}
	return ops
}

// sides returns the old and new lines of ops.
func sides(ops []op) (old, new []string) {
	for _, o := range ops {
		if o.kind != '+' {
			old = append(old, o.text)
		}
		if o.kind != '-' {
			new = append(new, o.text)
		}
	}
	return old, new
}

// renderedHunk is a hunk of an edit script with 3 lines of context.
type renderedHunk struct {
	oldStart, oldCount, newStart, newCount int
	ops                                    []op
}

// hunksOf groups an edit script into hunks as diff -U3 does.
func hunksOf(ops []op) []renderedHunk {
	const context = 3
	var changed []int
	for i, o := range ops {
		if o.kind != ' ' {
			changed = append(changed, i)
		}
	}
	var out []renderedHunk
	for k := 0; k < len(changed); {
		first, last := changed[k], changed[k]
		for k+1 < len(changed) && changed[k+1]-last <= 2*context+1 {
			k++
			last = changed[k]
		}
		k++
		lo, hi := max(first-context, 0), min(last+context+1, len(ops))
		oldLine, newLine := 0, 0
		for _, o := range ops[:lo] {
			if o.kind != '+' {
				oldLine++
			}
			if o.kind != '-' {
				newLine++
			}
		}
		h := renderedHunk{ops: ops[lo:hi]}
		old, new := sides(h.ops)
		h.oldCount, h.newCount = len(old), len(new)
		h.oldStart, h.newStart = oldLine+1, newLine+1
		if h.oldCount == 0 {
			h.oldStart = oldLine
		}
		if h.newCount == 0 {
			h.newStart = newLine
		}
		out = append(out, h)
	}
	return out
}

// renderUnified writes ops as a unified diff of path. numbers chooses the
// @@ lines: "right", "none" (@@ @@, with context lines that are empty
// written without their space) or "wrong" (starts moved).
func renderUnified(r *rand.Rand, path string, ops []op, numbers string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Here is the change.\n\n```diff\n--- a/%s\n+++ b/%s\n", path, path)
	for _, h := range hunksOf(ops) {
		switch numbers {
		case "right":
			fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n", h.oldStart, h.oldCount, h.newStart, h.newCount)
		case "wrong":
			fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n", h.oldStart+1+r.IntN(40), h.oldCount, max(h.newStart-1-r.IntN(40), 1), h.newCount)
		default:
			b.WriteString("@@ @@\n")
		}
		for _, o := range h.ops {
			if numbers == "none" && o.kind == ' ' && o.text == "" {
				b.WriteString("\n")
				continue
			}
			b.WriteByte(o.kind)
			b.WriteString(o.text)
			b.WriteByte('\n')
		}
	}
	b.WriteString("```\n\nThat is all.\n")
	return b.String()
}

// renderSearchReplace writes each hunk of ops as a block.
func renderSearchReplace(path string, ops []op) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n```\n", path)
	for _, h := range hunksOf(ops) {
		old, new := sides(h.ops)
		b.WriteString("<<<<<<< SEARCH\n")
		for _, l := range old {
			b.WriteString(l + "\n")
		}
		b.WriteString("=======\n")
		for _, l := range new {
			b.WriteString(l + "\n")
		}
		b.WriteString(">>>>>>> REPLACE\n")
	}
	b.WriteString("```\n")
	return b.String()
}

// renderWhole writes the new text whole.
func renderWhole(path string, lines []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**\n\n````text\n", path)
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	b.WriteString("````\n")
	return b.String()
}

// syntheticFile returns a file whose non-empty lines are all different,
// with empty lines (never two together, never last) among them.
func syntheticFile(r *rand.Rand, id int) []string {
	n := 1 + r.IntN(60)
	lines := make([]string, 0, n)
	for i := range n {
		if i > 0 && lines[i-1] != "" && r.IntN(6) == 0 {
			lines = append(lines, "")
			continue
		}
		lines = append(lines, fmt.Sprintf("file %d line %d alpha%s", id, i, strings.Repeat(" x", r.IntN(3))))
	}
	if lines[len(lines)-1] == "" {
		// An empty last line without a newline is no line at all.
		lines = lines[:len(lines)-1]
	}
	return lines
}

// TestRoundTrip renders random edits of files in every format and checks
// that each applies to exactly the edited bytes, whatever the file's line
// ends, BOM and final newline.
func TestRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(2026, 1))
	iters := 300
	if testing.Short() {
		iters = 50
	}
	for iter := range iters {
		lines := syntheticFile(r, iter)
		base := textFile{lines: lines, eol: "\n", bom: r.IntN(5) == 0, finalNL: r.IntN(4) != 0}
		if r.IntN(3) == 0 {
			base.eol = "\r\n"
		}
		ops := randomEdits(r, lines, iter)
		_, newLines := sides(ops)
		want := textFile{lines: newLines, eol: base.eol, bom: base.bom, finalNL: base.finalNL}.bytes()
		path := fmt.Sprintf("dir/f%d.txt", iter)
		answers := map[string]string{
			"unified, right numbers": renderUnified(r, path, ops, "right"),
			"unified, no numbers":    renderUnified(r, path, ops, "none"),
			"unified, wrong numbers": renderUnified(r, path, ops, "wrong"),
			"search/replace":         renderSearchReplace(path, ops),
			"whole file":             renderWhole(path, newLines),
		}
		for _, name := range []string{"unified, right numbers", "unified, no numbers", "unified, wrong numbers", "search/replace", "whole file"} {
			res, rej := parseApply(t, answers[name], file(path, base.bytes()))
			if rej != nil {
				t.Fatalf("iteration %d, %s: rejected: %s\nfile %q\nanswer:\n%s", iter, name, rej.ErrorContext.Message, base.bytes(), answers[name])
			}
			if got := string(res.Files[0].After); got != want {
				t.Fatalf("iteration %d, %s:\nfile   %q\ngot    %q\nwant   %q\nanswer:\n%s", iter, name, base.bytes(), got, want, answers[name])
			}
		}
	}
}

// TestRoundTripRealFiles edits real source files, with their repeated
// lines ("}", "return nil"): a diff with right numbers always applies
// exactly; without numbers, or as blocks, a change either applies exactly
// or is rejected as ambiguous, never applied elsewhere.
func TestRoundTripRealFiles(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for _, name := range []string{"parse.go", "apply.go", "text.go"} {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		for iter := range 20 {
			ops := randomEdits(r, lines, iter)
			_, newLines := sides(ops)
			want := textFile{lines: newLines, eol: "\n", finalNL: true}.bytes()
			// A .txt path: random edits break Go's syntax.
			path := name + ".txt"
			for _, variant := range []string{"right", "none", "search/replace", "whole"} {
				var answer string
				switch variant {
				case "search/replace":
					answer = renderSearchReplace(path, ops)
				case "whole":
					answer = renderWhole(path, newLines)
				default:
					answer = renderUnified(r, path, ops, variant)
				}
				res, rej := parseApply(t, answer, file(path, string(data)))
				if rej != nil {
					if rej.Code == CodeAmbiguousMatch && (variant == "none" || variant == "search/replace") {
						continue
					}
					t.Fatalf("%s, iteration %d, %s: rejected: %s", name, iter, variant, rej.ErrorContext.Message)
				}
				if got := string(res.Files[0].After); got != want {
					t.Fatalf("%s, iteration %d, %s: applied elsewhere; answer:\n%s", name, iter, variant, answer)
				}
			}
		}
	}
}

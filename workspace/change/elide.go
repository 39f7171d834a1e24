package change

import (
	"fmt"
	"regexp"
	"strings"
)

// elisionWords are what a model writes in a placeholder that stands for
// code it left out of a whole file ("// ... existing code ...", "# rest of
// the file unchanged").
var elisionWords = regexp.MustCompile(`(?i)\b(existing|unchanged|rest of|remain(s|ing|der)?|omitted|same as (before|above)|previous (code|implementation)|other (code|methods|functions)|as before|no changes?)\b`)

// commentLead strips the comment markers a placeholder line is written
// with.
var commentLead = strings.NewReplacer("//", " ", "/*", " ", "*/", " ", "#", " ", "--", " ", "<!--", " ", "-->", " ", "'", " ")

// isElision reports whether a line of a whole-file answer is a placeholder
// for code the model left out: a comment (or a bare line) holding an
// ellipsis and a word such as "existing" or "unchanged", and nothing that
// looks like code. Writing it would delete the code it stands for.
func isElision(line string) bool {
	t := strings.TrimSpace(line)
	if t == "" || len(t) > 160 {
		return false
	}
	if !strings.Contains(t, "...") && !strings.Contains(t, "…") {
		return false
	}
	rest := strings.TrimSpace(commentLead.Replace(t))
	rest = strings.Trim(rest, ".… []{}()")
	if rest == "" || strings.ContainsAny(rest, ";=(){}") {
		return false
	}
	return elisionWords.MatchString(rest)
}

// elidedRejection rejects a whole file that leaves code out behind a
// placeholder line: applied, it would delete that code.
func elidedRejection(path string, line int, text string) *Rejection {
	msg := fmt.Sprintf("%s:%d: the whole file holds a placeholder for code it leaves out (%q); written as is, it would delete that code", path, line, strings.TrimSpace(text))
	return newRejection(CodeMalformed, relativePath(path), msg,
		"send the complete file, every line of it, or only the changed part as a unified diff or SEARCH/REPLACE blocks")
}

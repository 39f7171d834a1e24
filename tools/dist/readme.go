package main

import (
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
)

// placeholder is an @NAME@ of the README.txt template.
var placeholder = regexp.MustCompile(`@[A-Z]+@`)

// RenderReadme fills the README.txt template tmpl: every @NAME@ with
// vars[NAME], then the tables. A table is a run of lines whose two
// columns the template separates with a tab; the second column is
// aligned two spaces after the widest first one, after substitution,
// so that a value of any length (ctxd or ctxd.exe) keeps it straight.
// crlf ends the lines with CR LF (Notepad). A placeholder without a
// value is an error, not a literal "@NAME@" in a release.
func RenderReadme(tmpl string, vars map[string]string, crlf bool) (string, error) {
	var missing []string
	text := placeholder.ReplaceAllStringFunc(tmpl, func(p string) string {
		v, ok := vars[strings.Trim(p, "@")]
		if !ok {
			missing = append(missing, p)
			return p
		}
		return v
	})
	if len(missing) > 0 {
		sort.Strings(missing)
		return "", fmt.Errorf("README template: no value for %s", strings.Join(missing, ", "))
	}
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); {
		if !strings.Contains(lines[i], "\t") {
			i++
			continue
		}
		j := i
		width := 0
		for ; j < len(lines) && strings.Contains(lines[j], "\t"); j++ {
			first, _, _ := strings.Cut(lines[j], "\t")
			width = max(width, utf8.RuneCountInString(first))
		}
		for k := i; k < j; k++ {
			first, rest, _ := strings.Cut(lines[k], "\t")
			if strings.Contains(rest, "\t") {
				return "", fmt.Errorf("README template: line %d has more than two columns", k+1)
			}
			lines[k] = first + strings.Repeat(" ", width-utf8.RuneCountInString(first)+2) + rest
		}
		i = j
	}
	text = strings.Join(lines, "\n")
	if crlf {
		text = strings.ReplaceAll(text, "\n", "\r\n")
	}
	return text, nil
}

// writeReadme renders the template file tmplPath into out.
func writeReadme(tmplPath, out string, vars map[string]string, crlf bool) error {
	tmpl, err := os.ReadFile(tmplPath)
	if err != nil {
		return fmt.Errorf("read README template: %w", err)
	}
	text, err := RenderReadme(string(tmpl), vars, crlf)
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, []byte(text), 0o644); err != nil {
		return fmt.Errorf("write README: %w", err)
	}
	return nil
}

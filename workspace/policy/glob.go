package policy

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ctxd/ctxd/index/ignore"
)

// glob is a compiled namespace glob (syntax in the package comment). Its
// syntax is checked here, more strictly than git's; matching is
// index/ignore's wildmatch engine on characters (ignore.GlobOptions
// Runes), which agrees with the namespace syntax on every glob that passes
// the check, with one exception handled here: a trailing "/**" also
// matches the directory itself ("src/**" matches "src"), where git's needs
// something below it.
type glob struct {
	g *ignore.Glob
	// dir is the glob without its trailing "/**", matching the directory
	// itself; nil when the glob does not end in "/**" (or is "**").
	dir *ignore.Glob
}

// compileGlob parses s. The error says what is wrong with it in words
// suited to follow "glob ... is invalid: ".
func compileGlob(s string) (*glob, error) {
	switch {
	case s == "":
		return nil, errors.New("it is empty")
	case !utf8.ValidString(s):
		return nil, errors.New("it is not valid UTF-8")
	case strings.HasPrefix(s, "/"):
		return nil, errors.New(`it starts with "/"; globs are relative to the workspace root`)
	case strings.HasSuffix(s, "/"):
		return nil, errors.New(`it ends with "/"; write "dir/**" for everything below a directory`)
	case strings.ContainsRune(s, '\\'):
		return nil, errors.New(`it contains a backslash; separate directories with "/" and write "[*]" for a literal "*"`)
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return nil, errors.New("it contains a control character")
		}
	}
	// segs are the segments in wildmatch syntax.
	var segs []string
	for _, part := range strings.Split(s, "/") {
		switch part {
		case "":
			return nil, errors.New(`it contains an empty segment ("//")`)
		case ".", "..":
			return nil, fmt.Errorf("it contains a %q segment; globs name paths inside the workspace, without . or .. segments", part)
		case "**":
			// Consecutive "**" mean the same as one; keep one so that the
			// matcher has fewer ways to split a path.
			if n := len(segs); n > 0 && segs[n-1] == "**" {
				continue
			}
			segs = append(segs, part)
			continue
		}
		seg, err := compileSegment(part)
		if err != nil {
			return nil, err
		}
		segs = append(segs, seg)
	}
	g := &glob{g: wildmatch(strings.Join(segs, "/"))}
	if n := len(segs); n > 1 && segs[n-1] == "**" {
		g.dir = wildmatch(strings.Join(segs[:n-1], "/"))
	}
	return g, nil
}

// wildmatch compiles a glob of characters that compileGlob checked.
func wildmatch(s string) *ignore.Glob {
	g, ok := ignore.CompileGlob(s, ignore.GlobOptions{Runes: true})
	if !ok {
		// compileSegment rejects everything git cannot match
		// (unterminated classes) and writes no [:name:] class.
		panic(fmt.Sprintf("policy: checked glob %q does not compile", s))
	}
	return g
}

// compileSegment checks one segment other than "**" and returns it in
// wildmatch syntax: the same text, with every '[' inside a class escaped
// so that git's [:name:] classes, which namespace globs do not have, never
// apply ("[[:a]" is the class of '[', ':' and 'a' in both).
func compileSegment(s string) (string, error) {
	if !strings.ContainsAny(s, "*?[]") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		switch s[i] {
		case '*':
			if i+1 < len(s) && s[i+1] == '*' {
				return "", fmt.Errorf(`%q uses "**" inside a segment; "**" must be a whole segment ("a/**/b"), use "*" within one`, s)
			}
			b.WriteByte('*')
			i++
		case '[':
			end, err := checkClass(s, i)
			if err != nil {
				return "", err
			}
			b.WriteString(s[i : i+1])
			b.WriteString(strings.ReplaceAll(s[i+1:end], "[", `\[`))
			i = end
		case ']':
			return "", fmt.Errorf(`%q has a "]" without "["; write "[]]" for a literal "]"`, s)
		default:
			b.WriteByte(s[i])
			i++
		}
	}
	return b.String(), nil
}

// checkClass checks the bracket expression starting at s[open] == '[' and
// returns the offset just past its closing ']'. A class is '!' or '^' to
// negate, then characters and ranges "a-z", a ']' right after the opening
// (and negation) being literal and a '-' before the closing ']' too.
func checkClass(s string, open int) (int, error) {
	i := open + 1
	if i < len(s) && (s[i] == '!' || s[i] == '^') {
		i++
	}
	first := true
	for {
		if i >= len(s) {
			return 0, fmt.Errorf(`%q has an unterminated "[" class`, s)
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == ']' && !first {
			return i + n, nil
		}
		first = false
		i += n
		// A '-' between two characters makes a range; one before the
		// closing ']' is literal.
		if i+1 < len(s) && s[i] == '-' && s[i+1] != ']' {
			r2, n2 := utf8.DecodeRuneInString(s[i+1:])
			if r2 < r {
				return 0, fmt.Errorf("%q has the reversed range %q", s, string(r)+"-"+string(r2))
			}
			i += 1 + n2
		}
	}
}

// match reports whether path, a clean workspace-relative path, matches. A
// path the wildmatch engine cannot decide within its step budget (only
// crafted globs and paths) does not match: a path is then left out of the
// namespace, and so never allowed by it.
func (g *glob) match(path string) bool {
	if m, unsure := g.g.Match(path); m && !unsure {
		return true
	}
	if g.dir == nil {
		return false
	}
	m, unsure := g.dir.Match(path)
	return m && !unsure
}

// cleanPath reports whether p is a clean workspace-relative path: not
// empty, no leading or trailing '/', no empty, "." or ".." segment, valid
// UTF-8. Anything else matches no glob, so that "**" can never reach
// outside the workspace.
func cleanPath(p string) bool {
	if p == "" || !utf8.ValidString(p) || strings.ContainsRune(p, 0) {
		return false
	}
	for seg := range strings.SplitSeq(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	return true
}

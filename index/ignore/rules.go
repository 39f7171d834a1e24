package ignore

import (
	"bytes"
	"path"
	"runtime"
	"strconv"
	"strings"
)

// foldCase reports whether NewRules compares case-insensitively. git sets
// core.ignorecase on the case-insensitive file systems that macOS and
// Windows use by default, and a pattern "build/" must then also hide
// "Build/": missing it would expose a file the user meant to ignore.
// Everywhere else git, and ctxd, compare bytes exactly.
var foldCase = runtime.GOOS == "darwin" || runtime.GOOS == "windows"

// Rules are the patterns of one ignore file, immutable. The nil *Rules is
// valid and matches nothing.
type Rules struct {
	dir    string
	source string
	fold   bool
	// absolute rules (the deny rules, an ignore file that could not be read)
	// are evaluated before and apart from ordinary ones, so that no
	// negation anywhere can re-include what they match.
	absolute bool
	patterns []pattern
	// byEnd narrows the search in larger files: for each last byte of a
	// path (folded when fold is set), the ascending indices of the
	// patterns that can match a path ending in it. Nil for small files.
	byEnd *[256][]int32
}

// indexFrom is the number of patterns from which a Rules builds byEnd.
const indexFrom = 16

// NewRules parses the content of an ignore file located in directory dir
// (slash-separated, relative to the workspace root, "" for the root).
// source names the file for reasons ("sub/.gitignore", ".git/info/exclude",
// ".ctxdignore", "deny"); it appears in [Decision.Rule].
//
// The syntax is git's (gitignore(5)), including what git does with odd
// input: a UTF-8 byte order mark at the start is skipped, "\r\n" ends a line
// like "\n" (a lone "\r" does not), a line is cut at a NUL byte, unescaped
// trailing spaces are removed, and a pattern git can never match (an
// unterminated "[" class, a trailing lone backslash) is kept out. Nothing is
// rejected: every input yields Rules.
func NewRules(dir, source string, data []byte) *Rules {
	return parse(cleanDir(dir), source, data, foldCase)
}

// Dir returns the directory the rules apply below ("" for the root).
func (r *Rules) Dir() string {
	if r == nil {
		return ""
	}
	return r.dir
}

// Source returns the name given to NewRules.
func (r *Rules) Source() string {
	if r == nil {
		return ""
	}
	return r.source
}

// Len returns the number of patterns that can match something (comments,
// blank lines and unmatchable patterns are not counted).
func (r *Rules) Len() int {
	if r == nil {
		return 0
	}
	return len(r.patterns)
}

// cleanDir turns dir into the form paths are compared with: no "./", no
// leading or trailing slash, "" for the root. A directory above the
// workspace ("../x") stays as it is: it is the prefix of no valid path, so
// its rules apply to nothing.
func cleanDir(dir string) string {
	d := path.Clean(dir)
	if d == "." || d == "/" {
		return ""
	}
	return strings.TrimLeft(d, "/")
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

func parse(dir, source string, data []byte, fold bool) *Rules {
	r := &Rules{dir: dir, source: source, fold: fold}
	data = bytes.TrimPrefix(data, utf8BOM)
	for line := 1; len(data) > 0; line++ {
		raw := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			raw, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		// git tests for a comment before removing "\r" and spaces, so
		// " #x" is a pattern.
		if len(raw) == 0 || raw[0] == '#' {
			continue
		}
		raw = bytes.TrimSuffix(raw, []byte{'\r'})
		// git keeps patterns as C strings: a NUL ends the pattern.
		if i := bytes.IndexByte(raw, 0); i >= 0 {
			raw = raw[:i]
		}
		text := string(trimTrailingSpaces(raw))
		p, ok := compilePattern(text, fold)
		if !ok {
			continue
		}
		p.rule = source + ":" + strconv.Itoa(line) + ": " + text
		r.patterns = append(r.patterns, p)
	}
	if len(r.patterns) >= indexFrom {
		r.index()
	}
	return r
}

// index builds byEnd, with all lists in one allocation.
func (r *Rules) index() {
	ends := make([]*byteSet, len(r.patterns))
	total := 0
	for i := range r.patterns {
		ends[i] = r.patterns[i].ends()
		for c := range 256 {
			if ends[i] == nil || ends[i].has(byte(c)) {
				total++
			}
		}
	}
	all := make([]int32, 0, total)
	r.byEnd = new([256][]int32)
	for c := range 256 {
		start := len(all)
		for i, e := range ends {
			if e == nil || e.has(byte(c)) {
				all = append(all, int32(i))
			}
		}
		r.byEnd[c] = all[start:len(all):len(all)]
	}
}

// lastMatch returns the last pattern that matches p, a path below r.dir:
// sub is p relative to r.dir, base its last element.
func (r *Rules) lastMatch(sub, base string, isDir bool) *pattern {
	if r.byEnd != nil {
		list := r.byEnd[foldByte(sub[len(sub)-1], r.fold)]
		for k := len(list) - 1; k >= 0; k-- {
			if pt := &r.patterns[list[k]]; (isDir || !pt.dirOnly) && pt.matches(sub, base) {
				return pt
			}
		}
		return nil
	}
	for j := len(r.patterns) - 1; j >= 0; j-- {
		if pt := &r.patterns[j]; (isDir || !pt.dirOnly) && pt.matches(sub, base) {
			return pt
		}
	}
	return nil
}

// trimTrailingSpaces removes trailing spaces that are not escaped with a
// backslash. Only ' ' counts, not tabs; a line ending in a lone backslash
// keeps its spaces, as in git.
func trimTrailingSpaces(s []byte) []byte {
	cut := -1 // start of the current run of spaces
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			if cut < 0 {
				cut = i
			}
		case '\\':
			i++
			if i == len(s) {
				return s
			}
			cut = -1
		default:
			cut = -1
		}
	}
	if cut >= 0 {
		return s[:cut]
	}
	return s
}

// kind selects how a pattern is matched; the simple kinds avoid the glob
// matcher for the forms that make up most real ignore files.
type kind uint8

const (
	kindGlob   kind = iota // head, then the glob
	kindExact              // the name equals head
	kindPrefix             // "head*": head, then anything without '/'
	kindSuffix             // "*tail": anything without '/', then tail
	kindAll                // everything (an ignore file that could not be read)
)

// pattern is one compiled line.
type pattern struct {
	// rule is "source:line: text", the Decision.Rule of this line.
	rule    string
	negate  bool
	dirOnly bool
	// basename patterns (no '/' but a trailing one) match the last path
	// element at any depth; the others match the path relative to the
	// ignore file's directory.
	basename bool
	kind     kind
	fold     bool
	// head is the literal start of the pattern, up to its first special
	// character; git compares it before globbing what follows.
	head string
	// tail is the literal end of a kindSuffix pattern.
	tail string
	g    *glob
}

// compilePattern compiles one trimmed line. ok is false for lines that can
// match nothing ("", "!", "/", unterminated classes...).
func compilePattern(text string, fold bool) (p pattern, ok bool) {
	p.fold = fold
	s := text
	if strings.HasPrefix(s, "!") {
		p.negate = true
		s = s[1:]
	}
	if strings.HasSuffix(s, "/") {
		p.dirOnly = true
		s = s[:len(s)-1]
	}
	p.basename = strings.IndexByte(s, '/') < 0
	if !p.basename && s[0] == '/' {
		// A leading slash only anchors, which a slash anywhere else does as
		// well: "/a" and "a/b" both match from the ignore file's directory.
		s = s[1:]
	}
	if s == "" {
		return p, false
	}
	p.head, s = splitHead(s)
	switch {
	case s == "":
		p.kind = kindExact
	case s == "*":
		p.kind = kindPrefix
	case p.head == "" && len(s) > 1 && s[0] == '*' && !strings.ContainsAny(s[1:], `*?[\`):
		p.kind = kindSuffix
		p.tail = s[1:]
	default:
		g, ok := compileGlob(s, fold)
		if !ok {
			return p, false
		}
		p.kind = kindGlob
		p.g = g
	}
	return p, true
}

// ends returns the set of bytes a path the pattern matches can end with
// (folded when the pattern folds case); nil when it can end with anything.
func (p *pattern) ends() *byteSet {
	var lit string
	switch p.kind {
	case kindExact:
		lit = p.head
	case kindSuffix:
		lit = p.tail
	case kindGlob:
		lit = p.g.tail
		if n := len(p.g.toks); lit == "" && p.g.toks[n-1].op == opClass {
			set := &byteSet{}
			for c := range 256 {
				if p.g.toks[n-1].set.has(byte(c)) {
					set.add(foldByte(byte(c), p.fold))
				}
			}
			return set
		}
	}
	if lit == "" {
		return nil
	}
	set := &byteSet{}
	set.add(foldByte(lit[len(lit)-1], p.fold))
	return set
}

// matches reports whether the pattern matches a path: sub is the path
// relative to the ignore file's directory and base its last element. A
// glob that exhausts its step budget counts as matching for an ignore line
// and as not matching for a negation: when unsure, exclude.
func (p *pattern) matches(sub, base string) bool {
	name := sub
	if p.basename {
		name = base
	}
	switch p.kind {
	case kindExact:
		return equalFold(name, p.head, p.fold)
	case kindPrefix:
		return len(name) >= len(p.head) && equalFold(name[:len(p.head)], p.head, p.fold) &&
			strings.IndexByte(name[len(p.head):], '/') < 0
	case kindSuffix:
		return hasSuffixFold(name, p.tail, p.fold) &&
			strings.IndexByte(name[:len(name)-len(p.tail)], '/') < 0
	case kindAll:
		return true
	}
	if len(name) < len(p.head) || !equalFold(name[:len(p.head)], p.head, p.fold) {
		return false
	}
	m, unsure := p.g.match(name[len(p.head):])
	if unsure {
		return !p.negate
	}
	return m
}

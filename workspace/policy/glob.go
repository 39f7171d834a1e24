package policy

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// glob is a compiled namespace glob (syntax in the package comment): a list
// of segment matchers, each consuming exactly one path segment, or "**".
type glob struct {
	segs []segment
}

// segment matches one path segment.
type segment struct {
	// deep marks "**": any number of segments, none included.
	deep bool
	// lit is the whole segment when it has no wildcard (fast path).
	lit string
	// toks are the segment's elements when it has a wildcard.
	toks []gtok
}

// gkind is the kind of one element of a segment.
type gkind uint8

const (
	gLit   gkind = iota // the character r
	gOne                // '?': any one character
	gStar               // '*': any run of characters
	gClass              // "[...]": a character of cls
)

// gtok is one element of a segment.
type gtok struct {
	kind gkind
	r    rune
	cls  *charClass
}

// charClass is a bracket expression: ranges of characters, possibly
// negated.
type charClass struct {
	negate bool
	ranges []runeRange
}

// runeRange is an inclusive range of characters.
type runeRange struct{ lo, hi rune }

func (c *charClass) has(r rune) bool {
	in := false
	for _, rg := range c.ranges {
		if rg.lo <= r && r <= rg.hi {
			in = true
			break
		}
	}
	return in != c.negate
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
	g := &glob{}
	for _, part := range strings.Split(s, "/") {
		switch part {
		case "":
			return nil, errors.New(`it contains an empty segment ("//")`)
		case ".", "..":
			return nil, fmt.Errorf("it contains a %q segment; globs name paths inside the workspace, without . or .. segments", part)
		case "**":
			// Consecutive "**" mean the same as one; keep one so matching
			// stays linear.
			if n := len(g.segs); n > 0 && g.segs[n-1].deep {
				continue
			}
			g.segs = append(g.segs, segment{deep: true})
			continue
		}
		seg, err := compileSegment(part)
		if err != nil {
			return nil, err
		}
		g.segs = append(g.segs, seg)
	}
	return g, nil
}

// compileSegment parses one segment other than "**".
func compileSegment(s string) (segment, error) {
	if !strings.ContainsAny(s, "*?[]") {
		return segment{lit: s}, nil
	}
	var toks []gtok
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch r {
		case '*':
			if i+1 < len(s) && s[i+1] == '*' {
				return segment{}, fmt.Errorf(`%q uses "**" inside a segment; "**" must be a whole segment ("a/**/b"), use "*" within one`, s)
			}
			toks = append(toks, gtok{kind: gStar})
			i++
		case '?':
			toks = append(toks, gtok{kind: gOne})
			i++
		case '[':
			cls, end, err := compileClass(s, i)
			if err != nil {
				return segment{}, err
			}
			toks = append(toks, gtok{kind: gClass, cls: cls})
			i = end
		case ']':
			return segment{}, fmt.Errorf(`%q has a "]" without "["; write "[]]" for a literal "]"`, s)
		default:
			toks = append(toks, gtok{kind: gLit, r: r})
			i += n
		}
	}
	return segment{toks: toks}, nil
}

// compileClass parses the bracket expression starting at s[open] == '['
// and returns it with the offset just past its closing ']'.
func compileClass(s string, open int) (*charClass, int, error) {
	cls := &charClass{}
	i := open + 1
	if i < len(s) && (s[i] == '!' || s[i] == '^') {
		cls.negate = true
		i++
	}
	first := true
	for {
		if i >= len(s) {
			return nil, 0, fmt.Errorf(`%q has an unterminated "[" class`, s)
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == ']' && !first {
			i += n
			break
		}
		first = false
		i += n
		lo, hi := r, r
		// A '-' between two characters makes a range; one before the
		// closing ']' is literal.
		if i+1 < len(s) && s[i] == '-' && s[i+1] != ']' {
			r2, n2 := utf8.DecodeRuneInString(s[i+1:])
			if r2 < r {
				return nil, 0, fmt.Errorf("%q has the reversed range %q", s, string(r)+"-"+string(r2))
			}
			hi = r2
			i += 1 + n2
		}
		cls.ranges = append(cls.ranges, runeRange{lo, hi})
	}
	return cls, i, nil
}

// match reports whether path, a clean workspace-relative path, matches.
// Like a single '*' in a wildcard match, only the latest "**" ever needs to
// be retried with one more segment: every other element consumes exactly
// one segment, so an earlier "**" absorbing more cannot help a match the
// latest one failed.
func (g *glob) match(path string) bool {
	segs := strings.Split(path, "/")
	pi, si := 0, 0
	backP, backS := -1, 0
	for {
		if pi < len(g.segs) {
			if g.segs[pi].deep {
				backP, backS = pi, si
				pi++
				continue
			}
			if si < len(segs) && g.segs[pi].match(segs[si]) {
				pi++
				si++
				continue
			}
		} else if si == len(segs) {
			return true
		}
		if backP >= 0 && backS < len(segs) {
			backS++
			pi, si = backP+1, backS
			continue
		}
		return false
	}
}

// match reports whether name, one path segment, matches. The same
// single-backtrack argument as glob.match holds for '*' over characters.
func (s *segment) match(name string) bool {
	if s.toks == nil {
		return s.lit == name
	}
	ti, ni := 0, 0
	backT, backN := -1, 0
	for {
		if ti < len(s.toks) {
			t := s.toks[ti]
			if t.kind == gStar {
				backT, backN = ti, ni
				ti++
				continue
			}
			if ni < len(name) {
				r, n := utf8.DecodeRuneInString(name[ni:])
				if t.accepts(r) {
					ti++
					ni += n
					continue
				}
			}
		} else if ni == len(name) {
			return true
		}
		if backT >= 0 && backN < len(name) {
			_, n := utf8.DecodeRuneInString(name[backN:])
			backN += n
			ti, ni = backT+1, backN
			continue
		}
		return false
	}
}

func (t gtok) accepts(r rune) bool {
	switch t.kind {
	case gLit:
		return t.r == r
	case gOne:
		return true
	case gClass:
		return t.cls.has(r)
	}
	return false
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

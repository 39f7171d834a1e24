package change

import (
	"strings"

	"github.com/ctxd/ctxd/index/syntax"
)

// Python's indentation is syntax that tree-sitter's error recovery lets
// through: an unexpected indent, a dedent to no outer level, or a block
// opener (a line ending in ":") without an indented block parse without
// an ERROR node, yet CPython refuses the file. pythonIndentErrors reads the
// logical lines as CPython's tokenizer does — strings (triple-quoted ones
// spanning lines), comments, brackets and backslash continuations — and
// reports those three errors, so that a change that breaks a Python
// file's indentation is a CHANGE_SYNTAX_ERROR like any other syntax error.

// indentKind is the prefix of an indentation error's Kind.
const indentKind = "indentation: "

// pyScanner is the tokenizer state carried from one physical line to the
// next.
type pyScanner struct {
	quote string // the delimiter of the string the line starts in ("" outside)
	depth int    // open brackets
	cont  bool   // the previous line ended with a backslash continuation
}

// scan reads one physical line and reports whether its code ends with ":"
// (outside strings, comments and brackets).
func (s *pyScanner) scan(l string) (colon bool) {
	s.cont = false
	last := byte(0)
	for j := 0; j < len(l); {
		c := l[j]
		if s.quote != "" {
			switch {
			case c == '\\':
				j += 2
			case strings.HasPrefix(l[j:], s.quote):
				j += len(s.quote)
				s.quote = ""
				last = 'x'
			default:
				j++
			}
			continue
		}
		switch {
		case c == '#':
			j = len(l)
			continue
		case c == '"' || c == '\'':
			s.quote = string(c)
			if strings.HasPrefix(l[j:], strings.Repeat(string(c), 3)) {
				s.quote = strings.Repeat(string(c), 3)
			}
			j += len(s.quote)
			continue
		case c == '(' || c == '[' || c == '{':
			s.depth++
		case c == ')' || c == ']' || c == '}':
			if s.depth > 0 {
				s.depth--
			}
		case c == '\\' && j == len(strings.TrimRight(l, " \t\r"))-1:
			s.cont = true
		}
		if c != ' ' && c != '\t' && c != '\r' && c != '\f' {
			last = c
		}
		j++
	}
	switch {
	case len(s.quote) == 1 && strings.HasSuffix(strings.TrimRight(l, "\r"), "\\"):
		// A one-quote string continued on the next line.
	case len(s.quote) == 1:
		s.quote = "" // unterminated: tree-sitter reports it
	}
	return last == ':' && s.depth == 0 && s.quote == "" && !s.cont
}

// indentWidth is a line's indentation as CPython counts it (a tab to the
// next multiple of 8) and its length in bytes.
func indentWidth(l string) (width, n int) {
	for n < len(l) {
		switch l[n] {
		case ' ':
			width++
		case '\t':
			width = width/8*8 + 8
		case '\f':
			width = 0
		default:
			return width, n
		}
		n++
	}
	return width, n
}

// pythonIndentErrors returns up to max indentation errors of src, in
// document order, with the positions and Kinds SyntaxErrors uses.
func pythonIndentErrors(src []byte, max int) []syntax.ErrorPos {
	var out []syntax.ErrorPos
	var s pyScanner
	stack := []int{0}
	opener := false // the previous logical line ends with ":"
	openerAt := syntax.ErrorPos{}
	off := 0
	text := string(src)
	add := func(e syntax.ErrorPos) bool {
		out = append(out, e)
		return max > 0 && len(out) >= max
	}
	for i := 0; off <= len(text); i++ {
		end := strings.IndexByte(text[off:], '\n')
		if end < 0 {
			end = len(text) - off
		}
		l := text[off : off+end]
		logical := s.quote == "" && s.depth == 0 && !s.cont
		width, n := indentWidth(l)
		body := strings.TrimRight(l[n:], " \t\r\f")
		if logical && body != "" && body[0] != '#' {
			at := syntax.ErrorPos{Line: uint32(i), Column: uint32(n), Offset: uint32(off + n), End: uint32(off + end)}
			top := stack[len(stack)-1]
			switch {
			case width > top && !opener:
				at.Kind = indentKind + "unexpected indent"
				if add(at) {
					return out
				}
			case width > top:
				stack = append(stack, width)
			case opener:
				openerAt.Kind = indentKind + "expected an indented block after the line ending in \":\""
				if add(openerAt) {
					return out
				}
			}
			if width < top {
				for len(stack) > 1 && stack[len(stack)-1] > width {
					stack = stack[:len(stack)-1]
				}
				if stack[len(stack)-1] != width {
					at.Kind = indentKind + "unindent does not match any outer indentation level"
					if add(at) {
						return out
					}
					stack = append(stack, width)
				}
			}
			opener = s.scan(l)
		} else if !logical {
			// A continuation line (inside a string, brackets or after a
			// backslash): its last line decides whether the logical line
			// opens a block.
			opener = s.scan(l)
		}
		if opener && (!logical || body != "" && body[0] != '#') {
			t := len(strings.TrimRight(l, " \t\r\f"))
			openerAt = syntax.ErrorPos{Line: uint32(i), Column: uint32(t - 1), Offset: uint32(off + t - 1), End: uint32(off + end)}
		}
		off += end + 1
	}
	if opener {
		openerAt.Kind = indentKind + "expected an indented block after the line ending in \":\""
		add(openerAt)
	}
	return out
}

package syntax

import (
	"bytes"

	"github.com/ctxd/ctxd/index/words"
)

// A demand-driven build looks for the file of a Go package that declares a
// name (a function, a type, a member of a type) among the package's
// unparsed files whose text holds the name's words (index/relate,
// NeedDirWords). Most files of a package use its common names (net.Conn,
// runtime.GC) in their function bodies and comments, so the word filter
// of the whole text admits most of the package for each such lookup,
// and the build parses them all. GoDeclWords gives the words of the parts
// of a Go text where a declaration's name, a method's receiver and an
// import path can be: outside the bodies of top-level functions, in code,
// not right after a dot. A filter of those words admits a few files a
// lookup, and never leaves out one that declares the name:
//
//   - go/parser's extraction (gofast.go) takes names from top-level
//     declarations and the fields and methods of their type literals,
//     none of them inside a function body, after a '.', or in a comment;
//     import paths are string literals outside bodies;
//   - tree-sitter's, for a text go/parser rejects, can recover a
//     declaration from anywhere, so its symbols and imports are kept only
//     when their words are among the text's declaration words
//     (keepDeclared): a declaration recovered from inside a body is a
//     local, which the extractor means to leave out anyway.
//
// Both hold only for a text whose structure the scan can trust: every
// comment, string and rune literal closed, every bracket matched. For any
// other text GoDeclWords reports false and the caller keeps to the word
// filter of the whole text.

// GoDeclWords calls fn, in order, for every word (words.IsWordByte runs)
// of src that a Go declaration's name, a method receiver's type or an
// import path can be made of, and reports whether src was clean enough to
// say (every literal and comment closed, every bracket matched): when it
// reports false the words it gave are not all of them. The slices passed
// to fn alias src.
func GoDeclWords(src []byte, fn func(w []byte)) bool {
	s := declScan{src: src, fn: fn, body: -1}
	return s.run()
}

// declScan is the state of one GoDeclWords scan.
type declScan struct {
	src []byte
	fn  func(w []byte)
	// stack holds the open brackets.
	stack []byte
	// body is the stack depth at which the function body being skipped
	// opened, -1 outside one.
	body int
	// fnAt is where the scan is in a top-level function's header.
	fnAt int
	// inVar: in a top-level var or const declaration, whose specs are in
	// a parenthesized group when group; value: in a spec's value, after
	// its '=', which declares nothing.
	inVar, group, value bool
	// prevDot: the last token was '.'; prevTypeLit: it was the keyword
	// struct or interface, whose '{' opens a type literal, not a body;
	// prevVar: it was the keyword var or const at the top level.
	prevDot, prevTypeLit, prevVar bool
}

// Where a scan is in a top-level function's header.
const (
	fnNone  = iota
	fnStart // after func: a receiver or the name
	fnRecv  // in the receiver's parentheses
	fnName  // after the receiver: the name
	fnSig   // after the name: type parameters, parameters, results
)

// quiet reports whether the words here cannot be part of a declaration's
// name, a receiver or an import path.
func (s *declScan) quiet() bool { return s.body >= 0 || s.value || s.fnAt == fnSig }

// specDepth is the bracket depth of the specs of the var or const
// declaration in progress.
func (s *declScan) specDepth() int {
	if s.group {
		return 1
	}
	return 0
}

// endLine handles a line break or a semicolon: it ends a spec's value at
// the spec's depth, and an ungrouped declaration.
func (s *declScan) endLine() {
	if s.inVar && len(s.stack) == s.specDepth() {
		s.value = false
		if !s.group {
			s.inVar = false
		}
	}
}

func (s *declScan) run() bool {
	src := s.src
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n' || c == ';':
			s.endLine()
			if c == ';' {
				s.token(false, false)
			}
			// A name on the next line is not a selector's when the
			// line ends in a float ("1."): a line break lets the dot
			// be.
			s.prevDot = false
			i++
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			end := indexFrom(src, i+2, "*/")
			if end < 0 {
				return false
			}
			if bytes.IndexByte(src[i:end], '\n') >= 0 {
				// A comment over several lines is a line break.
				s.endLine()
			}
			i = end + 2
		case c == '"' || c == '\'':
			end, ok := quoted(src, i)
			if !ok {
				return false
			}
			if c == '"' {
				s.stringWords(src[i+1 : end])
			}
			s.token(false, false)
			i = end + 1
		case c == '`':
			end := indexFrom(src, i+1, "`")
			if end < 0 {
				return false
			}
			s.stringWords(src[i+1 : end])
			s.token(false, false)
			i = end + 1
		case words.IsWordByte(c):
			j := i + 1
			for j < len(src) && words.IsWordByte(src[j]) {
				j++
			}
			s.word(src[i:j])
			i = j
		case c == '(' || c == '[' || c == '{':
			top := len(s.stack) == 0
			switch {
			case top && c == '(' && s.prevVar:
				s.group = true
			case top && c == '(' && s.fnAt == fnStart:
				s.fnAt = fnRecv
			case top && c == '{' && s.fnAt != fnNone && !s.prevTypeLit && !s.value:
				s.fnAt = fnNone
				s.body = 0
			}
			s.stack = append(s.stack, c)
			s.token(false, false)
			i++
		case c == ')' || c == ']' || c == '}':
			n := len(s.stack)
			if n == 0 || s.stack[n-1] != opening(c) {
				return false
			}
			s.stack = s.stack[:n-1]
			if s.body == n-1 {
				s.body = -1
			}
			if n == 1 {
				switch {
				case s.fnAt == fnRecv:
					s.fnAt = fnName
				case s.inVar && s.group && c == ')':
					s.inVar, s.group, s.value = false, false, false
				}
			}
			s.token(false, false)
			i++
		case c == '.':
			s.token(true, false)
			i++
		case c == '=':
			// A spec's '=', not part of an operator, starts its value.
			if (i+1 >= len(src) || src[i+1] != '=') && (i == 0 || !isOpByte(src[i-1])) &&
				s.inVar && len(s.stack) == s.specDepth() {
				s.value = true
			}
			s.token(false, false)
			i++
		default:
			s.token(false, false)
			i++
		}
	}
	return len(s.stack) == 0
}

// isOpByte reports the bytes that make an operator of a following '='.
func isOpByte(c byte) bool {
	switch c {
	case '=', '!', '<', '>', ':', '+', '-', '*', '/', '%', '&', '|', '^':
		return true
	}
	return false
}

// token records the kind of the last token.
func (s *declScan) token(dot, typeLit bool) {
	s.prevDot, s.prevTypeLit, s.prevVar = dot, typeLit, false
}

// word handles one word of code.
func (s *declScan) word(w []byte) {
	kw := string(w)
	isVar := false
	if len(s.stack) == 0 && s.body < 0 && !s.value {
		switch kw {
		case "func":
			s.fnAt, s.inVar = fnStart, false
		case "var", "const":
			s.fnAt, s.inVar, s.group, isVar = fnNone, true, false, true
		case "type", "import", "package":
			s.fnAt, s.inVar = fnNone, false
		}
	}
	if !s.prevDot && !s.quiet() {
		s.fn(w)
	}
	if s.fnAt == fnStart && kw != "func" || s.fnAt == fnName {
		// The function's name.
		s.fnAt = fnSig
	}
	s.token(false, kw == "struct" || kw == "interface")
	s.prevVar = isVar
}

// words emits the words of a string literal's contents.
func (s *declScan) stringWords(b []byte) {
	if !s.quiet() {
		words.Each(b, s.fn)
	}
}

func opening(c byte) byte {
	switch c {
	case ')':
		return '('
	case ']':
		return '['
	}
	return '{'
}

// quoted returns the index of the quote closing the interpreted string or
// rune literal opening at i; false when a line or the text ends first.
func quoted(src []byte, i int) (int, bool) {
	q := src[i]
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case '\n':
			return 0, false
		case q:
			return j, true
		}
	}
	return 0, false
}

// indexFrom returns the index of sep in src at or after from, -1 when
// there is none.
func indexFrom(src []byte, from int, sep string) int {
	k := bytes.Index(src[from:], []byte(sep))
	if k < 0 {
		return -1
	}
	return from + k
}

// keepDeclared drops from f, the tree-sitter extraction of a Go text
// go/parser rejected, the symbols and imports whose words are not among
// the text's declaration words (GoDeclWords), when the text is clean
// enough for them to be known: the filter of those words must admit every
// file that declares a name (see above).
func keepDeclared(f *File, src []byte) {
	set := map[string]struct{}{}
	if !GoDeclWords(src, func(w []byte) { set[string(w)] = struct{}{} }) {
		return
	}
	has := func(s string) bool {
		for _, w := range words.Split(s) {
			if _, ok := set[w]; !ok {
				return false
			}
		}
		return true
	}
	syms := f.Symbols[:0:0]
	for _, sym := range f.Symbols {
		if has(sym.Name) && has(sym.Container) {
			syms = append(syms, sym)
		}
	}
	imps := f.Imports[:0:0]
	for _, imp := range f.Imports {
		if has(imp.Path) {
			imps = append(imps, imp)
		}
	}
	if len(syms) < len(f.Symbols) {
		f.Symbols = syms
	}
	if len(imps) < len(f.Imports) {
		f.Imports = imps
	}
}

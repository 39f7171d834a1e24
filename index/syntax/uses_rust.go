package syntax

import (
	"strings"
	"unicode"
	"unicode/utf8"

	sitter "github.com/smacker/go-tree-sitter"
)

// The Rust and C/C++ uses extractors read a token stream rather than the
// tree: the token scanner below reuses the lexical scanner's literal and
// comment rules (refs.go), so that names in comments and string literals
// are never uses, and costs one pass over the source without a cgo call.

// lxKind classifies a token of the uses scanners.
type lxKind uint8

const (
	lxIdent lxKind = iota // an identifier or a keyword
	lxPunct               // an operator or bracket; op says which
	lxLit                 // a string, character or number literal, a lifetime
)

// Multi-byte operators, as token ops.
const (
	lxPath  = 'P' // ::
	lxArrow = 'A' // ->
	lxFat   = 'F' // =>
)

type lxTok struct {
	start, end uint32
	kind       lxKind
	op         byte
}

// lxTokens splits src into tokens by the literal and comment rules of sp;
// comments and preprocessor lines other than conditions and macro
// definitions (see lexer.directive) produce no token.
func lxTokens(sp *lexSpec, src []byte) []lxTok {
	l := &lexer{src: src, spec: sp, refs: wordSet{src: src}}
	cls := sp.class
	toks := make([]lxTok, 0, len(src)/4)
	lineStart := true
	for i := 0; i < len(src); {
		c := src[i]
		switch cls[c] {
		case clSpace:
			i++
			continue
		case clNewline:
			lineStart = true
			i++
			continue
		}
		atLineStart := lineStart
		lineStart = false
		switch cls[c] {
		case clIdent, clHigh:
			j := l.ident(i)
			if j == i { // a non-letter Unicode character
				_, size := utf8.DecodeRune(src[i:])
				i += size
				continue
			}
			if sp.prefixed != nil && j < len(src) && (src[j] == '"' || src[j] == '\'' || src[j] == '#') {
				if end := sp.prefixed(l, i, j); end >= 0 {
					if sp == rustLex && j-i == 1 && src[i] == 'r' && src[j] == '#' && j+1 < len(src) && src[j+1] != '"' && src[j+1] != '#' {
						toks = append(toks, lxTok{start: uint32(j + 1), end: uint32(end), kind: lxIdent})
					} else {
						toks = append(toks, lxTok{start: uint32(i), end: uint32(end), kind: lxLit})
					}
					i = end
					continue
				}
			}
			toks = append(toks, lxTok{start: uint32(i), end: uint32(j), kind: lxIdent})
			i = j
			continue
		case clDigit:
			j := l.number(i)
			toks = append(toks, lxTok{start: uint32(i), end: uint32(j), kind: lxLit})
			i = j
			continue
		case clQuote:
			if end := sp.str(l, i); end > i {
				toks = append(toks, lxTok{start: uint32(i), end: uint32(end), kind: lxLit})
				i = end
				continue
			}
		case clSlash:
			if i+1 < len(src) && src[i+1] == '/' {
				i = lineEnd(src, i)
				continue
			}
			if i+1 < len(src) && src[i+1] == '*' {
				i = l.blockComment(i)
				continue
			}
		case clHash:
			if sp.preproc && atLineStart {
				i = l.directive(i)
				continue
			}
		}
		op, n := c, 1
		if i+1 < len(src) {
			switch d := src[i+1]; {
			case c == ':' && d == ':':
				op, n = lxPath, 2
			case c == '-' && d == '>':
				op, n = lxArrow, 2
			case c == '=' && d == '>':
				op, n = lxFat, 2
			}
		}
		toks = append(toks, lxTok{start: uint32(i), end: uint32(i + n), kind: lxPunct, op: op})
		i += n
	}
	return toks
}

// lxScan is a lxTok stream with its source.
type lxScan struct {
	src  []byte
	toks []lxTok
}

func (s *lxScan) text(i int) string {
	t := s.toks[i]
	return string(s.src[t.start:t.end])
}

// is reports whether lxTok i is the identifier w.
func (s *lxScan) is(i int, w string) bool {
	if i < 0 || i >= len(s.toks) {
		return false
	}
	t := s.toks[i]
	return t.kind == lxIdent && int(t.end-t.start) == len(w) && string(s.src[t.start:t.end]) == w
}

// isOp reports whether lxTok i is the punctuation op.
func (s *lxScan) isOp(i int, op byte) bool {
	return i >= 0 && i < len(s.toks) && s.toks[i].kind == lxPunct && s.toks[i].op == op
}

func (s *lxScan) isIdent(i int) bool {
	return i >= 0 && i < len(s.toks) && s.toks[i].kind == lxIdent
}

// skipAngles returns the index after the <...> group opening at i (whose
// lxTok is "<"), counting nested angles and stopping at a statement end.
func (s *lxScan) skipAngles(i int) int {
	depth := 0
	for limit := i + 512; i < len(s.toks) && i < limit; i++ { // bounded: garbage input stays linear
		t := s.toks[i]
		if t.kind != lxPunct {
			continue
		}
		switch t.op {
		case '<':
			depth++
		case '>':
			if depth--; depth == 0 {
				return i + 1
			}
		case lxArrow, lxFat:
		case ';', '{', '}':
			return i
		}
	}
	return i
}

// skipGroup returns the index after the bracket group opening at i.
func (s *lxScan) skipGroup(i int) int {
	depth := 0
	for ; i < len(s.toks); i++ {
		t := s.toks[i]
		if t.kind != lxPunct {
			continue
		}
		switch t.op {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth--; depth <= 0 {
				return i + 1
			}
		}
	}
	return i
}

func init() { registerUses(rustUses, Rust) }

// rustUses records the uses of a Rust file (see the Rust section of
// docs/relations.md):
//
//   - a path a::b::c is Use{Name: "c", From: "a::b"}, anchors (crate,
//     self, super) kept; a path whose last qualifier is a type (an
//     upper-case initial, or Self) is a member use Use{Name: "c",
//     Member: true, Recv: "a::B"} plus a use of the type itself;
//   - a `use` tree gives one Binding per leaf ({Name: local, From: the
//     path, Orig: the name in it}; "*" for a glob; Export for `pub use`)
//     and Use{Name: orig, From: path} for each named leaf;
//   - an unqualified name is a use when it starts with an upper-case letter
//     (types, traits, variants, constants) or is called (`f(…)`): other
//     lower-case names are locals, fields or bindings;
//   - `x.m` (a method call or a field) is a member use whose Recv is the
//     type the syntax states for x: `self` in an impl or trait, a parameter
//     or `let` with a written type, `let x = T { … }`, a field of self
//     whose type is written in this file; for `let x = T::f(…)`,
//     `let x = f(…)` and `T::f(…).m()`, Recv is "T::f()" or "f()": the
//     result type of that function, which the resolver reads from the
//     declaration's Symbol.Type.
//
// Symbol.Type is set for fields, constants, statics and functions (their
// result type).
func rustUses(_ *sitter.Node, src []byte, f *File) {
	setRustTypes(src, f)
	w := &rustWalker{lxScan: lxScan{src: src, toks: lxTokens(rustLex, src)}, f: f, vars: map[string]string{}, generics: map[string]bool{}}
	w.walk()
}

// setRustTypes fills Symbol.Type from the signatures.
func setRustTypes(src []byte, f *File) {
	for i := range f.Symbols {
		s := &f.Symbols[i]
		sig := string(src[s.Signature.StartByte:s.Signature.EndByte])
		switch s.Kind {
		case Field, Const, Var:
			_, t, ok := strings.Cut(sig, ":")
			if !ok {
				continue
			}
			if j := strings.IndexByte(t, '='); j >= 0 {
				t = t[:j]
			}
			s.Type = strings.Join(strings.Fields(strings.TrimSuffix(strings.TrimSpace(t), ";")), " ")
		case Function, Method:
			close := strings.LastIndexByte(sig, ')')
			if close < 0 {
				continue
			}
			_, t, ok := strings.Cut(sig[close:], "->")
			if !ok {
				continue
			}
			if j := strings.Index(t, " where"); j >= 0 {
				t = t[:j]
			}
			s.Type = strings.Join(strings.Fields(strings.TrimSuffix(strings.TrimSpace(t), ";")), " ")
		}
	}
}

type rustScope struct {
	depth int
	typ   string // the impl's type or the trait, as written
}

type rustWalker struct {
	lxScan
	f        *File
	depth    int
	scopes   []rustScope
	pending  string // the type of an impl or trait header until its {
	hasPend  bool
	vars     map[string]string // variable -> type path, reset per fn
	generics map[string]bool   // type parameter names seen
}

func rsUpper(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r)
}

// selfType is the type `self` and `Self` stand for at the current position.
func (w *rustWalker) selfType() string {
	if len(w.scopes) == 0 {
		return ""
	}
	return w.scopes[len(w.scopes)-1].typ
}

func (w *rustWalker) use(name, from string, member bool, recv string, t lxTok) {
	w.f.Uses = append(w.f.Uses, Use{Name: name, From: from, Member: member, Recv: recv, Start: t.start, End: t.end})
}

func (w *rustWalker) walk() {
	toks := w.toks
	for i := 0; i < len(toks); {
		t := toks[i]
		if t.kind == lxPunct {
			switch t.op {
			case '#':
				// An attribute: #[…] or #![…].
				j := i + 1
				if w.isOp(j, '!') {
					j++
				}
				if w.isOp(j, '[') {
					i = w.skipGroup(j)
					continue
				}
			case '{':
				w.depth++
				if w.hasPend {
					w.scopes = append(w.scopes, rustScope{depth: w.depth, typ: w.pending})
					w.hasPend = false
				}
			case '}':
				if n := len(w.scopes); n > 0 && w.scopes[n-1].depth == w.depth {
					w.scopes = w.scopes[:n-1]
				}
				w.depth--
			case ';':
				w.hasPend = false
			}
			i++
			continue
		}
		if t.kind != lxIdent {
			i++
			continue
		}
		word := w.text(i)
		switch word {
		case "use":
			i = w.useDecl(i)
			continue
		case "mod":
			i += 2
			continue
		case "extern":
			if w.is(i+1, "crate") {
				for i < len(toks) && !w.isOp(i, ';') {
					i++
				}
				continue
			}
		case "impl":
			if w.itemStart(i) {
				w.implHeader(i)
			}
			w.generic(i + 1)
		case "trait":
			if w.isIdent(i + 1) {
				w.pending, w.hasPend = w.text(i+1), true
				w.generic(i + 2)
				i += 2
				continue
			}
		case "fn":
			clear(w.vars)
			if w.isIdent(i + 1) {
				w.generic(i + 2)
				w.params(i + 2)
				i += 2
				continue
			}
		case "struct", "enum", "union", "type", "macro_rules":
			if w.isIdent(i+1) || (word == "macro_rules" && w.isOp(i+1, '!')) {
				if word == "macro_rules" {
					i++
				}
				w.generic(i + 2)
				i += 2
				continue
			}
		case "const", "static":
			j := i + 1
			if w.is(j, "mut") {
				j++
			}
			if w.isIdent(j) && w.isOp(j+1, ':') {
				i = j + 1
				continue
			}
		case "let":
			w.letDecl(i)
		}
		if rustLex.keywords.has(w.src[t.start:t.end]) && word != "self" && word != "Self" && word != "crate" && word != "super" {
			i++
			continue
		}
		i = w.path(i)
	}
}

// itemStart reports whether lxTok i starts an item (an impl block rather
// than `impl Trait` in a type).
func (w *rustWalker) itemStart(i int) bool {
	if i == 0 {
		return true
	}
	p := w.toks[i-1]
	if p.kind == lxPunct {
		return p.op == '}' || p.op == ';' || p.op == ']' || p.op == '{'
	}
	return w.is(i-1, "unsafe") || w.is(i-1, "default")
}

// implHeader reads `impl<…> Trait for Type` or `impl<…> Type` at i and sets
// the pending scope type.
func (w *rustWalker) implHeader(i int) {
	j := i + 1
	if w.isOp(j, '<') {
		j = w.skipAngles(j)
	}
	typ, next := w.readType(j)
	if w.is(next, "for") {
		typ, _ = w.readType(next + 1)
	}
	w.pending, w.hasPend = typ, typ != ""
}

// generic records the type parameter names of a <…> list at i, if any.
func (w *rustWalker) generic(i int) {
	if !w.isOp(i, '<') {
		return
	}
	end := w.skipAngles(i)
	depth := 0
	for j := i; j < end; j++ {
		switch {
		case w.isOp(j, '<'):
			depth++
		case w.isOp(j, '>'):
			depth--
		case depth == 1 && w.isIdent(j) && (w.isOp(j-1, '<') || w.isOp(j-1, ',') || w.is(j-1, "const")) && !w.is(j, "const"):
			w.generics[w.text(j)] = true
		}
	}
}

// readType reads a type at i: references, pointers, `dyn`, `impl`, `mut`
// and lifetimes are skipped, Box/Rc/Arc are looked through, generic
// arguments dropped. It returns the path as written ("" when not a path)
// and the index after the type's path.
func (w *rustWalker) readType(i int) (string, int) {
	for i < len(w.toks) {
		switch {
		case w.isOp(i, '&'), w.isOp(i, '*'), w.toks[i].kind == lxLit, w.is(i, "mut"), w.is(i, "dyn"), w.is(i, "impl"), w.is(i, "const"):
			i++
			continue
		}
		break
	}
	var segs []string
	for w.isIdent(i) {
		segs = append(segs, w.text(i))
		i++
		if w.isOp(i, lxPath) && w.isIdent(i+1) {
			i++
			continue
		}
		break
	}
	if len(segs) == 0 {
		return "", i
	}
	if w.isOp(i, '<') {
		if last := segs[len(segs)-1]; last == "Box" || last == "Rc" || last == "Arc" {
			inner, _ := w.readType(i + 1)
			return inner, w.skipAngles(i)
		}
		i = w.skipAngles(i)
	}
	if segs[0] == "Self" {
		if st := w.selfType(); st != "" {
			segs[0] = st
		}
	}
	return strings.Join(segs, "::"), i
}

// params records the written types of a fn's parameters at i (after its
// name and generics).
func (w *rustWalker) params(i int) {
	if w.isOp(i, '<') {
		i = w.skipAngles(i)
	}
	if !w.isOp(i, '(') {
		return
	}
	end := w.skipGroup(i)
	for j := i + 1; j < end; j++ {
		// A parameter `[mut] name: Type` at the top level of the list.
		if (w.isOp(j-1, '(') || w.isOp(j-1, ',') || w.is(j-1, "mut")) && w.isIdent(j) && w.isOp(j+1, ':') {
			if typ, _ := w.readType(j + 2); typ != "" {
				w.vars[w.text(j)] = typ
			}
		}
		if w.isOp(j, '(') || w.isOp(j, '[') || w.isOp(j, '<') {
			if w.isOp(j, '<') {
				j = w.skipAngles(j) - 1
			} else {
				j = w.skipGroup(j) - 1
			}
		}
	}
}

// letDecl records the type of `let [mut] x: T`, `let x = T::new(…)` and
// `let x = T { … }`.
func (w *rustWalker) letDecl(i int) {
	j := i + 1
	if w.is(j, "mut") {
		j++
	}
	if !w.isIdent(j) {
		return
	}
	name := w.text(j)
	switch {
	case w.isOp(j+1, ':'):
		if typ, _ := w.readType(j + 2); typ != "" {
			w.vars[name] = typ
			return
		}
	case w.isOp(j+1, '='):
		if typ := w.ctorType(j + 2); typ != "" {
			w.vars[name] = typ
			return
		}
	}
	delete(w.vars, name)
}

// ctorType returns the type an expression at i has as far as its syntax
// says: a struct literal `T { … }` is "T"; a call `T::f(…)` or `f(…)` is
// "T::f()" or "f()", the result type of that function, which the
// resolver reads from its declaration's Type.
func (w *rustWalker) ctorType(i int) string {
	var segs []string
	j := i
	for w.isIdent(j) {
		segs = append(segs, w.text(j))
		j++
		if w.isOp(j, lxPath) && w.isOp(j+1, '<') {
			j = w.skipAngles(j + 1)
		}
		if w.isOp(j, lxPath) && w.isIdent(j+1) {
			j++
			continue
		}
		break
	}
	n := len(segs)
	if n == 0 || rustLex.keywords.has([]byte(segs[0])) && segs[0] != "Self" && segs[0] != "self" && segs[0] != "crate" && segs[0] != "super" {
		return ""
	}
	if segs[0] == "Self" {
		st := w.selfType()
		if st == "" {
			return ""
		}
		segs[0] = st
	}
	switch {
	case w.isOp(j, '('):
		if n == 1 && w.vars[segs[0]] != "" {
			return "" // a closure
		}
		return strings.Join(segs, "::") + "()"
	case w.isOp(j, '{') && rsUpper(segs[n-1]):
		return strings.Join(segs, "::")
	}
	return ""
}

// path reads the path starting at identifier i and records its uses; it
// returns the index after it.
func (w *rustWalker) path(i int) int {
	start := i
	idx := []int{i}
	j := i + 1
	for {
		k := j
		if w.isOp(k, lxPath) && w.isOp(k+1, '<') {
			k = w.skipAngles(k + 1)
		}
		if w.isOp(k, lxPath) && w.isIdent(k+1) {
			idx = append(idx, k+1)
			j = k + 2
			continue
		}
		if k != j && len(idx) > 0 {
			j = k // a turbofish after the last segment
		}
		break
	}
	if w.isOp(j, '!') && !w.isOp(j+1, '=') {
		return j + 1 // a macro name
	}
	if w.isOp(start-1, '.') {
		name := w.text(idx[0])
		w.use(name, "", true, w.recvBefore(start-1), w.toks[idx[0]])
		return idx[0] + 1
	}
	if w.isOp(start-1, lxPath) && w.isOp(start-2, '>') {
		return j // <T as Trait>::m
	}
	segs := make([]string, len(idx))
	for k, x := range idx {
		segs[k] = w.text(x)
	}
	n := len(segs)
	if n == 1 {
		name := segs[0]
		switch {
		case name == "self" || name == "Self" || name == "crate" || name == "super":
		case w.generics[name]:
		case rsUpper(name):
			w.use(name, "", false, "", w.toks[start])
		case w.isOp(j, '(') && w.vars[name] == "" && !w.is(start-1, "fn"):
			w.use(name, "", false, "", w.toks[start])
		}
		return j
	}
	if segs[0] == "Self" {
		st := w.selfType()
		if st == "" {
			return j
		}
		segs[0] = st
	}
	last, pen := segs[n-1], segs[n-2]
	if rsUpper(pen) || idx[n-2] == start && w.text(start) == "Self" {
		w.use(last, "", true, strings.Join(segs[:n-1], "::"), w.toks[idx[n-1]])
		if w.text(idx[n-2]) != "Self" && !w.generics[pen] {
			w.use(pen, strings.Join(segs[:n-2], "::"), false, "", w.toks[idx[n-2]])
		}
		return j
	}
	w.use(last, strings.Join(segs[:n-1], "::"), false, "", w.toks[idx[n-1]])
	return j
}

// recvBefore returns the type of the receiver expression ending before the
// "." at dot, as far as the syntax states it.
func (w *rustWalker) recvBefore(dot int) string {
	r := dot - 1
	if r < 0 {
		return ""
	}
	switch {
	case w.is(r, "self"):
		return w.selfType()
	case w.isIdent(r) && !w.isOp(r-1, '.') && !w.isOp(r-1, lxPath):
		return w.vars[w.text(r)]
	case w.isIdent(r) && w.isOp(r-1, '.') && w.is(r-2, "self") && !w.isOp(r-3, '.'):
		return w.fieldType(w.selfType(), w.text(r))
	case w.isOp(r, ')'):
		// T::new(…).m(), f(…).m(): find the call's opening parenthesis.
		depth := 0
		for k := r; k >= 0 && k > r-256; k-- {
			if w.toks[k].kind != lxPunct {
				continue
			}
			switch w.toks[k].op {
			case ')', ']', '}':
				depth++
			case '(', '[', '{':
				if depth--; depth == 0 {
					// The path before it.
					s := k - 1
					for s >= 2 && w.isOp(s-1, lxPath) && w.isIdent(s-2) {
						s -= 2
					}
					if w.isIdent(s) && !w.isOp(s-1, '.') {
						return w.ctorType(s)
					}
					return ""
				}
			}
		}
	}
	return ""
}

// fieldType returns the written type of field name of type typ when the
// file declares it.
func (w *rustWalker) fieldType(typ, name string) string {
	if typ == "" {
		return ""
	}
	base := typ[strings.LastIndex(typ, "::")+1:]
	base = strings.TrimPrefix(base, ":")
	for _, s := range w.f.Symbols {
		if s.Kind == Field && s.Name == name && s.Container == base && s.Type != "" {
			return rustTypePath(s.Type)
		}
	}
	return ""
}

// rustTypePath reduces a written type to its path as readType does:
// "&'a mut Box<store::Item<T>>" to "store::Item".
func rustTypePath(t string) string {
	ts := &rustWalker{lxScan: lxScan{src: []byte(t)}}
	ts.toks = lxTokens(rustLex, ts.src)
	p, _ := ts.readType(0)
	return p
}

// useDecl reads the use declaration whose `use` is at i and returns the
// index after its ";".
func (w *rustWalker) useDecl(i int) int {
	export := w.is(i-1, "pub")
	if !export && w.isOp(i-1, ')') {
		for k := i - 2; k >= 0 && k > i-8; k-- {
			if w.isOp(k, '(') {
				export = w.is(k-1, "pub")
				break
			}
		}
	}
	end := i + 1
	for end < len(w.toks) && !w.isOp(end, ';') {
		end++
	}
	j := i + 1
	if w.isOp(j, lxPath) {
		j++
	}
	w.useTree(j, end, nil, export)
	return end + 1
}

// useTree reads the use tree from i (before end) under the path prefix and
// returns the index after it.
func (w *rustWalker) useTree(i, end int, prefix []int, export bool) int {
	segs := append([]int(nil), prefix...)
	for i < end {
		switch {
		case w.isIdent(i) && !w.is(i, "as"):
			segs = append(segs, i)
			i++
			if w.isOp(i, lxPath) {
				i++
				continue
			}
		case w.isOp(i, '{'):
			i++
			for i < end && !w.isOp(i, '}') {
				if w.isOp(i, ',') {
					i++
					continue
				}
				before := i
				i = w.useTree(i, end, segs, export)
				if i == before {
					i++
				}
			}
			return i + 1
		case w.isOp(i, '*'):
			w.f.Bindings = append(w.f.Bindings, Binding{Name: "*", From: w.joinSegs(segs), Orig: "*", Export: export})
			return i + 1
		}
		break
	}
	if len(segs) == len(prefix) {
		return i
	}
	leaf := segs[len(segs)-1]
	if w.is(leaf, "self") && len(segs) > 1 {
		segs = segs[:len(segs)-1]
	}
	name := w.text(segs[len(segs)-1])
	from := w.joinSegs(segs[:len(segs)-1])
	local := name
	if w.is(i, "as") && i+1 < end {
		local = w.text(i + 1)
		i += 2
	}
	w.f.Bindings = append(w.f.Bindings, Binding{Name: local, From: from, Orig: name, Export: export})
	if from != "" {
		w.use(name, from, false, "", w.toks[leaf])
	}
	return i
}

func (w *rustWalker) joinSegs(idx []int) string {
	var b strings.Builder
	for k, x := range idx {
		if k > 0 {
			b.WriteString("::")
		}
		b.WriteString(w.text(x))
	}
	return b.String()
}

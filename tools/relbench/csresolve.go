package main

import (
	"slices"
	"strings"
)

// This file is the static C# resolver the C# corpus is scored by: no C#
// compiler runs on these machines, so the "used files" of a C# file are
// what C#'s name lookup rules give for the type names it mentions, within
// the project(s) compiling it. It is deliberately a type-level resolver:
//
//   - every identifier outside a declaration's own name, and every dotted
//     chain A.B.C, is looked up as a type name: first the enclosing types
//     and their nested types (innermost first), then, for each enclosing
//     namespace from the innermost to the global one, the types (and
//     namespaces) declared in it and the using directives written at that
//     level of the file (aliases before imported namespaces); an attribute
//     name also tries Name+"Attribute"; generic arity is ignored;
//   - a dotted chain continues while each segment names a nested type (of
//     a type) or a type or namespace (of a namespace); the first member
//     segment ends it;
//   - a type's use counts once for each file declaring a part of it (all
//     the parts of a partial type, as Roslyn lists all their locations),
//     and a file declaring a part of a partial type uses each other part
//     once (the parts share members, which the resolver does not track);
//   - the types visible in a file are those of the projects compiling it
//     (.csproj Compile items, with their ProjectReferences), or of every
//     file when no project lists it.
//
// What it does not see: members (a call of an inherited or extension
// method, a field of another part, an overload in another file), types
// inferred without being named (var, lambdas), using static, and a local
// or member whose name equals a type's (counted as that type).

// csToken is one token of C# source: an identifier or a punctuation
// character. Comments, strings, characters, numbers and preprocessor
// lines are dropped (code under #if is kept whichever branch it is in).
type csToken struct {
	text  string
	ident bool
}

// csLex tokenizes C# source.
func csLex(src string) []csToken {
	src = strings.TrimPrefix(src, "\ufeff") // a byte order mark
	var out []csToken
	i, n := 0, len(src)
	lineStart := true
	for i < n {
		c := src[i]
		switch {
		case c == '\n':
			lineStart = true
			i++
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			i++
			continue
		case c == '#' && lineStart:
			for i < n && src[i] != '\n' {
				i++
			}
			continue
		}
		lineStart = false
		switch {
		case strings.HasPrefix(src[i:], "//"):
			for i < n && src[i] != '\n' {
				i++
			}
		case strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				i = n
			} else {
				i += 2 + end + 2
			}
		case c == '"' || c == '\'' || ((c == '@' || c == '$') && i+1 < n && (src[i+1] == '"' || src[i+1] == '@' || src[i+1] == '$')):
			i = csSkipLiteral(src, i)
		case c == '@' && i+1 < n && csIdentStart(src[i+1]):
			i++ // a verbatim identifier: @class is class
		case csIdentStart(c):
			j := i
			for j < n && csIdentPart(src[j]) {
				j++
			}
			out = append(out, csToken{text: src[i:j], ident: true})
			i = j
		case c >= '0' && c <= '9':
			for i < n && (csIdentPart(src[i]) || src[i] == '.') {
				i++
			}
		default:
			out = append(out, csToken{text: src[i : i+1]})
			i++
		}
	}
	return out
}

// csSkipLiteral returns the index after the string or character literal
// at i (with any @ and $ prefixes).
func csSkipLiteral(src string, i int) int {
	n := len(src)
	verbatim := false
	for i < n && (src[i] == '@' || src[i] == '$') {
		verbatim = verbatim || src[i] == '@'
		i++
	}
	if i >= n {
		return n
	}
	q := src[i]
	i++
	for i < n {
		switch {
		case verbatim && src[i] == q && i+1 < n && src[i+1] == q:
			i += 2
		case src[i] == q:
			return i + 1
		case !verbatim && src[i] == '\\':
			i += 2
		case !verbatim && src[i] == '\n':
			return i // an unterminated literal ends with its line
		default:
			i++
		}
	}
	return n
}

func csIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func csIdentPart(c byte) bool { return csIdentStart(c) || c >= '0' && c <= '9' }

// csKeywords are never type names.
var csKeywords = map[string]bool{}

func init() {
	for _, k := range strings.Fields(`abstract as base bool break byte case catch char checked class const continue
		decimal default delegate do double else enum event explicit extern false finally fixed float for foreach goto
		if implicit in int interface internal is lock long namespace new null object operator out override params
		private protected public readonly ref return sbyte sealed short sizeof stackalloc static string struct switch
		this throw true try typeof uint ulong unchecked unsafe ushort using virtual void volatile while var get set
		value partial where yield async await dynamic nameof record global add remove`) {
		csKeywords[k] = true
	}
}

// csLevel is one level of a file's nesting as the use pass sees it: a
// namespace declaration (or the compilation unit, ns "") with the using
// directives written in it, or a type declaration (typ set, relative to
// ns).
type csLevel struct {
	ns, typ string
	aliases map[string]string // using A = X.Y;
	imports []string          // using X.Y;
	depth   int               // brace depth inside the level
}

// csFile is what the declaration pass found in one file.
type csFile struct {
	path   string
	tokens []csToken
	types  []string // full names of the types (parts) it declares
}

// csDecls maps full type names to the files declaring them, and lists
// every namespace declared (with its prefixes).
type csDecls struct {
	types      map[string][]string // "A.B.T" or "A.B.T.Nested" → files
	namespaces map[string]bool
	partial    map[string]bool            // types declared partial somewhere
	members    map[string]map[string]bool // type → names of members declared in its bodies
}

func newCSDecls() *csDecls {
	return &csDecls{types: map[string][]string{}, namespaces: map[string]bool{"": true}, partial: map[string]bool{}, members: map[string]map[string]bool{}}
}

func qual(outer, name string) string {
	if outer == "" {
		return name
	}
	if name == "" {
		return outer
	}
	return outer + "." + name
}

// csTypeKeyword reports whether a token starts a type declaration.
func csTypeKeyword(t string) bool {
	switch t {
	case "class", "struct", "interface", "enum", "record", "delegate":
		return true
	}
	return false
}

// dotted reads a dotted name starting at tokens[i] and returns it and the
// index after it (generic argument lists are skipped).
func dotted(toks []csToken, i int) (string, int) {
	var parts []string
	for i < len(toks) && toks[i].ident {
		parts = append(parts, toks[i].text)
		i++
		if i < len(toks) && toks[i].text == "<" {
			i = skipAngles(toks, i)
		}
		if i+1 < len(toks) && toks[i].text == "." && toks[i+1].ident {
			i++
			continue
		}
		if i+2 < len(toks) && toks[i].text == ":" && toks[i+1].text == ":" { // global::
			i += 2
			parts = parts[:0]
			continue
		}
		break
	}
	return strings.Join(parts, "."), i
}

// skipAngles skips a balanced <...> starting at toks[i] if it closes
// before anything a type argument list cannot hold; otherwise it returns i.
func skipAngles(toks []csToken, i int) int {
	depth := 0
	for j := i; j < len(toks); j++ {
		switch toks[j].text {
		case "<":
			depth++
		case ">":
			depth--
			if depth == 0 {
				return j + 1
			}
		case ";", "{", "}", "(", ")", "=", "&", "|", "+", "-", "!":
			return i
		}
	}
	return i
}

// declare runs the declaration pass of one file.
func (d *csDecls) declare(f *csFile) {
	toks := f.tokens
	type level struct {
		ns, typ string
		depth   int
	}
	stack := []level{{}}
	depth := 0
	pendingNS, pendingType := "", ""
	hasPending := false
	isPartial := false
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		top := stack[len(stack)-1]
		switch {
		case t.ident && t.text == "namespace":
			name, j := dotted(toks, i+1)
			full := qual(top.ns, name)
			for p := full; ; {
				d.namespaces[p] = true
				k := strings.LastIndex(p, ".")
				if k < 0 {
					break
				}
				p = p[:k]
			}
			if j < len(toks) && toks[j].text == ";" { // file-scoped
				stack = append(stack, level{ns: full, depth: -1})
			} else {
				pendingNS, pendingType, hasPending = full, "", true
			}
			i = j - 1
		case t.ident && t.text == "partial":
			isPartial = true
		case t.ident && csTypeKeyword(t.text) && i+1 < len(toks) && toks[i+1].ident && !(i > 0 && toks[i-1].text == "."):
			if t.text == "delegate" {
				// delegate R Name(...): the name is the identifier before "(" or "<".
				j := i + 1
				for j+1 < len(toks) && toks[j+1].text != "(" && toks[j+1].text != "<" && toks[j+1].text != ";" {
					j++
				}
				if j < len(toks) && toks[j].ident && top.depth == depth-0 {
					full := qual(qual(top.ns, top.typ), toks[j].text)
					d.types[full] = appendOnce(d.types[full], f.path)
					f.types = append(f.types, full)
				}
				isPartial = false
				continue
			}
			if t.text == "record" && (toks[i+1].text == "struct" || toks[i+1].text == "class") {
				i++
			}
			name := toks[i+1].text
			full := qual(qual(top.ns, top.typ), name)
			d.types[full] = appendOnce(d.types[full], f.path)
			f.types = append(f.types, full)
			if isPartial {
				d.partial[full] = true
			}
			isPartial = false
			typ := qual(top.typ, name)
			pendingNS, pendingType, hasPending = top.ns, typ, true
			i++
		case t.text == "{":
			depth++
			if hasPending {
				stack = append(stack, level{ns: pendingNS, typ: pendingType, depth: depth})
				hasPending = false
			}
		case t.ident && top.typ != "" && depth == top.depth && !hasPending && csMemberName(toks, i):
			full := qual(top.ns, top.typ)
			if d.members[full] == nil {
				d.members[full] = map[string]bool{}
			}
			d.members[full][t.text] = true
		case t.text == "}":
			if top.depth == depth && len(stack) > 1 {
				stack = stack[:len(stack)-1]
			}
			depth--
		case t.text == ";":
			hasPending = false // a record or delegate without a body
			isPartial = false
		}
	}
}

// csMemberName reports whether toks[i], in a type's body, is the name a
// member declares: after its type, before its parameters, accessors,
// initializer or end (not the type of "new T(...)").
func csMemberName(toks []csToken, i int) bool {
	if i == 0 || i+1 >= len(toks) || !toks[i].ident || toks[i+1].text == "" {
		return false
	}
	prev := toks[i-1]
	return (prev.ident && prev.text != "new" && prev.text != "operator" && prev.text != "return" || prev.text == ">" || prev.text == "]" || prev.text == "?") &&
		strings.Contains("({=;<", toks[i+1].text)
}

func appendOnce(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// uses runs the use pass of one file against the declarations its
// project sees and returns the files it uses with counts.
func (d *csDecls) uses(f *csFile) map[string]int {
	toks := f.tokens
	counts := map[string]int{}
	add := func(full string) {
		for _, p := range d.types[full] {
			if p != f.path {
				counts[p]++
			}
		}
	}
	// The other parts of this file's partial types.
	for _, full := range f.types {
		if d.partial[full] {
			add(full)
		}
	}
	stack := []csLevel{{aliases: map[string]string{}}}
	depth := 0
	var pending *csLevel
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		top := &stack[len(stack)-1]
		switch {
		case t.text == "{":
			depth++
			if pending != nil {
				pending.depth = depth
				stack = append(stack, *pending)
				pending = nil
			}
			continue
		case t.text == "}":
			if top.depth == depth && len(stack) > 1 {
				stack = stack[:len(stack)-1]
			}
			depth--
			continue
		case t.text == ";":
			continue
		case !t.ident:
			continue
		}
		switch {
		case t.text == "using" && i+1 < len(toks) && toks[i+1].ident && top.typ == "" && top.depth == depth:
			j := i + 1
			if toks[j].text == "static" || toks[j].text == "global" {
				j++
			}
			if j+1 < len(toks) && toks[j].ident && toks[j+1].text == "=" {
				target, k := dotted(toks, j+2)
				top.aliases[toks[j].text] = target
				// The alias target is a use, resolved from the enclosing scope.
				d.resolveChain(strings.Split(target, "."), stack, false, add)
				i = k - 1
				continue
			}
			name, k := dotted(toks, j)
			if toks[i+1].text == "static" {
				d.resolveChain(strings.Split(name, "."), stack, false, add)
			} else {
				top.imports = append(top.imports, name)
			}
			i = k - 1
			continue
		case t.text == "namespace":
			name, j := dotted(toks, i+1)
			full := qual(top.ns, name)
			if j < len(toks) && toks[j].text == ";" {
				stack = append(stack, csLevel{ns: full, aliases: map[string]string{}, depth: top.depth})
			} else {
				pending = &csLevel{ns: full, aliases: map[string]string{}}
			}
			i = j - 1
			continue
		case csTypeKeyword(t.text) && t.text != "delegate" && i+1 < len(toks) && toks[i+1].ident && !(i > 0 && toks[i-1].text == "."):
			j := i + 1
			if t.text == "record" && (toks[j].text == "struct" || toks[j].text == "class") {
				j++
			}
			pending = &csLevel{ns: top.ns, typ: qual(top.typ, toks[j].text), aliases: map[string]string{}}
			i = j // the declared name is not a use
			continue
		case csKeywords[t.text]:
			continue
		}
		// A name or dotted chain in code.
		var segs []string
		j := i
		for j < len(toks) && toks[j].ident {
			segs = append(segs, toks[j].text)
			j++
			if j < len(toks) && toks[j].text == "<" {
				j = skipAngles(toks, j)
			}
			if j+1 < len(toks) && toks[j].text == "." && toks[j+1].ident {
				j++
				continue
			}
			break
		}
		if i > 0 && toks[i-1].text == "." {
			// the member part of an expression like f().X: not a type name
			i = j - 1
			continue
		}
		if top.typ != "" && depth == top.depth && len(segs) == 1 && csMemberName(toks, i) {
			continue // a member's (or constructor's) own name, not a use
		}
		// An attribute's name is looked up with the suffix first: [Key]
		// is KeyAttribute when there is one.
		attr := i > 0 && (toks[i-1].text == "[" || toks[i-1].text == ",") && j < len(toks) && (toks[j].text == "]" || toks[j].text == "(" || toks[j].text == ",")
		last := len(segs) - 1
		withSuffix := append(slices.Clone(segs[:last]), segs[last]+"Attribute")
		if !attr || !d.resolveTypeChain(withSuffix, stack, add) {
			d.resolveChain(segs, stack, j < len(toks) && toks[j].text == "(", add)
		}
		// Generic arguments inside the chain are resolved by the loop: skip
		// only the chain's identifiers up to the first type argument list.
		for k := i + 1; k < j; k++ {
			if toks[k].text == "<" {
				j = k
				break
			}
		}
		i = j - 1
	}
	return counts
}

// resolveChain resolves a dotted name from the file's levels (outermost
// first) and calls add for each type it names; it reports whether the
// first segment resolved to a type or namespace.
func (d *csDecls) resolveChain(segs []string, levels []csLevel, call bool, add func(string)) bool {
	if len(segs) == 0 {
		return false
	}
	kind, cur := d.lookupFirst(segs[0], levels, call && len(segs) == 1)
	if kind == 0 {
		return false
	}
	if kind == 't' {
		add(cur)
	}
	for _, s := range segs[1:] {
		next := qual(cur, s)
		if _, ok := d.types[next]; ok {
			add(next)
			kind, cur = 't', next
			continue
		}
		if kind == 'n' && d.namespaces[next] {
			cur = next
			continue
		}
		break
	}
	return true
}

// resolveTypeChain resolves a dotted name only if all of it names types
// (or namespaces then types), as an attribute's name must.
func (d *csDecls) resolveTypeChain(segs []string, levels []csLevel, add func(string)) bool {
	var names []string
	ok := d.resolveChain(segs, levels, false, func(full string) { names = append(names, full) })
	if !ok || len(names) == 0 || !strings.HasSuffix(names[len(names)-1], "."+segs[len(segs)-1]) && names[len(names)-1] != segs[len(segs)-1] {
		return false
	}
	for _, n := range names {
		add(n)
	}
	return true
}

// lookupFirst resolves a simple name as C# does, without members of base
// types: 't' and a full type name, 'n' and a namespace, or 0 (a member of
// an enclosing type, or nothing the project declares). call says the name
// is called (Name(...)): only then does a method of an enclosing type hide
// a type of the same name (elsewhere the name is in a type context, or is
// a property whose name is its type's, where both bindings name the type).
func (d *csDecls) lookupFirst(name string, levels []csLevel, call bool) (byte, string) {
	// Enclosing types, innermost first: their nested types, their own
	// methods when called, and themselves.
	for k := len(levels) - 1; k >= 0; k-- {
		l := levels[k]
		if l.typ == "" {
			continue
		}
		t := qual(l.ns, l.typ)
		if full := qual(t, name); d.types[full] != nil {
			return 't', full
		}
		if l.typ == name || strings.HasSuffix(l.typ, "."+name) {
			return 't', t // the type itself (a constructor's name too)
		}
		if call && d.members[t][name] {
			return 0, ""
		}
	}
	// Namespaces from the innermost enclosing one out to the global one:
	// the types and namespaces declared in each, then the using directives
	// of this file's declaration of that namespace (aliases first).
	ns := levels[len(levels)-1].ns
	for {
		full := qual(ns, name)
		if d.types[full] != nil {
			return 't', full
		}
		if d.namespaces[full] {
			return 'n', full
		}
		for k := len(levels) - 1; k >= 0; k-- {
			l := levels[k]
			if l.typ != "" || l.ns != ns {
				continue
			}
			if target, ok := l.aliases[name]; ok {
				if d.types[target] != nil {
					return 't', target
				}
				if d.namespaces[target] {
					return 'n', target
				}
				return 0, ""
			}
			for _, imp := range l.imports {
				if full := qual(imp, name); d.types[full] != nil {
					return 't', full
				}
			}
		}
		if ns == "" {
			return 0, ""
		}
		if dot := strings.LastIndex(ns, "."); dot >= 0 {
			ns = ns[:dot]
		} else {
			ns = ""
		}
	}
}

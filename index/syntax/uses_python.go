package syntax

// The Python uses extractor. It flattens the tree-sitter tree into an array
// of named nodes (flatten, in flatten.go), then walks that array in Go
// with Python's scoping rules: module, class, function, lambda and
// comprehension scopes; a name is local to a function when the function
// binds it anywhere (parameters, assignment and loop targets, with/except
// aliases, imports, nested def/class) and is not declared global or
// nonlocal; class scopes are not visible from the functions inside them.
//
// What it records (see the Python parts of Use, Binding and File.Exports):
//
//   - a chain a.b.c rooted at a name bound by an import records one Use per
//     segment, each naming the full dotted path up to it: `import os;
//     os.path.join` gives {From "os", Name "path"} and {From "os.path",
//     Name "join"}; `from m import C; C.f` gives {From "m", Name "C"} and
//     {From "m.C", Name "f"}. The resolver finds the longest prefix that is
//     a module and follows the rest as attributes.
//   - a module binding, alone (`f(os)`) or as the root of a chain, is
//     {From "os", Name ""}: the module itself is used.
//   - an unqualified name no function or class scope binds and that is not
//     a builtin is {Name} (this module's scope, its `*` imports included).
//   - x.m where x's type is known is {Name "m", Member, Recv}: self and cls
//     in a method (the enclosing class), a variable assigned once from a
//     call of a class name (`x = C()`), a class name itself (`C.m`). Recv
//     is the class's QualifiedName in this file ("Outer.Inner"), or, for a
//     class reached through an import, "path:Name" (path as a Use's From:
//     "m", "..pkg.mod", "m.C" for a nested class). Any other member is
//     {Name, Member} with Recv "": resolved to nothing.

import (
	"slices"
	"strings"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/python"
)

func init() { registerUses(pythonUses, Python) }

// pyKind is the node type of a flattened node, for the types the
// extractor distinguishes.
type pyKind uint8

const (
	pyOther pyKind = iota
	pyIdentifier
	pyAttribute
	pyCall
	pyModule
	pyFunction
	pyClass
	pyLambda
	pyComprehension // list, set, dict comprehension, generator expression
	pyDecorated
	pyDecorator
	pyImport
	pyImportFrom
	pyFutureImport
	pyAliasedImport
	pyDottedName
	pyRelativeImport
	pyImportPrefix
	pyWildcard
	pyAssignment
	pyAugAssignment
	pyNamedExpr
	pyFor
	pyForIn
	pyAsPatternTarget
	pyGlobal
	pyNonlocal
	pyKeywordArgument
	pyParameters
	pyLambdaParameters
	pyDefaultParameter
	pyTypedParameter
	pyTypedDefaultParameter
	pySplatPattern // list_splat_pattern, dictionary_splat_pattern
	pyPatternList  // pattern_list, tuple_pattern, list_pattern, tuple, list, parenthesized_expression as targets
	pyString
	pyStringContent
	pyList
	pyTuple
	pyExprStmt
	pyBlock
	pyArgumentList
	pyDelete
	pyCaseKeyword // keyword_pattern: the keyword is not a reference
	pyClassPattern
)

var pyKindNames = map[string]pyKind{
	"identifier":               pyIdentifier,
	"attribute":                pyAttribute,
	"call":                     pyCall,
	"module":                   pyModule,
	"function_definition":      pyFunction,
	"class_definition":         pyClass,
	"lambda":                   pyLambda,
	"list_comprehension":       pyComprehension,
	"set_comprehension":        pyComprehension,
	"dictionary_comprehension": pyComprehension,
	"generator_expression":     pyComprehension,
	"decorated_definition":     pyDecorated,
	"decorator":                pyDecorator,
	"import_statement":         pyImport,
	"import_from_statement":    pyImportFrom,
	"future_import_statement":  pyFutureImport,
	"aliased_import":           pyAliasedImport,
	"dotted_name":              pyDottedName,
	"relative_import":          pyRelativeImport,
	"import_prefix":            pyImportPrefix,
	"wildcard_import":          pyWildcard,
	"assignment":               pyAssignment,
	"augmented_assignment":     pyAugAssignment,
	"named_expression":         pyNamedExpr,
	"for_statement":            pyFor,
	"for_in_clause":            pyForIn,
	"as_pattern_target":        pyAsPatternTarget,
	"global_statement":         pyGlobal,
	"nonlocal_statement":       pyNonlocal,
	"keyword_argument":         pyKeywordArgument,
	"parameters":               pyParameters,
	"lambda_parameters":        pyLambdaParameters,
	"default_parameter":        pyDefaultParameter,
	"typed_parameter":          pyTypedParameter,
	"typed_default_parameter":  pyTypedDefaultParameter,
	"list_splat_pattern":       pySplatPattern,
	"dictionary_splat_pattern": pySplatPattern,
	"pattern_list":             pyPatternList,
	"tuple_pattern":            pyPatternList,
	"list_pattern":             pyPatternList,
	"parenthesized_expression": pyPatternList,
	"string":                   pyString,
	"string_content":           pyStringContent,
	"list":                     pyList,
	"tuple":                    pyTuple,
	"expression_statement":     pyExprStmt,
	"block":                    pyBlock,
	"argument_list":            pyArgumentList,
	"delete_statement":         pyDelete,
	"keyword_pattern":          pyCaseKeyword,
	"class_pattern":            pyClassPattern,
}

// pyField is a field of a flattened node, for the fields the extractor
// reads.
type pyField uint8

const (
	pfOther pyField = iota
	pfName
	pfAlias
	pfObject
	pfAttribute
	pfFunction
	pfLeft
	pfRight
	pfBody
	pfParameters
	pfSuperclasses
	pfModuleName
	pfValue
	pfType
	pfReturnType
	pfDefinition
)

var pyFieldNames = map[string]pyField{
	"name": pfName, "alias": pfAlias, "object": pfObject, "attribute": pfAttribute,
	"function": pfFunction, "left": pfLeft, "right": pfRight, "body": pfBody,
	"parameters": pfParameters, "superclasses": pfSuperclasses, "module_name": pfModuleName,
	"value": pfValue, "type": pfType, "return_type": pfReturnType, "definition": pfDefinition,
}

var pyTablesOnce = sync.OnceValue(func() *flatTable {
	return newFlatTable[pyKind](python.GetLanguage(), pyKindNames, nil, pyFieldNames)
})

// pyNode is one named node of the flattened tree.
type pyNode = flatNode[pyKind, pyField]

// pyScopeKind is the kind of a Python scope.
type pyScopeKind uint8

const (
	scopeModule pyScopeKind = iota
	scopeClass
	scopeFunction // functions, lambdas, comprehensions
)

// pyName is what a scope knows about one name it binds.
type pyName struct {
	// mod is set for a name an import binds: the module as written, and
	// orig the name taken from it ("" for the module itself).
	mod, orig string
	imported  bool
	// class is the QualifiedName of a class this file declares with the
	// name (module and class scopes), "" otherwise.
	class string
	// recv is the Recv of a value of known class type (self, cls,
	// x = C()); typ is the callee chain of an assignment x = C(...), read
	// in scope typScope when the name is used. conflict: assigned twice.
	recv     string
	typ      []string
	typScope *pyScope
	conflict bool
}

// pyScope is one scope.
type pyScope struct {
	kind      pyScopeKind
	parent    *pyScope
	names     map[string]*pyName
	globals   map[string]bool // global or nonlocal declarations
	nonlocals map[string]bool
	class     string // scopeClass: the class's QualifiedName, "" for a local class
}

func (s *pyScope) bind(name string) *pyName {
	if s.globals[name] || s.nonlocals[name] {
		return nil
	}
	if n := s.names[name]; n != nil {
		return n
	}
	n := &pyName{}
	s.names[name] = n
	return n
}

// pyWalker extracts the uses of one file.
type pyWalker struct {
	src    []byte
	nodes  []pyNode
	f      *File
	module *pyScope
	uses   []Use
	// exports: the literal names of __all__; allDynamic when __all__ is
	// also changed by something else than literals.
	exports    []string
	hasAll     bool
	allDynamic bool
	aliases    []pyAlias
}

// pyAlias is a module-level `X = chain` whose chain may be rooted at an
// import: a re-export by assignment.
type pyAlias struct {
	name  string
	chain []string
}

func pythonUses(root *sitter.Node, src []byte, f *File) {
	w := &pyWalker{src: src, nodes: flatten[pyKind, pyField](root, pyTablesOnce(), true, len(src)), f: f}
	if len(w.nodes) == 0 {
		return
	}
	w.module = &pyScope{kind: scopeModule, names: map[string]*pyName{}}
	w.collect(w.module, 0, "")
	w.walkChildren(w.module, 0, "")
	for _, a := range w.aliases {
		n := w.module.names[a.chain[0]]
		if n == nil || !n.imported {
			continue
		}
		if len(a.chain) == 1 {
			if n.orig == "" {
				f.Bindings = append(f.Bindings, Binding{Name: a.name, From: n.mod, Orig: "*", Export: true})
			} else {
				f.Bindings = append(f.Bindings, Binding{Name: a.name, From: n.mod, Orig: n.orig, Export: true})
			}
			continue
		}
		path, _ := w.importPath(n, a.chain[1:len(a.chain)-1])
		f.Bindings = append(f.Bindings, Binding{Name: a.name, From: path, Orig: a.chain[len(a.chain)-1], Export: true})
	}
	if w.hasAll && !w.allDynamic {
		f.Exports = slices.Compact(slices.Sorted(slices.Values(w.exports)))
		if f.Exports == nil {
			f.Exports = []string{}
		}
	}
	f.Uses = w.uses
}

func (w *pyWalker) text(i int) string { return string(w.src[w.nodes[i].start:w.nodes[i].end]) }

// children calls fn for each child of node i.
func (w *pyWalker) children(i int, fn func(c int)) {
	for c := i + 1; c < int(w.nodes[i].next) && c < len(w.nodes); c = int(w.nodes[c].next) {
		fn(c)
		if int(w.nodes[c].next) <= c {
			return // never: flatten closes every node
		}
	}
}

// child returns the first child of node i with field fl, or -1.
func (w *pyWalker) child(i int, fl pyField) int {
	for c := i + 1; c < int(w.nodes[i].next) && c < len(w.nodes); c = int(w.nodes[c].next) {
		if w.nodes[c].field == fl {
			return c
		}
		if int(w.nodes[c].next) <= c {
			break
		}
	}
	return -1
}

// qualify joins a container's qualified name and a name.
func qualify(container, name string) string {
	if container == "" {
		return name
	}
	return container + "." + name
}

// collect records the names scope s binds in the subtree of node i,
// without entering nested scopes (whose names it binds are the scope's).
// container is the qualified name of the class whose body s is ("" at
// module level, in functions).
func (w *pyWalker) collect(s *pyScope, i int, container string) {
	w.children(i, func(c int) { w.collectNode(s, c, container) })
}

func (w *pyWalker) collectNode(s *pyScope, i int, container string) {
	n := &w.nodes[i]
	switch n.kind {
	case pyFunction, pyClass:
		if name := w.child(i, pfName); name >= 0 {
			b := s.bind(w.text(name))
			if b != nil && n.kind == pyClass && (s.kind == scopeModule || s.kind == scopeClass && container != "") {
				b.class = qualify(container, w.text(name))
			}
		}
		return
	case pyLambda, pyComprehension:
		return
	case pyImport, pyImportFrom, pyFutureImport:
		w.collectImport(s, i)
		return
	case pyGlobal, pyNonlocal:
		w.children(i, func(c int) {
			if w.nodes[c].kind != pyIdentifier {
				return
			}
			name := w.text(c)
			if n.kind == pyGlobal {
				if s.globals == nil {
					s.globals = map[string]bool{}
				}
				s.globals[name] = true
				w.module.bind(name)
			} else {
				if s.nonlocals == nil {
					s.nonlocals = map[string]bool{}
				}
				s.nonlocals[name] = true
			}
		})
		return
	case pyAssignment, pyAugAssignment:
		left := w.child(i, pfLeft)
		if left >= 0 {
			w.bindTarget(s, left)
			if s.kind == scopeModule && w.nodes[left].kind == pyIdentifier && w.text(left) == "__all__" {
				w.allNode(i, n.kind == pyAugAssignment)
			}
			if n.kind == pyAssignment && w.nodes[left].kind == pyIdentifier {
				w.assignType(s, left, w.child(i, pfRight))
			}
		}
	case pyNamedExpr:
		if name := w.child(i, pfName); name >= 0 {
			w.bindTarget(s, name)
		}
	case pyFor, pyForIn:
		if left := w.child(i, pfLeft); left >= 0 {
			w.bindTarget(s, left)
		}
	case pyAsPatternTarget:
		w.bindTarget(s, i)
		return
	case pyDelete:
		w.children(i, func(c int) { w.bindTarget(s, c) })
		return
	case pyCall:
		if s.kind == scopeModule {
			w.allCall(i)
		}
	}
	w.children(i, func(c int) { w.collectNode(s, c, container) })
}

// bindTarget binds the names of an assignment target.
func (w *pyWalker) bindTarget(s *pyScope, i int) {
	switch w.nodes[i].kind {
	case pyIdentifier:
		s.bind(w.text(i))
	case pyPatternList, pySplatPattern, pyAsPatternTarget, pyList, pyTuple:
		w.children(i, func(c int) { w.bindTarget(s, c) })
	}
}

// assignType records the type of x in x = C(...) (a call of a name or
// dotted chain), or, at module level, an alias X = chain.
func (w *pyWalker) assignType(s *pyScope, left, right int) {
	if right < 0 {
		return
	}
	name := w.text(left)
	b := s.names[name]
	if b == nil {
		return
	}
	switch w.nodes[right].kind {
	case pyCall:
		fn := w.child(right, pfFunction)
		if fn < 0 {
			break
		}
		if chain := w.chain(fn); chain != nil {
			if b.typ != nil || b.conflict {
				b.conflict, b.typ = true, nil
				return
			}
			b.typ, b.typScope = chain, s
			return
		}
	case pyIdentifier, pyAttribute:
		if s.kind == scopeModule {
			if chain := w.chain(right); chain != nil {
				w.aliases = append(w.aliases, pyAlias{name: name, chain: chain})
			}
		}
	}
	b.conflict, b.typ = true, nil
}

// chain returns the names of a dotted chain a.b.c (node i an identifier or
// attribute), or nil when i is something else.
func (w *pyWalker) chain(i int) []string {
	var rev []string
	for w.nodes[i].kind == pyAttribute {
		obj, attr := w.child(i, pfObject), w.child(i, pfAttribute)
		if obj < 0 || attr < 0 {
			return nil
		}
		rev = append(rev, w.text(attr))
		i = obj
	}
	if w.nodes[i].kind != pyIdentifier {
		return nil
	}
	rev = append(rev, w.text(i))
	slices.Reverse(rev)
	return rev
}

// allNode reads `__all__ = [...]` or `__all__ += [...]`.
func (w *pyWalker) allNode(i int, aug bool) {
	right := w.child(i, pfRight)
	if !aug {
		w.hasAll = true
		w.exports = w.exports[:0]
	}
	if right < 0 || !w.stringList(right) {
		w.allDynamic = true
	}
}

// allCall reads `__all__.extend([...])` and `__all__.append("x")`.
func (w *pyWalker) allCall(i int) {
	fn := w.child(i, pfFunction)
	if fn < 0 || w.nodes[fn].kind != pyAttribute {
		return
	}
	chain := w.chain(fn)
	if len(chain) != 2 || chain[0] != "__all__" {
		return
	}
	args := w.child(i, pfOther)
	ok := false
	if args >= 0 && w.nodes[args].kind == pyArgumentList {
		var arg []int
		w.children(args, func(c int) { arg = append(arg, c) })
		if len(arg) == 1 {
			switch chain[1] {
			case "extend":
				ok = w.stringList(arg[0])
			case "append":
				if s, isStr := w.stringLit(arg[0]); isStr {
					w.exports = append(w.exports, s)
					ok = true
				}
			}
		}
	}
	if !ok && chain[1] != "remove" {
		w.allDynamic = true
	}
}

// stringList appends the strings of a literal list or tuple of strings to
// the exports and reports whether it was one.
func (w *pyWalker) stringList(i int) bool {
	k := w.nodes[i].kind
	if k != pyList && k != pyTuple && k != pyPatternList {
		return false
	}
	ok := true
	w.children(i, func(c int) {
		if s, isStr := w.stringLit(c); isStr {
			w.exports = append(w.exports, s)
		} else {
			ok = false
		}
	})
	return ok
}

// stringLit returns the value of a plain string literal without escapes or
// interpolation.
func (w *pyWalker) stringLit(i int) (string, bool) {
	if w.nodes[i].kind != pyString {
		return "", false
	}
	var content []string
	ok := true
	w.children(i, func(c int) {
		switch w.nodes[c].kind {
		case pyStringContent:
			content = append(content, w.text(c))
		case pyOther:
			if t := w.text(c); strings.Trim(t, `"'rRuUbB`) != "" {
				ok = false // an escape sequence or an interpolation
			}
		default:
			ok = false
		}
	})
	return strings.Join(content, ""), ok
}

// collectImport binds the names of an import statement and, at module
// level, records its Bindings.
func (w *pyWalker) collectImport(s *pyScope, i int) {
	n := &w.nodes[i]
	bind := func(local, mod, orig string) {
		b := s.bind(local)
		if b == nil {
			b = w.module.bind(local) // declared global
		}
		if b != nil {
			b.imported, b.mod, b.orig = true, mod, orig
		}
	}
	top := s.kind == scopeModule
	switch n.kind {
	case pyImport:
		w.children(i, func(c int) {
			switch w.nodes[c].kind {
			case pyDottedName:
				mod := w.dotted(c)
				first, _, dotted := strings.Cut(mod, ".")
				bind(first, first, "")
				if top {
					w.f.Bindings = append(w.f.Bindings, Binding{Name: first, From: first, Orig: "*", Export: true})
					if dotted {
						w.f.Bindings = append(w.f.Bindings, Binding{Name: mod, From: mod, Orig: "*", Export: true})
					}
				}
			case pyAliasedImport:
				name, alias := w.child(c, pfName), w.child(c, pfAlias)
				if name < 0 || alias < 0 {
					return
				}
				mod, local := w.dotted(name), w.text(alias)
				bind(local, mod, "")
				if top {
					w.f.Bindings = append(w.f.Bindings, Binding{Name: local, From: mod, Orig: "*", Export: true})
				}
			}
		})
	case pyImportFrom:
		modNode := w.child(i, pfModuleName)
		if modNode < 0 {
			return
		}
		mod := w.dotted(modNode)
		w.children(i, func(c int) {
			if w.nodes[c].field != pfName && w.nodes[c].kind != pyWildcard {
				return
			}
			switch w.nodes[c].kind {
			case pyWildcard:
				if top {
					w.f.Bindings = append(w.f.Bindings, Binding{Name: "*", From: mod, Orig: "*", Export: true})
				}
			case pyDottedName:
				name := w.dotted(c)
				bind(name, mod, name)
				if top {
					w.f.Bindings = append(w.f.Bindings, Binding{Name: name, From: mod, Orig: name, Export: true})
					w.reexport(mod, name, c)
				}
			case pyAliasedImport:
				name, alias := w.child(c, pfName), w.child(c, pfAlias)
				if name < 0 || alias < 0 {
					return
				}
				orig, local := w.dotted(name), w.text(alias)
				bind(local, mod, orig)
				if top {
					w.f.Bindings = append(w.f.Bindings, Binding{Name: local, From: mod, Orig: orig, Export: true})
					w.reexport(mod, orig, name)
				}
			}
		})
	}
}

// reexport records a module-level `from mod import name` as a use of
// name, whether or not the module uses it: the import itself looks the
// name up when the module runs, and a module of imports only (an
// __init__.py, sqlalchemy/types.py) is the re-export of each name, which
// its importers reach through it. Node i is the name as written.
func (w *pyWalker) reexport(mod, name string, i int) {
	if name != "" && !strings.Contains(name, ".") {
		w.use(Use{From: mod, Name: name}, i)
	}
}

// dotted returns a dotted_name or relative_import without white space.
func (w *pyWalker) dotted(i int) string { return noSpace(w.text(i)) }

// walkChildren walks the children of node i for references, in scope s.
func (w *pyWalker) walkChildren(s *pyScope, i int, container string) {
	w.children(i, func(c int) { w.walk(s, c, container) })
}

// walk records the uses of the subtree of node i in scope s.
func (w *pyWalker) walk(s *pyScope, i int, container string) {
	n := &w.nodes[i]
	switch n.kind {
	case pyIdentifier:
		w.nameUse(s, i)
	case pyAttribute:
		w.attrUse(s, i)
	case pyImport, pyImportFrom, pyFutureImport, pyGlobal, pyNonlocal, pyDottedName, pyString:
		if n.kind == pyString {
			w.walkChildren(s, i, container) // interpolations
		}
	case pyAssignment, pyAugAssignment, pyFor, pyForIn:
		w.children(i, func(c int) {
			if w.nodes[c].field == pfLeft && n.kind != pyAugAssignment {
				w.walkTarget(s, c, container)
			} else {
				w.walk(s, c, container)
			}
		})
	case pyAsPatternTarget:
		w.walkTarget(s, i, container)
	case pyKeywordArgument:
		if v := w.child(i, pfValue); v >= 0 {
			w.walk(s, v, container)
		}
	case pyCaseKeyword:
		w.children(i, func(c int) {
			if w.nodes[c].kind != pyIdentifier {
				w.walk(s, c, container)
			}
		})
	case pyClassPattern:
		w.children(i, func(c int) {
			if w.nodes[c].kind == pyDottedName {
				w.dottedUse(s, c)
			} else {
				w.walk(s, c, container)
			}
		})
	case pyDecorated:
		def := w.child(i, pfDefinition)
		static := false
		w.children(i, func(c int) {
			if w.nodes[c].kind == pyDecorator {
				if strings.TrimSpace(strings.TrimPrefix(w.text(c), "@")) == "staticmethod" {
					static = true
				}
				w.walkChildren(s, c, container)
			}
		})
		if def >= 0 {
			w.definition(s, def, container, static)
		}
	case pyFunction, pyClass:
		w.definition(s, i, container, false)
	case pyLambda:
		inner := &pyScope{kind: scopeFunction, parent: s, names: map[string]*pyName{}}
		if p := w.child(i, pfParameters); p >= 0 {
			w.params(s, inner, p, container)
		}
		if b := w.child(i, pfBody); b >= 0 {
			w.collectNode(inner, b, "")
			w.walk(inner, b, "")
		}
	case pyComprehension:
		inner := &pyScope{kind: scopeFunction, parent: s, names: map[string]*pyName{}}
		w.children(i, func(c int) {
			if w.nodes[c].kind == pyForIn {
				if left := w.child(c, pfLeft); left >= 0 {
					w.bindTarget(inner, left)
				}
			}
		})
		w.walkChildren(inner, i, "")
	default:
		w.walkChildren(s, i, container)
	}
}

// walkTarget walks an assignment target: the names it binds are not uses,
// the objects of attributes and subscripts it assigns to are.
func (w *pyWalker) walkTarget(s *pyScope, i int, container string) {
	switch w.nodes[i].kind {
	case pyIdentifier:
	case pyPatternList, pySplatPattern, pyAsPatternTarget, pyList, pyTuple:
		w.children(i, func(c int) { w.walkTarget(s, c, container) })
	default:
		w.walk(s, i, container)
	}
}

// definition walks a function or class definition: what the enclosing
// scope evaluates (decorators, defaults, annotations, bases), then the body
// in a new scope.
func (w *pyWalker) definition(s *pyScope, i int, container string, static bool) {
	nameNode := w.child(i, pfName)
	name := ""
	if nameNode >= 0 {
		name = w.text(nameNode)
	}
	body := w.child(i, pfBody)
	if w.nodes[i].kind == pyClass {
		if sc := w.child(i, pfSuperclasses); sc >= 0 {
			w.walk(s, sc, container)
		}
		cls := ""
		if s.kind == scopeModule || s.kind == scopeClass && container != "" {
			cls = qualify(container, name)
		}
		inner := &pyScope{kind: scopeClass, parent: s, names: map[string]*pyName{}, class: cls}
		if body >= 0 {
			w.collect(inner, body, cls)
			w.walkChildren(inner, body, cls)
		}
		return
	}
	inner := &pyScope{kind: scopeFunction, parent: s, names: map[string]*pyName{}}
	if p := w.child(i, pfParameters); p >= 0 {
		first := w.params(s, inner, p, container)
		if s.kind == scopeClass && s.class != "" && !static && first != "" {
			if b := inner.names[first]; b != nil {
				b.recv = s.class
			}
		}
	}
	if rt := w.child(i, pfReturnType); rt >= 0 {
		w.walk(s, rt, container)
	}
	if body >= 0 {
		w.collect(inner, body, "")
		w.walkChildren(inner, body, "")
	}
}

// params binds the parameters of a function or lambda in inner, walks
// their defaults and annotations in the enclosing scope s, and returns the
// name of the first parameter.
func (w *pyWalker) params(s, inner *pyScope, p int, container string) string {
	first := ""
	w.children(p, func(c int) {
		var name int = -1
		switch w.nodes[c].kind {
		case pyIdentifier:
			name = c
		case pyDefaultParameter, pyTypedDefaultParameter:
			name = w.child(c, pfName)
			w.children(c, func(d int) {
				if f := w.nodes[d].field; f == pfValue || f == pfType {
					w.walk(s, d, container)
				}
			})
		case pyTypedParameter:
			w.children(c, func(d int) {
				switch {
				case w.nodes[d].field == pfType:
					w.walk(s, d, container)
				case w.nodes[d].kind == pyIdentifier && name < 0:
					name = d
				case w.nodes[d].kind == pySplatPattern:
					w.bindTarget(inner, d)
				}
			})
		case pySplatPattern:
			w.bindTarget(inner, c)
		case pyPatternList: // Python 2 tuple parameters
			w.bindTarget(inner, c)
		}
		if name >= 0 && w.nodes[name].kind == pyIdentifier {
			inner.bind(w.text(name))
			if first == "" && c == p+1 {
				first = w.text(name)
			}
		}
	})
	return first
}

// lookup finds the scope binding name as seen from s, by Python's rules:
// the scope itself, then the enclosing function scopes (class scopes are
// skipped), then the module. nil when nothing binds it.
func (w *pyWalker) lookup(s *pyScope, name string) *pyName {
	for sc := s; sc != nil; sc = sc.parent {
		if sc != s && sc.kind == scopeClass {
			continue
		}
		if sc.globals[name] {
			return w.module.names[name]
		}
		if b := sc.names[name]; b != nil {
			return b
		}
	}
	return nil
}

// isLocal reports whether the binding b of name is the module's.
func (w *pyWalker) isModule(b *pyName, name string) bool { return w.module.names[name] == b }

func (w *pyWalker) use(u Use, i int) {
	u.Start, u.End = w.nodes[i].start, w.nodes[i].end
	if u.Start >= u.End {
		return // a name the parser inserted to recover from an error
	}
	w.uses = append(w.uses, u)
}

// nameUse records the use of an identifier in expression position.
func (w *pyWalker) nameUse(s *pyScope, i int) {
	name := w.text(i)
	b := w.lookup(s, name)
	switch {
	case b == nil:
		if !pyBuiltins[name] {
			w.use(Use{Name: name}, i)
		}
	case b.imported:
		if b.orig == "" {
			w.use(Use{From: b.mod}, i)
		} else {
			w.use(Use{From: b.mod, Name: b.orig}, i)
		}
	case w.isModule(b, name):
		w.use(Use{Name: name}, i)
	}
}

// importPath returns the dotted path an import binding and attribute
// segments name: "os" + [path] = "os.path", (".", "x") + [] = ".x".
func (w *pyWalker) importPath(b *pyName, segs []string) (string, bool) {
	if !b.imported {
		return "", false
	}
	p := b.mod
	add := func(s string) {
		if strings.HasSuffix(p, ".") {
			p += s
		} else {
			p += "." + s
		}
	}
	if b.orig != "" {
		add(b.orig)
	}
	for _, s := range segs {
		add(s)
	}
	return p, true
}

// attrUse records the uses of an attribute chain.
func (w *pyWalker) attrUse(s *pyScope, i int) {
	// segs: the attribute identifiers from the root outwards.
	var segs []int
	j := i
	for w.nodes[j].kind == pyAttribute {
		obj, attr := w.child(j, pfObject), w.child(j, pfAttribute)
		if obj < 0 || attr < 0 {
			w.walkChildren(s, j, "")
			return
		}
		segs = append(segs, attr)
		j = obj
	}
	slices.Reverse(segs)
	root := j
	if w.nodes[root].kind != pyIdentifier {
		w.walk(s, root, "")
		for _, a := range segs {
			w.use(Use{Name: w.text(a), Member: true}, a)
		}
		return
	}
	name := w.text(root)
	b := w.lookup(s, name)
	if b != nil && b.imported {
		w.nameUseChain(b, root, segs)
		return
	}
	recv := ""
	switch {
	case b == nil:
		if !pyBuiltins[name] {
			w.use(Use{Name: name}, root)
		}
	case w.isModule(b, name):
		w.use(Use{Name: name}, root)
		recv = w.recvOf(b)
	default:
		recv = w.recvOf(b)
	}
	for k, a := range segs {
		u := Use{Name: w.text(a), Member: true}
		if k == 0 {
			u.Recv = recv
		}
		w.use(u, a)
	}
}

// nameUseChain records a chain rooted at an import binding: the root's
// use, then one use per segment naming the path up to it.
func (w *pyWalker) nameUseChain(b *pyName, root int, segs []int) {
	if b.orig != "" {
		w.use(Use{From: b.mod, Name: b.orig}, root)
	} else {
		w.use(Use{From: b.mod}, root)
	}
	path, _ := w.importPath(b, nil)
	for _, a := range segs {
		name := w.text(a)
		if name == "" {
			return
		}
		w.use(Use{From: path, Name: name}, a)
		if strings.HasSuffix(path, ".") {
			path += name
		} else {
			path += "." + name
		}
	}
}

// recvOf returns the Recv of a value bound to b: a class of this module,
// self or cls, or x = C().
func (w *pyWalker) recvOf(b *pyName) string {
	switch {
	case b.class != "":
		return b.class
	case b.recv != "":
		return b.recv
	case b.typ != nil && !b.conflict:
		t := w.lookup(b.typScope, b.typ[0])
		if t == nil {
			return ""
		}
		if t.imported {
			if len(b.typ) == 1 {
				if t.orig == "" {
					return ""
				}
				return t.mod + ":" + t.orig
			}
			path, _ := w.importPath(t, b.typ[1:len(b.typ)-1])
			return path + ":" + b.typ[len(b.typ)-1]
		}
		if len(b.typ) == 1 && t.class != "" {
			return t.class
		}
	}
	return ""
}

// dottedUse records a dotted_name in expression position (a class pattern
// of a match statement): its first name, then its segments.
func (w *pyWalker) dottedUse(s *pyScope, i int) {
	var ids []int
	w.children(i, func(c int) { ids = append(ids, c) })
	if len(ids) == 0 {
		return
	}
	b := w.lookup(s, w.text(ids[0]))
	if b != nil && b.imported {
		w.nameUseChain(b, ids[0], ids[1:])
		return
	}
	w.nameUse(s, ids[0])
}

// pyBuiltins are the names of the builtins module and the module
// attributes every module has.
var pyBuiltins = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range strings.Fields(`ArithmeticError AssertionError AttributeError BaseException
	BaseExceptionGroup BlockingIOError BrokenPipeError BufferError BytesWarning ChildProcessError
	ConnectionAbortedError ConnectionError ConnectionRefusedError ConnectionResetError
	DeprecationWarning EOFError Ellipsis EncodingWarning EnvironmentError Exception ExceptionGroup
	False FileExistsError FileNotFoundError FloatingPointError FutureWarning GeneratorExit IOError
	ImportError ImportWarning IndentationError IndexError InterruptedError IsADirectoryError
	KeyError KeyboardInterrupt LookupError MemoryError ModuleNotFoundError NameError None
	NotADirectoryError NotImplemented NotImplementedError OSError OverflowError
	PendingDeprecationWarning PermissionError ProcessLookupError RecursionError ReferenceError
	ResourceWarning RuntimeError RuntimeWarning StopAsyncIteration StopIteration SyntaxError
	SyntaxWarning SystemError SystemExit TabError TimeoutError True TypeError UnboundLocalError
	UnicodeDecodeError UnicodeEncodeError UnicodeError UnicodeTranslateError UnicodeWarning
	UserWarning ValueError Warning ZeroDivisionError PythonFinalizationError
	__build_class__ __debug__ __doc__ __import__ __loader__ __name__ __package__ __spec__
	__file__ __path__ __builtins__ __dict__ __annotations__ __cached__
	abs aiter all anext any ascii bin bool breakpoint bytearray bytes callable chr classmethod
	compile complex copyright credits delattr dict dir divmod enumerate eval exec exit filter float
	format frozenset getattr globals hasattr hash help hex id input int isinstance issubclass iter
	len license list locals map max memoryview min next object oct open ord pow print property quit
	range repr reversed round set setattr slice sorted staticmethod str sum super tuple type vars zip
	unicode long basestring xrange unichr raw_input reduce file execfile cmp buffer apply intern coerce`) {
		m[n] = true
	}
	return m
}()

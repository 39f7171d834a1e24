package relate

import (
	"slices"
	"strings"

	"github.com/ctxd/ctxd/index/syntax"
)

// reqKind says how an import request's alternatives are read.
type reqKind uint8

const (
	// The zero reqKind never resolves (a bare specifier, a standard or
	// third-party package).
	_ reqKind = iota
	// reqFiles: groups of root-relative file paths; in each group the first
	// existing file wins, and the request resolves to every group's winner.
	reqFiles
	// reqGoDir: directories; the first one holding Go files is the package.
	reqGoDir
	// reqJS: module bases tried in order, each expanded to extensions,
	// index files and package.json entries.
	reqJS
	// reqJava: packages, with names holding the class per alternative (""
	// for a wildcard import of the whole package).
	reqJava
	// reqNS: namespaces, with names holding a type per alternative (""
	// for the whole namespace).
	reqNS
	// reqPyAbs: an absolute Python module (mod, as a slash path) searched
	// from the importer's source roots.
	reqPyAbs
)

// request is what one import statement asks for, computed from the
// importing file and the resolver configs alone. Whether an alternative
// exists is decided at query time.
type request struct {
	kind   reqKind
	groups [][]string // reqFiles
	alts   []string   // reqGoDir, reqJS, reqJava, reqNS
	names  []string   // reqJava, reqNS: parallel to alts
	mod    string     // reqPyAbs
	// Python: the submodules of subDir that the file names in its Refs are
	// imported too ("from pkg import sub"), when the winner of the
	// request is subDir/__init__.py or, for "from . import x", always.
	hasSub    bool
	subDir    string
	subAlways bool
}

// regKey registers request req of a file under a reverse-lookup key, so that
// Importers finds every request that may resolve to a given file.
type regKey struct {
	key string
	req int32
}

// extraBase is a base type whose last segment is not among the file's Refs:
// the only base-type relations not already implied by a reference edge.
type extraBase struct {
	sym, base int32
	name      string
}

// fileFacts is everything one file contributes to the graph. It depends only
// on the file's path, its extraction and the root's resolver configs, so it
// is computed once per version of the file and shared between graphs.
type fileFacts struct {
	path, dir string
	lang      syntax.Family
	syn       *syntax.File // nil for files without symbols
	tsFirst   bool         // a TypeScript importer
	goTest    bool         // a _test.go file
	goOff     bool         // a Go file that does not build for env.goPlat
	goPkg     string
	// goHead: a Go file without an extraction whose package (goPkg,
	// goTest, goOff, goCons) its header says.
	goHead    bool
	goCons    string
	reqs      []request // parallel to syn.Imports
	keys      []regKey
	typeNames []string // Java, C#, C/C++: sorted distinct names of type symbols
	topTypes  []string // Java: sorted distinct names of top-level type symbols
	extra     []extraBase
}

func newFacts(p string, syn *syntax.File, h goHead, e *env) *fileFacts {
	f := &fileFacts{path: p, dir: dirOf(p), syn: syn, lang: langOf(p, syn)}
	f.tsFirst = f.lang == syntax.FamilyECMAScript && isTSImporter(p)
	if f.lang == syntax.FamilyGo {
		f.goTest = strings.HasSuffix(p, "_test.go")
		f.goOff = !e.goPlat.builds(p, nil)
		if syn == nil && h.ok {
			f.goHead, f.goPkg, f.goCons = true, h.pkg, h.constraint
			f.goOff = !e.goPlat.builds(p, goExpr(h.constraint))
		}
	}
	if syn == nil {
		return f
	}
	if f.lang == syntax.FamilyGo {
		f.goPkg = syn.Package
		f.goOff = !e.goPlat.builds(p, goExpr(syn.Constraint))
	}
	typeFilters := f.lang == syntax.FamilyJava || f.lang == syntax.FamilyCSharp || f.lang == syntax.FamilyC
	for i, s := range syn.Symbols {
		if typeFilters && s.Kind.IsType() {
			f.typeNames = append(f.typeNames, s.Name)
			if s.Container == "" {
				f.topTypes = append(f.topTypes, s.Name)
			}
		}
		for bi, b := range s.Bases {
			_, name := splitBase(b)
			if name == "" {
				continue
			}
			if _, found := slices.BinarySearch(syn.Refs, name); !found {
				f.extra = append(f.extra, extraBase{sym: int32(i), base: int32(bi), name: name})
			}
		}
	}
	f.typeNames = sortedSet(f.typeNames)
	f.topTypes = sortedSet(f.topTypes)
	if len(syn.Imports) > 0 {
		f.reqs = make([]request, len(syn.Imports))
		c := &reqCtx{}
		for i, imp := range syn.Imports {
			f.reqs[i] = e.request(f, imp, c)
			f.keys = appendKeys(f.keys, int32(i), &f.reqs[i])
		}
	}
	return f
}

// goKnown reports whether the package of a Go file is known: from its
// extraction, or without one from its header.
func (f *fileFacts) goKnown() bool { return f.syn != nil || f.goHead }

func sortedSet(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	slices.Sort(s)
	return slices.Compact(s)
}

// appendKeys registers request i under the keys reverseKeys produces for
// every file the request may resolve to.
func appendKeys(keys []regKey, i int32, r *request) []regKey {
	start := len(keys)
	add := func(k string) {
		for _, x := range keys[start:] {
			if x.key == k {
				return
			}
		}
		keys = append(keys, regKey{key: k, req: i})
	}
	switch r.kind {
	case reqFiles:
		for _, g := range r.groups {
			for _, p := range g {
				add("p:" + p)
			}
		}
		if r.hasSub {
			add("pyd:" + r.subDir)
		}
	case reqGoDir:
		for _, a := range r.alts {
			add("go:" + a)
		}
	case reqJS:
		for _, a := range r.alts {
			add("js:" + a)
		}
	case reqJava:
		for _, a := range r.alts {
			add("jp:" + a)
		}
	case reqNS:
		for _, a := range r.alts {
			add("ns:" + a)
		}
	case reqPyAbs:
		add("py:" + r.mod)
		if p := dirOf(r.mod); p != "" {
			add("py:" + p)
		}
	}
	return keys
}

// reqCtx holds what the imports of one file share (its go.mod, tsconfig,
// crate), looked up once per file rather than once per import.
type reqCtx struct {
	done    bool
	modDir  string // Go: the nearest go.mod
	mod     string
	hasMod  bool
	ts      *tsOptions // JS: the nearest tsconfig.json / jsconfig.json
	crate   rustCrate  // Rust
	libs    map[string]rustCrate
	inCrate bool
	rsDir   string // Rust: the module directory of the file
}

// request computes the request of one import of f.
func (e *env) request(f *fileFacts, imp syntax.Import, c *reqCtx) request {
	if !c.done {
		c.done = true
		switch f.lang {
		case syntax.FamilyGo:
			c.modDir, c.mod, c.hasMod = e.nearestGoMod(f.dir)
		case syntax.FamilyECMAScript:
			c.ts = e.nearestTS(f.dir)
		case syntax.FamilyRust:
			c.crate, c.inCrate = e.crateOf(f)
			c.libs = e.libs
			c.rsDir = rustModuleDir(f, c.crate, c.inCrate)
		}
	}
	switch f.lang {
	case syntax.FamilyGo:
		return e.goRequest(f, imp.Path, c)
	case syntax.FamilyECMAScript:
		return e.jsRequestFor(f, imp.Path, c.ts)
	case syntax.FamilyPython:
		return pyRequest(f, imp.Path)
	case syntax.FamilyJava:
		return javaRequest(imp.Path)
	case syntax.FamilyCSharp:
		return nsRequest(imp.Path)
	case syntax.FamilyRust:
		return rustRequest(f, imp, c)
	case syntax.FamilyC:
		if imp.Kind == syntax.ImportNamespace {
			return nsRequest(imp.Path)
		}
		return cRequest(f, imp, &e.cDirs)
	}
	return request{}
}

// splitBase splits a base type as written ("io.Reader", "*Mutex",
// "a::b::Trait<T>", "List[int]", "virtual Base") into its qualifier segments
// and its last segment.
func splitBase(b string) (qual []string, name string) {
	if i := strings.IndexAny(b, "<[("); i >= 0 {
		b = b[:i]
	}
	fields := strings.Fields(b)
	if len(fields) == 0 {
		return nil, ""
	}
	s := strings.TrimLeft(fields[len(fields)-1], "*&")
	s = strings.Trim(strings.ReplaceAll(s, "::", "."), ".")
	if s == "" {
		return nil, ""
	}
	segs := strings.Split(s, ".")
	return segs[:len(segs)-1], segs[len(segs)-1]
}

// symbolNames returns the distinct Names of f's symbols, sorted.
func (f *fileFacts) symbolNames() []string {
	if f.syn == nil {
		return nil
	}
	names := make([]string, len(f.syn.Symbols))
	for i, s := range f.syn.Symbols {
		names[i] = s.Name
	}
	return sortedSet(names)
}

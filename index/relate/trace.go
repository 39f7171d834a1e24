package relate

import (
	"cmp"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/ctxd/ctxd/index/syntax"
	"github.com/ctxd/ctxd/index/words"
)

// A demand-driven build answers its queries from a graph of the files it
// has parsed so far (its demand set) before the whole root is parsed. Every
// table of a graph is looked up by a name, a key or a directory, and every
// file's contribution is read through the view. A graph built with
// [BuildTraced] records each lookup as a [Need]; [Graph.Candidates] says
// which files of the root could contribute to a Need, from their paths and
// a byte-level prefilter of their words. When the demand set holds the
// candidates of every Need a run recorded, each lookup answered exactly
// what it answers on the graph of the whole root, and so did every query
// built from them: a build that reran until nothing was missing is the
// build of the complete index.

// NeedKind says which table a [Need] looked up.
type NeedKind uint8

// Need kinds.
const (
	// NeedFile: the contribution of one file (Key is its path).
	NeedFile NeedKind = iota
	// NeedRef: the files referencing a name.
	NeedRef
	// NeedSym: the symbols declared with a name.
	NeedSym
	// NeedBaseUse: the bases of types whose last segment is a name.
	NeedBaseUse
	// NeedReg: the import requests registered under a reverse-lookup key.
	NeedReg
	// NeedJavaPkg: the files declaring a Java package.
	NeedJavaPkg
	// NeedNamespace: the files declaring a C#/C++ namespace.
	NeedNamespace
	// NeedGoDir: the Go files of a directory.
	NeedGoDir
	// NeedProject: the *.csproj and *.sln files of a directory.
	NeedProject
	// NeedGoRef: the Go files of a directory referencing a name (Key is
	// the directory, a NUL, and the name).
	NeedGoRef
	// NeedDirWords: the files directly in a directory whose text holds
	// every word of a list (Key is the directory, a NUL, and the words):
	// those that can declare a name in a package or import a path.
	NeedDirWords
)

// Need is one lookup a query made.
type Need struct {
	Kind NeedKind
	Key  string
}

// Trace records the lookups of the queries of one graph; safe for
// concurrent use.
type Trace struct {
	mu    sync.Mutex
	needs map[Need]bool
}

// NewTrace returns an empty trace.
func NewTrace() *Trace { return &Trace{needs: map[Need]bool{}} }

func (t *Trace) add(n Need) {
	t.mu.Lock()
	t.needs[n] = true
	t.mu.Unlock()
}

// Needs returns the recorded lookups, sorted, and forgets them.
func (t *Trace) Needs() []Need {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := slices.SortedFunc(maps.Keys(t.needs), func(a, b Need) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), strings.Compare(a.Key, b.Key))
	})
	clear(t.needs)
	return out
}

// BuildTraced is [Build] whose queries record their lookups in t.
func BuildTraced(src Source, t *Trace) *Graph {
	g := Build(src)
	g.trace = t
	return g
}

// UpdateTraced is [Graph.Update] whose result records its lookups in t.
func (g *Graph) UpdateTraced(src Source, changed []string, t *Trace) *Graph {
	next := g.Update(src, changed)
	if next == g {
		next = &Graph{env: g.env, base: g.base, delta: g.delta}
	}
	next.trace = t
	return next
}

func (v *view) need(k NeedKind, key string) {
	if v.tr != nil {
		v.tr.add(Need{k, key})
	}
}

// Candidates returns the paths, among paths (sorted), whose contribution
// can answer lookup n: a superset, never missing one. mayContain(p, k) must report
// true whenever file p's text holds every word of k (a prefilter may say
// true more often).
func (g *Graph) Candidates(n Need, paths []string, mayContain func(p string, k words.Key) bool) []string {
	return g.CandidatesWith(n, paths, Prefilter{May: mayContain})
}

// Prefilter is what a caller of [Graph.CandidatesWith] knows of the files
// it has not parsed.
type Prefilter struct {
	// May reports whether file p's text may hold every word of k: true
	// whenever it does (a Bloom filter says true more often). Required.
	May func(p string, k words.Key) bool
	// Declares, when set, is May for the words of the parts of a text
	// where a declaration's name, a method's receiver or an import path
	// can be (a Go file's syntax.GoDeclWords): true whenever those words
	// hold every word of k, and as May for a file it knows no more of.
	// The lookups of the files that can declare a name or import a path
	// (NeedDirWords) ask it.
	Declares func(p string, k words.Key) bool
	// Imports, when set, reports whether the Go file at p imports the
	// path whose word hash (words.KeyOf) is h, and known false when the
	// header does not say (any import is then possible). A Go import
	// key's candidates are then the files that import it, without the
	// word filter's false positives.
	Imports func(p string, h uint64) (yes, known bool)
}

// CandidatesWith is Candidates for a caller that knows more of the files
// than their words (see [Prefilter]).
func (g *Graph) CandidatesWith(n Need, paths []string, pf Prefilter) []string {
	if n.Kind == NeedFile {
		if _, ok := slices.BinarySearch(paths, n.Key); ok {
			return []string{n.Key}
		}
		return nil
	}
	admits := g.admitter(n, pf)
	var out []string
	if dir, ok := n.dir(); ok {
		paths = underDir(paths, dir)
	}
	for _, p := range paths {
		if admits(p) {
			out = append(out, p)
		}
	}
	return out
}

// admitter returns the test of Candidates for one lookup: whether the
// file at p, as the prefilter knows it, can contribute to it.
func (g *Graph) admitter(n Need, pf Prefilter) func(p string) bool {
	admits := g.admitterOf(n, pf.Imports)
	may := pf.May
	if n.Kind == NeedDirWords && pf.Declares != nil {
		may = pf.Declares
	}
	return func(p string) bool { return admits(p, may) }
}

// admitterOf is the test of one lookup given a file's words (may).
func (g *Graph) admitterOf(n Need, imports func(p string, h uint64) (yes, known bool)) func(p string, may func(string, words.Key) bool) bool {
	switch n.Kind {
	case NeedFile:
		return func(p string, _ func(string, words.Key) bool) bool { return p == n.Key }
	case NeedRef, NeedSym, NeedBaseUse, NeedJavaPkg, NeedNamespace:
		ws := words.KeyOf(words.Split(n.Key))
		if len(ws) == 0 {
			return func(string, func(string, words.Key) bool) bool { return true }
		}
		return func(p string, may func(string, words.Key) bool) bool { return may(p, ws) }
	case NeedGoDir:
		// A Go file whose header the listing read is placed in its
		// package without its extraction (fileFacts.goHead).
		v := g.view()
		return func(p string, _ func(string, words.Key) bool) bool {
			if dirOf(p) != n.Key || syntax.FamilyForPath(p) != syntax.FamilyGo {
				return false
			}
			id, ok := v.node(p)
			return !ok || !v.raw(id).goKnown()
		}
	case NeedDirWords:
		dir, list, _ := strings.Cut(n.Key, "\x00")
		list, plat, hasPlat := strings.Cut(list, "\x00")
		ws := words.KeyOf(words.Split(list))
		var p goPlatform
		if hasPlat {
			p.goos, p.goarch, _ = strings.Cut(plat, "/")
		}
		v := g.view()
		return func(path string, may func(string, words.Key) bool) bool {
			if dirOf(path) != dir || (len(ws) != 0 && !may(path, ws)) {
				return false
			}
			if !hasPlat {
				return true
			}
			// A Go file whose header says it does not build for the
			// platform was never among the lookup's files.
			id, ok := v.node(path)
			if !ok {
				return true
			}
			f := v.raw(id)
			return !f.goKnown() || v.goBuilds(f, p)
		}
	case NeedGoRef:
		dir, name, _ := strings.Cut(n.Key, "\x00")
		ws := words.KeyOf(words.Split(name))
		return func(p string, may func(string, words.Key) bool) bool {
			return dirOf(p) == dir && syntax.FamilyForPath(p) == syntax.FamilyGo && (len(ws) == 0 || may(p, ws))
		}
	case NeedProject:
		return func(p string, _ func(string, words.Key) bool) bool {
			return dirOf(p) == n.Key && (strings.HasSuffix(p, ".csproj") || strings.HasSuffix(p, ".sln"))
		}
	case NeedReg:
		ws, under, ok := g.regWords(n.Key)
		if !ok {
			fams := regFamilies(n.Key)
			return func(p string, _ func(string, words.Key) bool) bool {
				return fams == nil || slices.Contains(fams, syntax.FamilyForPath(p))
			}
		}
		alts := make([]words.Key, len(ws))
		for i, w := range ws {
			alts[i] = words.KeyOf(w)
		}
		fams := regFamilies(n.Key)
		// A Go import key's alternatives are each one word or path token
		// (importWords), which the header's imports answer for exactly;
		// a relative one (RelativeTo) is not an import path as written.
		var exact []uint64
		if strings.HasPrefix(n.Key, "go:") && imports != nil {
			for i, a := range alts {
				if len(a) != 1 || strings.HasPrefix(ws[i][0], words.RelativeTo("")) {
					exact = nil
					break
				}
				exact = append(exact, a[0])
			}
		}
		return func(p string, may func(string, words.Key) bool) bool {
			if fams != nil && !slices.Contains(fams, syntax.FamilyForPath(p)) {
				return false
			}
			if exact != nil && syntax.FamilyForPath(p) == syntax.FamilyGo {
				known := true
				for _, h := range exact {
					yes, k := imports(p, h)
					if yes {
						return true
					}
					known = known && k
				}
				if known {
					return false
				}
			}
			if under != nil && under(p) {
				return true
			}
			for _, a := range alts {
				if may(p, a) {
					return true
				}
			}
			return false
		}
	}
	return func(string, func(string, words.Key) bool) bool { return true }
}

// dir returns the directory a lookup is confined to: only the files
// directly in it can answer it.
func (n Need) dir() (string, bool) {
	switch n.Kind {
	case NeedGoDir, NeedProject:
		return n.Key, true
	case NeedGoRef, NeedDirWords:
		dir, _, _ := strings.Cut(n.Key, "\x00")
		return dir, true
	}
	return "", false
}

// underDir returns the run of paths (sorted) that holds every path of a
// file directly in dir: a binary search instead of a scan of the whole
// tree, for each of the many directory lookups of a Go build.
func underDir(paths []string, dir string) []string {
	if dir == "" {
		return paths
	}
	prefix := dir + "/"
	lo, _ := slices.BinarySearch(paths, prefix)
	hi := lo
	for hi < len(paths) && strings.HasPrefix(paths[hi], prefix) {
		hi++
	}
	return paths[lo:hi]
}

// regFamilies returns the language families whose import requests
// register keys of key's kind (a request's kind follows its file's
// language), nil when any may.
func regFamilies(key string) []syntax.Family {
	kind, _, _ := strings.Cut(key, ":")
	switch kind {
	case "go":
		return []syntax.Family{syntax.FamilyGo}
	case "js":
		return []syntax.Family{syntax.FamilyECMAScript}
	case "p":
		return []syntax.Family{syntax.FamilyPython, syntax.FamilyRust, syntax.FamilyC}
	case "py", "pyd":
		return []syntax.Family{syntax.FamilyPython}
	case "jp":
		return []syntax.Family{syntax.FamilyJava}
	case "ns":
		return []syntax.Family{syntax.FamilyCSharp, syntax.FamilyC}
	}
	return nil
}

// regWords says which files may register an import request under key:
// those whose text holds every word of one of alts (the import as it is
// written names them), and those under reports (requests made relative to
// the importer's own directory). ok is false when no such bound is known:
// every file is a candidate.
func (g *Graph) regWords(key string) ([][]string, func(string) bool, bool) {
	var alts [][]string
	kind, val, _ := strings.Cut(key, ":")
	var under func(string) bool
	switch kind {
	case "go":
		// The import path as written: each module whose directory holds
		// val, the standard library, vendor/; relative imports name the
		// last element.
		e := g.env
		for dir, mod := range e.goMods {
			if mod == "" || mod == "std" {
				continue
			}
			if rest, in := within(dir, val); in {
				alts = append(alts, importWords(strings.TrimSuffix(mod+"/"+rest, "/")))
			}
		}
		if e.hasStd {
			if rest, in := within(e.stdRoot, val); in && rest != "" {
				alts = append(alts, importWords(rest))
			}
		}
		if i := strings.LastIndex(val, "vendor/"); i >= 0 {
			alts = append(alts, importWords(val[i+len("vendor/"):]))
		}
		// A relative import ("../constant") names the last element,
		// after a relative path, or ends in a "..". Only a file outside
		// every module has one (goRequest): none when the root is in a
		// module.
		if _, rootMod := e.goMods[""]; !rootMod {
			alts = append(alts, []string{words.RelativeTo(path.Base(val))}, []string{words.RelativeTo("..")})
		}
	case "jp", "ns":
		alts = [][]string{words.Split(val)}
	case "py":
		alts = [][]string{words.Split(path.Base(val))}
	case "pyd":
		// The package val as "from .val import x" names it, or as
		// "from . import x" does in its own directory or below.
		alts = [][]string{words.Split(path.Base(val))}
		dir := dirOf(val)
		under = func(p string) bool { _, in := within(dir, p); return in }
	case "js":
		// A specifier reaches val from outside val's directory only by
		// naming that directory too ("../storage-cursor/search"), unless
		// it starts there: the root, a baseUrl, the directory of a
		// paths pattern's "*". A file in or under the directory may name
		// val alone ("./search", "../search"). An index file or a
		// package's main, named by its directory, is found under the
		// directory's own key (jsReverseBases).
		dir := dirOf(val)
		stem := words.Split(moduleName(val))
		if dir == "" || g.jsBaseDir(dir) {
			alts = [][]string{stem}
		} else {
			alts = [][]string{append(stem, words.Split(baseOf(dir))...)}
		}
		under = func(p string) bool { _, in := within(dir, p); return in }
		// tsconfig paths and workspace packages map other specifiers
		// onto files.
		more, ok := g.jsAliasWords(val)
		if !ok {
			return nil, nil, false
		}
		alts = append(alts, more...)
	case "p":
		base := moduleName(val)
		switch base {
		case "index", "__init__", "mod", "lib", "main":
			// Named by their directory ("from .pkg import"), or, for a
			// crate root, by a name a config gives: any file may.
			return nil, nil, false
		}
		alts = [][]string{words.Split(base)}
		// Paths relative to the importer's module (Rust's super and
		// self, a C include of a sibling): any file under the
		// directory holding val.
		dir := dirOf(val)
		under = func(p string) bool { _, in := within(dir, p); return in }
	default:
		return nil, nil, false
	}
	for _, a := range alts {
		if len(a) == 0 {
			return nil, nil, false
		}
	}
	return alts, under, true
}

// importWords is what the text of a Go file importing path p holds: the
// path itself, quoted, so one path token when p is made of path bytes
// (a '+' or '~' of a module path splits it), else its words.
func importWords(p string) []string {
	if words.IsPath(p) {
		return []string{p}
	}
	return words.Split(p)
}

// jsAliasWords returns what the text of a file holds when one of its
// specifiers reaches the module base val through an alias rather than by
// val's own name: for each tsconfig paths pattern that can produce val
// without leaving val's name (up to its first '.') whole in the
// specifier, the words of the pattern's literal text; for each workspace
// package whose specifiers can reach val, the words of its name. A
// pattern's words that touch its "*" are left out: "lib*" makes the
// specifier "libfoo", one word. ok is false when such a specifier may hold
// no known word (a bare "*" pattern that renames files): any file may
// name val.
//
// baseUrl needs nothing here: the specifier is val's path under it, so it
// holds val's name, as a relative one does. A package's "main" is reached
// through the directory's own key (see jsReverseBases).
func (g *Graph) jsAliasWords(val string) ([][]string, bool) {
	var alts [][]string
	for _, dir := range sortedKeys(g.env.ts) {
		o := g.env.ts[dir]
		if o == nil || !o.hasPaths {
			continue
		}
		for _, tp := range o.paths {
			if !slices.ContainsFunc(tp.targets, func(t string) bool { return tsTargetHides(o.pathsBase, t, tp.pattern, val) }) {
				continue
			}
			ws := literalWords(tp.pattern)
			if len(ws) == 0 {
				return nil, false
			}
			alts = append(alts, ws)
		}
	}
	for _, name := range sortedKeys(g.env.jsPkgs) {
		pkg := g.env.jsPkgs[name]
		if _, in := within(pkg.dir, val); !in && !pkg.escapes() {
			continue
		}
		ws := words.Split(name)
		if len(ws) == 0 {
			return nil, false
		}
		alts = append(alts, ws)
	}
	more, ok := g.jsMoreAliasWords(val)
	if !ok {
		return nil, false
	}
	return append(alts, more...), true
}

// jsBaseDir reports whether a non-relative specifier may start at dir:
// dir is the baseUrl of a tsconfig, or the directory of a paths target's
// "*" ("src/*" starts at src, "vendor/lib*" at vendor).
func (g *Graph) jsBaseDir(dir string) bool {
	for _, o := range g.env.ts {
		if o == nil {
			continue
		}
		if o.hasBaseURL && o.baseURL == dir {
			return true
		}
		for _, tp := range o.paths {
			for _, t := range tp.targets {
				pre, _, wild := strings.Cut(t, "*")
				if !wild {
					continue
				}
				if r, ok := resolveRel(o.pathsBase, pre+"\x00"); ok && dirOf(r) == dir {
					return true
				}
			}
		}
	}
	return false
}

// tsTargetHides reports whether the paths target t (relative to base) of
// pattern can resolve a specifier to val while the specifier does not
// hold val's name (its last element up to the first '.') as whole words:
// an exact target always can; a "*" target can when the name is not
// wholly inside the text the "*" captures, or the captured text runs into
// a word byte of the pattern around it.
func tsTargetHides(base, t, pattern, val string) bool {
	pre, suf, wild := strings.Cut(t, "*")
	if !wild {
		r, ok := resolveRel(base, t)
		return ok && r == val
	}
	r, ok := resolveRel(base, pre+"\x00"+suf)
	if !ok {
		return false
	}
	pre, suf, _ = strings.Cut(r, "\x00")
	if len(val) < len(pre)+len(suf) || !strings.HasPrefix(val, pre) || !strings.HasSuffix(val, suf) {
		return false
	}
	start, end := nameSpan(val)
	capStart, capEnd := len(pre), len(val)-len(suf)
	if start < capStart || end > capEnd {
		return true
	}
	kp, ks, _ := strings.Cut(pattern, "*")
	touches := func(s string, at int) bool { return s != "" && words.IsWordByte(s[at]) }
	return start == capStart && touches(kp, len(kp)-1) || end == capEnd && touches(ks, 0)
}

// moduleName is the name of the module base p (see nameSpan).
func moduleName(p string) string {
	start, end := nameSpan(p)
	return p[start:end]
}

// nameSpan returns where the name of the module base p lies in p: its last
// element up to the first '.' that does not start it ("b" of "a/b.test.ts",
// ".eslintrc" whole).
func nameSpan(p string) (start, end int) {
	start = strings.LastIndexByte(p, '/') + 1
	end = len(p)
	if i := strings.IndexByte(p[start:], '.'); i > 0 {
		end = start + i
	}
	return start, end
}

// literalWords returns the words of a paths pattern's literal text, less
// those that touch its "*".
func literalWords(pattern string) []string {
	kp, ks, wild := strings.Cut(pattern, "*")
	if !wild {
		return words.Split(pattern)
	}
	pw, sw := words.Split(kp), words.Split(ks)
	if len(pw) > 0 && words.IsWordByte(kp[len(kp)-1]) {
		pw = pw[:len(pw)-1]
	}
	if len(sw) > 0 && words.IsWordByte(ks[0]) {
		sw = sw[1:]
	}
	return append(pw, sw...)
}

// escapes reports whether one of the package's exports targets leaves
// its directory ("../common/x.js"): its specifiers may then reach files
// anywhere.
func (p *jsPackage) escapes() bool {
	for _, sp := range p.exports {
		for _, t := range sp.targets {
			if strings.Contains(t, "..") {
				return true
			}
		}
	}
	return false
}

// within returns p relative to dir ("" for dir itself) when p is dir or
// below it; dir "" is the root.
func within(dir, p string) (string, bool) {
	if dir == "" || dir == "." {
		return p, true
	}
	if p == dir {
		return "", true
	}
	if rest, ok := strings.CutPrefix(p, dir+"/"); ok {
		return rest, true
	}
	return "", false
}

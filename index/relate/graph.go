package relate

import (
	"cmp"
	"maps"
	"math/bits"
	"reflect"
	"runtime"
	"slices"
	"sync"

	"github.com/ctxd/ctxd/index/syntax"
)

// Source is the read-only view of one workspace root that a [Graph] is
// built from. Paths are slash-separated, relative to the root and
// normalized (no "./", no "..").
type Source interface {
	// Paths returns every indexed file (source and text files, parsed or
	// not), sorted. Update calls it once to learn which changed paths
	// still exist, so it should return a cached slice.
	Paths() []string
	// Syntax returns the extraction of a parsed file, nil for files without
	// symbols.
	Syntax(path string) *syntax.File
	// Content returns the text of a small config file the resolver needs
	// (go.mod, tsconfig.json / jsconfig.json and the files they extend,
	// package.json); ok is false when absent or unreadable.
	Content(path string) ([]byte, bool)
}

// GoHeaders is implemented by a Source that knows, for Go files it has not
// parsed, what their headers say (syntax.GoHeader): a graph then places
// such a file in its package (name, test file, build constraint) without
// its extraction, and a build before the parse needs the files of a
// package only where a lookup's name may be declared, not all of them.
type GoHeaders interface {
	// GoHeader returns the package name and the build constraint of the
	// Go file at path; ok is false when unknown.
	GoHeader(path string) (pkg, constraint string, ok bool)
}

// EdgeKind names a relation between two files. The values are stable.
type EdgeKind string

// Edge kinds.
const (
	// EdgeImport: From imports To (Via is the import path as written).
	EdgeImport EdgeKind = "import"
	// EdgeBaseType: a type of From extends, implements or embeds a type
	// To defines (Via is the base as written).
	EdgeBaseType EdgeKind = "base_type"
	// EdgeReference: From references a name To defines (Via is the name).
	EdgeReference EdgeKind = "reference"
	// EdgeConfig: To is a config or build file governing From.
	EdgeConfig EdgeKind = "config"
)

// Edge is one directed relation between two files of the root.
type Edge struct {
	From, To string
	Kind     EdgeKind
	// Via is the import path or symbol name that creates the edge.
	Via string
}

// SymbolRef identifies one declaration of the root.
type SymbolRef struct {
	Path string
	// Index is the position of the symbol in the file's
	// syntax.File.Symbols.
	Index               int
	Name, QualifiedName string
	Kind                syntax.SymbolKind
}

// Graph is the relation graph of one workspace root. It is immutable and
// safe for concurrent readers. The nil *Graph is valid and empty: every
// query answers nil (Hops an empty map).
type Graph struct {
	env   *env
	base  *index
	delta *delta // nil when the graph is its base
	memo  graphMemo
	// trace, when set, records every lookup of the graph's queries (see
	// BuildTraced).
	trace *Trace
}

// graphMemo holds what queries derive from the whole graph and would
// otherwise recompute on every query: it is computed on first use, once
// per Graph (a Graph never changes).
type graphMemo struct {
	csOnce    sync.Once
	csGlobals map[string][]syntax.Binding // C# project directory: its global usings
	// users holds the answers of Users by usersKey: a warm build asks the
	// same question of the same graph again (the budget, then the build,
	// of each keystroke's request), and the question costs a resolution of
	// every use of every candidate file.
	users sync.Map
}

// compactAt is the number of changed paths a delta may hold; one more folds
// it into a new base. Up to it an Update costs the changed files only; the
// fold costs about a Build, so it is paid once per compactAt changed paths.
// A variable so that tests can exercise folding often.
var compactAt = 64

// delta is the set of paths changed since the base was built, with their
// current contributions (nil: the path no longer exists).
type delta struct {
	changed map[string]*fileFacts
	shadow  []uint64 // bit i: base file i is overridden by changed

	once sync.Once
	ix   *index // the present changed files, indexed on first use
}

func (d *delta) index() *index {
	d.once.Do(func() {
		var files []*fileFacts
		for _, f := range d.changed {
			if f != nil {
				files = append(files, f)
			}
		}
		slices.SortFunc(files, func(a, b *fileFacts) int { return cmp.Compare(a.path, b.path) })
		d.ix = newIndex(files)
	})
	return d.ix
}

// Build returns the graph of src.
func Build(src Source) *Graph {
	paths := src.Paths()
	if !slices.IsSorted(paths) {
		paths = slices.Compact(slices.Sorted(slices.Values(paths)))
	}
	return build(src, paths, loadEnv(src, paths))
}

func build(src Source, paths []string, e *env) *Graph {
	// Syntax is fetched on this goroutine: Source need not be safe for
	// concurrent use.
	syns := make([]*syntax.File, len(paths))
	for i, p := range paths {
		syns[i] = src.Syntax(p)
	}
	heads := goHeadsOf(src, paths, syns)
	files := make([]*fileFacts, len(paths))
	workers := min(runtime.GOMAXPROCS(0), 1+len(paths)/256)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(paths); i += workers {
				files[i] = newFacts(paths[i], syns[i], heads[i], e)
			}
		})
	}
	wg.Wait()
	return &Graph{env: e, base: newIndex(files)}
}

// goHead is a Go file's header as a GoHeaders source states it.
type goHead struct {
	pkg, constraint string
	ok              bool
}

// goHeadOf returns the header of the Go file at p when it has no
// extraction and src knows it.
func goHeadOf(src Source, p string, syn *syntax.File) goHead {
	hs, ok := src.(GoHeaders)
	if !ok || syn != nil || syntax.FamilyForPath(p) != syntax.FamilyGo {
		return goHead{}
	}
	pkg, cons, ok := hs.GoHeader(p)
	return goHead{pkg, cons, ok}
}

// goHeadsOf is goHeadOf for every path (nil when src knows none).
func goHeadsOf(src Source, paths []string, syns []*syntax.File) []goHead {
	heads := make([]goHead, len(paths))
	if _, ok := src.(GoHeaders); ok {
		for i, p := range paths {
			heads[i] = goHeadOf(src, p, syns[i])
		}
	}
	return heads
}

// Update returns the graph of src, given that only the listed paths changed
// (were added, modified or removed) since g was built. Every query of the
// result answers exactly what a query of Build(src) would. The cost is that
// of the changed files, with two exceptions: a change to a resolver config
// (go.mod, tsconfig.json, jsconfig.json, package.json, Cargo.toml, or a
// file a tsconfig extends) rereads the configs, and rebuilds the graph when
// what they say changed (a module path, baseUrl or paths, a package.json
// entry, a Cargo.toml appearing); and every compactAt changed paths the
// accumulated changes fold into a new base, which costs milliseconds.
// Update of a nil graph is Build; g itself is unchanged.
func (g *Graph) Update(src Source, changed []string) *Graph {
	if g == nil {
		return Build(src)
	}
	if len(changed) == 0 {
		return g
	}
	paths := src.Paths()
	for _, p := range changed {
		if g.env.affects(p) {
			// Rebuild only when what the configs say changed: editing
			// a require of go.mod or a script of package.json does not
			// move any import.
			e := loadEnv(src, paths)
			if !reflect.DeepEqual(e, g.env) {
				return build(src, paths, e)
			}
			break
		}
	}
	exists := func(p string) bool {
		_, found := slices.BinarySearch(paths, p)
		return found
	}
	nd := &delta{changed: map[string]*fileFacts{}}
	if g.delta != nil {
		maps.Copy(nd.changed, g.delta.changed)
		nd.shadow = slices.Clone(g.delta.shadow)
	} else {
		nd.shadow = make([]uint64, (len(g.base.files)+63)/64)
	}
	for _, p := range changed {
		var f *fileFacts
		if exists(p) {
			syn := src.Syntax(p)
			f = newFacts(p, syn, goHeadOf(src, p, syn), g.env)
		}
		if id, inBase := g.base.ids[p]; inBase {
			nd.changed[p] = f
			nd.shadow[id/64] |= 1 << (id % 64)
		} else if f != nil {
			nd.changed[p] = f
		} else {
			delete(nd.changed, p)
		}
	}
	next := &Graph{env: g.env, base: g.base, delta: nd}
	if len(nd.changed) > compactAt {
		next = next.compact()
	}
	return next
}

// compact folds the delta into a new base.
func (g *Graph) compact() *Graph {
	d := g.delta
	add := d.index()
	files := make([]*fileFacts, 0, len(g.base.files)+len(add.files))
	oldToNew := make([]int32, len(g.base.files))
	addToNew := make([]int32, len(add.files))
	// Both lists are sorted by path: merge them, numbering the result.
	i, j := 0, 0
	for i < len(g.base.files) || j < len(add.files) {
		if i < len(g.base.files) && d.shadowed(int32(i)) {
			oldToNew[i] = -1
			i++
			continue
		}
		if j == len(add.files) || (i < len(g.base.files) && g.base.files[i].path < add.files[j].path) {
			oldToNew[i] = int32(len(files))
			files = append(files, g.base.files[i])
			i++
		} else {
			addToNew[j] = int32(len(files))
			files = append(files, add.files[j])
			j++
		}
	}
	ix, ok := mergeIndex(files, g.base, oldToNew, add, addToNew)
	if !ok {
		ix = newIndex(files)
	}
	return &Graph{env: g.env, base: ix}
}

func (d *delta) shadowed(id int32) bool {
	return d.shadow[id/64]&(1<<(id%64)) != 0
}

// view is a graph seen as one id space: base ids [0, nb) for the base files
// that no change overrides, then nb+i for file i of the delta index. Every
// query works on a view.
type view struct {
	b    *index
	d    *index // nil without a delta
	dl   *delta
	nb   int32
	e    *env
	memo *graphMemo
	tr   *Trace // nil unless the graph is traced
}

func (g *Graph) view() *view {
	v := &view{b: g.base, nb: int32(len(g.base.files)), e: g.env, memo: &g.memo, tr: g.trace}
	if g.delta != nil {
		v.dl = g.delta
		v.d = g.delta.index()
	}
	return v
}

// size is the number of ids (some base ids may be shadowed).
func (v *view) size() int {
	if v.d == nil {
		return int(v.nb)
	}
	return int(v.nb) + len(v.d.files)
}

func (v *view) node(p string) (int32, bool) {
	if v.dl != nil {
		if f, ok := v.dl.changed[p]; ok {
			if f == nil {
				return -1, false
			}
			return v.nb + v.d.ids[p], true
		}
	}
	id, ok := v.b.ids[p]
	return id, ok
}

func (v *view) file(n int32) *fileFacts {
	f := v.raw(n)
	if v.tr != nil {
		v.need(NeedFile, f.path)
	}
	return f
}

// raw is file without recording a lookup: for a caller that reads only
// what the listing already knows of an unparsed file (its path, its Go
// header) and records what else it depends on itself.
func (v *view) raw(n int32) *fileFacts {
	if n < v.nb {
		return v.b.files[n]
	}
	return v.d.files[n-v.nb]
}

func (v *view) facts(p string) *fileFacts {
	if n, ok := v.node(p); ok {
		return v.file(n)
	}
	return nil
}

func (v *view) exists(p string) bool {
	_, ok := v.node(p)
	return ok
}

// list calls fn for every live id of a per-index list (base ids not
// shadowed, then delta ids).
func (v *view) list(k NeedKind, key string, get func(ix *index) []int32, fn func(n int32)) {
	v.need(k, key)
	for _, id := range get(v.b) {
		if v.dl == nil || !v.dl.shadowed(id) {
			fn(id)
		}
	}
	if v.d != nil {
		for _, id := range get(v.d) {
			fn(v.nb + id)
		}
	}
}

func (v *view) eachRef(name string, fn func(n int32)) {
	v.list(NeedRef, name, func(ix *index) []int32 { return ix.refs.get(name) }, fn)
}

// eachGoRefIn calls fn for the Go files directly in dir whose Refs hold
// name: eachRef confined to one directory, and a lookup of its own, so
// that a build before the parse needs only that directory's files.
func (v *view) eachGoRefIn(dir, name string, fn func(n int32)) {
	v.list(NeedGoRef, dir+"\x00"+name, func(ix *index) []int32 {
		var out []int32
		for _, id := range ix.goDirs[dir] {
			if f := ix.files[id]; f.syn != nil {
				if _, ok := slices.BinarySearch(f.syn.Refs, name); ok {
					out = append(out, id)
				}
			}
		}
		return out
	}, fn)
}

// live reports whether id n is a file of the view (not a shadowed base
// file).
func (v *view) live(n int32) bool {
	return n >= v.nb || v.dl == nil || !v.dl.shadowed(n)
}

// anyRef reports whether a file whose Refs contain name satisfies pred.
func (v *view) anyRef(name string, pred func(n int32) bool) bool {
	v.need(NeedRef, name)
	for _, id := range v.b.refs.get(name) {
		if (v.dl == nil || !v.dl.shadowed(id)) && pred(id) {
			return true
		}
	}
	if v.d != nil {
		for _, id := range v.d.refs.get(name) {
			if pred(v.nb + id) {
				return true
			}
		}
	}
	return false
}

// anyDef reports whether a file declaring a symbol named name satisfies
// pred.
func (v *view) anyDef(name string, pred func(n int32) bool) bool {
	v.need(NeedSym, name)
	for _, l := range v.b.syms.get(name) {
		if (v.dl == nil || !v.dl.shadowed(l.file)) && pred(l.file) {
			return true
		}
	}
	if v.d != nil {
		for _, l := range v.d.syms.get(name) {
			if pred(v.nb + l.file) {
				return true
			}
		}
	}
	return false
}

// eachDef calls fn once for every file declaring a symbol named name.
func (v *view) eachDef(name string, fn func(n int32)) {
	last := int32(-1)
	v.eachSym(name, func(n, _ int32) {
		if n != last {
			last = n
			fn(n)
		}
	})
}

// needDirWords records the lookup of the files of dir whose text holds the
// words of list, and with plat that build for it (NeedDirWords).
func (v *view) needDirWords(dir, list string, plat *goPlatform) {
	key := dir + "\x00" + list
	if plat != nil {
		key += "\x00" + plat.String()
	}
	v.need(NeedDirWords, key)
}

// eachSymIn calls fn for every symbol named name declared in one of
// files (sorted ids), in id order. It looks up the files, not the name:
// a traced graph records, for each directory of files, the lookup of the
// files there whose text holds name's words (and those of also, when a
// declaration that fn keeps must hold them too), so that a demand-driven
// build parses the few files of a package that can declare the name,
// rather than the whole package or every file of the tree whose text
// holds a common name.
//
// A caller that keeps only declarations whose text also holds the words of
// also (a method's receiver type) says so, and with plat, that files were
// chosen among the Go files that build for it: the lookup then leaves out
// the files of the directory whose headers say they do not.
func (v *view) eachSymIn(name, also string, plat *goPlatform, files []int32, fn func(n, sym int32)) {
	if v.tr != nil {
		key := name
		if also != "" {
			key += " " + also
		}
		last := ""
		for _, n := range files {
			if f := v.raw(n); f.syn == nil && f.dir != last {
				last = f.dir
				v.needDirWords(f.dir, key, plat)
			}
		}
	}
	v.eachLoc(func(ix *index) []symLoc { return ix.syms.get(name) }, func(n, sym int32) {
		if _, ok := slices.BinarySearch(files, n); ok {
			fn(n, sym)
		}
	})
}

// eachSym calls fn for every symbol named name, in id order.
func (v *view) eachSym(name string, fn func(n, sym int32)) {
	v.need(NeedSym, name)
	v.eachLoc(func(ix *index) []symLoc { return ix.syms.get(name) }, fn)
}

func (v *view) eachLoc(get func(ix *index) []symLoc, fn func(n, sym int32)) {
	for _, l := range get(v.b) {
		if v.dl == nil || !v.dl.shadowed(l.file) {
			fn(l.file, l.sym)
		}
	}
	if v.d != nil {
		for _, l := range get(v.d) {
			fn(v.nb+l.file, l.sym)
		}
	}
}

func (v *view) eachReg(key string, fn func(n, req int32)) {
	v.need(NeedReg, key)
	for _, r := range v.b.regs[key] {
		if v.dl == nil || !v.dl.shadowed(r.file) {
			fn(r.file, r.req)
		}
	}
	if v.d != nil {
		for _, r := range v.d.regs[key] {
			fn(v.nb+r.file, r.req)
		}
	}
}

func (v *view) eachBaseUse(name string, fn func(n, sym, base int32)) {
	v.need(NeedBaseUse, name)
	for _, u := range v.b.baseUses[name] {
		if v.dl == nil || !v.dl.shadowed(u.file) {
			fn(u.file, u.sym, u.base)
		}
	}
	if v.d != nil {
		for _, u := range v.d.baseUses[name] {
			fn(v.nb+u.file, u.sym, u.base)
		}
	}
}

// nodeSet is a set of ids.
type nodeSet struct {
	bits []uint64
	n    int
}

func newNodeSet(size int) *nodeSet { return &nodeSet{bits: make([]uint64, (size+63)/64)} }

func (s *nodeSet) add(n int32) bool {
	w, b := n/64, uint64(1)<<(n%64)
	if s.bits[w]&b != 0 {
		return false
	}
	s.bits[w] |= b
	s.n++
	return true
}

func (s *nodeSet) has(n int32) bool { return s.bits[n/64]&(1<<(n%64)) != 0 }

// paths returns the paths of the set's ids, sorted, without skip.
func (v *view) paths(s *nodeSet, skip int32) []string {
	if s.n == 0 {
		return nil
	}
	var base, dl []string
	for w, word := range s.bits {
		for word != 0 {
			i := int32(w*64) + int32(bits.TrailingZeros64(word))
			word &= word - 1
			if i == skip {
				continue
			}
			if i < v.nb {
				base = append(base, v.b.files[i].path)
			} else {
				dl = append(dl, v.d.files[i-v.nb].path)
			}
		}
	}
	if len(dl) == 0 {
		return base
	}
	// Both runs are sorted: base ids and delta ids follow path order.
	out := make([]string, 0, len(base)+len(dl))
	i, j := 0, 0
	for i < len(base) && j < len(dl) {
		if base[i] < dl[j] {
			out = append(out, base[i])
			i++
		} else {
			out = append(out, dl[j])
			j++
		}
	}
	out = append(out, base[i:]...)
	return append(out, dl[j:]...)
}

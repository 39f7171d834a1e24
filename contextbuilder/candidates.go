package contextbuilder

import (
	"cmp"
	"context"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"weak"

	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/index/relate"
	"github.com/ctxd/ctxd/index/syntax"
)

// candidates is the output of the candidates step (seed 002 Step 0, and
// Step 1 for the explicit targets): the targets, read and given their
// regions, and every other block candidate the request and the index
// offer.
type candidates struct {
	scope
	trail
	// related are the index-derived candidates (P1 symbols, P2 files) and
	// the open file when it is not a target, not yet ranked.
	related []*item
	// thread are the P2 blocks of the thread references, in event order.
	thread []*item
}

// candidates runs the candidates step.
func (e *env) candidates(ctx context.Context) (candidates, error) {
	var c candidates
	targets, active, err := e.resolveTargets(&c.trail)
	if err != nil {
		return c, err
	}
	symbols, err := e.loadTargets(targets)
	if err != nil {
		return c, err
	}
	c.scope = scope{targets: targets, symbols: symbols}
	if active != nil {
		c.related = []*item{active}
	}
	if err := ctx.Err(); err != nil {
		return c, err
	}
	if e.req.Purpose != PurposeIntent && len(targets) > 0 {
		c.related = e.related(ctx, targets, c.related, &c.trail)
	}
	c.thread = e.threadItems()
	return c, nil
}

// related runs Step 0 for the index-derived candidates: the definitions
// the target regions use (dependencies, P1 symbol blocks), the base types
// and interfaces of the target symbols (P1 symbol blocks), the files that
// reference the target symbols (callers, P2), and the config and build
// files of the targets' languages (P2). known are candidates found before
// (the open file); a relation can strengthen their reason.
func (e *env) related(ctx context.Context, targets, known []*item, t *trail) []*item {
	g := e.root.Graph()
	set := newRelatedSet(e.root, targets, known)
	goNoted := false
	for _, tg := range targets {
		syn := e.root.Syntax(tg.path)
		if syn == nil {
			continue
		}
		if syn.Language == syntax.Go && !goNoted {
			goNoted = true
			t.note("relations: Go build constraints evaluated for %s (GOOS/GOARCH)", g.GoPlatform())
		}
		rel := e.targetRelations(ctx, g, tg, syn)
		for _, d := range rel.deps {
			set.addSymbol(d.Path, d.Index, ReasonDependency, weightDependency)
		}
		// A Python module or package used as an object (util.x after
		// "from .. import util") is a dependency even when its file
		// declares nothing (an __init__.py of imports only), which no
		// symbol block can carry: the file itself is the candidate,
		// unless a symbol of it already is.
		for _, m := range rel.modules {
			if !set.hasSymbolIn(m) {
				set.addFile(m, ReasonDependency, weightDependency)
			}
		}
		for _, b := range rel.bases {
			reason := ReasonBaseType
			if b.Kind == syntax.Interface {
				reason = ReasonInterface
			}
			set.addSymbol(b.Path, b.Index, reason, weightBaseType)
		}
		for _, c := range rel.callers {
			set.addFile(c, ReasonCaller, weightCaller)
		}
		for _, c := range rel.configs {
			if isManifest(c) && !e.concernsBuild() {
				continue
			}
			set.addFile(c, ReasonConfig, weightConfig)
		}
	}
	return set.items()
}

// relations is what the relation graph answers for one target, in the
// order related adds it: its dependencies, the modules it uses as
// objects, the base types of its symbols and their containers, its
// callers and its config files.
type relations struct {
	deps    []relate.SymbolRef
	modules []string
	bases   []relate.SymbolRef
	callers []string
	configs []string
}

// targetRelations asks the graph about target t, or recalls the answers
// of an earlier build on the same folder snapshot (Options.Relations).
func (e *env) targetRelations(ctx context.Context, g *relate.Graph, t *item, syn *syntax.File) *relations {
	key := relationKey(t)
	if r, ok := e.opts.Relations.get(e.root, key); ok {
		return r
	}
	uses := e.targetUses(ctx, t, syn)
	r := &relations{
		deps:    e.dependencies(g, t, uses),
		modules: g.ResolveModules(t.path, uses),
		callers: e.callers(g, t, syn),
		configs: g.ConfigFiles(t.path),
	}
	for _, i := range withContainers(syn, t.symIdxs) {
		r.bases = append(r.bases, g.BaseTypes(t.path, i)...)
	}
	if ctx.Err() == nil {
		// A cancelled parse of the target's uses falls back to its
		// identifiers: an answer for this build only.
		e.opts.Relations.put(e.root, key, r)
	}
	return r
}

// relationKey names a target's relations within one folder snapshot:
// they depend on its path, its text (a region's uses are parsed from
// it), its target symbols and its regions.
func relationKey(t *item) string {
	b := make([]byte, 0, 128+len(t.path))
	b = append(b, t.path...)
	b = append(b, 0)
	if t.file != nil {
		b = append(b, t.file.SHA256()...)
	}
	b = append(b, "\x00s"...)
	for _, i := range t.symIdxs {
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(i), 10)
	}
	b = append(b, "\x00r"...)
	for _, r := range t.regions {
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(r.start), 10)
		b = append(b, '-')
		b = strconv.AppendInt(b, int64(r.end), 10)
	}
	return string(b)
}

// RelationCache memoizes, across builds, what the relation graph answered
// for each target of a build (its dependencies, base types, callers and
// config files), for the folder snapshot it was asked on: a status bar or
// an agent that builds again before anything changed asks the graph
// nothing again. Any new snapshot of the folder (an edit, a file event)
// starts it afresh. It never changes an answer, only its cost; it does
// not keep the snapshot alive. It is safe for concurrent use; the nil
// *RelationCache memoizes nothing.
type RelationCache struct {
	mu   sync.Mutex
	root weak.Pointer[index.RootSnapshot]
	m    map[string]*relations
}

// NewRelationCache returns an empty cache.
func NewRelationCache() *RelationCache { return &RelationCache{} }

// maxRelations bounds the targets a RelationCache holds for one snapshot.
const maxRelations = 1024

func (c *RelationCache) get(root *index.RootSnapshot, key string) (*relations, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.root != weak.Make(root) {
		return nil, false
	}
	r, ok := c.m[key]
	return r, ok
}

// put keeps r, which must never change afterwards, for key on root; a
// different root than the one held replaces every answer.
func (c *RelationCache) put(root *index.RootSnapshot, key string, r *relations) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if w := weak.Make(root); c.root != w || len(c.m) >= maxRelations {
		c.root, c.m = w, map[string]*relations{}
	}
	c.m[key] = r
}

// buildTerms are the words (lower case, matched as substrings) by which a
// request's texts say that a step concerns a project's build or its
// dependencies. A manifest (isManifest) lists a project's dependencies and
// build settings: it is context for such a step ("Config/build files
// relevant to step", in the contract's ranking), and noise for a change of
// code, so it is a candidate only then.
var buildTerms = []string{
	"build", "compil", "dependenc", "package", "nuget", "assembly reference", "projectreference",
	"target framework", "targetframework", "csproj", "msbuild", "sdk",
	"module", "import", "require", "version", "upgrade", "install", "vendor",
	"go.mod", "go.work", "npm", "yarn", "pnpm", "pip", "poetry", "cargo", "crate",
	"maven", "gradle", "pom.xml", "cmake", "makefile", "meson", "toolchain",
}

// isManifest reports whether config file p is a project manifest or build
// script (go.mod, package.json, pyproject.toml, Cargo.toml, pom.xml, a
// .csproj, a Makefile…), a candidate only for a step concerning the build
// or dependencies; other config files (tsconfig.json, jsconfig.json) set
// how the target's language is compiled, which any change of its code
// must respect, and stay candidates.
func isManifest(p string) bool {
	base := path.Base(p)
	switch base {
	case "tsconfig.json", "jsconfig.json":
		return false
	}
	return true
}

// concernsBuild reports whether the request's intent, plan step or last
// error speaks of the build or dependencies (buildTerms). Pure: the same
// request gives the same answer.
func (e *env) concernsBuild() bool {
	var texts []string
	if r := e.req; r != nil {
		if r.Intent != nil {
			texts = append(texts, r.Intent.Text)
		}
		if r.PlanStep != nil {
			texts = append(texts, r.PlanStep.Text)
		}
		if r.LastError != nil {
			texts = append(texts, r.LastError.Message)
		}
	}
	for _, t := range texts {
		t = strings.ToLower(t)
		for _, term := range buildTerms {
			if strings.Contains(t, term) {
				return true
			}
		}
	}
	return false
}

// relatedSet collects related candidates: one per symbol and one per
// file, each with the strongest reason it was reached by. Targets are
// never candidates of their own relations.
type relatedSet struct {
	root    *index.RootSnapshot
	targets map[string]bool
	syms    map[symKey]*item
	files   map[string]*item
}

type symKey struct {
	path string
	idx  int
}

func newRelatedSet(root *index.RootSnapshot, targets, known []*item) *relatedSet {
	s := &relatedSet{root: root, targets: map[string]bool{}, syms: map[symKey]*item{}, files: map[string]*item{}}
	for _, t := range targets {
		s.targets[t.path] = true
	}
	for _, it := range known {
		s.files[it.path] = it
	}
	return s
}

// strengthen keeps the stronger of an item's reason and a new one; the
// first reason found wins a tie.
func strengthen(it *item, reason IncludeReason, weight int) {
	if weight > it.weight {
		it.reason, it.weight = reason, weight
	}
}

// addSymbol adds a symbol block candidate (P1).
func (s *relatedSet) addSymbol(path string, idx int, reason IncludeReason, weight int) {
	if s.targets[path] {
		return
	}
	k := symKey{path, idx}
	if it, ok := s.syms[k]; ok {
		strengthen(it, reason, weight)
		return
	}
	syn := s.root.Syntax(path)
	f, ok := s.root.File(path)
	if syn == nil || !ok || idx >= len(syn.Symbols) {
		return
	}
	s.syms[k] = &item{typ: BlockSymbol, priority: P1, path: path, symbol: syn.Symbols[idx].QualifiedName, symIdx: idx, reason: reason, weight: weight, hops: 1, file: f}
}

// addFile adds a whole-file candidate (P2).
func (s *relatedSet) addFile(path string, reason IncludeReason, weight int) {
	if s.targets[path] {
		return
	}
	if it, ok := s.files[path]; ok {
		strengthen(it, reason, weight)
		return
	}
	f, ok := s.root.File(path)
	if !ok {
		return
	}
	s.files[path] = &item{typ: BlockFile, priority: P2, path: path, reason: reason, weight: weight, hops: 1, file: f}
}

// hasSymbolIn reports whether a symbol of the file at path is a
// candidate already.
func (s *relatedSet) hasSymbolIn(path string) bool {
	for k := range s.syms {
		if k.path == path {
			return true
		}
	}
	return false
}

// items returns the candidates with the levels each may take, symbols
// (by path and index) before files (by path): an order of keys, not of
// maps, so that ranking starts from the same list every time.
func (s *relatedSet) items() []*item {
	var out []*item
	keys := slices.SortedFunc(maps.Keys(s.syms), func(a, b symKey) int {
		return cmp.Or(strings.Compare(a.path, b.path), cmp.Compare(a.idx, b.idx))
	})
	for _, k := range keys {
		it := s.syms[k]
		it.levels = []Level{LevelFull}
		if reliable(s.root.Syntax(it.path)) {
			it.levels = append(it.levels, LevelSignatures)
		}
		out = append(out, it)
	}
	for _, p := range slices.Sorted(maps.Keys(s.files)) {
		it := s.files[p]
		it.levels = []Level{LevelFull}
		out = append(out, it)
	}
	return out
}

// dependencies returns the declarations the uses of target t's regions
// resolve to through the language's scopes and imports (index/relate),
// outside t. Members resolve to the file declaring them, so a method in a
// sibling file is a dependency like an imported function; a member inside
// a type declaration that is itself a dependency is left out, since the
// type's block holds it (Go methods, declared outside their type, stay).
func (e *env) dependencies(g *relate.Graph, t *item, uses []syntax.Use) []relate.SymbolRef {
	deps := g.Resolve(t.path, uses)
	decl := func(d relate.SymbolRef) *syntax.Symbol {
		if ds := e.root.Syntax(d.Path); ds != nil && d.Index < len(ds.Symbols) {
			return &ds.Symbols[d.Index]
		}
		return nil
	}
	within := func(s *syntax.Symbol, r syntax.Range) bool {
		return r.StartByte <= s.Range.StartByte && s.Range.EndByte <= r.EndByte && s.Range != r
	}
	// A type larger than bigTypeBytes of which the target uses members
	// is stood for by those members: a 900-line class of which two
	// methods are used would take the room of every smaller dependency,
	// and be cut for the budget first (then none of it is sent).
	big := map[relate.SymbolRef]bool{}
	types := map[string][]syntax.Range{}
	for _, d := range deps {
		s := decl(d)
		if s == nil || !isTypeLike(d.Kind) {
			continue
		}
		if s.Range.EndByte-s.Range.StartByte > bigTypeBytes && slices.ContainsFunc(deps, func(m relate.SymbolRef) bool {
			ms := decl(m)
			return m.Path == d.Path && ms != nil && !m.Kind.IsScope() && within(ms, s.Range)
		}) {
			big[d] = true
			continue
		}
		types[d.Path] = append(types[d.Path], s.Range)
	}
	inside := func(d relate.SymbolRef) bool {
		s := decl(d)
		if s == nil || s.Container == "" || isTypeLike(d.Kind) {
			return false
		}
		return slices.ContainsFunc(types[d.Path], func(r syntax.Range) bool { return within(s, r) })
	}
	var out []relate.SymbolRef
	for _, d := range deps {
		if d.Path != t.path && !d.Kind.IsScope() && !inside(d) && !big[d] {
			out = append(out, d)
		}
	}
	return out
}

// bigTypeBytes is the size over which a type a target uses members of is
// related through those members rather than as a whole (dependencies).
const bigTypeBytes = 16 << 10

// targetUses returns the uses of a target's regions, nil for a whole-file
// target (every use of the file as indexed). For a language without a uses
// extractor the region's identifiers stand for its uses, resolved by name.
func (e *env) targetUses(ctx context.Context, t *item, syn *syntax.File) []syntax.Use {
	if len(t.regions) == 0 {
		return nil
	}
	segs := regionSegments(t.li, t.regions)
	out := []syntax.Use{}
	all, err := syntax.Uses(ctx, syn.Language, t.text)
	if err == nil && all != nil {
		for _, u := range all {
			if slices.ContainsFunc(segs, func(sg segment) bool { return int(u.Start) >= sg.start && int(u.End) <= sg.end }) {
				out = append(out, u)
			}
		}
		return out
	}
	var b []byte
	for _, sg := range segs {
		b = append(b, t.text[sg.start:sg.end]...)
		b = append(b, '\n')
	}
	for _, name := range identifiers(b) {
		if name != syn.Package { // the package clause names no declaration
			out = append(out, syntax.Use{Name: name})
		}
	}
	return out
}

// callers returns the files of t's language family with a use that
// resolves to a target symbol (every declaration of the file for a
// whole-file target), or to a base-type member a target method implements.
func (e *env) callers(g *relate.Graph, t *item, syn *syntax.File) []string {
	var targetSyms []int // nil: the whole file
	if len(t.symIdxs) > 0 {
		targetSyms = t.symIdxs
	}
	users := g.Users(t.path, targetSyms)
	for _, m := range e.interfaceMembers(g, t, syn) {
		users = append(users, g.Users(m.Path, []int{m.Index})...)
	}
	var out []string
	for _, c := range users {
		if s := e.root.Syntax(c); c != t.path && s != nil && syntax.FamilyOf(s.Language) == syntax.FamilyOf(syn.Language) {
			out = append(out, c)
		}
	}
	return out
}

// interfaceMembers returns, for target methods of a type with declared base
// types or interfaces (C#, Java, TypeScript, Python…), the members of the
// same name those bases declare: a call through the interface
// (`IUserService.LoginAsync`) reaches the implementation, so its files are
// callers of the target too. Go's interfaces are implicit and not followed.
func (e *env) interfaceMembers(g *relate.Graph, t *item, syn *syntax.File) []relate.SymbolRef {
	var out []relate.SymbolRef
	for _, i := range t.symIdxs {
		s := &syn.Symbols[i]
		if s.Container == "" {
			continue
		}
		for j := range syn.Symbols {
			if syn.Symbols[j].QualifiedName != s.Container || !isTypeLike(syn.Symbols[j].Kind) {
				continue
			}
			for _, b := range g.BaseTypes(t.path, j) {
				out = append(out, e.membersNamed(b, s.Name)...)
			}
		}
	}
	return out
}

// membersNamed returns the members of base type b with the given name.
func (e *env) membersNamed(b relate.SymbolRef, name string) []relate.SymbolRef {
	bs := e.root.Syntax(b.Path)
	if bs == nil {
		return nil
	}
	var out []relate.SymbolRef
	for k := range bs.Symbols {
		if bs.Symbols[k].Name == name && bs.Symbols[k].Container == b.QualifiedName {
			out = append(out, relate.SymbolRef{Path: b.Path, Index: k})
		}
	}
	return out
}

// withContainers adds to symbol indexes the types of the same file that
// contain them, found by qualified name.
func withContainers(syn *syntax.File, idxs []int) []int {
	out := slices.Clone(idxs)
	for _, i := range idxs {
		c := syn.Symbols[i].Container
		for j := range syn.Symbols {
			if c != "" && syn.Symbols[j].QualifiedName == c && isTypeLike(syn.Symbols[j].Kind) && !slices.Contains(out, j) {
				out = append(out, j)
			}
		}
	}
	slices.Sort(out)
	return out
}

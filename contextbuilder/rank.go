package contextbuilder

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/ctxd/ctxd/index/relate"
	"github.com/ctxd/ctxd/index/syntax"
)

// Base weights of Step 2 (seed 002).
const (
	weightTarget     = 100
	weightSymbolFile = 90
	weightDependency = 60
	weightBaseType   = 55
	weightCaller     = 40
	weightConfig     = 30
	weightOther      = 0
)

// relate runs Step 0 for index-derived items: the definitions the target
// regions use (dependencies, P1 symbol blocks), the base types and
// interfaces of the target symbols (P1 symbol blocks), the files that
// reference the target symbols (callers, P2), and the config and build
// files of the targets' languages (P2). Then it ranks (Step 2) every item
// that is not a fixed block.
func (p *pipeline) relate(ctx context.Context) {
	g := p.root.Graph()
	isTarget := map[string]bool{}
	for _, t := range p.targets {
		isTarget[t.path] = true
	}
	type symKey struct {
		path string
		idx  int
	}
	syms := map[symKey]*item{}
	files := map[string]*item{}
	addSym := func(path string, idx int, reason IncludeReason, weight int) {
		if isTarget[path] {
			return
		}
		k := symKey{path, idx}
		if it, ok := syms[k]; ok {
			if weight > it.weight {
				it.reason, it.weight = reason, weight
			}
			return
		}
		syn := p.root.Syntax(path)
		f, ok := p.root.File(path)
		if syn == nil || !ok || idx >= len(syn.Symbols) {
			return
		}
		syms[k] = &item{typ: BlockSymbol, priority: P1, path: path, symbol: syn.Symbols[idx].QualifiedName, symIdx: idx, reason: reason, weight: weight, hops: 1, file: f}
	}
	addFile := func(path string, reason IncludeReason, weight int) {
		if isTarget[path] {
			return
		}
		if it, ok := files[path]; ok {
			if weight > it.weight {
				it.reason, it.weight = reason, weight
			}
			return
		}
		f, ok := p.root.File(path)
		if !ok {
			return
		}
		files[path] = &item{typ: BlockFile, priority: P2, path: path, reason: reason, weight: weight, hops: 1, file: f}
	}
	for _, it := range p.items { // the active file when it is not a target
		if it.file == nil {
			it.file, _ = p.root.File(it.path)
		}
		files[it.path] = it
	}
	p.items = nil

	goNoted := false
	for _, t := range p.targets {
		syn := p.root.Syntax(t.path)
		if syn == nil {
			continue
		}
		if syn.Language == syntax.Go && !goNoted {
			goNoted = true
			p.notes = append(p.notes, fmt.Sprintf("relations: Go build constraints evaluated for %s (GOOS/GOARCH)", g.GoPlatform()))
		}
		for _, d := range p.dependencies(ctx, g, t, syn) {
			addSym(d.Path, d.Index, ReasonDependency, weightDependency)
		}
		// Interfaces and base types of the target symbols, and of the
		// types that contain them (a method implements its class's
		// interfaces).
		for _, i := range withContainers(syn, t.symIdxs) {
			for _, b := range g.BaseTypes(t.path, i) {
				reason := ReasonBaseType
				if b.Kind == syntax.Interface {
					reason = ReasonInterface
				}
				addSym(b.Path, b.Index, reason, weightBaseType)
			}
		}
		for _, c := range p.callers(g, t, syn) {
			addFile(c, ReasonCaller, weightCaller)
		}
		for _, c := range g.ConfigFiles(t.path) {
			addFile(c, ReasonConfig, weightConfig)
		}
	}
	for _, it := range syms {
		it.levels = []Level{LevelFull}
		if reliable(p.root.Syntax(it.path)) {
			it.levels = append(it.levels, LevelSignatures)
		}
		p.items = append(p.items, it)
	}
	for _, it := range files {
		it.levels = []Level{LevelFull}
		p.items = append(p.items, it)
	}
	p.rank()
}

// dependencies returns the declarations the uses of target t's regions
// resolve to through the language's scopes and imports (index/relate),
// outside t. Members resolve to the file declaring them, so a method in a
// sibling file is a dependency like an imported function; a member inside
// a type declaration that is itself a dependency is left out, since the
// type's block holds it (Go methods, declared outside their type, stay).
func (p *pipeline) dependencies(ctx context.Context, g *relate.Graph, t *item, syn *syntax.File) []relate.SymbolRef {
	deps := g.Resolve(t.path, p.targetUses(ctx, t, syn))
	decl := func(d relate.SymbolRef) *syntax.Symbol {
		if ds := p.root.Syntax(d.Path); ds != nil && d.Index < len(ds.Symbols) {
			return &ds.Symbols[d.Index]
		}
		return nil
	}
	types := map[string][]syntax.Range{}
	for _, d := range deps {
		if s := decl(d); s != nil && isTypeLike(d.Kind) {
			types[d.Path] = append(types[d.Path], s.Range)
		}
	}
	inside := func(d relate.SymbolRef) bool {
		s := decl(d)
		if s == nil || s.Container == "" || isTypeLike(d.Kind) {
			return false
		}
		return slices.ContainsFunc(types[d.Path], func(r syntax.Range) bool {
			return r.StartByte <= s.Range.StartByte && s.Range.EndByte <= r.EndByte
		})
	}
	var out []relate.SymbolRef
	for _, d := range deps {
		if d.Path != t.path && dependencyKind(d.Kind) && !inside(d) {
			out = append(out, d)
		}
	}
	return out
}

// callers returns the files of t's language family with a use that
// resolves to a target symbol (every declaration of the file for a
// whole-file target), or to a base-type member a target method implements.
func (p *pipeline) callers(g *relate.Graph, t *item, syn *syntax.File) []string {
	var targetSyms []int // nil: the whole file
	if len(t.symIdxs) > 0 {
		targetSyms = t.symIdxs
	}
	users := g.Users(t.path, targetSyms)
	for _, m := range p.interfaceMembers(g, t, syn) {
		users = append(users, g.Users(m.Path, []int{m.Index})...)
	}
	var out []string
	for _, c := range users {
		if s := p.root.Syntax(c); c != t.path && s != nil && family(s.Language) == family(syn.Language) {
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
func (p *pipeline) interfaceMembers(g *relate.Graph, t *item, syn *syntax.File) []relate.SymbolRef {
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
				bs := p.root.Syntax(b.Path)
				if bs == nil {
					continue
				}
				for k := range bs.Symbols {
					if bs.Symbols[k].Name == s.Name && bs.Symbols[k].Container == b.QualifiedName {
						out = append(out, relate.SymbolRef{Path: b.Path, Index: k})
					}
				}
			}
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

// siblings returns the other files of p's directory from the sorted
// path list, found by binary search rather than a scan of the workspace.
func siblings(paths []string, p string) []string {
	dir := path.Dir(p)
	prefix := dir + "/"
	if dir == "." {
		prefix = ""
	}
	i, _ := slices.BinarySearch(paths, prefix)
	var out []string
	for ; i < len(paths) && strings.HasPrefix(paths[i], prefix); i++ {
		if q := paths[i]; q != p && path.Dir(q) == dir {
			out = append(out, q)
		}
	}
	return out
}

// family groups languages that can call each other.
func family(l syntax.Language) string {
	switch l {
	case syntax.TypeScript, syntax.TSX, syntax.JavaScript:
		return "ecmascript"
	case syntax.C, syntax.CPP:
		return "c"
	}
	return string(l)
}

// samePackageVisible reports whether a language makes the declarations of
// the other files of a package (a directory) visible without an import.
func samePackageVisible(l syntax.Language) bool {
	return l == syntax.Go || l == syntax.Java
}

// dependencyKind keeps the declarations a region can depend on as blocks: a
// namespace or module declaration spans whole files and says nothing a
// block of its own would.
func dependencyKind(k syntax.SymbolKind) bool {
	return k != syntax.Namespace && k != syntax.Module
}

// targetUses returns the uses of a target's regions, nil for a whole-file
// target (every use of the file as indexed). For a language without a uses
// extractor the region's identifiers stand for its uses, resolved by name.
func (p *pipeline) targetUses(ctx context.Context, t *item, syn *syntax.File) []syntax.Use {
	if len(t.regions) == 0 {
		return nil
	}
	segs := regionSegments(t.li, t.regions)
	out := []syntax.Use{}
	all, err := syntax.Uses(ctx, syn.Language, t.text)
	if err == nil && all != nil {
		for _, u := range all {
			for _, sg := range segs {
				if int(u.Start) >= sg.start && int(u.End) <= sg.end {
					out = append(out, u)
					break
				}
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

// rank computes Step 2's score for every item and sorts them: higher
// score, lower hops, smaller byte_size, path, then symbol as the final
// tie-breakers. The duplicate-signal penalty applies to an item whose file
// is already represented by a better-ranked item (or by a target).
func (p *pipeline) rank() {
	for _, it := range p.items {
		it.score = it.baseScore()
	}
	sortRanked(p.items)
	seen := map[string]bool{}
	for _, t := range p.targets {
		seen[t.path] = true
	}
	for _, it := range p.items {
		if seen[it.path] {
			it.score -= 5
		}
		seen[it.path] = true
	}
	sortRanked(p.items)
}

// baseScore is Step 2's score before the duplicate-signal penalty: the
// base weight, the size penalty and the distance penalty.
func (it *item) baseScore() int {
	s := it.weight - min(30, int(it.file.ByteSize/200_000))
	if it.hops > 1 {
		s -= 10 * (it.hops - 1)
	}
	return s
}

func sortRanked(items []*item) {
	slices.SortStableFunc(items, func(a, b *item) int {
		switch {
		case a.score != b.score:
			return cmpInt(b.score, a.score)
		case a.hops != b.hops:
			return cmpInt(a.hops, b.hops)
		case a.file.ByteSize != b.file.ByteSize:
			return cmpInt(int(a.file.ByteSize), int(b.file.ByteSize))
		}
		if c := strings.Compare(a.path, b.path); c != 0 {
			return c
		}
		if c := strings.Compare(a.symbol, b.symbol); c != 0 {
			return c
		}
		return cmpInt(a.symIdx, b.symIdx)
	})
}

package relate

import "slices"

// Hops returns the graph distance from the seed files to every file
// reachable within maxHops, seeds at 0, over the union of import, base-type
// and reference edges taken in both directions. Seeds not in the graph are
// ignored. The result is never nil: empty for a nil graph, no known seed,
// or a negative maxHops. It is deterministic: breadth-first distances do
// not depend on visiting order.
//
// References are expanded once per name rather than once per file, so the
// cost is bounded by the size of the index even when common names connect
// most of the root in one hop.
func (g *Graph) Hops(seeds []string, maxHops int) map[string]int {
	out := map[string]int{}
	if g == nil || maxHops < 0 {
		return out
	}
	v := g.view()
	dist := make([]int32, v.size())
	for i := range dist {
		dist[i] = -1
	}
	var frontier []int32
	for _, s := range seeds {
		if n, ok := v.node(s); ok && dist[n] < 0 {
			dist[n] = 0
			frontier = append(frontier, n)
		}
	}
	h := hopper{
		v:       v,
		dist:    dist,
		refDone: newBitset(v.b.refs.names()),
		defDone: newBitset(v.b.syms.names()),
		memo:    map[reg][]int32{},
		bases:   map[baseUse][]int32{},
		cands:   map[string]*baseCands{},
		imps:    map[int32]*importSet{},
	}
	// Unreached files, with and without an extraction.
	var unreachedSyn, unreachedPlain int
	count := func(n int32, delta int) {
		if v.file(n).syn != nil {
			unreachedSyn += delta
		} else {
			unreachedPlain += delta
		}
	}
	for n := range int32(v.size()) {
		if v.live(n) && dist[n] < 0 {
			count(n, 1)
		}
	}
	if v.d != nil {
		h.deltaRefDone = newBitset(v.d.refs.names())
		h.deltaDefDone = newBitset(v.d.syms.names())
	}
	for d := int32(0); d < int32(maxHops) && len(frontier) > 0 && unreachedSyn+unreachedPlain > 0; d++ {
		slices.Sort(frontier)
		// Direction-optimizing search: when few files remain unreached,
		// asking each of them whether it touches the frontier is cheaper
		// than expanding a large frontier. Both find the same files. A
		// file with an extraction costs about as much to test as a
		// frontier file to expand, times the length of the name lists it
		// may scan in vain; a file without one, a few lookups.
		pull := unreachedSyn*8+unreachedPlain/4 <= len(frontier)
		if hopsDirection != 0 {
			pull = hopsDirection < 0
		}
		if pull {
			frontier = h.pull(frontier, d+1)
		} else {
			frontier = h.step(frontier, d+1)
		}
		for _, n := range frontier {
			count(n, -1)
		}
	}
	for n, d := range dist {
		if d >= 0 {
			out[v.file(int32(n)).path] = int(d)
		}
	}
	return out
}

// hopsDirection forces the search direction in tests: 1 always expands
// the frontier, -1 always tests the unreached files, 0 chooses.
var hopsDirection = 0

// hopper is the state of one Hops search.
type hopper struct {
	v    *view
	dist []int32
	// The names whose referencing files (refDone) or defining files
	// (defDone) were reached, by name id of the base and the delta tables.
	refDone, defDone           bitset
	deltaRefDone, deltaDefDone bitset
	memo                       map[reg][]int32     // resolved import requests
	bases                      map[baseUse][]int32 // files of resolved bases
	cands                      map[string]*baseCands
	imps                       map[int32]*importSet
	inFrontier                 *nodeSet
	next                       []int32
	d                          int32
}

func (h *hopper) reach(n int32) {
	if h.dist[n] < 0 {
		h.dist[n] = h.d
		h.next = append(h.next, n)
	}
}

// defs reaches the files declaring name, unless done before.
func (h *hopper) defs(name string) {
	v := h.v
	v.need(NeedSym, name)
	if id, ok := v.b.syms.id(name); ok && h.defDone.set(id) {
		last := int32(-1)
		for _, l := range v.b.syms.items[v.b.syms.start[id]:v.b.syms.start[id+1]] {
			if l.file != last && (v.dl == nil || !v.dl.shadowed(l.file)) {
				last = l.file
				h.reach(l.file)
			}
		}
	}
	if v.d != nil {
		if id, ok := v.d.syms.id(name); ok && h.deltaDefDone.set(id) {
			for _, l := range v.d.syms.items[v.d.syms.start[id]:v.d.syms.start[id+1]] {
				h.reach(v.nb + l.file)
			}
		}
	}
}

// refs reaches the files referencing name, unless done before.
func (h *hopper) refs(name string) {
	v := h.v
	v.need(NeedRef, name)
	if id, ok := v.b.refs.id(name); ok && h.refDone.set(id) {
		for _, n := range v.b.refs.items[v.b.refs.start[id]:v.b.refs.start[id+1]] {
			if v.dl == nil || !v.dl.shadowed(n) {
				h.reach(n)
			}
		}
	}
	if v.d != nil {
		if id, ok := v.d.refs.id(name); ok && h.deltaRefDone.set(id) {
			for _, n := range v.d.refs.items[v.d.refs.start[id]:v.d.refs.start[id+1]] {
				h.reach(v.nb + n)
			}
		}
	}
}

func (h *hopper) resolved(n, req int32) []int32 {
	k := reg{n, req}
	if r, ok := h.memo[k]; ok {
		return r
	}
	f := h.v.file(n)
	r := h.v.resolve(f, &f.reqs[req], nil)
	h.memo[k] = r
	return r
}

// begin prepares the expansion of frontier (at distance d-1) to distance d.
func (h *hopper) begin(frontier []int32, d int32) {
	h.d, h.next = d, nil
	h.inFrontier = newNodeSet(h.v.size())
	for _, n := range frontier {
		h.inFrontier.add(n)
	}
}

// step expands frontier (at distance d-1) and returns the files first
// reached at distance d.
func (h *hopper) step(frontier []int32, d int32) []int32 {
	v := h.v
	h.begin(frontier, d)
	keys := map[string]bool{}
	typeNames := map[string]bool{}
	for _, n := range frontier {
		f := v.file(n)
		// Imports out.
		for i := range f.reqs {
			for _, t := range h.resolved(n, int32(i)) {
				h.reach(t)
			}
		}
		for _, k := range v.reverseKeys(f) {
			keys[k] = true
		}
		if f.syn != nil {
			// References out and in, once per name.
			for _, r := range f.syn.Refs {
				h.defs(r)
			}
			// Base types out (only those no reference edge implies).
			for _, x := range f.extra {
				for _, t := range h.base(n, x.sym, x.base) {
					h.reach(t)
				}
			}
		}
		if f.syn != nil {
			for _, s := range f.syn.Symbols {
				h.refs(s.Name)
				if s.Kind.IsType() {
					typeNames[s.Name] = true
				}
			}
		}
	}
	// Base types in: types elsewhere whose base a frontier file defines.
	for _, name := range sortedKeys(typeNames) {
		v.eachBaseUse(name, func(m, sym, base int32) {
			if h.dist[m] >= 0 {
				return
			}
			for _, t := range h.base(m, sym, base) {
				if h.inFrontier.has(t) {
					h.reach(m)
					return
				}
			}
		})
	}
	// Imports in: requests registered under a key of a frontier file that
	// resolve to one.
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	slices.Sort(sorted)
	for _, k := range sorted {
		v.eachReg(k, func(m, req int32) {
			if h.dist[m] >= 0 {
				return
			}
			for _, t := range h.resolved(m, req) {
				if h.inFrontier.has(t) {
					h.reach(m)
					return
				}
			}
		})
	}
	return h.next
}

// base returns the files that base number bi of symbol sym of file n
// resolves to.
func (h *hopper) base(n, sym, bi int32) []int32 {
	k := baseUse{n, sym, bi}
	if r, ok := h.bases[k]; ok {
		return r
	}
	f := h.v.file(n)
	imps := h.imps[n]
	var files []int32
	for _, l := range h.v.resolveBase(f, n, sym, f.syn.Symbols[sym].Bases[bi], &imps, h.cands) {
		if len(files) == 0 || files[len(files)-1] != l.file {
			files = append(files, l.file)
		}
	}
	if imps != nil {
		h.imps[n] = imps
	}
	h.bases[k] = files
	return files
}

// pull returns the unreached files adjacent to frontier (at distance d-1),
// at distance d, by testing each unreached file's own edges.
func (h *hopper) pull(frontier []int32, d int32) []int32 {
	v := h.v
	h.begin(frontier, d)
	var found []int32
	for u := range int32(v.size()) {
		if h.dist[u] < 0 && v.live(u) && h.touches(u) {
			found = append(found, u)
		}
	}
	for _, u := range found {
		h.reach(u)
	}
	return h.next
}

// touches reports whether file u has an edge to a frontier file.
func (h *hopper) touches(u int32) bool {
	v, in := h.v, h.inFrontier.has
	f := v.file(u)
	for i := range f.reqs {
		if slices.ContainsFunc(h.resolved(u, int32(i)), in) {
			return true
		}
	}
	for _, k := range v.reverseKeys(f) {
		hit := false
		v.eachReg(k, func(m, req int32) {
			hit = hit || (in(m) && slices.Contains(h.resolved(m, req), u))
		})
		if hit {
			return true
		}
	}
	if f.syn != nil {
		for _, r := range f.syn.Refs {
			if v.anyDef(r, in) {
				return true
			}
		}
		for _, x := range f.extra {
			if slices.ContainsFunc(h.base(u, x.sym, x.base), in) {
				return true
			}
		}
	}
	if f.syn == nil {
		return false
	}
	for _, s := range f.syn.Symbols {
		if v.anyRef(s.Name, in) {
			return true
		}
	}
	for _, s := range f.syn.Symbols {
		if !s.Kind.IsType() {
			continue
		}
		hit := false
		v.eachBaseUse(s.Name, func(m, sym, base int32) {
			hit = hit || (in(m) && slices.Contains(h.base(m, sym, base), u))
		})
		if hit {
			return true
		}
	}
	return false
}

// bitset is a fixed-size set of small integers.
type bitset []uint64

func newBitset(n int) bitset { return make(bitset, (n+63)/64) }

// set adds i and reports whether it was absent.
func (b bitset) set(i int32) bool {
	w, m := i/64, uint64(1)<<(i%64)
	if b[w]&m != 0 {
		return false
	}
	b[w] |= m
	return true
}

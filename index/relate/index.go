package relate

import (
	"fmt"
	"maps"
	"strings"
	"sync"

	"github.com/ctxd/ctxd/index/syntax"
)

// symLoc locates a symbol: a file id of an index and an index into the
// file's Symbols.
type symLoc struct{ file, sym int32 }

// reg is a registered import request: a file id and an index into its
// requests.
type reg struct{ file, req int32 }

// baseUse is a base type of a symbol that only a base-type edge relates
// (see extraBase).
type baseUse struct{ file, sym, base int32 }

// csr maps names to lists of items stored back to back in one slice, which
// is far cheaper to build and to hold than a map of slices when there are
// millions of items (the references of the Go source tree).
type csr[T any] struct {
	// ids maps a name to its id. A table merged from another shares that
	// table's ids (never written after it is built) and keeps the names
	// added since in more, so that a merge does not copy the big map.
	ids, more map[string]int32
	start     []int32 // items of name id i are items[start[i]:start[i+1]]
	items     []T
}

func (c *csr[T]) id(name string) (int32, bool) {
	id, ok := c.ids[name]
	if !ok && c.more != nil {
		id, ok = c.more[name]
	}
	return id, ok
}

func (c *csr[T]) get(name string) []T {
	id, ok := c.id(name)
	if !ok {
		return nil
	}
	return c.items[c.start[id]:c.start[id+1]]
}

// names returns the number of names.
func (c *csr[T]) names() int { return len(c.start) - 1 }

// csrBuilder collects the names of a table's items, in the order the items
// come; build then takes the items themselves in that same order. Only a
// name id per item is held until then, not the items: the references of a
// 100,000-file repository are millions, and holding them twice was a
// transient of tens of megabytes on top of the table.
type csrBuilder struct {
	ids  map[string]int32
	keys []int32
}

// newCSRBuilder returns a builder for about sizeHint items. The map is
// sized for a small share of them: names repeat (most references are to
// a few names), and a map sized for every item would be kept, mostly
// empty, for the table's life.
func newCSRBuilder(sizeHint int) *csrBuilder {
	return &csrBuilder{
		ids:  make(map[string]int32, sizeHint/16),
		keys: make([]int32, 0, sizeHint),
	}
}

// add records that the next item is listed under name.
func (b *csrBuilder) add(name string) {
	id, ok := b.ids[name]
	if !ok {
		id = int32(len(b.ids))
		b.ids[name] = id
	}
	b.keys = append(b.keys, id)
}

// buildCSR builds the table of b's names: replay must pass put the items,
// one per add and in the same order; the items of each name keep that
// order.
func buildCSR[T any](b *csrBuilder, replay func(put func(T))) csr[T] {
	start := make([]int32, len(b.ids)+1)
	for _, k := range b.keys {
		start[k+1]++
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	next := make([]int32, len(b.ids))
	copy(next, start)
	items := make([]T, len(b.keys))
	n := 0
	replay(func(v T) {
		k := b.keys[n]
		items[next[k]] = v
		next[k]++
		n++
	})
	if n != len(b.keys) {
		panic(fmt.Sprintf("relate: a table replayed %d items of %d", n, len(b.keys)))
	}
	ids := b.ids
	b.ids, b.keys = nil, nil
	return csr[T]{ids: ids, start: start, items: items}
}

// index holds the lookup tables of a set of files. File ids are positions
// in files, which is sorted by path, and every list holds ids in ascending
// order, so lists are sorted by path too.
type index struct {
	files []*fileFacts
	ids   map[string]int32

	refs csr[int32]  // name → files whose Refs contain it
	syms csr[symLoc] // Symbol.Name → symbols

	regs       map[string][]reg     // reverse-lookup key → import requests
	goDirs     map[string][]int32   // directory → .go files
	javaPkgs   map[string][]int32   // Java package → files
	namespaces map[string][]int32   // C#/C++ namespace → files declaring it
	projects   map[string][]int32   // directory → *.csproj and *.sln files
	baseUses   map[string][]baseUse // last segment → extra bases
}

// newIndex indexes files, which must be sorted by path. Large sets build
// the two big tables (references and symbols) concurrently.
func newIndex(files []*fileFacts) *index {
	nrefs, nsyms := 0, 0
	for _, f := range files {
		if f.syn != nil {
			nrefs += len(f.syn.Refs)
			nsyms += len(f.syn.Symbols)
		}
	}
	return buildIndex(files, func(ix *index) {
		b := newCSRBuilder(nrefs)
		for _, f := range files {
			if f.syn != nil {
				for _, r := range f.syn.Refs {
					b.add(r)
				}
			}
		}
		ix.refs = buildCSR(b, func(put func(int32)) {
			for id, f := range files {
				if f.syn != nil {
					for range f.syn.Refs {
						put(int32(id))
					}
				}
			}
		})
	}, func(ix *index) {
		b := newCSRBuilder(nsyms)
		for _, f := range files {
			if f.syn != nil {
				for _, s := range f.syn.Symbols {
					b.add(s.Name)
				}
			}
		}
		ix.syms = buildCSR(b, func(put func(symLoc)) {
			for id, f := range files {
				if f.syn != nil {
					for si := range f.syn.Symbols {
						put(symLoc{int32(id), int32(si)})
					}
				}
			}
		})
	})
}

// buildIndex builds the small tables of files and runs refs and syms,
// which fill the big ones, concurrently when files are many.
func buildIndex(files []*fileFacts, refs, syms func(ix *index)) *index {
	ix := &index{
		files:      files,
		ids:        make(map[string]int32, len(files)),
		regs:       map[string][]reg{},
		goDirs:     map[string][]int32{},
		javaPkgs:   map[string][]int32{},
		namespaces: map[string][]int32{},
		projects:   map[string][]int32{},
		baseUses:   map[string][]baseUse{},
	}
	var wg sync.WaitGroup
	if len(files) > 512 {
		wg.Go(func() { refs(ix) })
		wg.Go(func() { syms(ix) })
	} else {
		refs(ix)
		syms(ix)
	}
	for i, f := range files {
		id := int32(i)
		ix.ids[f.path] = id
		if f.syn != nil {
			for _, k := range f.keys {
				ix.regs[k.key] = append(ix.regs[k.key], reg{id, k.req})
			}
			for _, x := range f.extra {
				ix.baseUses[x.name] = append(ix.baseUses[x.name], baseUse{id, x.sym, x.base})
			}
			switch f.lang {
			case syntax.FamilyJava:
				if f.syn.Package != "" {
					ix.javaPkgs[f.syn.Package] = append(ix.javaPkgs[f.syn.Package], id)
				}
			case syntax.FamilyCSharp, syntax.FamilyC:
				for _, ns := range f.syn.Namespaces {
					ix.namespaces[ns] = append(ix.namespaces[ns], id)
				}
			}
		}
		if f.lang == syntax.FamilyGo {
			ix.goDirs[f.dir] = append(ix.goDirs[f.dir], id)
		}
		if strings.HasSuffix(f.path, ".csproj") || strings.HasSuffix(f.path, ".sln") {
			ix.projects[f.dir] = append(ix.projects[f.dir], id)
		}
	}
	wg.Wait()
	return ix
}

// mergeIndex indexes files (sorted by path), which are the files of base
// whose new id oldToNew gives (-1: dropped) plus the files of add at the ids
// addToNew gives. Instead of hashing every reference and symbol name again
// it merges the big tables of base and add, which is linear array work:
// folding a delta costs a few milliseconds rather than a Build. Names whose
// lists become empty keep their (empty) slot; ok is false when such dead
// names have grown to a third of the table, and the caller builds afresh.
func mergeIndex(files []*fileFacts, base *index, oldToNew []int32, add *index, addToNew []int32) (ix *index, ok bool) {
	var deadRefs, deadSyms int
	ix = buildIndex(files, func(ix *index) {
		ix.refs, deadRefs = mergeCSR(base.refs, add.refs,
			func(f int32) (int32, bool) { n := oldToNew[f]; return n, n >= 0 },
			func(f int32) int32 { return addToNew[f] },
			func(f int32) int32 { return f })
	}, func(ix *index) {
		ix.syms, deadSyms = mergeCSR(base.syms, add.syms,
			func(l symLoc) (symLoc, bool) { n := oldToNew[l.file]; return symLoc{n, l.sym}, n >= 0 },
			func(l symLoc) symLoc { return symLoc{addToNew[l.file], l.sym} },
			func(l symLoc) int32 { return l.file })
	})
	return ix, deadRefs*3 < ix.refs.names() && deadSyms*3 < ix.syms.names()
}

// mergeCSR merges two tables whose items move to new file ids: keepOld maps
// an item of old (false: its file is gone), mapAdd an item of add, and file
// gives an item's new file id. Both inputs list items in file order and
// their files are disjoint, so each merged list is in file order too. It
// returns the number of names left with no item.
func mergeCSR[T any](old, add csr[T], keepOld func(T) (T, bool), mapAdd func(T) T, file func(T) int32) (csr[T], int) {
	// New names go to a copy of old's small map of added names, until
	// that grows past an eighth of the shared one: then both fold into a
	// new shared map.
	ids, more := old.ids, maps.Clone(old.more)
	if ids == nil {
		ids = map[string]int32{}
	}
	if more == nil {
		more = map[string]int32{}
	}
	// addOf[i] is the add name id merged into name id i, -1 for none.
	addOf := make([]int32, old.names(), old.names()+add.names())
	for i := range addOf {
		addOf[i] = -1
	}
	// New names get ids in add's id order, so that the layout does not
	// depend on map iteration.
	addNames := make([]string, add.names())
	for name, a := range add.ids {
		addNames[a] = name
	}
	for name, a := range add.more {
		addNames[a] = name
	}
	for a, name := range addNames {
		id, found := ids[name]
		if !found {
			id, found = more[name]
		}
		if !found {
			id = int32(len(addOf))
			more[name] = id
			addOf = append(addOf, -1)
		}
		addOf[id] = int32(a)
	}
	if len(more) > len(ids)/8 {
		ids = maps.Clone(ids)
		maps.Copy(ids, more)
		more = nil
	}
	start := make([]int32, len(addOf)+1)
	items := make([]T, 0, len(old.items)+len(add.items))
	dead := 0
	for id := range addOf {
		var olds []T
		if id < old.names() {
			olds = old.items[old.start[id]:old.start[id+1]]
		}
		var adds []T
		if a := addOf[id]; a >= 0 {
			adds = add.items[add.start[a]:add.start[a+1]]
		}
		before := len(items)
		j := 0
		for _, it := range olds {
			m, keep := keepOld(it)
			if !keep {
				continue
			}
			for j < len(adds) && file(mapAdd(adds[j])) < file(m) {
				items = append(items, mapAdd(adds[j]))
				j++
			}
			items = append(items, m)
		}
		for ; j < len(adds); j++ {
			items = append(items, mapAdd(adds[j]))
		}
		if len(items) == before {
			dead++
		}
		start[id+1] = int32(len(items))
	}
	return csr[T]{ids: ids, more: more, start: start, items: items}, dead
}

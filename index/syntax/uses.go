package syntax

import (
	"cmp"
	"context"
	"crypto/sha256"
	"slices"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
)

// A usesFunc adds to f what one language's scoping says about the names the
// file uses: f.Uses (every occurrence, with its span), f.Bindings,
// f.Exports, f.Constraint and the Type of f.Symbols. It runs after the
// symbols are extracted, on the same tree; it must not keep root or src.
type usesFunc func(root *sitter.Node, src []byte, f *File)

var (
	usesMu    sync.RWMutex
	usesFuncs = map[Language]usesFunc{}
)

// registerUses installs the uses extractor of a language; each language's
// file calls it from init.
func registerUses(fn usesFunc, langs ...Language) {
	usesMu.Lock()
	defer usesMu.Unlock()
	for _, l := range langs {
		usesFuncs[l] = fn
	}
}

func usesFor(l Language) usesFunc {
	usesMu.RLock()
	defer usesMu.RUnlock()
	return usesFuncs[l]
}

// addUses runs the language's uses extractor on a freshly extracted file and
// compacts its Uses for storage.
func addUses(lang Language, root *sitter.Node, src []byte, f *File) {
	fn := usesFor(lang)
	if fn == nil {
		return
	}
	fn(root, src, f)
	f.Uses = compactUses(f.Uses)
}

// compactUses sorts uses, drops their spans and removes duplicates. It
// reorders us, which the caller no longer needs, and returns a new slice
// of exactly the distinct uses: they stay in memory with the file, and
// most of a file's uses are repeats (a slice clipped in place would keep
// the repeats' memory).
func compactUses(us []Use) []Use {
	if len(us) == 0 {
		return nil
	}
	// A file's uses are mostly repeats: drop them before sorting, so the
	// sort compares the distinct ones only.
	seen := usesSeen.Get().(map[Use]struct{})
	defer func() {
		clear(seen)
		usesSeen.Put(seen)
	}()
	out := us[:0]
	for _, u := range us {
		u.Start, u.End = 0, 0
		if _, dup := seen[u]; dup {
			continue
		}
		seen[u] = struct{}{}
		out = append(out, u)
	}
	slices.SortFunc(out, compareUse)
	return slices.Clone(out)
}

// usesSeen holds compactUses' sets between files.
var usesSeen = sync.Pool{New: func() any { return map[Use]struct{}{} }}

func compareUse(a, b Use) int {
	if c := cmp.Compare(a.Name, b.Name); c != 0 {
		return c
	}
	if c := cmp.Compare(a.From, b.From); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Recv, b.Recv); c != 0 {
		return c
	}
	switch {
	case a.Member == b.Member:
		return 0
	case !a.Member:
		return -1
	}
	return 1
}

// Uses parses src as lang and returns every use of the file with its span,
// in source order: what [File.Uses] holds before deduplication. A caller
// that needs the uses of a region of a file (the context builder, for a
// selection) filters them by span; it must not modify the result, which is
// shared: the last few results are kept by content hash, because a warm
// build asks again for the same target on every keystroke's budget. It
// returns nil for a language without a uses extractor, and the errors of
// [Parse].
func Uses(ctx context.Context, lang Language, src []byte) ([]Use, error) {
	key := usesKey{lang, sha256.Sum256(src)}
	if us, ok := usesCache.get(key); ok {
		return us, nil
	}
	us, err := parseUses(ctx, lang, src)
	if err == nil {
		usesCache.put(key, us)
	}
	return us, err
}

// usesKey addresses one result of Uses.
type usesKey struct {
	lang Language
	sum  [sha256.Size]byte
}

// usesLRU keeps the last results of Uses, evicting the oldest entry.
type usesLRU struct {
	mu    sync.Mutex
	order []usesKey
	m     map[usesKey][]Use
}

// usesCacheSize bounds the cache: a handful of targets are built
// repeatedly while one edits.
const usesCacheSize = 16

var usesCache = &usesLRU{m: map[usesKey][]Use{}}

func (c *usesLRU) get(k usesKey) ([]Use, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	us, ok := c.m[k]
	return us, ok
}

func (c *usesLRU) put(k usesKey, us []Use) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[k]; ok {
		return
	}
	if len(c.order) >= usesCacheSize {
		delete(c.m, c.order[0])
		c.order = c.order[1:]
	}
	c.order = append(c.order, k)
	c.m[k] = us
}

func parseUses(ctx context.Context, lang Language, src []byte) ([]Use, error) {
	if lang == XAML {
		f, err := parseXAML(ctx, src)
		if err != nil {
			return nil, err
		}
		return f.Uses, nil
	}
	s, err := lookup(lang)
	if err != nil {
		return nil, err
	}
	fn := usesFor(lang)
	if fn == nil {
		return nil, nil
	}
	q, err := s.compiled()
	if err != nil {
		return nil, err
	}
	tree, err := s.parse(ctx, nil, src)
	if err != nil {
		return nil, err
	}
	defer tree.Close()
	f := extractSymbols(s, q, tree, src) // the extractors read the symbols
	fn(tree.RootNode(), src, f)
	slices.SortStableFunc(f.Uses, func(a, b Use) int { return cmp.Compare(a.Start, b.Start) })
	return f.Uses, nil
}

// HasUses reports whether lang has a uses extractor: for such a language an
// empty [File.Uses] means the file uses nothing, not that its uses are
// unknown.
func HasUses(lang Language) bool { return usesFor(lang) != nil }

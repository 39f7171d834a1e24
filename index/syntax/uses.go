package syntax

import (
	"cmp"
	"context"
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

// compactUses sorts uses, drops their spans and removes duplicates.
func compactUses(us []Use) []Use {
	if len(us) == 0 {
		return nil
	}
	out := make([]Use, len(us))
	for i, u := range us {
		u.Start, u.End = 0, 0
		out[i] = u
	}
	slices.SortFunc(out, compareUse)
	return slices.Clip(slices.Compact(out))
}

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
// selection) filters them by span. It returns nil for a language without a
// uses extractor, and the errors of [Parse].
func Uses(ctx context.Context, lang Language, src []byte) ([]Use, error) {
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

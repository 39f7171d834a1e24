package workspace

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/index/relate"
	"github.com/ctxd/ctxd/index/syntax"
)

// SearchSymbolsArgs is search_symbols' argument.
type SearchSymbolsArgs struct {
	// Query is matched case-insensitively against symbol names and
	// qualified names (Type.Method); required.
	Query string `json:"query"`
	// Kind keeps only symbols of one of the index's kinds ("function",
	// "method", "struct", …); optional.
	Kind string `json:"kind,omitempty"`
	// Limit is the number of symbols returned: 1 to MaxSymbolLimit,
	// DefaultSymbolLimit when 0 or absent.
	Limit int `json:"limit,omitempty"`
	// WorkspaceFolder names the folder searched; optional with a single
	// folder.
	WorkspaceFolder string `json:"workspace_folder,omitempty"`
}

// Validate checks the query, the kind and the limit.
func (a *SearchSymbolsArgs) Validate() error {
	if strings.TrimSpace(a.Query) == "" {
		return errors.New("field \"query\": required, a symbol name or part of one")
	}
	if a.Kind != "" {
		if _, ok := syntax.KindNamed(a.Kind); !ok {
			return fmt.Errorf("field \"kind\": %q is not a symbol kind; the kinds are %s", a.Kind, strings.Join(kindNames(), ", "))
		}
	}
	_, err := checkLimit("limit", a.Limit, DefaultSymbolLimit, MaxSymbolLimit)
	return err
}

// kindNames lists the index's symbol kinds, sorted.
func kindNames() []string {
	var out []string
	for k := syntax.SymbolKind(1); k.String() != ""; k++ {
		out = append(out, k.String())
	}
	return out
}

// SearchSymbolsResult is search_symbols' answer: names and line ranges,
// never file text.
type SearchSymbolsResult struct {
	// Symbols are the best matches, best first: an exact name (or
	// qualified name), then a name starting with the query (a qualified
	// name too when the query holds "." or ":"), then any other name or
	// qualified name containing it; ties by path, then position.
	Symbols []SymbolHit `json:"symbols"`
	// Total counts the matches before the limit.
	Total int `json:"total"`
}

// SearchSymbols is the search_symbols tool: the declarations of a folder
// whose name matches a query. It waits for the folder to be parsed (a
// search before would miss symbols), and never shows a symbol of a file
// the read tools may not show (never-send, deny_rules, policy); ignored
// and skipped files are not in the index at all.
func (s *Service) SearchSymbols(ctx context.Context, c Caller, a *SearchSymbolsArgs) (*SearchSymbolsResult, error) {
	const command = "search_symbols"
	start := time.Now()
	if err := a.Validate(); err != nil {
		return nil, s.failed(command, invalidArgs(err), start)
	}
	limit, _ := checkLimit("limit", a.Limit, DefaultSymbolLimit, MaxSymbolLimit)
	kind, _ := syntax.KindNamed(a.Kind)
	f, err := s.agentFolder(ctx, c, a.WorkspaceFolder, "", true)
	if err != nil {
		return nil, s.failed(command, err, start)
	}
	q := strings.ToLower(a.Query)
	type ranked struct {
		hit   SymbolHit
		rank  int
		start uint32
	}
	var all []ranked
	for _, p := range f.root.Paths() {
		if err := ctx.Err(); err != nil {
			return nil, s.failed(command, err, start)
		}
		file, ok := f.root.File(p)
		if !ok {
			continue
		}
		syn := file.Syntax()
		if syn == nil {
			continue
		}
		n := len(all)
		for i := range syn.Symbols {
			sym := &syn.Symbols[i]
			if a.Kind != "" && sym.Kind != kind {
				continue
			}
			if r := matchRank(q, sym); r >= 0 {
				all = append(all, ranked{hit: symbolHit(p, file.Language, sym), rank: r, start: sym.Range.StartByte})
			}
		}
		// Decided only for a file with a match: with rules of the
		// workspace's own, it looks at the disk (where a link leads).
		if len(all) > n && f.hidden(p) {
			all = all[:n]
		}
	}
	slices.SortFunc(all, func(x, y ranked) int {
		return cmp.Or(
			cmp.Compare(x.rank, y.rank),
			strings.Compare(x.hit.Path, y.hit.Path),
			cmp.Compare(x.hit.Line, y.hit.Line),
			cmp.Compare(x.start, y.start),
			strings.Compare(x.hit.Name, y.hit.Name),
			strings.Compare(x.hit.QualifiedName, y.hit.QualifiedName),
			strings.Compare(x.hit.Kind, y.hit.Kind),
		)
	})
	res := &SearchSymbolsResult{Symbols: []SymbolHit{}, Total: len(all)}
	for _, r := range all[:min(limit, len(all))] {
		res.Symbols = append(res.Symbols, r.hit)
	}
	s.log.Info(command, "total", res.Total, "returned", len(res.Symbols), "duration", time.Since(start))
	return res, nil
}

// matchRank ranks a symbol for a lower-cased query: 0 for an exact name
// or qualified name, 1 for a name starting with it (a qualified name too
// when the query is qualified, so that "store" does not rank every member
// of Store as a prefix match), 2 for a name or qualified name containing
// it, -1 for no match.
func matchRank(q string, sym *syntax.Symbol) int {
	name, qual := strings.ToLower(sym.Name), strings.ToLower(sym.QualifiedName)
	switch {
	case name == q || qual == q:
		return 0
	case strings.HasPrefix(name, q), strings.ContainsAny(q, ".:") && strings.HasPrefix(qual, q):
		return 1
	case strings.Contains(name, q), strings.Contains(qual, q):
		return 2
	}
	return -1
}

// FindReferencesArgs is find_references' argument.
type FindReferencesArgs struct {
	// Symbol is a name or a qualified name (Type.Method), compared
	// exactly; required.
	Symbol string `json:"symbol"`
	// Path restricts the definitions to the file at this path (relative
	// to the workspace folder); optional.
	Path string `json:"path,omitempty"`
	// Limit is the number of references returned: 1 to MaxSymbolLimit,
	// DefaultSymbolLimit when 0 or absent.
	Limit int `json:"limit,omitempty"`
	// WorkspaceFolder names the folder searched; optional with a single
	// folder.
	WorkspaceFolder string `json:"workspace_folder,omitempty"`
}

// Validate checks the symbol and the limit.
func (a *FindReferencesArgs) Validate() error {
	if strings.TrimSpace(a.Symbol) == "" {
		return errors.New("field \"symbol\": required, a symbol name or qualified name (Type.Method)")
	}
	_, err := checkLimit("limit", a.Limit, DefaultSymbolLimit, MaxSymbolLimit)
	return err
}

// Relations a [Reference] reports: the relation graph's own names
// (index/relate's EdgeKind values).
const (
	// RefReference: a use at Line resolves to the definition, through
	// the language's scopes and imports (the graph's "reference"; the
	// builder's callers of a target are the files holding these).
	RefReference = string(relate.EdgeReference)
	// RefBaseType: the type declared at Line extends, implements or
	// embeds the definition (the graph's "base_type").
	RefBaseType = string(relate.EdgeBaseType)
)

// Reference is one place of the workspace that refers to a definition.
type Reference struct {
	// Path is relative to the workspace folder, '/'-separated.
	Path string `json:"path"`
	// Line is 1-based. A line referring to a definition several times
	// is one Reference.
	Line int `json:"line"`
	// Kind is "reference" or "base_type".
	Kind string `json:"kind"`
	// From is the qualified name of the declaration enclosing the
	// reference (the caller); absent at file level.
	From string `json:"from,omitempty"`
	// Target is the definition referred to, as "path#qualified_name".
	Target string `json:"target"`
}

// FindReferencesResult is find_references' answer: names, paths and
// lines, never file text.
type FindReferencesResult struct {
	// Definitions are every definition of the symbol (in the file at
	// path, when given), sorted by path and position.
	Definitions []SymbolHit `json:"definitions"`
	// References refer to one of them, sorted by path, line, kind and
	// target.
	References []Reference `json:"references"`
	// Total counts the references before the limit.
	Total int `json:"total"`
}

// refreshAttempts bounds how often a read tool re-reads files that
// changed on disk since indexing before giving up, as a build does.
const refreshAttempts = 3

// FindReferences is the find_references tool: the definitions of a symbol
// and the places that refer to them, from the relation graph the builder
// finds a target's callers with. A file with a use of the symbol's name is
// a reference only where the use resolves to the definition (scopes,
// imports, receiver types), so a same-named symbol of another package does
// not count. It waits for the folder to be parsed, reads the files that
// use the symbol to place each use on its line (their text never leaves
// the call), and never shows a file the read tools may not show.
func (s *Service) FindReferences(ctx context.Context, c Caller, a *FindReferencesArgs) (*FindReferencesResult, error) {
	const command = "find_references"
	start := time.Now()
	if err := a.Validate(); err != nil {
		return nil, s.failed(command, invalidArgs(err), start)
	}
	limit, _ := checkLimit("limit", a.Limit, DefaultSymbolLimit, MaxSymbolLimit)
	f, err := s.agentFolder(ctx, c, a.WorkspaceFolder, a.Path, true)
	if err != nil {
		return nil, s.failed(command, err, start)
	}
	in := ""
	if a.Path != "" {
		if in, err = f.root.Rel(a.Path); err != nil {
			return nil, s.failed(command, outsideRefusal("path", a.Path, err), start)
		}
	}
	for attempt := 0; ; attempt++ {
		defs := definitions(f, a.Symbol, in)
		if len(defs) == 0 {
			return nil, s.failed(command, symbolNotFound(a.Symbol, in), start)
		}
		refs, stale, err := references(ctx, f, defs)
		if err != nil {
			return nil, s.failed(command, err, start)
		}
		if len(stale) > 0 {
			if attempt >= refreshAttempts {
				return nil, s.failed(command, changingRefusal(stale), start)
			}
			if s.refresh(ctx, f, stale) == nil {
				return nil, s.failed(command, symbolNotFound(a.Symbol, in), start)
			}
			continue
		}
		res := &FindReferencesResult{Definitions: make([]SymbolHit, 0, len(defs)), References: refs[:min(limit, len(refs))], Total: len(refs)}
		for _, d := range defs {
			res.Definitions = append(res.Definitions, definitionHit(f.root, d))
		}
		s.log.Info(command, "definitions", len(res.Definitions), "total", res.Total, "returned", len(res.References), "duration", time.Since(start))
		return res, nil
	}
}

// definitions returns the definitions of name the tools may show, those
// of the file in when it is not "".
func definitions(f *agentFolder, name, in string) []relate.SymbolRef {
	var out []relate.SymbolRef
	for _, d := range f.root.Graph().Definitions(name) {
		if (in == "" || d.Path == in) && !f.hidden(d.Path) {
			out = append(out, d)
		}
	}
	return out
}

// definitionHit describes a definition found in the graph.
func definitionHit(root *index.RootSnapshot, d relate.SymbolRef) SymbolHit {
	file, ok := root.File(d.Path)
	syn := root.Syntax(d.Path)
	if !ok || syn == nil || d.Index >= len(syn.Symbols) {
		return SymbolHit{Name: d.Name, QualifiedName: d.QualifiedName, Kind: d.Kind.String(), Path: d.Path}
	}
	return symbolHit(d.Path, file.Language, &syn.Symbols[d.Index])
}

// symbolNotFound refuses a symbol without a definition the tools may
// show. The advice names the tool's arguments.
func symbolNotFound(name, in string) *contextbuilder.Refusal {
	if in != "" {
		return &contextbuilder.Refusal{
			Code:    contextbuilder.RefuseTargetNotFound,
			Message: fmt.Sprintf("symbol %q has no definition in %s in the workspace index", name, in),
			Advice:  "check the arguments \"symbol\" (a name, or a qualified name such as Type.Method; case matters) and \"path\" (the file that declares it, relative to the workspace folder), or leave \"path\" out to look in every file; search_symbols finds a name from part of it",
		}
	}
	return &contextbuilder.Refusal{
		Code:    contextbuilder.RefuseTargetNotFound,
		Message: fmt.Sprintf("symbol %q has no definition in the workspace index", name),
		Advice:  "check the argument \"symbol\" (a name, or a qualified name such as Type.Method; case matters); search_symbols finds a name from part of it",
	}
}

// changingRefusal refuses a call whose files kept changing on disk while
// it read them, as a build does.
func changingRefusal(rels []string) *contextbuilder.Refusal {
	return &contextbuilder.Refusal{
		Code:    contextbuilder.RefuseUnsupportedTarget,
		Message: fmt.Sprintf("%s changed on disk while ctxd read it and could not be read deterministically", strings.Join(rels, ", ")),
		Advice:  "retry once the files stop changing",
	}
}

// references returns the references to defs, sorted, and the files that
// changed on disk since indexing (to re-read and retry); the references
// are then incomplete.
func references(ctx context.Context, f *agentFolder, defs []relate.SymbolRef) (refs []Reference, stale []string, err error) {
	g := f.root.Graph()
	type key struct {
		path     string
		line     int
		kind, to string
	}
	seen := map[key]bool{}
	add := func(r Reference) {
		k := key{r.Path, r.Line, r.Kind, r.Target}
		if !seen[k] {
			seen[k] = true
			refs = append(refs, r)
		}
	}
	for _, d := range defs {
		target := d.Path + "#" + d.QualifiedName
		// The definition's own file holds uses too (a recursive call,
		// a sibling function); Users lists only the others.
		for _, p := range append([]string{d.Path}, g.Users(d.Path, []int{d.Index})...) {
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
			if f.hidden(p) {
				continue
			}
			sites, err := useSites(ctx, f.root, g, p, d)
			switch {
			case errors.Is(err, index.ErrStale):
				if !slices.Contains(stale, p) {
					stale = append(stale, p)
				}
				continue
			case ctx.Err() != nil:
				return nil, nil, ctx.Err()
			case err != nil:
				// Unreadable now (deleted, a link swapped in): not a
				// reference ctxd can place.
				continue
			}
			for _, st := range sites {
				add(Reference{Path: p, Line: st.line, Kind: RefReference, From: st.from, Target: target})
			}
		}
	}
	for _, r := range implementations(ctx, f, g, defs) {
		add(r)
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	slices.SortFunc(refs, func(a, b Reference) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line), strings.Compare(a.Kind, b.Kind),
			strings.Compare(a.Target, b.Target), strings.Compare(a.From, b.From))
	})
	if refs == nil {
		refs = []Reference{}
	}
	slices.Sort(stale)
	return refs, stale, nil
}

// site is one use of a definition: its line and the declaration holding
// it.
type site struct {
	line int
	from string
}

// useSites returns the uses in the file at p that resolve to d, in source
// order. Each use of d's name is resolved on its own, through the same
// resolver the builder's relations use, so that a use of another
// declaration with the same name is left out. A file whose language has no
// uses extractor is resolved by name (as the graph does): every whole-word
// occurrence of the name then counts when the name resolves to d.
func useSites(ctx context.Context, root *index.RootSnapshot, g *relate.Graph, p string, d relate.SymbolRef) ([]site, error) {
	syn := root.Syntax(p)
	if syn == nil {
		return nil, nil
	}
	text, err := root.ReadText(p)
	if err != nil {
		return nil, err
	}
	lines := lineStarts(text)
	uses, err := syntax.Uses(ctx, syn.Language, text)
	if err != nil || uses == nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if !resolvesTo(g.Resolve(p, []syntax.Use{{Name: d.Name}}), d) {
			return nil, nil
		}
		var out []site
		for _, off := range wordOffsets(text, d.Name) {
			out = append(out, site{line: lineAt(lines, off), from: enclosingSymbol(syn, off)})
		}
		return out, nil
	}
	memo := map[string]bool{}
	var out []site
	for i := range uses {
		u := &uses[i]
		if u.Name != d.Name {
			continue
		}
		k := u.From + "\x00" + u.Recv + "\x00" + strconv.FormatBool(u.Member)
		ok, done := memo[k]
		if !done {
			ok = resolvesTo(g.Resolve(p, []syntax.Use{*u}), d)
			memo[k] = ok
		}
		if ok {
			out = append(out, site{line: lineAt(lines, int(u.Start)), from: enclosingSymbol(syn, int(u.Start))})
		}
	}
	return out, nil
}

// implementations returns the types whose declared bases (extends,
// implements, embedded types) resolve to one of the type definitions of
// defs, through the graph's base-type resolution.
func implementations(ctx context.Context, f *agentFolder, g *relate.Graph, defs []relate.SymbolRef) []Reference {
	var types []relate.SymbolRef
	for _, d := range defs {
		if d.Kind.IsType() {
			types = append(types, d)
		}
	}
	if len(types) == 0 {
		return nil
	}
	var out []Reference
	for _, p := range f.root.Paths() {
		if ctx.Err() != nil {
			return nil
		}
		syn := f.root.Syntax(p)
		if syn == nil || f.hidden(p) {
			continue
		}
		for i := range syn.Symbols {
			sym := &syn.Symbols[i]
			if len(sym.Bases) == 0 {
				continue
			}
			var bases []relate.SymbolRef // resolved once per symbol, when a base may name a type
			resolved := false
			for _, t := range types {
				// A base names its type by its last segment, so the
				// type's name is in the written base: a cheap filter.
				if p == t.Path && i == t.Index || !slices.ContainsFunc(sym.Bases, func(b string) bool { return strings.Contains(b, t.Name) }) {
					continue
				}
				if !resolved {
					bases, resolved = g.BaseTypes(p, i), true
				}
				if resolvesTo(bases, t) {
					line, _ := symbolLines(sym.Range)
					out = append(out, Reference{Path: p, Line: line, Kind: RefBaseType, From: sym.QualifiedName, Target: t.Path + "#" + t.QualifiedName})
				}
			}
		}
	}
	return out
}

// resolvesTo reports whether refs holds d.
func resolvesTo(refs []relate.SymbolRef, d relate.SymbolRef) bool {
	return slices.ContainsFunc(refs, func(r relate.SymbolRef) bool { return r.Path == d.Path && r.Index == d.Index })
}

// lineStarts returns the byte offset of each line's start.
func lineStarts(text []byte) []int {
	starts := []int{0}
	for i, c := range text {
		if c == '\n' && i+1 < len(text) {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// lineAt returns the 1-based line holding byte offset off.
func lineAt(starts []int, off int) int {
	i, found := slices.BinarySearch(starts, off)
	if found {
		return i + 1
	}
	return i
}

// enclosingSymbol returns the qualified name of the innermost declaration
// holding byte offset off, a function or type before any other kind (a
// use in a variable's initializer inside a function belongs to the
// function); "" at file level.
func enclosingSymbol(syn *syntax.File, off int) string {
	best, bestMajor := -1, false
	for i := range syn.Symbols {
		r := syn.Symbols[i].Range
		if int(r.StartByte) > off || off >= int(r.EndByte) {
			continue
		}
		k := syn.Symbols[i].Kind
		major := k.IsCallable() || k.IsType() || k.IsScope()
		size := r.EndByte - r.StartByte
		if best < 0 || major && !bestMajor || major == bestMajor && size < syn.Symbols[best].Range.EndByte-syn.Symbols[best].Range.StartByte {
			best, bestMajor = i, major
		}
	}
	if best < 0 {
		return ""
	}
	return syn.Symbols[best].QualifiedName
}

// wordOffsets returns the offsets of the whole-word occurrences of name
// in text (a word being a run of letters, digits, '_' and non-ASCII
// bytes).
func wordOffsets(text []byte, name string) []int {
	isWord := func(c byte) bool {
		return c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c >= 0x80
	}
	if name == "" {
		return nil
	}
	var out []int
	for from := 0; from < len(text); {
		i := bytes.Index(text[from:], []byte(name))
		if i < 0 {
			break
		}
		at := from + i
		end := at + len(name)
		if (at == 0 || !isWord(text[at-1])) && (end == len(text) || !isWord(text[end])) {
			out = append(out, at)
		}
		from = at + 1
	}
	return out
}

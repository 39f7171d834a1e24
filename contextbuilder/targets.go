package contextbuilder

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/index/relate"
	"github.com/ctxd/ctxd/index/syntax"
)

// This file is the candidates step's first half: the explicit targets,
// resolved, looked up in the index, read, and given their regions.

// targetSpec is one explicit target before it is looked up.
type targetSpec struct {
	written string
	rel     string
	reason  IncludeReason
	weight  int
	lines   [2]int              // 0,0 when absent
	sel     *SelectionRange     // the editor selection, active file only
	symbols []int               // chosen symbols of the file
	byName  map[string]struct{} // user-selected symbol names to find

	linesList [][2]int // every line range given for the path
}

// resolveTargets runs Step 0 and Step 1 for the explicit targets: the
// plan step's files and symbols, the user's selections and the active
// file. Hard exclusions of targets are recorded (deny rules) or refused
// (binary, unknown encoding, outside the root, missing), and an ambiguous
// symbol is refused with its candidates. It returns the targets sorted by
// path and, when the request names its targets, the open file as a P2
// candidate.
func (e *env) resolveTargets(t *trail) (targets []*item, active *item, err error) {
	if e.req.Purpose == PurposeIntent {
		return nil, nil, nil
	}
	specs, err := e.explicitSpecs()
	if err != nil {
		return nil, nil, err
	}
	explicit := len(specs) > 0 || e.req.PlanStep != nil && len(e.req.PlanStep.TargetSymbols) > 0
	spec, active, err := e.activeTarget(explicit)
	if err != nil {
		return nil, nil, err
	}
	if spec != nil {
		specs = append(specs, spec)
	}
	byPath := mergeSpecs(specs, t)
	if err := e.resolveSymbols(byPath); err != nil {
		return nil, nil, err
	}
	if targets, err = e.lookupTargets(byPath, t); err != nil {
		return nil, nil, err
	}
	if len(targets) == 0 && len(e.newFiles) == 0 && (e.req.Purpose == PurposeDiff || len(specs) > 0) {
		return nil, nil, noTargets(t)
	}
	return targets, active, nil
}

// explicitSpecs lists the targets the request names: the plan step's
// files, then the user's selections, in request order.
func (e *env) explicitSpecs() ([]*targetSpec, error) {
	var specs []*targetSpec
	e.newFiles = nil
	add := func(written string, reason IncludeReason, weight int) (*targetSpec, error) {
		file, lines, err := splitLines(written)
		if err != nil {
			return nil, err
		}
		rel, err := e.relPath(file)
		if err != nil {
			return nil, err
		}
		s := &targetSpec{written: written, rel: rel, reason: reason, weight: weight, lines: lines}
		specs = append(specs, s)
		return s, nil
	}
	if ps := e.req.PlanStep; ps != nil {
		for _, t := range ps.TargetFiles {
			if _, err := add(t, ReasonTarget, weightTarget); err != nil {
				return nil, err
			}
		}
		for _, t := range ps.NewFiles {
			rel, err := e.relPath(t)
			if err != nil {
				return nil, err
			}
			_, indexed := e.root.File(rel)
			_, skipped := e.root.Skip(rel)
			if indexed || skipped {
				// It exists (or a rule covers it): a target like any
				// other, refused or excluded by the same rules.
				if _, err := add(rel, ReasonTarget, weightTarget); err != nil {
					return nil, err
				}
				continue
			}
			if !slices.Contains(e.newFiles, rel) {
				e.newFiles = append(e.newFiles, rel)
			}
		}
		slices.Sort(e.newFiles)
	}
	for _, u := range e.req.UserSelectedTargets {
		w := weightTarget
		if u.Symbol != "" {
			w = weightSymbolFile
		}
		s, err := add(u.Path, ReasonUserSelected, w)
		if err != nil {
			return nil, err
		}
		if u.Symbol != "" {
			s.byName = map[string]struct{}{u.Symbol: {}}
		}
	}
	return specs, nil
}

// activeTarget places the open file: the target, with the selection, when
// the request names no target; else a P2 candidate when it is indexed,
// since it is context rather than the target (see docs/contract.md).
func (e *env) activeTarget(explicit bool) (*targetSpec, *item, error) {
	if e.req.ActiveFile == "" && e.req.Selection == nil {
		return nil, nil, nil
	}
	uri := activeURI(e.req)
	_, rel, ok := e.snap.Locate(index.NormalizeURI(uri))
	if !ok {
		return nil, nil, outside(uri)
	}
	if !explicit {
		return &targetSpec{written: rel, rel: rel, reason: ReasonTarget, weight: weightTarget, sel: e.req.Selection}, nil, nil
	}
	if f, ok := e.root.File(rel); ok {
		return nil, &item{typ: BlockFile, priority: P2, path: rel, reason: ReasonUserSelected, weight: weightOther, hops: 1, file: f}, nil
	}
	return nil, nil, nil
}

// noTargets refuses a request left without a target.
func noTargets(t *trail) error {
	if len(t.excluded) > 0 {
		reds := t.sortedRedactions()
		return (&Refusal{Code: RefuseUnsupportedTarget, Message: neverSendMessage(reds), RedactionReport: &RedactionReport{Redactions: reds}}).advise(neverSendActions(reds)...)
	}
	return (&Refusal{Code: RefuseTargetNotFound, Message: "a diff needs a target file, and the request names none that exists in the workspace"}).advise(act(ActionNameTarget))
}

// neverSendActions are the never-send refusal's actions: one per denied
// target, naming the rule that matched it and what can be done about that
// rule.
func neverSendActions(reds []Redaction) []Action {
	var out []Action
	for _, r := range reds {
		if r.Reason == RedactReasonDenyRule {
			out = append(out, Action{Kind: ActionNeverSendRule, Target: r.Target, Rule: r.Details})
		}
	}
	return out
}

// neverSendMessage names each denied target and the rule that matched it,
// in words rather than as the rule file's "deny:12: obj/".
func neverSendMessage(reds []Redaction) string {
	var parts []string
	for _, r := range reds {
		if r.Reason != RedactReasonDenyRule {
			continue
		}
		if desc, ok := NeverSendRule(r.Details); ok {
			parts = append(parts, fmt.Sprintf("%s matches %s", r.Target, desc))
		} else {
			parts = append(parts, fmt.Sprintf("%s matches a never-send rule (%s)", r.Target, r.Details))
		}
	}
	if len(parts) == 0 {
		return "every target is excluded by a never-send rule, so ctxd does not send it"
	}
	return "every target is excluded by a never-send rule, so ctxd does not send it: " + strings.Join(parts, "; ")
}

// mergeSpecs dedupes targets by normalized path (seed 002 edge case 1):
// regions and symbols of duplicates are merged, the strongest reason kept,
// and each duplicate mention recorded as excluded "duplicate" when it was
// written differently.
func mergeSpecs(specs []*targetSpec, t *trail) map[string]*targetSpec {
	out := map[string]*targetSpec{}
	for _, s := range specs {
		m, ok := out[s.rel]
		if !ok {
			c := *s
			if s.lines != [2]int{} {
				c.linesList = [][2]int{s.lines}
			}
			out[s.rel] = &c
			continue
		}
		if s.weight > m.weight || s.weight == m.weight && s.reason == ReasonTarget {
			m.reason, m.weight = s.reason, s.weight
		}
		if s.lines != [2]int{} {
			m.linesList = append(m.linesList, s.lines)
		}
		if s.sel != nil {
			m.sel = s.sel
		}
		for k := range s.byName {
			if m.byName == nil {
				m.byName = map[string]struct{}{}
			}
			m.byName[k] = struct{}{}
		}
		if file, _, _ := splitLines(s.written); file != s.rel {
			t.excluded = append(t.excluded, Excluded{Path: file, Reason: ExcludeDuplicate})
		}
	}
	return out
}

// lookupTargets looks every target up in the index, by path, and makes
// the P0 items of those that may be sent.
func (e *env) lookupTargets(byPath map[string]*targetSpec, t *trail) ([]*item, error) {
	var targets []*item
	for _, rel := range slices.Sorted(maps.Keys(byPath)) {
		s := byPath[rel]
		f, err := e.lookupTarget(s, t)
		if err != nil {
			return nil, err
		}
		if f == nil {
			continue
		}
		if s.byName != nil {
			if err := selectedSymbols(s, e.root.Syntax(rel)); err != nil {
				return nil, err
			}
		}
		targets = append(targets, &item{typ: BlockFile, priority: P0, path: rel, reason: s.reason, weight: s.weight, target: true, file: f, symIdxs: s.symbols, spec: s})
	}
	return targets, nil
}

// lookupTarget finds a target in the index. A path excluded by a never-send
// rule (the contract's, which the index applies, or the workspace's
// deny_rules) is recorded and skipped (nil, nil); every other reason not
// to read a target is a refusal.
func (e *env) lookupTarget(s *targetSpec, t *trail) (*index.File, error) {
	if rule, denied := e.deniedBy(s.rel); denied {
		t.exclude(s.rel, ExcludeDenyRule, RedactPathExcluded, RedactReasonDenyRule, rule)
		return nil, nil
	}
	if f, ok := e.root.File(s.rel); ok {
		return f, nil
	}
	sk, ok := e.root.Skip(s.rel)
	if !ok {
		return nil, (&Refusal{Code: RefuseTargetNotFound, Message: fmt.Sprintf("target %s does not exist in the workspace index", s.rel)}).advise(Action{Kind: ActionCheckPath, Target: s.rel})
	}
	detail := sk.Detail
	if detail == "" {
		detail = string(sk.Reason)
	}
	switch sk.Reason {
	case index.SkipDenyRule:
		t.exclude(s.rel, ExcludeDenyRule, RedactPathExcluded, RedactReasonDenyRule, detail)
		return nil, nil
	case index.SkipOutsideSandbox:
		if index.IsHardLinkSkip(sk) {
			return nil, &Refusal{Code: RefuseOutsideSandbox, Message: fmt.Sprintf("target %s is %s, so ctxd does not read it", s.rel, index.HardLinkReason), Advice: index.HardLinkAdvice}
		}
		return nil, outside(s.rel)
	case index.SkipTooLarge:
		return nil, (&Refusal{Code: RefuseContextTooLarge, Message: fmt.Sprintf("target %s is larger than the indexing size cap (%s)", s.rel, detail)}).advise(act(ActionSmallerFile), act(ActionRaiseFileSizeCap))
	case index.SkipBinary:
		return nil, &Refusal{Code: RefuseUnsupportedTarget, Message: fmt.Sprintf("target %s is binary (%s)", s.rel, detail), Advice: "choose a text file as the target"}
	case index.SkipEncoding:
		return nil, &Refusal{Code: RefuseUnsupportedTarget, Message: fmt.Sprintf("target %s is in an unsupported or unknown encoding (%s)", s.rel, detail), Advice: "convert the file to UTF-8 (or UTF-16 with a byte order mark) and retry"}
	case index.SkipGitignore:
		return nil, &Refusal{Code: RefuseUnsupportedTarget, Message: fmt.Sprintf("target %s is ignored (%s), so ctxd does not index or send it", s.rel, detail), Advice: "remove the ignore rule, or choose a file that is not ignored"}
	default:
		return nil, &Refusal{Code: RefuseUnsupportedTarget, Message: fmt.Sprintf("target %s cannot be read (%s: %s)", s.rel, sk.Reason, detail), Advice: "check that the file exists and is readable, then retry"}
	}
}

// resolveSymbols resolves the plan step's target symbols to their
// definitions: the definition files become targets with those symbols.
func (e *env) resolveSymbols(byPath map[string]*targetSpec) error {
	if e.req.PlanStep == nil {
		return nil
	}
	g := e.root.Graph()
	for _, name := range e.req.PlanStep.TargetSymbols {
		chosen, err := e.chooseDefinitions(name, definitions(g, name), byPath)
		if err != nil {
			return err
		}
		for _, d := range chosen {
			s, ok := byPath[d.Path]
			if !ok {
				s = &targetSpec{written: d.Path, rel: d.Path, reason: ReasonTarget, weight: weightSymbolFile}
				byPath[d.Path] = s
			}
			if !slices.Contains(s.symbols, d.Index) {
				s.symbols = append(s.symbols, d.Index)
			}
		}
	}
	return nil
}

// chooseDefinitions picks the definitions a target symbol means. A name
// with several definitions is narrowed by the user's selection or by the
// plan step's own target files (the plan says where); still several, it
// is refused with the candidates, never guessed.
func (e *env) chooseDefinitions(name string, defs []relateRef, byPath map[string]*targetSpec) ([]relateRef, error) {
	if len(defs) == 0 {
		return nil, (&Refusal{Code: RefuseTargetNotFound, Message: fmt.Sprintf("target symbol %q has no definition in the workspace index", name)}).advise(act(ActionCheckSymbol))
	}
	if len(defs) == 1 {
		return defs, nil
	}
	// The user's explicit choice (path and symbol in
	// user_selected_targets, --select on the command line) is the answer
	// to an ambiguity and wins over the narrowing by target files: the
	// retry the refusal advises keeps the request's own targets, and it
	// must not be refused again because the target file holds several of
	// the definitions.
	var narrowed []int
	for i := range defs {
		if userChose(e.req, defs, []int{i}) {
			narrowed = append(narrowed, i)
		}
	}
	if len(narrowed) > 0 {
		chosen := make([]relateRef, 0, len(narrowed))
		for _, i := range narrowed {
			chosen = append(chosen, defs[i])
		}
		return chosen, nil
	}
	for i, d := range defs {
		// A target file narrows, and so does a file the user selected:
		// with the symbol (PATH#SYMBOL) when that is the name, or alone
		// (--select PATH), which answers "which file".
		if s, ok := byPath[d.Path]; ok && (s.reason == ReasonTarget || s.reason == ReasonUserSelected && s.byName == nil || s.byName != nil && hasName(s.byName, d)) {
			narrowed = append(narrowed, i)
		}
	}
	if len(narrowed) == 0 || len(narrowed) > 1 && !userChose(e.req, defs, narrowed) {
		return nil, e.ambiguous(name, defs, narrowed)
	}
	chosen := make([]relateRef, 0, len(narrowed))
	for _, i := range narrowed {
		chosen = append(chosen, defs[i])
	}
	return chosen, nil
}

// userChose reports whether every narrowed definition was picked by the
// user explicitly (path and symbol), which makes several choices
// deliberate rather than ambiguous.
func userChose(req *Request, defs []relateRef, idx []int) bool {
	for _, i := range idx {
		found := false
		for _, u := range req.UserSelectedTargets {
			if u.Symbol != "" && path.Clean(filepath.ToSlash(u.Path)) == defs[i].Path && nameMatches(u.Symbol, defs[i].Name, defs[i].QualifiedName) {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func hasName(names map[string]struct{}, d relateRef) bool {
	for n := range names {
		if nameMatches(n, d.Name, d.QualifiedName) {
			return true
		}
	}
	return false
}

// nameMatches reports whether name, a symbol as a request or a user
// writes it, names the symbol with this plain and qualified name: the
// plain name, the qualified name, or the qualified name's tail at a dot.
// A qualified name holds every container, the namespace or package too
// where the language puts it there (C#): "Type.Method" must
// find "Shop.Services.Type.Method" as it finds Go's "Type.Method", so one
// rule serves every language.
func nameMatches(name, plain, qualified string) bool {
	return name != "" && (name == plain || name == qualified || strings.HasSuffix(qualified, "."+name))
}

// definitions returns the definitions a target symbol's name means by
// nameMatches, sorted by path and index. The graph finds a plain or an
// exact qualified name; a name with dots is also the tail of longer
// qualified names, found through the part after each dot.
func definitions(g *relate.Graph, name string) []relateRef {
	defs := g.Definitions(name)
	for i := range len(name) {
		if name[i] != '.' {
			continue
		}
		for _, d := range g.Definitions(name[i+1:]) {
			if nameMatches(name, d.Name, d.QualifiedName) && !slices.ContainsFunc(defs, func(o relateRef) bool { return o.Path == d.Path && o.Index == d.Index }) {
				defs = append(defs, d)
			}
		}
	}
	slices.SortFunc(defs, func(a, b relateRef) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), cmp.Compare(a.Index, b.Index))
	})
	return defs
}

// selectedSymbols resolves the symbols the user selected in a file
// (user_selected_targets' {path, symbol}, --select PATH#SYMBOL) to the
// file's symbols by nameMatches, adding them to s.symbols, so that the
// selection is the target region as a target symbol is. A name the file
// does not define is refused, never dropped: the whole file would be sent
// for a choice the user believes was narrower.
func selectedSymbols(s *targetSpec, syn *syntax.File) error {
	for _, name := range slices.Sorted(maps.Keys(s.byName)) {
		found := false
		if syn != nil {
			for i := range syn.Symbols {
				if nameMatches(name, syn.Symbols[i].Name, syn.Symbols[i].QualifiedName) {
					found = true
					if !slices.Contains(s.symbols, i) {
						s.symbols = append(s.symbols, i)
					}
				}
			}
		}
		if !found {
			msg := fmt.Sprintf("selected symbol %q is not defined in %s", name, s.rel)
			if near := closeNames(syn, name); len(near) > 0 {
				msg += "; close matches: " + strings.Join(near, ", ")
			}
			return &Refusal{Code: RefuseTargetNotFound, Message: msg,
				Advice: "check the name (a qualified name such as Type.Method also works), choose one of the file's symbols, or select the file alone"}
		}
	}
	slices.Sort(s.symbols)
	return nil
}

// maxCloseNames bounds the close matches a refusal lists.
const maxCloseNames = 5

// closeNames returns up to maxCloseNames qualified names of syn's symbols
// close to name (a typo, another case, a missing or extra qualifier):
// those a few edits away from it, then those whose plain name contains
// its last segment (three bytes or more) or whose qualified name
// contains it, ignoring case; closest first, then by name, so that the
// list is deterministic.
func closeNames(syn *syntax.File, name string) []string {
	if syn == nil {
		return nil
	}
	lower := strings.ToLower(name)
	last := lower[strings.LastIndexByte(lower, '.')+1:]
	// Two edits, more for a long name; fewer than its length for a
	// short one, which every short name is a few edits from.
	limit := min(max(2, len(name)/4), len(name)-1)
	// far is the distance of two names whose edit distance is not worth
	// computing: their lengths alone put them past the limit, or a name
	// from the request is too long to be a typo of a symbol's (the cost
	// is the product of the lengths).
	far := func(a, b string) int {
		if len(a) > maxDistanceName || len(b) > maxDistanceName || abs(len(a)-len(b)) > limit {
			return limit + 1
		}
		return editDistance(a, b)
	}
	best := map[string]int{}
	for _, sym := range syn.Symbols {
		q := sym.QualifiedName
		plain, qual := strings.ToLower(sym.Name), strings.ToLower(q)
		d := min(far(lower, plain), far(lower, qual))
		if len(last) >= 3 && strings.Contains(plain, last) || len(lower) >= 3 && strings.Contains(qual, lower) {
			d = min(d, 2) // after a name one edit away
		}
		if d > limit {
			continue
		}
		if old, ok := best[q]; !ok || d < old {
			best[q] = d
		}
	}
	out := slices.Collect(maps.Keys(best))
	slices.SortFunc(out, func(a, b string) int { return cmp.Or(cmp.Compare(best[a], best[b]), strings.Compare(a, b)) })
	return out[:min(len(out), maxCloseNames)]
}

// maxDistanceName is the longest name closeNames computes an edit
// distance for.
const maxDistanceName = 128

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// editDistance is the Levenshtein distance of a and b in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// ambiguous refuses a symbol name with several definitions, listing them.
// preferred are the definitions in the request's own target files, if
// any: the example in the advice is one of them.
func (e *env) ambiguous(name string, defs []relateRef, preferred []int) error {
	var cands []Candidate
	for _, d := range defs {
		cands = append(cands, candidateOf(d, e.root.Syntax(d.Path)))
	}
	example := cands[0]
	if len(preferred) > 0 {
		example = cands[preferred[0]]
	}
	r := &Refusal{
		Code:       RefuseAmbiguousTarget,
		Message:    fmt.Sprintf("target symbol %q has %d definitions; ctxd does not guess which one is meant", name, len(defs)),
		Candidates: cands,
	}
	return r.advise(Action{Kind: ActionPickCandidate, Candidate: example})
}

// candidateOf describes a definition for a refusal: its declaration as
// byte offsets, and as a 0-based line and byte column, the form that needs
// no text; the caller converts it to the client's units.
func candidateOf(d relateRef, syn *syntax.File) Candidate {
	c := Candidate{Path: d.Path, Symbol: d.QualifiedName, Kind: d.Kind.String()}
	if syn != nil && d.Index < len(syn.Symbols) {
		r := syn.Symbols[d.Index].Range
		c.Range = Range{
			Start: Position{Line: int(r.Start.Line), Character: int(r.Start.Column)},
			End:   Position{Line: int(r.End.Line), Character: int(r.End.Column)},
		}
		c.Span = Span{Start: int(r.StartByte), End: int(r.EndByte)}
	}
	return c
}

// loadTargets reads every target (collecting all stale files before
// restarting once), computes target regions from the selection, line
// ranges and target symbols, and returns the target symbols, sorted: the
// named ones and those enclosing a selection or line range.
func (e *env) loadTargets(targets []*item) ([]string, error) {
	var stale []string
	for _, t := range targets {
		err := e.read(t)
		var se *staleError
		switch {
		case errors.As(err, &se):
			stale = append(stale, se.uris...)
		case err != nil:
			return nil, &Refusal{Code: RefuseUnsupportedTarget, Message: fmt.Sprintf("target %s cannot be read: %s", t.path, readProblem(err)), Advice: "check that the file exists and is readable, then retry"}
		}
	}
	if len(stale) > 0 {
		return nil, &staleError{uris: stale}
	}
	syms := map[string]bool{}
	for _, t := range targets {
		syn := e.root.Syntax(t.path)
		if err := targetRegions(t, syn); err != nil {
			return nil, err
		}
		for _, i := range t.symIdxs {
			syms[syn.Symbols[i].QualifiedName] = true
		}
		t.levels = []Level{LevelFull}
		if len(t.regions) > 0 {
			t.levels = append(t.levels, LevelRegion)
		}
	}
	return slices.Sorted(maps.Keys(syms)), nil
}

// targetRegions fills t.regions and adds the symbols enclosing each
// selection or line range to t.symIdxs. Symbol boundaries are used only
// when the file parsed without errors; a selection or line range is
// always exact.
func targetRegions(t *item, syn *syntax.File) error {
	ok := reliable(syn)
	var picks []span
	if t.spec.sel != nil {
		s, err := selectionSpan(t.spec.sel, len(t.text))
		if err != nil {
			return err
		}
		picks = append(picks, s)
	}
	for _, l := range t.spec.linesList {
		if l[0] > t.li.lines() {
			return fmt.Errorf("%w: target %s: line %d is past the end of the file (%d lines)", ErrInvalidRequest, t.path, l[0], t.li.lines())
		}
		picks = append(picks, t.li.lineSpan(l[0], l[1]))
	}
	for _, s := range picks {
		t.regions = append(t.regions, s)
		if ok {
			for _, i := range enclosing(syn.Symbols, s) {
				if !slices.Contains(t.symIdxs, i) {
					t.symIdxs = append(t.symIdxs, i)
				}
			}
		}
	}
	slices.Sort(t.symIdxs)
	// Symbol boundaries of a file with parse errors are not reliable: its
	// region is then only what the user selected, or none (whole file).
	if ok {
		for _, i := range t.symIdxs {
			t.regions = append(t.regions, symbolSpan(t.li, &syn.Symbols[i]))
		}
	}
	return nil
}

// selectionSpan is the selection's byte span in the text it was resolved
// against, of size bytes. Resolving the editor's range takes the client's
// position encoding, which only the caller knows; the builder checks the
// result against the text it reads.
func selectionSpan(sel *SelectionRange, size int) (span, error) {
	if sel.Span == nil {
		return span{}, fmt.Errorf("%w: field \"selection.range\": the selection was not resolved to byte offsets of the file's text", ErrInvalidRequest)
	}
	s := *sel.Span
	switch {
	case s.Start > s.End:
		return span{}, fmt.Errorf("%w: field \"selection.range\": byte span %d-%d starts after it ends", ErrInvalidRequest, s.Start, s.End)
	case s.Start < 0 || s.End > size:
		return span{}, fmt.Errorf("%w: field \"selection.range\": byte span %d-%d is outside the file's text (%d bytes)", ErrInvalidRequest, s.Start, s.End, size)
	}
	return span{s.Start, s.End}, nil
}

// enclosing returns the target symbols of a selection: the innermost
// function or type containing it (any symbol when no function or type
// does); for a selection spanning several declarations, the outermost
// declarations it overlaps.
func enclosing(syms []syntax.Symbol, s span) []int {
	if best := innermost(syms, s); best >= 0 {
		return []int{best}
	}
	return outermostOverlapping(syms, s)
}

// innermost returns the smallest symbol containing s, a function or type
// before any other kind; -1 when none does. An empty selection is
// contained by a symbol it lies in, not one it ends.
func innermost(syms []syntax.Symbol, s span) int {
	contains := func(i int) bool {
		r := syms[i].Range
		if s.start == s.end {
			return int(r.StartByte) <= s.start && s.start < int(r.EndByte)
		}
		return int(r.StartByte) <= s.start && int(r.EndByte) >= s.end
	}
	best := -1
	bestMajor := false
	for i := range syms {
		if !contains(i) {
			continue
		}
		major := syms[i].Kind.IsCallable() || isTypeLike(syms[i].Kind)
		if best < 0 || major && !bestMajor || major == bestMajor && size(syms[i].Range) < size(syms[best].Range) {
			best, bestMajor = i, major
		}
	}
	return best
}

// outermostOverlapping returns the symbols overlapping s that no larger
// overlapping symbol contains.
func outermostOverlapping(syms []syntax.Symbol, s span) []int {
	var over []int
	for i := range syms {
		r := syms[i].Range
		if int(r.StartByte) < s.end && int(r.EndByte) > s.start {
			over = append(over, i)
		}
	}
	var out []int
	for _, i := range over {
		inner := slices.ContainsFunc(over, func(j int) bool {
			return j != i && syms[j].Range.StartByte <= syms[i].Range.StartByte && syms[j].Range.EndByte >= syms[i].Range.EndByte && size(syms[j].Range) > size(syms[i].Range)
		})
		if !inner {
			out = append(out, i)
		}
	}
	return out
}

func size(r syntax.Range) uint32 { return r.EndByte - r.StartByte }

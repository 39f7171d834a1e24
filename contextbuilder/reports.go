package contextbuilder

import (
	"cmp"
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxd/ctxd/contextbuilder/tokens"
)

// outputs is the output of the reports step: what the run's mode returns,
// the rest nil.
type outputs struct {
	bundle     *Bundle          // modeBuild
	manifest   *Manifest        // modeBuild, modeManifest
	redactions *RedactionReport // modeBuild, modeManifest
	budget     *BudgetReport    // every mode
	counts     Counts           // modeBudget
}

// reports runs the reports step.
func (e *env) reports(b bundled) outputs {
	if e.mode == modeBudget {
		return outputs{budget: e.budgetReport(b.notes, b.total, b.decision, ""), counts: e.counts(b)}
	}
	out := outputs{
		manifest:   e.manifest(b),
		redactions: &RedactionReport{BundleID: b.bundleID, Redactions: b.sortedRedactions()},
		budget:     e.budgetReport(b.notes, b.total, b.decision, b.bundleID),
	}
	if e.mode == modeBuild {
		out.bundle = &Bundle{
			BundleID:      b.bundleID,
			BundleVersion: BundleVersion,
			CreatedAt:     createdAt(e.opts.CreatedAt),
			Purpose:       e.req.Purpose,
			CorrelationID: b.correlationID,
			Model:         e.model,
			Blocks:        b.built,
		}
		if b.built != nil {
			out.bundle.canon = &canonBlocks{data: b.canonBlocks, n: len(b.built)}
			if len(b.built) > 0 {
				out.bundle.canon.first = &b.built[0]
			}
		}
	}
	return out
}

// sortedRedactions returns the redaction report's entries: in canonical
// order (target, type, reason, details), exact duplicates removed, and
// the entries of a type and reason with too many of them grouped by
// directory (see "Long lists" below).
func (t *trail) sortedRedactions() []Redaction {
	return groupRedactions(t.allRedactions())
}

// allRedactions returns every redaction entry in canonical order, exact
// duplicates removed, none grouped.
func (t *trail) allRedactions() []Redaction {
	out := slices.Clone(t.redacts)
	slices.SortFunc(out, compareRedactions)
	if out == nil {
		out = []Redaction{}
	}
	return slices.Compact(out)
}

func compareRedactions(a, b Redaction) int {
	return cmp.Or(strings.Compare(a.Target, b.Target), strings.Compare(string(a.Type), string(b.Type)), strings.Compare(string(a.Reason), string(b.Reason)), strings.Compare(a.Details, b.Details))
}

func compareExcluded(a, b Excluded) int {
	return cmp.Or(strings.Compare(a.Path, b.Path), strings.Compare(string(a.Reason), string(b.Reason)))
}

// budgetReport is the budget report; the estimator comes first in notes.
func (e *env) budgetReport(steps []string, total int, decision Decision, bundleID string) *BudgetReport {
	notes := []string{e.est.Note()}
	if tokens.EncodingFor(e.model.Model) == e.est.Name() && e.model.Provider != "openai" && e.model.Provider != "azure" {
		notes = append(notes, fmt.Sprintf("estimator: %s's tokenizer is not public; %s is used as the estimate", e.model.Model, e.est.Name()))
	}
	notes = append(notes, steps...)
	notes = append(notes, e.openDocumentsNote()...)
	return &BudgetReport{
		BundleID:             bundleID,
		EstimatedInputTokens: total,
		MaxInputTokens:       e.model.MaxInputTokens,
		SoftLimitTokens:      e.limits.soft,
		HardLimitTokens:      e.limits.hard,
		ReserveOutputTokens:  e.model.ResponseTokenReserve,
		Decision:             decision,
		Notes:                notes,
	}
}

// manifest is the manifest of the rendered bundle.
func (e *env) manifest(b bundled) *Manifest {
	sel := Selection{TargetFiles: []string{}, TargetSymbols: slices.Clone(b.symbols), IncludedFiles: []IncludedFile{}, ExcludedCandidates: []Excluded{}}
	if sel.TargetSymbols == nil {
		sel.TargetSymbols = []string{}
	}
	for _, t := range b.targets {
		sel.TargetFiles = append(sel.TargetFiles, t.path)
	}
	if len(e.newFiles) > 0 {
		for _, p := range e.newFiles {
			if !slices.Contains(sel.TargetFiles, p) {
				sel.TargetFiles = append(sel.TargetFiles, p)
			}
		}
		slices.Sort(sel.TargetFiles)
	}
	best := bestBlocks(b.blocks)
	for _, it := range best {
		sel.IncludedFiles = append(sel.IncludedFiles, IncludedFile{Path: it.path, Hash: it.file.SHA256(), Encoding: string(it.file.Encoding), ByteSize: it.file.ByteSize, Reason: it.reason})
	}
	slices.SortFunc(sel.IncludedFiles, func(a, b IncludedFile) int { return strings.Compare(a.Path, b.Path) })
	// A candidate removed for the budget (Step 4) is an excluded candidate
	// token_budget, also when another block of its file is sent (a P1
	// symbol removed while another symbol of the file stays): the manifest
	// accounts for every removal, and the path is then in both lists, as
	// docs/contract.md says. Any other exclusion of a path with a block in
	// the bundle is left to the redaction report, so that no path is said
	// to be never-send, binary or secret while a block of it is sent.
	for _, x := range b.excluded {
		if _, in := best[x.Path]; !in || x.Reason == ExcludeTokenBudget {
			sel.ExcludedCandidates = append(sel.ExcludedCandidates, x)
		}
	}
	slices.SortFunc(sel.ExcludedCandidates, compareExcluded)
	sel.ExcludedCandidates = groupExcluded(slices.Compact(sel.ExcludedCandidates))
	return &Manifest{
		BundleID:      b.bundleID,
		CorrelationID: b.correlationID,
		Purpose:       e.req.Purpose,
		Selection:     sel,
		Fingerprints: Fingerprints{
			ProjectIndexFingerprint: e.root.Fingerprint(),
			ConfigFingerprint:       e.configFP,
			BundleFingerprint:       b.fingerprint,
		},
	}
}

// bestBlocks maps each file with a block to the block that gives its
// reason: a target before anything else, then by weight. Only lookups are
// made in it; the manifest sorts what it lists.
func bestBlocks(blocks []*item) map[string]*item {
	best := map[string]*item{}
	for _, it := range blocks {
		if it.path == "" {
			continue
		}
		if b, ok := best[it.path]; !ok || it.weight > b.weight || it.target && !b.target {
			best[it.path] = it
		}
	}
	return best
}

// counts summarizes the selection for ctxd.budget.
func (e *env) counts(b bundled) Counts {
	c := Counts{Blocks: map[Priority]int{P0: 0, P1: 0, P2: 0, P3: 0}, Excluded: len(b.excluded), Redactions: len(b.allRedactions()), TargetFiles: len(b.targets)}
	files := map[string]bool{}
	for _, it := range b.blocks {
		c.Blocks[it.priority]++
		if it.path != "" {
			files[it.path] = true
		}
	}
	c.Files = len(files)
	return c
}

// Long lists. A build that leaves out thousands of candidates (a symbol
// with thousands of callers in a large repository) would list each of them
// in the manifest and again in the redaction report: megabytes that no one
// reads and every client parses. So within one list, the entries that
// share a reason — for the redaction report, a type and a reason — are
// grouped by directory once there are more than groupThreshold of them;
// lists of every other size are exactly as before. The seed's fields are
// kept and no field is added (docs/contract.md, "Long lists"):
//
//   - an excluded candidate group is {"path": "<pattern> (<n> candidates)",
//     "reason": <reason>};
//   - a redaction group is {"type": <type>, "target": <pattern>, "reason":
//     <reason>, "details": "<n> entries grouped …; first: <details of the
//     first>"};
//
// where <pattern> is "dir/*" (the entries directly in dir), "dir/**" (the
// entries anywhere under dir) or "*" and "**" at the root. As few entries
// are grouped as it takes to leave at most groupThreshold of that reason:
// the largest directories first, then, if grouping every directory is not
// enough, by parent directories, and so on; every other entry is kept as
// it is. Every candidate is still accounted for: each is in exactly one
// entry, and [Excluded.Count] and [Redaction.Count] give how many an entry
// stands for. The grouping depends only on the sorted list, so it is as
// deterministic as the list.

// groupThreshold is how many entries of one reason a list holds before
// they are grouped. At 100, a build of GOROOT/src at the default 128k-token
// budget keeps the entries that describe its blocks one by one for most
// targets, and no list grows past a few hundred entries however large
// the repository.
const groupThreshold = 100

// Suffixes of group entries; Count recognizes groups by them.
const (
	candidatesSuffix = " candidates)"
	entriesGrouped   = " entries grouped ("
)

// groupExcluded groups the excluded candidates of each reason with more
// than groupThreshold entries; ex is sorted and so is the result.
func groupExcluded(ex []Excluded) []Excluded {
	byReason := map[ExcludeReason][]int{}
	for i, e := range ex {
		byReason[e.Reason] = append(byReason[e.Reason], i)
	}
	if !anyLonger(byReason) {
		return ex
	}
	out := make([]Excluded, 0, len(ex))
	for i, e := range ex {
		if len(byReason[e.Reason]) <= groupThreshold {
			out = append(out, ex[i])
		}
	}
	for _, reason := range sortedKeys(byReason) {
		idx := byReason[reason]
		if len(idx) <= groupThreshold {
			continue
		}
		for _, g := range groupByDir(idx, func(i int) string { return ex[i].Path }) {
			if len(g.members) == 1 {
				out = append(out, ex[g.members[0]])
				continue
			}
			out = append(out, Excluded{Path: fmt.Sprintf("%s (%d%s", g.pattern, len(g.members), candidatesSuffix), Reason: reason})
		}
	}
	slices.SortFunc(out, compareExcluded)
	return out
}

// groupRedactions groups the entries of each type and reason with more
// than groupThreshold entries; rs is sorted and so is the result.
func groupRedactions(rs []Redaction) []Redaction {
	type kind struct {
		typ    RedactionType
		reason RedactionReason
	}
	byKind := map[kind][]int{}
	for i, r := range rs {
		k := kind{r.Type, r.Reason}
		byKind[k] = append(byKind[k], i)
	}
	if !anyLonger(byKind) {
		return rs
	}
	out := make([]Redaction, 0, len(rs))
	for i, r := range rs {
		if len(byKind[kind{r.Type, r.Reason}]) <= groupThreshold {
			out = append(out, rs[i])
		}
	}
	kinds := slices.SortedFunc(maps.Keys(byKind), func(a, b kind) int {
		return cmp.Or(strings.Compare(string(a.typ), string(b.typ)), strings.Compare(string(a.reason), string(b.reason)))
	})
	for _, k := range kinds {
		idx := byKind[k]
		if len(idx) <= groupThreshold {
			continue
		}
		for _, g := range groupByDir(idx, func(i int) string { return rs[i].Target }) {
			if len(g.members) == 1 {
				out = append(out, rs[g.members[0]])
				continue
			}
			first := rs[g.members[0]]
			out = append(out, Redaction{Type: k.typ, Target: g.pattern, Reason: k.reason,
				Details: fmt.Sprintf("%d%smore than %d %s entries with reason %s are grouped by directory); first: %s", len(g.members), entriesGrouped, groupThreshold, k.typ, k.reason, first.Details)})
		}
	}
	slices.SortFunc(out, compareRedactions)
	return out
}

func anyLonger[K comparable](m map[K][]int) bool {
	for _, idx := range m {
		if len(idx) > groupThreshold {
			return true
		}
	}
	return false
}

func sortedKeys[K ~string, V any](m map[K]V) []K {
	return slices.Sorted(maps.Keys(m))
}

// dirGroup is the entries one pattern stands for, in list order; a group
// of one is an entry kept as it is.
type dirGroup struct {
	pattern string
	members []int
}

// groupByDir groups as few of the entries idx (in list order) as it takes
// to leave at most groupThreshold: the entries of the largest directories
// first (ties by pattern), and when grouping every directory is not
// enough, by ever shorter directory prefixes; at depth 0 every entry is in
// the one group "**". A directory shallower than the prefix depth keeps a
// group of its own ("dir/*"), so that no two patterns cover the same path.
func groupByDir(idx []int, pathOf func(int) string) []dirGroup {
	dirs := make([][]string, len(idx))
	deepest := 0
	for k, i := range idx {
		if d := path.Dir(pathOf(i)); d != "." && d != "/" {
			dirs[k] = strings.Split(d, "/")
		}
		deepest = max(deepest, len(dirs[k]))
	}
	for depth := deepest + 1; ; depth-- {
		var groups []dirGroup
		at := map[string]int{}
		for k, i := range idx {
			pattern := dirPattern(dirs[k], depth)
			g, ok := at[pattern]
			if !ok {
				g = len(groups)
				at[pattern] = g
				groups = append(groups, dirGroup{pattern: pattern})
			}
			groups[g].members = append(groups[g].members, i)
		}
		if len(groups) > groupThreshold && depth > 0 {
			continue
		}
		// Group the largest directories until few enough entries remain;
		// the others keep their entries one by one.
		bySize := make([]int, len(groups))
		for g := range groups {
			bySize[g] = g
		}
		slices.SortStableFunc(bySize, func(a, b int) int {
			return cmp.Or(cmp.Compare(len(groups[b].members), len(groups[a].members)), strings.Compare(groups[a].pattern, groups[b].pattern))
		})
		entries, grouped := len(idx), map[int]bool{}
		for _, g := range bySize {
			if entries <= groupThreshold || len(groups[g].members) < 2 {
				break
			}
			grouped[g] = true
			entries -= len(groups[g].members) - 1
		}
		var out []dirGroup
		for g, grp := range groups {
			if grouped[g] {
				out = append(out, grp)
				continue
			}
			for _, i := range grp.members {
				out = append(out, dirGroup{members: []int{i}})
			}
		}
		return out
	}
}

// dirPattern is the pattern of a path in directory segs when groups are
// cut at depth: the directory itself ("dir/*") when it is shallower, else
// its first depth segments ("dir/**").
func dirPattern(segs []string, depth int) string {
	if len(segs) < depth {
		if len(segs) == 0 {
			return "*"
		}
		return strings.Join(segs, "/") + "/*"
	}
	if depth == 0 {
		return "**"
	}
	return strings.Join(segs[:depth], "/") + "/**"
}

// Count is how many excluded candidates the entry stands for: n for a
// group of n (see docs/contract.md, "Long lists"), else 1.
func (e Excluded) Count() int {
	rest, ok := strings.CutSuffix(e.Path, candidatesSuffix)
	if !ok {
		return 1
	}
	i := strings.LastIndex(rest, " (")
	if i < 0 || !strings.HasSuffix(rest[:i], "*") {
		return 1
	}
	return groupSize(rest[i+2:])
}

// Count is how many redaction entries the entry stands for: n for a group
// of n (see docs/contract.md, "Long lists"), else 1.
func (r Redaction) Count() int {
	if !strings.HasSuffix(r.Target, "*") {
		return 1
	}
	n, _, ok := strings.Cut(r.Details, entriesGrouped)
	if !ok {
		return 1
	}
	return groupSize(n)
}

// groupSize parses a group's size: more than one, else the entry is not a
// group and stands for itself.
func groupSize(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 2 {
		return 1
	}
	return n
}

// SlicedSymbol says which block of its file a content_sliced entry is
// about: the symbol of a symbol block (ok, symbol not empty), or the file
// block (ok, symbol empty). ok is false for an entry that is not one
// block's slice (a group of entries, another type). It reads the details
// account writes: "<reason> <symbol>: <level>, …" for a symbol block,
// "<level>: …" for a file block.
func SlicedSymbol(red Redaction) (symbol string, ok bool) {
	if red.Type != RedactContentSliced || red.Count() > 1 {
		return "", false
	}
	head, _, found := strings.Cut(red.Details, ": ")
	if !found {
		return "", false
	}
	_, sym, isSymbol := strings.Cut(head, " ")
	if !isSymbol {
		return "", true
	}
	return sym, sym != ""
}

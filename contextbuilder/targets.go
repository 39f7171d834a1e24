package contextbuilder

import (
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ctxd/ctxd/handlers/position"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/index/relate"
	"github.com/ctxd/ctxd/index/syntax"
)

// item is one block candidate: a target file, a related file or symbol, or
// one of the fixed blocks (system, constraints, …).
type item struct {
	typ      BlockType
	priority Priority
	path     string // "" for blocks not from a file
	symbol   string // qualified name, symbol blocks
	symIdx   int    // index in the file's syntax symbols, symbol blocks
	reason   IncludeReason
	weight   int
	hops     int
	score    int
	target   bool
	source   Source

	file    *index.File
	text    []byte
	li      *lineIndex
	regions []span // target regions (byte spans), for TARGET_REGION_ONLY

	levels  []Level // the levels this block may take, most complete first
	level   int     // index into levels
	fixed   string  // content of a block not from a file
	errPath string  // the indexed file last_error names, error_context
	title   string  // title of a block not from a file

	symIdxs []int       // target symbols of a target file
	spec    *targetSpec // the explicit target, P0 target files
	thread  *ThreadRef  // the thread event of a thread block, else nil

	cache map[Level]*rendered
}

// relateRef is a definition found through the relation graph.
type relateRef = relate.SymbolRef

// rendered is an item's block at one level.
type rendered struct {
	title, content string
	tokens         int
	redactions     []Redaction
	// risk is non-empty when the text holds a secret that cannot be
	// removed by redacting spans: it names the rule, or is riskUnscannable.
	risk string
	desc string // the slice's line ranges, for content_sliced details
}

// chooseRoot picks the workspace folder the bundle is built from: the
// active file's (the selection's when there is no active file), else the
// first explicit target's, else the first folder. A bundle covers one
// folder. The active file goes through the sandbox here, before anything
// else looks at it: a URI or path the sandbox refuses (see
// index.ClientPath and index.CleanRel) is REFUSE_OUTSIDE_SANDBOX.
func (p *pipeline) chooseRoot() error {
	roots := p.snap.Roots()
	if len(roots) == 0 {
		return &Refusal{Code: RefuseOutsideSandbox, Message: "no workspace folder is open, so there is no project root to build from", Advice: "open a folder (or pass --root) and retry"}
	}
	if active := p.activeURI(); active != "" {
		r, _, err := p.snap.LocateChecked(active)
		if err != nil {
			return outside(active)
		}
		p.root = r
		return nil
	}
	for _, t := range p.explicitPaths() {
		if _, ok := asURI(t); !ok {
			continue
		}
		if r, _, err := p.snap.LocateChecked(t); err == nil {
			p.root = r
			return nil
		}
	}
	p.root = roots[0]
	return nil
}

// activeURI is the document the editor has open: active_file, else the
// selection's URI (which must equal active_file when both are given).
func (p *pipeline) activeURI() string {
	if p.req.ActiveFile != "" {
		return p.req.ActiveFile
	}
	if p.req.Selection != nil {
		return p.req.Selection.URI
	}
	return ""
}

// outside refuses a path or URI of the request as outside the sandbox. The
// message quotes only what the client sent (never the root, never where a
// link leads), made printable and bounded.
func outside(s string) *Refusal {
	return &Refusal{Code: RefuseOutsideSandbox, Message: fmt.Sprintf("%s is outside the workspace folders; ctxd never reads outside the project root", quoteRequestPath(s)), Advice: "choose a file inside the workspace, or open its folder as a workspace folder"}
}

// maxQuoted bounds how much of a request's path a message repeats.
const maxQuoted = 256

// quoteRequestPath renders a path of the request for a message: as sent
// when it is short printable UTF-8, else Go-quoted (a NUL or a control
// character becomes an escape) and cut to maxQuoted bytes.
func quoteRequestPath(s string) string {
	cut := false
	if len(s) > maxQuoted {
		s = strings.ToValidUTF8(s[:maxQuoted], "")
		cut = true
	}
	printable := utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsPrint(r) })
	if !printable {
		s = strconv.Quote(s)
	}
	if cut {
		s += "…"
	}
	return s
}

// explicitPaths lists the paths the request names, in request order.
func (p *pipeline) explicitPaths() []string {
	var out []string
	if p.req.PlanStep != nil {
		for _, t := range p.req.PlanStep.TargetFiles {
			f, _, _ := splitLines(t)
			out = append(out, f)
		}
	}
	for _, t := range p.req.UserSelectedTargets {
		out = append(out, t.Path)
	}
	return out
}

// asURI turns a file URI or an absolute path into a file URI (normalized
// when the sandbox would accept it); ok is false for a relative path. It
// only classifies: the sandbox checks are relPath's and chooseRoot's.
func asURI(s string) (string, bool) {
	if index.IsFileURI(s) {
		return index.NormalizeURI(s), true
	}
	if strings.HasPrefix(s, "/") || filepath.IsAbs(s) {
		return index.PathToURI(s), true
	}
	return "", false
}

// relPath normalizes a path of the request (a target, a user-selected
// target, last_error.path) to a path relative to the bundle's root, or
// refuses it as outside the sandbox. A file URI or an absolute path must
// lie in the bundle's own folder (the innermost one when folders nest);
// a relative path is relative to that folder. Every form goes through
// the sandbox (index.Snapshot.LocateChecked, index.RootSnapshot.Rel):
// "..", encoded dots and separators, backslashes, UNC and drive forms,
// remote hosts, NUL bytes and symbolic links out of the root are refused
// before anything is opened.
func (p *pipeline) relPath(s string) (string, error) {
	if _, ok := asURI(s); ok {
		r, rel, err := p.snap.LocateChecked(s)
		if err != nil || r != p.root {
			return "", outside(s)
		}
		return rel, nil
	}
	rel, err := p.root.Rel(s)
	if err != nil {
		return "", outside(s)
	}
	return rel, nil
}

// splitLines parses "path:L1-L2"; ok is false when there is no line
// suffix. Malformed suffixes are returned as an error.
func splitLines(s string) (file string, lines [2]int, err error) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 || index.IsFileURI(s) && i == 4 {
		return s, lines, nil
	}
	suffix := s[i+1:]
	a, b, ok := strings.Cut(suffix, "-")
	if !ok {
		b = a
	}
	l1, e1 := strconv.Atoi(a)
	l2, e2 := strconv.Atoi(b)
	if e1 != nil || e2 != nil {
		// Not a line suffix ("C:" or a colon in a name): the whole string
		// is the path.
		if strings.Trim(suffix, "0123456789-") != "" || suffix == "" {
			return s, lines, nil
		}
		return "", lines, fmt.Errorf("%w: target %q: malformed line range %q (want L1-L2)", ErrInvalidRequest, s, suffix)
	}
	if l1 < 1 || l2 < l1 {
		return "", lines, fmt.Errorf("%w: target %q: line range %d-%d is empty or not 1-based", ErrInvalidRequest, s, l1, l2)
	}
	return s[:i], [2]int{l1, l2}, nil
}

// targetSpec is one explicit target before it is looked up.
type targetSpec struct {
	written string
	rel     string
	reason  IncludeReason
	weight  int
	lines   [2]int              // 0,0 when absent
	sel     *position.Range     // the editor selection, active file only
	symbols []int               // chosen symbols of the file
	byName  map[string]struct{} // user-selected symbol names to find

	linesList [][2]int // every line range given for the path
}

// resolveTargets runs Step 0 and Step 1 for the explicit targets: the
// plan step's files and symbols, the user's selections and the active
// file. Hard exclusions of targets are recorded (deny rules) or refused
// (binary, unknown encoding, outside the root, missing), and an ambiguous
// symbol is refused with its candidates.
func (p *pipeline) resolveTargets() error {
	if p.req.Purpose == PurposeIntent {
		return nil
	}
	var specs []*targetSpec
	add := func(written string, reason IncludeReason, weight int) (*targetSpec, error) {
		file, lines, err := splitLines(written)
		if err != nil {
			return nil, err
		}
		rel, err := p.relPath(file)
		if err != nil {
			return nil, err
		}
		s := &targetSpec{written: written, rel: rel, reason: reason, weight: weight, lines: lines}
		specs = append(specs, s)
		return s, nil
	}
	if ps := p.req.PlanStep; ps != nil {
		for _, t := range ps.TargetFiles {
			if _, err := add(t, ReasonTarget, weightTarget); err != nil {
				return err
			}
		}
	}
	for _, u := range p.req.UserSelectedTargets {
		w := weightTarget
		if u.Symbol != "" {
			w = weightSymbolFile
		}
		s, err := add(u.Path, ReasonUserSelected, w)
		if err != nil {
			return err
		}
		if u.Symbol != "" {
			s.byName = map[string]struct{}{u.Symbol: {}}
		}
	}
	explicit := len(specs) > 0 || p.req.PlanStep != nil && len(p.req.PlanStep.TargetSymbols) > 0
	if p.req.ActiveFile != "" || p.req.Selection != nil {
		uri := p.req.ActiveFile
		if uri == "" {
			uri = p.req.Selection.URI
		}
		_, rel, ok := p.snap.Locate(index.NormalizeURI(uri))
		if !ok {
			return outside(uri)
		}
		if !explicit {
			s := &targetSpec{written: rel, rel: rel, reason: ReasonTarget, weight: weightTarget}
			if p.req.Selection != nil {
				r := p.req.Selection.Range
				s.sel = &r
			}
			specs = append(specs, s)
		} else if _, ok := p.root.File(rel); ok {
			// The open file is context, not the target, when the request
			// names its targets: a P2 candidate (see docs/contract.md).
			p.items = append(p.items, &item{typ: BlockFile, priority: P2, path: rel, reason: ReasonUserSelected, weight: weightOther, hops: 1})
		}
	}
	byPath := p.mergeSpecs(specs)
	if err := p.resolveSymbols(byPath); err != nil {
		return err
	}
	paths := slices.Sorted(maps.Keys(byPath))
	for _, rel := range paths {
		s := byPath[rel]
		f, err := p.lookupTarget(s)
		if err != nil {
			return err
		}
		if f == nil {
			continue
		}
		p.targets = append(p.targets, &item{typ: BlockFile, priority: P0, path: rel, reason: s.reason, weight: s.weight, target: true, file: f, symIdxs: s.symbols, spec: s})
	}
	if len(p.targets) == 0 && (p.req.Purpose == PurposeDiff || len(specs) > 0) {
		if len(p.excluded) > 0 {
			return &Refusal{Code: RefuseUnsupportedTarget, Message: "every target is excluded by a never-send rule", Advice: "choose a target that is not a secret-bearing or generated path (see the never-send list in docs/contract.md)", RedactionReport: &RedactionReport{Redactions: p.sortedRedactions()}}
		}
		return &Refusal{Code: RefuseTargetNotFound, Message: "a diff needs a target file, and the request names none that exists in the workspace", Advice: "open the file to change, select a region, or pass plan_step.target_files"}
	}
	return nil
}

// mergeSpecs dedupes targets by normalized path (seed 002 edge case 1):
// regions and symbols of duplicates are merged, the strongest reason kept,
// and each duplicate mention recorded as excluded "duplicate" when it was
// written differently.
func (p *pipeline) mergeSpecs(specs []*targetSpec) map[string]*targetSpec {
	out := map[string]*targetSpec{}
	for _, s := range specs {
		t, ok := out[s.rel]
		if !ok {
			c := *s
			if s.lines != [2]int{} {
				c.linesList = [][2]int{s.lines}
			}
			out[s.rel] = &c
			continue
		}
		if s.weight > t.weight || s.weight == t.weight && s.reason == ReasonTarget {
			t.reason, t.weight = s.reason, s.weight
		}
		if s.lines != [2]int{} {
			t.linesList = append(t.linesList, s.lines)
		}
		if s.sel != nil {
			t.sel = s.sel
		}
		for k := range s.byName {
			if t.byName == nil {
				t.byName = map[string]struct{}{}
			}
			t.byName[k] = struct{}{}
		}
		if file, _, _ := splitLines(s.written); file != s.rel {
			p.excluded = append(p.excluded, Excluded{Path: file, Reason: ExcludeDuplicate})
		}
	}
	return out
}

// lookupTarget finds a target in the index. A path excluded by a never-send
// rule is recorded and skipped (nil, nil); every other reason not to read
// a target is a refusal.
func (p *pipeline) lookupTarget(s *targetSpec) (*index.File, error) {
	if f, ok := p.root.File(s.rel); ok {
		return f, nil
	}
	sk, ok := p.root.Skip(s.rel)
	if !ok {
		return nil, &Refusal{Code: RefuseTargetNotFound, Message: fmt.Sprintf("target %s does not exist in the workspace index", s.rel), Advice: "check the path (it is relative to the workspace folder) or save the file first"}
	}
	detail := sk.Detail
	if detail == "" {
		detail = string(sk.Reason)
	}
	switch sk.Reason {
	case index.SkipDenyRule:
		p.exclude(s.rel, ExcludeDenyRule, RedactPathExcluded, RedactReasonDenyRule, detail)
		return nil, nil
	case index.SkipOutsideSandbox:
		if index.IsHardLinkSkip(sk) {
			return nil, &Refusal{Code: RefuseOutsideSandbox, Message: fmt.Sprintf("target %s is %s, so ctxd does not read it", s.rel, index.HardLinkReason), Advice: index.HardLinkAdvice}
		}
		return nil, outside(s.rel)
	case index.SkipTooLarge:
		return nil, &Refusal{Code: RefuseContextTooLarge, Message: fmt.Sprintf("target %s is larger than the indexing size cap (%s)", s.rel, detail), Advice: "narrow the scope: choose a smaller file, or raise --max-file-size if the file really must be sent"}
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

// exclude records a hard exclusion in the manifest and the redaction
// report.
func (p *pipeline) exclude(rel string, why ExcludeReason, typ RedactionType, reason RedactionReason, details string) {
	p.excluded = append(p.excluded, Excluded{Path: rel, Reason: why})
	p.redacts = append(p.redacts, Redaction{Type: typ, Target: rel, Reason: reason, Details: details})
}

// resolveSymbols resolves the plan step's target symbols to their
// definitions: the definition files become targets with those symbols. A
// name with several definitions is narrowed by the user's selection or by
// the plan step's own target files (the plan says where); still several,
// it is refused with the candidates, never guessed.
func (p *pipeline) resolveSymbols(byPath map[string]*targetSpec) error {
	if p.req.PlanStep == nil {
		return nil
	}
	g := p.root.Graph()
	for _, name := range p.req.PlanStep.TargetSymbols {
		defs := g.Definitions(name)
		if len(defs) == 0 {
			return &Refusal{Code: RefuseTargetNotFound, Message: fmt.Sprintf("target symbol %q has no definition in the workspace index", name), Advice: "check the name (a qualified name such as Type.Method also works) or name the file instead"}
		}
		chosen := defs
		if len(defs) > 1 {
			var narrowed []int
			for i, d := range defs {
				if s, ok := byPath[d.Path]; ok && (s.reason == ReasonTarget || s.byName != nil && hasName(s.byName, d)) {
					narrowed = append(narrowed, i)
				}
			}
			if len(narrowed) == 0 || len(narrowed) > 1 && !p.userChose(defs, narrowed) {
				return p.ambiguous(name, defs)
			}
			chosen = nil
			for _, i := range narrowed {
				chosen = append(chosen, defs[i])
			}
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

// userChose reports whether every narrowed definition was picked by the
// user explicitly (path and symbol), which makes several choices
// deliberate rather than ambiguous.
func (p *pipeline) userChose(defs []relateRef, idx []int) bool {
	for _, i := range idx {
		found := false
		for _, u := range p.req.UserSelectedTargets {
			if u.Symbol != "" && path.Clean(filepath.ToSlash(u.Path)) == defs[i].Path && (u.Symbol == defs[i].QualifiedName || u.Symbol == defs[i].Name) {
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
	_, a := names[d.QualifiedName]
	_, b := names[d.Name]
	return a || b
}

// ambiguous refuses a symbol name with several definitions, listing them.
func (p *pipeline) ambiguous(name string, defs []relateRef) error {
	var cands []Candidate
	for _, d := range defs {
		syn := p.root.Syntax(d.Path)
		c := Candidate{Path: d.Path, Symbol: d.QualifiedName, Kind: string(d.Kind)}
		if syn != nil && d.Index < len(syn.Symbols) {
			c.Range = p.lspRange(d.Path, syn.Symbols[d.Index].Range)
		}
		cands = append(cands, c)
	}
	return &Refusal{
		Code:       RefuseAmbiguousTarget,
		Message:    fmt.Sprintf("target symbol %q has %d definitions; ctxd does not guess which one is meant", name, len(defs)),
		Advice:     "choose one of the candidates and retry with it in user_selected_targets ({path, symbol})",
		Candidates: cands,
	}
}

// lspRange converts a syntax range to the negotiated position encoding.
// Without the text (unreadable) it falls back to byte columns.
func (p *pipeline) lspRange(rel string, r syntax.Range) position.Range {
	text, err := p.root.ReadText(rel)
	if err != nil {
		return position.Range{Start: position.Position{Line: r.Start.Line, Character: r.Start.Column}, End: position.Position{Line: r.End.Line, Character: r.End.Column}}
	}
	m := position.NewMapper(text, p.enc)
	return position.Range{Start: m.Position(int(r.StartByte)), End: m.Position(int(r.EndByte))}
}

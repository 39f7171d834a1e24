package contextbuilder

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/ctxd/ctxd/handlers/position"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/index/syntax"
)

// read loads an item's text: the editor's buffer for an open document,
// else the disk, verified against the indexed sha256. A file changed since
// indexing yields a staleError (the build restarts on a refreshed
// snapshot); any other failure is returned.
func (p *pipeline) read(it *item) error {
	if it.text != nil {
		return nil
	}
	if t, ok := p.texts[it.path]; ok {
		it.text, it.li = t.text, t.li
		return nil
	}
	text, err := p.root.ReadText(it.path)
	if errors.Is(err, index.ErrStale) {
		return &staleError{uris: []string{p.root.URIOf(it.path)}}
	}
	if err != nil {
		return err
	}
	if text == nil {
		text = []byte{}
	}
	it.text = text
	it.li = newLineIndex(text)
	if p.texts == nil {
		p.texts = map[string]fileText{}
	}
	p.texts[it.path] = fileText{it.text, it.li}
	return nil
}

// fileText is a file read once per build and shared by its items.
type fileText struct {
	text []byte
	li   *lineIndex
}

// loadTargets reads every target (collecting all stale files before
// restarting once), computes target regions from the selection, line
// ranges and target symbols, and derives the target symbols enclosing the
// selection.
func (p *pipeline) loadTargets() error {
	var stale []string
	for _, t := range p.targets {
		err := p.read(t)
		var se *staleError
		switch {
		case errors.As(err, &se):
			stale = append(stale, se.uris...)
			continue
		case err != nil:
			return &Refusal{Code: RefuseUnsupportedTarget, Message: fmt.Sprintf("target %s cannot be read: %s", t.path, readProblem(err)), Advice: "check that the file exists and is readable, then retry"}
		}
	}
	if len(stale) > 0 {
		return &staleError{uris: stale}
	}
	syms := map[string]bool{}
	for _, t := range p.targets {
		if err := p.targetRegions(t); err != nil {
			return err
		}
		syn := p.root.Syntax(t.path)
		for _, i := range t.symIdxs {
			syms[syn.Symbols[i].QualifiedName] = true
		}
		t.levels = []Level{LevelFull}
		if len(t.regions) > 0 {
			t.levels = append(t.levels, LevelRegion)
		}
	}
	p.symbols = slices.Sorted(maps.Keys(syms))
	return nil
}

// targetRegions fills t.regions and adds the symbols enclosing each
// selection or line range to t.symIdxs. Symbol boundaries are used only
// when the file parsed without errors; a selection or line range is
// always exact.
func (p *pipeline) targetRegions(t *item) error {
	syn := p.root.Syntax(t.path)
	ok := reliable(syn)
	var picks []span
	if t.spec.sel != nil {
		m := position.NewMapper(t.text, p.enc)
		start, end, err := m.OffsetRange(*t.spec.sel)
		if err != nil {
			return fmt.Errorf("%w: field \"selection.range\": %v", ErrInvalidRequest, err)
		}
		picks = append(picks, span{start, end})
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

// enclosing returns the target symbols of a selection: the innermost
// function or type containing it (any symbol when no function or type
// does); for a selection spanning several declarations, the outermost
// declarations it overlaps.
func enclosing(syms []syntax.Symbol, s span) []int {
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
		major := isFuncLike(syms[i].Kind) || isTypeLike(syms[i].Kind)
		if best < 0 || major && !bestMajor || major == bestMajor && size(syms[i].Range) < size(syms[best].Range) {
			best, bestMajor = i, major
		}
	}
	if best >= 0 {
		return []int{best}
	}
	var over []int
	for i := range syms {
		r := syms[i].Range
		if int(r.StartByte) < s.end && int(r.EndByte) > s.start {
			over = append(over, i)
		}
	}
	var out []int
	for _, i := range over {
		inner := false
		for _, j := range over {
			if j != i && syms[j].Range.StartByte <= syms[i].Range.StartByte && syms[j].Range.EndByte >= syms[i].Range.EndByte && size(syms[j].Range) > size(syms[i].Range) {
				inner = true
				break
			}
		}
		if !inner {
			out = append(out, i)
		}
	}
	return out
}

func size(r syntax.Range) uint32 { return r.EndByte - r.StartByte }

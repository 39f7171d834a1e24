package syntax

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
)

// Parse parses src as lang and extracts its [File]. It is safe for
// concurrent use: parsers are pooled per language and every call uses its
// own tree and query cursor, closed before Parse returns. It returns an
// error wrapping [ErrUnsupported] for a Language without extraction (the
// empty Language included), and one wrapping ctx.Err() when ctx is done
// before or during the parse. A file with syntax errors is not an error:
// File.HasErrors reports it.
func Parse(ctx context.Context, lang Language, src []byte) (*File, error) {
	if lang == XAML {
		f, err := parseXAML(ctx, src)
		if f != nil {
			f.Uses = compactUses(f.Uses)
		}
		return f, err
	}
	if lang != Go {
		return parseTree(ctx, lang, src)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("parsing %s: %w", lang, err)
	}
	af, ok := goParse(src)
	if ok {
		return goFromAST(af, src), nil
	}
	s, q, tree, err := treeOf(ctx, lang, src)
	if err != nil {
		return nil, err
	}
	defer tree.Close()
	return extractGoTree(s, q, tree, src, af), nil
}

// parseTree is Parse with tree-sitter, whatever the language.
func parseTree(ctx context.Context, lang Language, src []byte) (*File, error) {
	s, q, tree, err := treeOf(ctx, lang, src)
	if err != nil {
		return nil, err
	}
	defer tree.Close()
	return extract(s, q, tree, src), nil
}

// treeOf parses src with tree-sitter as lang; the caller closes the tree.
func treeOf(ctx context.Context, lang Language, src []byte) (*spec, *compiledQuery, *sitter.Tree, error) {
	s, err := lookup(lang)
	if err != nil {
		return nil, nil, nil, err
	}
	q, err := s.compiled()
	if err != nil {
		return nil, nil, nil, err
	}
	tree, err := s.parse(ctx, nil, src)
	if err != nil {
		return nil, nil, nil, err
	}
	return s, q, tree, nil
}

// compiledQuery is a language's query, compiled once and shared by every
// goroutine: a TSQuery is immutable once built.
type compiledQuery struct {
	q *sitter.Query
	// caps maps a capture index to what the extractor does with it.
	caps []capture
	// hasPred marks the patterns with predicates, the only ones that need
	// filtering (FilterPredicates allocates and compiles regexps on every
	// call); preds are their predicates.
	hasPred []bool
	preds   [][]predicate
}

// compiled returns the language's query, compiling it on first use.
func (s *spec) compiled() (*compiledQuery, error) {
	s.once.Do(func() {
		s.query, s.err = compileQuery(s)
	})
	return s.query, s.err
}

// querySource concatenates the language's query files.
func querySource(s *spec) ([]byte, error) {
	var b strings.Builder
	for _, name := range s.queries {
		data, err := queryFS.ReadFile("queries/" + name)
		if err != nil {
			return nil, fmt.Errorf("reading query %s: %w", name, err)
		}
		b.Write(data)
		b.WriteByte('\n')
	}
	return []byte(b.String()), nil
}

func compileQuery(s *spec) (*compiledQuery, error) {
	src, err := querySource(s)
	if err != nil {
		return nil, err
	}
	q, err := sitter.NewQuery(src, s.grammar())
	if err != nil {
		return nil, fmt.Errorf("compiling %s query: %w", s.lang, err)
	}
	cq := &compiledQuery{q: q}
	for i := range q.CaptureCount() {
		name := q.CaptureNameForId(i)
		c, ok := parseCapture(name)
		if !ok {
			q.Close()
			return nil, fmt.Errorf("compiling %s query: unknown capture @%s", s.lang, name)
		}
		cq.caps = append(cq.caps, c)
	}
	for i := range q.PatternCount() {
		cq.hasPred = append(cq.hasPred, len(q.PredicatesForPattern(i)) > 0)
	}
	if cq.preds, err = compilePredicates(q); err != nil {
		q.Close()
		return nil, fmt.Errorf("compiling %s query: %w", s.lang, err)
	}
	return cq, nil
}

// parse parses src with a pooled parser, reusing old (already edited) when
// not nil. The caller closes the tree.
func (s *spec) parse(ctx context.Context, old *sitter.Tree, src []byte) (*sitter.Tree, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("parsing %s: %w", s.lang, err)
	}
	p := s.pool.get(s)
	tree, err, poisoned := parseWith(ctx, p, old, src)
	if poisoned {
		// A cancelled parse leaves the parser in a state where the next parse
		// of other input returns garbage, and go-tree-sitter's watcher
		// goroutine may still raise its cancellation flag: Reset is not
		// enough to trust it again, so it is dropped.
		p.Reset()
		p.Close()
	} else {
		s.pool.put(p)
	}
	if err != nil {
		return nil, fmt.Errorf("parsing %s: %w", s.lang, err)
	}
	return tree, nil
}

// parseWith runs one parse. poisoned reports that the parser must not be
// reused.
//
// go-tree-sitter's ParseCtx starts a goroutine that raises the parser's
// cancellation flag when ctx is done, and nothing lowers it again unless the
// parse itself fails: if ctx is cancelled just as a parse completes, the flag
// stays up and every later parse with that parser fails. So the parser is
// given a gate context whose Done channel closes only if ctx is cancelled
// while the parse runs; when it did, the parser is poisoned.
func parseWith(ctx context.Context, p *sitter.Parser, old *sitter.Tree, src []byte) (tree *sitter.Tree, err error, poisoned bool) {
	if ctx.Done() == nil {
		// Never cancelled: go-tree-sitter starts no goroutine.
		tree, err = p.ParseCtx(ctx, old, src)
		return tree, err, err != nil
	}
	g := &gate{Context: ctx, done: make(chan struct{})}
	stop := context.AfterFunc(ctx, g.fire)
	tree, err = p.ParseCtx(g, old, src)
	stop()
	if g.close() {
		if tree != nil {
			tree.Close()
		}
		return nil, ctx.Err(), true
	}
	return tree, err, err != nil
}

// gate is a context for one parse: done while the parse runs if its parent
// is, and never after.
type gate struct {
	context.Context
	done chan struct{}

	mu     sync.Mutex
	err    error
	closed bool
}

func (g *gate) Done() <-chan struct{} { return g.done }

func (g *gate) Err() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.err
}

// fire cancels the parse unless it has finished.
func (g *gate) fire() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.closed {
		g.err = g.Context.Err()
		close(g.done)
	}
}

// close ends the parse and reports whether it was cancelled.
func (g *gate) close() (fired bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	return g.err != nil
}

// parserPool keeps idle parsers of one language. sync.Pool is not used: it
// drops items without closing them, leaving their C memory to finalizers.
type parserPool struct {
	mu   sync.Mutex
	idle []*sitter.Parser
}

func (pp *parserPool) get(s *spec) *sitter.Parser {
	pp.mu.Lock()
	if n := len(pp.idle); n > 0 {
		p := pp.idle[n-1]
		pp.idle = pp.idle[:n-1]
		pp.mu.Unlock()
		return p
	}
	pp.mu.Unlock()
	p := sitter.NewParser()
	p.SetLanguage(s.grammar())
	return p
}

// put returns p to the pool, or closes it when the pool already holds a
// parser for every processor.
func (pp *parserPool) put(p *sitter.Parser) {
	pp.mu.Lock()
	if len(pp.idle) < runtime.GOMAXPROCS(0) {
		pp.idle = append(pp.idle, p)
		p = nil
	}
	pp.mu.Unlock()
	if p != nil {
		p.Close()
	}
}

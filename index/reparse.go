package index

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"weak"

	"github.com/ctxd/ctxd/index/buffer"
	"github.com/ctxd/ctxd/index/syntax"
)

// The background parser of open documents.
//
// A didChange must cost the notification loop a byte splice, a sha256 and
// a line count, never a parse: on a large buffer full of syntax errors one
// parse takes tens of milliseconds (a fresh parse follows every
// incremental one that leaves errors, see [syntax.Doc.Edit]), and an edit
// storm of thousands of changes parsed one by one on the loop stalled every
// request behind it. So [Index.ChangeDocument] publishes the new text at
// once with an extraction cell that is still pending, and hands the edits
// to the document's docParser, whose worker goroutine owns the parse tree:
//
//   - Coalescing: the worker takes every version queued since its last
//     parse and parses only the newest (or the oldest one a reader waits
//     for), with all their edits applied in order to the kept tree, so a
//     burst of changes costs one incremental reparse, not one each.
//   - Exact versions: every version has its own cell. A reader of version v
//     (a build, documentSymbol, the relation graph) waits for the worker
//     when v is being parsed, or queued behind a cheap parse, and parses
//     v's text itself, from scratch, when the worker went past it or is
//     busy with a text full of syntax errors (see docVersion.syntax). It
//     never sees another version's extraction, and readers never touch
//     the tree. (A request does not always read the cell: see "Slow
//     documents" below.)
//   - Time budget and cancellation: each parse runs under a context that
//     closing or reopening the document, or closing the index, cancels, and
//     that expires after parseBudget; go-tree-sitter's ParseCtx turns either
//     into tree-sitter's cancellation flag, so the C parse stops promptly.
//     A parse that does not finish drops the kept tree; its readers parse
//     the text themselves, under the same budget, and the next version
//     is parsed from scratch.
//
// A running parse of a document whose parses are fast is not cancelled
// when newer text arrives: during a storm every parse would be restarted
// before it finished. Finishing it bounds how stale the kept tree gets to
// one parse, and the next parse takes all the changes made meanwhile in
// one go.
//
// Slow documents: a document whose last parse took longer than slowParse,
// or overran its budget, is slow (a large buffer full of syntax errors,
// on which tree-sitter's error recovery takes up to a second). Its
// requests never wait for a parse: a request for a version whose
// extraction is not ready reads the version's stale extraction instead
// (docVersion.staleSyntax: the last completed parse when the version was
// added, its ranges mapped through the edits made since), or none when no
// parse ever completed. A newer version cancels the worker's parse of a
// slow document, and the worker lets its changes settle for as long as
// its last parse took (at most slowSettle), however many versions are
// wanted: a parse per keystroke that the next keystroke cancels would
// keep a core busy for nothing. During continuous typing or a storm the
// changes never settle: once the oldest change the worker has not taken
// is slowOverdue old, it parses the newest version and lets it finish,
// so the stale extraction falls behind by at most about that plus one
// parse. Whether a document is slow is timing, so which version's syntax
// a request reads is too; the budget report names both versions, and the
// same two versions give the same bytes.
//
// Settling: while nobody waits for a version, the worker lets the changes
// settle for settleDelay after the newest one before it parses, and never
// longer than maxSettle after the oldest one it has not taken. A parse that
// the next keystroke would make stale is work nobody reads; worse, on a
// machine with two cores a parse running while the next change arrives
// takes the core the notification loop needs (the Go scheduler preempts a
// running goroutine only after 10 ms), and its garbage brings the
// collector's assists onto the loop. A reader never waits for the delay:
// wanting a version wakes the worker at once.

// parseBudget bounds the tree-sitter parses of one background reparse of
// an open document. A 1 MiB file, the default size cap, parses in well
// under a second even with syntax errors; a parse that takes longer is
// pathological, and a reader that needs the result parses it itself
// rather than wait behind a worker that may never finish.
//
// The budget is a context deadline, which go-tree-sitter's ParseCtx turns
// into tree-sitter's cancellation flag, rather than the parser's own
// timeout (Parser.SetOperationLimit, ts_parser_set_timeout_micros): the
// parsers are pooled and shared with the scans, whose parses must not
// inherit it, and one deadline covers both parses of an Edit whose
// incremental result has errors.
//
// A variable so that a test can make every parse overrun it.
var parseBudget = 2 * time.Second

// settleDelay and maxSettle pace the worker while nobody waits (see
// "Settling" above). Typing leaves 60 ms or more between keystrokes, so a
// typed change is parsed settleDelay after it; a burst of changes (a paste
// replayed as edits, a formatter, an edit storm) is parsed at least every
// maxSettle. Variables so that a test can make the wait endless.
var (
	settleDelay = 15 * time.Millisecond
	maxSettle   = 250 * time.Millisecond
)

// slowParse is how long a worker's parse may take for the document's
// requests to keep waiting for the next one (see "Slow documents" above);
// slowSettle caps the settling of a slow document's changes, and after
// slowOverdue since the oldest change it has not taken, the worker parses
// a slow document without letting newer versions cancel the parse.
//
// slowParse is what a keystroke's request may wait for and stay within
// issue 31's goal (a keystroke and ctxd.budget in 0.02x of ctags -R on
// GOROOT/src, about 46 ms, the budget's own work included): a clean
// 5,000-line Go file reparses incrementally in a few milliseconds, while a
// 43 KB buffer full of syntax errors takes 150 ms to a second. Variables
// so that a test can make every document slow or none.
var (
	slowParse   = 50 * time.Millisecond
	slowSettle  = time.Second
	slowOverdue = 5 * time.Second
)

// parseHook, when a test sets it, runs on the worker before each parse
// with the document and the text about to be parsed: tests hold the
// worker back or count its parses, rather than time anything.
var parseHook atomic.Pointer[func(uri string, text []byte)]

// maxPreciseEdits is how many edits a coalesced batch may hold and still
// reach tree-sitter one by one. Each edit costs a splice of the whole text
// and a scan for its row; beyond this many, the batch is described as one
// full-content change (the span between the common prefix and suffix of
// the two texts), which is what a storm of edits all over the file amounts
// to anyway.
const maxPreciseEdits = 64

// docParser owns one open document's parse tree and brings it to the
// document's latest text in the background. It is shared by every version
// of the document (they are immutable values; the parser is the one
// mutable thing behind them) and closed when the document is closed or
// replaced.
type docParser struct {
	x    *Index
	uri  string
	lang syntax.Language
	// ctx is cancelled by Close: it ends a running parse.
	ctx    context.Context
	cancel context.CancelFunc
	budget time.Duration // parseBudget when the document was opened

	mu      sync.Mutex
	queue   []pending   // versions the worker has not taken, oldest first
	latest  *docVersion // the newest version: the one the queue holds strongly
	running bool        // a worker goroutine runs
	closed  bool
	// costly reports that the worker's last parse had syntax errors,
	// so that its next one will most likely be an incremental parse
	// followed by one from scratch (see [syntax.Doc.Edit]), or overran
	// its budget.
	costly bool

	// wake, while the worker waits for changes to settle, is closed to
	// end the wait early (a version is wanted, or the parser closed).
	wake chan struct{}

	// slow reports that the worker's last parse took longer than
	// slowParse, overran its budget or failed: the document is one whose
	// requests do not wait for a parse (see "Slow documents" above).
	// lastDur is how long that parse took (the budget when it failed);
	// it paces the worker while the document is slow.
	slow    bool
	lastDur time.Duration
	// stop, while the worker parses a slow document, cancels that parse:
	// a newer version supersedes it.
	stop context.CancelFunc
	// last is the worker's last completed parse, and log the edits that
	// lead from its text to the latest version's, in order: each new
	// version records both (docVersion.base), the stale extraction its
	// requests read while it is not parsed.
	last *completed
	log  []Edit

	// doc is the kept parse: the text of the last version the worker
	// parsed, its tree and its extraction; nil before the first parse and
	// after a failed one. Only the worker touches it, or Close when no
	// worker runs.
	doc *syntax.Doc
}

// docVersion is one text of an open document as its parser sees it, and
// the cell of its extraction, which [Document.Syntax] and the root's
// [File.Syntax] share.
type docVersion struct {
	p    *docParser
	text *buffer.Text
	cell *syntaxCell
	// version is the editor's version number of the text.
	version int32
	// ctx is cancelled when a newer version is added (or the parser
	// closes): it ends a reader's own parse of a slow document's version
	// that nobody will read next.
	ctx    context.Context
	cancel context.CancelFunc
	// base is the parser's last completed parse when this version was
	// added (nil when none had completed) and baseEdits the edits from
	// its text to this one: fixed when the version is made, so that its
	// stale extraction (see docVersion.staleSyntax) is a pure function
	// of the two versions.
	base      *completed
	baseEdits []Edit
	staleOnce sync.Once
	stale     *syntax.File

	// Guarded by p.mu until done is closed, then immutable.
	wanted bool // a reader waits for it, or a request holds it (Pin)
	state  versionState
	file   *syntax.File
	done   chan struct{}
}

// completed is a parse the worker finished: the extraction of one
// version's text.
type completed struct {
	file    *syntax.File
	version int32
	size    int // the text's length in bytes
}

// pending is a queued version as the worker needs it: the edits that made
// it from the previous version's text, and when it arrived. The queue
// holds the version itself weakly (docParser.latest keeps the newest one,
// whose text the worker parses next): during a storm of changes, each
// superseded version (its chunks of the text that no other version
// shares, and a flat copy if a reader made one) is freed as soon as no
// snapshot or request holds it. When versions were flat copies, a
// 5,000-line buffer's 250 ms of changes kept 33 MB of them alive. A
// version that someone holds is still found, wanted or not, and settled
// like any other.
type pending struct {
	w     weak.Pointer[docVersion]
	edits []Edit    // from the previous version's text; nil for the first
	at    time.Time // when it was queued: paces the worker, never output
}

// version is the queued version, nil when nobody holds it any more.
func (q pending) version() *docVersion { return q.w.Value() }

// versionState says where a version is in its parser.
type versionState uint8

const (
	// queued: not yet taken by the worker.
	queued versionState = iota
	// parsing: the worker is parsing it.
	parsing
	// parsed: file is its extraction.
	parsed
	// passed: the worker went past it (a later version was parsed
	// instead, or its parse failed, or the parser was closed); a reader
	// parses the text itself.
	passed
	// claimed: a reader parses it itself while the worker is busy; the
	// worker passes it over without settling it.
	claimed
)

// newDocParser returns the parser of a newly opened document and the
// first version, text, which it starts parsing at once.
func (x *Index) newDocParser(uri string, lang syntax.Language, version int32, text *buffer.Text) (*docParser, *docVersion) {
	ctx, cancel := context.WithCancel(context.Background())
	budget := x.opts.ParseBudget
	if budget <= 0 {
		budget = parseBudget
	}
	p := &docParser{x: x, uri: uri, lang: lang, ctx: ctx, cancel: cancel, budget: budget}
	return p, p.add(version, text, nil)
}

// add queues the version that edits made of the previous one, text, and
// wakes the worker. It never parses; it cancels the worker's parse of a
// slow document, which this version supersedes.
func (p *docParser) add(version int32, text *buffer.Text, edits []Edit) *docVersion {
	v := &docVersion{p: p, text: text, version: version, done: make(chan struct{})}
	v.ctx, v.cancel = context.WithCancel(p.ctx)
	v.cell = pendingCell(v.syntax)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		v.resolve(passed, nil)
		return v
	}
	if p.latest != nil {
		p.latest.cancel()
	}
	if p.stop != nil {
		p.stop()
		p.stop = nil
	}
	// The log may only grow while versions share it: appending never
	// changes the edits an earlier version's slice holds. Without a
	// completed parse there is nothing to map, and no log to keep.
	if p.last != nil {
		p.log = append(p.log, edits...)
		v.base, v.baseEdits = p.last, p.log[:len(p.log):len(p.log)]
	}
	p.latest = v
	p.queue = append(p.queue, pending{w: weak.Make(v), edits: edits, at: time.Now()})
	p.startLocked()
	return v
}

// want asks the worker not to go past v: a reader needs it, or a request
// that will read it was received (see [Index.Pin]).
func (p *docParser) want(v *docVersion) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.slow {
		// Its requests read a stale extraction rather than wait: waking
		// the worker for each would start a parse per keystroke.
		return
	}
	if v.state == queued && !v.wanted {
		v.wanted = true
		p.wakeLocked()
		p.startLocked()
	}
}

// wakeLocked ends the worker's wait for changes to settle, if it waits.
// Callers hold p.mu.
func (p *docParser) wakeLocked() {
	if p.wake != nil {
		close(p.wake)
		p.wake = nil
	}
}

// settleLocked returns how long the worker should still let the queued
// changes settle before it parses: zero when a version is wanted or the
// delays have passed. Callers hold p.mu and a non-empty queue.
func (p *docParser) settleLocked(now time.Time) time.Duration {
	if p.slow {
		// Nobody waits: the changes settle for as long as the last
		// parse took, so that typing does not start parses that the
		// next keystroke cancels; but the stale extraction is brought
		// up to date at least every slowOverdue (see run).
		until := p.queue[len(p.queue)-1].at.Add(min(max(p.lastDur, settleDelay), slowSettle))
		if overdue := p.queue[0].at.Add(slowOverdue); overdue.Before(until) {
			until = overdue
		}
		return max(until.Sub(now), 0)
	}
	if slices.ContainsFunc(p.queue, func(q pending) bool { v := q.version(); return v != nil && v.wanted }) {
		return 0
	}
	newest, oldest := p.queue[len(p.queue)-1].at, p.queue[0].at
	until := newest.Add(settleDelay)
	if limit := oldest.Add(maxSettle); limit.Before(until) {
		until = limit
	}
	return max(until.Sub(now), 0)
}

// startLocked starts the worker when there is work and none runs. Callers
// hold p.mu.
func (p *docParser) startLocked() {
	if p.running || p.closed || len(p.queue) == 0 {
		return
	}
	p.running = true
	// Index.Close waits for the workers after closing every open
	// document's parser; no worker starts once its parser is closed.
	p.x.wg.Add(1)
	go p.run()
}

// Close cancels a running parse, passes every queued version to its
// readers and frees the tree. It may be called more than once.
func (p *docParser) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.closed = true
	p.wakeLocked()
	p.cancel()
	p.stop = nil
	for _, q := range p.queue {
		if v := q.version(); v != nil && v.state == queued {
			v.resolve(passed, nil)
		}
	}
	p.queue, p.latest = nil, nil
	if !p.running {
		p.free()
	}
}

// free closes the kept tree. Only the worker calls it, or Close when no
// worker runs.
func (p *docParser) free() {
	if p.doc != nil {
		p.doc.Close()
		p.doc = nil
	}
}

// run is the worker: it parses until the queue is empty, taking a batch of
// versions each time, and exits; the next add starts a new one.
func (p *docParser) run() {
	defer p.x.wg.Done()
	for {
		p.mu.Lock()
		if p.closed || len(p.queue) == 0 {
			p.running = false
			if p.closed {
				p.free()
			}
			p.mu.Unlock()
			return
		}
		if wait := p.settleLocked(time.Now()); wait > 0 {
			wake := make(chan struct{})
			p.wake = wake
			p.mu.Unlock()
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-wake:
			}
			t.Stop()
			p.mu.Lock()
			if p.wake == wake {
				p.wake = nil
			}
			p.mu.Unlock()
			continue
		}
		// The oldest version a reader waits for, else the newest: the
		// versions before it are passed, their edits applied on the way.
		// Versions nobody holds are never wanted, and the newest is
		// always held, so the target is found.
		i := -1
		if !p.slow {
			// A slow document's readers do not wait: the newest.
			i = slices.IndexFunc(p.queue, func(q pending) bool {
				v := q.version()
				return v != nil && v.wanted && v.state == queued
			})
		}
		if i < 0 {
			i = len(p.queue) - 1
		}
		batch := p.queue[:i+1]
		p.queue = slices.Clone(p.queue[i+1:])
		for _, q := range batch[:i] {
			if v := q.version(); v != nil && v.state == queued {
				v.resolve(passed, nil)
			}
		}
		target := batch[i].version()
		if target.state == queued {
			target.state = parsing
		}
		// A slow document's parse is cancelled by a newer version,
		// unless its changes are overdue: during a storm or continuous
		// typing every parse would be cancelled, and the requests' stale
		// extraction would never move on.
		overdue := !time.Now().Before(batch[0].at.Add(slowOverdue))
		ctx, stop := p.ctx, context.CancelFunc(func() {})
		if p.slow && !overdue {
			ctx, stop = context.WithCancel(p.ctx)
			p.stop = stop
		}
		p.mu.Unlock()

		f, took := p.parse(ctx, batch, target)
		stop()

		p.mu.Lock()
		p.stop = nil
		p.costly = f == nil || f.HasErrors
		switch {
		case f != nil:
			p.slow, p.lastDur = took > slowParse, took
			p.last = &completed{file: f, version: target.version, size: target.text.Len()}
			// The queue holds exactly the versions after the target:
			// their edits lead from its text to the latest. A new
			// slice: the versions made so far keep the old log.
			var log []Edit
			for _, q := range p.queue {
				log = append(log, q.edits...)
			}
			p.log = log
		case ctx.Err() != nil && p.ctx.Err() == nil:
			// Superseded by a newer version: the document stays slow.
		case p.ctx.Err() != nil:
			// Ended by closing the document: it says nothing of the
			// document's parses. Counting it over budget made the
			// document slow, and so cancelled the readers' own parses
			// of its versions, which closing must not end.
		default:
			// Over its budget, or failed.
			p.slow, p.lastDur = true, p.budget
		}
		settled := target.state == parsing
		switch {
		case !settled:
			// Claimed: its reader parses it itself; this parse only
			// moved the tree on for the next batch.
		case f != nil:
			target.resolve(parsed, f)
		default:
			target.resolve(passed, nil)
		}
		p.mu.Unlock()
		if f != nil && settled {
			// Fills the cell (it returns at once), so that File.Parsed
			// reports the version parsed.
			target.cell.get()
		}
	}
}

// parse brings the kept parse to target, the last version of batch:
// incrementally, with every edit of the batch described to tree-sitter, or
// from scratch when there is no kept tree, under parent (the parser's
// context, or one that a newer version cancels) and the parse budget. It
// returns nil when the parse failed or was cancelled; the kept tree is
// then dropped, since the next batch's edits start from a text it does not
// have. took is how long the parse ran (a test's parse hook excluded).
func (p *docParser) parse(parent context.Context, batch []pending, target *docVersion) (f *syntax.File, took time.Duration) {
	text := target.text.Bytes()
	if h := parseHook.Load(); h != nil {
		(*h)(p.uri, text)
	}
	start := time.Now()
	defer func() { took = time.Since(start) }()
	ctx, cancel := context.WithTimeout(parent, p.budget)
	defer cancel()
	if p.lang == syntax.XAML {
		// XAML is read by a tokenizer, not a grammar (syntax/xaml.go):
		// there is no tree to keep, each version is read afresh.
		f, err := syntax.Parse(ctx, p.lang, text)
		if err != nil {
			return nil, 0
		}
		return f, 0
	}
	var next *syntax.Doc
	var err error
	if p.doc != nil {
		var edits []Edit
		for _, q := range batch {
			edits = append(edits, q.edits...)
		}
		if len(edits) > maxPreciseEdits {
			edits = []Edit{{Full: true, Text: string(text)}}
		}
		next, err = p.doc.Edit(ctx, edits)
		switch {
		case errors.Is(err, syntax.ErrEditRange), err == nil && !bytes.Equal(next.Text(), text):
			// The queue's edits do not lead from the kept text to the
			// target's: a bug, never a reason to publish a wrong
			// extraction. The text is parsed from scratch.
			p.x.log.Error("open document's edits do not match its text; parsing it from scratch", "uri", p.uri, "err", err)
			if err == nil && next != p.doc {
				next.Close()
			}
			next, err = nil, nil
		}
	}
	if next == nil && err == nil {
		next, err = syntax.NewDoc(ctx, p.lang, text)
	}
	if err != nil {
		if parent.Err() == nil {
			p.x.log.Warn("parsing open document failed; readers parse it themselves", "uri", p.uri, "bytes", len(text), "err", err)
		}
		p.free()
		return nil, 0
	}
	if next != p.doc {
		p.free()
		p.doc = next
	}
	return next.File(), 0
}

// resolve settles v and wakes its readers. Callers hold v.p.mu.
func (v *docVersion) resolve(s versionState, f *syntax.File) {
	v.state, v.file = s, f
	close(v.done)
}

// syntax is the load function of v's cell: the worker's extraction of v,
// or a parse of v's own text from scratch, which touches no tree the worker
// owns, when the worker went past v. A reader whose version is still
// queued behind a worker busy with a text that has syntax errors claims it
// and parses it itself rather than wait: each of the worker's parses then
// costs an incremental parse and one from scratch (or overran its budget),
// and the readers of
// several versions (one per request of an edit storm) would otherwise
// queue behind one goroutine while the other processors idle. Behind
// clean parses, which take a few milliseconds, waiting is cheaper; a slow
// document's worker parses only its newest version, so its readers always
// claim theirs.
//
// The reader's own parse runs under the parse budget, as the worker's
// does, and for a slow document a newer version cancels it: a version
// whose parse overran the budget, or was superseded, has no extraction
// (nil), and the requests that read it get the text-level answers or the
// stale extraction (see [Index.WithDocuments]).
func (v *docVersion) syntax() *syntax.File {
	p := v.p
	p.mu.Lock()
	if v.state == queued && (p.slow || p.running && p.costly) {
		v.state = claimed
	} else if v.state == queued && !v.wanted {
		v.wanted = true
		p.wakeLocked()
		p.startLocked()
	}
	st := v.state
	p.mu.Unlock()
	if st != claimed {
		<-v.done
		if v.state == parsed {
			return v.file
		}
	}
	// Closing the document ends the worker's parse, not its readers'.
	parent := context.Background()
	p.mu.Lock()
	if p.slow {
		parent = v.ctx
	}
	p.mu.Unlock()
	ctx, cancel := context.WithTimeout(parent, p.budget)
	defer cancel()
	f, err := syntax.Parse(ctx, p.lang, v.text.Bytes())
	if err != nil {
		if parent.Err() == nil {
			p.x.log.Warn("parsing open document failed", "uri", p.uri, "bytes", v.text.Len(), "err", err)
		}
		return nil
	}
	return f
}

// requestSyntax is the extraction a request reads for v, and whether it
// is v's own (exact) or its stale one (see docVersion.staleSyntax). It
// never waits for a slow document: when v's extraction is not known (or
// none, its parse having failed) and the document is slow, the stale
// one, which is nil when no parse of the document had completed when v
// was added. Otherwise it is v's cell, which it does not read (f is nil):
// the request reads it, and waits for it, when it needs it, as it always
// did.
func (v *docVersion) requestSyntax() (f *syntax.File, exact bool) {
	if !v.isStale() {
		return nil, true
	}
	return v.staleSyntax(), false
}

// isStale reports that a request reads v's stale extraction: its own is
// not known (or is none: its parse failed) and the document is slow.
func (v *docVersion) isStale() bool {
	if v.cell.done() && v.cell.f != nil {
		return false
	}
	v.p.mu.Lock()
	defer v.p.mu.Unlock()
	return v.p.slow && v.state != parsed
}

// staleSyntax is the extraction of v's base (the last parse completed
// when v was added) with its ranges mapped through the edits from the
// base's text to v's (see mapSyntax): the same two versions always give
// the same extraction. nil without a base. Computed once per version.
func (v *docVersion) staleSyntax() *syntax.File {
	if v.base == nil {
		return nil
	}
	v.staleOnce.Do(func() {
		v.stale = mapSyntax(v.base.file, v.base.size, v.baseEdits, v.text.Bytes())
	})
	return v.stale
}

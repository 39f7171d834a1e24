package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ctxd/ctxd/index/ignore"
	"github.com/ctxd/ctxd/index/syntax"
)

// DefaultMaxFileSize is the size cap when Options.MaxFileSize is zero:
// larger files are skipped as too_large. One MiB holds any hand-written
// source file; generated blobs beyond it would not fit a model's budget.
const DefaultMaxFileSize = 1 << 20

// Options configure an [Index]. The zero value is usable.
type Options struct {
	// MaxFileSize is the size cap in bytes; 0 means DefaultMaxFileSize.
	MaxFileSize int64
	// CacheDir is where per-file results persist between runs; "" means
	// the user cache directory (os.UserCacheDir()/ctxd) and "off" disables
	// the cache. A cache dir inside a workspace root is refused (the cache
	// is then off), because the index must never write into the workspace.
	CacheDir string
	// Workers is the number of files loaded in parallel; 0 means
	// GOMAXPROCS.
	Workers int
	// Logger receives diagnostics (never file contents); nil discards.
	Logger *slog.Logger
	// HardLinks reports whether the root at the given real path allows
	// regular files with several hard links (sandbox.allow_hard_links of
	// its .ctxd/config.json, which the workspace layer reads with the
	// builds' strict loader). It is asked once per root snapshot, on first
	// need; nil allows none: fail closed.
	HardLinks func(rootReal string) bool
	// OnProgress, when set, is called from the scanning goroutine as an
	// initial scan advances. It must not block for long.
	OnProgress func(Progress)
	// ParseBudget bounds each parse of an open document's text, the
	// background parser's and a reader's own (see reparse.go); 0 means
	// 2 s. A document whose parses overrun it is answered at the text
	// level, and ctxd.indexStatus says so.
	ParseBudget time.Duration
	// HoldTexts keeps the texts a scan's listing reads for their parse
	// (up to maxHeldBytes), so that a file is read and hashed once: for a
	// scan that parses the whole tree at once, as `ctxd index` does. A
	// server or a build leaves it off: its first bundle parses a part of
	// the tree, and holding 96 MiB of texts it does not parse made the
	// listing before that bundle a fifth slower (page faults and the
	// collector) and its peak 130 MB higher on GOROOT/src.
	HoldTexts bool
}

// listingShare is the part of a scan's percentage its first pass takes: it
// reads every file but parses none, about a fifth of the work.
const listingShare = 20

// Progress reports an initial scan of one root. Done and Total count the
// files of the current phase: Done starts again from zero when parsing
// begins; Percentage covers both phases and only grows.
type Progress struct {
	// Kind is "begin", "report" or "end".
	Kind string
	// Root is the folder's URI.
	Root string
	// Done and Total count the phase's files done and all files; Total
	// is known from the first report on.
	Done, Total int
	// Percentage is Done*100/Total, 100 at the end.
	Percentage int
	// Phase is "listing" while the first pass reads and fingerprints the
	// files (builds wait for it), "parsing" while the second parses them
	// in the background.
	Phase string
	// Scan identifies the scan: its begin, reports and end carry the same
	// number, and each scan of the index has its own (they increase). A
	// root re-set or rescanned while its scan runs has two scans at once:
	// the old one ends cancelled, the new one goes on.
	Scan uint64
	// Outcome, on the end, says how the scan ended: [ScanDone],
	// [ScanCancelled] or [ScanFailed].
	Outcome string
}

// The outcomes of a scan, in [Progress.Outcome].
const (
	// ScanDone: every file of the root was listed and parsed; the root is
	// ready.
	ScanDone = "done"
	// ScanCancelled: the scan stopped before the end because a newer scan
	// replaced it (the root was re-set or its ignore rules changed), the
	// root was removed or the index closed.
	ScanCancelled = "cancelled"
	// ScanFailed: the root could not be read; it is published failed,
	// with the reason in its status.
	ScanFailed = "failed"
)

// Index keeps the current [Snapshot] of the workspace up to date, the
// editor's open documents included: it is their only owner. Writers (the
// server's notification loop and background scans) are serialized; readers
// call [Index.Snapshot] and never block.
type Index struct {
	opts Options
	log  *slog.Logger
	// cacheBase is the resolved cache directory, "" when disabled.
	cacheBase string
	closed    atomic.Bool

	mu       sync.Mutex // serializes writers and guards the fields below
	cur      atomic.Pointer[Snapshot]
	notify   chan struct{}    // closed and replaced at every publish
	scans    map[string]*scan // by root Dir
	scanSeq  uint64           // the last scan's id
	checkers map[string]*ignore.Checker
	caches   map[string]*rootCache // by root Dir; nil entries are disabled
	wg       sync.WaitGroup
	idle     *gate // closed while no build needs the cores
	// lastChange is when a document last changed (UnixNano): the cache
	// is written once the editing has paused (waitQuiet). It paces
	// background work only; it never reaches output.
	lastChange atomic.Int64
	// life is the context of the index's background work, every scan's
	// included; Close cancels it (stop).
	life context.Context
	stop context.CancelFunc
}

// scan is a running initial (or re-) scan of one root.
type scan struct {
	id            uint64       // Progress.Scan
	loaded, total atomic.Int64 // files loaded and found, for status
	parsed        atomic.Int64 // files of the second pass done
	cancel        context.CancelFunc
	// pending holds the paths changed on disk during the first pass,
	// replayed when it publishes; listed is set then, and later events
	// apply at once. Both under x.mu.
	pending map[string]bool
	listed  bool
}

// ident is the scan's id, 0 for none (a directory read outside a scan).
func (sc *scan) ident() uint64 {
	if sc == nil {
		return 0
	}
	return sc.id
}

// New returns an empty index with no roots.
func New(opts Options) *Index {
	if opts.MaxFileSize <= 0 {
		opts.MaxFileSize = DefaultMaxFileSize
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	x := &Index{
		opts:     opts,
		log:      log,
		notify:   make(chan struct{}),
		scans:    map[string]*scan{},
		checkers: map[string]*ignore.Checker{},
		caches:   map[string]*rootCache{},
		idle:     newGate(),
	}
	x.life, x.stop = context.WithCancel(context.Background())
	base, err := cacheDirFor(opts.CacheDir)
	if err != nil {
		log.Warn("index cache disabled", "err", err)
	}
	x.cacheBase = base
	x.cur.Store(&Snapshot{fp: &lazyFingerprint{}})
	return x
}

// Snapshot returns the current snapshot. It never blocks.
func (x *Index) Snapshot() *Snapshot { return x.cur.Load() }

// publish installs the next snapshot, made of roots and the current open
// documents, and wakes the waiters. Callers hold x.mu.
func (x *Index) publish(roots []*RootSnapshot) { x.install(roots, x.cur.Load().docs, true) }

// install publishes a snapshot of roots and docs and wakes the waiters.
// rootsChanged says whether roots differ from the current ones; when they
// do not (a change to the documents' overlays alone), the snapshot keeps
// the current version and fingerprint. Callers hold x.mu.
func (x *Index) install(roots []*RootSnapshot, docs *Overlays, rootsChanged bool) {
	old := x.cur.Load()
	s := &Snapshot{version: old.version, roots: roots, docs: docs, fp: old.fp}
	if rootsChanged {
		slices.SortFunc(roots, func(a, b *RootSnapshot) int { return strings.Compare(a.Root.Dir, b.Root.Dir) })
		s.version++
		s.fp = &lazyFingerprint{}
	}
	x.cur.Store(s)
	close(x.notify)
	x.notify = make(chan struct{})
}

// WaitFor blocks until cond holds for the current snapshot, or ctx ends.
// It returns the snapshot that satisfied cond.
func (x *Index) WaitFor(ctx context.Context, cond func(*Snapshot) bool) (*Snapshot, error) {
	for {
		x.mu.Lock()
		ch := x.notify
		x.mu.Unlock()
		s := x.Snapshot()
		if cond(s) {
			return s, nil
		}
		select {
		case <-ctx.Done():
			return s, fmt.Errorf("waiting for the index: %w", ctx.Err())
		case <-ch:
		}
	}
}

// WaitListed blocks until every root's files are listed (see
// [Snapshot.Listed]): what a build needs, long before the whole tree is
// parsed.
func (x *Index) WaitListed(ctx context.Context) (*Snapshot, error) {
	return x.WaitFor(ctx, (*Snapshot).Listed)
}

// Wait blocks until no root is being scanned.
func (x *Index) Wait(ctx context.Context) (*Snapshot, error) {
	return x.WaitFor(ctx, func(s *Snapshot) bool { return s.State() != StateIndexing })
}

// SetRoots makes roots the workspace folders. New roots are scanned in the
// background; removed roots are dropped with their scans cancelled.
func (x *Index) SetRoots(roots []Root) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed.Load() {
		return
	}
	old := x.Snapshot()
	byDir := map[string]*RootSnapshot{}
	for _, r := range old.roots {
		byDir[r.Root.Dir] = r
	}
	var next []*RootSnapshot
	seen := map[string]bool{}
	for _, root := range roots {
		root.Dir = filepath.Clean(root.Dir)
		if seen[root.Dir] {
			continue
		}
		seen[root.Dir] = true
		if r, ok := byDir[root.Dir]; ok {
			next = append(next, r)
			continue
		}
		next = append(next, x.startScan(root))
	}
	for dir, sc := range x.scans {
		if !seen[dir] {
			sc.cancel()
			delete(x.scans, dir)
			delete(x.checkers, dir)
		}
	}
	for dir := range x.caches {
		if !seen[dir] {
			delete(x.caches, dir)
		}
	}
	x.publish(next)
}

// newRootSnapshot returns an empty root in the given state, holding the
// open documents that lie inside it.
func (x *Index) newRootSnapshot(root Root, realDir string, state State) *RootSnapshot {
	r := &RootSnapshot{
		Root: root, realDir: realDir, state: state, links: newLinkPolicy(realDir, x.opts.HardLinks),
		files: newLayered[*File](nil), skipped: newLayered[Skipped](nil),
		open: map[string]*Document{}, idle: x.idle, fp: &lazyFingerprint{},
		listed: state != StateIndexing, parsed: state != StateIndexing,
	}
	r.graph = &lazyGraph{src: r}
	return r
}

// startScan begins scanning a root and returns its first snapshot, holding
// only the open documents inside it. Callers hold x.mu.
func (x *Index) startScan(root Root) *RootSnapshot {
	realDir, err := filepath.EvalSymlinks(root.Dir)
	if err != nil {
		r := x.newRootSnapshot(root, root.Dir, StateFailed)
		r.err = errDetail(err)
		x.log.Warn("workspace root unreadable", "root", root.URI, "err", r.err)
		return r
	}
	r := x.newRootSnapshot(root, realDir, StateIndexing)
	checker := ignore.NewChecker(realDir)
	x.checkers[root.Dir] = checker
	if _, ok := x.caches[root.Dir]; !ok {
		x.caches[root.Dir] = openRootCache(x.cacheBase, realDir, x.log)
	}
	cache := x.caches[root.Dir]
	r = x.withOpenDocs(r)
	ctx, cancel := context.WithCancel(x.life)
	x.scanSeq++
	sc := &scan{id: x.scanSeq, cancel: cancel, pending: map[string]bool{}}
	x.scans[root.Dir] = sc
	x.wg.Add(1)
	go func() {
		defer x.wg.Done()
		x.runScan(ctx, root, realDir, sc, checker, cache)
	}()
	return r
}

// withOpenDocs returns r with every open document inside it applied, in
// its last state in sync. Callers hold x.mu.
func (x *Index) withOpenDocs(r *RootSnapshot) *RootSnapshot {
	docs := x.Snapshot().docs
	b := r.edit()
	for _, u := range docs.URIs() {
		if rel, ok := x.relIn(r, u); ok {
			d, _ := docs.Get(u)
			x.applyDoc(b, rel, d.inSync())
		}
	}
	return b.done()
}

// relIn returns the path of uri relative to root r, after the sandbox's
// checks: an open document behind a link out of the root is not the root's.
func (x *Index) relIn(r *RootSnapshot, uri string) (string, bool) {
	if !IsFileURI(uri) {
		return "", false
	}
	rel, err := r.relOfURI(uri)
	return rel, err == nil
}

func (x *Index) progress(p Progress) {
	if x.opts.OnProgress != nil {
		x.opts.OnProgress(p)
	}
}

// runScan indexes a root in two passes (indexRoot), reports the scan's
// end as soon as the root is ready or the scan stopped, and then persists
// the cache: the end is not held back by the cache, which waits for the
// editing to pause.
func (x *Index) runScan(ctx context.Context, root Root, realDir string, sc *scan, checker *ignore.Checker, cache *rootCache) {
	x.progress(Progress{Kind: "begin", Root: root.URI, Scan: sc.id})
	res := x.indexRoot(ctx, root, realDir, sc, checker, cache)
	// After x.mu is released: the client's progress UI must never be
	// waited for while holding the writer lock.
	x.progress(Progress{Kind: "end", Root: root.URI, Phase: "parsing", Done: res.parsed, Total: res.files, Percentage: 100, Scan: sc.id, Outcome: res.outcome})
	if res.outcome != ScanDone {
		return
	}
	hits, misses, trusted := cache.stats()
	x.log.Info("workspace root indexed", "root", root.URI, "files", res.files, "skipped", res.skipped, "cache_hits", hits, "parsed", misses, "unchanged_unread", trusted)
	if !x.waitQuiet(ctx) {
		return // Close saves the cache
	}
	// While it writes, a keystroke or a build stops the save until the
	// editing pauses again; Close ends the wait (the save then runs to
	// its end, as Close's own would).
	if err := cache.save(func() { x.waitQuiet(ctx) }); err != nil {
		x.log.Warn("saving the index cache failed", "err", err)
	}
}

// scanResult is what a scan's indexRoot did: the files listed and
// skipped, the files of the second pass done, and the outcome.
type scanResult struct {
	files, skipped, parsed int
	outcome                string
}

// indexRoot is a scan's two passes. The first walks the root and reads
// every candidate once (classification, sha256, line count, word filter;
// the extraction when the cache holds it) and publishes the root listed:
// every file known and fingerprinted, which is all a build waits for. The
// second parses the rest in the background on every core, pausing while a
// build needs them, then publishes the root ready. Disk events that
// arrive during the first pass are replayed after it.
func (x *Index) indexRoot(ctx context.Context, root Root, realDir string, sc *scan, checker *ignore.Checker, cache *rootCache) scanResult {
	ld := cache.loader()
	ld.reread = rereader(realDir, newLinkPolicy(realDir, x.opts.HardLinks))
	if x.opts.HoldTexts {
		ld.hold = newHoldBudget(maxHeldBytes)
	}
	files, skipped, err := x.scanDir(ctx, root, realDir, "", checker, ld, sc)
	cache.shareStrings(len(files))
	res := scanResult{files: len(files), skipped: len(skipped), outcome: ScanCancelled}
	if ctx.Err() != nil {
		return res
	}
	if stop := x.publishListed(ctx, root, realDir, sc, files, skipped, err); stop != "" {
		res.outcome = stop
		return res
	}
	res.parsed = x.parseAll(ctx, root, sc, files)
	syntax.ForgetInterned()
	if ctx.Err() != nil {
		return res
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.rootByDir(root.Dir) == nil || x.scans[root.Dir] != sc {
		return res
	}
	delete(x.scans, root.Dir)
	if r := x.rootByDir(root.Dir); r.state == StateIndexing {
		b := r.edit()
		b.r.state, b.r.parsed = StateReady, true
		x.replaceRoot(b.done())
	}
	res.outcome = ScanDone
	return res
}

// saveQuiet is how long the editing must have paused before a scan writes
// the cache; a variable so that a test can change it.
var saveQuiet = 500 * time.Millisecond

// waitQuiet reports, once no build holds the cores and no document changed
// for saveQuiet, that the cache may be written; false when ctx ended (the
// index closed: Close saves the caches itself). Writing the cache
// is a second of CPU on GOROOT/src, with its garbage: background work,
// which must not take the cores of the builds and keystrokes that follow
// the indexing (the first edits after opening a large folder land right
// there). During an edit storm the cache waits for the storm's end.
func (x *Index) waitQuiet(ctx context.Context) bool {
	for {
		x.idle.wait(ctx)
		since := time.Since(time.Unix(0, x.lastChange.Load()))
		if ctx.Err() != nil {
			return false
		}
		if since >= saveQuiet {
			return true
		}
		t := time.NewTimer(saveQuiet - since)
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
	}
}

// publishListed publishes the root with the files of its first pass,
// open documents applied and the disk events of the pass replayed, and
// returns "" for the scan to go on. It returns [ScanCancelled] when the
// scan is no longer the root's (replaced, root removed) and [ScanFailed]
// when the pass failed: the root is then published failed and the scan
// ends there.
func (x *Index) publishListed(ctx context.Context, root Root, realDir string, sc *scan, files []*File, skipped []Skipped, err error) string {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.rootByDir(root.Dir) == nil || x.scans[root.Dir] != sc {
		return ScanCancelled
	}
	r := x.newRootSnapshot(root, realDir, StateIndexing)
	r.listed = true
	if err != nil {
		r.state, r.err, r.parsed = StateFailed, errDetail(err), true
		x.log.Warn("scanning workspace root failed", "root", root.URI, "err", r.err)
	}
	fm := make(map[string]*File, len(files))
	for _, f := range files {
		fm[f.Path] = f
	}
	sm := make(map[string]Skipped, len(skipped))
	for _, s := range skipped {
		sm[s.Path] = s
	}
	r.files, r.skipped = newLayered(fm), newLayered(sm)
	r = x.withOpenDocs(r)
	pending := slices.Sorted(maps.Keys(sc.pending))
	sc.listed = true
	if len(pending) > 0 {
		b := r.edit()
		for _, p := range pending {
			x.reloadPath(ctx, b, p)
		}
		r = b.done()
	}
	x.replaceRoot(r)
	if err != nil {
		delete(x.scans, root.Dir)
		return ScanFailed
	}
	return ""
}

// parseAll runs the second pass of a scan: it parses every file of the
// first pass whose extraction is unknown, on every core, waiting while a
// build holds the idle gate. A build that needs a file first parses it
// itself; the file's cell makes sure it is parsed once. It returns the
// number of files done.
func (x *Index) parseAll(ctx context.Context, root Root, sc *scan, files []*File) int {
	total := len(files)
	step := max(total/100, 1)
	return parallel(ctx, total, x.opts.Workers, func(i, n int) {
		x.idle.wait(ctx)
		files[i].Syntax()
		sc.parsed.Store(int64(n))
		if n%step == 0 || n == total {
			x.progress(Progress{Kind: "report", Root: root.URI, Phase: "parsing", Done: n, Total: total, Percentage: listingShare + n*(100-listingShare)/total, Scan: sc.id})
		}
	})
}

// scanDir walks root (or the subdirectory sub of it) and loads every
// candidate file in parallel with ld. The results are in path order.
func (x *Index) scanDir(ctx context.Context, root Root, realDir, sub string, checker *ignore.Checker, ld loader, sc *scan) ([]*File, []Skipped, error) {
	wr, err := walkFrom(ctx, realDir, sub, checker, x.opts.MaxFileSize, newLinkPolicy(realDir, x.opts.HardLinks))
	if err != nil {
		return nil, nil, err
	}
	total := len(wr.files)
	if sc != nil {
		sc.total.Store(int64(total))
	}
	out := make([]*File, total)
	skips := make([]*Skipped, total)
	step := max(total/100, 1)
	parallel(ctx, total, x.opts.Workers, func(i, n int) {
		out[i], skips[i] = loadDisk(ctx, wr.files[i], x.opts.MaxFileSize, ld)
		if sc != nil {
			sc.loaded.Store(int64(n))
		}
		if sub == "" && (n%step == 0 || n == total) {
			x.progress(Progress{Kind: "report", Root: root.URI, Phase: "listing", Done: n, Total: total, Percentage: n * listingShare / total, Scan: sc.ident()})
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	var files []*File
	skipped := wr.skipped
	for i := range total {
		if out[i] != nil {
			files = append(files, out[i])
		} else if skips[i] != nil {
			skipped = append(skipped, *skips[i])
		}
	}
	return files, skipped, nil
}

func (x *Index) rootByDir(dir string) *RootSnapshot {
	for _, r := range x.Snapshot().roots {
		if r.Root.Dir == dir {
			return r
		}
	}
	return nil
}

// replaceRoot publishes a snapshot where r replaces the root with its Dir.
// Callers hold x.mu.
func (x *Index) replaceRoot(r *RootSnapshot) { x.publish(withRoot(x.Snapshot().roots, r)) }

// withRoot returns a copy of roots where r replaces the root with its Dir.
func withRoot(roots []*RootSnapshot, r *RootSnapshot) []*RootSnapshot {
	next := make([]*RootSnapshot, 0, len(roots))
	for _, o := range roots {
		if o.Root.Dir == r.Root.Dir {
			next = append(next, r)
		} else {
			next = append(next, o)
		}
	}
	return next
}

// Status summarizes the current snapshot and the progress of running
// scans; withSkipped adds the list of skipped paths.
func (x *Index) Status(withSkipped bool) Status {
	x.mu.Lock()
	progress := map[string]*ScanProgress{}
	for dir, sc := range x.scans {
		done := sc.loaded.Load()
		if sc.listed {
			done = sc.parsed.Load()
		}
		progress[dir] = &ScanProgress{Done: int(done), Total: int(sc.total.Load())}
	}
	s := x.Snapshot()
	x.mu.Unlock()
	st := s.Status(withSkipped)
	for i, r := range s.roots {
		if p, ok := progress[r.Root.Dir]; ok && r.state == StateIndexing {
			st.Roots[i].Progress = p
		}
	}
	return st
}

// checker returns the ignore checker of a root. Callers hold x.mu.
func (x *Index) checker(r *RootSnapshot) *ignore.Checker {
	c := x.checkers[r.Root.Dir]
	if c == nil {
		c = ignore.NewChecker(r.realDir)
		x.checkers[r.Root.Dir] = c
	}
	return c
}

// FilesChanged applies disk changes reported by the editor's watcher for
// the given file URIs. Whether a path was created, changed or deleted is
// read from the disk, not from the event, so events that arrive late or
// coalesced still leave the index equal to the disk. A change to an ignore
// file rescans the root, because it can change the decision for any path.
// Open documents ignore disk changes: the buffer is the truth until it is
// closed.
func (x *Index) FilesChanged(ctx context.Context, uris []string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed.Load() {
		return
	}
	type rootChange struct {
		r     *RootSnapshot
		paths []string
	}
	var changes []*rootChange
	byDir := map[string]*rootChange{}
	rescan := map[string]bool{}
	for _, uri := range uris {
		// The sandbox's lexical rules ("..", encoded separators, remote
		// hosts, …); reloadPath walks the parents on disk.
		r, rel, err := x.Snapshot().locateLexical(uri)
		if err != nil {
			if errors.Is(err, ErrOutsideRoot) {
				x.log.Debug("watched-file event ignored", "reason", err.Error())
			}
			continue
		}
		if isIgnoreFile(rel) {
			rescan[r.Root.Dir] = true
			continue
		}
		if sc := x.scans[r.Root.Dir]; sc != nil && !sc.listed {
			sc.pending[rel] = true
			continue
		}
		rc := byDir[r.Root.Dir]
		if rc == nil {
			rc = &rootChange{r: r}
			byDir[r.Root.Dir] = rc
			changes = append(changes, rc)
		}
		rc.paths = append(rc.paths, rel)
	}
	for _, rc := range changes {
		if rescan[rc.r.Root.Dir] {
			continue
		}
		b := rc.r.edit()
		for _, p := range rc.paths {
			x.reloadPath(ctx, b, p)
		}
		x.replaceRoot(b.done())
	}
	for _, dir := range slices.Sorted(maps.Keys(rescan)) {
		x.rescan(dir)
	}
}

// rescan restarts the scan of a root, keeping its current files visible
// until the new scan publishes. Callers hold x.mu.
func (x *Index) rescan(dir string) {
	r := x.rootByDir(dir)
	if r == nil {
		return
	}
	if sc := x.scans[dir]; sc != nil {
		sc.cancel()
	}
	delete(x.checkers, dir)
	nr := x.startScan(r.Root)
	if nr.state == StateIndexing {
		// Keep serving the old files while the scan runs.
		b := r.edit()
		b.r.state = StateIndexing
		nr = b.done()
	}
	x.replaceRoot(nr)
}

// isIgnoreFile reports whether rel is a file whose change can change
// ignore decisions.
func isIgnoreFile(rel string) bool {
	base := path.Base(rel)
	return base == ".gitignore" || rel == ".ctxdignore" || rel == ".git/info/exclude"
}

// reloadPath re-reads one path of a root from disk and records the result:
// an indexed file, a skip, or nothing when it no longer exists. A directory
// is walked (created) or its files dropped (deleted). An open document is
// left alone: the editor's buffer wins. Callers hold x.mu.
func (x *Index) reloadPath(ctx context.Context, b *rootEdit, rel string) {
	if _, open := b.r.open[rel]; open {
		return
	}
	if !parentsReal(b.r.realDir, rel) {
		// A parent is missing, or a symbolic link (out of the root, or
		// to a directory indexed under its real path): nothing to read
		// here, and Lstat below would follow the link.
		b.removeTree(rel)
		return
	}
	abs := filepath.Join(b.r.realDir, filepath.FromSlash(rel))
	info, err := os.Lstat(abs)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			b.skip(Skipped{Path: rel, Reason: SkipUnreadable, Detail: errDetail(err)})
			return
		}
		b.removeTree(rel)
		return
	}
	if s, ok := ruleSkip(x.checker(b.r), rel, info.IsDir()); ok {
		b.removeTree(rel)
		b.skip(s)
		return
	}
	if info.IsDir() {
		b.removeTree(rel)
		files, skipped, err := x.scanDir(ctx, b.r.Root, b.r.realDir, rel, x.checker(b.r), x.caches[b.r.Root.Dir].loader(), nil)
		if err != nil {
			b.skip(Skipped{Path: rel + "/", Reason: SkipUnreadable, Detail: errDetail(err)})
			return
		}
		for _, f := range files {
			if _, open := b.r.open[f.Path]; !open {
				b.setFile(f)
			}
		}
		for _, s := range skipped {
			b.skip(s)
		}
		return
	}
	var c candidate
	if info.Mode()&fs.ModeSymlink != 0 {
		cc, s, ok := resolveLinkWith(b.r.realDir, rel, x.checker(b.r), x.opts.MaxFileSize, b.r.links)
		if !ok {
			b.remove(rel)
			b.skip(s)
			return
		}
		c = cc
	} else if !info.Mode().IsRegular() {
		b.remove(rel)
		b.skip(Skipped{Path: rel, Reason: SkipUnreadable, Detail: "not a regular file"})
		return
	} else {
		c = candidate{rel: rel, rootReal: b.r.realDir, real: rel, links: b.r.links}
	}
	f, s := loadDisk(ctx, c, x.opts.MaxFileSize, x.caches[b.r.Root.Dir].loader())
	if f != nil {
		b.setFile(f)
	} else {
		b.remove(rel)
		b.skip(*s)
	}
}

// Close stops every scan, closes the open documents' parse trees and saves
// the cache. The index keeps answering Snapshot with the last snapshot.
func (x *Index) Close() error {
	x.mu.Lock()
	x.closed.Store(true)
	// Every scan, also one that left x.scans to write its cache.
	x.stop()
	// The documents stay in the last snapshot, which readers may still
	// hold; only their trees, which no reader sees, are freed.
	docs := x.Snapshot().docs
	for _, u := range docs.URIs() {
		if d, _ := docs.Get(u); d.syn != nil {
			d.syn.Close()
		}
	}
	caches := make([]*rootCache, 0, len(x.caches))
	for _, c := range x.caches {
		caches = append(caches, c)
	}
	x.mu.Unlock()
	x.wg.Wait()
	var errs []error
	for _, c := range caches {
		errs = append(errs, c.save(nil))
	}
	return errors.Join(errs...)
}

// rootEdit accumulates changes to one root and yields the next immutable
// RootSnapshot; the paths it touched feed the incremental graph update.
type rootEdit struct {
	old     *RootSnapshot
	r       *RootSnapshot
	changed map[string]bool
}

func (r *RootSnapshot) edit() *rootEdit {
	n := &RootSnapshot{
		Root: r.Root, realDir: r.realDir, state: r.state, err: r.err, links: r.links,
		files: r.files, skipped: r.skipped,
		open: maps.Clone(r.open), listed: r.listed, parsed: r.parsed, idle: r.idle,
		fp: &lazyFingerprint{},
	}
	return &rootEdit{old: r, r: n, changed: map[string]bool{}}
}

func (b *rootEdit) setFile(f *File) {
	b.r.files = b.r.files.With(f.Path, f, false)
	b.r.skipped = b.r.skipped.With(f.Path, Skipped{}, true)
	b.changed[f.Path] = true
}

func (b *rootEdit) skip(s Skipped) {
	rel := strings.TrimSuffix(s.Path, "/")
	if _, ok := b.r.files.Get(rel); ok {
		b.r.files = b.r.files.With(rel, nil, true)
		b.changed[rel] = true
	}
	b.r.skipped = b.r.skipped.With(s.Path, s, false)
}

func (b *rootEdit) remove(rel string) {
	if _, ok := b.r.files.Get(rel); ok {
		b.r.files = b.r.files.With(rel, nil, true)
		b.changed[rel] = true
	}
	b.r.skipped = b.r.skipped.With(rel, Skipped{}, true)
}

// removeTree drops rel and, when it is a directory, everything under it.
func (b *rootEdit) removeTree(rel string) {
	if _, isFile := b.r.files.Get(rel); isFile {
		b.remove(rel)
		return
	}
	b.remove(rel)
	b.r.skipped = b.r.skipped.With(rel+"/", Skipped{}, true)
	prefix := rel + "/"
	for _, p := range b.r.files.Keys() {
		if strings.HasPrefix(p, prefix) {
			if _, open := b.r.open[p]; !open {
				b.remove(p)
			}
		}
	}
	for _, p := range b.r.skipped.Keys() {
		if strings.HasPrefix(p, prefix) {
			b.r.skipped = b.r.skipped.With(p, Skipped{}, true)
		}
	}
}

func (b *rootEdit) done() *RootSnapshot {
	changed := slices.Sorted(maps.Keys(b.changed))
	if len(changed) == 0 && b.old.graph != nil {
		b.r.graph = b.old.graph.derive(b.r, nil)
	} else if b.old.graph != nil {
		b.r.graph = b.old.graph.derive(b.r, changed)
	} else {
		b.r.graph = &lazyGraph{src: b.r}
	}
	return b.r
}

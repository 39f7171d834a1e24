// Command indexbench measures what a user of ctxd waits for, on one
// corpus, side by side with `ctags -R` on the same files: a cold and a
// warm `ctxd index`, the first bundle after an editor's initialize (with
// an empty and with a persisted index cache), warm builds and budgets,
// the latency of a keystroke in a 5,000-line buffer (clean and broken),
// and the peak RSS of `ctxd index` and of the server. It runs the real
// binary — `ctxd serve` driven over stdio like an editor — so the figures
// are what a user sees; docs/performance.md says how each is measured and
// which goals it is held to.
//
// Usage:
//
//	go run ./tools/indexbench -ctxd bin/ctxd [-root DIR] [-label NAME] [-copy=false]
//	    [-runs N] [-targets K] [-rounds R] [-edits N] [-phase-time D] [-md FILE] [-keep]
//	    [-goal-build-p95 0.03x|200ms] [-goal-rss-mb MB]
//
// The default corpus is $(go env GOROOT)/src, copied into a temp dir
// first: ctxd records every bundle it builds under .ctxd/ in the
// workspace, which must not be the toolchain's tree. -md appends the
// table to FILE as markdown, so several corpora can share one file.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ctxd/ctxd/tools/corpus"
)

type config struct {
	ctxd, root, label, md string
	copy, keep            bool
	runs, targets, rounds int
	edits                 int
	seed                  uint64
	timeout, reqTimeout   time.Duration
	phaseTime             time.Duration

	// The goals of issue 16 (docs/performance.md). The ratios are to
	// `ctags -R` on the same corpus; the absolute ones depend on the
	// corpus's size, hence the flags.
	goalCold, goalFirst float64       // cold index, first bundle with an empty cache (ratios)
	goalFirstSpec       string        // -goal-first: a ratio (0.5x) or a time (1s)
	goalFirstAbs        time.Duration // the first bundle's goal as a time
	firstTargets        string        // -first-targets: more first bundles, comma-separated
	goalDidChange       time.Duration // didChange p99
	goalBuildSpec       string        // -goal-build-p95, parsed into one of:
	goalBuildRatio      float64       // the build p95 as a ratio to ctags
	goalBuildAbs        time.Duration // the build p95 as a time
	goalRSSMB           int64

	// Issue 31: typing into a badly broken buffer, each keystroke
	// followed by ctxd.budget (broken.go).
	brokenEdits int
	onlyBroken  bool
	goalBroken  float64 // its p99, as a ratio to ctags
}

func main() {
	var c config
	flag.StringVar(&c.ctxd, "ctxd", "bin/ctxd", "the ctxd binary (copied to the temp dir for the run)")
	flag.StringVar(&c.root, "root", "", "the corpus (default: $(go env GOROOT)/src)")
	flag.StringVar(&c.label, "label", "", "the corpus's name in the table (default: GOROOT/src or the root's base name)")
	flag.BoolVar(&c.copy, "copy", true, "work on a copy of the root in the temp dir (builds write .ctxd/ into the workspace)")
	flag.IntVar(&c.runs, "runs", 3, "runs of each process-level figure (index, first bundle, ctags); the fastest is reported")
	flag.IntVar(&c.targets, "targets", 4, "build targets of the warm builds")
	flag.IntVar(&c.rounds, "rounds", 20, "rounds of warm builds over the targets")
	flag.IntVar(&c.edits, "edits", 500, "measured didChange edits per buffer (clean, then broken)")
	flag.Uint64Var(&c.seed, "seed", 1, "seed of the target sample")
	flag.DurationVar(&c.timeout, "timeout", 20*time.Minute, "limit of one index run or first bundle")
	flag.DurationVar(&c.reqTimeout, "request-timeout", 10*time.Minute, "limit of one request after indexing")
	flag.DurationVar(&c.phaseTime, "phase-time", 2*time.Minute, "time after which a measured loop (one kind of warm request, one buffer's edits) stops early, after its first round")
	flag.StringVar(&c.goalBuildSpec, "goal-build-p95", "0.01x", "goal of the warm build p95: a ratio to ctags (0.01x) or a time (100ms)")
	flag.Int64Var(&c.goalRSSMB, "goal-rss-mb", 300, "goal of the peak RSS of ctxd index and of the server, in MB")
	flag.StringVar(&c.md, "md", "", "also append the table to this file as markdown")
	flag.BoolVar(&c.keep, "keep", false, "keep the temp dir (corpus copy, caches, the server logs)")
	flag.IntVar(&c.brokenEdits, "broken-edits", 200, "measured keystrokes (didChange + ctxd.budget) in the badly broken 43 KB buffer")
	flag.BoolVar(&c.onlyBroken, "only-broken", false, "measure ctags and the badly broken buffer's keystrokes only")
	flag.StringVar(&c.goalFirstSpec, "goal-first", "0.5x", "goal of the first bundle with an empty cache: a ratio to ctags (0.5x) or a time (1s)")
	flag.StringVar(&c.firstTargets, "first-targets", "net/http/server.go", "more first bundles with an empty cache, each for its own target (comma-separated paths of the corpus; those it lacks are skipped): a big file used all over the tree")
	flag.Parse()
	c.goalCold, c.goalDidChange = 1.5, 5*time.Millisecond
	c.goalBroken = 0.02
	if err := c.parseGoals(); err != nil || flag.NArg() > 0 || c.runs < 1 || c.targets < 1 || c.rounds < 1 || c.edits < 1 {
		fmt.Fprintln(os.Stderr, "indexbench: bad flags:", err, flag.Args())
		flag.Usage()
		os.Exit(2)
	}
	ok, err := run(c)
	if err != nil {
		fmt.Fprintln(os.Stderr, "indexbench:", err)
		os.Exit(1)
	}
	if !ok {
		os.Exit(1) // some figure failed; the table says which
	}
}

func (c *config) parseGoals() error {
	if r, ok := strings.CutSuffix(c.goalFirstSpec, "x"); ok {
		v, err := strconv.ParseFloat(r, 64)
		if err != nil || v <= 0 {
			return fmt.Errorf("-goal-first %q", c.goalFirstSpec)
		}
		c.goalFirst = v
	} else if d, err := time.ParseDuration(c.goalFirstSpec); err == nil && d > 0 {
		c.goalFirstAbs = d
	} else {
		return fmt.Errorf("-goal-first %q: want 0.5x or 1s", c.goalFirstSpec)
	}
	if r, ok := strings.CutSuffix(c.goalBuildSpec, "x"); ok {
		v, err := strconv.ParseFloat(r, 64)
		if err != nil || v <= 0 {
			return fmt.Errorf("-goal-build-p95 %q", c.goalBuildSpec)
		}
		c.goalBuildRatio = v
		return nil
	}
	d, err := time.ParseDuration(c.goalBuildSpec)
	if err != nil || d <= 0 {
		return fmt.Errorf("-goal-build-p95 %q: want 0.03x or 200ms", c.goalBuildSpec)
	}
	c.goalBuildAbs = d
	return nil
}

// indexStatus is the part of `ctxd index --json` the header shows.
type indexStatus struct {
	Roots []struct {
		Files           int            `json:"files"`
		Bytes           int64          `json:"bytes"`
		Symbols         int            `json:"symbols"`
		Skipped         int            `json:"skipped"`
		FilesByLanguage map[string]int `json:"files_by_language"`
	} `json:"roots"`
}

// logf reports progress on stderr: a full run takes minutes.
func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "indexbench: "+format+"\n", args...)
}

// run measures everything and prints the table; false when a figure
// failed.
func run(c config) (bool, error) {
	if c.root == "" {
		src, err := corpus.GoSrc()
		if err != nil {
			return false, err
		}
		c.root = src
		if c.label == "" {
			c.label = "GOROOT/src"
		}
	}
	root, err := filepath.Abs(c.root)
	if err != nil {
		return false, err
	}
	if c.label == "" {
		c.label = filepath.Base(root)
	}
	tmp, err := os.MkdirTemp("", "indexbench-")
	if err != nil {
		return false, err
	}
	if c.keep {
		logf("temp dir %s is kept", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	// bin/ctxd may be rebuilt while a long run goes on: measure one binary.
	bin := filepath.Join(tmp, "ctxd")
	if err := corpus.CopyFile(c.ctxd, bin, 0o755); err != nil {
		return false, fmt.Errorf("copying the ctxd binary: %w", err)
	}
	version := "?"
	if out, err := exec.Command(bin, "version").Output(); err == nil {
		version = strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
	}
	if c.copy {
		start := time.Now()
		dst := filepath.Join(tmp, "corpus", filepath.Base(root))
		if err := corpus.CopyTree(root, dst); err != nil {
			return false, fmt.Errorf("copying the corpus: %w", err)
		}
		logf("copied %s to %s in %s", root, dst, fmtDur(time.Since(start)))
		root = dst
	}
	load0 := loadavg()
	b := &bench{c: c, bin: bin, root: root, tmp: tmp}
	if c.onlyBroken {
		_, err := exec.LookPath("ctags")
		b.ctagsInstalled = err == nil
		b.brokenOnly()
	} else {
		b.measure()
	}
	notes := []string{
		fmt.Sprintf("corpus: %s (%s)", c.label, b.corpusNote()),
		"machine: " + machine() + fmt.Sprintf("; 1-min load average %s at start, %s at end", load0, loadavg()),
		fmt.Sprintf("ctxd: %s; %s", version, time.Now().UTC().Format("2006-01-02 15:04 UTC")),
		b.ctagsNote(),
	}
	notes = append(notes, b.sessionNotes()...)
	var rows []row
	if c.onlyBroken {
		rows = b.rowsBroken()
	} else {
		rows = b.rows()
	}
	fmt.Println()
	for _, n := range notes {
		fmt.Println(n)
	}
	fmt.Println()
	printTable(os.Stdout, rows)
	for _, f := range b.failures {
		fmt.Fprintln(os.Stderr, "\nindexbench: failed:", f)
	}
	if c.md != "" {
		f, err := os.OpenFile(c.md, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return false, err
		}
		writeMarkdown(f, c.label, notes, rows)
		if err := f.Close(); err != nil {
			return false, err
		}
	}
	return len(b.failures) == 0, nil
}

// bench holds one corpus's measurements.
type bench struct {
	c              config
	bin, root, tmp string

	ctags          []procRun
	ctagsErr       error
	cold, warm     []procRun
	coldErr        error
	warmErr        error
	status         indexStatus
	sess           sessionFigures
	sessErr        error
	firstCold      []firstRun
	firstColdErr   error
	firstWarm      []firstRun
	firstWarmErr   error
	firstTarget    string
	extraFirst     []extraFirst
	failures       []string
	ctagsInstalled bool
}

func (b *bench) fail(what string, err error) error {
	b.failures = append(b.failures, what+": "+err.Error())
	logf("%s failed: %v", what, err)
	return err
}

// measure runs every figure in an order that keeps them honest: ctags and
// the cold index alternate (so that both meet the same load), the
// server sessions come last (their builds write .ctxd/ into the corpus,
// which neither ctags nor the index must read).
// ctagsRun runs ctags -R once more (run i of -runs), unless it is not
// installed or failed before.
func (b *bench) ctagsRun(i int) {
	if !b.ctagsInstalled || b.ctagsErr != nil {
		return
	}
	r, err := runProc(b.c.timeout, "ctags", "-R", "--exclude=.ctxd", "-f", filepath.Join(b.tmp, "tags"), b.root)
	if err != nil {
		b.ctagsErr = b.fail("ctags -R", err)
		return
	}
	b.ctags = append(b.ctags, r)
	logf("ctags -R run %d/%d: %s", i+1, b.c.runs, fmtDur(r.wall))
}

func (b *bench) measure() {
	c := b.c
	_, err := exec.LookPath("ctags")
	b.ctagsInstalled = err == nil
	cache := filepath.Join(b.tmp, "cache-index")
	for i := range c.runs {
		b.ctagsRun(i)
		if b.coldErr == nil {
			os.RemoveAll(cache)
			r, err := runProc(c.timeout, b.bin, "index", "--root", b.root, "--json", "--cache-dir", cache)
			if err != nil {
				b.coldErr = b.fail("ctxd index (cold)", err)
			} else {
				b.cold = append(b.cold, r)
				logf("ctxd index, empty cache, run %d/%d: %s", i+1, c.runs, fmtDur(r.wall))
			}
		}
	}
	if len(b.cold) > 0 {
		if err := json.Unmarshal(b.cold[0].out, &b.status); err != nil || len(b.status.Roots) != 1 {
			b.coldErr = b.fail("ctxd index --json", fmt.Errorf("unexpected output: %v: %.200s", err, b.cold[0].out))
		}
		for i := range c.runs {
			r, err := runProc(c.timeout, b.bin, "index", "--root", b.root, "--json", "--cache-dir", cache)
			if err != nil {
				b.warmErr = b.fail("ctxd index (warm)", err)
				break
			}
			b.warm = append(b.warm, r)
			logf("ctxd index, warm cache, run %d/%d: %s", i+1, c.runs, fmtDur(r.wall))
		}
	}

	files, err := scan(b.root)
	if err != nil {
		b.sessErr = b.fail("listing the corpus", err)
		return
	}
	cands := candidates(files, c.seed, 4*c.targets)
	if len(cands) == 0 {
		b.sessErr = b.fail("choosing targets", fmt.Errorf("no Go or TypeScript file of 4–48 KB under %s", b.root))
		return
	}
	edit := didChangeFile(b.root, files)
	broken, err := brokenFile(b.root, files)
	if err != nil {
		b.fail("the broken buffer", err)
	}
	sessCache := filepath.Join(b.tmp, "cache-session")
	logf("server session: first bundle with an empty cache, then warm builds, then %d+%d edits of %s", c.edits, c.edits, edit.rel)
	b.sess, b.sessErr = session(sessionConfig{
		bin: b.bin, root: b.root, cacheDir: sessCache, logPath: filepath.Join(b.tmp, "serve-session.log"),
		candidates: cands, targets: c.targets, rounds: c.rounds, edits: c.edits, edit: edit,
		broken: broken, brokenEdits: c.brokenEdits,
		firstTimeout: c.timeout, reqTimeout: c.reqTimeout, phaseTime: c.phaseTime,
	})
	if b.sessErr != nil {
		b.fail("server session", b.sessErr)
	}
	// The later starts build the first target that was kept, which is the
	// session's own unless ctxd refused that one.
	b.firstTarget = cands[0]
	if len(b.sess.targets) > 0 {
		b.firstTarget = b.sess.targets[0].rel
	}
	if b.sess.first.wall > 0 && b.sess.first.refused == "" && b.firstTarget == cands[0] {
		b.firstCold = append(b.firstCold, b.sess.first)
	}
	for i := len(b.firstCold); i < c.runs && b.firstColdErr == nil; i++ {
		dir := filepath.Join(b.tmp, fmt.Sprintf("cache-cold-%d", i))
		fr, err := b.firstOnly(dir, fmt.Sprintf("serve-cold-%d.log", i))
		os.RemoveAll(dir)
		if err != nil {
			b.firstColdErr = b.fail("first bundle (empty cache)", err)
			break
		}
		b.firstCold = append(b.firstCold, fr)
		logf("first bundle, empty cache, run %d/%d: %s", i+1, c.runs, fmtDur(fr.wall))
	}
	for i := range c.runs {
		fr, err := b.firstOnly(sessCache, fmt.Sprintf("serve-warm-%d.log", i))
		if err != nil {
			b.firstWarmErr = b.fail("first bundle (warm cache)", err)
			break
		}
		b.firstWarm = append(b.firstWarm, fr)
		logf("first bundle, warm cache, run %d/%d: %s", i+1, c.runs, fmtDur(fr.wall))
	}
	b.measureExtraFirst()
}

// extraFirst is the first bundle, empty cache, of a -first-targets path.
type extraFirst struct {
	target string
	runs   []firstRun
	err    error
}

// measureExtraFirst measures the first bundle of each -first-targets path
// the corpus holds, -runs times each with a new empty cache.
func (b *bench) measureExtraFirst() {
	for _, t := range strings.Split(b.c.firstTargets, ",") {
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(b.root, filepath.FromSlash(t))); err != nil {
			logf("first bundle for %s: not in the corpus, skipped", t)
			continue
		}
		x := extraFirst{target: t}
		for i := range b.c.runs {
			dir := filepath.Join(b.tmp, fmt.Sprintf("cache-first-%d", i))
			fr, err := b.firstOnlyFor(t, dir, fmt.Sprintf("serve-first-%d.log", i))
			os.RemoveAll(dir)
			if err != nil {
				x.err = b.fail("first bundle for "+t, err)
				break
			}
			x.runs = append(x.runs, fr)
			logf("first bundle for %s, empty cache, run %d/%d: %s", t, i+1, b.c.runs, fmtDur(fr.wall))
		}
		b.extraFirst = append(b.extraFirst, x)
	}
}

// firstOnly starts a server, measures its first bundle and shuts it down
// (which persists the index cache).
func (b *bench) firstOnly(cacheDir, log string) (firstRun, error) {
	return b.firstOnlyFor(b.firstTarget, cacheDir, log)
}

// firstOnlyFor is firstOnly for another target.
func (b *bench) firstOnlyFor(target, cacheDir, log string) (firstRun, error) {
	s, fr, err := firstBundle(b.bin, b.root, cacheDir, filepath.Join(b.tmp, log), target, b.c.timeout)
	if err == nil && fr.refused != "" {
		err = fmt.Errorf("ctxd.buildContext %s: %s", target, fr.refused)
	}
	if err == nil {
		err = s.shutdown(b.c.reqTimeout)
	}
	if err != nil {
		if s != nil {
			s.kill()
		}
		return fr, sessionError(s, err)
	}
	return fr, nil
}

func (b *bench) corpusNote() string {
	if len(b.status.Roots) != 1 {
		return b.root
	}
	r := b.status.Roots[0]
	return fmt.Sprintf("%d files indexed, %.1f MB, %d symbols, %d skipped; languages %v", r.Files, float64(r.Bytes)/1e6, r.Symbols, r.Skipped, r.FilesByLanguage)
}

func (b *bench) ctagsNote() string {
	switch {
	case !b.ctagsInstalled:
		return "ctags: not installed, no ratios"
	case len(b.ctags) == 0:
		return "ctags: failed, no ratios"
	}
	t := fastest(b.ctags)
	version := "ctags"
	if out, err := exec.Command("ctags", "--version").Output(); err == nil {
		version, _, _ = strings.Cut(string(out), ",")
	}
	return fmt.Sprintf("`ctags -R --exclude=.ctxd` (%s) on the same files: %s wall, %s CPU, peak RSS %s (fastest of %d)", version, fmtDur(t.wall), fmtDur(t.cpu), fmtMB(t.rssKB), len(b.ctags))
}

func (b *bench) sessionNotes() []string {
	var notes []string
	if len(b.sess.targets) > 0 {
		var ts []string
		for _, t := range b.sess.targets {
			ts = append(ts, fmt.Sprintf("%s (%d tokens, %d blocks)", t.rel, t.tokens, t.blocks))
		}
		notes = append(notes, fmt.Sprintf("build targets (purpose diff, active_file; up to %d rounds of each kind): %s", b.c.rounds, strings.Join(ts, ", ")))
	}
	if len(b.sess.dropped) > 0 {
		notes = append(notes, "targets refused and replaced: "+strings.Join(b.sess.dropped, "; "))
	}
	if e := b.sess.edit; e.rel != "" {
		kind := "a file of the corpus"
		if e.generated {
			kind = "a generated buffer, not on disk"
		}
		notes = append(notes, fmt.Sprintf("didChange buffer: %s (%d lines, %s); %d single-character edits in a comment near its middle, each followed by a request the server answers MethodNotFound", e.rel, e.lines, kind, b.c.edits))
	}
	return notes
}

// rows turns the measurements into the table.
func (b *bench) rows() []row {
	c := b.c
	var ct procRun
	ctagsCell := "—"
	if len(b.ctags) > 0 {
		ct = fastest(b.ctags)
		ctagsCell = fmtDur(ct.wall)
	}
	vsCtags := func(d time.Duration) float64 { return ratio(float64(d), float64(ct.wall)) }
	var rows []row

	// Indexing, as `ctxd index` (process start to exit).
	if len(b.cold) > 0 {
		r := fastest(b.cold)
		cpu := fmtDur(r.cpu)
		if ct.cpu > 0 {
			cpu += ", " + fmtRatio(ratio(float64(r.cpu), float64(ct.cpu))) + " ctags' CPU"
		}
		x := row{figure: "cold index (ctxd index, empty cache)", ctags: ctagsCell, ratio: vsCtags(r.wall),
			ctxd: fmt.Sprintf("%s (CPU %s)", fmtDur(r.wall), cpu)}
		x.goalRatio(c.goalCold, ct.wall)
		rows = append(rows, x)
	} else {
		rows = append(rows, failedRow("cold index (ctxd index, empty cache)", b.coldErr))
	}
	if len(b.warm) > 0 {
		r := fastest(b.warm)
		rows = append(rows, row{figure: "warm restart (ctxd index, persisted cache)", ctags: ctagsCell, ratio: vsCtags(r.wall),
			ctxd: fmt.Sprintf("%s (CPU %s)", fmtDur(r.wall), fmtDur(r.cpu))})
	} else if b.warmErr != nil {
		rows = append(rows, failedRow("warm restart (ctxd index, persisted cache)", b.warmErr))
	}

	// The first bundle: process start to the answer of the first build.
	first := func(figure string, runs []firstRun, err error, goal bool) {
		if len(runs) == 0 {
			if err == nil {
				err = b.sessErr
			}
			if err == nil {
				err = fmt.Errorf("not measured")
			}
			rows = append(rows, failedRow(figure, err))
			return
		}
		f := runs[0]
		for _, r := range runs[1:] {
			if r.wall < f.wall {
				f = r
			}
		}
		ready := ""
		if f.ready > 0 {
			ready = fmt.Sprintf(", indexing progress ended at %s", fmtDur(f.ready))
		}
		x := row{figure: figure, ctags: ctagsCell, ratio: vsCtags(f.wall),
			ctxd: fmt.Sprintf("%s (CPU %s%s)", fmtDur(f.wall), fmtDur(f.cpu), ready)}
		switch {
		case goal && c.goalFirstAbs > 0:
			x.goalAbs(fmtDur(c.goalFirstAbs), true, f.wall <= c.goalFirstAbs)
		case goal:
			x.goalRatio(c.goalFirst, ct.wall)
		}
		rows = append(rows, x)
	}
	first("first bundle after initialize, empty cache", b.firstCold, b.firstColdErr, true)
	for _, x := range b.extraFirst {
		first("first bundle for "+x.target+" after initialize, empty cache", x.runs, x.err, true)
	}
	first("first bundle after initialize, warm cache", b.firstWarm, b.firstWarmErr, false)

	// Warm requests and keystrokes: one phase of the session each.
	s := b.sess
	latency := func(figure string, ph phase, p float64, unit string, judge func(*row, time.Duration)) {
		if len(ph.lat) == 0 {
			err := b.sessErr
			if err == nil {
				err = fmt.Errorf("not measured")
			}
			rows = append(rows, failedRow(figure, err))
			return
		}
		v := percentile(ph.lat, p)
		detail := fmt.Sprintf("p50 %s, max %s; CPU %s/%s; n=%d", fmtDur(percentile(ph.lat, 50)), fmtDur(percentile(ph.lat, 100)), fmtDur(ph.cpu), unit, len(ph.lat))
		if ph.cut {
			detail += fmt.Sprintf(", cut at -phase-time %s", c.phaseTime)
		}
		if ph.refused > 0 {
			detail += fmt.Sprintf(", %d refused", ph.refused)
		}
		x := row{figure: figure, ctags: ctagsCell, ratio: vsCtags(v),
			ctxd: fmt.Sprintf("p%g %s (%s)", p, fmtDur(v), detail)}
		if judge != nil {
			judge(&x, v)
		}
		rows = append(rows, x)
	}
	buildGoal := func(x *row, p95 time.Duration) {
		if c.goalBuildAbs > 0 {
			x.goalAbs(fmtDur(c.goalBuildAbs), true, p95 <= c.goalBuildAbs)
		} else {
			x.goalRatio(c.goalBuildRatio, ct.wall)
		}
	}
	editGoal := func(x *row, p99 time.Duration) {
		x.goalAbs(fmtDur(c.goalDidChange), true, p99 <= c.goalDidChange)
	}
	latency("warm build, default budget (128k tokens)", s.build, 95, "call", buildGoal)
	latency(fmt.Sprintf("warm build, %dk-token budget", smallBudget/1000), s.buildSmall, 95, "call", buildGoal)
	latency("ctxd.budget, default budget", s.budget, 95, "call", nil)
	latency("didChange round trip, clean buffer", s.clean, 99, "edit", editGoal)
	latency("didChange round trip, broken buffer", s.broken, 99, "edit", editGoal)
	rows = append(rows, b.brokenRow(vsCtags, ctagsCell, ct))

	// Memory.
	ctagsRSS, rssGoal := "—", fmt.Sprintf("%d MB", c.goalRSSMB)
	if ct.rssKB > 0 {
		ctagsRSS = fmtMB(ct.rssKB)
	}
	rss := func(figure string, kB int64, note string, err error) {
		if kB <= 0 {
			if err == nil {
				err = fmt.Errorf("not measured")
			}
			rows = append(rows, failedRow(figure, err))
			return
		}
		x := row{figure: figure, ctxd: fmtMB(kB) + note, ctags: ctagsRSS, ratio: ratio(float64(kB), float64(ct.rssKB))}
		x.goalAbs(rssGoal, true, kB <= c.goalRSSMB*1024)
		rows = append(rows, x)
	}
	var coldRSS int64
	for _, r := range b.cold {
		coldRSS = max(coldRSS, r.rssKB)
	}
	of := " (highest of %d runs)"
	if len(b.cold) == 1 {
		of = " (%d run)"
	}
	rss("peak RSS, ctxd index (empty cache)", coldRSS, fmt.Sprintf(of, len(b.cold)), b.coldErr)
	note := " (the session above: empty cache, builds, edits"
	if s.first.hwmKB > 0 {
		note += "; " + fmtMB(s.first.hwmKB) + " at its first bundle"
	}
	rss("peak RSS, server (VmHWM before shutdown)", s.hwmKB, note+")", b.sessErr)
	var warmHWM int64
	for _, r := range b.firstWarm {
		warmHWM = max(warmHWM, r.hwmKB)
	}
	rss("peak RSS, server started on a warm cache", warmHWM, " (at its first bundle)", b.firstWarmErr)
	return rows
}

// Command relbench measures how relevant ctxd's bundles are, against what
// the compilers say: for a seeded sample of target files of each corpus it
// asks the language's own compiler or interpreter (go/types, the TypeScript
// checker, the Python interpreter, javac's tree API; for C#, which has no
// compiler here, a static resolver) which files each target uses and which
// files use it, builds a `purpose diff` bundle per target at several
// budgets with the ctxd binary, and prints recall, precision and token
// figures side by side with a naive baseline (the target's same-directory
// files). It runs the binary from the outside, so it measures whatever the
// binary does.
//
// Usage: go run ./tools/relbench -ctxd bin/ctxd [-lang go,ts,go2,ts2,py,py2,java,cs] [-n 30] [-seed 1] [-v]
//
// The metric arithmetic is in metrics.go and unit-tested; docs/relations.md
// ("Benchmark: relevance against the compilers") says what each column
// means.
package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// corpusRun is one language's half of the benchmark.
type corpusRun struct {
	title   string
	root    string
	oracle  *Oracle
	targets []string
	sibling func(name string) bool // same language as the targets, for the baseline

	mu   sync.Mutex
	sibs map[string][]Sized // target → siblings, counted once for all budgets
}

// siblingsOf returns (and remembers) the baseline's files for a target.
func (c *corpusRun) siblingsOf(target string) ([]Sized, error) {
	c.mu.Lock()
	s, ok := c.sibs[target]
	c.mu.Unlock()
	if ok {
		return s, nil
	}
	s, err := siblings(c.root, target, c.sibling)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.sibs == nil {
		c.sibs = map[string][]Sized{}
	}
	c.sibs[target] = s
	c.mu.Unlock()
	return s, nil
}

// result is one target at one budget.
type result struct {
	refused      string
	ctxd, base   Scores
	used, users  int
	ctxdFiles    int
	baseFiles    int
	missingUsed  []string // the most used files ctxd left out (for -v)
	reportedDiff int      // ctxd's estimated_input_tokens minus our count
}

func main() {
	ctxdBin := flag.String("ctxd", "bin/ctxd", "ctxd binary to measure (copied to a temp dir for the run)")
	langs := flag.String("lang", strings.Join(corpusNames, ","), "corpora to run, comma-separated: "+strings.Join(corpusNames, ", "))
	n := flag.Int("n", 30, "targets per corpus")
	cacheFlag := flag.String("cache", "", "directory caching downloaded corpora (default $XDG_CACHE_HOME/ctxd-relbench when XDG_CACHE_HOME is set, else a dir in the temp dir)")
	seed := flag.Uint64("seed", 1, "seed of the target sample")
	budgetsFlag := flag.String("budgets", "8000,32000,128000", "effective budgets (hard = soft limit), comma-separated")
	patterns := flag.String("patterns", "std,cmd", "go/packages patterns loaded under GOROOT/src, comma-separated")
	tests := flag.Bool("tests", true, "type-check _test.go files too (they count as users and used files; targets are never tests)")
	maxTarget := flag.Int("max-target-tokens", 6000, "skip targets whose own block is larger (so that the smallest budget can hold them)")
	jobs := flag.Int("j", runtime.NumCPU(), "ctxd builds run at once")
	tsDir := flag.String("ts-dir", "tools/relbench/ts", "directory of the TypeScript oracle (package.json, package-lock.json, oracle.js)")
	verbose := flag.Bool("v", false, "print every target's figures")
	dump := flag.String("dump", "", "print the oracle's used and users files of this target (relative path) and stop before running ctxd")
	keep := flag.Bool("keep", false, "keep the temp dir (index caches, the npm install, the copied workspace)")
	flag.Parse()

	budgets, err := parseBudgets(*budgetsFlag)
	if err != nil {
		fail(err)
	}
	tmp, err := os.MkdirTemp("", "relbench-")
	if err != nil {
		fail(err)
	}
	if *keep {
		fmt.Fprintln(os.Stderr, "relbench: temp dir", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	cache := *cacheFlag
	if cache == "" {
		if x := os.Getenv("XDG_CACHE_HOME"); x != "" {
			cache = filepath.Join(x, "ctxd-relbench")
		} else {
			cache = filepath.Join(tmp, "downloads")
		}
	}
	if cache, err = filepath.Abs(cache); err != nil {
		fail(err)
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		fail(err)
	}
	// bin/ctxd may be rebuilt while the benchmark runs: measure one binary.
	bin := filepath.Join(tmp, "ctxd")
	if err := copyFile(*ctxdBin, bin, 0o755); err != nil {
		fail(fmt.Errorf("copying the ctxd binary: %w", err))
	}
	fmt.Printf("relbench: ctxd build --purpose diff --target T --model %s --max-input-tokens B+%d --response-token-reserve %d --soft-limit-pct 100 --format json --cache-dir TMP (hard = soft = B)\n", Model, Reserve, Reserve)
	fmt.Printf("budgets B: %s; seed %d; token counts: %s\n\n", *budgetsFlag, *seed, estimator.Note())

	for _, lang := range strings.Split(*langs, ",") {
		lang = strings.TrimSpace(lang)
		start := time.Now()
		c, err := openCorpus(lang, env{
			patterns: strings.Split(*patterns, ","), tests: *tests, tsDir: *tsDir,
			tmp: tmp, cache: cache, n: *n, seed: *seed, maxTarget: *maxTarget,
		})
		if err != nil {
			fail(err)
		}
		fmt.Fprintf(os.Stderr, "relbench: %s oracle in %s\n", lang, time.Since(start).Round(time.Second))
		if *dump != "" {
			dumpTruth(os.Stdout, c.oracle, *dump)
			continue
		}
		indexCache := filepath.Join(tmp, "cache-"+lang)
		index := exec.Command(bin, "index", "--root", c.root, "--cache-dir", indexCache)
		index.Stdout, index.Stderr = io.Discard, os.Stderr
		start = time.Now()
		if err := index.Run(); err != nil {
			fail(fmt.Errorf("ctxd index %s: %w", c.root, err))
		}
		fmt.Fprintf(os.Stderr, "relbench: ctxd index in %s\n", time.Since(start).Round(time.Second))
		start = time.Now()
		res, err := evaluate(c, bin, indexCache, budgets, *jobs)
		if err != nil {
			fail(err)
		}
		fmt.Fprintf(os.Stderr, "relbench: %d builds in %s\n", len(budgets)*len(c.targets), time.Since(start).Round(time.Second))
		printTable(os.Stdout, c, budgets, res)
		if *verbose {
			printDetails(os.Stdout, c, budgets, res)
		}
		fmt.Println()
	}
}

// dumpTruth prints what the oracle says about one file, most used first.
func dumpTruth(w io.Writer, o *Oracle, target string) {
	t := o.Truth(target)
	fmt.Fprintf(w, "%s: known to the oracle: %v\n", target, o.Known(target))
	for _, set := range []struct {
		name string
		m    map[string]int
	}{{"used", t.Used}, {"users", t.Users}} {
		fmt.Fprintf(w, "%s (%d files):\n", set.name, len(set.m))
		for _, p := range TopUsers(set.m, len(set.m)) {
			fmt.Fprintf(w, "  %5d %s\n", set.m[p], p)
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "relbench:", err)
	os.Exit(1)
}

func parseBudgets(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		b, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || b <= 0 {
			return nil, fmt.Errorf("bad budget %q", f)
		}
		out = append(out, b)
	}
	return out, nil
}

func copyFile(src, dst string, mode os.FileMode) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, data, mode)
}

// sample draws up to n targets from the sorted candidates in a seeded
// order, skipping files under minBytes or over maxTokens, and returns them
// sorted.
func sample(root string, candidates []string, n int, seed uint64, minBytes, maxTokens int) []string {
	order := slices.Clone(candidates)
	rng := rand.New(rand.NewPCG(seed, 0x72656c62656e6368))
	rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	var out []string
	for _, p := range order {
		if len(out) == n {
			break
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil || len(data) < minBytes || blockTokens(p, string(data)) > maxTokens {
			continue
		}
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// siblings are the target's same-directory files of its language, in path
// order, with the tokens of their whole-file blocks.
func siblings(root, target string, same func(string) bool) ([]Sized, error) {
	dir := path.Dir(target)
	entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(dir)))
	if err != nil {
		return nil, err
	}
	var out []Sized
	for _, e := range entries { // sorted by name
		p := path.Join(dir, e.Name())
		if !e.Type().IsRegular() || p == target || !same(e.Name()) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			return nil, err
		}
		out = append(out, Sized{Path: p, Tokens: blockTokens(p, string(data))})
	}
	return out, nil
}

// evaluate builds every target at every budget, jobs builds at a time.
func evaluate(c *corpusRun, bin, cache string, budgets []int, jobs int) ([][]result, error) {
	res := make([][]result, len(budgets))
	for i := range res {
		res[i] = make([]result, len(c.targets))
	}
	type job struct{ b, t int }
	work := make(chan job)
	var mu sync.Mutex
	var firstErr error
	var wg sync.WaitGroup
	for range max(jobs, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range work {
				r, err := evalOne(c, bin, cache, c.targets[j.t], budgets[j.b])
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				res[j.b][j.t] = r
				mu.Unlock()
			}
		}()
	}
	for t := range c.targets {
		for b := range budgets {
			work <- job{b, t}
		}
	}
	close(work)
	wg.Wait()
	return res, firstErr
}

func evalOne(c *corpusRun, bin, cache, target string, budget int) (result, error) {
	truth := c.oracle.Truth(target)
	run, err := runCtxd(bin, c.root, cache, target, budget)
	if err != nil {
		return result{}, err
	}
	r := result{refused: run.Refused, used: len(truth.Used), users: len(truth.Users)}
	if run.Refused != "" {
		return r, nil
	}
	sibs, err := c.siblingsOf(target)
	if err != nil {
		return result{}, err
	}
	data, err := os.ReadFile(filepath.Join(c.root, filepath.FromSlash(target)))
	if err != nil {
		return result{}, err
	}
	base := Baseline(sibs, run.Fixed+blockTokens(target, string(data)), budget)
	r.ctxd = Score(truth, run.Sel, c.oracle.Known)
	r.base = Score(truth, base, c.oracle.Known)
	r.ctxdFiles, r.baseFiles = len(run.Sel.Files), len(base.Files)
	r.reportedDiff = run.Reported - run.Sel.Total
	for _, p := range TopUsers(truth.Used, len(truth.Used)) {
		if _, ok := run.Sel.Files[p]; !ok && len(r.missingUsed) < 3 {
			r.missingUsed = append(r.missingUsed, p)
		}
	}
	return r, nil
}

func pct(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*v)
}

func num(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return strconv.Itoa(int(math.Round(v)))
}

// printTable prints one row per budget, ctxd and the baseline side by side
// for each figure.
func printTable(w io.Writer, c *corpusRun, budgets []int, res [][]result) {
	fmt.Fprintln(w, c.title)
	fmt.Fprintf(w, "%-7s %4s  %-15s %-15s %-15s %-15s %-15s %-15s %-15s\n", "", "",
		"used files", "used, weighted", "top-10 users", "precision", "neither tokens", "outside oracle", "mean tokens")
	fmt.Fprintf(w, "%-7s %4s ", "budget", "n")
	for range 7 {
		fmt.Fprintf(w, " %-7s %-7s", "ctxd", "base")
	}
	fmt.Fprintln(w)
	for bi, b := range budgets {
		var cs, bs []Scores
		refused := map[string]int{}
		diff := 0
		for _, r := range res[bi] {
			if r.refused != "" {
				refused[r.refused]++
				continue
			}
			cs = append(cs, r.ctxd)
			bs = append(bs, r.base)
			if r.reportedDiff != 0 {
				diff++
			}
		}
		cm, bm := Average(cs), Average(bs)
		cf, bf := cm.fields(), bm.fields()
		fmt.Fprintf(w, "%-7d %4d ", b, len(cs))
		for i := range 6 {
			fmt.Fprintf(w, " %-7s %-7s", pct(cf[i]), pct(bf[i]))
		}
		fmt.Fprintf(w, " %-7s %-7s\n", num(cf[6]), num(bf[6]))
		for code, k := range refused {
			fmt.Fprintf(w, "        ctxd refused %d target(s) at %d: %s\n", k, b, code)
		}
		if diff > 0 {
			fmt.Fprintf(w, "        note: %d bundle(s) whose estimated_input_tokens differs from the per-block count\n", diff)
		}
	}
	fmt.Fprintf(w, "n: builds not refused. Means over targets where each figure is defined (used files: %d targets with any; users: %d).\n",
		count(res, func(r result) bool { return r.used > 0 }), count(res, func(r result) bool { return r.users > 0 }))
}

// count counts the targets of the first budget matching f.
func count(res [][]result, f func(result) bool) int {
	n := 0
	if len(res) > 0 {
		for _, r := range res[0] {
			if f(r) {
				n++
			}
		}
	}
	return n
}

func printDetails(w io.Writer, c *corpusRun, budgets []int, res [][]result) {
	fmt.Fprintln(w, "\nper target (ctxd | baseline): used%, used weighted%, top-10 users%, precision%, neither tokens%, files, tokens")
	for ti, t := range c.targets {
		r0 := res[0][ti]
		fmt.Fprintf(w, "%s  (used %d files, users %d files)\n", t, r0.used, r0.users)
		for bi, b := range budgets {
			r := res[bi][ti]
			if r.refused != "" {
				fmt.Fprintf(w, "  %-7d refused: %s\n", b, r.refused)
				continue
			}
			line := func(s Scores, files int) string {
				return fmt.Sprintf("%6s %6s %6s %6s %6s %3d %6s", pct(s.UsedRecall), pct(s.WeightedRecall), pct(s.TopUsersRecall),
					pct(s.Precision), pct(s.NeitherShare), files, num(s.Tokens))
			}
			fmt.Fprintf(w, "  %-7d %s | %s", b, line(r.ctxd, r.ctxdFiles), line(r.base, r.baseFiles))
			if len(r.missingUsed) > 0 {
				fmt.Fprintf(w, "  missed: %s", strings.Join(r.missingUsed, " "))
			}
			fmt.Fprintln(w)
		}
	}
}

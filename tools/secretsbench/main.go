// Command secretsbench measures ctxd's secret scanner (secrets.Default())
// on the generated corpus of contextbuilder/secrets/secretstest (a fixed
// seed: fake secrets of every type in every file kind, plus hard
// negatives) and on the Go source tree, and, when gitleaks is on PATH,
// gitleaks on the same files in the same run:
//
//   - recall per credential type: a planted secret is found when a
//     finding's span covers its value (exactly or more);
//   - overall recall of prefixed and contextual types;
//   - false positives on the hard negatives (files with any finding, and
//     the number of findings);
//   - throughput in MB/s on the corpus and on the .go files of
//     $(go env GOROOT)/src (a sample of at least -gosrc-mb MB);
//   - CPU time (user + system, getrusage) of ctxd's scan against the CPU
//     time of the whole gitleaks process on the same files: the speed
//     target is a CPU-time ratio, which the number of cores and the
//     machine's load do not skew as wall time does.
//
// The targets are printed next to the figures: 100% recall on prefixed
// types, >= 95% on contextual ones, <= 5% false positives, gitleaks using
// >= 5x ctxd's CPU time on the same input. Missing a target is reported, not an error: the
// exit status is non-zero only when something fails to run.
//
// Usage: go run ./tools/secretsbench [-seed N] [-gosrc-mb 24] [-runs 3] [-gitleaks PATH] [-v]
package main

import (
	"bytes"
	"debug/buildinfo"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ctxd/ctxd/contextbuilder/secrets"
	"github.com/ctxd/ctxd/contextbuilder/secrets/secretstest"
	"github.com/ctxd/ctxd/tools/corpus"
)

// Seed is the corpus seed of the published figures.
const Seed = 0x5ec2e75

// Targets.
const (
	targetPrefixed   = 100.0
	targetContextual = 95.0
	targetFP         = 5.0
	targetSpeedup    = 5.0 // gitleaks CPU time / ctxd CPU time
)

type options struct {
	seed     uint64
	gosrcMB  int
	runs     int
	gitleaks string
	verbose  bool
}

func main() {
	var o options
	flag.Uint64Var(&o.seed, "seed", Seed, "corpus seed")
	flag.IntVar(&o.gosrcMB, "gosrc-mb", 24, "MB of GOROOT/src .go files to scan for throughput (0: all)")
	flag.IntVar(&o.runs, "runs", 3, "runs per throughput measurement; the fastest is reported")
	flag.StringVar(&o.gitleaks, "gitleaks", "", "gitleaks binary (default: gitleaks on PATH; \"off\" skips it)")
	flag.BoolVar(&o.verbose, "v", false, "list every miss and false positive (default: up to 5 per type)")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "secretsbench:", err)
		os.Exit(1)
	}
}

// doc is one scanned file.
type doc struct {
	rel  string // slash path relative to the scanned directory
	data []byte
}

// finding is a finding of either scanner, reduced to what the report
// compares.
type finding struct {
	rule       string
	start, end int    // ctxd: byte span; gitleaks: -1
	secret     string // gitleaks: the reported secret
	line       int
}

// result is one scanner's findings on the corpus, by path.
type result struct {
	name     string
	byPath   map[string][]finding
	refused  int // files the scanner refused (ctxd: ErrUndecodable)
	version  string
	duration time.Duration
}

func run(o options) error {
	c := secretstest.Generate(o.seed)
	tmp, err := os.MkdirTemp("", "secretsbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	corpusDir := filepath.Join(tmp, "corpus")
	if err := c.WriteTo(corpusDir); err != nil {
		return err
	}
	docs := make([]doc, len(c.Files))
	var corpusBytes int64
	for i, f := range c.Files {
		docs[i] = doc{rel: f.Path, data: f.Data}
		corpusBytes += int64(len(f.Data))
	}

	sc := secrets.Default()
	ctxd, err := scanCtxd(sc, docs)
	if err != nil {
		return err
	}
	ctxd.version = sc.Version()

	gl := o.gitleaks
	if gl == "" {
		gl, _ = exec.LookPath("gitleaks")
	}
	if gl == "off" {
		gl = ""
	}
	var leaks *result
	if gl != "" {
		leaks, err = runGitleaks(gl, corpusDir, o.runs)
		if err != nil {
			return err
		}
	}

	fmt.Printf("secrets bench: corpus seed %#x: %d planted secrets of %d types in %d files (%s), %d hard negatives\n",
		c.Seed, len(c.Secrets), len(c.Types), len(c.Files)-len(c.Negatives()), mb(corpusBytes), len(c.Negatives()))
	fmt.Printf("ctxd: secrets.Default(), rule set %s, %d rules\n", sc.Version(), len(sc.Rules()))
	if leaks != nil {
		fmt.Printf("gitleaks: %s (%s), default rules, same files, same run\n", gl, leaks.version)
	} else {
		fmt.Println("gitleaks: not on PATH; no comparison (make secrets-bench installs github.com/zricethezav/gitleaks/v8@v8.30.1 into a temporary GOBIN)")
	}
	fmt.Println()
	report(c, sc, ctxd, leaks, o)

	// Throughput.
	fmt.Println()
	fmt.Printf("throughput (target: gitleaks CPU time >= %.0fx ctxd's; ctxd scans in memory on 1 goroutine, and reads+scans the directory on %d goroutines; gitleaks is its whole process on the same directory)\n", targetSpeedup, runtime.GOMAXPROCS(0))
	if err := throughput("corpus", sc, docs, corpusDir, gl, o.runs, leaks); err != nil {
		return err
	}
	src, err := corpus.GoSrc()
	if err != nil {
		fmt.Println("  go src: not available:", err)
		return nil
	}
	goDir := filepath.Join(tmp, "gosrc")
	goDocs, err := sampleGoSrc(src, goDir, int64(o.gosrcMB)<<20)
	if err != nil {
		return err
	}
	return throughput(fmt.Sprintf("GOROOT/src .go sample (%d files)", len(goDocs)), sc, goDocs, goDir, gl, o.runs, nil)
}

func mb(n int64) string { return fmt.Sprintf("%.2f MB", float64(n)/1e6) }

// scanCtxd scans every document once, recording findings by path.
func scanCtxd(sc *secrets.Scanner, docs []doc) (*result, error) {
	r := &result{name: "ctxd", byPath: map[string][]finding{}}
	start := time.Now()
	for _, d := range docs {
		fs, err := sc.Scan(d.rel, d.data)
		if errors.Is(err, secrets.ErrUndecodable) {
			r.refused++
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("ctxd scan %s: %w", d.rel, err)
		}
		for _, f := range fs {
			r.byPath[d.rel] = append(r.byPath[d.rel], finding{rule: f.RuleID, start: f.Start, end: f.End, line: f.Line})
		}
	}
	r.duration = time.Since(start)
	return r, nil
}

// gitleaksFinding is the part of gitleaks' JSON report used here.
type gitleaksFinding struct {
	RuleID    string
	File      string
	Secret    string
	Match     string
	StartLine int
}

func gitleaksVersion(bin string) string {
	if bi, err := buildinfo.ReadFile(bin); err == nil && bi.Main.Version != "" {
		return bi.Main.Path + " " + bi.Main.Version
	}
	out, _ := exec.Command(bin, "version").Output()
	return strings.TrimSpace(string(out))
}

// gitleaksDir runs gitleaks on dir and returns its findings, wall time
// and CPU time (user + system).
func gitleaksDir(bin, dir string) ([]gitleaksFinding, time.Duration, time.Duration, error) {
	rep, err := os.CreateTemp("", "gitleaks-*.json")
	if err != nil {
		return nil, 0, 0, err
	}
	rep.Close()
	defer os.Remove(rep.Name())
	cmd := exec.Command(bin, "dir", dir, "--report-format", "json", "--report-path", rep.Name(), "--no-banner", "--exit-code", "0", "--log-level", "error")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err = cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("gitleaks: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	data, err := os.ReadFile(rep.Name())
	if err != nil {
		return nil, 0, 0, err
	}
	var fs []gitleaksFinding
	if err := json.Unmarshal(data, &fs); err != nil {
		return nil, 0, 0, fmt.Errorf("gitleaks report: %w", err)
	}
	return fs, wall, cpu, nil
}

func runGitleaks(bin, dir string, runs int) (*result, error) {
	fs, wall, _, err := gitleaksDir(bin, dir)
	if err != nil {
		return nil, err
	}
	r := &result{name: "gitleaks", byPath: map[string][]finding{}, version: gitleaksVersion(bin), duration: wall}
	for _, f := range fs {
		rel, err := filepath.Rel(dir, f.File)
		if err != nil || strings.HasPrefix(rel, "..") {
			rel = f.File
		}
		rel = filepath.ToSlash(rel)
		r.byPath[rel] = append(r.byPath[rel], finding{rule: f.RuleID, start: -1, end: -1, secret: f.Secret, line: f.StartLine})
	}
	return r, nil
}

// covers reports whether f covers the secret s.
func covers(f finding, s *secretstest.Secret) bool {
	if f.start >= 0 {
		return f.start <= s.Start && f.end >= s.End
	}
	return strings.Contains(f.secret, s.Value)
}

// overlaps reports whether f touches s without covering it.
func overlaps(f finding, s *secretstest.Secret) bool {
	if f.start >= 0 {
		return f.start < s.End && f.end > s.Start
	}
	return f.secret != "" && strings.Contains(s.Value, f.secret)
}

// outcome is how one scanner did on one planted secret.
type outcome struct {
	found   bool
	byRule  bool   // found by one of the expected rules
	partial string // a finding overlapping without covering (a redaction that leaves part)
	rules   []string
}

func judge(r *result, s *secretstest.Secret) outcome {
	var o outcome
	for _, f := range r.byPath[s.Path] {
		switch {
		case covers(f, s):
			o.found = true
			if slices.Contains(s.Rules, f.rule) {
				o.byRule = true
			}
			if !slices.Contains(o.rules, f.rule) {
				o.rules = append(o.rules, f.rule)
			}
		case overlaps(f, s) && o.partial == "":
			if f.start >= 0 {
				o.partial = fmt.Sprintf("%s [%d,%d) vs secret [%d,%d)", f.rule, f.start, f.end, s.Start, s.End)
			} else {
				o.partial = fmt.Sprintf("%s %q", f.rule, f.secret)
			}
		}
	}
	return o
}

type tally struct{ n, found, byRule int }

func (t tally) pct() float64 {
	if t.n == 0 {
		return 0
	}
	return 100 * float64(t.found) / float64(t.n)
}

func pctOf(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

func report(c *secretstest.Corpus, sc *secrets.Scanner, ctxd, leaks *result, o options) {
	ruleIDs := map[string]bool{}
	for _, r := range sc.Rules() {
		ruleIDs[r.ID] = true
	}
	type row struct {
		typ   secretstest.Type
		ctxd  tally
		leaks tally
		rules map[string]int
		miss  []string
	}
	rows := map[string]*row{}
	var order []string
	for _, t := range c.Types {
		rows[t.Name] = &row{typ: t, rules: map[string]int{}}
		order = append(order, t.Name)
	}
	var classC, classL = map[secretstest.Class]*tally{secretstest.Prefixed: {}, secretstest.Contextual: {}}, map[secretstest.Class]*tally{secretstest.Prefixed: {}, secretstest.Contextual: {}}
	byKind := map[secretstest.FileKind]*[2]tally{}
	for i := range c.Secrets {
		s := &c.Secrets[i]
		rw := rows[s.Type]
		if rw == nil { // a type planted alongside another (the key id next to an AWS secret)
			rw = &row{typ: secretstest.Type{Name: s.Type, Class: s.Class, Rules: s.Rules}, rules: map[string]int{}}
			rows[s.Type] = rw
			order = append(order, s.Type)
		}
		oc := judge(ctxd, s)
		add := func(t *tally, oc outcome) {
			t.n++
			if oc.found {
				t.found++
			}
			if oc.byRule {
				t.byRule++
			}
		}
		add(&rw.ctxd, oc)
		add(classC[s.Class], oc)
		if byKind[s.Kind] == nil {
			byKind[s.Kind] = &[2]tally{}
		}
		add(&byKind[s.Kind][0], oc)
		for _, r := range oc.rules {
			rw.rules[r]++
		}
		if !oc.found {
			why := "no finding"
			if oc.partial != "" {
				why = "partial span: " + oc.partial
			}
			rw.miss = append(rw.miss, fmt.Sprintf("%s:%d (%s, %s) %s\n        value: %s", s.Path, s.Line, s.Kind, s.Variant, why, quoteValue(s.Value)))
		}
		if leaks != nil {
			ol := judge(leaks, s)
			add(&rw.leaks, ol)
			add(classL[s.Class], ol)
			add(&byKind[s.Kind][1], ol)
		}
	}

	// Per type.
	gl := leaks != nil
	fmt.Printf("recall per type (found: a finding covers the value; \"by rule\": found by an expected rule id)\n")
	hdr := fmt.Sprintf("  %-33s %-10s %4s  %7s %7s", "type", "class", "n", "ctxd", "by rule")
	if gl {
		hdr += fmt.Sprintf("  %8s", "gitleaks")
	}
	fmt.Println(hdr + "  ctxd rules that found it")
	for _, name := range order {
		rw := rows[name]
		exp := strings.Join(rw.typ.Rules, "|")
		known := false
		for _, r := range rw.typ.Rules {
			known = known || ruleIDs[r]
		}
		byRule := fmt.Sprintf("%6.1f%%", pctOf(rw.ctxd.byRule, rw.ctxd.n))
		if !known {
			byRule = "  no " + "rule"
		}
		mark := " "
		if rw.ctxd.found < rw.ctxd.n {
			mark = "!"
		}
		line := fmt.Sprintf("%s %-33s %-10s %4d  %6.1f%% %7s", mark, name, rw.typ.Class, rw.ctxd.n, rw.ctxd.pct(), byRule)
		if gl {
			line += fmt.Sprintf("  %7.1f%%", rw.leaks.pct())
		}
		// The rules that found it, the expected ones first, then by count.
		ids := make([]string, 0, len(rw.rules))
		for r := range rw.rules {
			ids = append(ids, r)
		}
		sort.Slice(ids, func(i, j int) bool {
			ei, ej := slices.Contains(rw.typ.Rules, ids[i]), slices.Contains(rw.typ.Rules, ids[j])
			if ei != ej {
				return ei
			}
			if rw.rules[ids[i]] != rw.rules[ids[j]] {
				return rw.rules[ids[i]] > rw.rules[ids[j]]
			}
			return ids[i] < ids[j]
		})
		var rs []string
		for i, r := range ids {
			if i == 3 && !o.verbose {
				rs = append(rs, fmt.Sprintf("+%d more", len(ids)-i))
				break
			}
			rs = append(rs, fmt.Sprintf("%s(%d)", r, rw.rules[r]))
		}
		if !known {
			rs = append(rs, "[expected "+exp+": no such rule]")
		}
		fmt.Println(line + "  " + strings.Join(rs, " "))
	}

	fmt.Println()
	fmt.Println("recall per file kind")
	for _, k := range append(slices.Clone(secretstest.Kinds), secretstest.KindKey) {
		t := byKind[k]
		if t == nil {
			continue
		}
		line := fmt.Sprintf("  %-11s %4d  ctxd %6.1f%%", k, t[0].n, t[0].pct())
		if gl {
			line += fmt.Sprintf("  gitleaks %6.1f%%", t[1].pct())
		}
		fmt.Println(line)
	}

	fmt.Println()
	fmt.Println("overall recall")
	for _, cl := range []secretstest.Class{secretstest.Prefixed, secretstest.Contextual} {
		target := targetPrefixed
		if cl == secretstest.Contextual {
			target = targetContextual
		}
		t := classC[cl]
		status := "MET"
		if t.pct() < target {
			status = "MISSED"
		}
		line := fmt.Sprintf("  %-10s ctxd %6.2f%% (%d/%d)  target >= %.0f%%: %-6s", cl, t.pct(), t.found, t.n, target, status)
		if gl {
			l := classL[cl]
			line += fmt.Sprintf("  gitleaks %6.2f%% (%d/%d)", l.pct(), l.found, l.n)
		}
		fmt.Println(line)
	}

	// False positives.
	negs := c.Negatives()
	fp := func(r *result) (files, findings int, list []string) {
		for _, f := range negs {
			fs := r.byPath[f.Path]
			if len(fs) == 0 {
				continue
			}
			files++
			findings += len(fs)
			for _, x := range fs {
				text := ""
				if x.start >= 0 {
					text = string(f.Data[x.start:x.end])
				} else {
					text = x.secret
				}
				list = append(list, fmt.Sprintf("%s:%d [%s] rule %s: %s", f.Path, x.line, f.Negative, x.rule, quoteValue(text)))
			}
		}
		return
	}
	cf, cn, clist := fp(ctxd)
	fmt.Println()
	status := "MET"
	if pctOf(cf, len(negs)) > targetFP {
		status = "MISSED"
	}
	line := fmt.Sprintf("false positives on %d hard negatives: ctxd %d files (%.1f%%), %d findings  target <= %.0f%%: %s", len(negs), cf, pctOf(cf, len(negs)), cn, targetFP, status)
	var llist []string
	if gl {
		lf, ln, l := fp(leaks)
		llist = l
		line += fmt.Sprintf("  gitleaks %d files (%.1f%%), %d findings", lf, pctOf(lf, len(negs)), ln)
	}
	fmt.Println(line)

	// Findings in positive files that touch no planted secret.
	stray := func(r *result) (n int, list []string) {
		for _, f := range c.Files {
			if f.Negative != "" {
				continue
			}
			ss := c.SecretsIn(f.Path)
			for _, x := range r.byPath[f.Path] {
				hit := false
				for i := range ss {
					if covers(x, &ss[i]) || overlaps(x, &ss[i]) {
						hit = true
						break
					}
				}
				if !hit {
					n++
					text := x.secret
					if x.start >= 0 {
						text = string(f.Data[x.start:x.end])
					}
					list = append(list, fmt.Sprintf("%s:%d rule %s: %s", f.Path, x.line, x.rule, quoteValue(text)))
				}
			}
		}
		return
	}
	sn, slist := stray(ctxd)
	line = fmt.Sprintf("findings in files with planted secrets that touch none of them: ctxd %d", sn)
	if gl {
		ln, _ := stray(leaks)
		line += fmt.Sprintf("  gitleaks %d", ln)
	}
	fmt.Println(line)
	if ctxd.refused > 0 {
		fmt.Printf("corpus files ctxd refused as undecodable: %d\n", ctxd.refused)
	}

	// Unused rules: rules no corpus file triggered.
	seen := map[string]bool{}
	for _, fs := range ctxd.byPath {
		for _, f := range fs {
			seen[f.rule] = true
		}
	}
	var unused []string
	for _, r := range sc.Rules() {
		if !seen[r.ID] {
			unused = append(unused, r.ID)
		}
	}
	if len(unused) > 0 {
		fmt.Printf("ctxd rules no corpus file triggered (%d): %s\n", len(unused), strings.Join(unused, ", "))
	}

	// Details.
	limit := 5
	if o.verbose {
		limit = 1 << 30
	}
	var missTotal int
	for _, name := range order {
		missTotal += len(rows[name].miss)
	}
	if missTotal > 0 {
		fmt.Println()
		fmt.Printf("ctxd misses (%d):\n", missTotal)
		for _, name := range order {
			rw := rows[name]
			if len(rw.miss) == 0 {
				continue
			}
			fmt.Printf("  %s: %d of %d missed\n", name, len(rw.miss), rw.ctxd.n)
			for i, m := range rw.miss {
				if i == limit {
					fmt.Printf("    … %d more (-v lists all)\n", len(rw.miss)-limit)
					break
				}
				fmt.Println("    " + m)
			}
		}
	}
	if len(clist) > 0 {
		fmt.Println()
		fmt.Printf("ctxd false positives (%d findings):\n", len(clist))
		for _, l := range clist {
			fmt.Println("    " + l)
		}
	}
	if len(slist) > 0 {
		fmt.Println()
		fmt.Printf("ctxd findings touching no planted secret (%d):\n", len(slist))
		for i, l := range slist {
			if i == 4*limit {
				fmt.Printf("    … %d more (-v lists all)\n", len(slist)-i)
				break
			}
			fmt.Println("    " + l)
		}
	}
	if o.verbose && len(llist) > 0 {
		fmt.Println()
		fmt.Printf("gitleaks false positives (%d findings):\n", len(llist))
		for _, l := range llist {
			fmt.Println("    " + l)
		}
	}
}

// quoteValue shows a value on one line, shortened in the middle when long.
func quoteValue(v string) string {
	if len(v) > 160 {
		v = v[:100] + "…" + v[len(v)-40:]
	}
	return fmt.Sprintf("%q", v)
}

// throughput measures ctxd (in memory on one goroutine; reading and
// scanning the directory on GOMAXPROCS goroutines) and gitleaks on dir.
func throughput(label string, sc *secrets.Scanner, docs []doc, dir, gl string, runs int, leaks *result) error {
	var total int64
	for _, d := range docs {
		total += int64(len(d.data))
	}
	best := func(f func() (time.Duration, error)) (time.Duration, error) {
		var b time.Duration
		for i := range max(runs, 1) {
			d, err := f()
			if err != nil {
				return 0, err
			}
			if i == 0 || d < b {
				b = d
			}
		}
		return b, nil
	}
	var oneCPU time.Duration
	one, err := best(func() (time.Duration, error) {
		runtime.GC()
		start, cpu0 := time.Now(), processCPU()
		for _, d := range docs {
			if _, err := sc.Scan(d.rel, d.data); err != nil && !errors.Is(err, secrets.ErrUndecodable) {
				return 0, err
			}
		}
		wall, cpu := time.Since(start), processCPU()-cpu0
		if oneCPU == 0 || cpu < oneCPU {
			oneCPU = cpu
		}
		return wall, nil
	})
	if err != nil {
		return err
	}
	par, err := best(func() (time.Duration, error) { return scanDir(sc, dir) })
	if err != nil {
		return err
	}
	rate := func(d time.Duration) float64 { return float64(total) / 1e6 / d.Seconds() }
	fmt.Printf("  %s, %s:\n", label, mb(total))
	fmt.Printf("    ctxd     1 goroutine, in memory     %8.1f MB/s  (%v; %v CPU, %.1f MB per CPU-second)\n", rate(one), one.Round(time.Millisecond), oneCPU.Round(time.Millisecond), float64(total)/1e6/oneCPU.Seconds())
	fmt.Printf("    ctxd     %d goroutines, read + scan  %8.1f MB/s  (%v)\n", runtime.GOMAXPROCS(0), rate(par), par.Round(time.Millisecond))
	if gl == "" {
		return nil
	}
	var glCPU time.Duration
	glBest, err := best(func() (time.Duration, error) {
		_, d, cpu, err := gitleaksDir(gl, dir)
		if glCPU == 0 || cpu < glCPU {
			glCPU = cpu
		}
		return d, err
	})
	if err != nil {
		return err
	}
	if leaks != nil && leaks.duration < glBest {
		glBest = leaks.duration
	}
	ratio := glCPU.Seconds() / oneCPU.Seconds()
	status := "MET"
	if oneCPU == 0 {
		status = "NOT MEASURED (no getrusage)"
	} else if ratio < targetSpeedup {
		status = "MISSED"
	}
	fmt.Printf("    gitleaks dir, whole process        %8.1f MB/s  (%v; %v CPU, %.1f MB per CPU-second)\n", rate(glBest), glBest.Round(time.Millisecond), glCPU.Round(time.Millisecond), float64(total)/1e6/glCPU.Seconds())
	fmt.Printf("    CPU time, gitleaks (whole process) vs ctxd (scan, process rusage): %.1fx  target >= %.0fx: %s\n", ratio, targetSpeedup, status)
	fmt.Printf("    wall time, gitleaks vs ctxd (read + scan, %d goroutines): %.1fx (not the target: it depends on cores and load)\n", runtime.GOMAXPROCS(0), glBest.Seconds()/par.Seconds())
	return nil
}

// scanDir walks dir, reading and scanning every regular file on
// GOMAXPROCS goroutines, and returns the wall time.
func scanDir(sc *secrets.Scanner, dir string) (time.Duration, error) {
	start := time.Now()
	paths := make(chan string, 256)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range paths {
				data, err := os.ReadFile(p)
				if err == nil {
					_, err = sc.Scan(p, data)
					if errors.Is(err, secrets.ErrUndecodable) {
						err = nil
					}
				}
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			paths <- p
		}
		return nil
	})
	close(paths)
	wg.Wait()
	if err == nil {
		err = firstErr
	}
	return time.Since(start), err
}

// sampleGoSrc copies a deterministic sample of at least limit bytes of
// the .go files under src (every n-th file in path order, so that the
// sample spans the tree) to dir, and returns them. limit <= 0 copies all.
func sampleGoSrc(src, dir string, limit int64) ([]doc, error) {
	type file struct {
		rel  string
		size int64
	}
	var files []file
	var total int64
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		files = append(files, file{rel, info.Size()})
		total += info.Size()
		return nil
	})
	if err != nil {
		return nil, err
	}
	step := 1
	if limit > 0 && total > limit {
		step = int(total / limit)
	}
	var docs []doc
	var got int64
	for i := 0; i < len(files); i++ {
		if i%step != 0 {
			continue
		}
		f := files[i]
		data, err := os.ReadFile(filepath.Join(src, f.rel))
		if err != nil {
			return nil, err
		}
		out := filepath.Join(dir, f.rel)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(out, data, 0o644); err != nil {
			return nil, err
		}
		docs = append(docs, doc{rel: filepath.ToSlash(f.rel), data: data})
		got += int64(len(data))
	}
	return docs, nil
}

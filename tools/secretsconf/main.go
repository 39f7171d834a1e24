// Command secretsconf is ctxd's secret-scanning conformance run against
// gitleaks' own test data: every true-positive and false-positive sample
// that the rule generator of gitleaks (default v8.30.1) validates its
// rules with.
//
// For each true positive it writes a workspace file holding the sample,
// builds a bundle whose target is that file through the real context
// builder (contextbuilder.Build on an index of the workspace, secrets.Default()
// as the redactor, exactly as `ctxd build --purpose diff --target` does)
// and checks that no secret gitleaks reports in the sample appears in the
// JSON output (bundle, manifest and reports, or the refusal). For each
// false positive it counts the builds that redacted something and the
// builds refused with REFUSE_SECRET_RISK.
//
// It exits 1 when a true positive leaks or when more than -max-fp-refusals
// percent of the false positives are refused, 2 when it cannot run.
//
// The samples come from the generator itself, built at run time from a
// temporary copy of the gitleaks module (downloaded through the Go module
// proxy) whose validate helper is replaced by a recorder (hook.go.txt):
// no gitleaks code is committed to ctxd, and this tool has its own go.mod
// so that gitleaks is never a dependency of the main module.
//
// Usage: go run . [-gitleaks-version v8.30.1] [-samples FILE.jsonl] [-max-fp-refusals 1] [-v]
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/contextbuilder/secrets"
	"github.com/ctxd/ctxd/contextbuilder/tokens"
	"github.com/ctxd/ctxd/index"
)

type options struct {
	version      string
	samples      string
	saveSamples  string
	maxFPRefusal float64
	verbose      bool
}

func main() {
	var o options
	flag.StringVar(&o.version, "gitleaks-version", "v8.30.1", "gitleaks version whose rule generator provides the samples")
	flag.StringVar(&o.samples, "samples", "", "read the samples from this JSON-lines file instead of running the generator")
	flag.StringVar(&o.saveSamples, "save-samples", "", "also write the collected samples to this JSON-lines file")
	flag.Float64Var(&o.maxFPRefusal, "max-fp-refusals", 1, "maximum percentage of false-positive samples refused with REFUSE_SECRET_RISK")
	flag.BoolVar(&o.verbose, "v", false, "list every leaking sample and every refused false positive")
	flag.Parse()
	code, err := run(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "secretsconf:", err)
		os.Exit(2)
	}
	os.Exit(code)
}

// outcome is the result of one sample's build.
type outcome struct {
	s        *sample
	path     string
	refused  contextbuilder.RefusalCode
	redacted int      // pattern_redacted entries and secret_risk exclusions of the target
	leaked   []string // secrets found in the output (true positives)
	buildErr error
}

func run(o options) (int, error) {
	tmp, err := os.MkdirTemp("", "secretsconf")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	logf := func(format string, a ...any) { fmt.Fprintf(os.Stderr, format+"\n", a...) }

	var samples []sample
	if o.samples != "" {
		samples, err = readSamples(o.samples)
	} else {
		samples, err = collect(o.version, tmp, logf)
	}
	if err != nil {
		return 0, err
	}
	if o.saveSamples != "" {
		if err := writeSamples(o.saveSamples, samples); err != nil {
			return 0, err
		}
	}

	// The workspace: one directory per sample, so that a build of one
	// sample's file does not reach another's.
	root := filepath.Join(tmp, "ws")
	outs := make([]outcome, len(samples))
	for i := range samples {
		s := &samples[i]
		name := "sample.txt"
		if s.Path != "" {
			name = filepath.Base(s.Path) // path-based rules (pkcs12 files, kubernetes secrets, nuget.config)
		}
		kind := "fp"
		if s.Positive {
			kind = "tp"
		}
		rel := fmt.Sprintf("%s/%s/%04d/%s", kind, s.Rule, i, name)
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return 0, err
		}
		if err := os.WriteFile(p, []byte(s.Text), 0o644); err != nil {
			return 0, err
		}
		outs[i] = outcome{s: s, path: rel}
	}

	start := time.Now()
	ctx := context.Background()
	x := index.New(index.Options{CacheDir: "off"})
	defer x.Close()
	x.SetRoots([]index.Root{{URI: index.PathToURI(root), Name: "conformance", Dir: root}})
	snap, err := x.Wait(ctx)
	if err != nil {
		return 0, err
	}
	sc := secrets.Default()
	opts := contextbuilder.Options{
		Redactor: sc,
		Tokens:   tokens.NewCache(0),
		Scans:    contextbuilder.NewScanCache(0),
	}
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				buildOne(ctx, snap, opts, &outs[i])
			}
		}()
	}
	for i := range outs {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return report(o, sc, outs, time.Since(start)), nil
}

// buildOne builds the bundle of one sample and judges it.
func buildOne(ctx context.Context, snap *index.Snapshot, opts contextbuilder.Options, o *outcome) {
	req := &contextbuilder.Request{
		Purpose:  contextbuilder.PurposeDiff,
		PlanStep: &contextbuilder.PlanStep{ID: "conformance", Text: "Review this file.", TargetFiles: []string{o.path}},
	}
	res, err := contextbuilder.Build(ctx, snap, req, opts)
	var out any = res
	var ref *contextbuilder.Refusal
	var rep *contextbuilder.RedactionReport
	switch {
	case errors.As(err, &ref):
		o.refused = ref.Code
		out = map[string]any{"refusal": ref}
		rep = ref.RedactionReport
	case err != nil:
		o.buildErr = err
		return
	default:
		rep = res.RedactionReport
	}
	if rep != nil {
		for _, r := range rep.Redactions {
			if r.Target == o.path && (r.Type == contextbuilder.RedactPatternRedacted || r.Reason == contextbuilder.RedactReasonSecret) {
				o.redacted++
			}
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		o.buildErr = err
		return
	}
	if !o.s.Positive {
		return
	}
	for _, v := range leakValues(o.s) {
		if bytes.Contains(buf.Bytes(), []byte(v)) || bytes.Contains(buf.Bytes(), []byte(jsonString(v))) {
			o.leaked = append(o.leaked, v)
		}
	}
}

// leakValues are the strings whose presence in the output is a leak: each
// secret gitleaks reports in the sample, when it occurs in the sample as
// is; for a secret gitleaks found only after decoding (base64, hex,
// percent-encoding), the match it reports, which holds the encoded form.
func leakValues(s *sample) []string {
	var out []string
	for i, v := range s.Secrets {
		if strings.TrimSpace(v) == "" {
			continue
		}
		if strings.Contains(s.Text, v) {
			out = append(out, v)
			continue
		}
		if i < len(s.Matches) && strings.Contains(s.Text, s.Matches[i]) {
			out = append(out, strings.TrimSpace(s.Matches[i]))
		}
	}
	return out
}

// jsonString is v as the body of a JSON string (no quotes, no HTML
// escaping).
func jsonString(v string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	b := bytes.TrimSpace(buf.Bytes())
	return string(b[1 : len(b)-1])
}

func report(o options, sc *secrets.Scanner, outs []outcome, elapsed time.Duration) int {
	type tally struct{ n, leaked, refused, redacted, nosecret int }
	byRule := map[string]*tally{}
	var tp, fp tally
	var errs []string
	var leaks, fpRefused []string
	for i := range outs {
		x := &outs[i]
		if x.buildErr != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", x.path, x.buildErr))
			continue
		}
		t := &fp
		if x.s.Positive {
			t = &tp
			if byRule[x.s.Rule] == nil {
				byRule[x.s.Rule] = &tally{}
			}
			r := byRule[x.s.Rule]
			r.n++
			if len(leakValues(x.s)) == 0 {
				r.nosecret++
				tp.nosecret++
			}
			if len(x.leaked) > 0 {
				r.leaked++
				leaks = append(leaks, fmt.Sprintf("%s (%s): %q", x.s.Rule, x.path, x.leaked))
			}
		}
		t.n++
		if len(x.leaked) > 0 {
			t.leaked++
		}
		if x.refused == contextbuilder.RefuseSecretRisk {
			t.refused++
			if !x.s.Positive {
				fpRefused = append(fpRefused, fmt.Sprintf("%s (%s): %q", x.s.Rule, x.path, x.s.Text))
			}
		}
		if x.redacted > 0 {
			t.redacted++
		}
	}
	fmt.Printf("secrets conformance: gitleaks %s rule generator samples, ctxd rule set %s (%d rules), real builder pipeline, %v\n",
		o.version, sc.Version(), len(sc.Rules()), elapsed.Round(time.Millisecond))
	fmt.Printf("true positives:  %d samples of %d rules: %d leak, %d refused (REFUSE_SECRET_RISK), %d redacted\n",
		tp.n, len(byRule), tp.leaked, tp.refused, tp.redacted)
	if tp.nosecret > 0 {
		fmt.Printf("                 (%d samples in which gitleaks reports no secret: checked for nothing)\n", tp.nosecret)
	}
	pct := 0.0
	if fp.n > 0 {
		pct = 100 * float64(fp.refused) / float64(fp.n)
	}
	fmt.Printf("false positives: %d samples: %d refused (%.2f%%, limit %.2f%%), %d redacted (acceptable)\n", fp.n, fp.refused, pct, o.maxFPRefusal, fp.redacted)
	if len(errs) > 0 {
		fmt.Printf("build errors (%d):\n", len(errs))
		for _, e := range errs {
			fmt.Println("  " + e)
		}
	}
	if tp.leaked > 0 {
		var ids []string
		for id, t := range byRule {
			if t.leaked > 0 {
				ids = append(ids, id)
			}
		}
		sort.Slice(ids, func(i, j int) bool {
			if byRule[ids[i]].leaked != byRule[ids[j]].leaked {
				return byRule[ids[i]].leaked > byRule[ids[j]].leaked
			}
			return ids[i] < ids[j]
		})
		fmt.Printf("leaks by gitleaks rule id (%d rules):\n", len(ids))
		for _, id := range ids {
			fmt.Printf("  %-45s %4d of %4d\n", id, byRule[id].leaked, byRule[id].n)
		}
		if o.verbose {
			slices.Sort(leaks)
			fmt.Println("leaking samples (the gitleaks test data's fake secrets):")
			for _, l := range leaks {
				fmt.Println("  " + l)
			}
		}
	}
	if len(fpRefused) > 0 && o.verbose {
		fmt.Println("refused false positives:")
		for _, l := range fpRefused {
			fmt.Println("  " + l)
		}
	}
	fail := tp.leaked > 0 || pct > o.maxFPRefusal || len(errs) > 0
	if fail {
		fmt.Println("FAIL")
		return 1
	}
	fmt.Println("PASS")
	return 0
}

func writeSamples(path string, samples []sample) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, s := range samples {
		if err := enc.Encode(s); err != nil {
			return err
		}
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// Command changebench measures ctxd check-change on answers made from real
// changes: the files that changed between two consecutive releases of
// public Go modules (from the Go module proxy) and npm packages (from the
// npm registry). Per changed file it writes, in a scratch copy of the old
// release, the valid answers a model could give (a unified diff bare, in a
// ```diff fence, with "@@ @@" headers, with wrong line numbers; SEARCH/
// REPLACE blocks; the whole file), and invalid answers of every rejection
// kind, runs `ctxd check-change --json --write` on each, and checks the
// goal: every valid answer applied byte-exactly (the file holds the new
// release's bytes and nothing else changed), every invalid answer rejected
// with its code, and no byte changed by a rejected answer (the scratch
// tree, and the folder next to it, hashed before and after every run).
// A few samples also run as CRLF and BOM files (the answers stay LF), and
// without a final newline (answers made anew: "\ No newline at end of
// file" markers). Answers that are rightly ambiguous (a hunk's old lines
// or a SEARCH text occurring more than once, for the formats that locate
// by content) are skipped and counted, not failed. -dump DIR keeps every
// answer, to rerun a failure by hand with ctxd check-change.
//
// Usage: go run ./tools/changebench -ctxd bin/ctxd [-cache DIR] [-max-per-pkg 40] [-md FILE] [-strict]
//
// It runs the binary from the outside and is never imported by it. The
// answer-making is in answers.go and unit-tested.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctxd/ctxd/tools/corpus"
)

func main() {
	os.Exit(run())
}

func run() int {
	bin := flag.String("ctxd", "bin/ctxd", "the ctxd binary to measure")
	cache := flag.String("cache", "", "directory caching the downloaded releases (default $XDG_CACHE_HOME/ctxd-changebench when XDG_CACHE_HOME is set, else a temp dir deleted at exit)")
	maxPerPkg := flag.Int("max-per-pkg", 40, "changed files per package at most (sorted by path, evenly spaced)")
	pkgs := flag.String("pkgs", strings.Join(defaultPackages, ","), "comma-separated releases to diff: go:MODULE@OLD..NEW or npm:PACKAGE@OLD..NEW")
	variants := flag.Int("variants", 3, "samples per package that also run as a CRLF file and as a BOM file")
	bundles := flag.Int("bundles", 3, "samples per package that also run the bundle answers (CHANGE_STALE, CHANGE_NOT_IN_BUNDLE)")
	maxFails := flag.Int("failures", 5, "failures listed per kind")
	md := flag.String("md", "", "also write the tables as Markdown to this file")
	strict := flag.Bool("strict", false, "exit 1 when a goal is missed")
	keep := flag.Bool("keep", false, "keep the work directory (scratch trees, ctxd state)")
	dump := flag.String("dump", "", "write every answer to this directory (PACKAGE/PATH/NN-ROW.txt), failed ones as NN-ROW.FAILED.txt, to reproduce a failure with ctxd check-change")
	flag.Parse()

	fail := func(format string, args ...any) int {
		fmt.Fprintf(os.Stderr, "changebench: "+format+"\n", args...)
		return 2
	}
	binAbs, err := corpus.Binary(*bin)
	if err != nil {
		return fail("%v", err)
	}
	var specs []pkgSpec
	for _, s := range strings.Split(*pkgs, ",") {
		if strings.TrimSpace(s) == "" {
			continue
		}
		p, err := parsePkg(s)
		if err != nil {
			return fail("-pkgs: %v", err)
		}
		specs = append(specs, p)
	}
	if *cache == "" {
		if x := os.Getenv("XDG_CACHE_HOME"); x != "" {
			*cache = filepath.Join(x, "ctxd-changebench")
		} else {
			tmp, err := os.MkdirTemp("", "changebench-cache-")
			if err != nil {
				return fail("%v", err)
			}
			defer os.RemoveAll(tmp)
			*cache = tmp
		}
	}
	if err := os.MkdirAll(*cache, 0o755); err != nil {
		return fail("%v", err)
	}
	cacheAbs, err := filepath.Abs(*cache)
	if err != nil {
		return fail("%v", err)
	}
	work, err := os.MkdirTemp("", "changebench-")
	if err != nil {
		return fail("%v", err)
	}
	if *keep {
		fmt.Fprintf(os.Stderr, "changebench: work directory %s kept\n", work)
	} else {
		defer os.RemoveAll(work)
	}

	b := newBench(newRunner(binAbs, work), work, *maxFails)
	b.dump = *dump
	for _, p := range specs {
		if err := b.runPackage(p, cacheAbs, work, *maxPerPkg, *variants, *bundles); err != nil {
			b.errors = append(b.errors, fmt.Sprintf("%s: %v", p, err))
			fmt.Fprintf(os.Stderr, "changebench: %s: %v\n", p, err)
		}
	}
	rep := b.report(binAbs, specs)
	fmt.Print(rep.text())
	if *md != "" {
		if err := os.WriteFile(*md, []byte(rep.markdown()), 0o644); err != nil {
			return fail("-md: %v", err)
		}
	}
	if *strict && !rep.met() {
		return 1
	}
	return 0
}

// runPackage fetches a package's two releases, picks its samples and runs
// every answer of each.
func (b *bench) runPackage(p pkgSpec, cache, work string, maxPerPkg, variants, bundles int) error {
	oldTree, err := fetchRelease(cache, p, p.old)
	if err != nil {
		return err
	}
	newTree, err := fetchRelease(cache, p, p.new)
	if err != nil {
		return err
	}
	excluded := map[string]int{}
	changed, err := changedFiles(oldTree, newTree, excluded)
	if err != nil {
		return err
	}
	for why, n := range excluded {
		b.excluded[why] += n
	}
	picked := evenly(changed, maxPerPkg)
	nExcluded := 0
	for _, n := range excluded {
		nExcluded += n
	}
	fmt.Fprintf(os.Stderr, "changebench: %s: %d changed source files (%d more left out), %d samples\n", p, len(changed), nExcluded, len(picked))
	if len(picked) == 0 {
		return nil
	}
	slug := strings.NewReplacer("/", "_", "@", "").Replace(p.name)
	w, err := newWorkspace(filepath.Join(work, "ws", slug), oldTree)
	if err != nil {
		return err
	}
	defer os.RemoveAll(w.dir)
	idx := make([]int, len(picked))
	for i := range idx {
		idx[i] = i
	}
	withVariants := evenly(idx, variants)
	withBundles := evenly(idx, bundles)
	for i, cf := range picked {
		s, err := b.newSample(p.String(), cf)
		if err != nil {
			b.errors = append(b.errors, err.Error())
			continue
		}
		b.samples[s.lang]++
		answers := b.validAnswers(s, asReleased)
		answers = append(answers, b.invalidAnswers(s, w)...)
		if slices.Contains(withBundles, i) {
			more, err := b.bundleAnswers(s, w)
			if err != nil {
				return err
			}
			answers = append(answers, more...)
		}
		for _, a := range answers {
			if err := b.run(s, w, a); err != nil {
				return fmt.Errorf("%s: %s: %w", s.path, a.what, err)
			}
		}
		if !slices.Contains(withVariants, i) {
			continue
		}
		for _, v := range []variant{asCRLF, asBOM, asNoEOL} {
			vs := s
			switch {
			case v.name == "CRLF" && (slices.Contains(s.old, '\r') || slices.Contains(s.new, '\r')):
				continue
			case v.rediff:
				old, nw := v.form(s.old), v.form(s.new)
				if bytes.Equal(old, s.old) || bytes.Equal(nw, s.new) || len(old) == 0 || len(nw) == 0 || bytes.Equal(old, nw) {
					continue // already without a final newline, or nothing left
				}
				if vs, err = b.newSample(p.String(), changedFile{path: s.path, old: old, new: nw}); err != nil {
					b.errors = append(b.errors, err.Error())
					continue
				}
			}
			b.samples[validRow(vs, v)]++
			for _, a := range b.validAnswers(vs, v) {
				if err := b.run(vs, w, a); err != nil {
					return fmt.Errorf("%s (%s): %s: %w", s.path, v.name, a.what, err)
				}
			}
		}
	}
	return nil
}

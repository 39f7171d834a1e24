package main

// The benchmark proper: per sample, the answers, their runs and their
// verdicts against what was expected.

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Valid formats, as the table's columns.
var validFormats = []string{"unified", "unified fenced", "unified @@ @@", "unified +7", "search_replace", "whole_file"}

// wantFormat is the format check-change should report for a column.
func wantFormat(column string) string {
	if strings.HasPrefix(column, "unified") {
		return "unified"
	}
	return column
}

// Rejection codes, in the checker's order.
var rejectionCodes = []string{"CHANGE_MALFORMED", "CHANGE_OUTSIDE_SANDBOX", "CHANGE_NEVER_SEND_PATH", "CHANGE_NOT_IN_BUNDLE",
	"CHANGE_STALE", "CHANGE_CONTEXT_MISMATCH", "CHANGE_AMBIGUOUS_MATCH", "CHANGE_SYNTAX_ERROR", "CHANGE_SECRET"}

// sample is one real change as the answers see it.
type sample struct {
	pkg   string
	path  string // root-relative
	lang  string // go, ts, js, py
	old   []byte // the release's bytes
	new   []byte
	hunks []hunk // git diff -U3 old new
}

// variant is how a sample's file is stored in the scratch tree: as
// released, in CRLF, with a BOM, or without its final newline. The answers
// to a CRLF or BOM file stay as they are (LF, no BOM): the file must keep
// its form. A rediff variant changes both releases the same way and makes
// its answers from them: without a final newline, a diff touching the
// end carries "\ No newline at end of file" markers.
type variant struct {
	name   string // "", "CRLF", "BOM", "noEOL"
	form   func([]byte) []byte
	rediff bool
}

var (
	asReleased = variant{name: "", form: func(b []byte) []byte { return b }}
	asCRLF     = variant{name: "CRLF", form: toCRLF}
	asBOM      = variant{name: "BOM", form: func(b []byte) []byte { return append(slices.Clip(bom), b...) }}
	asNoEOL    = variant{name: "noEOL", form: func(b []byte) []byte { return bytes.TrimRight(b, "\n") }, rediff: true}
)

// langOf is a path's language, as the table groups it.
func langOf(p string) string {
	switch ext(p) {
	case ".go":
		return "go"
	case ".ts", ".tsx":
		return "ts"
	case ".js", ".mjs":
		return "js"
	case ".py":
		return "py"
	}
	return "other"
}

// answer is one answer to run.
type answer struct {
	row    string // valid: "<lang>[ <variant>]\t<format>"; invalid: the code
	what   string // which answer of the row (for failures)
	text   string
	writes map[string][]byte // workspace-relative files to write first
	bundle string            // --bundle
	valid  bool
	// valid: the file and the bytes it must hold afterwards, and the
	// bytes it holds before.
	target         string
	before, expect []byte
	format         string
}

// failure is one answer that missed its goal.
type failure struct {
	sample, what, expected, got, message string
}

// rowStats is one row of a table.
type rowStats struct {
	total, ok  int
	byLang     map[string][2]int // invalid rows: lang → ok, total
	skipped    map[string]int    // reason → count
	outcomes   map[string]int    // wrong outcomes: code, "accepted", "error"
	failures   []failure
	notes      []failure // accepted and exact, but the JSON says something off
	notesCount int
}

func newRow() *rowStats {
	return &rowStats{byLang: map[string][2]int{}, skipped: map[string]int{}, outcomes: map[string]int{}}
}

// bench is the whole run's state.
type bench struct {
	r          *runner
	work       string
	maxFails   int
	rng        *rand.Rand
	secretN    int
	rows       map[string]*rowStats
	answers    int
	cpu        time.Duration // check-change runs
	buildCPU   time.Duration // ctxd build runs (bundles)
	builds     int
	rejBytes   int64 // bytes changed by answers ctxd rejected
	rejPaths   int   // entries changed by answers ctxd rejected
	rejChanged []failure
	samples    map[string]int // lang[ variant] → samples
	excluded   map[string]int // why a changed file is not a sample
	errors     []string
	dump       string // -dump
	dumped     int
}

func newBench(r *runner, work string, maxFails int) *bench {
	return &bench{r: r, work: work, maxFails: maxFails, rng: rand.New(rand.NewPCG(1, 2)),
		rows: map[string]*rowStats{}, samples: map[string]int{}, excluded: map[string]int{}}
}

func (b *bench) row(key string) *rowStats {
	r := b.rows[key]
	if r == nil {
		r = newRow()
		b.rows[key] = r
	}
	return r
}

// skip records a sample left out of a row.
func (b *bench) skip(row, why string) { b.row(row).skipped[why]++ }

// newSample diffs one changed file.
func (b *bench) newSample(pkg string, cf changedFile) (*sample, error) {
	tmp := filepath.Join(b.work, "diff")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return nil, err
	}
	diff, err := gitDiff(tmp, cf.old, cf.new)
	if err != nil {
		return nil, err
	}
	hunks, err := parseHunks(diff)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", pkg, cf.path, err)
	}
	return &sample{pkg: pkg, path: cf.path, lang: langOf(cf.path), old: cf.old, new: cf.new, hunks: hunks}, nil
}

func validRow(s *sample, v variant) string {
	lang := s.lang
	if v.name != "" {
		lang += " " + v.name
	}
	return lang
}

// validAnswers are the sample's valid answers in variant v.
func (b *bench) validAnswers(s *sample, v variant) []answer {
	lang := validRow(s, v)
	target := "root/" + s.path
	before, expect := v.form(s.old), v.form(s.new)
	if v.rediff {
		before, expect = s.old, s.new // s was made from the variant's texts
	}
	var writes map[string][]byte
	if v.name != "" {
		writes = map[string][]byte{target: before}
	}
	mk := func(format, text string) answer {
		return answer{row: lang + "\t" + format, what: format, text: text, writes: writes, valid: true,
			target: target, before: before, expect: expect, format: wantFormat(format)}
	}
	unified := renderUnified(s.path, s.hunks, headersExact)
	out := []answer{
		mk("unified", unified),
		mk("unified fenced", fenced(s.path, unified)),
	}
	// Without usable line numbers a hunk is located by its old lines
	// (context and removed): when they occur more than once in the file,
	// the answer is rightly ambiguous, not a valid one.
	blocks := blocksOf(s.hunks)
	unique, _ := searchesUnique(s.old, blocks)
	if unique {
		out = append(out, mk("unified @@ @@", renderUnified(s.path, s.hunks, headersBare)),
			mk("unified +7", renderUnified(s.path, s.hunks, headersShifted)))
	} else {
		b.skip(lang+"\tunified @@ @@", "a hunk's old lines occur more than once (rightly ambiguous)")
		b.skip(lang+"\tunified +7", "a hunk's old lines occur more than once (rightly ambiguous)")
	}
	finalNL := hasFinalNewline(s.old) != hasFinalNewline(s.new)
	if finalNL {
		b.skip(lang+"\tsearch_replace", "the final newline changes")
		b.skip(lang+"\twhole_file", "the final newline changes")
		return out
	}
	if unique {
		out = append(out, mk("search_replace", renderSearchReplace(s.path, blocks)))
	} else {
		b.skip(lang+"\tsearch_replace", "a SEARCH text occurs more than once (rightly ambiguous)")
	}
	out = append(out, mk("whole_file", renderWholeFile(s.path, s.new)))
	return out
}

// invalidAnswers are the sample's invalid answers (on the file as
// released), but for the bundle ones.
func (b *bench) invalidAnswers(s *sample, w *workspace) []answer {
	retarget := func(p string) string { return renderUnified(p, s.hunks, headersExact) }
	base := path.Base(s.path)
	outsideAbs := filepath.ToSlash(filepath.Join(w.dir, "outside", "abs-"+base))
	var out []answer
	add := func(code, what, text string, writes map[string][]byte) {
		out = append(out, answer{row: code, what: what, text: text, writes: writes})
	}
	add("CHANGE_MALFORMED", "prose only", prose(s.path), nil)
	add("CHANGE_MALFORMED", "diff truncated before its first hunk", truncated(s.path), nil)
	if first, _, _ := strings.Cut(s.path, "/"); first != "root" && first != "outside" {
		add("CHANGE_OUTSIDE_SANDBOX", "../"+s.path+" (holding the old file)", retarget("../"+s.path), map[string][]byte{s.path: s.old})
	}
	add("CHANGE_OUTSIDE_SANDBOX", "absolute path outside the root (holding the old file)", retarget(outsideAbs),
		map[string][]byte{"outside/abs-" + base: s.old})
	add("CHANGE_OUTSIDE_SANDBOX", linkFixture+"/"+base+" through a symlink to ../outside (holding the old file)", retarget(linkFixture+"/"+base),
		map[string][]byte{"outside/" + base: s.old})
	add("CHANGE_NEVER_SEND_PATH", envFixture+" (holding the old file)", retarget(envFixture), map[string][]byte{"root/" + envFixture: s.old})
	add("CHANGE_NEVER_SEND_PATH", pemFixture+" (holding the old file)", retarget(pemFixture), map[string][]byte{"root/" + pemFixture: s.old})
	if h, what, ok := alterContext(s.hunks); ok {
		add("CHANGE_CONTEXT_MISMATCH", "unified, "+what, renderUnified(s.path, h, headersExact), nil)
	} else {
		b.skip("CHANGE_CONTEXT_MISMATCH", "no old-side line with a word")
	}
	blocks := blocksOf(s.hunks)
	if ok, _ := searchesUnique(s.old, blocks); ok && hasFinalNewline(s.old) == hasFinalNewline(s.new) {
		if bl, ok := alterBlocks(blocks); ok {
			add("CHANGE_CONTEXT_MISMATCH", "search_replace, a word of a SEARCH line changed", renderSearchReplace(s.path, bl), nil)
		}
	}
	if line, n, ok := ambiguousLine(s.old); ok {
		add("CHANGE_AMBIGUOUS_MATCH", fmt.Sprintf("SEARCH %q, a line the file holds %d times", strings.TrimSpace(line), n), ambiguousAnswer(s.path, line), nil)
	} else {
		b.skip("CHANGE_AMBIGUOUS_MATCH", "every line of the file is unique")
	}
	if syntaxChecked(s.path) {
		if h, what, ok := breakSyntax(s.hunks, s.path, s.old, s.new); ok {
			add("CHANGE_SYNTAX_ERROR", what, renderUnified(s.path, h, headersExact), nil)
		} else {
			b.skip("CHANGE_SYNTAX_ERROR", "no added line that is surely code, and the end of the file is in a hunk")
		}
	}
	name, value := credential(b.rng, b.secretN%2 == 1)
	b.secretN++
	if h := addSecret(s.hunks, s.path, name, value); h != nil {
		add("CHANGE_SECRET", "an added line "+name+` = "`+value[:4]+`…"`, renderUnified(s.path, h, headersExact), nil)
	} else {
		b.skip("CHANGE_SECRET", "no line to add a credential after")
	}
	return out
}

// decoyDir holds the file a not-in-bundle answer retargets to.
const decoyDir = "zz-changebench-decoy"

// bundleAnswers records a bundle of the sample's file and returns the
// stale and not-in-bundle answers against it.
func (b *bench) bundleAnswers(s *sample, w *workspace) ([]answer, error) {
	decoy := decoyDir + "/" + path.Base(s.path)
	writes := map[string][]byte{"root/" + decoy: s.old}
	if err := w.apply(writes); err != nil {
		return nil, err
	}
	id, included, cpu, err := b.r.buildBundle(w.root, s.path)
	b.buildCPU += cpu
	b.builds++
	snap, serr := w.snapshot()
	if serr != nil {
		return nil, serr
	}
	if rerr := w.restore(snap); rerr != nil {
		return nil, rerr
	}
	if err != nil {
		b.errors = append(b.errors, fmt.Sprintf("%s %s: %v", s.pkg, s.path, err))
		b.skip("CHANGE_STALE", "ctxd build failed")
		b.skip("CHANGE_NOT_IN_BUNDLE", "ctxd build failed")
		return nil, nil
	}
	var out []answer
	unified := renderUnified(s.path, s.hunks, headersExact)
	if slices.Contains(included, s.path) {
		stale := bytes.Clone(s.old)
		if !hasFinalNewline(stale) {
			stale = append(stale, '\n')
		}
		stale = append(stale, []byte(commentPrefix(s.path)+" changed on disk after the bundle\n")...)
		out = append(out, answer{row: "CHANGE_STALE", what: "a line appended to the file after the bundle " + id, text: unified, bundle: id,
			writes: map[string][]byte{"root/" + decoy: s.old, "root/" + s.path: stale}})
	} else {
		b.skip("CHANGE_STALE", "the bundle does not include its target")
	}
	if !slices.Contains(included, decoy) {
		out = append(out, answer{row: "CHANGE_NOT_IN_BUNDLE", what: decoy + " (holding the old file), not in bundle " + id,
			text: renderUnified(decoy, s.hunks, headersExact), bundle: id, writes: writes})
	} else {
		b.skip("CHANGE_NOT_IN_BUNDLE", "the bundle includes the decoy")
	}
	return out, nil
}

// sha is "sha256:<hex>" of data.
func sha(data []byte) string {
	s := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(s[:])
}

// run runs one answer in the workspace and scores it.
func (b *bench) run(s *sample, w *workspace, a answer) error {
	// The tree is pristine between runs (restore checks it): without
	// writes of its own, an answer starts from the pristine snapshot.
	before := w.pristine
	if len(a.writes) > 0 {
		if err := w.apply(a.writes); err != nil {
			return err
		}
		var err error
		if before, err = w.snapshot(); err != nil {
			return err
		}
	}
	answerFile := filepath.Join(b.work, "answer.txt")
	if err := os.WriteFile(answerFile, []byte(a.text), 0o644); err != nil {
		return err
	}
	args := []string{"check-change", "--root", w.root, "--answer", answerFile, "--json", "--write"}
	if a.bundle != "" {
		args = append(args, "--bundle", a.bundle)
	}
	res := b.r.run(args...)
	b.answers++
	b.cpu += res.cpu
	after, err := w.snapshot()
	if err != nil {
		return err
	}
	changes := compare(before, after)
	var v verdict
	jerr := json.Unmarshal(res.stdout, &v)
	outcome, message := "", ""
	switch {
	case res.err != nil:
		outcome, message = "error", res.err.Error()
	case jerr != nil || (res.exit != 0 && res.exit != 5):
		outcome, message = fmt.Sprintf("error (exit %d)", res.exit), firstLine(res.stderr, res.stdout)
	case v.Status == "accepted" && res.exit == 0 && v.Failure == nil:
		outcome = "accepted"
	case v.Status == "rejected" && res.exit == 5 && v.Failure != nil:
		outcome, message = v.Failure.Code, v.Failure.Message
	default:
		outcome, message = fmt.Sprintf("inconsistent (status %q, exit %d)", v.Status, res.exit), firstLine(res.stderr, res.stdout)
	}
	sampleName := s.pkg + " " + s.path
	row := b.row(a.row)
	row.total++
	failed := false
	if outcome != "accepted" {
		n, paths := b.changedBytes(w, a, changes)
		if n > 0 || paths > 0 {
			b.rejBytes += n
			b.rejPaths += paths
			b.rejChanged = append(b.rejChanged, failure{sample: sampleName, what: strings.ReplaceAll(a.row, "\t", " / ") + ": " + a.what, expected: "no change",
				got: fmt.Sprintf("%s, %d bytes in %d entries changed (%s)", outcome, n, paths, changes[0].path), message: message})
		}
	}
	if a.valid {
		if why := checkValid(w, a, outcome, changes); why != "" {
			if outcome == "accepted" {
				message = ""
			}
			failed = true
			b.fail(row, failure{sample: sampleName, what: a.what, expected: "accepted, file = new bytes", got: why, message: message})
		} else {
			row.ok++
			if note := checkJSON(a, v); note != "" {
				row.notesCount++
				if len(row.notes) < b.maxFails {
					row.notes = append(row.notes, failure{sample: sampleName, what: a.what, got: note})
				}
			}
		}
	} else {
		counts := row.byLang[s.lang]
		counts[1]++
		if outcome == a.row {
			row.ok++
			counts[0]++
		} else {
			row.outcomes[outcome]++
			failed = true
			got := outcome
			if outcome == "accepted" {
				got = fmt.Sprintf("accepted, %d entries changed", len(changes))
			}
			b.fail(row, failure{sample: sampleName, what: a.what, expected: a.row, got: got, message: message})
		}
		row.byLang[s.lang] = counts
	}
	if b.dump != "" {
		if err := b.dumpAnswer(s, a, failed); err != nil {
			return err
		}
	}
	return w.restore(after)
}

// dumpAnswer writes an answer's text for -dump.
func (b *bench) dumpAnswer(s *sample, a answer, failed bool) error {
	b.dumped++
	slug := strings.NewReplacer("/", "_", "@", "_", " ", "_", "\t", "-", "+", "plus").Replace
	name := fmt.Sprintf("%04d-%s", b.dumped, slug(a.row))
	if failed {
		name += ".FAILED"
	}
	p := filepath.Join(b.dump, slug(s.pkg), slug(s.path), name+".txt")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(a.text), 0o644)
}

func (b *bench) fail(row *rowStats, f failure) {
	if len(row.failures) < b.maxFails {
		row.failures = append(row.failures, f)
	}
}

// checkValid says why a valid answer missed its goal ("" when it did not):
// accepted, the target holds the new bytes exactly with its mode, and
// nothing else changed.
func checkValid(w *workspace, a answer, outcome string, changes []delta) string {
	if outcome != "accepted" {
		return outcome
	}
	var others []string
	var target *delta
	for i, c := range changes {
		if c.path == a.target {
			target = &changes[i]
		} else {
			others = append(others, c.path)
		}
	}
	if len(others) > 0 {
		return fmt.Sprintf("accepted, but it also changed %s", strings.Join(others, ", "))
	}
	if target == nil {
		if bytes.Equal(a.before, a.expect) {
			return ""
		}
		return "accepted, but the file was not written"
	}
	if target.after == nil || target.after.kind != 'f' {
		return "accepted, but the file is gone"
	}
	if target.after.mode != target.before.mode {
		return fmt.Sprintf("accepted, but the mode changed %v → %v", target.before.mode, target.after.mode)
	}
	if target.after.sum != sha256.Sum256(a.expect) {
		why := "accepted, but the file's bytes differ from the new release"
		if got, err := os.ReadFile(filepath.Join(w.dir, filepath.FromSlash(a.target))); err == nil {
			why += describeDifference(got, a.expect)
		}
		return why
	}
	return ""
}

// describeDifference names the first line where got departs from want.
func describeDifference(got, want []byte) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	line := bytes.Count(want[:i], []byte("\n")) + 1
	excerpt := func(b []byte) string {
		start := bytes.LastIndexByte(b[:min(i, len(b))], '\n') + 1
		end := start + 80
		if end > len(b) {
			end = len(b)
		}
		if nl := bytes.IndexByte(b[start:end], '\n'); nl >= 0 {
			end = start + nl + 1
		}
		return fmt.Sprintf("%q", b[start:end])
	}
	return fmt.Sprintf(" (%d bytes, want %d; first difference at byte %d, line %d: got %s, want %s)", len(got), len(want), i, line, excerpt(got), excerpt(want))
}

// checkJSON says what the --json verdict of an accepted, exact answer gets
// wrong ("" when nothing): its format, path, action and digests.
func checkJSON(a answer, v verdict) string {
	var notes []string
	if v.Format != a.format {
		notes = append(notes, fmt.Sprintf("format %q, want %q", v.Format, a.format))
	}
	want := strings.TrimPrefix(a.target, "root/")
	switch {
	case len(v.Files) != 1:
		notes = append(notes, fmt.Sprintf("%d files, want 1", len(v.Files)))
	default:
		f := v.Files[0]
		if f.Path != want {
			notes = append(notes, fmt.Sprintf("path %q, want %q", f.Path, want))
		}
		if f.Action != "modify" {
			notes = append(notes, fmt.Sprintf("action %q, want modify", f.Action))
		}
		if f.SHA256Before == nil || *f.SHA256Before != sha(a.before) {
			notes = append(notes, "sha256_before is not the file's digest before")
		}
		if f.SHA256After == nil || *f.SHA256After != sha(a.expect) {
			notes = append(notes, "sha256_after is not the new bytes' digest")
		}
	}
	return strings.Join(notes, "; ")
}

// changedBytes counts what a run changed: per changed file, the bytes that
// differ (positions in common that differ, plus the length difference); a
// created or removed file counts whole; other entries count as paths.
func (b *bench) changedBytes(w *workspace, a answer, changes []delta) (int64, int) {
	var n int64
	for _, c := range changes {
		var before, after []byte
		if c.before != nil && c.before.kind == 'f' {
			if data, ok := a.writes[c.path]; ok {
				before = data
			} else if data, err := w.pristineContent(c.path); err == nil {
				before = data
			} else {
				n += c.before.size
				before = nil
			}
		}
		if c.after != nil && c.after.kind == 'f' {
			data, err := os.ReadFile(filepath.Join(w.dir, filepath.FromSlash(c.path)))
			if err == nil {
				after = data
			}
		}
		n += int64(byteDiff(before, after))
	}
	return n, len(changes)
}

// byteDiff counts the differing bytes of two texts: positions in common
// that differ, plus the length difference.
func byteDiff(x, y []byte) int {
	n := 0
	for i := 0; i < min(len(x), len(y)); i++ {
		if x[i] != y[i] {
			n++
		}
	}
	if len(x) > len(y) {
		return n + len(x) - len(y)
	}
	return n + len(y) - len(x)
}

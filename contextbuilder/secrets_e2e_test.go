package contextbuilder_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/contextbuilder/secrets"
	"github.com/ctxd/ctxd/contextbuilder/secrets/secretstest"
	"github.com/ctxd/ctxd/contextbuilder/tokens"
	"github.com/ctxd/ctxd/index"
)

// e2eSeed is the corpus seed of the end-to-end secret test.
const e2eSeed = 0x5ec2e75

// e2eKindsPerType is how many file kinds of each credential type are
// built (rotating, so that every kind is covered by many types);
// CTXD_SECRETS_E2E_FULL=1 builds every file.
const e2eKindsPerType = 3

// leakWindow is the length of the fragments of a secret's random part
// searched in the outputs: any of them appearing is a leak, so that a
// redaction covering only part of a secret is caught too.
const leakWindow = 12

// TestSecretsEndToEnd plants every credential type of the secretstest
// corpus in a workspace and builds, with the secrets engine as the
// redactor, (a) a bundle whose target is the file holding the secret and
// (b) one whose target is a Go, Python or TypeScript file that calls a
// function of it (code files), or a Go file with the secret-bearing file
// open in the editor (configuration files). No output may contain any
// part of any planted secret; every build must succeed with the secrets
// reported as pattern_redacted, or refuse with REFUSE_SECRET_RISK (a
// target on the never-send list, such as .env, is excluded instead); and
// every output must validate against its schema.
func TestSecretsEndToEnd(t *testing.T) {
	c := secretstest.Generate(e2eSeed)
	dir := tempRoot(t)

	// The workspace: every corpus file with planted secrets, a copy of
	// each .env file under a name the never-send list does not cover (so
	// that .env syntax is redacted, not only excluded), and in every type
	// directory the callers that reference the secret-bearing code.
	var files []secretstest.File
	planted := map[string][]secretstest.Secret{}
	for _, f := range c.Files {
		if f.Negative != "" {
			continue
		}
		files = append(files, f)
		planted[f.Path] = c.SecretsIn(f.Path)
		if f.Kind == secretstest.KindEnv {
			cp := f
			cp.Path = path.Join(path.Dir(f.Path), "dotenv")
			files = append(files, cp)
			for _, s := range c.SecretsIn(f.Path) {
				s.Path = cp.Path
				planted[cp.Path] = append(planted[cp.Path], s)
			}
		}
	}
	callers := map[string]string{} // secret-bearing file -> caller to target
	var scaffold []secretstest.File
	for _, typ := range c.Types {
		d := typ.Name
		goFile, _ := c.File(d + "/creds.go")
		pyFile, _ := c.File(d + "/settings.py")
		jsFile, ok := c.File(d + "/client.ts")
		if !ok {
			jsFile, _ = c.File(d + "/client.js")
		}
		mainGo := d + "/main.go"
		scaffold = append(scaffold,
			secretstest.File{Path: mainGo, Data: fmt.Appendf(nil, "package %s\n\nfunc main() {\n\t_ = %s()\n}\n", goFile.Package, goFile.Func)},
			secretstest.File{Path: d + "/app.py", Data: fmt.Appendf(nil, "from settings import %s\n\n\ndef main():\n    return %s()\n", pyFile.Func, pyFile.Func)},
			secretstest.File{Path: d + "/index.ts", Data: fmt.Appendf(nil, "import { %s } from \"./client\";\n\nexport function main() {\n  return %s();\n}\n", jsFile.Func, jsFile.Func)},
		)
		callers[goFile.Path] = mainGo
		callers[pyFile.Path] = d + "/app.py"
		callers[jsFile.Path] = d + "/index.ts"
	}
	for _, f := range append(slices.Clone(files), scaffold...) {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	ctx := context.Background()
	x := index.New(index.Options{CacheDir: "off"})
	t.Cleanup(func() { x.Close() })
	x.SetRoots([]index.Root{{URI: index.PathToURI(dir), Name: "ws", Dir: dir}})
	if _, err := x.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	snap := x.Snapshot()
	leaks := newLeakIndex(planted)
	opts := contextbuilder.Options{
		Redactor:  secrets.Default(),
		CreatedAt: goldenTime,
		Tokens:    tokens.NewCache(0),
		Scans:     contextbuilder.NewScanCache(0),
	}

	var st e2eStats
	for _, f := range selectE2E(c, files) {
		t.Run(f.Path, func(t *testing.T) {
			// (a) The file itself is the target.
			a := &contextbuilder.Request{Purpose: contextbuilder.PurposeDiff, PlanStep: &contextbuilder.PlanStep{ID: "s1", Text: "Rotate the credentials.", TargetFiles: []string{f.Path}}}
			checkSecretBuild(t, ctx, snap, a, opts, leaks, planted, []string{f.Path}, "", &st)

			// (b) A file that references it is the target.
			d := path.Dir(f.Path)
			b := &contextbuilder.Request{Purpose: contextbuilder.PurposeDiff, PlanStep: &contextbuilder.PlanStep{ID: "s2", Text: "Call the client from main.", TargetFiles: []string{d + "/main.go"}}}
			if caller, ok := callers[f.Path]; ok {
				b.PlanStep.TargetFiles = []string{caller}
			} else {
				// A configuration file: open in the editor, so a P2
				// candidate of a build targeting the Go caller.
				b.ActiveFile = index.PathToURI(filepath.Join(dir, filepath.FromSlash(f.Path)))
			}
			via := f.Path
			if path.Base(f.Path) == ".env" {
				via = "" // never indexed, so never a candidate
			}
			checkSecretBuild(t, ctx, snap, b, opts, leaks, planted, b.PlanStep.TargetFiles, via, &st)
		})
	}
	t.Logf("%d builds: %d bundles, %d REFUSE_SECRET_RISK, %d never-send refusals; %d planted secrets checked as pattern_redacted", st.builds, st.bundles, st.secretRisk, st.denied, st.redacted)
	if st.bundles == 0 || st.secretRisk == 0 || st.redacted == 0 {
		t.Errorf("the test is vacuous: %+v", st)
	}
}

// e2eStats counts the outcomes, so that a test whose builds all refuse
// (or that checks nothing) fails.
type e2eStats struct{ builds, bundles, secretRisk, denied, redacted int }

// selectE2E returns the files to build: all of them with
// CTXD_SECRETS_E2E_FULL=1, else for every credential type e2eKindsPerType
// file kinds, rotating from a seed-chosen offset, plus every bare key
// file and both .env forms of a type whose env kind is chosen. Every type
// and every file kind is covered.
func selectE2E(c *secretstest.Corpus, files []secretstest.File) []secretstest.File {
	if os.Getenv("CTXD_SECRETS_E2E_FULL") == "1" {
		return files
	}
	r := rand.New(rand.NewPCG(e2eSeed, 1))
	off := r.IntN(len(secretstest.Kinds))
	chosen := map[string]bool{}
	for ti, typ := range c.Types {
		for j := range e2eKindsPerType {
			k := secretstest.Kinds[(off+ti*e2eKindsPerType+j)%len(secretstest.Kinds)]
			chosen[typ.Name+"\x00"+string(k)] = true
		}
		chosen[typ.Name+"\x00"+string(secretstest.KindKey)] = true
	}
	var out []secretstest.File
	for _, f := range files {
		if chosen[path.Dir(f.Path)+"\x00"+string(f.Kind)] {
			out = append(out, f)
		}
	}
	return out
}

// checkSecretBuild builds req and checks the outcome: no part of any
// planted secret in the JSON output; a schema-valid result whose included
// files report their secrets as pattern_redacted, or a REFUSE_SECRET_RISK
// refusal, or (a target on the never-send list) a refusal that every
// target is excluded. A bundle must hold the file via (the secret-bearing
// file a build reaches through a caller or the editor) or report it
// excluded, so that the check is not vacuous.
func checkSecretBuild(t *testing.T, ctx context.Context, snap *index.Snapshot, req *contextbuilder.Request, opts contextbuilder.Options, leaks *leakIndex, planted map[string][]secretstest.Secret, targets []string, via string, st *e2eStats) {
	t.Helper()
	st.builds++
	res, err := contextbuilder.Build(ctx, snap, req, opts)
	var ref *contextbuilder.Refusal
	if err != nil && !errors.As(err, &ref) {
		t.Fatalf("targets %v: build failed: %v", targets, err)
	}
	out := encodeOutcome(t, res, err) // validates against the schemas
	if found := leaks.find(out); len(found) > 0 {
		t.Errorf("targets %v: the output holds planted secrets:\n%s", targets, strings.Join(found, "\n"))
	}
	if ref != nil {
		switch {
		case ref.Code == contextbuilder.RefuseSecretRisk:
			st.secretRisk++
		case ref.Code == contextbuilder.RefuseUnsupportedTarget && allDenied(ref.RedactionReport, targets):
			st.denied++
		default:
			t.Errorf("targets %v: refused with %s (%s), want a bundle or REFUSE_SECRET_RISK", targets, ref.Code, ref.Message)
		}
		return
	}
	st.bundles++
	if via != "" {
		reached := false
		for _, inc := range res.Manifest.Selection.IncludedFiles {
			reached = reached || inc.Path == via
		}
		for _, ex := range res.Manifest.Selection.ExcludedCandidates {
			reached = reached || ex.Path == via && ex.Reason == contextbuilder.ExcludeSecretRisk
		}
		if !reached {
			t.Errorf("targets %v: %s is neither included nor excluded as a secret risk: the build does not reach the secret", targets, via)
		}
	}
	lines := map[string][]int{} // path -> lines reported as pattern_redacted
	for _, r := range res.RedactionReport.Redactions {
		if r.Type != contextbuilder.RedactPatternRedacted || r.Reason != contextbuilder.RedactReasonSecret {
			continue
		}
		if m := redactedLine.FindStringSubmatch(r.Details); m != nil {
			var n int
			fmt.Sscan(m[1], &n)
			lines[r.Target] = append(lines[r.Target], n)
		}
	}
	whole := map[string]bool{}
	for _, b := range res.Bundle.Blocks {
		if b.Meta.Path != nil && b.BlockType == contextbuilder.BlockFile && b.Title == *b.Meta.Path {
			whole[*b.Meta.Path] = true
		}
	}
	for _, inc := range res.Manifest.Selection.IncludedFiles {
		if !whole[inc.Path] {
			continue // a slice: the leak check covers it
		}
		for _, s := range planted[inc.Path] {
			st.redacted++
			if !slices.Contains(lines[inc.Path], s.Line) {
				t.Errorf("targets %v: %s is included whole but its %s secret at line %d is not reported as pattern_redacted (reported lines %v)", targets, inc.Path, s.Type, s.Line, lines[inc.Path])
			}
		}
	}
}

var redactedLine = regexp.MustCompile(`^rule \S+ at line (\d+)$`)

// allDenied reports whether every target was excluded by a never-send
// rule.
func allDenied(rep *contextbuilder.RedactionReport, targets []string) bool {
	if rep == nil {
		return false
	}
	for _, t := range targets {
		ok := false
		for _, r := range rep.Redactions {
			ok = ok || r.Type == contextbuilder.RedactPathExcluded && r.Reason == contextbuilder.RedactReasonDenyRule && r.Target == t
		}
		if !ok {
			return false
		}
	}
	return true
}

// leakIndex finds fragments of planted secrets in outputs.
type leakIndex struct {
	windows map[string]string // fragment -> "path:line type"
	short   map[string]string // whole cores shorter than leakWindow
}

func newLeakIndex(planted map[string][]secretstest.Secret) *leakIndex {
	l := &leakIndex{windows: map[string]string{}, short: map[string]string{}}
	for _, ss := range planted {
		for _, s := range ss {
			where := fmt.Sprintf("%s:%d %s", s.Path, s.Line, s.Type)
			core := s.Core()
			if len(core) < leakWindow {
				l.short[core] = where
				continue
			}
			for i := 0; i+leakWindow <= len(core); i++ {
				l.windows[core[i:i+leakWindow]] = where
			}
		}
	}
	return l
}

// find returns the planted secrets of which a fragment appears in any
// string (key or value) of the JSON document out.
func (l *leakIndex) find(out []byte) []string {
	var v any
	if err := json.Unmarshal(out, &v); err != nil {
		return []string{"output is not JSON: " + err.Error()}
	}
	seen := map[string]bool{}
	var found []string
	check := func(s string) {
		for i := 0; i+leakWindow <= len(s); i++ {
			if where, ok := l.windows[s[i:i+leakWindow]]; ok && !seen[where] {
				seen[where] = true
				found = append(found, fmt.Sprintf("  %s (fragment %q)", where, s[i:i+leakWindow]))
			}
		}
		for core, where := range l.short {
			if !seen[where] && strings.Contains(s, core) {
				seen[where] = true
				found = append(found, "  "+where)
			}
		}
	}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			check(v)
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for k, e := range v {
				check(k)
				walk(e)
			}
		}
	}
	walk(v)
	slices.Sort(found)
	return found
}

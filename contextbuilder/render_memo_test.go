package contextbuilder_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/contextbuilder/secrets"
	"github.com/ctxd/ctxd/contextbuilder/tokens"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/index/indextest"
)

// countingRedactor is a Redactor that counts the scans of each name it is
// given (a path, or a block's title).
type countingRedactor struct {
	contextbuilder.Redactor
	mu    sync.Mutex
	scans map[string]int
}

func (c *countingRedactor) Scan(path string, text []byte) ([]contextbuilder.Finding, error) {
	c.mu.Lock()
	c.scans[path]++
	c.mu.Unlock()
	return c.Redactor.Scan(path, text)
}

func (c *countingRedactor) count(path string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.scans[path]
}

// wordRedactor finds every occurrence of word as a high-confidence secret
// of rule "word"; version names it.
type wordRedactor struct{ version, word string }

func (w wordRedactor) Version() string { return w.version }

func (w wordRedactor) Scan(_ string, text []byte) ([]contextbuilder.Finding, error) {
	var out []contextbuilder.Finding
	if w.word == "" {
		return nil, nil
	}
	s := string(text)
	for off := 0; ; {
		i := strings.Index(s[off:], w.word)
		if i < 0 {
			return out, nil
		}
		start := off + i
		out = append(out, contextbuilder.Finding{RuleID: "word", Start: start, End: start + len(w.word), Line: 1 + strings.Count(s[:start], "\n"), Confidence: secrets.High})
		off = start + len(w.word)
	}
}

// memoTree is a module whose target uses a function and a type of another
// package; the function's file holds a hidden character (U+202E), which
// rendering removes and then scans the result of again.
const memoTree = `
-- go.mod --
module example.com/m

go 1.22
-- lib/lib.go --
package lib

// Sum adds; the comment hides a character: ` + "\u202e" + `.
func Sum(a, b int) int { return a + b }

// Pair is two numbers.
type Pair struct{ A, B int }
-- app/app.go --
package app

import "example.com/m/lib"

// Total sums a pair.
func Total(p lib.Pair) int { return lib.Sum(p.A, p.B) }
`

// openMemoTree indexes memoTree and returns the index and its folder.
func openMemoTree(t *testing.T) (*index.Index, string) {
	t.Helper()
	dir := indextest.WriteTree(t, memoTree)
	x := index.New(index.Options{CacheDir: "off"})
	t.Cleanup(func() { x.Close() })
	x.SetRoots([]index.Root{{URI: index.PathToURI(dir), Name: "m", Dir: dir}})
	if _, err := x.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	return x, dir
}

func memoRequest() *contextbuilder.Request {
	return &contextbuilder.Request{Purpose: contextbuilder.PurposeDiff, PlanStep: &contextbuilder.PlanStep{ID: "s", TargetFiles: []string{"app/app.go"}}}
}

// canonicalResult is a result's canonical bytes, created_at included.
func canonicalResult(t *testing.T, r *contextbuilder.Result) string {
	t.Helper()
	return string(r.AppendCanonical(nil))
}

// TestWarmBuildRendersNothingAgain: a build with the ScanCache of an
// earlier build of the same files reuses its blocks: the dependency whose
// hidden character rendering strips is not scanned again, and the result
// is byte for byte the first build's and that of a build without memos.
func TestWarmBuildRendersNothingAgain(t *testing.T) {
	x, _ := openMemoTree(t)
	red := &countingRedactor{Redactor: secrets.Default(), scans: map[string]int{}}
	opts := contextbuilder.Options{Redactor: red, Tokens: tokens.NewCache(0), Scans: contextbuilder.NewScanCache(0)}
	ctx := context.Background()
	first, err := contextbuilder.Build(ctx, x.Snapshot(), memoRequest(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(canonicalResult(t, first), "hidden character") {
		t.Fatalf("the first build reports no hidden character in lib/lib.go: %s", canonicalResult(t, first))
	}
	before := red.count("lib/lib.go")
	second, err := contextbuilder.Build(ctx, x.Snapshot(), memoRequest(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if n := red.count("lib/lib.go") - before; n != 0 {
		t.Errorf("the second build scanned lib/lib.go %d times; want 0 (its blocks rendered by the first build)", n)
	}
	if diff := cmp.Diff(canonicalResult(t, first), canonicalResult(t, second)); diff != "" {
		t.Errorf("second build (-first +second):\n%s", diff)
	}
	cold, err := contextbuilder.Build(ctx, x.Snapshot(), memoRequest(), contextbuilder.Options{Redactor: secrets.Default()})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(canonicalResult(t, cold), canonicalResult(t, second)); diff != "" {
		t.Errorf("warm build (-without memos +with memos):\n%s", diff)
	}
}

// TestRenderMemoFollowsInputs: a rendering kept by one build is reused
// only for the same file content, symbol and rules: after a dependency
// changes on disk, or under other rules, a warm build equals a build
// without memos.
func TestRenderMemoFollowsInputs(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		// change edits the folder (or nothing) and returns the redactor
		// of the second build.
		change func(t *testing.T, x *index.Index, dir string) contextbuilder.Redactor
		want   string // in the second build's canonical bytes
	}{
		{
			name:   "file content",
			change: editLib("return a + b", "return b + a"),
			want:   "return b + a",
		},
		{
			name:   "symbol moved in its file",
			change: editLib("// Pair is", "// Twice doubles.\nfunc Twice(a int) int { return 2 * a }\n\n// Pair is"),
			want:   "type Pair struct{ A, B int }",
		},
		{
			name: "rules",
			change: func(*testing.T, *index.Index, string) contextbuilder.Redactor {
				return wordRedactor{version: "sum", word: "Sum"}
			},
			want: "[REDACTED:word]",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x, dir := openMemoTree(t)
			opts := contextbuilder.Options{Redactor: wordRedactor{version: "none"}, Tokens: tokens.NewCache(0), Scans: contextbuilder.NewScanCache(0)}
			if _, err := contextbuilder.Build(ctx, x.Snapshot(), memoRequest(), opts); err != nil {
				t.Fatal(err)
			}
			opts.Redactor = tc.change(t, x, dir)
			snap, err := x.Wait(ctx)
			if err != nil {
				t.Fatal(err)
			}
			warm := buildWithoutMemosToo(t, snap, opts, "second build")
			if got := canonicalResult(t, warm); !strings.Contains(got, tc.want) {
				t.Errorf("second build lacks %q:\n%s", tc.want, got)
			}
		})
	}
}

// TestRelationMemoFollowsSnapshot: the relations a build found for a
// target are not reused on a new snapshot of the folder, even when the
// target itself did not change: the function it calls moved to another
// file, which a warm build names as a build without memos does.
func TestRelationMemoFollowsSnapshot(t *testing.T) {
	ctx := context.Background()
	x, dir := openMemoTree(t)
	opts := contextbuilder.Options{Tokens: tokens.NewCache(0), Scans: contextbuilder.NewScanCache(0), Relations: contextbuilder.NewRelationCache()}
	if _, err := contextbuilder.Build(ctx, x.Snapshot(), memoRequest(), opts); err != nil {
		t.Fatal(err)
	}
	lib := filepath.Join(dir, "lib", "lib.go")
	sum := filepath.Join(dir, "lib", "sum.go")
	if err := os.WriteFile(lib, []byte("package lib\n\n// Pair is two numbers.\ntype Pair struct{ A, B int }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(sum, []byte("package lib\n\n// Sum adds.\nfunc Sum(a, b int) int { return a + b }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	x.FilesChanged(ctx, []string{index.PathToURI(lib), index.PathToURI(sum)})
	snap, err := x.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	warm := buildWithoutMemosToo(t, snap, opts, "build after the move")
	var paths []string
	for _, f := range warm.Manifest.Selection.IncludedFiles {
		paths = append(paths, f.Path)
	}
	if !slices.Contains(paths, "lib/sum.go") {
		t.Errorf("included files %v lack lib/sum.go, where Sum moved", paths)
	}
}

// buildWithoutMemosToo builds the memo request on snap with opts (its
// memos warm), and again with none but the same redactor, fails unless
// both give the same result, and returns the first.
func buildWithoutMemosToo(t *testing.T, snap *index.Snapshot, opts contextbuilder.Options, what string) *contextbuilder.Result {
	t.Helper()
	ctx := context.Background()
	warm, err := contextbuilder.Build(ctx, snap, memoRequest(), opts)
	if err != nil {
		t.Fatal(err)
	}
	cold, err := contextbuilder.Build(ctx, snap, memoRequest(), contextbuilder.Options{Redactor: opts.Redactor})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(canonicalResult(t, cold), canonicalResult(t, warm)); diff != "" {
		t.Errorf("%s (-without memos +with memos):\n%s", what, diff)
	}
	return warm
}

// editLib returns a change of the render memo test that replaces old by
// new in lib/lib.go on disk and tells the index.
func editLib(old, new string) func(t *testing.T, x *index.Index, dir string) contextbuilder.Redactor {
	return func(t *testing.T, x *index.Index, dir string) contextbuilder.Redactor {
		p := filepath.Join(dir, "lib", "lib.go")
		text, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		text = []byte(strings.Replace(string(text), old, new, 1))
		if err := os.WriteFile(p, text, 0o644); err != nil {
			t.Fatal(err)
		}
		x.FilesChanged(t.Context(), []string{index.PathToURI(p)})
		return wordRedactor{version: "none"}
	}
}

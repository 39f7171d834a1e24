package contextbuilder

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/index/indextest"
)

func TestIsManifest(t *testing.T) {
	for p, want := range map[string]bool{
		"go.mod": true, "sub/package.json": true, "App/App.csproj": true, "Makefile": true,
		"tsconfig.json": false, "web/jsconfig.json": false, "Cargo.toml": true,
	} {
		if got := isManifest(p); got != want {
			t.Errorf("isManifest(%q) = %v, want %v", p, got, want)
		}
	}
}

// TestRelationCacheAnswers: a build on a snapshot a RelationCache holds
// answers for takes the target's relations from it rather than from the
// graph (here a caller the graph does not know, planted in the cache),
// and a build on another snapshot does not.
func TestRelationCacheAnswers(t *testing.T) {
	dir := indextest.WriteTree(t, `
-- go.mod --
module example.com/m

go 1.22
-- lib/lib.go --
package lib

// Sum adds.
func Sum(a, b int) int { return a + b }
-- app/app.go --
package app

import "example.com/m/lib"

// Total sums.
func Total(a, b int) int { return lib.Sum(a, b) }
-- other/other.go --
package other

// Other is unrelated.
func Other() {}
`)
	ctx := context.Background()
	x := index.New(index.Options{CacheDir: "off"})
	defer x.Close()
	x.SetRoots([]index.Root{{URI: index.PathToURI(dir), Name: "m", Dir: dir}})
	snap, err := x.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	req := &Request{Purpose: PurposeDiff, PlanStep: &PlanStep{ID: "s", TargetFiles: []string{"app/app.go"}}}
	opts := Options{Relations: NewRelationCache()}
	included := func(snap *index.Snapshot) []string {
		t.Helper()
		res, err := Build(ctx, snap, req, opts)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, f := range res.Manifest.Selection.IncludedFiles {
			out = append(out, f.Path)
		}
		return out
	}
	want := included(snap)
	c := opts.Relations
	if len(c.m) != 1 {
		t.Fatalf("the cache holds %d targets after one build, want 1", len(c.m))
	}
	for k, r := range c.m {
		planted := *r
		planted.callers = append(slices.Clone(r.callers), "other/other.go")
		c.m[k] = &planted
	}
	if got := included(snap); !slices.Contains(got, "other/other.go") {
		t.Errorf("same snapshot: included files %v lack the planted caller other/other.go", got)
	}
	p := filepath.Join(dir, "other", "other.go")
	if err := os.WriteFile(p, []byte("package other\n\n// Other is still unrelated.\nfunc Other() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	x.FilesChanged(ctx, []string{index.PathToURI(p)})
	if snap, err = x.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, included(snap)); diff != "" {
		t.Errorf("new snapshot: included files (-first build +now):\n%s", diff)
	}
}

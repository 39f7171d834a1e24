package contextbuilder_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/contextbuilder/tokens"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/index/indextest"
)

// TestBudgetRecallsOptionalBlocks: with a ScanCache, ctxd.budget reuses
// the renderings of optional whole files it counted before instead of
// reading them again; its report and counts stay those of a build.
func TestBudgetRecallsOptionalBlocks(t *testing.T) {
	dir := indextest.WriteTree(t, `
-- go.mod --
module example.com/r

go 1.22
-- lib/lib.go --
package lib

// Sum adds.
func Sum(a, b int) int { return a + b }
-- app/a.go --
package app

import "example.com/r/lib"

var password = "hunter2-a"

func A() int { return lib.Sum(1, 2) }
-- app/b.go --
package app

import "example.com/r/lib"

func B() int { return lib.Sum(3, 4) }
`)
	x := index.New(index.Options{CacheDir: "off"})
	defer x.Close()
	x.SetRoots([]index.Root{{URI: index.PathToURI(dir), Name: "r", Dir: dir}})
	snap, err := x.Wait(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	req := &contextbuilder.Request{Purpose: contextbuilder.PurposeDiff, PlanStep: &contextbuilder.PlanStep{ID: "s", TargetFiles: []string{"lib/lib.go"}}}
	opts := contextbuilder.Options{Tokens: tokens.NewCache(0), Scans: contextbuilder.NewScanCache(0)}
	cold, err := contextbuilder.Budget(context.Background(), snap, req, opts)
	if err != nil {
		t.Fatal(err)
	}
	built, err := contextbuilder.Build(context.Background(), snap, req, opts)
	if err != nil {
		t.Fatal(err)
	}
	// The warm budget must not read the callers again: with one of them
	// gone from disk it still reports what the build did.
	if err := os.Remove(filepath.Join(dir, "app", "b.go")); err != nil {
		t.Fatal(err)
	}
	warm, err := contextbuilder.Budget(context.Background(), snap, req, opts)
	if err != nil {
		t.Fatal(err)
	}
	if cold.Counts.Files < 3 || cold.Counts.Redactions == 0 {
		t.Fatalf("the fixture should include the callers (one with a password): counts %+v", cold.Counts)
	}
	want := *built.BudgetReport
	want.BundleID = ""
	for name, got := range map[string]*contextbuilder.BudgetResult{"cold": cold, "warm": warm} {
		if diff := cmp.Diff(&want, got.BudgetReport); diff != "" {
			t.Errorf("%s budget report (-build +budget):\n%s", name, diff)
		}
	}
	if diff := cmp.Diff(cold.Counts, warm.Counts); diff != "" {
		t.Errorf("counts (-cold +warm):\n%s", diff)
	}
}

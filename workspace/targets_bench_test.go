package workspace_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/tools/corpus"
	"github.com/ctxd/ctxd/workspace"
)

// BenchmarkServiceTargets is tools/indexbench's warm build loop in
// process: GOROOT/src copied, indexed, then whole-file ctxd.buildContext
// builds (purpose diff, active_file only) of the first eight of
// indexbench's seeded sample of Go and TypeScript files of 4–48 KB that
// build, at the default budget and at 32k, each followed by the encoding
// of its reply. It reports CPU time per build besides latency.
//
//	go test -run '^$' -bench ServiceTargets -benchtime 80x ./workspace/
//
// The environment can change the corpus and profile the loop alone
// (-cpuprofile would mostly profile the indexing before it):
// WARM_ROOT=DIR builds in DIR instead of a copy of GOROOT/src (a copy of
// the caller's, with a .ctxd/config.json: the builds record into it);
// WARM_PROF=FILE writes a CPU profile of the measured builds;
// WARM_MEMPROF=FILE writes allocation profiles before and after them
// (FILE.before, FILE.after: compare with pprof -base).
func BenchmarkServiceTargets(b *testing.B) {
	// WARM_ROOT: a copy of the caller's, the builds record into it.
	s, dir := benchService(b, os.Getenv("WARM_ROOT"))
	defer s.Close()
	ctx := context.Background()
	if _, err := s.OpenFolder(ctx, dir, "src"); err != nil {
		b.Fatal(err)
	}
	if _, err := s.Index().Wait(ctx); err != nil {
		b.Fatal(err)
	}
	request := func(rel string, budget int) *contextbuilder.Request {
		r := &contextbuilder.Request{Purpose: contextbuilder.PurposeDiff, ActiveFile: index.PathToURI(filepath.Join(dir, filepath.FromSlash(rel)))}
		if budget > 0 {
			r.Model = &contextbuilder.ModelRequest{MaxInputTokens: &budget}
		}
		return r
	}
	var targets []string
	for _, rel := range sampleTargets(b, dir, 32) {
		if len(targets) == 8 {
			break
		}
		if _, err := s.BuildContext(ctx, workspace.Caller{}, request(rel, 0)); err == nil {
			targets = append(targets, rel)
		}
	}
	b.Logf("targets: %s", strings.Join(targets, ", "))
	if f := os.Getenv("WARM_PROF"); f != "" {
		out, err := os.Create(f)
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		pprof.StartCPUProfile(out)
		defer pprof.StopCPUProfile()
	}
	if f := os.Getenv("WARM_MEMPROF"); f != "" {
		write := func(name string) {
			out, err := os.Create(name)
			if err != nil {
				b.Fatal(err)
			}
			runtime.GC()
			pprof.Lookup("allocs").WriteTo(out, 0)
			out.Close()
		}
		write(f + ".before")
		defer write(f + ".after")
	}
	for _, budget := range []int{0, 32000} {
		n := 0
		latencies(b, fmt.Sprintf("build/%dk", budget/1000), func() error {
			rel := targets[n%len(targets)]
			n++
			res, err := s.BuildContext(ctx, workspace.Caller{}, request(rel, budget))
			if err != nil {
				return err
			}
			_, err = json.Marshal(json.RawMessage(res.AppendCanonical(nil)))
			return err
		})
	}
}

// sampleTargets draws n Go files of 4–48 KB (tests, testdata and vendor
// left out) in tools/indexbench's seeded order.
func sampleTargets(b *testing.B, root string, n int) []string {
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (corpus.SkipDir(name) || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		code := (strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go")) ||
			(strings.HasSuffix(name, ".ts") && !strings.HasSuffix(name, ".d.ts") && !strings.HasSuffix(name, ".test.ts"))
		if !d.Type().IsRegular() || !code {
			return nil
		}
		info, err := d.Info()
		if err != nil || info.Size() < 4<<10 || info.Size() > 48<<10 {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	slices.Sort(out)
	rng := rand.New(rand.NewPCG(1, 0x696e646578))
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out[:min(n, len(out))]
}

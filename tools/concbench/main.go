// Command concbench measures what many concurrent cold builds cost in
// memory: it writes a workspace with one large Go file (the target) and a
// few small ones into a temporary directory, opens it in a
// [workspace.Service] (no index cache, as a cold start), and runs -n
// ctxd.buildContext calls of the same target at once, each with its own
// request (identical ones, or with -distinct each with its own intent). It reports the builds' outcomes, the wall time, the process's
// peak RSS (getrusage ru_maxrss), the peak of the Go heap sampled every
// 10 ms, and the RSS left once every build has returned (VmRSS of
// /proc/self/status, after a short settle).
//
//	go run ./tools/concbench -n 300
//	go run ./tools/concbench -n 1000 -size 600000
//
// It writes nothing outside its temporary directory and opens no socket.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/workspace"
)

func main() {
	n := flag.Int("n", 300, "concurrent builds")
	size := flag.Int("size", 600_000, "bytes of the target file")
	budget := flag.Int("max-input-tokens", 1_000_000, "the requests' model.max_input_tokens")
	settle := flag.Duration("settle", 2*time.Second, "wait after the builds before reading the RSS they left")
	keep := flag.Bool("keep", false, "keep the temporary workspace")
	distinct := flag.Bool("distinct", false, "give each request its own intent text, so that no two builds are identical")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the builds to this file")
	flag.Parse()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "concbench:", err)
			os.Exit(1)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "concbench:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	if err := run(*n, *size, *budget, *settle, *keep, *distinct); err != nil {
		fmt.Fprintln(os.Stderr, "concbench:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

func run(n, size, budget int, settle time.Duration, keep, distinct bool) error {
	parent, err := os.MkdirTemp("", "concbench-")
	if err != nil {
		return err
	}
	if !keep {
		defer os.RemoveAll(parent)
	}
	// The workspace does not opt in (no .ctxd/config.json), so the
	// records go to the state directory: a temporary one.
	if err := os.Setenv("XDG_STATE_HOME", filepath.Join(parent, "state")); err != nil {
		return err
	}
	dir := filepath.Join(parent, "ws")
	if err := writeWorkspace(dir, size); err != nil {
		return err
	}
	s := workspace.NewService(workspace.ServiceOptions{Index: index.Options{CacheDir: "off"}, Logger: slog.New(slog.DiscardHandler)})
	defer s.Close()
	ctx := context.Background()
	if _, err := s.OpenFolder(ctx, dir, "bench"); err != nil {
		return err
	}

	var heapPeak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > heapPeak.Load() {
				heapPeak.Store(v)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()

	start := time.Now()
	var wg sync.WaitGroup
	var mu sync.Mutex
	outcomes := map[string]int{}
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := budget
			req := &contextbuilder.Request{
				Purpose:  contextbuilder.PurposeDiff,
				PlanStep: &contextbuilder.PlanStep{ID: "s", TargetFiles: []string{"big.go"}},
				Model:    &contextbuilder.ModelRequest{MaxInputTokens: &b},
			}
			if distinct {
				req.Intent = &contextbuilder.Intent{ID: fmt.Sprint("i", i), Text: fmt.Sprintf("make step %d faster", i)}
			}
			res, err := s.BuildContext(ctx, workspace.Caller{}, req)
			outcome := "built"
			switch {
			case err != nil:
				f := workspace.Classify(err)
				outcome = "failed: " + oneLine(err.Error())
				if f.Refusal != nil {
					outcome = "refused: " + string(f.Refusal.Code)
				}
			case res.Bundle == nil:
				outcome = "no bundle"
			}
			mu.Lock()
			outcomes[outcome]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	close(stop)
	<-sampled
	time.Sleep(settle)
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return err
	}
	after := vmRSS()
	kind := "identical"
	if distinct {
		kind = "distinct"
	}
	fmt.Printf("builds: %d concurrent %s builds of a %d-byte target, GOMAXPROCS %d, wall %v\n", n, kind, size, runtime.GOMAXPROCS(0), wall.Round(time.Millisecond))
	for k, v := range outcomes {
		fmt.Printf("  %s: %d\n", k, v)
	}
	fmt.Printf("peak RSS (ru_maxrss): %d MB\n", ru.Maxrss/1024)
	fmt.Printf("peak Go heap objects (sampled): %d MB\n", heapPeak.Load()>>20)
	fmt.Printf("RSS %v after the builds returned: %d MB\n", settle, after>>20)
	return nil
}

// writeWorkspace writes go.mod, the target big.go of about size bytes
// (many small functions calling each other) and two files that use it.
func writeWorkspace(dir string, size int) error {
	var b strings.Builder
	b.WriteString("package big\n\n")
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "// Step%d advances the state by one step of kind %d.\nfunc Step%d(x int) int {\n\tif x%%7 == %d {\n\t\treturn x + %d\n\t}\n\treturn Step%d(x-1) * 3\n}\n\n", i, i%13, i, i%7, i, max(i-1, 0))
	}
	files := map[string]string{
		"go.mod":        "module example.com/bench\n\ngo 1.22\n",
		"big.go":        b.String(),
		"use/use.go":    "package use\n\nimport \"example.com/bench\"\n\n// Run runs a step.\nfunc Run() int { return big.Step1(4) }\n",
		"use/other.go":  "package use\n\n// Other is unrelated.\nfunc Other() int { return 1 }\n",
		"README.md":     "# bench\n",
		"cmd/x/main.go": "package main\n\nimport \"example.com/bench/use\"\n\nfunc main() { println(use.Run()) }\n",
		"big_test.go":   "package big\n\nimport \"testing\"\n\nfunc TestStep(t *testing.T) { _ = Step0(1) }\n",
		"internal/a.go": "package internal\n\n// A is a.\nconst A = " + strconv.Itoa(size) + "\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// vmRSS reads the process's resident set size from /proc/self/status.
func vmRSS() uint64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}

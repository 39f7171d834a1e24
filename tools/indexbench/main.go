// Command indexbench measures `ctxd index` on the Go source tree side by
// side with `ctags -R`: cold wall time (empty cache), files/s and MB/s,
// peak RSS, warm wall time (the cache of the cold run), and the ratios to
// ctags. It runs the real binary, so the figures are what a user sees.
//
// Usage: go run ./tools/indexbench -ctxd bin/ctxd [-root DIR] [-runs N]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/ctxd/ctxd/tools/corpus"
)

type run struct {
	wall  time.Duration
	rssKB int64
	out   []byte
}

// measure runs a command; its stderr is shown only for ctxd (ctags warns
// about every odd file of the corpus).
func measure(name string, args ...string) (run, error) {
	cmd := exec.Command(name, args...)
	if name != "ctags" {
		cmd.Stderr = os.Stderr
	}
	start := time.Now()
	out, err := cmd.Output()
	r := run{wall: time.Since(start), out: out}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.rssKB = ru.Maxrss
	}
	if err != nil {
		return r, fmt.Errorf("%s: %w", name, err)
	}
	return r, nil
}

// best returns the run with the smallest wall time of n: the least
// disturbed by whatever else the machine does.
func best(n int, f func() (run, error)) (run, error) {
	var runs []run
	for range n {
		r, err := f()
		if err != nil {
			return r, err
		}
		runs = append(runs, r)
	}
	slices.SortFunc(runs, func(a, b run) int { return int(a.wall - b.wall) })
	return runs[0], nil
}

func main() {
	ctxd := flag.String("ctxd", "bin/ctxd", "the ctxd binary")
	root := flag.String("root", "", "folder to index (default: $(go env GOROOT)/src)")
	runs := flag.Int("runs", 3, "runs per measurement; the fastest is reported")
	flag.Parse()
	if *root == "" {
		src, err := corpus.GoSrc()
		if err != nil {
			fmt.Fprintln(os.Stderr, "indexbench:", err)
			os.Exit(1)
		}
		*root = src
	}
	tmp, err := os.MkdirTemp("", "indexbench")
	if err != nil {
		fmt.Fprintln(os.Stderr, "indexbench:", err)
		os.Exit(1)
	}
	defer os.RemoveAll(tmp)
	cache := filepath.Join(tmp, "cache")

	cold, err := best(*runs, func() (run, error) {
		os.RemoveAll(cache)
		return measure(*ctxd, "index", "--root", *root, "--json", "--cache-dir", cache)
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "indexbench:", err)
		os.Exit(1)
	}
	warm, err := best(*runs, func() (run, error) {
		return measure(*ctxd, "index", "--root", *root, "--json", "--cache-dir", cache)
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "indexbench:", err)
		os.Exit(1)
	}
	var st struct {
		Roots []struct {
			Files           int            `json:"files"`
			Bytes           int64          `json:"bytes"`
			Symbols         int            `json:"symbols"`
			Skipped         int            `json:"skipped"`
			SkippedByReason map[string]int `json:"skipped_by_reason"`
			FilesByLanguage map[string]int `json:"files_by_language"`
		} `json:"roots"`
	}
	if err := json.Unmarshal(cold.out, &st); err != nil || len(st.Roots) != 1 {
		fmt.Fprintln(os.Stderr, "indexbench: unexpected ctxd output:", err)
		os.Exit(1)
	}
	r := st.Roots[0]
	secs := cold.wall.Seconds()
	fmt.Printf("corpus: %s\n", *root)
	fmt.Printf("indexed files: %d (%.1f MB), symbols: %d, skipped: %d %v\n", r.Files, float64(r.Bytes)/1e6, r.Symbols, r.Skipped, r.SkippedByReason)
	fmt.Printf("languages: %v\n", r.FilesByLanguage)
	fmt.Printf("ctxd cold: %8.2fs  %7.0f files/s  %6.1f MB/s  peak RSS %4d MB\n", secs, float64(r.Files)/secs, float64(r.Bytes)/1e6/secs, cold.rssKB/1024)
	fmt.Printf("ctxd warm: %8.2fs  %7.0f files/s  %6.1f MB/s  peak RSS %4d MB\n", warm.wall.Seconds(), float64(r.Files)/warm.wall.Seconds(), float64(r.Bytes)/1e6/warm.wall.Seconds(), warm.rssKB/1024)
	if _, err := exec.LookPath("ctags"); err != nil {
		fmt.Println("ctags: not installed; no comparison")
		return
	}
	tags := filepath.Join(tmp, "tags")
	ct, err := best(*runs, func() (run, error) { return measure("ctags", "-R", "-f", tags, *root) })
	if err != nil {
		fmt.Fprintln(os.Stderr, "indexbench:", err)
		os.Exit(1)
	}
	fmt.Printf("ctags -R:  %8.2fs  peak RSS %4d MB\n", ct.wall.Seconds(), ct.rssKB/1024)
	fmt.Printf("ratio cold/ctags: %.2f (target <= 3)   warm/ctags: %.2f (target <= 0.5)\n", secs/ct.wall.Seconds(), warm.wall.Seconds()/ct.wall.Seconds())
}

package main

import (
	"bufio"
	_ "embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// hookSource replaces the generator's utils/validate.go in a temporary
// copy of the gitleaks module: every rule function passes its samples to
// Validate (or ValidateWithPaths), which then records them instead of
// checking them. It is ctxd's code, kept as a .txt file so that no build
// of this module compiles it.
//
//go:embed hook.go.txt
var hookSource []byte

// sample is one sample of a gitleaks rule, as the hook records it.
type sample struct {
	Rule     string   `json:"rule"`
	Positive bool     `json:"positive"`
	Path     string   `json:"path,omitempty"`
	Text     string   `json:"text"`
	Secrets  []string `json:"secrets,omitempty"`
	Matches  []string `json:"matches,omitempty"`
}

// gitleaksModule is the module whose rule generator provides the samples.
const gitleaksModule = "github.com/zricethezav/gitleaks/v8"

// collect returns the samples of every rule of the gitleaks generator at
// version: it downloads the module through the Go module proxy (or finds
// it in the module cache), copies it to a temporary directory, replaces
// the generator's validate helper with the hook, builds the generator and
// runs it. No gitleaks code is committed to ctxd nor linked into a ctxd
// binary.
func collect(version, tmp string, logf func(string, ...any)) ([]sample, error) {
	out, err := exec.Command("go", "mod", "download", "-json", gitleaksModule+"@"+version).Output()
	if err != nil {
		return nil, fmt.Errorf("go mod download %s@%s: %w", gitleaksModule, version, exitDetail(err))
	}
	var mod struct{ Dir, Error string }
	if err := json.Unmarshal(out, &mod); err != nil {
		return nil, fmt.Errorf("go mod download: %w", err)
	}
	if mod.Error != "" || mod.Dir == "" {
		return nil, fmt.Errorf("go mod download %s@%s: %s", gitleaksModule, version, mod.Error)
	}
	src := filepath.Join(tmp, "gitleaks")
	if err := copyTree(mod.Dir, src); err != nil {
		return nil, err
	}
	hook := filepath.Join(src, "cmd", "generate", "config", "utils", "validate.go")
	if _, err := os.Stat(hook); err != nil {
		return nil, fmt.Errorf("the generator of %s@%s has no utils/validate.go to hook: %w", gitleaksModule, version, err)
	}
	if err := os.WriteFile(hook, hookSource, 0o644); err != nil {
		return nil, err
	}
	bin := filepath.Join(tmp, "generate")
	logf("building the gitleaks %s rule generator (hooked) …", version)
	build := exec.Command("go", "build", "-mod=mod", "-o", bin, "./cmd/generate/config")
	build.Dir = src
	build.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-buildvcs=false")
	if msg, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("building the generator: %w\n%s", err, msg)
	}
	// The generator renders rules/config.tmpl (relative to its working
	// directory) after calling every rule: an empty template suffices.
	work := filepath.Join(tmp, "run")
	if err := os.MkdirAll(filepath.Join(work, "rules"), 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(work, "rules", "config.tmpl"), nil, 0o644); err != nil {
		return nil, err
	}
	jsonl := filepath.Join(tmp, "samples.jsonl")
	run := exec.Command(bin, filepath.Join(work, "gitleaks.toml"))
	run.Dir = work
	run.Env = append(os.Environ(), "CTXD_SAMPLES_OUT="+jsonl)
	if msg, err := run.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("running the generator: %w\n%s", err, msg)
	}
	return readSamples(jsonl)
}

// readSamples reads the hook's JSON lines, without duplicates (a rule
// function may build another rule and validate its samples again).
func readSamples(path string) ([]sample, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []sample
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var s sample
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		key := fmt.Sprintf("%s\x00%v\x00%s\x00%s", s.Rule, s.Positive, s.Path, s.Text)
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, s)
	}
	return out, sc.Err()
}

// copyTree copies the regular files under src to dst, writable.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, data, 0o644)
	})
}

func exitDetail(err error) error {
	if ee, ok := err.(*exec.ExitError); ok && len(ee.Stderr) > 0 {
		return fmt.Errorf("%w: %s", err, strings.TrimSpace(string(ee.Stderr)))
	}
	return err
}

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/ctxd/ctxd/tools/corpus"
)

// goModule is a Go module from the module proxy, pinned by exact version.
type goModule struct {
	path, version string
}

// goModules are the second Go corpus: a sizeable real module besides the
// standard library, type-checked whole (./...) with its tests.
var goModules = []goModule{{"golang.org/x/tools", "v0.52.0"}}

// goModEnv points the go command at the benchmark's own module cache, so
// that nothing is downloaded into the user's.
func goModEnv(cache string) []string {
	return []string{"GOMODCACHE=" + filepath.Join(cache, "gomod"), "GOFLAGS=-mod=mod -modcacherw", "GOWORK=off", "GOTOOLCHAIN=local", "GO111MODULE=on"}
}

// fetchGoModule downloads m through the module proxy into the cache's
// module cache and returns its directory there.
func fetchGoModule(cache string, m goModule) (string, error) {
	dir := filepath.Join(cache, "gomod-run")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	cmd := exec.Command("go", "mod", "download", "-json", m.path+"@"+m.version)
	cmd.Dir = dir // no go.mod here
	cmd.Env = append(os.Environ(), goModEnv(cache)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go mod download %s@%s: %v: %s%s", m.path, m.version, err, stderr.Bytes(), out)
	}
	var info struct{ Dir, Error string }
	if err := json.Unmarshal(out, &info); err != nil || info.Error != "" || info.Dir == "" {
		return "", fmt.Errorf("go mod download %s@%s: %v %s", m.path, m.version, err, info.Error)
	}
	return info.Dir, nil
}

// goModCorpus copies a module to a workspace of its own (ctxd writes its
// records into the workspace; the module cache stays untouched) and
// type-checks ./... there, its dependencies coming from the cache.
func goModCorpus(e env, m goModule) (*corpusRun, error) {
	src, err := fetchGoModule(e.cache, m)
	if err != nil {
		return nil, err
	}
	root := filepath.Join(e.tmp, "go2-"+filepath.Base(m.path))
	if err := corpus.CopyTree(src, root); err != nil {
		return nil, err
	}
	tree, err := loadGo(root, []string{"./..."}, e.tests, goModEnv(e.cache))
	if err != nil {
		return nil, err
	}
	debug.FreeOSMemory()
	targets := sample(root, tree.candidates, e.n, e.seed, 1024, e.maxTarget)
	return &corpusRun{
		title: fmt.Sprintf("Go: module %s@%s, %s %s/%s, go/packages ./... (%d packages, %d with errors, %d files), cgo off, %s; %d targets of %d candidates",
			m.path, m.version, runtime.Version(), runtime.GOOS, runtime.GOARCH, tree.packages, tree.withErrors,
			len(tree.oracle.Used), testsNote(e.tests), len(targets), len(tree.candidates)),
		root:    root,
		oracle:  tree.oracle,
		targets: targets,
		sibling: func(name string) bool { return strings.HasSuffix(name, ".go") },
	}, nil
}

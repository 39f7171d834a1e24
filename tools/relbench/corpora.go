package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/ctxd/ctxd/tools/corpus"
)

// corpusNames are the -lang values, in the order `make bench-relevance`
// runs them.
var corpusNames = []string{"go", "ts", "go2", "ts2", "py", "py2", "java", "cs"}

// env is what every corpus constructor may need from the command line.
type env struct {
	patterns  []string // go/packages patterns under GOROOT/src
	tests     bool     // Go: type-check test files too
	tsDir     string   // the TypeScript oracle's directory
	tmp       string   // the run's temp dir (workspaces, installs)
	cache     string   // downloads kept between runs
	n         int      // targets per corpus
	seed      uint64
	maxTarget int
}

// openCorpus downloads (or finds in the cache) one corpus, runs its
// oracle and draws its targets.
func openCorpus(name string, e env) (*corpusRun, error) {
	switch name {
	case "go":
		return goCorpus(e)
	case "ts":
		return tsCorpus(e, tsPackages[0])
	case "go2":
		return goModCorpus(e, goModules[0])
	case "ts2":
		return tsCorpus(e, tsPackages[1])
	case "py":
		return pyCorpus(e, pyPackages[0])
	case "py2":
		return pyCorpus(e, pyPackages[1])
	case "java":
		return javaCorpus(e, javaModules[0])
	case "cs":
		return csCorpus(e, csPackages[0])
	}
	return nil, fmt.Errorf("unknown -lang %q (known: %s)", name, strings.Join(corpusNames, ", "))
}

func goCorpus(e env) (*corpusRun, error) {
	root, err := corpus.GoSrc()
	if err != nil {
		return nil, err
	}
	tree, err := loadGo(root, e.patterns, e.tests, nil)
	if err != nil {
		return nil, err
	}
	// The type-checked packages (several GB) are garbage now: give the
	// memory back before the ctxd builds run.
	debug.FreeOSMemory()
	targets := sample(root, tree.candidates, e.n, e.seed, 1024, e.maxTarget)
	return &corpusRun{
		title: fmt.Sprintf("Go: GOROOT/src, %s %s/%s, go/packages %s (%d packages, %d with errors, %d files), cgo off, %s; %d targets of %d candidates",
			runtime.Version(), runtime.GOOS, runtime.GOARCH, strings.Join(e.patterns, "+"), tree.packages, tree.withErrors,
			len(tree.oracle.Used), testsNote(e.tests), len(targets), len(tree.candidates)),
		root:    root,
		oracle:  tree.oracle,
		targets: targets,
		sibling: func(name string) bool { return strings.HasSuffix(name, ".go") },
	}, nil
}

func testsNote(tests bool) string {
	if tests {
		return "tests included"
	}
	return "tests excluded"
}

func tsCorpus(e env, pkg tsPackage) (*corpusRun, error) {
	tree, err := loadTS(e.tsDir, e.tmp, pkg)
	if err != nil {
		return nil, err
	}
	targets := sample(tree.root, tree.candidates, e.n, e.seed, 512, e.maxTarget)
	return &corpusRun{
		title: fmt.Sprintf("TypeScript: %s %s/ (version pinned in %s/package-lock.json), TypeScript %s checker, %s (%d files); %d targets of %d candidates",
			pkg.name, pkg.dir, e.tsDir, tree.version, pkg.mode, len(tree.oracle.Used), len(targets), len(tree.candidates)),
		root:    tree.root,
		oracle:  tree.oracle,
		targets: targets,
		sibling: func(name string) bool {
			return (strings.HasSuffix(name, ".ts") || strings.HasSuffix(name, ".tsx")) && !strings.HasSuffix(name, ".d.ts")
		},
	}, nil
}

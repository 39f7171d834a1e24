package main

import (
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"github.com/ctxd/ctxd/tools/corpus"
)

//go:embed py/oracle.py
var pyOracleSrc []byte

// pyPackage is a Python corpus: the package dir (an import name) of a
// Debian package, with the Debian packages it needs at import time.
type pyPackage struct {
	deb  debPkg
	dir  string   // the top-level package, as imported
	deps []debPkg // on sys.path, outside the workspace
}

// distPackages is where Debian's python3-* packages put their modules.
const distPackages = "usr/lib/python3/dist-packages"

// pyPackages are the Python corpora, from Debian bookworm.
var pyPackages = []pyPackage{
	{deb: debPkg{"python3-sqlalchemy", "1.4.46+ds1-1"}, dir: "sqlalchemy", deps: []debPkg{{"python3-greenlet", "2.0.2-1"}}},
	{deb: debPkg{"python3-docutils", "0.19+dfsg-6"}, dir: "docutils", deps: []debPkg{{"python3-roman", "3.3-3"}}},
}

// pyOracleJSON is the output of py/oracle.py.
type pyOracleJSON struct {
	Python  string            `json:"python"`
	Files   scriptFiles       `json:"files"`
	Skipped map[string]string `json:"skipped"`
}

// pyCorpus copies the package to a workspace (ROOT/dir/...) and asks the
// interpreter (python3 -S, so that no site-packages copy of the package
// shadows it) what every module's imports resolve to.
func pyCorpus(e env, p pyPackage) (*corpusRun, error) {
	src, err := fetchDeb(e.cache, p.deb)
	if err != nil {
		return nil, err
	}
	root := filepath.Join(e.tmp, "py-"+p.dir)
	if err := corpus.CopyTree(filepath.Join(src, distPackages, p.dir), filepath.Join(root, p.dir)); err != nil {
		return nil, err
	}
	pythonPath := []string{root}
	for _, d := range p.deps {
		dir, err := fetchDeb(e.cache, d)
		if err != nil {
			return nil, err
		}
		pythonPath = append(pythonPath, filepath.Join(dir, distPackages))
	}
	var o pyOracleJSON
	script := filepath.Join(e.tmp, "pyoracle.py")
	cmd := exec.Command("python3", "-S", "-B", script, root)
	cmd.Env = append(os.Environ(), "PYTHONPATH="+strings.Join(pythonPath, string(os.PathListSeparator)), "PYTHONDONTWRITEBYTECODE=1")
	if err := runScript(script, pyOracleSrc, cmd, &o); err != nil {
		return nil, err
	}
	used, cands := o.Files.split(pyCandidate)
	targets := sample(root, cands, e.n, e.seed, 1024, e.maxTarget)
	return &corpusRun{
		title: fmt.Sprintf("Python: %s (Debian %s %s), the interpreter (Python %s, -S) on every module (%d import, %d do not); %d targets of %d candidates",
			p.dir, p.deb.name, p.deb.version, o.Python, len(o.Files), len(o.Skipped), len(targets), len(cands)),
		root:    root,
		oracle:  NewOracle(used),
		targets: targets,
		sibling: func(name string) bool { return strings.HasSuffix(name, ".py") },
	}, nil
}

// pyCandidate reports whether a module may be a target: not a test module.
func pyCandidate(rel string) bool {
	base := path.Base(rel)
	if strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py") {
		return false
	}
	for _, seg := range strings.Split(path.Dir(rel), "/") {
		if seg == "tests" || seg == "test" {
			return false
		}
	}
	return true
}

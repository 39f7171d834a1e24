package main

import (
	_ "embed"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/ctxd/ctxd/tools/corpus"
)

//go:embed java/Oracle.java
var javaOracleSrc []byte

// javaModules are the Java corpora: the main sources of a library that
// needs nothing but the JDK, from Debian's source package (upstream
// tarball).
var javaModules = []debSource{{
	name: "libcommons-collections4-java", version: "4.2-1",
	orig: "libcommons-collections4-java_4.2.orig.tar.xz",
	dir:  "commons-collections-commons-collections-4.2/src/main/java",
}}

// javaOracleJSON is the output of java/Oracle.java.
type javaOracleJSON struct {
	Javac  string      `json:"javac"`
	Errors int         `json:"errors"`
	Files  scriptFiles `json:"files"`
}

// javaCorpus copies the sources to a workspace and runs the oracle (the
// javac of the JDK on PATH, through its tree API) on all of them at once.
func javaCorpus(e env, s debSource) (*corpusRun, error) {
	src, err := fetchDebSource(e.cache, s)
	if err != nil {
		return nil, err
	}
	root := filepath.Join(e.tmp, "java-"+s.name)
	if err := corpus.CopyTree(src, root); err != nil {
		return nil, err
	}
	var o javaOracleJSON
	script := filepath.Join(e.tmp, "Oracle.java")
	if err := runScript(script, javaOracleSrc, exec.Command("java", script, root), &o); err != nil {
		return nil, err
	}
	used, cands := o.Files.split(func(f string) bool {
		return !strings.HasSuffix(f, "package-info.java") && !strings.HasSuffix(f, "module-info.java")
	})
	targets := sample(root, cands, e.n, e.seed, 1024, e.maxTarget)
	return &corpusRun{
		title: fmt.Sprintf("Java: %s (Debian source %s %s, src/main/java), javac %s tree API, one task over all files (%d files, %d errors); %d targets of %d candidates",
			s.dir[:strings.Index(s.dir, "/")], s.name, s.version, o.Javac, len(o.Files), o.Errors, len(targets), len(cands)),
		root:    root,
		oracle:  NewOracle(used),
		targets: targets,
		sibling: func(name string) bool { return strings.HasSuffix(name, ".java") },
	}, nil
}

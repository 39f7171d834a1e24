package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// tsPackage is an npm package whose published TypeScript sources (dir) a
// TypeScript corpus runs on; its exact version is pinned in ts/package.json
// and ts/package-lock.json. mode names the compiler options oracle.js uses
// for it: "node10" (CommonJS, moduleResolution node10, es2020 + dom) or
// "bundler" (ESNext modules, moduleResolution bundler, so that "./X.js"
// resolves to X.ts as under NodeNext, es2022 + dom).
type tsPackage struct {
	name, dir, mode string
}

// tsPackages are the TypeScript corpora: rxjs (CommonJS-style imports
// without extensions) and effect (ESM, "./X.js" specifiers).
var tsPackages = []tsPackage{
	{name: "rxjs", dir: "src", mode: "node10"},
	{name: "effect", dir: "src", mode: "bundler"},
}

// tsTree is the TypeScript oracle's result.
type tsTree struct {
	oracle     *Oracle
	root       string   // the workspace ctxd builds from: a copy of the package's src/
	candidates []string // sorted
	version    string   // TypeScript's
}

// oracleJSON is the output of ts/oracle.js.
type oracleJSON struct {
	TypeScript string `json:"typescript"`
	Files      map[string]struct {
		Used  map[string]int `json:"used"`
		Users map[string]int `json:"users"`
	} `json:"files"`
}

// loadTS installs ts/ (the pinned typescript and packages) with npm ci
// into a directory under tmp (once per run), copies the package's sources
// to a workspace of its own under tmp and runs the oracle on it. Nothing is
// written to the repo.
func loadTS(tsDir, tmp string, pkg tsPackage) (*tsTree, error) {
	work := filepath.Join(tmp, "ts")
	if _, err := os.Stat(filepath.Join(work, "node_modules", "typescript")); err != nil {
		if err := npmCI(tsDir, work); err != nil {
			return nil, err
		}
	}
	ws := filepath.Join(tmp, pkg.name+"-"+pkg.dir)
	if err := copyTree(filepath.Join(work, "node_modules", pkg.name, pkg.dir), ws); err != nil {
		return nil, err
	}
	node := exec.Command("node", filepath.Join(work, "oracle.js"), ws, pkg.mode)
	node.Stderr = os.Stderr
	out, err := node.Output()
	if err != nil {
		return nil, fmt.Errorf("node oracle.js: %w", err)
	}
	var o oracleJSON
	if err := json.Unmarshal(out, &o); err != nil {
		return nil, fmt.Errorf("oracle.js output: %w", err)
	}
	used := map[string]map[string]int{}
	tree := &tsTree{root: ws, version: o.TypeScript}
	for f, e := range o.Files {
		used[f] = e.Used
		if used[f] == nil {
			used[f] = map[string]int{}
		}
		if !strings.HasSuffix(f, ".d.ts") {
			tree.candidates = append(tree.candidates, f)
		}
	}
	tree.oracle = NewOracle(used)
	slices.Sort(tree.candidates)
	return tree, nil
}

// npmCI copies the oracle's files from tsDir to work and installs the
// pinned packages there.
func npmCI(tsDir, work string) error {
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	for _, f := range []string{"package.json", "package-lock.json", ".npmrc", "oracle.js"} {
		data, err := os.ReadFile(filepath.Join(tsDir, f))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(work, f), data, 0o644); err != nil {
			return err
		}
	}
	npm := exec.Command("npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error")
	npm.Dir = work
	npm.Stdout, npm.Stderr = os.Stderr, os.Stderr
	if err := npm.Run(); err != nil {
		return fmt.Errorf("npm ci in %s: %w", work, err)
	}
	return nil
}

// copyTree copies the regular files under src to dst.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		r, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, r)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}

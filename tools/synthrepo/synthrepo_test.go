package main

import (
	"crypto/sha256"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The benchmark's figures are comparable across runs only if the same
// seed gives the same bytes.
func TestDeterministic(t *testing.T) {
	digest := func(seed uint64) [32]byte {
		p := newPlan(1000, seed)
		h := sha256.New()
		for i, f := range p.files {
			h.Write([]byte(f.path + "\x00" + p.fileText(i) + "\x00"))
		}
		return [32]byte(h.Sum(nil))
	}
	if digest(7) != digest(7) {
		t.Fatal("two plans of the same seed differ")
	}
	if digest(7) == digest(8) {
		t.Fatal("two seeds gave the same repository")
	}
}

// Every planned path is written once, the count is exact, and every
// import names a package or module that exists.
func TestPlan(t *testing.T) {
	const n = 2000
	p := newPlan(n, 1)
	if len(p.files) != n {
		t.Fatalf("%d files, want %d", len(p.files), n)
	}
	paths := map[string]bool{}
	for _, f := range p.files {
		if paths[f.path] {
			t.Fatalf("path %s planned twice", f.path)
		}
		paths[f.path] = true
	}
	dir := t.TempDir()
	if _, err := p.write(dir, 2); err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	goFiles, tsImports := 0, 0
	for i, f := range p.files {
		text := p.fileText(i)
		switch f.kind {
		case fGo, fGoTest:
			goFiles++
			af, err := parser.ParseFile(fset, f.path, text, parser.ImportsOnly)
			if err == nil {
				_, err = parser.ParseFile(fset, f.path, text, parser.SkipObjectResolution)
			}
			if err != nil {
				t.Fatalf("%s: %v", f.path, err)
			}
			for _, imp := range af.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				rel, ok := strings.CutPrefix(path, module+"/")
				if !ok {
					continue
				}
				if _, err := os.Stat(filepath.Join(dir, rel)); err != nil {
					t.Errorf("%s imports %s: %v", f.path, path, err)
				}
			}
		case fTS:
			for _, line := range strings.Split(text, "\n") {
				_, spec, ok := strings.Cut(line, " from '")
				if !ok || !strings.HasPrefix(line, "import {") || strings.HasPrefix(spec, "vitest") {
					continue
				}
				tsImports++
				spec = strings.TrimSuffix(spec, "';")
				target := filepath.Join(dir, filepath.Dir(filepath.FromSlash(f.path)), filepath.FromSlash(spec))
				if _, err := os.Stat(target + ".ts"); err != nil {
					if _, err := os.Stat(filepath.Join(target, "index.ts")); err != nil {
						t.Errorf("%s imports %s, which resolves to nothing", f.path, spec)
					}
				}
			}
		}
	}
	if goFiles < n/3 || tsImports < n/3 {
		t.Errorf("%d Go files and %d TypeScript imports of %d files: the mix is off", goFiles, tsImports, n)
	}
}

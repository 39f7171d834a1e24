package relate

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"
)

// TestResolveModulesPython checks the modules a Python file's uses reach as
// objects, with and without declarations, over the packages fixture: the
// answer Resolve cannot give for an __init__.py of imports only.
func TestResolveModulesPython(t *testing.T) {
	ar, err := txtar.ParseFile("testdata/uses/py_packages.txtar")
	if err != nil {
		t.Fatal(err)
	}
	var files []txtar.File
	for _, f := range ar.Files {
		if f.Name != "queries" && f.Name != "want" {
			files = append(files, f)
		}
	}
	src, _ := parsedSource(t, files)
	g := Build(src)
	tests := []struct {
		path string
		want []string
	}{
		// util (declares helper) and bare (declares nothing) are used
		// as objects through `from .. import`; cursor through `from .
		// import`.
		{"lib/engine/base.py", []string{"lib/bare/__init__.py", "lib/engine/cursor.py", "lib/util/__init__.py"}},
		// `import lib.engine.cursor` then lib.engine.cursor.fetch: lib,
		// lib/engine (no declarations) and cursor; `from lib.shadow import
		// other` is the submodule, `import … as lh` langhelpers; `from
		// lib.shadow import sub` is a function shadow's __init__.py
		// declares; `from lib.util import memo` looks memo up in
		// lib/util/__init__.py, which re-exports it from langhelpers:
		// both are used.
		{"app/use.py", []string{
			"lib/__init__.py", "lib/engine/__init__.py", "lib/engine/cursor.py",
			"lib/shadow/other.py", "lib/util/__init__.py", "lib/util/langhelpers.py",
		}},
		{"app/chain.py", []string{"lib/api.py", "lib/pub/__init__.py"}},
		// A module reaching nothing as an object, and a file outside
		// the graph.
		{"lib/util/langhelpers.py", nil},
		{"nowhere.py", nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, g.ResolveModules(tt.path, nil)); diff != "" {
			t.Errorf("ResolveModules(%s) mismatch (-want +got):\n%s", tt.path, diff)
		}
	}
}

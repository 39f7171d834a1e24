package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const module = "github.com/ctxd/ctxd"

// layer ranks a package of the module in main → (internal/cli | server |
// mcp) → handlers → workspace → contextbuilder → index
// (docs/architecture.md); leaf helpers under internal/ rank with index
// (they may import nothing of ctxd above it); the tools rank -1 and are
// not checked here.
func layer(pkg string) int {
	rel := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
	first, _, _ := strings.Cut(rel, "/")
	switch {
	case rel == "":
		return 6
	case rel == "internal/cli" || strings.HasPrefix(rel, "internal/cli/"):
		return 5
	case first == "internal":
		return 0 // leaf helpers (internal/strictjson) sit below everything
	case first == "server", first == "mcp":
		return 4
	case first == "handlers":
		return 3
	case first == "workspace":
		return 2
	case first == "contextbuilder":
		return 1
	case first == "index":
		return 0
	}
	return -1
}

// TestLayers: no package imports a package of a higher layer, and no
// package below handlers imports go.lsp.dev (LSP types stay at the
// edge). workspace/prompt's import of contextbuilder is the one import
// from a workspace sub-package downward that the table allows anyway.
func TestLayers(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}\t{{join .Imports \" \"}}", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var problems []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, "\t")
		from := layer(pkg)
		if from < 0 || strings.Contains(pkg, "/tools/") {
			continue
		}
		for _, imp := range strings.Fields(imports) {
			if strings.HasPrefix(imp, "go.lsp.dev/") && from < layer(module+"/handlers") {
				problems = append(problems, pkg+" imports "+imp+" (LSP types stay in handlers and server)")
			}
			if !strings.HasPrefix(imp, module+"/") {
				continue
			}
			if to := layer(imp); to > from {
				problems = append(problems, pkg+" imports "+imp+" (upward)")
			}
		}
	}
	if diff := cmp.Diff([]string(nil), problems); diff != "" {
		t.Errorf("layering violations (-want +got):\n%s", diff)
	}
}

// TestThinRoot: the module root holds at most two non-test Go files
// (main.go and its generate directive's home); subcommands live in
// internal/cli.
func TestThinRoot(t *testing.T) {
	entries, err := os.ReadDir("..")
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, e := range entries {
		if n := e.Name(); filepath.Ext(n) == ".go" && !strings.HasSuffix(n, "_test.go") {
			files = append(files, n)
		}
	}
	slices.Sort(files)
	if len(files) > 2 {
		t.Errorf("the module root has %d non-test Go files %v, want at most 2", len(files), files)
	}
}

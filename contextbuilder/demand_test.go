package contextbuilder_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/contextbuilder/tokens"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/workspace"
)

// TestDemandLooksForDeclarations: a build before the folder is parsed
// looks for the declaration of a name a target uses among the files of
// its package that can declare it (their declaration words), not among
// every file of the package that uses it in a body or a comment; and it
// gives the bytes of the build on the complete index.
func TestDemandLooksForDeclarations(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":   "module m\n",
		"p/def.go": "package p\n\n// Target is what q calls.\nfunc Target() int { return 1 }\n",
		"q/q.go":   "package q\n\nimport \"m/p\"\n\nfunc Use() int { return p.Target() }\n",
	}
	const users = 24
	for i := range users {
		// Each uses Target in a body, a comment, a value and a signature's
		// parameter name: none declares it.
		files[fmt.Sprintf("p/use%02d.go", i)] = fmt.Sprintf("package p\n\n// Target is called here.\nvar v%d = Target()\n\nfunc f%d(Target int) int { return Target + f%d(0) }\n", i, i, i)
	}
	for p, text := range files {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	build := func(partial bool) (out []byte, parsed int) {
		x := openIndex(t, dir, index.Options{CacheDir: "off"}, partial)
		req, err := workspace.DecodeBuildRequest([]byte(`{"purpose": "diff", "active_file": "` + index.PathToURI(filepath.Join(dir, "q/q.go")) + `"}`))
		if err != nil {
			t.Fatal(err)
		}
		parsed = -1
		res, err := contextbuilder.Build(ctx, x.Snapshot(), req, contextbuilder.Options{
			CreatedAt: goldenTime,
			Tokens:    tokens.NewCache(0),
			OnDemand:  func(files, _ int) { parsed = files },
		})
		return encodeOutcome(t, res, err), parsed
	}
	whole, _ := build(false)
	early, parsed := build(true)
	if string(whole) != string(early) {
		t.Errorf("the build before the parse differs from the complete index's")
	}
	// q/q.go, p/def.go, and at most a few more; not p's users.
	if parsed < 0 || parsed > 4 {
		t.Errorf("the demand-driven build parsed %d files, want at most 4 (the target and the declaration's file)", parsed)
	}
}

// openIndex indexes dir as the folder "ws": completely, or (partial) only
// listed, its background parse held, as a build before the parse sees it.
func openIndex(t *testing.T, dir string, opts index.Options, partial bool) *index.Index {
	t.Helper()
	x := index.New(opts)
	t.Cleanup(func() { x.Close() })
	wait := x.Wait
	if partial {
		t.Cleanup(x.PauseParsing())
		wait = x.WaitListed
	}
	x.SetRoots([]index.Root{{URI: index.PathToURI(dir), Name: "ws", Dir: dir}})
	if _, err := wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	return x
}

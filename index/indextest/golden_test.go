package indextest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"
)

const archive = `comment
-- ws/a.go --
package a
-- ws/sub/b.go --
package sub
-- after/x --
x
-- queries --
q1
-- want --
old
`

// writeArchive writes archive to a file of a new directory.
func writeArchive(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "case.txtar")
	if err := os.WriteFile(p, []byte(archive), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func names(files []txtar.File) []string {
	var out []string
	for _, f := range files {
		out = append(out, f.Name+"="+string(f.Data))
	}
	return out
}

func TestGoldenSections(t *testing.T) {
	g := ReadGolden(t, writeArchive(t))
	q, ok := g.Section("queries")
	missing, found := g.Section("absent")
	got := map[string]any{
		"files":   names(g.Files("queries", "want")),
		"under":   names(g.Under("ws")),
		"section": []any{string(q), ok, string(missing), found},
	}
	want := map[string]any{
		"files":   []string{"ws/a.go=package a\n", "ws/sub/b.go=package sub\n", "after/x=x\n"},
		"under":   []string{"a.go=package a\n", "sub/b.go=package sub\n"},
		"section": []any{"q1\n", true, "", false},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sections mismatch (-want +got):\n%s", diff)
	}
}

func TestGoldenWriteTree(t *testing.T) {
	g := ReadGolden(t, writeArchive(t))
	dir := g.WriteTree(t, "queries", "want")
	got := map[string]string{}
	for _, name := range []string{"ws/a.go", "ws/sub/b.go", "after/x", "queries", "want"} {
		if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name))); err == nil {
			got[name] = string(b)
		}
	}
	want := map[string]string{"ws/a.go": "package a\n", "ws/sub/b.go": "package sub\n", "after/x": "x\n"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("written tree mismatch (-want +got):\n%s", diff)
	}
}

// TestGoldenUpdate checks that updating rewrites only the output sections,
// in place or appended, and that a check against the rewritten archive
// passes.
func TestGoldenUpdate(t *testing.T) {
	path := writeArchive(t)
	g := ReadGolden(t, path)
	g.check(t, "want", []byte("new\n"), true)
	g.check(t, "want.txt", []byte("added\n"), true)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := `comment
-- ws/a.go --
package a
-- ws/sub/b.go --
package sub
-- after/x --
x
-- queries --
q1
-- want --
new
-- want.txt --
added
`
	if diff := cmp.Diff(want, string(b)); diff != "" {
		t.Errorf("updated archive mismatch (-want +got):\n%s", diff)
	}
	again := ReadGolden(t, path)
	again.Check(t, "want", []byte("new\n"))
	again.Check(t, "want.txt", []byte("added\n"))
}

// TestGoldenMismatch checks that a difference is reported, not written.
func TestGoldenMismatch(t *testing.T) {
	path := writeArchive(t)
	g := ReadGolden(t, path)
	ft := &fakeTB{TB: t}
	g.check(ft, "want", []byte("other\n"), false)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]any{true, archive}, []any{ft.failed, string(b)}); diff != "" {
		t.Errorf("(failed, archive) mismatch (-want +got):\n%s", diff)
	}
}

// fakeTB records Errorf instead of failing the test.
type fakeTB struct {
	testing.TB
	failed bool
}

func (f *fakeTB) Helper()                   {}
func (f *fakeTB) Errorf(string, ...any)     { f.failed = true }
func (f *fakeTB) Fatal(args ...any)         { f.TB.Fatal(args...) }
func (f *fakeTB) Fatalf(s string, a ...any) { f.TB.Fatalf(s, a...) }

func TestUpdatingWithoutFlag(t *testing.T) {
	if Updating() {
		t.Error("Updating() = true without an update flag")
	}
}

package indextest

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"
)

// UpdateFlag declares the -update flag of a test package's golden tests;
// what says what it rewrites ("want.json of testdata/*.txtar"). Call it
// once per test binary, from a package-level variable or init.
func UpdateFlag(what string) *bool {
	return flag.Bool("update", false, "rewrite "+what+"; review the diff before committing")
}

// Updating reports whether the test binary runs with -update, as declared
// by [UpdateFlag] (or by any boolean flag named "update"); false when no
// such flag is declared.
func Updating() bool {
	f := flag.Lookup("update")
	if f == nil {
		return false
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return false
	}
	b, _ := g.Get().(bool)
	return b
}

// Golden is one golden archive.
type Golden struct {
	// Path is the archive's file, as given to [ReadGolden] or matched by
	// [Goldens].
	Path string
	// Archive is the parsed archive; [Golden.Check] rewrites its output
	// sections under -update.
	Archive *txtar.Archive
}

// Goldens runs fn as a subtest for each archive matching the file pattern
// (as in filepath.Glob, e.g. "testdata/*.txtar"), named after the file
// without its ".txtar" extension, in lexical order. The test fails when no
// archive matches: a mistyped pattern must not pass silently.
func Goldens(t *testing.T, pattern string, fn func(t *testing.T, g *Golden)) {
	t.Helper()
	paths, err := filepath.Glob(pattern)
	if err != nil || len(paths) == 0 {
		t.Fatalf("no golden archives %s: %v", pattern, err)
	}
	for _, p := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(p), ".txtar"), func(t *testing.T) {
			fn(t, ReadGolden(t, p))
		})
	}
}

// ReadGolden reads and parses the golden archive at path; the test fails
// when it cannot be read.
func ReadGolden(tb testing.TB, path string) *Golden {
	tb.Helper()
	ar, err := txtar.ParseFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return &Golden{Path: path, Archive: ar}
}

// Section returns the data of the archive's section named name and
// whether it has one; the last one when the name repeats.
func (g *Golden) Section(name string) ([]byte, bool) {
	i := g.index(name)
	if i < 0 {
		return nil, false
	}
	return g.Archive.Files[i].Data, true
}

// Files returns the archive's sections but those named in except (the
// output sections, say), in archive order.
func (g *Golden) Files(except ...string) []txtar.File {
	var out []txtar.File
	for _, f := range g.Archive.Files {
		if !slices.Contains(except, f.Name) {
			out = append(out, f)
		}
	}
	return out
}

// Under returns the sections whose name starts with dir followed by a '/'
// ("ws" for "ws/a.go"), named without that prefix, in archive order.
func (g *Golden) Under(dir string) []txtar.File {
	var out []txtar.File
	for _, f := range g.Archive.Files {
		if rest, ok := strings.CutPrefix(f.Name, dir+"/"); ok {
			out = append(out, txtar.File{Name: rest, Data: f.Data})
		}
	}
	return out
}

// WriteTree writes the archive's sections but those named in except under
// a new temporary directory (see [TempDir]) and returns the directory.
func (g *Golden) WriteTree(tb testing.TB, except ...string) string {
	tb.Helper()
	dir := TempDir(tb)
	WriteFiles(tb, dir, g.Files(except...))
	return dir
}

// Check compares got with the section named want, reporting a cmp.Diff
// "(-want +got)". Under -update ([Updating]) it instead sets that section
// to got, appending it when absent, and writes the archive back: the
// other sections keep their order and content.
func (g *Golden) Check(tb testing.TB, want string, got []byte) {
	tb.Helper()
	g.check(tb, want, got, Updating())
}

func (g *Golden) check(tb testing.TB, want string, got []byte, update bool) {
	tb.Helper()
	i := g.index(want)
	if update {
		if i < 0 {
			g.Archive.Files = append(g.Archive.Files, txtar.File{Name: want})
			i = len(g.Archive.Files) - 1
		}
		g.Archive.Files[i].Data = got
		if err := os.WriteFile(g.Path, txtar.Format(g.Archive), 0o644); err != nil {
			tb.Fatal(err)
		}
		return
	}
	var old []byte
	if i >= 0 {
		old = g.Archive.Files[i].Data
	}
	if diff := cmp.Diff(string(old), string(got)); diff != "" {
		tb.Errorf("%s: %s mismatch (-want +got):\n%s", g.Path, want, diff)
	}
}

// index returns the index of the last section named name, or -1.
func (g *Golden) index(name string) int {
	i := -1
	for j := range g.Archive.Files {
		if g.Archive.Files[j].Name == name {
			i = j
		}
	}
	return i
}

// CheckGolden is [Golden.Check] for an archive already parsed, with the
// update flag passed in; kept for tests that hold their own flag.
func CheckGolden(tb testing.TB, path string, ar *txtar.Archive, want string, got []byte, update bool) {
	tb.Helper()
	(&Golden{Path: path, Archive: ar}).check(tb, want, got, update)
}

// PinGoPlatform sets the GOOS and GOARCH environment variables of the test
// process to linux/amd64, the platform the golden files were written for:
// Go build constraints are evaluated for them, and bundles name the
// platform in their notes, so goldens would otherwise depend on the host.
func PinGoPlatform() {
	os.Setenv("GOOS", "linux")
	os.Setenv("GOARCH", "amd64")
}

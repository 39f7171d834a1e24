package index

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFingerprintIgnoresNamesAndOrder: project_index_fingerprint depends on
// the files' relative paths and contents only. One root: the snapshot's
// is the root's (the manifest's). Several roots: the same whatever their
// names, paths or order in the client's list, and different when a file
// changes.
func TestFingerprintIgnoresNamesAndOrder(t *testing.T) {
	a := writeTree(t, "-- a.go --\npackage a\n")
	b := writeTree(t, "-- b.txt --\nb\n")
	aCopy := writeTree(t, "-- a.go --\npackage a\n")
	bChanged := writeTree(t, "-- b.txt --\nB\n")
	fingerprint := func(roots ...Root) (snapshot string, perRoot []string) {
		t.Helper()
		x := New(Options{CacheDir: "off"})
		t.Cleanup(func() { x.Close() })
		x.SetRoots(roots)
		snap, err := x.Wait(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range snap.Status(false).Roots {
			perRoot = append(perRoot, r.Fingerprint)
		}
		return snap.Fingerprint(), perRoot
	}
	root := func(dir, name string) Root { return Root{URI: PathToURI(dir), Name: name, Dir: dir} }

	one, perRoot := fingerprint(root(a, "a"))
	if diff := cmp.Diff([]string{one}, perRoot); diff != "" {
		t.Errorf("one root: the snapshot's fingerprint is not the root's (-snapshot +root):\n%s", diff)
	}
	if got, _ := fingerprint(root(aCopy, "renamed")); got != one {
		t.Errorf("a copy under another path and name: %s, want %s", got, one)
	}
	two, _ := fingerprint(root(a, "a"), root(b, "b"))
	for _, roots := range [][]Root{
		{root(b, "b"), root(a, "a")},
		{root(aCopy, "x"), root(b, "y")},
	} {
		if got, _ := fingerprint(roots...); got != two {
			t.Errorf("roots %+v: %s, want %s", roots, got, two)
		}
	}
	if got, _ := fingerprint(root(a, "a"), root(bChanged, "b")); got == two {
		t.Error("changing a file of the second root left the fingerprint unchanged")
	}
	if two == one {
		t.Error("a second root left the fingerprint unchanged")
	}
}

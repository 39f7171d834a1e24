package index

import (
	"testing"
	"unsafe"
)

// TestCacheLoadInterns checks that the extractions read back from a
// cache share their equal strings, as freshly parsed ones do: a warm
// start of a large tree must not hold a copy of every name per file that
// mentions it. (Two files make a large tree here.)
func TestCacheLoadInterns(t *testing.T) {
	defer func(n int) { shareMinFiles = n }(shareMinFiles)
	shareMinFiles = 2
	dir := writeTree(t, "-- a.go --\npackage a\n\nimport \"example.com/lib/store\"\n\nfunc A() { store.Open() }\n"+
		"-- b.go --\npackage a\n\nimport \"example.com/lib/store\"\n\nfunc B() { store.Open() }\n")
	cacheDir := t.TempDir()
	x := New(Options{CacheDir: cacheDir})
	x.SetRoots([]Root{{URI: PathToURI(dir), Dir: dir}})
	if _, err := x.Wait(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	c := openRootCache(cacheDir, dir, nil)
	if len(c.old) != 2 {
		t.Fatalf("cache holds %d entries, want 2", len(c.old))
	}
	var paths []string
	for _, f := range c.old {
		if len(f.Imports) != 1 {
			t.Fatalf("an entry has %d imports, want 1", len(f.Imports))
		}
		paths = append(paths, f.Imports[0].Path)
	}
	if paths[0] != paths[1] {
		t.Fatalf("import paths %q and %q differ", paths[0], paths[1])
	}
	if unsafe.StringData(paths[0]) != unsafe.StringData(paths[1]) {
		t.Errorf("the entries read from the cache hold two copies of %q, want one", paths[0])
	}
}

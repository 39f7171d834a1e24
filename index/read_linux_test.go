package index

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestOpenBeneath: the one-call open of the scan's reader opens a file
// below the root, through links that stay inside it, and nothing else:
// not a final link, not a path through a link out of the root or an
// absolute one, not a path above the root; each of those goes to
// os.Root (openRegular), which refuses or follows it as before.
func TestOpenBeneath(t *testing.T) {
	outside := writeTree(t, "-- secret.txt --\nkey\n")
	dir := writeTree(t, "-- a.go --\npackage a\n-- sub/b.go --\npackage sub\n")
	for link, target := range map[string]string{
		"final.go": "a.go",
		"out":      outside,
		"abs":      filepath.Join(dir, "sub"),
		"in":       "sub",
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	if f := openBeneath(dir, "a.go"); f == nil {
		t.Skip("openat2 unavailable")
	} else {
		f.Close()
	}
	got := map[string]bool{}
	for _, p := range []string{"a.go", "sub/b.go", "in/b.go", "final.go", "out/secret.txt", "abs/b.go", "../" + filepath.Base(outside) + "/secret.txt", "sub/../../x"} {
		f := openBeneath(dir, p)
		got[p] = f != nil
		if f != nil {
			f.Close()
		}
	}
	want := map[string]bool{
		"a.go": true, "sub/b.go": true, "in/b.go": true,
		"final.go": false, "out/secret.txt": false, "abs/b.go": false,
		"../" + filepath.Base(outside) + "/secret.txt": false, "sub/../../x": false,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("opened (-want +got):\n%s", diff)
	}
}

package indextest

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"
)

// CheckGolden compares got with the section named want of the archive ar
// read from path. With update set it rewrites that section (adding it when
// absent) and writes the archive back instead; review the diff before
// committing.
func CheckGolden(tb testing.TB, path string, ar *txtar.Archive, want string, got []byte, update bool) {
	tb.Helper()
	i := -1
	for j := range ar.Files {
		if ar.Files[j].Name == want {
			i = j
		}
	}
	if update {
		if i < 0 {
			ar.Files = append(ar.Files, txtar.File{Name: want})
			i = len(ar.Files) - 1
		}
		ar.Files[i].Data = got
		if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
			tb.Fatal(err)
		}
		return
	}
	var old []byte
	if i >= 0 {
		old = ar.Files[i].Data
	}
	if diff := cmp.Diff(string(old), string(got)); diff != "" {
		tb.Errorf("%s (-want +got):\n%s", path, diff)
	}
}

// PinGoPlatform sets the GOOS and GOARCH environment variables of the test
// process to linux/amd64, the platform the golden files were written for:
// Go build constraints are evaluated for them, and bundles name the
// platform in their notes, so goldens would otherwise depend on the host.
func PinGoPlatform() {
	os.Setenv("GOOS", "linux")
	os.Setenv("GOARCH", "amd64")
}

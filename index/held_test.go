package index

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// settled makes the files of a tree written now count as settled for
// holding (see fileStamp.settledAt), with a window far longer than a
// file system's clock tick, and waits that long: a change the test makes
// afterwards gets another change time, as on a tree that was not just
// written.
func settled(t *testing.T) {
	t.Helper()
	t.Cleanup(func() { settleWindow = racyWindow })
	settleWindow = 50 * time.Millisecond
	time.Sleep(2 * settleWindow)
}

// countReads counts the reads of each file name from now on.
func countReads(t *testing.T) func() map[string]int {
	var mu sync.Mutex
	reads := map[string]int{}
	hook := func(f *os.File, attempt int) {
		mu.Lock()
		reads[filepath.Base(f.Name())]++
		mu.Unlock()
	}
	readHook.Store(&hook)
	t.Cleanup(func() { readHook.Store(nil) })
	return func() map[string]int {
		mu.Lock()
		defer mu.Unlock()
		return reads
	}
}

// TestScanReadsOnce: a scan parses a settled file from the bytes its
// listing read, without reading it again; a file that changed within the
// settle window is read again for its parse.
func TestScanReadsOnce(t *testing.T) {
	dir := writeTree(t, "-- a.go --\npackage a\n\nfunc A() {}\n-- b.py --\ndef b():\n    pass\n-- notes.txt --\nhello\n")
	settled(t)
	if err := os.WriteFile(filepath.Join(dir, "c.go"), []byte("package a\n\nfunc C() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	reads := countReads(t)
	_, r := indexDir(t, dir, Options{HoldTexts: true})
	got := map[string]string{}
	for _, p := range []string{"a.go", "b.py", "c.go"} {
		got[p] = names(mustFile(t, r, p))
	}
	want := map[string]string{"a.go": "A", "b.py": "b", "c.go": "C"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("symbols (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int{"a.go": 1, "b.py": 1, "c.go": 2, "notes.txt": 1}, reads()); diff != "" {
		t.Errorf("reads per file (-want +got):\n%s", diff)
	}
}

// TestChangedAfterListing: a file changed on disk between the listing
// and its parse gets no extraction, whatever the change (the watcher's
// event reloads it), although the listing held its bytes; an unchanged
// file is parsed from them.
func TestChangedAfterListing(t *testing.T) {
	const src = "package a\n\nfunc A() {}\n"
	for _, tt := range []struct {
		name   string
		change func(t *testing.T, path string)
		want   string // symbols after the change
	}{
		{name: "unchanged", change: func(*testing.T, string) {}, want: "A"},
		{name: "rewritten, another size", change: func(t *testing.T, p string) {
			write(t, p, "package a\n\nfunc Longer() {}\n")
		}},
		{name: "rewritten in place, same size and modification time", change: func(t *testing.T, p string) {
			info, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(p, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteAt([]byte("B"), int64(strings.Index(src, "A"))); err != nil {
				t.Fatal(err)
			}
			f.Close()
			if err := os.Chtimes(p, info.ModTime(), info.ModTime()); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "replaced by another file of the same size and time", change: func(t *testing.T, p string) {
			info, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			tmp := p + ".tmp"
			write(t, tmp, strings.Replace(src, "A", "B", 1))
			if err := os.Chtimes(tmp, info.ModTime(), info.ModTime()); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, p); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "hard-linked", change: func(t *testing.T, p string) {
			if err := os.Link(p, filepath.Join(t.TempDir(), "elsewhere")); err != nil {
				t.Skip(err)
			}
		}},
		{name: "removed", change: func(t *testing.T, p string) {
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeTree(t, "-- a.go --\n"+src)
			settled(t)
			x := New(Options{CacheDir: "off", HoldTexts: true})
			defer x.Close()
			release := x.PauseParsing()
			defer release()
			x.SetRoots([]Root{{URI: PathToURI(dir), Dir: dir}})
			snap, err := x.WaitListed(testCtx(t))
			if err != nil {
				t.Fatal(err)
			}
			f := mustFile(t, snap.Roots()[0], "a.go")
			reads := countReads(t)
			tt.change(t, filepath.Join(dir, "a.go"))
			if got := names(f); got != tt.want {
				t.Errorf("symbols of the listed a.go after the change: %q, want %q", got, tt.want)
			}
			if n := reads()["a.go"]; tt.want != "" && n != 0 {
				t.Errorf("the unchanged file was read %d times for its parse, want 0", n)
			}
		})
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

//go:build unix

package index

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/index/syntax"
)

// mkfifo makes a FIFO at dir/rel, replacing what is there, or skips the
// test where the system has none.
func mkfifo(t *testing.T, dir, rel string) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	os.Remove(p)
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return p
}

// returns runs f and fails the test if it has not returned after a bound
// far beyond any read: a deadlock guard, not a timing assertion. A call
// stuck opening the FIFO fifo is then released (a writer comes and goes)
// so the test binary does not keep a blocked thread.
func returns(t *testing.T, what, fifo string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		<-done
		t.Fatalf("%s blocked on a FIFO", what)
	}
}

// TestFIFOSwappedIn: a file that becomes a FIFO after the index saw it as
// a regular file (a swap without a watched-file event) must not stall the
// scan's read, a build's read (ReadText), the re-read of a lazy parse or
// ReadInRoot (the read tools and the change checker): each refuses it as
// not a regular file, at once.
func TestFIFOSwappedIn(t *testing.T) {
	dir := writeTree(t, "-- a.go --\npackage a\n\nfunc A() {}\n-- notes.txt --\nhello\n")
	x, r := indexDir(t, dir, Options{CacheDir: t.TempDir()})
	sha := mustFile(t, r, "a.go").SHA256()

	// The walk saw a regular file; it is a FIFO when read.
	wr, err := walkFrom(testCtx(t), r.realDir, "", x.checker(r), DefaultMaxFileSize, r.links)
	if err != nil {
		t.Fatal(err)
	}
	fifo := mkfifo(t, dir, "notes.txt")
	var skips []Skipped
	returns(t, "the scan's read", fifo, func() {
		for _, c := range wr.files {
			if _, s := loadDisk(testCtx(t), c, DefaultMaxFileSize, loader{parse: noParse}); s != nil {
				skips = append(skips, *s)
			}
		}
	})
	want := []Skipped{{Path: "notes.txt", Reason: SkipUnreadable, Detail: "not a regular file (a FIFO)"}}
	if diff := cmp.Diff(want, skips); diff != "" {
		t.Errorf("skips (-want +got):\n%s", diff)
	}

	// A build reads the indexed file.
	fifo = mkfifo(t, dir, "a.go")
	returns(t, "ReadText", fifo, func() {
		if _, err := r.ReadText("a.go"); !errors.Is(err, ErrNotRegular) {
			t.Errorf("ReadText of a FIFO: %v, want ErrNotRegular", err)
		}
	})
	returns(t, "the lazy parse's re-read", fifo, func() {
		if data := rereader(r.realDir, r.links)("a.go", 100, sha); data != nil {
			t.Errorf("re-read of a FIFO returned %q", data)
		}
	})
	fifo = filepath.Join(dir, "notes.txt")
	returns(t, "ReadInRoot", fifo, func() {
		if _, _, err := ReadInRoot(r.realDir, "notes.txt", 1<<20, false); !errors.Is(err, ErrNotRegular) {
			t.Errorf("ReadInRoot of a FIFO: %v, want ErrNotRegular", err)
		}
	})
	// A rescan (or a watched-file event) records it the same way.
	returns(t, "a rescan", fifo, func() {
		x.FilesChanged(testCtx(t), []string{PathToURI(filepath.Join(dir, "notes.txt"))})
	})
	if s, _ := x.Snapshot().Roots()[0].Skip("notes.txt"); s.Reason != SkipUnreadable {
		t.Errorf("notes.txt after the event: %+v, want unreadable", s)
	}
}

func noParse(context.Context, syntax.Language, string, []byte) (*syntax.File, error) { return nil, nil }

// growHook makes every read attempt of the file named base up to upTo
// see a writer append to it between the first fstat and the read; it
// returns how many attempts were made.
func growHook(t *testing.T, base string, upTo int) *int {
	t.Helper()
	attempts := new(int)
	h := func(f *os.File, attempt int) {
		if filepath.Base(f.Name()) != base {
			return
		}
		*attempts = attempt
		if attempt > upTo {
			return
		}
		w, err := os.OpenFile(f.Name(), os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Error(err)
			return
		}
		defer w.Close()
		// Half of a token a writer is in the middle of.
		w.WriteString("ghp_0123456789abcdef")
	}
	readHook.Store(&h)
	t.Cleanup(func() { readHook.Store(nil) })
	return attempts
}

// TestReadChangingFile: a file that changes between the fstat a read
// starts with and the end of the read is read again; one that changes
// during every attempt is refused (ErrChanged), never returned
// half-written.
func TestReadChangingFile(t *testing.T) {
	t.Run("settles", func(t *testing.T) {
		dir := writeTree(t, "-- tok.txt --\ntoken=\n")
		attempts := growHook(t, "tok.txt", 1)
		data, _, err := ReadInRoot(dir, "tok.txt", 1<<20, false)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := string(data), "token=\nghp_0123456789abcdef"; got != want {
			t.Errorf("read %q, want %q (the file as the writer left it)", got, want)
		}
		if *attempts != 2 {
			t.Errorf("%d attempts, want 2", *attempts)
		}
	})
	t.Run("never settles", func(t *testing.T) {
		dir := writeTree(t, "-- tok.txt --\ntoken=\n")
		attempts := growHook(t, "tok.txt", readAttempts)
		data, _, err := ReadInRoot(dir, "tok.txt", 1<<20, false)
		if !errors.Is(err, ErrChanged) || data != nil {
			t.Errorf("ReadInRoot = %q, %v; want nothing and ErrChanged", data, err)
		}
		if *attempts != readAttempts {
			t.Errorf("%d attempts, want %d", *attempts, readAttempts)
		}
	})
	t.Run("the scan reads it again", func(t *testing.T) {
		// A file within the prefix the scan classifies first is read
		// whole with it; its growth is seen all the same.
		dir := writeTree(t, "-- tok.txt --\ntoken=\n")
		attempts := growHook(t, "tok.txt", 1)
		_, r := indexDir(t, dir, Options{})
		want := int64(len("token=\nghp_0123456789abcdef"))
		if f, ok := r.File("tok.txt"); !ok || f.ByteSize != want {
			t.Errorf("tok.txt indexed %v as %+v, want %d bytes", ok, f, want)
		}
		if *attempts != 2 {
			t.Errorf("%d attempts, want 2", *attempts)
		}
	})
	t.Run("scan records it", func(t *testing.T) {
		dir := writeTree(t, "-- tok.txt --\ntoken=\n-- a.go --\npackage a\n")
		growHook(t, "tok.txt", readAttempts)
		_, r := indexDir(t, dir, Options{})
		s, _ := r.Skip("tok.txt")
		if s.Reason != SkipUnreadable || !strings.Contains(s.Detail, ErrChanged.Error()) {
			t.Errorf("tok.txt skip = %+v, want unreadable: %s", s, ErrChanged)
		}
	})
	t.Run("a build's read is stale", func(t *testing.T) {
		dir := writeTree(t, "-- tok.txt --\ntoken=\n")
		_, r := indexDir(t, dir, Options{})
		growHook(t, "tok.txt", readAttempts)
		if _, err := r.ReadText("tok.txt"); !errors.Is(err, ErrStale) {
			t.Errorf("ReadText of a changing file: %v, want ErrStale", err)
		}
	})
}

// TestSparseFileRaisedCap: with --max-file-size raised past a sparse
// file's size, the scan still decides it binary from its first bytes (or
// its first hole) instead of reading gigabytes of NUL bytes.
func TestSparseFileRaisedCap(t *testing.T) {
	const size = 1 << 30
	tests := []struct {
		name string
		head string // written before the hole
	}{
		{"all hole", ""},
		// Text past the first 8 KiB: only the hole tells (Linux).
		{"text then hole", strings.Repeat("text line\n", 2000)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.head != "" && runtime.GOOS != "linux" {
				t.Skip("holes are looked for on Linux only")
			}
			dir := writeTree(t, "-- a.go --\npackage a\n-- big.txt --\n"+tt.head)
			if err := os.Truncate(filepath.Join(dir, "big.txt"), size); err != nil {
				t.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, r := indexDir(t, dir, Options{MaxFileSize: 2 * size})
			runtime.ReadMemStats(&after)
			want := Skipped{Path: "big.txt", Reason: SkipBinary, Detail: "nul byte"}
			if s, _ := r.Skip("big.txt"); s != want {
				t.Errorf("big.txt skip = %+v, want %+v", s, want)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > size/4 {
				t.Errorf("indexing allocated %d MiB: the sparse file was read", alloc>>20)
			}
		})
	}
}

// TestOpenBufferOverCap: an editor buffer larger than the size cap is
// skipped as too_large like the file on disk would be, is never parsed,
// and comes back when an edit brings it under the cap.
func TestOpenBufferOverCap(t *testing.T) {
	dir := writeTree(t, "-- a.go --\npackage a\n\nfunc Disk() {}\n")
	const maxSize = 256
	x, _ := indexDir(t, dir, Options{MaxFileSize: maxSize})
	ctx := testCtx(t)
	uri := PathToURI(filepath.Join(dir, "a.go"))
	big := "package a\n\nfunc Big() {}\n" + strings.Repeat("// padding\n", 40)

	x.OpenDocument(ctx, uri, "go", 1, []byte(big))
	check := func(when string, wantIndexed bool) {
		t.Helper()
		r := x.Snapshot().Roots()[0]
		_, indexed := r.File("a.go")
		s, skipped := r.Skip("a.go")
		if indexed != wantIndexed || skipped == wantIndexed || !wantIndexed && s.Reason != SkipTooLarge {
			t.Errorf("%s: indexed %v, skip %+v; want indexed %v", when, indexed, s, wantIndexed)
		}
		if _, err := r.ReadText("a.go"); wantIndexed != (err == nil) {
			t.Errorf("%s: ReadText error %v", when, err)
		}
	}
	check("opened over the cap", false)
	d, _ := x.Snapshot().Document(uri)
	if d.syn != nil || d.Syntax() != nil {
		t.Error("a buffer over the cap has a parser")
	}
	if got := string(d.Content()); got != big {
		t.Error("the buffer's text was not kept for the next edits")
	}

	// An incremental edit that brings it under the cap: indexed and parsed.
	d, err := x.ChangeDocument(ctx, uri, 2, []Edit{{Start: len("package a\n\nfunc Big() {}\n"), End: len(big), Text: ""}})
	if err != nil {
		t.Fatal(err)
	}
	check("edited under the cap", true)
	if got := names(mustFile(t, x.Snapshot().Roots()[0], "a.go")); got != "Big" {
		t.Errorf("symbols under the cap: %q, want Big", got)
	}
	// And over it again.
	if _, err := x.ChangeDocument(ctx, uri, 3, []Edit{{Start: d.Text().Len(), End: d.Text().Len(), Text: strings.Repeat("// more\n", 40)}}); err != nil {
		t.Fatal(err)
	}
	check("edited over the cap", false)
	if d, _ := x.Snapshot().Document(uri); d.syn != nil {
		t.Error("the parser survived the buffer going over the cap")
	}
	// Closed: the file on disk again.
	if err := x.CloseDocument(ctx, uri); err != nil {
		t.Fatal(err)
	}
	check("closed", true)
}

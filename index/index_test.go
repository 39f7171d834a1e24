package index

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ctxd/ctxd/index/indextest"
	"github.com/ctxd/ctxd/index/syntax"
	"github.com/ctxd/ctxd/internal/testenv"
	"github.com/google/go-cmp/cmp"
)

// writeTree writes a txtar workspace; see indextest.WriteTree.
var writeTree = indextest.WriteTree

// testCtx bounds a test's waits so a bug shows as a failure, not a hang.
func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// indexDir indexes dir as the only root and waits for the scan.
func indexDir(t testing.TB, dir string, opts Options) (*Index, *RootSnapshot) {
	t.Helper()
	if opts.CacheDir == "" {
		opts.CacheDir = "off"
	}
	x := New(opts)
	t.Cleanup(func() { x.Close() })
	x.SetRoots([]Root{{URI: PathToURI(dir), Name: "ws", Dir: dir}})
	snap, err := x.Wait(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	return x, snap.Roots()[0]
}

func skipMap(r *RootSnapshot) map[string]SkipReason {
	m := map[string]SkipReason{}
	for _, s := range r.SkippedFiles() {
		m[s.Path] = s.Reason
	}
	return m
}

const scanArchive = `
-- .gitignore --
build/
*.log
!keep.log
-- .ctxdignore --
private/
-- main.go --
package main

func main() {}
-- keep.log --
kept
-- debug.log --
ignored
-- build/out.go --
package build
-- private/notes.md --
secret plans
-- .env --
DB=postgres://u:p@h/db
-- config/.env.local --
X=1
-- config/app.env --
X=1
-- certs/server.pem --
pem
-- certs/server.key --
key
-- store.pfx --
pfx
-- node_modules/lib/index.js --
x
-- web/node_modules/lib/index.js --
x
-- packages/dep/a.cs --
x
-- src/packages/ok.go --
package packages
-- bin/tool --
x
-- src/obj/gen.cs --
x
-- .vs/settings.json --
{}
-- .ctxd/config.json --
{}
-- sub/.gitignore --
*.tmp
!important.tmp
-- sub/a.tmp --
x
-- sub/important.tmp --
x
-- sub/code.py --
def f():
    pass
-- latin1.txt --
caf` + "\xe9" + `
-- image.png --
` + "\x89PNG\r\n\x1a\nxxxx" + `
-- nul.dat --
a` + "\x00" + `b
`

func TestScanSkipsWithReasons(t *testing.T) {
	dir := writeTree(t, scanArchive)
	for name, data := range map[string]string{
		"big.txt":   strings.Repeat("x", 2048),
		"utf16.txt": "\xff\xfeh\x00i\x00\n\x00", // txtar would add an odd final newline
		"odd16.txt": "\xff\xfeh\x00i",           // a BOM, then an odd number of bytes
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, r := indexDir(t, dir, Options{MaxFileSize: 1024})

	wantFiles := []string{".ctxdignore", ".gitignore", "keep.log", "latin1.txt", "main.go", "src/packages/ok.go", "sub/.gitignore", "sub/code.py", "sub/important.tmp", "utf16.txt"}
	if diff := cmp.Diff(wantFiles, r.Paths()); diff != "" {
		t.Errorf("indexed files (-want +got):\n%s", diff)
	}
	wantSkips := map[string]SkipReason{
		".env":              SkipDenyRule,
		"config/.env.local": SkipDenyRule,
		"config/app.env":    SkipDenyRule,
		"certs/server.pem":  SkipDenyRule,
		"certs/server.key":  SkipDenyRule,
		"store.pfx":         SkipDenyRule,
		"node_modules/":     SkipDenyRule,
		"web/node_modules/": SkipDenyRule,
		"packages/":         SkipDenyRule,
		"bin/":              SkipDenyRule,
		"src/obj/":          SkipDenyRule,
		".vs/":              SkipDenyRule,
		".ctxd/":            SkipDenyRule,
		"build/":            SkipGitignore,
		"debug.log":         SkipGitignore,
		"private/":          SkipGitignore,
		"sub/a.tmp":         SkipGitignore,
		"image.png":         SkipBinary,
		"nul.dat":           SkipBinary,
		"big.txt":           SkipTooLarge,
		"odd16.txt":         SkipEncoding,
	}
	if diff := cmp.Diff(wantSkips, skipMap(r)); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	if s, ok := r.Skip("node_modules/lib/index.js"); !ok || s.Reason != SkipDenyRule {
		t.Errorf("Skip(node_modules/lib/index.js) = %+v, %v; want the directory's deny_rule", s, ok)
	}
	for path, enc := range map[string]string{"latin1.txt": "windows-1252", "utf16.txt": "utf-16le", "main.go": "ascii"} {
		f := mustFile(t, r, path)
		if string(f.Encoding) != enc {
			t.Errorf("%s: encoding %s, want %s", path, f.Encoding, enc)
		}
	}
	text, err := r.ReadText("latin1.txt")
	if err != nil || string(text) != "café\n" {
		t.Errorf("ReadText(latin1.txt) = %q, %v; want decoded UTF-8", text, err)
	}
	if _, err := r.ReadText(".env"); err == nil {
		t.Error("ReadText(.env) succeeded; a denied file must never be read through the index")
	}
	f, _ := r.File("main.go")
	if f.Syntax() == nil || len(f.Syntax().Symbols) != 1 || f.Syntax().Symbols[0].Name != "main" {
		t.Errorf("main.go symbols = %+v", f.Syntax())
	}
	if f.LineCount != 4 || f.ByteSize != 29 {
		t.Errorf("main.go line_count %d byte_size %d, want 4 and 29", f.LineCount, f.ByteSize)
	}
}

func TestScanSymlinks(t *testing.T) {
	dir := writeTree(t, `
-- real/a.go --
package real
-- .env --
SECRET=1
`)
	outside := writeTree(t, `
-- secret.go --
package secret
`)
	links := map[string]string{
		"inside.go":   filepath.Join(dir, "real/a.go"),
		"escape.go":   filepath.Join(outside, "secret.go"),
		"escapedir":   outside,
		"dirlink":     filepath.Join(dir, "real"),
		"notes.txt":   filepath.Join(dir, ".env"),
		"loop1":       filepath.Join(dir, "loop2"),
		"loop2":       filepath.Join(dir, "loop1"),
		"dangling.go": filepath.Join(dir, "missing.go"),
		"real/up":     dir, // a directory loop
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	_, r := indexDir(t, dir, Options{})
	if diff := cmp.Diff([]string{"inside.go", "real/a.go"}, r.Paths()); diff != "" {
		t.Errorf("indexed (-want +got):\n%s", diff)
	}
	want := map[string]SkipReason{
		".env":        SkipDenyRule,
		"escape.go":   SkipOutsideSandbox,
		"escapedir":   SkipOutsideSandbox,
		"dirlink/":    SkipDuplicate,
		"real/up/":    SkipDuplicate,
		"notes.txt":   SkipDenyRule,
		"loop1":       SkipUnreadable,
		"loop2":       SkipUnreadable,
		"dangling.go": SkipUnreadable,
	}
	if diff := cmp.Diff(want, skipMap(r)); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
}

func TestScanSpecialFiles(t *testing.T) {
	dir := writeTree(t, "-- a.go --\npackage a\n")
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	_, r := indexDir(t, dir, Options{})
	if diff := cmp.Diff(map[string]SkipReason{"pipe": SkipUnreadable}, skipMap(r)); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
}

func TestOpenDocumentsOverlayDisk(t *testing.T) {
	dir := writeTree(t, "-- a.go --\npackage a\n\nfunc Disk() {}\n-- .env --\nX=1\n")
	x, r := indexDir(t, dir, Options{})
	ctx := testCtx(t)
	diskSHA := mustFile(t, r, "a.go").SHA256()
	v0 := x.Snapshot().Version()
	uri := PathToURI(filepath.Join(dir, "a.go"))

	x.OpenDocument(ctx, uri, "", 1, []byte("package a\n\nfunc Open() {}\n"))
	s1 := x.Snapshot()
	if s1.Version() <= v0 {
		t.Errorf("version did not increase: %d -> %d", v0, s1.Version())
	}
	f := mustFile(t, s1.Roots()[0], "a.go")
	if !f.Open || f.Version != 1 || names(f) != "Open" {
		t.Errorf("after open: %+v symbols %s", f, names(f))
	}
	if _, err := x.ChangeDocument(ctx, uri, 2, []Edit{{Full: true, Text: "package a\n\nfunc Open() {}\n\nfunc Added() {}\n"}}); err != nil {
		t.Fatal(err)
	}
	if got := names(mustFile(t, x.Snapshot().Roots()[0], "a.go")); got != "Open,Added" {
		t.Errorf("after change: symbols %s", got)
	}
	// The earlier snapshot is untouched.
	if got := names(mustFile(t, s1.Roots()[0], "a.go")); got != "Open" {
		t.Errorf("old snapshot changed: %s", got)
	}
	if s1.Fingerprint() == x.Snapshot().Fingerprint() {
		t.Error("fingerprint did not change with the content")
	}
	x.CloseDocument(ctx, uri)
	f = mustFile(t, x.Snapshot().Roots()[0], "a.go")
	if f.Open || f.SHA256() != diskSHA || names(f) != "Disk" {
		t.Errorf("after close: %+v symbols %s; want the disk state", f, names(f))
	}
	// A denied file opened in the editor stays out of the index.
	envURI := PathToURI(filepath.Join(dir, ".env"))
	x.OpenDocument(ctx, envURI, "", 1, []byte("X=2\n"))
	if _, ok := x.Snapshot().Roots()[0].File(".env"); ok {
		t.Error(".env indexed after didOpen")
	}
	if _, err := x.Snapshot().Roots()[0].ReadText(".env"); err == nil {
		t.Error("open .env readable through the index")
	}
}

func TestFingerprintDeterministic(t *testing.T) {
	archive := "-- a.go --\npackage a\n-- b/c.py --\nx = 1\n"
	_, r1 := indexDir(t, writeTree(t, archive), Options{})
	_, r2 := indexDir(t, writeTree(t, archive), Options{Workers: 1})
	if r1.Fingerprint() != r2.Fingerprint() {
		t.Errorf("same files, different fingerprints: %s vs %s", r1.Fingerprint(), r2.Fingerprint())
	}
	_, r3 := indexDir(t, writeTree(t, archive+"-- d.txt --\nx\n"), Options{})
	if r1.Fingerprint() == r3.Fingerprint() {
		t.Error("fingerprint ignores an added file")
	}
}

func TestFilesChanged(t *testing.T) {
	dir := writeTree(t, "-- a.go --\npackage a\n-- old.go --\npackage a\n")
	x, _ := indexDir(t, dir, Options{})
	ctx := testCtx(t)
	write := func(rel, content string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("new.go", "package a\n\nfunc New() {}\n")
	write("a.go", "package a\n\nfunc Changed() {}\n")
	write("pkg/sub/x.go", "package sub\n")
	write("secret.pem", "x")
	os.Remove(filepath.Join(dir, "old.go"))
	ev := func(rel string) string { return PathToURI(filepath.Join(dir, rel)) }
	x.FilesChanged(ctx, []string{ev("new.go"), ev("a.go"), ev("old.go"), ev("pkg"), ev("secret.pem")})
	r := x.Snapshot().Roots()[0]
	if diff := cmp.Diff([]string{"a.go", "new.go", "pkg/sub/x.go"}, r.Paths()); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
	if got := names(mustFile(t, r, "a.go")); got != "Changed" {
		t.Errorf("a.go symbols %s", got)
	}
	if s, _ := r.Skip("secret.pem"); s.Reason != SkipDenyRule {
		t.Errorf("secret.pem skip = %+v", s)
	}
	// A new .gitignore rescans: pkg/ disappears.
	write(".gitignore", "pkg/\n")
	x.FilesChanged(ctx, []string{ev(".gitignore")})
	snap, err := x.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{".gitignore", "a.go", "new.go"}, snap.Roots()[0].Paths()); diff != "" {
		t.Errorf("after .gitignore (-want +got):\n%s", diff)
	}
}

// TestChangesDuringScan changes, creates and deletes files while the
// initial scan runs; once the events are delivered, the index must match
// the disk exactly.
func TestChangesDuringScan(t *testing.T) {
	var b strings.Builder
	for i := range 400 {
		b.WriteString("-- f/" + itoa3(i) + ".go --\npackage f\n\nfunc F" + itoa3(i) + "() {}\n")
	}
	dir := writeTree(t, b.String())
	x := New(Options{CacheDir: "off", Workers: 1})
	defer x.Close()
	ctx := testCtx(t)
	x.SetRoots([]Root{{URI: PathToURI(dir), Name: "ws", Dir: dir}})
	var events []string
	for i := 0; i < 400; i += 7 {
		rel := "f/" + itoa3(i) + ".go"
		p := filepath.Join(dir, rel)
		switch i % 3 {
		case 0:
			os.Remove(p)
			events = append(events, PathToURI(p))
		case 1:
			os.WriteFile(p, []byte("package f\n\nfunc Changed"+itoa3(i)+"() {}\n"), 0o644)
			events = append(events, PathToURI(p))
		case 2:
			np := filepath.Join(dir, "g", itoa3(i)+".go")
			os.MkdirAll(filepath.Dir(np), 0o755)
			os.WriteFile(np, []byte("package g\n"), 0o644)
			events = append(events, PathToURI(np))
		}
		x.FilesChanged(ctx, events[len(events)-1:])
	}
	snap, err := x.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, fresh := indexDir(t, dir, Options{})
	if diff := cmp.Diff(fresh.Paths(), snap.Roots()[0].Paths()); diff != "" {
		t.Errorf("live index differs from a fresh scan (-fresh +live):\n%s", diff)
	}
	if fresh.Fingerprint() != snap.Roots()[0].Fingerprint() {
		t.Error("fingerprints differ from a fresh scan")
	}
}

func TestCachePersistsAndRejectsCorruption(t *testing.T) {
	dir := writeTree(t, "-- a.go --\npackage a\n\nfunc A() {}\n-- b.py --\ndef b():\n    pass\n")
	cacheDir := t.TempDir()
	x1 := New(Options{CacheDir: cacheDir})
	x1.SetRoots([]Root{{URI: PathToURI(dir), Dir: dir}})
	if _, err := x1.Wait(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if err := x1.Close(); err != nil {
		t.Fatal(err)
	}
	c := openRootCache(cacheDir, dir, nil)
	if len(c.old) != 2 {
		t.Fatalf("cache holds %d entries, want 2", len(c.old))
	}
	// A warm start parses nothing.
	x2 := New(Options{CacheDir: cacheDir})
	x2.SetRoots([]Root{{URI: PathToURI(dir), Dir: dir}})
	if _, err := x2.Wait(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	hits, misses, _ := x2.caches[dir].stats()
	x2.Close()
	if hits != 2 || misses != 0 {
		t.Errorf("warm start: %d hits, %d parses; want 2 and 0", hits, misses)
	}
	// Corrupt it: the next start discards it and parses again.
	data, _ := os.ReadFile(c.path)
	data[len(data)-1] ^= 0xff
	os.WriteFile(c.path, data, 0o600)
	c2 := openRootCache(cacheDir, dir, nil)
	if len(c2.old) != 0 {
		t.Errorf("corrupt cache trusted: %d entries", len(c2.old))
	}
	// A cache of an earlier layout is replaced without a warning (an
	// upgrade), any other unreadable one with a warning.
	for _, tt := range []struct {
		head, level string
	}{
		{"ctxd-index-cache 2\n", "INFO"},
		{"not a cache at all", "WARN"},
	} {
		os.WriteFile(c.path, append([]byte(tt.head), data[len(cacheMagic):]...), 0o600)
		var log testenv.Buffer
		c3 := openRootCache(cacheDir, dir, slog.New(slog.NewTextHandler(&log, nil)))
		if len(c3.old) != 0 || !strings.Contains(log.String(), "level="+tt.level) {
			t.Errorf("cache starting %q: %d entries, log %q; want none, and a %s line", tt.head, len(c3.old), log.String(), tt.level)
		}
	}
	// A cache dir inside the workspace is refused.
	if c := openRootCache(filepath.Join(dir, "cache"), dir, nil); c != nil {
		t.Error("cache inside the workspace accepted")
	}
}

// TestCacheTrustsUnchangedFiles: a file whose size, modification time
// and inode match its record, and which was not modified within the racy
// window of the record's save, is not read again; a changed file is, and
// the index equals a fresh scan either way.
func TestCacheTrustsUnchangedFiles(t *testing.T) {
	dir := writeTree(t, "-- a.go --\npackage a\n\nfunc A() {}\n-- b.py --\ndef b():\n    pass\n-- notes.txt --\nhello\n")
	old := time.Now().Add(-time.Hour)
	for _, p := range []string{"a.go", "b.py", "notes.txt"} {
		if err := os.Chtimes(filepath.Join(dir, p), old, old); err != nil {
			t.Fatal(err)
		}
	}
	cacheDir := t.TempDir()
	start := func() (*Index, *RootSnapshot) {
		x := New(Options{CacheDir: cacheDir})
		x.SetRoots([]Root{{URI: PathToURI(dir), Dir: dir}})
		snap, err := x.Wait(testCtx(t))
		if err != nil {
			t.Fatal(err)
		}
		return x, snap.Roots()[0]
	}
	x1, r1 := start()
	x1.Close()
	x2, r2 := start()
	_, _, trusted := x2.caches[dir].stats()
	x2.Close()
	if trusted != 3 {
		t.Errorf("warm start trusted %d files, want 3", trusted)
	}
	if r1.Fingerprint() != r2.Fingerprint() || names(mustFile(t, r2, "a.go")) != "A" {
		t.Errorf("warm start differs: fingerprint %s vs %s, a.go symbols %q", r1.Fingerprint(), r2.Fingerprint(), names(mustFile(t, r2, "a.go")))
	}
	// A change of size is seen, whatever the time says.
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n\nfunc B() {}\nfunc C() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(filepath.Join(dir, "a.go"), old, old)
	x3, r3 := start()
	_, _, trusted = x3.caches[dir].stats()
	x3.Close()
	if trusted != 2 || names(mustFile(t, r3, "a.go")) != "B,C" {
		t.Errorf("after a change: trusted %d (want 2), a.go symbols %q (want B,C)", trusted, names(mustFile(t, r3, "a.go")))
	}
	_, fresh := indexDir(t, dir, Options{CacheDir: "off"})
	if fresh.Fingerprint() != r3.Fingerprint() {
		t.Error("the warm index differs from a fresh scan")
	}
}

func mustFile(t testing.TB, r *RootSnapshot, rel string) *File {
	t.Helper()
	f, ok := r.File(rel)
	if !ok {
		t.Fatalf("%s not indexed", rel)
	}
	return f
}

// names lists a file's symbol names, comma-separated.
func names(f *File) string {
	if f.Syntax() == nil {
		return ""
	}
	var n []string
	for _, s := range f.Syntax().Symbols {
		n = append(n, s.Name)
	}
	return strings.Join(slices.Clip(n), ",")
}

func itoa3(i int) string {
	s := "00" + strconv.Itoa(i)
	return s[len(s)-3:]
}

// TestCacheRemovesStaleTemps: saving the cache deletes the temporary files
// an interrupted save left an hour or more ago, and keeps younger ones (a
// save in progress in another process).
func TestCacheRemovesStaleTemps(t *testing.T) {
	dir := writeTree(t, "-- a.go --\npackage a\n")
	cacheDir := t.TempDir()
	x, _ := indexDir(t, dir, Options{CacheDir: cacheDir})
	x.Close()
	var cacheFiles []string
	filepath.WalkDir(cacheDir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".cache") {
			cacheFiles = append(cacheFiles, p)
		}
		return nil
	})
	if len(cacheFiles) != 1 {
		t.Fatalf("cache files %q, want one", cacheFiles)
	}
	sub := filepath.Dir(cacheFiles[0])
	old, young := filepath.Join(sub, ".tmp-old"), filepath.Join(sub, ".tmp-young")
	for _, p := range []string{old, young} {
		if err := os.WriteFile(p, []byte("partial"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	long := time.Now().Add(-2 * staleTemp)
	if err := os.Chtimes(old, long, long); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b.go"), []byte("package a\n\nfunc B() {}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	y, _ := indexDir(t, dir, Options{CacheDir: cacheDir})
	y.Close()
	if _, err := os.Stat(old); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the stale temporary file is still there (%v)", err)
	}
	if _, err := os.Stat(young); err != nil {
		t.Errorf("the young temporary file is gone: %v", err)
	}
}

// cancelledWait starts x.waitQuiet, cancels its context and returns what
// it reported.
func cancelledWait(t *testing.T, x *Index) bool {
	ctx, cancel := context.WithCancel(testCtx(t))
	got := make(chan bool)
	go func() { got <- x.waitQuiet(ctx) }()
	cancel()
	return <-got
}

// TestWaitQuiet: a scan writes its cache only once the editing has paused
// and no build holds the cores; an index closed meanwhile, or a cancelled
// scan, ends the wait without writing (Close saves the cache itself).
func TestWaitQuiet(t *testing.T) {
	defer func(d time.Duration) { saveQuiet = d }(saveQuiet)
	t.Run("never edited", func(t *testing.T) {
		x := New(Options{CacheDir: "off"})
		defer x.Close()
		if !x.waitQuiet(testCtx(t)) {
			t.Error("waitQuiet = false with no edit and no build")
		}
	})
	saveQuiet = time.Hour
	t.Run("edited, then the scan cancelled", func(t *testing.T) {
		x := New(Options{CacheDir: "off"})
		defer x.Close()
		x.lastChange.Store(time.Now().UnixNano())
		if cancelledWait(t, x) {
			t.Error("waitQuiet = true while the last edit is recent")
		}
	})
	t.Run("edited, then the index closed", func(t *testing.T) {
		// The scan waits to write its cache (it has left the scans
		// Close cancels one by one); Close ends the wait and saves.
		dir := writeTree(t, "-- a.go --\npackage a\n")
		cacheDir := t.TempDir()
		x := New(Options{CacheDir: cacheDir})
		x.lastChange.Store(time.Now().UnixNano())
		x.SetRoots([]Root{{URI: PathToURI(dir), Dir: dir}})
		if _, err := x.Wait(testCtx(t)); err != nil {
			t.Fatal(err)
		}
		if err := x.Close(); err != nil {
			t.Fatal(err)
		}
		if c := openRootCache(cacheDir, dir, nil); len(c.old) != 1 {
			t.Errorf("cache holds %d entries after Close, want 1", len(c.old))
		}
	})
	t.Run("a build holds the cores", func(t *testing.T) {
		saveQuiet = 0
		x := New(Options{CacheDir: "off"})
		defer x.Close()
		release := x.PauseParsing()
		if cancelledWait(t, x) {
			t.Error("waitQuiet = true while a build holds the cores")
		}
		release()
		if !x.waitQuiet(testCtx(t)) {
			t.Error("waitQuiet = false once the build is done")
		}
	})
}

// TestScanProgress: a scan's events carry its id; it ends "done" as soon
// as the root is ready, not after its cache is written (which waits for
// the editing to pause), and "cancelled" when its root goes away first.
func TestScanProgress(t *testing.T) {
	defer func(d time.Duration) { saveQuiet = d }(saveQuiet)
	saveQuiet = time.Hour
	ctx := testCtx(t)
	var mu sync.Mutex
	var events []Progress
	ends := make(chan Progress, 8)
	x := New(Options{CacheDir: t.TempDir(), OnProgress: func(p Progress) {
		mu.Lock()
		events = append(events, p)
		mu.Unlock()
		if p.Kind == "end" {
			ends <- p
		}
	}})
	defer x.Close()
	x.lastChange.Store(time.Now().UnixNano()) // the cache waits an hour
	end := func() Progress {
		t.Helper()
		select {
		case p := <-ends:
			return p
		case <-ctx.Done():
			t.Fatal("no end of the scan")
			return Progress{}
		}
	}
	dir := writeTree(t, "-- a.go --\npackage a\n-- b.go --\npackage b\n")
	app := Root{URI: PathToURI(dir), Dir: dir}
	x.SetRoots([]Root{app})
	want := Progress{Kind: "end", Root: app.URI, Phase: "parsing", Done: 2, Total: 2, Percentage: 100, Scan: 1, Outcome: ScanDone}
	if diff := cmp.Diff(want, end()); diff != "" {
		t.Errorf("end of the first scan (-want +got):\n%s", diff)
	}

	// A second root, held before its second pass, removed.
	dir2 := writeTree(t, "-- c.go --\npackage c\n")
	lib := Root{URI: PathToURI(dir2), Dir: dir2}
	release := x.PauseParsing()
	x.SetRoots([]Root{app, lib})
	x.SetRoots([]Root{app})
	release()
	if got := end(); got.Scan != 2 || got.Root != lib.URI || got.Outcome != ScanCancelled {
		t.Errorf("end of the removed root's scan = %+v, want scan 2 of %s, cancelled", got, lib.URI)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, p := range events {
		if wantScan := map[string]uint64{app.URI: 1, lib.URI: 2}[p.Root]; p.Scan != wantScan {
			t.Errorf("event %+v, want scan %d", p, wantScan)
		}
	}
}

// TestCacheSavePauses: a save calls its pause function every pauseEvery
// entries (where the scan's save waits for the editing to pause), and the
// bytes it writes are those of a save that never pauses.
func TestCacheSavePauses(t *testing.T) {
	cf := cacheFile{Format: FormatVersion, Root: "/w"}
	for i := range 3*pauseEvery + 5 {
		cf.Entries = append(cf.Entries, cacheEntry{Lang: syntax.Go, SHA: fmt.Sprintf("%064x", i), File: &syntax.File{}})
	}
	write := func(pause func()) []byte {
		f, err := os.Create(filepath.Join(t.TempDir(), "cache"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := writeCache(f, &cf, pause); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(f.Name())
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	pauses := 0
	paused := write(func() { pauses++ })
	if pauses != 3 {
		t.Errorf("%d entries: %d pauses, want 3", len(cf.Entries), pauses)
	}
	if !bytes.Equal(paused, write(nil)) {
		t.Error("a save with pauses wrote other bytes than one without")
	}
}

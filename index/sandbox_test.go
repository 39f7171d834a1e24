package index

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// outsideSecret is the content of the file outside the root; it must never
// reach the index.
const outsideSecret = "OUTSIDE-SECRET-7f3a"

// sandboxFixture builds parent/root (the workspace) next to parent/outside
// (holding a secret, a directory and a FIFO) and plants symbolic links in
// the root that lead out in every way a link can, plus harmless ones.
// Paths are real (the temp directory is resolved).
func sandboxFixture(tb testing.TB) (root, outside string) {
	tb.Helper()
	parent, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	root = filepath.Join(parent, "root")
	outside = filepath.Join(parent, "outside")
	for _, d := range []string{filepath.Join(root, "a", "c"), filepath.Join(outside, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	files := map[string]string{
		filepath.Join(root, "main.go"):         "package main\n",
		filepath.Join(root, "a", "b.go"):       "package a\n",
		filepath.Join(root, "a", "c", "d.txt"): "inside\n",
		filepath.Join(outside, "secret.txt"):   outsideSecret + "\n",
		filepath.Join(outside, "sub", "x.go"):  "package sub // " + outsideSecret + "\n",
	}
	for p, text := range files {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(outside, "fifo"), 0o644); err != nil {
		tb.Logf("mkfifo: %v (FIFO checks skipped)", err)
	}
	links := map[string]string{
		"out":          outside,                                  // absolute, out
		"out_rel":      "../outside",                             // relative, out
		"a/up":         "../..",                                  // to the root's parent
		"in":           "a",                                      // relative, inside
		"in_abs":       filepath.Join(root, "a"),                 // absolute, inside
		"via_in":       "in/../out",                              // ".." after a link, then out
		"tricky":       "a/../../outside",                        // lexically out
		"dotdot_abs":   root + "/../outside",                     // absolute with ".."
		"alias_root":   root,                                     // the root itself
		"dot_abs":      root + "/./a",                            // absolute with "."
		"loop":         "loop",                                   // a loop
		"file_out":     filepath.Join(outside, "secret.txt"),     // a file link out
		"file_out_rel": "../outside/secret.txt",                  // a relative file link out
		"file_in":      "main.go",                                // a file link inside
		"dangling":     "missing/../../outside",                  // dangling before it leaves
		"a/self":       ".",                                      // a directory loop inside
		"chain1":       "chain2",                                 // a chain that ends out
		"chain2":       "a/up",                                   // …through a/up
		"fifo_link":    filepath.Join(outside, "fifo"),           // a link to the FIFO
		"a/c/deep_out": "../../../outside/sub",                   // deep relative escape
		"a/c/deep_in":  "../../a/c",                              // deep relative, inside
		"abs_parent":   filepath.Dir(root) + "/root/../outside/", // absolute through the root's parent
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(name))); err != nil {
			tb.Fatal(err)
		}
	}
	return root, outside
}

// recordingFS records every path the sandbox asks the file system about.
type recordingFS struct {
	mu    sync.Mutex
	paths []string
}

func (r *recordingFS) note(p string) {
	r.mu.Lock()
	r.paths = append(r.paths, p)
	r.mu.Unlock()
}

func (r *recordingFS) Lstat(name string) (fs.FileInfo, error) {
	r.note(name)
	return os.Lstat(name)
}

func (r *recordingFS) Readlink(name string) (string, error) {
	r.note(name)
	return os.Readlink(name)
}

// touchedOutside returns the recorded paths that are not the root or below
// it: the sandbox must never look at one.
func (r *recordingFS) touchedOutside(root string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, p := range r.paths {
		if _, ok := underDir(root, p); !ok && p != root {
			out = append(out, p)
		}
	}
	return out
}

// attackForms are inputs every entry point must refuse, whatever the root.
var attackForms = []string{
	"", ".", "./", "..", "../", "../outside/secret.txt", "a/../../outside/secret.txt",
	"a/../main.go", // ".." is refused even when it stays inside
	"%2e%2e/outside/secret.txt", "%2E%2E/outside/secret.txt", "%2E./outside/secret.txt", ".%2e/outside",
	"%252e%252e/outside/secret.txt", "%25252e%25252e/x", "..%2foutside%2fsecret.txt", "..%2Foutside",
	"..%5coutside%5csecret.txt", "a%2f..%2f..%2foutside", "%2e", "a/%2e/b.go", "a%00.go",
	`..\outside\secret.txt`, `a\..\..\outside`, `\\host\share\secret.txt`, `\\?\C:\x`,
	"//host/share/secret.txt", "/etc/passwd", "/", `C:\outside\secret.txt`, "C:/outside/secret.txt",
	"c:secret.txt", "main.go\x00.txt", "\x00", "http://example.com/x", "file:///etc/passwd",
}

// linkForms are relative paths that lead out of the fixture's root through
// its symbolic links.
var linkForms = []string{
	"out", "out/secret.txt", "out/sub/x.go", "out/fifo", "out/missing.txt", "out_rel/secret.txt",
	"a/up/outside/secret.txt", "via_in/secret.txt", "tricky/secret.txt", "dotdot_abs/secret.txt",
	"loop", "loop/x", "file_out", "file_out_rel", "chain1/outside/secret.txt", "fifo_link",
	"a/c/deep_out/x.go", "abs_parent/secret.txt", "a/self/self/up/outside/secret.txt",
	"in/up/outside/secret.txt", "alias_root/out/secret.txt", "alias_root/a/up/outside",
}

// insideForms are accepted, with the path the index uses.
var insideForms = map[string]string{
	"main.go":             "main.go",
	"./main.go":           "main.go",
	"a//b.go":             "a/b.go",
	"a/./b.go":            "a/b.go",
	"a/b.go/":             "a/b.go",
	"missing/new.go":      "missing/new.go", // nothing there: the index says not found
	"main.go/x":           "main.go/x",      // a file used as a directory
	"in/b.go":             "in/b.go",        // a link inside the root
	"in_abs/b.go":         "in_abs/b.go",
	"alias_root/main.go":  "alias_root/main.go",
	"dot_abs/b.go":        "dot_abs/b.go",
	"file_in":             "file_in",
	"a/self/self/b.go":    "a/self/self/b.go",
	"a/c/deep_in/d.txt":   "a/c/deep_in/d.txt",
	"dangling/x":          "dangling/x", // stops at "missing", as the kernel does
	"%41.go":              "%41.go",     // an escape that hides nothing stays literal
	"a%zz%2e%2e":          "a%zz%2e%2e", // decodes to "a%zz..": no dot segment
	"...":                 "...",        // three dots is a name
	"C.go":                "C.go",
	"résumé/ünïcode.go":   "résumé/ünïcode.go",
	"a/c/d.txt":           "a/c/d.txt",
	"name with spaces.md": "name with spaces.md",
}

func TestCleanRel(t *testing.T) {
	root, outside := sandboxFixture(t)
	for _, in := range append(append([]string{}, attackForms...), linkForms...) {
		rec := &recordingFS{}
		rel, err := cleanRel(rec, root, in)
		if err == nil {
			t.Errorf("CleanRel(%q) = %q, want a refusal", in, rel)
		} else if !errors.Is(err, ErrOutsideRoot) {
			t.Errorf("CleanRel(%q) error %v does not wrap ErrOutsideRoot", in, err)
		}
		if err != nil && (strings.Contains(err.Error(), root) || strings.Contains(err.Error(), outside)) {
			t.Errorf("CleanRel(%q) error %q names a path of the machine", in, err)
		}
		if touched := rec.touchedOutside(root); len(touched) > 0 {
			t.Errorf("CleanRel(%q) looked outside the root: %q", in, touched)
		}
	}
	for in, want := range insideForms {
		rec := &recordingFS{}
		rel, err := cleanRel(rec, root, in)
		if err != nil || rel != want {
			t.Errorf("CleanRel(%q) = %q, %v; want %q", in, rel, err, want)
		}
		if touched := rec.touchedOutside(root); len(touched) > 0 {
			t.Errorf("CleanRel(%q) looked outside the root: %q", in, touched)
		}
	}
}

// fixtureSnapshot is a snapshot with the fixture's root, named by its real
// path, without indexing it.
func fixtureSnapshot(root string) *Snapshot {
	r := &RootSnapshot{Root: Root{URI: PathToURI(root), Dir: root}, realDir: root}
	return &Snapshot{roots: []*RootSnapshot{r}}
}

func TestLocateChecked(t *testing.T) {
	root, outside := sandboxFixture(t)
	snap := fixtureSnapshot(root)
	u := "file://" + root
	refused := []string{
		u + "/../outside/secret.txt", u + "/%2e%2e/outside/secret.txt", u + "/%2E./outside/secret.txt",
		u + "/..%2foutside%2fsecret.txt", u + "/a%2f..%2f..%2foutside", u + "/a%5c..%5c..%5coutside",
		u + "/%252e%252e/outside/secret.txt", u + "/main.go%00", u + "/main.go?x=1", u + "/main.go#frag",
		u + "/main.go#", u + "/a/../main.go", "file://evil.example" + root + "/main.go",
		"file://localhost:8080" + root + "/main.go", "file://user@localhost" + root + "/main.go",
		"file:////host/share" + root + "/main.go", "file://" + `\\host\share`, "file:main.go",
		"file:" + root[1:] + "/main.go", u, u + "/", "file:///etc/passwd", "file://" + outside + "/secret.txt",
		outside + "/secret.txt", root + "/../outside/secret.txt", root + `\..\outside`, "//host/share/x",
		"/C:/outside/secret.txt", "file:///C:/outside/secret.txt", root, root + "/\x00",
		u + "/out/secret.txt", u + "/file_out", u + "/via_in/secret.txt", u + "/fifo_link",
		root + "/out/secret.txt", root + "/tricky/secret.txt", "untitled:Untitled-1", "relative/path.go",
	}
	for _, in := range refused {
		r, rel, err := snap.LocateChecked(in)
		if err == nil || !errors.Is(err, ErrOutsideRoot) {
			t.Errorf("LocateChecked(%q) = %v %q %v, want ErrOutsideRoot", in, r != nil, rel, err)
		}
	}
	accepted := map[string]string{
		u + "/main.go":                        "main.go",
		u + "/a/b.go":                         "a/b.go",
		"file://localhost" + root + "/a/b.go": "a/b.go",
		"FILE://" + root + "/main.go":         "main.go",
		u + "/./a//b.go":                      "a/b.go",
		u + "/%61/b.go":                       "a/b.go", // an encoded letter is just a letter
		u + "/in/b.go":                        "in/b.go",
		root + "/a/c/d.txt":                   "a/c/d.txt",
		"file:" + root + "/main.go":           "main.go",
	}
	for in, want := range accepted {
		r, rel, err := snap.LocateChecked(in)
		if err != nil || r == nil || rel != want {
			t.Errorf("LocateChecked(%q) = %q, %v; want %q", in, rel, err, want)
		}
	}
}

func TestRootRel(t *testing.T) {
	root, _ := sandboxFixture(t)
	r := fixtureSnapshot(root).Roots()[0]
	for in, want := range map[string]string{
		"a/b.go":                           "a/b.go",
		root + "/a/b.go":                   "a/b.go",
		PathToURI(root + "/a/b.go"):        "a/b.go",
		PathToURI(root + "/name x.go"):     "name x.go",
		PathToURI(root) + "/%C3%A9t%C3%A9": "été",
	} {
		if got, err := r.Rel(in); err != nil || got != want {
			t.Errorf("Rel(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range append(append([]string{}, attackForms...), linkForms...) {
		if got, err := r.Rel(in); !errors.Is(err, ErrOutsideRoot) {
			t.Errorf("Rel(%q) = %q, %v; want ErrOutsideRoot", in, got, err)
		}
	}
}

// TestResolveLinkNeverStatsOutside: the scan's link resolution decides a
// link out of the root from its text, without looking at the target.
func TestResolveLinkNeverStatsOutside(t *testing.T) {
	root, _ := sandboxFixture(t)
	for _, name := range []string{"out", "out_rel", "a/up", "via_in", "tricky", "dotdot_abs", "file_out", "file_out_rel", "chain1", "fifo_link", "a/c/deep_out", "abs_parent"} {
		rec := &recordingFS{}
		_, err := resolveIn(rec, root, name)
		if !errors.Is(err, ErrOutsideRoot) {
			t.Errorf("resolveIn(%q) = %v, want ErrOutsideRoot", name, err)
		}
		if touched := rec.touchedOutside(root); len(touched) > 0 {
			t.Errorf("resolveIn(%q) looked outside the root: %q", name, touched)
		}
	}
}

func TestScanFixtureStaysInside(t *testing.T) {
	root, _ := sandboxFixture(t)
	_, r := indexDir(t, root, Options{})
	for _, p := range r.Paths() {
		if b, err := r.ReadText(p); err == nil && strings.Contains(string(b), outsideSecret) {
			t.Errorf("indexed %s holds the outside secret", p)
		}
	}
	want := map[string]SkipReason{
		"out": SkipOutsideSandbox, "out_rel": SkipOutsideSandbox, "a/up": SkipOutsideSandbox,
		"via_in": SkipOutsideSandbox, "tricky": SkipOutsideSandbox, "dotdot_abs": SkipOutsideSandbox,
		"file_out": SkipOutsideSandbox, "file_out_rel": SkipOutsideSandbox, "chain1": SkipOutsideSandbox,
		"chain2": SkipOutsideSandbox, "fifo_link": SkipOutsideSandbox, "a/c/deep_out": SkipOutsideSandbox,
		"abs_parent": SkipOutsideSandbox,
		"loop":       SkipUnreadable, "dangling": SkipUnreadable,
		"in/": SkipDuplicate, "in_abs/": SkipDuplicate, "alias_root/": SkipDuplicate, "dot_abs/": SkipDuplicate,
		"a/self/": SkipDuplicate, "a/c/deep_in/": SkipDuplicate,
	}
	got := skipMap(r)
	for p, reason := range want {
		if got[p] != reason {
			t.Errorf("skip of %s = %q, want %q", p, got[p], reason)
		}
	}
	if _, ok := r.File("file_in"); !ok {
		t.Error("file_in (a link to main.go) is not indexed")
	}
}

// withTimeout fails the test when f blocks, as opening the fixture's FIFO
// would (a FIFO opened for reading waits for a writer, even as root).
func withTimeout(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("%s blocked: something opened the FIFO outside the root", what)
	}
}

// TestEventsNeverReadOutside: watched-file events, opened and closed
// documents and a link swapped in after indexing never make the index read
// a file outside the root.
func TestEventsNeverReadOutside(t *testing.T) {
	root, outside := sandboxFixture(t)
	x, _ := indexDir(t, root, Options{})
	ctx := testCtx(t)
	u := "file://" + root
	events := []string{
		u + "/out/secret.txt", u + "/out/sub/x.go", u + "/out/fifo", u + "/out_rel/secret.txt",
		u + "/a/up/outside/secret.txt", u + "/via_in/secret.txt", u + "/%2e%2e/outside/secret.txt",
		u + "/..%2foutside%2fsecret.txt", u + "/../outside/secret.txt", "file://evil.example" + root + "/main.go",
		u + "/fifo_link", u + "/file_out", u + "/chain1/outside/sub/x.go", u + "/in/up/outside/secret.txt",
		"file://" + outside + "/secret.txt",
	}
	withTimeout(t, "FilesChanged", func() { x.FilesChanged(ctx, events) })
	for _, d := range []string{u + "/out/sub/x.go", u + "/via_in/secret.txt", u + "/fifo_link"} {
		withTimeout(t, "OpenDocument/CloseDocument", func() {
			x.OpenDocument(ctx, d, "", 1, []byte("package x\n"))
			x.CloseDocument(ctx, d)
		})
	}
	// A file indexed from inside, then replaced by a link to the FIFO
	// outside: reading it must fail without opening the FIFO.
	if err := os.Remove(filepath.Join(root, "a", "c", "d.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "fifo"), filepath.Join(root, "a", "c", "d.txt")); err != nil {
		t.Fatal(err)
	}
	r := x.Snapshot().Roots()[0]
	withTimeout(t, "ReadText", func() {
		if _, err := r.ReadText("a/c/d.txt"); !errors.Is(err, ErrOutsideRoot) {
			t.Errorf("ReadText of a file swapped for a link out = %v, want ErrOutsideRoot", err)
		}
	})
	withTimeout(t, "FilesChanged", func() { x.FilesChanged(ctx, []string{u + "/a/c/d.txt"}) })
	r = x.Snapshot().Roots()[0]
	if s, ok := r.Skip("a/c/d.txt"); !ok || s.Reason != SkipOutsideSandbox {
		t.Errorf("a/c/d.txt after the swap: %+v %v, want outside_sandbox", s, ok)
	}
	for _, p := range r.Paths() {
		if strings.HasPrefix(p, "out") || strings.HasPrefix(p, "via_in") || strings.Contains(p, "outside") || strings.HasPrefix(p, "fifo") {
			t.Errorf("indexed %s, a path that leads out of the root", p)
		}
		if b, err := r.ReadText(p); err == nil && strings.Contains(string(b), outsideSecret) {
			t.Errorf("indexed %s holds the outside secret", p)
		}
	}
	for _, s := range r.SkippedFiles() {
		if strings.Contains(s.Detail, outside) || strings.Contains(s.Detail, outsideSecret) {
			t.Errorf("skip record %+v names the outside", s)
		}
	}
}

// FuzzCleanRel: for any input, an accepted path joined to the root and
// resolved by the operating system (filepath.EvalSymlinks) never lands
// outside the root, the sandbox never looks outside the root, and every
// refusal wraps ErrOutsideRoot. The same holds for the input as a file URI
// and as an absolute path below the root.
func FuzzCleanRel(f *testing.F) {
	for _, s := range attackForms {
		f.Add(s)
	}
	for _, s := range linkForms {
		f.Add(s)
	}
	for s := range insideForms {
		f.Add(s)
	}
	root, _ := sandboxFixture(f)
	snap := fixtureSnapshot(root)
	f.Fuzz(func(t *testing.T, in string) {
		check := func(form, rel string, err error, rec *recordingFS) {
			if rec != nil {
				if touched := rec.touchedOutside(root); len(touched) > 0 {
					t.Fatalf("%s %q: looked outside the root: %q", form, in, touched)
				}
			}
			if err != nil {
				if !errors.Is(err, ErrOutsideRoot) {
					t.Fatalf("%s %q: error %v does not wrap ErrOutsideRoot", form, in, err)
				}
				return
			}
			if rel == "" || strings.HasPrefix(rel, "/") || strings.ContainsAny(rel, "\\\x00") {
				t.Fatalf("%s %q accepted as %q", form, in, rel)
			}
			for _, seg := range strings.Split(rel, "/") {
				if seg == ".." || seg == "." || seg == "" {
					t.Fatalf("%s %q accepted as %q with segment %q", form, in, rel, seg)
				}
			}
			resolved, err := filepath.EvalSymlinks(filepath.Join(root, filepath.FromSlash(rel)))
			if err != nil {
				return // nothing there (or a loop): nothing can be read either
			}
			if _, ok := underDir(root, resolved); !ok && resolved != root {
				t.Fatalf("%s %q accepted as %q, which resolves outside the root to %s", form, in, rel, resolved)
			}
		}
		rec := &recordingFS{}
		rel, err := cleanRel(rec, root, in)
		check("CleanRel", rel, err, rec)
		rec = &recordingFS{}
		_, rel, err = snap.locateChecked(rec, "file://"+root+"/"+in)
		check("LocateChecked(URI)", rel, err, rec)
		rec = &recordingFS{}
		_, rel, err = snap.locateChecked(rec, root+"/"+in)
		check("LocateChecked(path)", rel, err, rec)
		_, _ = ClientPath(in)
		_ = NormalizeURI(in)
	})
}

package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func open(t *testing.T, root string) *Store {
	t.Helper()
	s, err := Open(root)
	if err != nil {
		t.Fatalf("Open(%s): %v", root, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func artifactFile(s *Store, k Kind, sha string) string {
	return filepath.Join(s.Dir(), "artifacts", string(k), sha+".json")
}

type sample struct {
	Name  string   `json:"name"`
	Count int      `json:"count"`
	Tags  []string `json:"tags"`
	HTML  string   `json:"html"`
}

func TestPutGet(t *testing.T) {
	s := open(t, t.TempDir())
	tests := []struct {
		name string
		kind Kind
		v    any
		want string // canonical bytes
	}{
		{"object", KindContext, sample{Name: "a", Count: 2, Tags: []string{"x"}, HTML: "<b>&"}, `{"count":2,"html":"<b>&","name":"a","tags":["x"]}`},
		{"map sorted", KindPolicy, map[string]any{"z": 1, "a": 1.50, "m": nil}, `{"a":1.5,"m":null,"z":1}`},
		{"unicode", KindPrompt, map[string]string{"é": "\u2028€"}, "{\"é\":\"\u2028€\"}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sha, err := s.Put(tt.kind, tt.v)
			if err != nil {
				t.Fatalf("Put: %v", err)
			}
			sum := sha256.Sum256([]byte(tt.want))
			if want := hex.EncodeToString(sum[:]); sha != want {
				t.Errorf("Put sha = %s, want %s", sha, want)
			}
			got, err := s.Get(tt.kind, sha)
			if err != nil {
				t.Fatalf("Get: %v", err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("Get bytes (-want +got):\n%s", diff)
			}
			if p := s.Path(tt.kind, sha); p != ".ctxd/artifacts/"+string(tt.kind)+"/"+sha+".json" {
				t.Errorf("Path = %q", p)
			}
			fi, err := os.Stat(artifactFile(s, tt.kind, sha))
			if err != nil {
				t.Fatal(err)
			}
			if perm := fi.Mode().Perm(); perm&0o077 != 0 {
				t.Errorf("artifact mode %v, want no group/other bits", perm)
			}
		})
	}
}

func TestPutIdempotent(t *testing.T) {
	s := open(t, t.TempDir())
	v := sample{Name: "same"}
	sha1, err := s.Put(KindContext, v)
	if err != nil {
		t.Fatal(err)
	}
	file := artifactFile(s, KindContext, sha1)
	before, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	sha2, err := s.Put(KindContext, v)
	if err != nil {
		t.Fatal(err)
	}
	if sha1 != sha2 {
		t.Fatalf("second Put sha %s, want %s", sha2, sha1)
	}
	after, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	// No write means the same inode: a rewrite would rename a new file in.
	if !os.SameFile(before, after) {
		t.Errorf("idempotent Put replaced the file")
	}
	ents, err := os.ReadDir(filepath.Dir(file))
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 {
		t.Errorf("artifact dir holds %d entries, want 1", len(ents))
	}
}

// TestPutCanonical: canonical bytes given as they are make the same
// artifact as Put of the value they encode; storing them again, from this
// store or from another one on the same directory (another process), does
// not rewrite the file; a corrupted file of the same size is replaced.
func TestPutCanonical(t *testing.T) {
	root := t.TempDir()
	s := open(t, root)
	v := sample{Name: "n", Count: 3, Tags: []string{}, HTML: "<a>"}
	data := []byte(`{"count":3,"html":"<a>","name":"n","tags":[]}`)
	sha, err := s.PutCanonical(KindContext, data)
	if err != nil {
		t.Fatal(err)
	}
	if viaPut, err := s.Put(KindContext, v); err != nil || viaPut != sha {
		t.Fatalf("Put of the value: %s, %v; PutCanonical gave %s", viaPut, err, sha)
	}
	file := artifactFile(s, KindContext, sha)
	before, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	other := open(t, root)
	for _, st := range []*Store{s, other} {
		if again, err := st.PutCanonical(KindContext, data); err != nil || again != sha {
			t.Fatalf("PutCanonical again: %s, %v", again, err)
		}
		after, err := os.Stat(file)
		if err != nil {
			t.Fatal(err)
		}
		if !os.SameFile(before, after) {
			t.Errorf("storing the same bytes again replaced the file")
		}
	}
	flipped := bytes.Replace(data, []byte(`"n"`), []byte(`"m"`), 1)
	if err := os.WriteFile(file, flipped, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutCanonical(KindContext, data); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get(KindContext, sha); err != nil || !bytes.Equal(got, data) {
		t.Errorf("a same-size corruption was not repaired: %q, %v", got, err)
	}
	if checks, err := s.Verify(); err != nil || len(checks) != 1 || checks[0].Status != StatusOK {
		t.Errorf("Verify after PutCanonical: %+v, %v", checks, err)
	}
	if _, err := s.PutCanonical("bogus", data); !errors.Is(err, ErrInvalidName) {
		t.Errorf("PutCanonical with a bad kind: %v, want ErrInvalidName", err)
	}
}

func TestPutRepairsCorrupt(t *testing.T) {
	s := open(t, t.TempDir())
	sha, err := s.Put(KindPrompt, sample{Name: "p"})
	if err != nil {
		t.Fatal(err)
	}
	file := artifactFile(s, KindPrompt, sha)
	good, _ := os.ReadFile(file)
	if err := os.WriteFile(file, []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(KindPrompt, sha); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Get of corrupt artifact: err %v, want ErrCorrupt", err)
	}
	if _, err := s.Put(KindPrompt, sample{Name: "p"}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(file)
	if !bytes.Equal(got, good) {
		t.Errorf("Put did not repair the corrupt artifact: %q", got)
	}
}

func TestPutErrors(t *testing.T) {
	s := open(t, t.TempDir())
	if _, err := s.Put("../x", 1); !errors.Is(err, ErrInvalidName) {
		t.Errorf("Put unknown kind: err %v, want ErrInvalidName", err)
	}
	if _, err := s.Put(KindContext, func() {}); err == nil {
		t.Errorf("Put of a func: no error")
	}
}

func TestGetInvalidName(t *testing.T) {
	s := open(t, t.TempDir())
	valid := strings.Repeat("a", 64)
	tests := []struct {
		name string
		kind Kind
		sha  string
		want error
	}{
		{"empty", KindContext, "", ErrInvalidName},
		{"short", KindContext, "abc", ErrInvalidName},
		{"upper", KindContext, strings.Repeat("A", 64), ErrInvalidName},
		{"traversal", KindContext, "../../../../etc/passwd" + strings.Repeat("a", 42), ErrInvalidName},
		{"with ext", KindContext, strings.Repeat("a", 59) + ".json", ErrInvalidName},
		{"bad kind", Kind("ledger"), valid, ErrInvalidName},
		{"kind traversal", Kind("../contexts"), valid, ErrInvalidName},
		{"absent", KindContext, valid, fs.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Get(tt.kind, tt.sha)
			if !errors.Is(err, tt.want) {
				t.Errorf("Get(%q, %q): err %v, want %v", tt.kind, tt.sha, err, tt.want)
			}
			if tt.want == ErrInvalidName && s.Path(tt.kind, tt.sha) != "" {
				t.Errorf("Path(%q, %q) = %q, want empty", tt.kind, tt.sha, s.Path(tt.kind, tt.sha))
			}
		})
	}
}

func TestConcurrentPut(t *testing.T) {
	s := open(t, t.TempDir())
	const n = 16
	var wg sync.WaitGroup
	same := make([]string, n)
	diff := make([]string, n)
	errs := make([]error, 2*n)
	for i := range n {
		wg.Add(2)
		go func() {
			defer wg.Done()
			same[i], errs[i] = s.Put(KindContext, sample{Name: "shared"})
		}()
		go func() {
			defer wg.Done()
			diff[i], errs[n+i] = s.Put(Kinds()[i%3], sample{Name: fmt.Sprint("v", i), Count: i})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("Put %d: %v", i, err)
		}
	}
	for i := range n {
		if same[i] != same[0] {
			t.Errorf("Put of the same value %d: sha %s, want %s", i, same[i], same[0])
		}
		b, err := s.Get(Kinds()[i%3], diff[i])
		if err != nil {
			t.Errorf("Get value %d: %v", i, err)
			continue
		}
		if want := fmt.Sprintf(`"name":"v%d"`, i); !strings.Contains(string(b), want) {
			t.Errorf("value %d: %s lacks %s", i, b, want)
		}
	}
	checks, err := s.Verify()
	if err != nil {
		t.Fatal(err)
	}
	if len(checks) != n+1 {
		t.Errorf("Verify: %d artifacts, want %d", len(checks), n+1)
	}
	for _, c := range checks {
		if c.Status != StatusOK {
			t.Errorf("Verify: %+v", c)
		}
	}
}

func TestVerifyFlippedByte(t *testing.T) {
	s := open(t, t.TempDir())
	sha, err := s.Put(KindContext, sample{Name: "flip", Count: 7, Tags: []string{"a", "b"}})
	if err != nil {
		t.Fatal(err)
	}
	file := artifactFile(s, KindContext, sha)
	good, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for i := range good {
		bad := bytes.Clone(good)
		bad[i] ^= 0xff
		if err := os.WriteFile(file, bad, 0o600); err != nil {
			t.Fatal(err)
		}
		checks, err := s.Verify()
		if err != nil {
			t.Fatal(err)
		}
		if len(checks) != 1 || checks[0].Status != StatusMismatch || checks[0].Field != FieldSHA256 || checks[0].Name != sha+".json" {
			t.Fatalf("byte %d flipped: Verify = %+v, want one sha256 mismatch", i, checks)
		}
		if _, err := s.Get(KindContext, sha); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("byte %d flipped: Get err %v, want ErrCorrupt", i, err)
		}
	}
	if err := os.WriteFile(file, good, 0o600); err != nil {
		t.Fatal(err)
	}
	checks, err := s.Verify()
	if err != nil {
		t.Fatal(err)
	}
	want := []ArtifactCheck{{Kind: KindContext, Name: sha + ".json", Status: StatusOK}}
	if diff := cmp.Diff(want, checks); diff != "" {
		t.Errorf("Verify after restore (-want +got):\n%s", diff)
	}
}

func TestVerifyReports(t *testing.T) {
	s := open(t, t.TempDir())
	shaP, err := s.Put(KindPrompt, map[string]int{"b": 1})
	if err != nil {
		t.Fatal(err)
	}
	shaC, err := s.Put(KindContext, map[string]int{"a": 1})
	if err != nil {
		t.Fatal(err)
	}
	// Non-canonical bytes under their own hash: only Put's canonical form
	// is an artifact.
	nonCanon := []byte(`{ "a": 1 }`)
	sum := sha256.Sum256(nonCanon)
	shaN := hex.EncodeToString(sum[:])
	notJSON := []byte("not json")
	sum = sha256.Sum256(notJSON)
	shaJ := hex.EncodeToString(sum[:])
	write := func(k Kind, name string, data []byte) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(s.Dir(), "artifacts", string(k)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(s.Dir(), "artifacts", string(k), name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(KindPolicy, shaN+".json", nonCanon)
	write(KindPolicy, shaJ+".json", notJSON)
	write(KindPolicy, "notes.txt", []byte("x"))
	write(KindPolicy, ".abc.123.tmp", []byte("partial"))
	if err := os.Mkdir(filepath.Join(s.Dir(), "artifacts", string(KindPrompt), strings.Repeat("0", 64)+".json"), 0o700); err != nil {
		t.Fatal(err)
	}
	got, err := s.Verify()
	if err != nil {
		t.Fatal(err)
	}
	want := []ArtifactCheck{
		{Kind: KindContext, Name: shaC + ".json", Status: StatusOK},
		{Kind: KindPolicy, Name: shaN + ".json", Status: StatusMismatch, Field: FieldCanonical},
		{Kind: KindPolicy, Name: shaJ + ".json", Status: StatusMismatch, Field: FieldCanonical},
		{Kind: KindPolicy, Name: "notes.txt", Status: StatusMismatch, Field: FieldName},
		{Kind: KindPrompt, Name: strings.Repeat("0", 64) + ".json", Status: StatusMismatch, Field: FieldName},
		{Kind: KindPrompt, Name: shaP + ".json", Status: StatusOK},
	}
	slices.SortFunc(want[1:3], func(a, b ArtifactCheck) int { return strings.Compare(a.Name, b.Name) })
	ignoreMessage := cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Message" }, cmp.Ignore())
	if diff := cmp.Diff(want, got, ignoreMessage); diff != "" {
		t.Errorf("Verify (-want +got):\n%s", diff)
	}
	for _, c := range got {
		if (c.Status == StatusOK) != (c.Message == "") {
			t.Errorf("check %+v: message present iff mismatch", c)
		}
	}
}

func TestVerifyEmpty(t *testing.T) {
	s := open(t, t.TempDir())
	got, err := s.Verify()
	if err != nil {
		t.Fatal(err)
	}
	if got == nil || len(got) != 0 {
		t.Errorf("Verify of an empty store = %#v, want empty non-nil", got)
	}
}

// TestCrash simulates a crash between a temp file's write and its rename,
// and leftovers of any name: no final name ever holds a partial write, and
// the next Open removes them.
func TestCrash(t *testing.T) {
	root := t.TempDir()
	s := open(t, root)
	var tmp string
	s.beforeRename = func(name string) bool { tmp = name; return true }
	v := sample{Name: "crash"}
	if _, err := s.Put(KindPrompt, v); !errors.Is(err, errSimulatedCrash) {
		t.Fatalf("Put with a crash: err %v", err)
	}
	s.beforeRename = nil
	dir := filepath.Join(s.Dir(), "artifacts", string(KindPrompt))
	if !strings.HasPrefix(filepath.Base(tmp), ".") || !strings.HasSuffix(tmp, ".tmp") {
		t.Errorf("temp name %q is not .<sha>.<random>.tmp", tmp)
	}
	// A truncated temp and an unrelated leftover, as a crash mid-write
	// would leave.
	sha := hexSum(`{"count":0,"html":"","name":"crash","tags":null}`)
	truncated := filepath.Join(dir, "."+sha+".XYZ.tmp")
	if err := os.WriteFile(truncated, []byte(`{"count":0,"ht`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".x.tmp"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(filepath.Base(tmp), "."+sha+".") {
		t.Errorf("temp %q does not start with .<sha>.", tmp)
	}
	if _, err := s.Get(KindPrompt, sha); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Get after crash: err %v, want not exist", err)
	}
	checks, err := s.Verify()
	if err != nil {
		t.Fatal(err)
	}
	if len(checks) != 0 {
		t.Errorf("Verify after crash: %+v, want no artifact", checks)
	}
	s2 := open(t, root)
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 0 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("after Open: %v left, want none", names)
	}
	got, err := s2.Put(KindPrompt, v)
	if err != nil || got != sha {
		t.Fatalf("Put after recovery = %s, %v; want %s", got, err, sha)
	}
	if _, err := s2.Get(KindPrompt, sha); err != nil {
		t.Errorf("Get after recovery: %v", err)
	}
}

// TestPutRetriesVanishedTemp covers another process's Open removing a temp
// file of a write in progress.
func TestPutRetriesVanishedTemp(t *testing.T) {
	s := open(t, t.TempDir())
	calls := 0
	s.beforeRename = func(name string) bool {
		calls++
		if calls == 1 {
			if err := os.Remove(filepath.Join(s.Dir(), name)); err != nil {
				t.Error(err)
			}
		}
		return false
	}
	sha, err := s.Put(KindContext, sample{Name: "retry"})
	if err != nil {
		t.Fatalf("Put: %v", err)
	}
	if calls != 2 {
		t.Errorf("%d write attempts, want 2", calls)
	}
	if _, err := s.Get(KindContext, sha); err != nil {
		t.Errorf("Get: %v", err)
	}
}

func hexSum(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func TestOpenCreates(t *testing.T) {
	root := t.TempDir()
	s := open(t, root)
	if s.Root() != root {
		t.Errorf("Root() = %q, want %q", s.Root(), root)
	}
	if s.Dir() != filepath.Join(root, ".ctxd") {
		t.Errorf("Dir() = %q", s.Dir())
	}
	fi, err := os.Lstat(s.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 {
		t.Errorf(".ctxd mode %v, want a 0o700 directory", fi.Mode())
	}
	got, err := os.ReadFile(filepath.Join(root, ".ctxd", ".gitignore"))
	if err != nil {
		t.Fatal(err)
	}
	want := "# Written by ctxd: generated state is ignored; config.json and templates/ are meant to be committed.\n" +
		"artifacts/\nledger/\naudit.jsonl\naudit.jsonl.lock\nledger.sqlite\n*.tmp\n*.torn-*\n.gitignore\n"
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf(".gitignore (-want +got):\n%s", diff)
	}
}

func TestGitignoreMerge(t *testing.T) {
	full := gitignoreHeader + "\n" + strings.Join(gitignoreLines, "\n") + "\n"
	tests := []struct {
		name string
		old  string // "" with absent=true means no file
		want string
	}{
		{"complete", full, full},
		{"complete with CRLF and spaces", strings.ReplaceAll(full, "\n", " \r\n"), strings.ReplaceAll(full, "\n", " \r\n")},
		{"user lines kept", "# mine\n*.log\nartifacts/\n", "# mine\n*.log\nartifacts/\n" + gitignoreHeader + "\nledger/\naudit.jsonl\naudit.jsonl.lock\nledger.sqlite\n*.tmp\n*.torn-*\n"},
		{"no final newline", "secret.env", "secret.env\n" + full},
		{"header kept once", gitignoreHeader + "\nartifacts/\n", gitignoreHeader + "\nartifacts/\nledger/\naudit.jsonl\naudit.jsonl.lock\nledger.sqlite\n*.tmp\n*.torn-*\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			if err := os.Mkdir(filepath.Join(root, ".ctxd"), 0o700); err != nil {
				t.Fatal(err)
			}
			gi := filepath.Join(root, ".ctxd", ".gitignore")
			if err := os.WriteFile(gi, []byte(tt.old), 0o644); err != nil {
				t.Fatal(err)
			}
			open(t, root)
			got, err := os.ReadFile(gi)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf(".gitignore (-want +got):\n%s", diff)
			}
			// A second Open changes nothing.
			open(t, root)
			again, _ := os.ReadFile(gi)
			if !bytes.Equal(again, got) {
				t.Errorf("second Open rewrote .gitignore: %q", again)
			}
		})
	}
}

func TestOpenRefuses(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, root, outside string)
		want  error
	}{
		{"symlink to a directory outside", func(t *testing.T, root, outside string) {
			if err := os.Symlink(outside, filepath.Join(root, ".ctxd")); err != nil {
				t.Skipf("symlinks unavailable: %v", err)
			}
		}, ErrUnsafeDir},
		{"dangling symlink", func(t *testing.T, root, outside string) {
			if err := os.Symlink(filepath.Join(outside, "nope"), filepath.Join(root, ".ctxd")); err != nil {
				t.Skipf("symlinks unavailable: %v", err)
			}
		}, ErrUnsafeDir},
		{"regular file", func(t *testing.T, root, outside string) {
			if err := os.WriteFile(filepath.Join(root, ".ctxd"), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}, ErrUnsafeDir},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, outside := t.TempDir(), t.TempDir()
			tt.setup(t, root, outside)
			s, err := Open(root)
			if !errors.Is(err, tt.want) {
				if s != nil {
					s.Close()
				}
				t.Fatalf("Open: err %v, want %v", err, tt.want)
			}
			ents, _ := os.ReadDir(outside)
			if len(ents) != 0 {
				t.Errorf("Open wrote %d entries outside the workspace", len(ents))
			}
		})
	}
	t.Run("root missing", func(t *testing.T) {
		if _, err := Open(filepath.Join(t.TempDir(), "missing")); err == nil {
			t.Error("Open of a missing root: no error")
		}
	})
	t.Run("root empty", func(t *testing.T) {
		if _, err := Open(""); err == nil {
			t.Error("Open(\"\"): no error")
		}
	})
}

// TestSymlinkInsideStore checks that a symlink planted under .ctxd cannot
// make Put write outside the workspace.
func TestSymlinkInsideStore(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	s := open(t, root)
	if err := os.Symlink(outside, filepath.Join(s.Dir(), "artifacts")); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
	if _, err := s.Put(KindContext, 1); err == nil {
		t.Error("Put through a symlink out of .ctxd: no error")
	}
	ents, _ := os.ReadDir(outside)
	if len(ents) != 0 {
		t.Errorf("Put wrote %d entries outside the workspace", len(ents))
	}
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "config.json")
	for _, content := range []string{"first", "second, longer", ""} {
		if err := WriteFileAtomic(p, []byte(content), 0o640); err != nil {
			t.Fatalf("WriteFileAtomic: %v", err)
		}
		got, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != content {
			t.Errorf("content %q, want %q", got, content)
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("%d entries, want only the file (no temp left)", len(ents))
	}
	if err := WriteFileAtomic(filepath.Join(dir, "missing", "x"), nil, 0o600); err == nil {
		t.Error("WriteFileAtomic into a missing directory: no error")
	}
	if err := WriteFileAtomic(dir+string(filepath.Separator), nil, 0o600); err == nil {
		t.Error("WriteFileAtomic of a directory path: no error")
	}
}

func TestGitCheckIgnore(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not installed")
	}
	root := t.TempDir()
	run := func(args ...string) error {
		cmd := exec.Command(git, args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		if err != nil && !strings.Contains(err.Error(), "exit status 1") {
			t.Fatalf("git %v: %v\n%s", args, err, out.String())
		}
		return err
	}
	run("init", "-q")
	s := open(t, root)
	if _, err := s.Put(KindContext, 1); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"ledger/events.jsonl", "audit.jsonl", "config.json", "templates/x.json"} {
		p := filepath.Join(s.Dir(), filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		path    string
		ignored bool
	}{
		{".ctxd/artifacts/contexts/" + hexSum("1") + ".json", true},
		{".ctxd/artifacts/", true},
		{".ctxd/ledger/events.jsonl", true},
		{".ctxd/audit.jsonl", true},
		{".ctxd/audit.jsonl.lock", true},
		{".ctxd/ledger.sqlite", true},
		{".ctxd/.x.tmp", true},
		{".ctxd/config.json", false},
		{".ctxd/templates/x.json", false},
		// The .gitignore ctxd created ignores itself (selfIgnore): a
		// build leaves git status clean.
		{".ctxd/.gitignore", true},
	}
	for _, tt := range tests {
		err := run("check-ignore", "-q", tt.path)
		if got := err == nil; got != tt.ignored {
			t.Errorf("git check-ignore %s: ignored=%v, want %v", tt.path, got, tt.ignored)
		}
	}
}

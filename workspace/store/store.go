package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sync"

	"github.com/gowebpki/jcs"
)

// Dir is the name of ctxd's state directory at the workspace root.
const Dir = ".ctxd"

// artifactsDir is the directory of the hash-addressed artifacts inside Dir.
const artifactsDir = "artifacts"

// Kind is an artifact kind: the name of its directory under
// .ctxd/artifacts, as in seed 001's artifact paths.
type Kind string

// Artifact kinds (seed 001 "Inputs and outputs").
const (
	// KindContext is a context selection: artifacts/contexts/<hash>.json.
	KindContext Kind = "contexts"
	// KindPolicy is an effective context policy:
	// artifacts/context_policies/<hash>.json.
	KindPolicy Kind = "context_policies"
	// KindPrompt is a provider-ready prompt: artifacts/prompts/<hash>.json.
	KindPrompt Kind = "prompts"
)

// Kinds returns every artifact kind, in the fixed order [Store.Verify]
// reports them. The slice is new on each call.
func Kinds() []Kind { return []Kind{KindContext, KindPolicy, KindPrompt} }

func (k Kind) valid() bool {
	switch k {
	case KindContext, KindPolicy, KindPrompt:
		return true
	}
	return false
}

// Errors of this package; test them with errors.Is.
var (
	// ErrCorrupt means an artifact's bytes do not hash to its name.
	ErrCorrupt = errors.New("artifact is corrupt")
	// ErrInvalidName means a kind or hash is not one the store accepts:
	// hashes are 64 lowercase hex digits, kinds are those of [Kinds].
	// Names are checked before any file is touched, so that a client's
	// string never becomes a path component.
	ErrInvalidName = errors.New("invalid artifact name")
	// ErrUnsafeDir means <root>/.ctxd is a symlink or not a directory:
	// writing through it could land outside the workspace, so the store
	// refuses to open.
	ErrUnsafeDir = errors.New("unsafe state directory")
)

// Store is the state directory of one workspace. It holds an open handle
// on <root>/.ctxd (an [os.Root]), so that every read and write stays in
// that directory even if a path inside it is a symlink. A Store is safe
// for concurrent use, also by several processes: writes are atomic
// renames of complete files.
type Store struct {
	root   string   // absolute workspace root; "" for [OpenDir]
	dir    string   // absolute <root>/.ctxd, or OpenDir's directory
	prefix string   // what Path puts before artifacts/: ".ctxd" or ""
	fsys   *os.Root // handle on dir

	// synced is, per kind, the artifact this store last wrote or synced:
	// the one a repeated build (same inputs, same second) stores again,
	// which then costs a comparison and no fsync. One name per kind keeps
	// it bounded.
	mu     sync.Mutex
	synced map[Kind]string

	// beforeRename, when set by a test, runs after a temp file is
	// complete and before it is renamed; returning true simulates a crash
	// at that point: the temp file is left in place.
	beforeRename func(tmp string) (crash bool)
}

// Open returns the store of the workspace at root, creating <root>/.ctxd
// (mode 0o700) when absent. It writes .ctxd/.gitignore when it is absent
// (ignoring itself too) or lacks one of ctxd's lines (appending, never
// removing the user's lines), and removes temp files (*.tmp) a crash left under
// .ctxd/artifacts. It fails with [ErrUnsafeDir] when .ctxd is a symlink
// or not a directory.
//
// Open may run while another ctxd process writes to the same store: a
// write whose temp file it removes is retried by [Store.Put].
func Open(root string) (*Store, error) {
	if root == "" {
		return nil, errors.New("opening the ctxd store: empty workspace root")
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("opening the ctxd store: %w", err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("opening the ctxd store: workspace root: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("opening the ctxd store: workspace root %s is not a directory", abs)
	}
	s, err := openAt(filepath.Join(abs, Dir), Dir)
	if err != nil {
		return nil, err
	}
	s.root = abs
	if err := ensureGitignore(s.fsys); err != nil {
		s.fsys.Close()
		return nil, fmt.Errorf("opening the ctxd store: %w", err)
	}
	return s, nil
}

// OpenDir returns a store kept in dir, outside any workspace: the records
// of a workspace that did not opt in live in the user's state directory
// (see workspace.Locate). It creates dir and its parents (mode 0o700)
// when absent, writes no .gitignore (nothing there is in a repository)
// and removes stale temp files as [Open] does. [Store.Root] is "" and
// [Store.Path] names artifacts relative to dir. It fails with
// [ErrUnsafeDir] when dir is a symlink or not a directory.
func OpenDir(dir string) (*Store, error) {
	if !filepath.IsAbs(dir) {
		return nil, fmt.Errorf("opening the ctxd store: %q is not an absolute path", dir)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return nil, fmt.Errorf("opening the ctxd store: %w", err)
	}
	return openAt(filepath.Clean(dir), "")
}

// openAt opens the state directory dir, creating it when absent; prefix
// is what [Store.Path] puts before "artifacts/".
func openAt(dir, prefix string) (*Store, error) {
	want, err := ensureDir(dir)
	if err != nil {
		return nil, err
	}
	fsys, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("opening the ctxd store: %w", err)
	}
	// The directory checked above and the one opened must be the same:
	// otherwise it was swapped (for a symlink, say) in between.
	got, err := fsys.Stat(".")
	if err != nil || !os.SameFile(want, got) {
		fsys.Close()
		return nil, fmt.Errorf("opening the ctxd store: %s changed while being opened: %w", dir, ErrUnsafeDir)
	}
	if err := removeStaleTemps(fsys); err != nil {
		fsys.Close()
		return nil, fmt.Errorf("opening the ctxd store: %w", err)
	}
	return &Store{dir: dir, prefix: prefix, fsys: fsys}, nil
}

// ensureDir creates dir when absent and returns its info; it refuses a
// symlink or a non-directory.
func ensureDir(dir string) (fs.FileInfo, error) {
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		// ErrExist is a concurrent Open that won the race; the Lstat
		// below checks what it created.
		if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("creating %s: %w", dir, err)
		}
		fi, err = os.Lstat(dir)
	}
	if err != nil {
		return nil, fmt.Errorf("opening the ctxd store: %w", err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("opening the ctxd store: %s is a symlink: %w", dir, ErrUnsafeDir)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("opening the ctxd store: %s is not a directory: %w", dir, ErrUnsafeDir)
	}
	return fi, nil
}

// removeStaleTemps removes every regular *.tmp file under artifacts/: the
// remains of writes interrupted before their rename. Symlinks are not
// followed (fs.WalkDir never does).
func removeStaleTemps(fsys *os.Root) error {
	err := fs.WalkDir(fsys.FS(), artifactsDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == artifactsDir && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		if d.Type().IsRegular() && isTemp(d.Name()) {
			if err := fsys.Remove(filepath.FromSlash(p)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("removing stale temp files: %w", err)
	}
	return nil
}

// Close releases the handle on .ctxd. It is optional: the handle is also
// released when the Store is garbage collected. No method may be called
// after Close.
func (s *Store) Close() error { return s.fsys.Close() }

// Root returns the absolute workspace root; "" for a store opened with
// [OpenDir].
func (s *Store) Root() string { return s.root }

// Dir returns the absolute path of the state directory: <root>/.ctxd, or
// the directory given to [OpenDir].
func (s *Store) Dir() string { return s.dir }

// Put stores v as an artifact of the given kind and returns its name: the
// lowercase hex sha256 of the canonical bytes, JCS(json.Marshal(v)). The
// file is .ctxd/artifacts/<kind>/<sha>.json, mode 0o600 (bundles and
// prompts hold file contents). Put is idempotent: when the file already
// holds exactly those bytes nothing is written; when it holds other bytes
// (a corrupt artifact) it is replaced atomically.
func (s *Store) Put(kind Kind, v any) (sha string, err error) {
	if !kind.valid() {
		return "", fmt.Errorf("storing an artifact: kind %q: %w", kind, ErrInvalidName)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("storing a %s artifact: encoding: %w", kind, err)
	}
	data, err := jcs.Transform(raw)
	if err != nil {
		return "", fmt.Errorf("storing a %s artifact: canonical form: %w", kind, err)
	}
	return s.PutCanonical(kind, data)
}

// PutCanonical is [Store.Put] for a value the caller has already written
// in canonical form: data must be the RFC 8785 (JCS) form of a JSON
// value, which PutCanonical does not check — canonicalizing again is the
// cost it exists to avoid. A caller guarantees it by construction and
// proves it with a test against the jcs module; [Store.Verify] reports an
// artifact that is not canonical all the same.
//
// When it returns, the artifact is durable: the file was written under a
// temporary name, fsynced, renamed to its hash and the directory fsynced,
// so a crash after PutCanonical cannot lose it, and a crash before leaves
// no file under that name. An artifact already stored with exactly these
// bytes (the same build again, in the same second) is not written again.
func (s *Store) PutCanonical(kind Kind, data []byte) (sha string, err error) {
	if !kind.valid() {
		return "", fmt.Errorf("storing an artifact: kind %q: %w", kind, ErrInvalidName)
	}
	sum := sha256.Sum256(data)
	sha = hex.EncodeToString(sum[:])
	dir := filepath.Join(artifactsDir, string(kind))
	base := sha + ".json"
	if s.holds(filepath.Join(dir, base), data) {
		// Another writer's rename may not be durable yet (it fsyncs the
		// directory after renaming), unless this store synced it itself.
		if !s.wasSynced(kind, sha) {
			if err := syncDir(s.fsys, dir); err != nil {
				return "", fmt.Errorf("storing artifact %s: %w", s.Path(kind, sha), err)
			}
			s.markSynced(kind, sha)
		}
		return sha, nil
	}
	if err := s.fsys.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("storing artifact %s: %w", s.Path(kind, sha), err)
	}
	if err := writeAtomic(s.fsys, dir, base, "."+sha+".", data, 0o600, s.beforeRename); err != nil {
		return "", fmt.Errorf("storing artifact %s: %w", s.Path(kind, sha), err)
	}
	s.markSynced(kind, sha)
	return sha, nil
}

// wasSynced reports whether sha is the artifact of kind this store last
// made durable.
func (s *Store) wasSynced(kind Kind, sha string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.synced[kind] == sha
}

func (s *Store) markSynced(kind Kind, sha string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.synced == nil {
		s.synced = map[Kind]string{}
	}
	s.synced[kind] = sha
}

// holds reports whether the file at name (inside the store) holds exactly
// data. The size is compared first, so that a corrupt artifact of another
// size is not read, and a missing one costs one failed stat.
func (s *Store) holds(name string, data []byte) bool {
	fi, err := s.fsys.Lstat(name)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != int64(len(data)) {
		return false
	}
	old, err := s.fsys.ReadFile(name)
	return err == nil && bytes.Equal(old, data)
}

// Get returns the bytes of an artifact after checking that they hash to
// sha; a mismatch is an error wrapping [ErrCorrupt]. sha must be 64
// lowercase hex digits and kind one of [Kinds], else the error wraps
// [ErrInvalidName]. A missing artifact is an error wrapping
// [fs.ErrNotExist].
func (s *Store) Get(kind Kind, sha string) ([]byte, error) {
	if !kind.valid() {
		return nil, fmt.Errorf("reading an artifact: kind %q: %w", kind, ErrInvalidName)
	}
	if !isSHA256(sha) {
		return nil, fmt.Errorf("reading a %s artifact: %q is not 64 lowercase hex digits: %w", kind, sha, ErrInvalidName)
	}
	p := s.Path(kind, sha)
	data, err := s.fsys.ReadFile(filepath.Join(artifactsDir, string(kind), sha+".json"))
	if err != nil {
		return nil, fmt.Errorf("reading artifact %s: %w", p, err)
	}
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != sha {
		return nil, fmt.Errorf("reading artifact %s: its content hashes to %s: %w", p, got, ErrCorrupt)
	}
	return data, nil
}

// Path returns the slash-separated path of an artifact as reported to
// clients: workspace-relative, ".ctxd/artifacts/<kind>/<sha>.json", for a
// store in the workspace; relative to the state directory,
// "artifacts/<kind>/<sha>.json", for one opened with [OpenDir], so that
// no output carries the user's home directory. It touches no file. It returns "" when kind or sha is invalid
// (see [ErrInvalidName]), so that it never forms a path from a bad name.
func (s *Store) Path(kind Kind, sha string) string {
	if !kind.valid() || !isSHA256(sha) {
		return ""
	}
	return path.Join(s.prefix, artifactsDir, string(kind), sha+".json")
}

// isSHA256 reports whether s is 64 lowercase hex digits.
func isSHA256(s string) bool {
	if len(s) != 2*sha256.Size {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

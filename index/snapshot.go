package index

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"maps"
	"net/url"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/ctxd/ctxd/index/classify"
	"github.com/ctxd/ctxd/index/relate"
	"github.com/ctxd/ctxd/index/syntax"
)

// FormatVersion is the version of everything the index derives from a file:
// the extraction rules, the fields of [File] and [syntax.File], and the
// on-disk cache layout. It enters project_index_fingerprint and names the
// cache directory, so bumping it invalidates both.
//
// Changelog:
//
//	1: first release: tree-sitter extraction for Go, TypeScript, TSX,
//	   JavaScript, Python, Java, Rust, C, C++ and C#.
//	2: resolved uses, bindings, exports, Go build constraints and
//	   declared types (syntax.File.Uses, Bindings, Exports, Constraint,
//	   Symbol.Type).
//	3: Go calls mark their receiver ("()" in Use.Recv) and func-typed
//	   fields and types carry Type "func"; a C# partial type declaration
//	   is a use of the type; XAML files are parsed (x:Class, clr-namespace
//	   types, resource dictionaries).
//	4: Go map types keep their key type (map[K]V), channels are <-D, and
//	   the key of a range is typed (key:D); Python functions and
//	   variables bound under a module-level if, try or with are symbols;
//	   struct and interface literals are typed "{}"; a module-level Python
//	   from-import is a use of each name it imports (a re-export).
//	5: a Go text go/parser rejects keeps only the symbols and imports
//	   tree-sitter recovered outside function bodies, as go/parser's
//	   extraction does (syntax.GoDeclWords).
const FormatVersion = 5

// State says whether a root's initial scan is complete.
type State string

// States.
const (
	// StateIndexing: the initial scan of a root runs; its files are not
	// all known yet.
	StateIndexing State = "indexing"
	// StateReady: every file of the root is known.
	StateReady State = "ready"
	// StateFailed: the root could not be scanned (its directory is
	// unreadable); the snapshot holds only its open documents.
	StateFailed State = "failed"
)

// ErrStale reports that a file changed on disk after the snapshot was
// taken: its bytes no longer match the fingerprint the snapshot recorded.
var ErrStale = errors.New("file changed on disk since it was indexed")

// ErrNotIndexed reports a path the snapshot does not hold as an indexed
// file (never seen, skipped, or outside every root).
var ErrNotIndexed = errors.New("file is not indexed")

// Root is one workspace folder.
type Root struct {
	// URI is the folder's file URI as the editor sent it (normalized).
	URI string `json:"uri"`
	// Name is the editor's display name; empty when none was given.
	Name string `json:"name"`
	// Dir is the absolute directory (cleaned, not resolved).
	Dir string `json:"-"`
}

// Snapshot is an immutable view of the whole index: every root with its
// files, skipped paths, open documents and relation graph. Readers take one
// with [Index.Snapshot] and may keep it as long as they like; writers build
// the next one without touching it.
type Snapshot struct {
	version uint64
	roots   []*RootSnapshot // sorted by Dir
	docs    *Overlays       // every open document, in a root or not

	// fp is shared by the snapshots that differ only in their open
	// documents' overlays, whose roots are the same.
	fp *lazyFingerprint
}

// lazyFingerprint computes a snapshot's fingerprint once.
type lazyFingerprint struct {
	once sync.Once
	fp   string
}

// Version increases by one with every published change to the roots (their
// files, skipped paths, state, or the open documents applied to them). A
// change to the open documents alone, which no root sees (a save, a change
// that leaves a document out of sync, a buffer outside every root), gives
// a new snapshot with the same version: nothing derived from the roots
// changed.
func (s *Snapshot) Version() uint64 { return s.version }

// Roots returns the roots sorted by directory. The slice must not be
// modified.
func (s *Snapshot) Roots() []*RootSnapshot { return s.roots }

// Documents returns the open documents: every buffer the editor opened
// and did not close, whatever its URI scheme and whether or not a root
// holds it. A document inside a root also replaces the file on disk there
// (see [RootSnapshot.ReadText]), except while it is out of sync: the root
// keeps the last text that was in sync.
func (s *Snapshot) Documents() *Overlays { return s.docs }

// Document returns the open document with the given (normalized) URI.
func (s *Snapshot) Document(uri string) (*Document, bool) { return s.docs.Get(uri) }

// Listed reports whether every root's files are all known (the first pass
// of every scan is done): what a build waits for.
func (s *Snapshot) Listed() bool {
	for _, r := range s.roots {
		if !r.listed {
			return false
		}
	}
	return true
}

// State is StateIndexing while any root is still being scanned, else
// StateReady (a failed root does not hold the others back).
func (s *Snapshot) State() State {
	for _, r := range s.roots {
		if r.state == StateIndexing {
			return StateIndexing
		}
	}
	return StateReady
}

// Locate finds the root holding a file URI and the file's path relative to
// it. The innermost root wins when folders nest. ok is false for a URI that
// is not a file URI or lies outside every root.
func (s *Snapshot) Locate(uri string) (root *RootSnapshot, rel string, ok bool) {
	p, err := URIToPath(uri)
	if err != nil {
		return nil, "", false
	}
	for _, r := range s.roots {
		if rp, in := r.relOf(p); in && (root == nil || len(r.Root.Dir) > len(root.Root.Dir)) {
			root, rel = r, rp
		}
	}
	return root, rel, root != nil
}

// relOf returns the absolute path p relative to the root, which it may
// name by the folder's path or by its resolved real path; ok is false for
// the root itself and for paths outside it.
func (r *RootSnapshot) relOf(p string) (string, bool) {
	for _, dir := range []string{r.Root.Dir, r.realDir} {
		if rp, in := within(dir, p); in && rp != "" {
			return rp, true
		}
	}
	return "", false
}

// Fingerprint is the snapshot's project_index_fingerprint. With one root
// (`ctxd index`, the CLI, most editor sessions) it is that root's
// [RootSnapshot.Fingerprint], the value every manifest built from the root
// carries, so the two can be compared. With several roots it is sha256 of
// the format version and the roots' fingerprints, sorted: like a root's,
// it depends only on the files' relative paths and contents, never on a
// folder's name, path or position in the client's list, so a copy of the
// workspace elsewhere has the same fingerprint. Computed once per
// snapshot.
func (s *Snapshot) Fingerprint() string {
	s.fp.once.Do(func() {
		if len(s.roots) == 1 {
			s.fp.fp = s.roots[0].Fingerprint()
			return
		}
		fps := make([]string, len(s.roots))
		for i, r := range s.roots {
			fps[i] = r.Fingerprint()
		}
		slices.Sort(fps)
		h := sha256.New()
		fmt.Fprintf(h, "ctxd-index-roots\x00%d\n", FormatVersion)
		for _, fp := range fps {
			fmt.Fprintf(h, "%s\n", fp)
		}
		s.fp.fp = hex.EncodeToString(h.Sum(nil))
	})
	return s.fp.fp
}

// RootSnapshot is the immutable state of one root inside a [Snapshot]. It
// implements relate.Source.
type RootSnapshot struct {
	Root    Root
	realDir string
	state   State
	err     string // why the root failed; "" otherwise
	links   *linkPolicy

	files   *layered[*File]
	skipped *layered[Skipped]
	// open maps a path to the open document that replaces the file on
	// disk: the Document of the snapshot's overlays, or the last one in
	// sync while that is out of sync.
	open map[string]*Document

	graph *lazyGraph
	// listed: every file of the root is known, with its fingerprint (the
	// first pass of a scan is done, or the root failed). parsed: every
	// file's extraction is known too, so the relation graph costs no
	// parse. A build waits for listed only (see Demand).
	listed, parsed bool
	// idle is the index's gate that pauses background parsing while a
	// build needs the cores; nil for roots made outside an index.
	idle *gate

	fp *lazyFingerprint
}

// URIOf returns the file URI of a path of this root.
func (r *RootSnapshot) URIOf(rel string) string {
	return PathToURI(filepath.Join(r.Root.Dir, filepath.FromSlash(rel)))
}

// State reports the root's scan state.
func (r *RootSnapshot) State() State { return r.state }

// File returns the indexed file at rel.
func (r *RootSnapshot) File(rel string) (*File, bool) { return r.files.Get(rel) }

// Paths returns the sorted paths of all indexed files. The slice is shared
// and must not be modified.
func (r *RootSnapshot) Paths() []string { return r.files.Keys() }

// Syntax returns the extraction of a parsed file; nil for a file without
// symbols or not indexed.
func (r *RootSnapshot) Syntax(rel string) *syntax.File {
	if f, ok := r.files.Get(rel); ok {
		return f.Syntax()
	}
	return nil
}

// GoHeader returns the package name and build constraint the header of
// the Go file at rel states, read at the listing; ok is false when they
// were not read (see File.goHead). The relation graph places a file that
// is not parsed yet in its package by them.
func (r *RootSnapshot) GoHeader(rel string) (pkg, constraint string, ok bool) {
	f, found := r.files.Get(rel)
	if !found || f.goHead == "" {
		return "", "", false
	}
	pkg, constraint, _ = strings.Cut(f.goHead, "\x00")
	return pkg, constraint, true
}

// Content returns the text of an indexed file (the editor's buffer when
// open). It never reads a skipped path, so a denied file cannot reach a
// resolver through a config lookup. ok is false when absent, unreadable or
// changed since indexing.
func (r *RootSnapshot) Content(rel string) ([]byte, bool) {
	b, err := r.ReadText(rel)
	return b, err == nil
}

// ReadText returns the UTF-8 text of an indexed file: the editor's buffer
// for an open document, else the bytes on disk, decoded, after checking
// they still match the recorded sha256 (ErrStale otherwise). A path that
// is not indexed gives ErrNotIndexed; nothing outside the index is read,
// and the read never leaves the root, even when a link was swapped in
// since indexing (ErrOutsideRoot).
func (r *RootSnapshot) ReadText(rel string) ([]byte, error) {
	f, ok := r.files.Get(rel)
	if !ok {
		return nil, fmt.Errorf("reading %s: %w", rel, ErrNotIndexed)
	}
	if d, ok := r.open[rel]; ok {
		return d.Content(), nil
	}
	data, _, err := readRel(r.realDir, rel, readSpec{max: f.ByteSize, links: r.links})
	switch {
	case errors.Is(err, ErrTooLarge):
		return nil, fmt.Errorf("reading %s: %w", rel, ErrStale)
	case errors.Is(err, ErrChanged):
		// Changing under every read: stale for a builder, which
		// rebuilds on a fresh snapshot and refuses if it keeps changing.
		return nil, fmt.Errorf("reading %s: %w: %w", rel, ErrStale, err)
	case err != nil:
		return nil, fmt.Errorf("reading %s: %w", rel, err)
	}
	sum := sha256.Sum256(data)
	if hex.EncodeToString(sum[:]) != f.SHA256() {
		return nil, fmt.Errorf("reading %s: %w", rel, ErrStale)
	}
	text, err := classify.Decode(data, f.Encoding)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", rel, err)
	}
	return text, nil
}

// Skip explains why rel is not indexed: its own record, or the record of
// the ignored directory that holds it. ok is false for an indexed or
// unknown path.
func (r *RootSnapshot) Skip(rel string) (Skipped, bool) {
	if s, ok := r.skipped.Get(rel); ok {
		return s, true
	}
	for dir := path.Dir(rel); dir != "." && dir != "/" && dir != ""; dir = path.Dir(dir) {
		if s, ok := r.skipped.Get(dir + "/"); ok {
			return s, true
		}
	}
	return Skipped{}, false
}

// SkippedFiles returns every skipped path sorted by path.
func (r *RootSnapshot) SkippedFiles() []Skipped {
	keys := r.skipped.Keys()
	out := make([]Skipped, 0, len(keys))
	for _, k := range keys {
		s, _ := r.skipped.Get(k)
		out = append(out, s)
	}
	return out
}

// Graph returns the relation graph of the root, computed on first use and
// updated incrementally from the previous snapshot's graph.
func (r *RootSnapshot) Graph() *relate.Graph { return r.graph.get() }

// Fingerprint is the root's project_index_fingerprint, the manifest's:
// sha256 over the format version and the sorted (relative path, content
// sha256) list. Neither the folder's name nor its path enters it.
func (r *RootSnapshot) Fingerprint() string {
	r.fp.once.Do(func() {
		h := sha256.New()
		fmt.Fprintf(h, "ctxd-index\x00%d\n", FormatVersion)
		r.hashFiles(h)
		r.fp.fp = hex.EncodeToString(h.Sum(nil))
	})
	return r.fp.fp
}

func (r *RootSnapshot) hashFiles(h hash.Hash) {
	for _, p := range r.files.Keys() {
		f, _ := r.files.Get(p)
		h.Write([]byte(p))
		h.Write([]byte{0})
		h.Write([]byte(f.SHA256()))
		h.Write([]byte{'\n'})
	}
}

// lazyGraph computes a root's relation graph when first asked, from the
// nearest earlier snapshot whose graph exists plus the paths changed since.
// Chains never grow beyond one link: deriving from a snapshot whose graph
// was never computed reuses that snapshot's base and merges the changes.
type lazyGraph struct {
	mu      sync.Mutex
	g       *relate.Graph
	base    *lazyGraph
	changed []string
	src     relate.Source
}

func (l *lazyGraph) get() *relate.Graph {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.g == nil {
		if l.base == nil {
			l.g = relate.Build(l.src)
		} else {
			l.g = l.base.get().Update(l.src, l.changed)
		}
		l.base, l.changed, l.src = nil, nil, nil
	}
	return l.g
}

func (l *lazyGraph) derive(src relate.Source, changed []string) *lazyGraph {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.g != nil:
		return &lazyGraph{base: l, changed: slices.Clone(changed), src: src}
	case l.base == nil:
		return &lazyGraph{src: src}
	default:
		set := map[string]bool{}
		for _, p := range l.changed {
			set[p] = true
		}
		for _, p := range changed {
			set[p] = true
		}
		return &lazyGraph{base: l.base, changed: slices.Sorted(maps.Keys(set)), src: src}
	}
}

// URIToPath converts a file URI to an absolute, cleaned local path.
func URIToPath(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", fmt.Errorf("parsing uri: %w", err)
	}
	if u.Scheme != "file" {
		return "", fmt.Errorf("uri %q: scheme %q is not file", uri, u.Scheme)
	}
	if u.Host != "" && u.Host != "localhost" {
		return "", fmt.Errorf("uri %q: remote host %q", uri, u.Host)
	}
	p := u.Path
	if p == "" || !strings.HasPrefix(p, "/") {
		return "", fmt.Errorf("uri %q: not an absolute path", uri)
	}
	return filepath.Clean(filepath.FromSlash(p)), nil
}

// PathToURI converts an absolute local path to a file URI.
func PathToURI(p string) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(p)}
	return u.String()
}

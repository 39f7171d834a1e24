package index

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ctxd/ctxd/index/classify"
	"github.com/ctxd/ctxd/index/syntax"
	"github.com/ctxd/ctxd/index/words"
)

// cacheMagic starts every cache file; a file without it is foreign, or
// of an earlier layout (1: one gob message for the whole cache; 2: symbol
// kinds as strings; 3: word filters of a power-of-two size, two probes;
// 4: one token for every relative path, not one per last element).
// A change of the encoding that leaves what the index derives unchanged
// bumps it, not FormatVersion, which enters the fingerprints. A filter of
// another layout must never be read as this one: it would answer "no" for
// words its file holds.
const cacheMagic = "ctxd-index-cache 5\n"

// errOldLayout is the error of loading a cache file of an earlier layout:
// replaced on the next save, as expected after an upgrade.
var errOldLayout = errors.New("index cache of an earlier layout")

// cacheHeader is the first gob message of a cache file; the entries and
// then the path records follow, one message each, so that neither
// writing nor reading holds the whole encoded cache in memory.
type cacheHeader struct {
	Format  int
	Root    string
	Entries int
	Paths   int
}

// cacheDirFor resolves Options.CacheDir: "" is the user cache directory,
// "off" disables persistence.
func cacheDirFor(opt string) (string, error) {
	switch opt {
	case "off":
		return "", nil
	case "":
		base, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("finding the user cache directory: %w", err)
		}
		return filepath.Join(base, "ctxd"), nil
	default:
		return filepath.Abs(opt)
	}
}

// cacheKey addresses one extraction result: the same bytes in the same
// language always extract to the same syntax.File (within FormatVersion).
type cacheKey struct {
	Lang syntax.Language
	SHA  string
}

// cacheEntry is the persisted form of one result.
type cacheEntry struct {
	Lang syntax.Language
	SHA  string
	File *syntax.File
}

// cacheFile is the content of a root's cache (written as a header and one
// message per entry and record).
type cacheFile struct {
	Format  int
	Root    string
	Entries []cacheEntry
	// Paths are the files of the last scan as the walk saw them, so
	// that the next scan trusts an unchanged file without reading it.
	Paths []pathRecord
}

// pathRecord is what a scan learned of one file, with the stat that
// vouches for it.
type pathRecord struct {
	Path      string
	Size      int64
	ModTimeNs int64
	ID        uint64 // inode, 0 when unknown
	SHA       string
	Encoding  classify.Encoding
	Lines     int
	Words     []uint64
}

// racyWindow is how recent a file's modification may be, relative to the
// moment its record was saved, for the record to be doubted: a file
// written again within the same clock tick keeps its size and time
// (git's "racy clean" problem), so such a file is read and hashed.
const racyWindow = 2 * time.Second

// rootCache persists the extraction results of one workspace root between
// runs, keyed by content hash, so a restart re-parses only changed files.
// It lives under the user cache directory, one file per root and format
// version; a file that is corrupt, of another version or of another root is
// discarded, never trusted. A nil *rootCache is a disabled cache.
type rootCache struct {
	path string
	root string
	log  *slog.Logger

	mu    sync.Mutex
	old   map[cacheKey]*syntax.File // loaded from disk
	used  map[cacheKey]*syntax.File // looked up or stored this run
	dirty bool
	hits  int
	miss  int
	// oldPaths are the records loaded, savedNs when they were saved;
	// paths the records of this run.
	oldPaths map[string]*pathRecord
	savedNs  int64
	paths    map[string]*pathRecord
	trusted  int
	// share is set by a scan of at least shareMinFiles files: their
	// extractions share their strings (see syntax.Compact).
	share atomic.Bool
}

// shareMinFiles is the size of a tree from which the extractions parsed or
// read from the cache share their equal strings. Below it sharing costs
// more CPU than it is worth: GOROOT/src's 10,600 files are indexed within
// the memory governor's floor either way (internal/memlimit), so its peak
// does not move, while a table lookup per string adds about 6% to a cold
// index. A 100,000-file tree holds about 120 MB less with it.
var shareMinFiles = 20000

// shareStrings sets whether the extractions parsed from now on share their
// strings, for a scan of n files.
func (c *rootCache) shareStrings(n int) {
	if c != nil {
		c.share.Store(n >= shareMinFiles)
	}
}

// openRootCache loads the cache of the root realDir from base ("" means
// disabled). A base inside the root disables the cache: the index never
// writes into the workspace.
func openRootCache(base, realDir string, log *slog.Logger) *rootCache {
	if base == "" {
		return nil
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if realBase, err := filepath.EvalSymlinks(base); err == nil {
		base = realBase
	}
	if _, inside := within(realDir, base); inside {
		log.Warn("index cache disabled: the cache directory is inside the workspace", "root", realDir)
		return nil
	}
	sum := sha256.Sum256([]byte(realDir))
	c := &rootCache{
		path: filepath.Join(base, "index", fmt.Sprintf("v%d", FormatVersion), hex.EncodeToString(sum[:16])+".cache"),
		root: realDir, log: log,
		old: map[cacheKey]*syntax.File{}, used: map[cacheKey]*syntax.File{},
		oldPaths: map[string]*pathRecord{}, paths: map[string]*pathRecord{},
	}
	switch err := c.load(); {
	case err == nil, errors.Is(err, os.ErrNotExist):
	case errors.Is(err, errOldLayout):
		log.Info("index cache of an earlier version replaced", "path", c.path)
		c.old, c.oldPaths = map[cacheKey]*syntax.File{}, map[string]*pathRecord{}
	default:
		log.Warn("index cache discarded", "err", err)
		c.old, c.oldPaths = map[cacheKey]*syntax.File{}, map[string]*pathRecord{}
	}
	return c
}

func (c *rootCache) load() error {
	fh, err := os.Open(c.path)
	if err != nil {
		return err
	}
	defer fh.Close()
	info, err := fh.Stat()
	if err != nil {
		return err
	}
	// Decoded as it is read, through the checksum: the file's bytes are
	// never held whole next to what they decode to.
	br := bufio.NewReaderSize(fh, 1<<16)
	head := make([]byte, len(cacheMagic)+sha256.Size)
	if _, err := io.ReadFull(br, head); err != nil || string(head[:len(cacheMagic)]) != cacheMagic {
		if err == nil && strings.HasPrefix(string(head), "ctxd-index-cache ") {
			return fmt.Errorf("reading %s: %w", c.path, errOldLayout)
		}
		return fmt.Errorf("reading %s: not a ctxd index cache", c.path)
	}
	want := head[len(cacheMagic):]
	h := sha256.New()
	cf, err := readCache(gob.NewDecoder(io.TeeReader(br, h)))
	if err != nil {
		return fmt.Errorf("decoding %s: %w", c.path, err)
	}
	if _, err := io.Copy(h, br); err != nil {
		return fmt.Errorf("reading %s: %w", c.path, err)
	}
	if !bytes.Equal(h.Sum(nil), want) {
		return fmt.Errorf("reading %s: checksum mismatch", c.path)
	}
	if cf.Format != FormatVersion || cf.Root != c.root {
		return fmt.Errorf("reading %s: cache of another root or format", c.path)
	}
	for _, e := range cf.Entries {
		if e.File == nil {
			return fmt.Errorf("reading %s: empty entry", c.path)
		}
		syntax.Compact(e.File, len(cf.Entries) >= shareMinFiles)
		c.old[cacheKey{e.Lang, e.SHA}] = e.File
	}
	for i := range cf.Paths {
		c.oldPaths[cf.Paths[i].Path] = &cf.Paths[i]
	}
	c.savedNs = info.ModTime().UnixNano()
	return nil
}

// readCache decodes the messages of a cache file.
func readCache(dec *gob.Decoder) (*cacheFile, error) {
	var hdr cacheHeader
	if err := dec.Decode(&hdr); err != nil {
		return nil, err
	}
	if hdr.Entries < 0 || hdr.Paths < 0 {
		return nil, fmt.Errorf("negative counts")
	}
	cf := &cacheFile{Format: hdr.Format, Root: hdr.Root}
	for range hdr.Entries {
		var e cacheEntry
		if err := dec.Decode(&e); err != nil {
			return nil, err
		}
		cf.Entries = append(cf.Entries, e)
	}
	for range hdr.Paths {
		var r pathRecord
		if err := dec.Decode(&r); err != nil {
			return nil, err
		}
		cf.Paths = append(cf.Paths, r)
	}
	return cf, nil
}

// known returns the file rel as recorded when the walk's stat matches
// its record and the file was not modified within racyWindow of the
// record's save; nil otherwise (the file is read and hashed).
func (c *rootCache) known(rel string, info fs.FileInfo) *File {
	c.mu.Lock()
	rec := c.oldPaths[rel]
	c.mu.Unlock()
	mt := info.ModTime().UnixNano()
	if rec == nil || rec.Size != info.Size() || rec.ModTimeNs != mt || rec.ID != fileID(info) || mt >= c.savedNs-int64(racyWindow) {
		return nil
	}
	w := words.FromWords(rec.Words)
	if w == nil {
		return nil
	}
	c.mu.Lock()
	c.paths[rel] = rec
	c.trusted++
	c.mu.Unlock()
	return &File{
		Path: rel, Language: syntax.LanguageForPath(rel), Encoding: rec.Encoding,
		sha: rec.SHA, ByteSize: rec.Size, LineCount: rec.Lines, words: w,
	}
}

// remember records a file read from disk.
func (c *rootCache) remember(rel string, info fs.FileInfo, f *File) {
	rec := &pathRecord{Path: rel, Size: f.ByteSize, ModTimeNs: info.ModTime().UnixNano(), ID: fileID(info),
		SHA: f.SHA256(), Encoding: f.Encoding, Lines: f.LineCount, Words: f.words.Words()}
	c.mu.Lock()
	c.paths[rel] = rec
	c.dirty = true
	c.mu.Unlock()
}

// parseFunc returns a parse function that consults the cache first.
func (c *rootCache) parseFunc() parseFunc {
	return func(ctx context.Context, lang syntax.Language, sha string, text []byte) (*syntax.File, error) {
		if c != nil {
			if f := c.lookup(lang, sha); f != nil {
				return f, nil
			}
		}
		f, err := syntax.Parse(ctx, lang, text)
		if err != nil {
			return nil, err
		}
		// Before the file is shared: the index of a large tree holds
		// each distinct name once (see docs/index.md, "Memory").
		syntax.Compact(f, c != nil && c.share.Load())
		if c != nil {
			c.mu.Lock()
			c.used[cacheKey{lang, sha}] = f
			c.dirty = true
			c.miss++
			c.mu.Unlock()
		}
		return f, nil
	}
}

// loader returns the loader of files that parses through the cache
// (eagerly; a scan sets reread to make it lazy).
func (c *rootCache) loader() loader {
	ld := loader{parse: c.parseFunc()}
	if c != nil {
		ld.cached, ld.known, ld.remember = c.lookup, c.known, c.remember
	}
	return ld
}

// lookup returns the cached extraction of (lang, sha), or nil, without
// parsing.
func (c *rootCache) lookup(lang syntax.Language, sha string) *syntax.File {
	k := cacheKey{lang, sha}
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.used[k]
	if f == nil {
		f = c.old[k]
	}
	if f != nil {
		c.used[k] = f
		c.hits++
	}
	return f
}

// stats returns the hits and misses of this run, and the files trusted
// from their records without being read.
func (c *rootCache) stats() (hits, misses, trusted int) {
	if c == nil {
		return 0, 0, 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits, c.miss, c.trusted
}

// save writes the entries used in this run (dropping the ones no file
// needs any more) and the path records, when anything changed,
// atomically: a crash leaves the old file or the new one, never half of
// one. It encodes straight into the file through the checksum, so saving
// never holds a second copy of the cache in memory. A non-nil pause is
// called every pauseEvery entries, and may block: the scan's save yields
// to keystrokes and builds that start while it writes (see
// [Index.waitQuiet]); the bytes written do not depend on it.
func (c *rootCache) save(pause func()) error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	if !c.dirty && len(c.used) == len(c.old) && len(c.paths) == len(c.oldPaths) {
		c.mu.Unlock()
		return nil
	}
	cf := cacheFile{Format: FormatVersion, Root: c.root, Entries: make([]cacheEntry, 0, len(c.used)), Paths: make([]pathRecord, 0, len(c.paths))}
	for k, f := range c.used {
		cf.Entries = append(cf.Entries, cacheEntry{Lang: k.Lang, SHA: k.SHA, File: f})
	}
	for _, r := range c.paths {
		cf.Paths = append(cf.Paths, *r)
	}
	c.old, c.dirty = c.used, false
	c.used = make(map[cacheKey]*syntax.File, len(c.old))
	for k, v := range c.old {
		c.used[k] = v
	}
	c.mu.Unlock()
	// Sorted, so that the same index saves the same bytes.
	slices.SortFunc(cf.Entries, func(a, b cacheEntry) int {
		return cmp.Or(strings.Compare(string(a.Lang), string(b.Lang)), strings.Compare(a.SHA, b.SHA))
	})
	slices.SortFunc(cf.Paths, func(a, b pathRecord) int { return strings.Compare(a.Path, b.Path) })

	if err := os.MkdirAll(filepath.Dir(c.path), 0o700); err != nil {
		return fmt.Errorf("creating cache directory: %w", err)
	}
	removeStaleTemps(filepath.Dir(c.path))
	tmp, err := os.CreateTemp(filepath.Dir(c.path), ".tmp-*")
	if err != nil {
		return fmt.Errorf("writing index cache: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := writeCache(tmp, &cf, pause); err != nil {
		tmp.Close()
		return fmt.Errorf("writing index cache: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing index cache: %w", err)
	}
	if err := os.Rename(tmp.Name(), c.path); err != nil {
		return fmt.Errorf("writing index cache: %w", err)
	}
	return nil
}

// pauseEvery is how many entries a save writes between two calls of its
// pause function: about 5 ms of encoding on GOROOT/src, so that the first
// keystroke after a pause in the editing waits that long at most for the
// core the save held.
const pauseEvery = 64

// staleTemp is the age after which a temporary cache file is a leftover:
// a process that ended while saving (the server gives a save a grace
// period on exit, then leaves). A save in progress elsewhere is far
// younger: a cache of 100,000 files is written in seconds.
const staleTemp = time.Hour

// removeStaleTemps deletes the leftover temporary files of dir.
func removeStaleTemps(dir string) {
	names, _ := filepath.Glob(filepath.Join(dir, ".tmp-*"))
	for _, n := range names {
		if fi, err := os.Lstat(n); err == nil && fi.Mode().IsRegular() && time.Since(fi.ModTime()) > staleTemp {
			os.Remove(n)
		}
	}
}

// writeCache writes the magic, a checksum placeholder and the encoded
// cache, then the checksum in its place.
func writeCache(f *os.File, cf *cacheFile, pause func()) error {
	bw := bufio.NewWriterSize(f, 1<<16)
	if _, err := bw.WriteString(cacheMagic); err != nil {
		return err
	}
	if _, err := bw.Write(make([]byte, sha256.Size)); err != nil {
		return err
	}
	h := sha256.New()
	enc := gob.NewEncoder(io.MultiWriter(bw, h))
	if err := enc.Encode(cacheHeader{Format: cf.Format, Root: cf.Root, Entries: len(cf.Entries), Paths: len(cf.Paths)}); err != nil {
		return fmt.Errorf("encoding: %w", err)
	}
	for i := range cf.Entries {
		if pause != nil && i%pauseEvery == pauseEvery-1 {
			pause()
		}
		if err := enc.Encode(&cf.Entries[i]); err != nil {
			return fmt.Errorf("encoding: %w", err)
		}
	}
	for i := range cf.Paths {
		if err := enc.Encode(&cf.Paths[i]); err != nil {
			return fmt.Errorf("encoding: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	_, err := f.WriteAt(h.Sum(nil), int64(len(cacheMagic)))
	return err
}

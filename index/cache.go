package index

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"github.com/ctxd/ctxd/index/syntax"
)

// cacheMagic starts every cache file; a file without it is foreign.
const cacheMagic = "ctxd-index-cache\n"

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

// cacheFile is the persisted form of a root's cache.
type cacheFile struct {
	Format  int
	Root    string
	Entries []cacheEntry
}

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
	}
	if err := c.load(); err != nil && !errors.Is(err, os.ErrNotExist) {
		log.Warn("index cache discarded", "err", err)
		c.old = map[cacheKey]*syntax.File{}
	}
	return c
}

func (c *rootCache) load() error {
	data, err := os.ReadFile(c.path)
	if err != nil {
		return err
	}
	payload, ok := bytes.CutPrefix(data, []byte(cacheMagic))
	if !ok || len(payload) < sha256.Size {
		return fmt.Errorf("reading %s: not a ctxd index cache", c.path)
	}
	want, payload := payload[:sha256.Size], payload[sha256.Size:]
	if got := sha256.Sum256(payload); !bytes.Equal(got[:], want) {
		return fmt.Errorf("reading %s: checksum mismatch", c.path)
	}
	var cf cacheFile
	if err := gob.NewDecoder(bytes.NewReader(payload)).Decode(&cf); err != nil {
		return fmt.Errorf("decoding %s: %w", c.path, err)
	}
	if cf.Format != FormatVersion || cf.Root != c.root {
		return fmt.Errorf("reading %s: cache of another root or format", c.path)
	}
	for _, e := range cf.Entries {
		if e.File == nil {
			return fmt.Errorf("reading %s: empty entry", c.path)
		}
		c.old[cacheKey{e.Lang, e.SHA}] = e.File
	}
	return nil
}

// parseFunc returns a parse function that consults the cache first.
func (c *rootCache) parseFunc() parseFunc {
	return func(ctx context.Context, lang syntax.Language, sha string, text []byte) (*syntax.File, error) {
		k := cacheKey{lang, sha}
		if c != nil {
			c.mu.Lock()
			f := c.used[k]
			if f == nil {
				f = c.old[k]
			}
			if f != nil {
				c.used[k] = f
				c.hits++
				c.mu.Unlock()
				return f, nil
			}
			c.mu.Unlock()
		}
		f, err := syntax.Parse(ctx, lang, text)
		if err != nil {
			return nil, err
		}
		if c != nil {
			c.mu.Lock()
			c.used[k] = f
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
		ld.cached = c.lookup
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

// stats returns the hits and misses of this run.
func (c *rootCache) stats() (hits, misses int) {
	if c == nil {
		return 0, 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits, c.miss
}

// save writes the entries used in this run (dropping the ones no file
// needs any more) when anything changed, atomically: a crash leaves the old
// file or the new one, never half of one.
func (c *rootCache) save() error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	if !c.dirty && len(c.used) == len(c.old) {
		c.mu.Unlock()
		return nil
	}
	cf := cacheFile{Format: FormatVersion, Root: c.root, Entries: make([]cacheEntry, 0, len(c.used))}
	for k, f := range c.used {
		cf.Entries = append(cf.Entries, cacheEntry{Lang: k.Lang, SHA: k.SHA, File: f})
	}
	c.old, c.dirty = c.used, false
	c.used = make(map[cacheKey]*syntax.File, len(c.old))
	for k, v := range c.old {
		c.used[k] = v
	}
	c.mu.Unlock()

	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(&cf); err != nil {
		return fmt.Errorf("encoding index cache: %w", err)
	}
	sum := sha256.Sum256(buf.Bytes())
	if err := os.MkdirAll(filepath.Dir(c.path), 0o700); err != nil {
		return fmt.Errorf("creating cache directory: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(c.path), ".tmp-*")
	if err != nil {
		return fmt.Errorf("writing index cache: %w", err)
	}
	defer os.Remove(tmp.Name())
	for _, part := range [][]byte{[]byte(cacheMagic), sum[:], buf.Bytes()} {
		if _, err := tmp.Write(part); err != nil {
			tmp.Close()
			return fmt.Errorf("writing index cache: %w", err)
		}
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing index cache: %w", err)
	}
	if err := os.Rename(tmp.Name(), c.path); err != nil {
		return fmt.Errorf("writing index cache: %w", err)
	}
	return nil
}

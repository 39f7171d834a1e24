// Package tokens counts the tokens of text with a real BPE tokenizer, the
// one the model uses: o200k_base for current OpenAI models (and as ctxd's
// default for models whose tokenizer is not public), cl100k_base for the
// GPT-4 / GPT-3.5 generation.
//
// The main types are [Estimator], one encoding's counter, chosen with
// [ForModel], and [Cache], a memo of counts keyed by text hash that lets a
// status bar re-estimate a bundle on every edit. Counting is deterministic:
// the vocabularies are compiled into the binary (nothing is downloaded) and
// the library version is pinned, recorded in every budget report via
// [Estimator.Note].
package tokens

import (
	"crypto/sha256"
	"strings"
	"sync"

	"github.com/tiktoken-go/tokenizer/codec"
)

// LibraryVersion is the pinned version of github.com/tiktoken-go/tokenizer;
// a test checks it against go.mod so that an upgrade cannot change counts
// without changing the estimator's recorded version.
const LibraryVersion = "v0.10.0"

// Encoding names.
const (
	O200kBase  = "o200k_base"
	Cl100kBase = "cl100k_base"
)

// Estimator counts tokens in one encoding. It is safe for concurrent use.
type Estimator struct {
	name  string
	codec *codec.Codec
}

var (
	o200kOnce, cl100kOnce sync.Once
	o200k, cl100k         *Estimator
)

// get builds each codec once: building one compiles its split regexp and
// loads a vocabulary of 100k–200k entries.
func get(name string) *Estimator {
	if name == Cl100kBase {
		cl100kOnce.Do(func() { cl100k = &Estimator{name: Cl100kBase, codec: codec.NewCl100kBase()} })
		return cl100k
	}
	o200kOnce.Do(func() { o200k = &Estimator{name: O200kBase, codec: codec.NewO200kBase()} })
	return o200k
}

// cl100kPrefixes are the model names that use cl100k_base. Everything else
// uses o200k_base: the current OpenAI models use it, and for models whose
// tokenizer is not public (Anthropic, Google, local models) it is the
// closest public estimate; the choice is recorded in the budget report.
var cl100kPrefixes = []string{"gpt-4-", "gpt-3.5", "gpt-35", "text-embedding-ada-002", "text-embedding-3"}

// EncodingFor returns the encoding ctxd uses for a model name. A leading
// "provider/" (openai/gpt-4-turbo, as routers write it) is not part of
// the name.
func EncodingFor(model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	m = m[strings.LastIndexByte(m, '/')+1:]
	if m == "gpt-4" {
		return Cl100kBase
	}
	for _, p := range cl100kPrefixes {
		if strings.HasPrefix(m, p) && !strings.HasPrefix(m, "gpt-4o") {
			return Cl100kBase
		}
	}
	return O200kBase
}

// ForModel returns the estimator for a model name.
func ForModel(model string) *Estimator { return get(EncodingFor(model)) }

// ByName returns the estimator of an encoding name (o200k_base or
// cl100k_base); ok is false for another name.
func ByName(name string) (*Estimator, bool) {
	switch name {
	case O200kBase, Cl100kBase:
		return get(name), true
	}
	return nil, false
}

// Name is the encoding name.
func (e *Estimator) Name() string { return e.name }

// Note is the line that identifies the estimator in budget_report.notes.
func (e *Estimator) Note() string {
	return "estimator: tiktoken-go/tokenizer " + LibraryVersion + " " + e.name + " (BPE, exact count of the rendered blocks)"
}

// Count returns the number of tokens of s. Special-token text such as
// "<|endoftext|>" is counted as ordinary text, which is how an API counts
// user content. Invalid UTF-8 is counted byte by byte, never rejected.
func (e *Estimator) Count(s string) int {
	n, err := e.codec.Count(s)
	if err != nil {
		// The codec's default error mode never fails; fall back to one
		// token per byte, an upper bound, rather than undercount.
		return len(s)
	}
	return n
}

// minCached is the shortest text the cache keeps: below it hashing the
// text costs about as much as counting it.
const minCached = 32

// Cache memoizes counts by (encoding, sha256 of the text). It is safe for
// concurrent use. The zero Cache is not usable; call NewCache.
type Cache struct {
	mu    sync.Mutex
	max   int
	items map[cacheKey]int
}

type cacheKey struct {
	enc string
	sum [sha256.Size]byte
}

// NewCache returns a cache holding at most max entries (max <= 0 means
// 65536); when full it is cleared, which costs recounts, never
// correctness.
func NewCache(max int) *Cache {
	if max <= 0 {
		max = 1 << 16
	}
	return &Cache{max: max, items: map[cacheKey]int{}}
}

// Count returns e.Count(s), from the cache when known. A nil Cache counts
// directly.
func (c *Cache) Count(e *Estimator, s string) int {
	if c == nil || len(s) < minCached {
		return e.Count(s)
	}
	k := cacheKey{enc: e.name, sum: sha256.Sum256([]byte(s))}
	c.mu.Lock()
	n, ok := c.items[k]
	c.mu.Unlock()
	if ok {
		return n
	}
	n = e.Count(s)
	c.mu.Lock()
	if len(c.items) >= c.max {
		clear(c.items)
	}
	c.items[k] = n
	c.mu.Unlock()
	return n
}

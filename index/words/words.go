// Package words is the byte-level prefilter of a demand-driven build: it
// splits text into words ([Split], [Each]) and keeps, per file, a small
// Bloom filter of its words ([Filter]), so that "which files may mention
// this name" is answered for a whole tree without parsing it.
//
// A word is a maximal run of ASCII letters, digits, '_' and '$', and of
// bytes ≥ 0x80 (so a UTF-8 identifier is one word, whatever its script).
// Everything else separates words. Comments and strings are not skipped:
// a prefilter may answer "maybe" for a file that does not use a name, never
// "no" for one that does.
package words

import (
	"bytes"
	"math"
	"math/bits"
	"slices"
	"strings"
	"sync"
)

// isWord is the table of word bytes.
var isWord = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '$' || c >= 0x80
	}
	return t
}()

// IsWordByte reports whether c is a byte of a word.
func IsWordByte(c byte) bool { return isWord[c] }

// Each calls fn for every word of text, in order (repeats included). The
// slice passed to fn aliases text.
func Each(text []byte, fn func(w []byte)) {
	start := -1
	for i, c := range text {
		if isWord[c] {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			fn(text[start:i])
			start = -1
		}
	}
	if start >= 0 {
		fn(text[start:])
	}
}

// isPath is the table of the bytes that join words into a path: an import
// path or module name as written ("golang.org/x/net/http2").
var isPath = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = isWord[c] || c == '/' || c == '.' || c == '-'
	}
	return t
}()

// EachPath calls fn for every path of text: a maximal run of word bytes
// and '/', '.', '-' that holds a '/' and a word byte (repeats included).
func EachPath(text []byte, fn func(p []byte)) {
	start, slash, word := -1, false, false
	for i, c := range text {
		if isPath[c] {
			if start < 0 {
				start, slash, word = i, false, false
			}
			slash = slash || c == '/'
			word = word || isWord[c]
			continue
		}
		if start >= 0 && slash && word {
			fn(text[start:i])
		}
		start = -1
	}
	if start >= 0 && slash && word {
		fn(text[start:])
	}
}

// RelativeTo returns the token a filter holds when its text has a relative
// path ("./x", "../y/x") whose last element is base: relative imports are
// rare in some languages, and their words alone are common, as is a
// relative path of any kind ("./testdata") in a large tree.
func RelativeTo(base string) string { return "./" + base }

// relativeBase returns the last element of relative path p; ".." for
// one that ends in "." or "..", whose directory's name the text does not
// say (RelativeTo("..") stands for them all).
func relativeBase(p []byte) []byte {
	p = bytes.TrimRight(p, "/")
	b := p[bytes.LastIndexByte(p, '/')+1:]
	if len(b) == 0 || string(b) == "." {
		return []byte("..")
	}
	return b
}

// IsPath reports whether s is one path token of EachPath: path bytes
// only, with a '/'.
func IsPath(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isPath[s[i]] {
			return false
		}
	}
	return strings.Contains(s, "/")
}

// Split returns the distinct words of s in order of first appearance; nil
// when s has none ("+", "::").
func Split(s string) []string {
	var out []string
	Each([]byte(s), func(w []byte) {
		for _, o := range out {
			if o == string(w) {
				return
			}
		}
		out = append(out, string(w))
	})
	return out
}

// Filter is a Bloom filter of the words of one text: MayContain never
// answers false for a word of the text. It is immutable once built and
// three bytes per distinct word.
type Filter struct {
	bits []uint64 // filterWords(distinct tokens) words, four probes per token in one
}

// hash is FNV-1a over the word, finished with MurmurHash3's 64-bit mix:
// FNV's low bits depend only on the low bits of its state, and the two
// probes come from the low and the high half. A fixed function, not
// hash/maphash, because filters are persisted across processes.
func hash(w []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range w {
		h ^= uint64(c)
		h *= 1099511628211
	}
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

// NewFilter builds the filter of text's words.
func NewFilter(text []byte) *Filter {
	// Each token is hashed once, then the filter is sized from their
	// number: one scan for words, one for paths.
	hs := hashPool.Get().(*[]uint64)
	defer hashPool.Put(hs)
	h := (*hs)[:0]
	Each(text, func(w []byte) { h = append(h, hash(w)) })
	// Paths too, so that an import path is tested whole: its words
	// ("go", "constant") are common, the path is not.
	var rel []byte
	EachPath(text, func(p []byte) {
		h = append(h, hash(p))
		if bytes.HasPrefix(p, []byte("./")) || bytes.HasPrefix(p, []byte("../")) {
			rel = append(append(rel[:0], "./"...), relativeBase(p)...)
			h = append(h, hash(rel))
		}
	})
	*hs = h
	f := &Filter{bits: make([]uint64, filterWords(distinct(h)))}
	for _, x := range h {
		f.add(x)
	}
	return f
}

// NewFilterOf builds the filter of the words each gives to add: the words
// of part of a text (see syntax.GoDeclWords), where NewFilter takes them
// all, paths aside.
func NewFilterOf(each func(add func(w []byte))) *Filter {
	hs := hashPool.Get().(*[]uint64)
	defer hashPool.Put(hs)
	h := (*hs)[:0]
	each(func(w []byte) { h = append(h, hash(w)) })
	*hs = h
	f := &Filter{bits: make([]uint64, filterWords(distinct(h)))}
	for _, x := range h {
		f.add(x)
	}
	return f
}

// bitsPerToken and the four probes of a token in one 64-bit block keep
// false positives near 0.2% (0.175% for a uniform hash, counting the
// uneven load of the blocks): about the rate of the earlier layout,
// which gave each occurrence eight bits rounded up to a power of two
// (about fifty bits per distinct token, two probes), at under half the
// memory: 20 MB of filters for GOROOT/src became 10, 116 MB for the
// synthetic 100,000-file repository 55.
const (
	bitsPerToken = 24
	maxWords     = 1 << 15 // 256 KiB: a megabyte of distinct tokens
)

// filterWords is the size in 64-bit words of the filter of n distinct
// tokens.
func filterWords(n int) int {
	return min(max(1, (n*bitsPerToken+63)/64), maxWords)
}

// distinct estimates the number of distinct values among the hashes h
// (linear counting over a bitmap of at least twice as many bits as
// values, within a few percent), without sorting them: the filter is
// sized by distinct tokens, and a source file's tokens are four in five
// repeats.
func distinct(h []uint64) int {
	m := 64
	for m < 2*len(h) {
		m <<= 1
	}
	bmp := bitmapPool.Get().(*[]uint64)
	defer bitmapPool.Put(bmp)
	bm := slices.Grow((*bmp)[:0], m/64)[:m/64]
	clear(bm)
	*bmp = bm
	for _, x := range h {
		i := (x >> 24) & uint64(m-1)
		bm[i>>6] |= 1 << (i & 63)
	}
	set := 0
	for _, w := range bm {
		set += bits.OnesCount64(w)
	}
	if set == m {
		return len(h)
	}
	est := -float64(m) * math.Log(float64(m-set)/float64(m))
	return min(len(h), int(est+0.5))
}

// bitmapPool holds the bitmaps of distinct between files.
var bitmapPool = sync.Pool{New: func() any { return new([]uint64) }}

// hashPool holds the token hashes of NewFilter between files.
var hashPool = sync.Pool{New: func() any { return new([]uint64) }}

// The filter is blocked: the four probes of a word fall in one 64-bit
// word of the filter, chosen by the hash's high half (scaled to the
// filter's size, which need not be a power of two), so a test costs one
// memory access. A demand-driven build tests thousands of names against
// thousands of files.
func (f *Filter) mask(h uint64) (int, uint64) {
	i := int((h >> 32) * uint64(len(f.bits)) >> 32)
	return i, 1<<(h&63) | 1<<(h>>6&63) | 1<<(h>>12&63) | 1<<(h>>18&63)
}

func (f *Filter) add(h uint64) {
	i, m := f.mask(h)
	f.bits[i] |= m
}

func (f *Filter) has(h uint64) bool {
	i, m := f.mask(h)
	return f.bits[i]&m == m
}

// Key is a list of words prepared for testing many filters.
type Key []uint64

// KeyOf prepares the words ws.
func KeyOf(ws []string) Key {
	k := make(Key, len(ws))
	for i, w := range ws {
		k[i] = hash([]byte(w))
	}
	return k
}

// MayContain reports whether every word (or path, see EachPath) of ws may
// occur in the text; a
// nil Filter (text never seen) may contain anything.
func (f *Filter) MayContain(ws []string) bool { return f.MayContainKey(KeyOf(ws)) }

// MayContainKey is MayContain of prepared words.
func (f *Filter) MayContainKey(k Key) bool {
	if f == nil {
		return true
	}
	for _, h := range k {
		if !f.has(h) {
			return false
		}
	}
	return true
}

// Bytes is the filter's size in bytes.
func (f *Filter) Bytes() int {
	if f == nil {
		return 0
	}
	return len(f.bits) * 8
}

// Words returns the filter's bit words, for persisting it.
func (f *Filter) Words() []uint64 { return f.bits }

// FromWords rebuilds a persisted filter; nil when it is empty or larger
// than a filter can be (a corrupt record: the file is treated as never
// seen).
func FromWords(ws []uint64) *Filter {
	if len(ws) == 0 || len(ws) > maxWords {
		return nil
	}
	return &Filter{bits: ws}
}

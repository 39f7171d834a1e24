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
	"math/bits"
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

// Relative is the token a filter holds when its text has a relative path
// ("./x", "../x/y"): relative imports are rare in some languages, and
// their words alone are common.
const Relative = "./"

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
// about one byte per distinct word.
type Filter struct {
	bits []uint64 // a power of two of bits
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
	rel := hash([]byte(Relative))
	EachPath(text, func(p []byte) {
		h = append(h, hash(p))
		if bytes.HasPrefix(p, []byte("./")) || bytes.HasPrefix(p, []byte("../")) {
			h = append(h, rel)
		}
	})
	*hs = h
	// Repeats are most of a source file's words (about four in five):
	// eight bits per occurrence, about forty per distinct word, keep false
	// positives near one percent with two probes in one block.
	size := 64
	for size < 8*len(h) && size < 1<<21 {
		size <<= 1
	}
	f := &Filter{bits: make([]uint64, size/64)}
	for _, x := range h {
		f.add(x)
	}
	return f
}

// hashPool holds the token hashes of NewFilter between files.
var hashPool = sync.Pool{New: func() any { return new([]uint64) }}

// The filter is blocked: both probes of a word fall in one 64-bit word of
// the filter, chosen by the hash's high bits, so a test costs one memory
// access. A demand-driven build tests thousands of names against
// thousands of files.
func (f *Filter) mask(h uint64) (int, uint64) {
	i := int(h>>40) & (len(f.bits) - 1)
	return i, 1<<(h&63) | 1<<(h>>6&63)
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

// FromWords rebuilds a persisted filter; nil when the length is not a
// power of two (a corrupt record: the file is treated as never seen).
func FromWords(ws []uint64) *Filter {
	if len(ws) == 0 || bits.OnesCount(uint(len(ws))) != 1 {
		return nil
	}
	return &Filter{bits: ws}
}

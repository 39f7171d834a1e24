// Package buffer holds the text of an open editor document as a [Text]:
// an immutable sequence of chunks that an edit replaces only where it
// lands.
//
// An editor sends a change per keystroke, and the index keeps every
// version it publishes: with a flat []byte, each change copied the whole
// text, so typing into a 5,000-line file produced its size in garbage per
// keystroke (300 MB a second during an edit storm), and the collections
// that garbage caused, with their assists, were the tail of the didChange
// latency. [Text.Replace] copies the one or two chunks the edit touches
// and the list of chunk headers, and shares every other chunk with the
// version it came from: chunks are sized near the square root of the text
// times the header size, so both copies stay small (a few kilobytes for a
// 150 KB file, about 100 KB for 64 MiB).
//
// A Text answers what the notification loop asks of every version without
// flattening it: its length, its line count, the bytes of one line (for
// converting editor positions) and its SHA-256. [Text.Bytes] flattens it
// once, for readers that need the whole text (a parse, a build).
//
// Lines break at "\n", "\r\n" and a lone "\r", as everywhere in ctxd. No
// chunk boundary ever falls between the "\r" and "\n" of a "\r\n", so each
// chunk's count of line breaks is exact and the counts add up.
package buffer

import (
	"bytes"
	"crypto/sha256"
	"math"
	"sync/atomic"

	"github.com/ctxd/ctxd/index/classify"
)

// Text is an immutable text in chunks. The zero Text and a nil *Text are
// the empty text. Every method is safe for concurrent use.
type Text struct {
	chunks []chunk
	size   int
	breaks int // line breaks in the whole text
	// flat is the whole text in one slice: the slice New was given, or
	// Bytes' copy, made once.
	flat atomic.Pointer[[]byte]
}

// chunk is a piece of a Text. Its bytes are never modified and never
// appended to: a chunk may be shared by many Texts, and a slice of an
// array New was given.
type chunk struct {
	b      []byte
	breaks int
}

// New returns b as a Text. It keeps b rather than copying it (Bytes
// returns it as it is): the caller must not modify b afterwards.
func New(b []byte) *Text {
	t := &Text{size: len(b)}
	if len(b) == 0 {
		return t
	}
	t.chunks = split(nil, b, target(len(b)))
	t.breaks = sumBreaks(t.chunks)
	t.flat.Store(&b)
	return t
}

// FromString returns a Text holding a copy of s.
func FromString(s string) *Text { return New([]byte(s)) }

// Len returns the text's size in bytes.
func (t *Text) Len() int {
	if t == nil {
		return 0
	}
	return t.size
}

// LineCount returns the number of lines: one more than the line breaks,
// so "" has 1 line, "a\n" has 2 and "a\r\nb" has 2.
func (t *Text) LineCount() int {
	if t == nil {
		return 1
	}
	return t.breaks + 1
}

// Bytes returns the whole text in one slice, flattened on the first call
// and kept: callers must not modify it.
func (t *Text) Bytes() []byte {
	if t == nil {
		return []byte{}
	}
	if p := t.flat.Load(); p != nil {
		return *p
	}
	b := make([]byte, 0, t.size)
	for _, c := range t.chunks {
		b = append(b, c.b...)
	}
	// Two readers may flatten at once; both copies are the same text,
	// and the first one stored is the one every later call returns.
	if !t.flat.CompareAndSwap(nil, &b) {
		return *t.flat.Load()
	}
	return b
}

// Sum256 returns the SHA-256 of the text, hashed chunk by chunk.
func (t *Text) Sum256() [sha256.Size]byte {
	var sum [sha256.Size]byte
	h := sha256.New()
	if t != nil {
		for _, c := range t.chunks {
			h.Write(c.b)
		}
	}
	h.Sum(sum[:0])
	return sum
}

// Equal reports whether a and b hold the same bytes.
func Equal(a, b *Text) bool {
	if a.Len() != b.Len() {
		return false
	}
	if a == b || a.Len() == 0 {
		return true
	}
	ac, bc := a.chunks, b.chunks
	var ab, bb []byte
	for {
		if len(ab) == 0 {
			if len(ac) == 0 {
				return true // same length, so b is exhausted too
			}
			ab, ac = ac[0].b, ac[1:]
		}
		if len(bb) == 0 {
			bb, bc = bc[0].b, bc[1:]
		}
		n := min(len(ab), len(bb))
		if !bytes.Equal(ab[:n], bb[:n]) {
			return false
		}
		ab, bb = ab[n:], bb[n:]
	}
}

// Line returns line n (counting from 0): the offset of its first byte and
// its bytes without the line break; ok is false past the last line. The
// bytes are a slice of a chunk when the line lies in one, which is the
// common case, and a copy otherwise. Callers must not modify them.
func (t *Text) Line(n int) (start int, line []byte, ok bool) {
	if n < 0 || n >= t.LineCount() {
		return 0, nil, false
	}
	// Line n starts in chunk k at pos: just past break n (counting from
	// 1), which chunk k holds, or at the start of the text.
	k, off, pos := 0, 0, 0
	if n > 0 {
		seen := 0
		for seen+t.chunks[k].breaks < n {
			seen += t.chunks[k].breaks
			off += len(t.chunks[k].b)
			k++
		}
		pos = afterBreak(t.chunks[k].b, n-seen)
		if pos == len(t.chunks[k].b) {
			off, k, pos = off+pos, k+1, 0
		}
	}
	start = off + pos
	if k == len(t.chunks) {
		return start, []byte{}, true // the empty line after a final break, or of an empty text
	}
	rest := t.chunks[k].b[pos:]
	if i := bytes.IndexAny(rest, "\r\n"); i >= 0 {
		return start, rest[:i:i], true
	}
	// The line runs on into the next chunks.
	out := append([]byte{}, rest...)
	for k++; k < len(t.chunks); k++ {
		b := t.chunks[k].b
		if i := bytes.IndexAny(b, "\r\n"); i >= 0 {
			return start, append(out, b[:i]...), true
		}
		out = append(out, b...)
	}
	return start, out, true
}

// afterBreak returns the index just past the m-th line break of b (m ≥ 1;
// b holds at least m breaks).
func afterBreak(b []byte, m int) int {
	i := 0
	for {
		end := i + bytes.IndexAny(b[i:], "\r\n")
		i = end + 1
		if b[end] == '\r' && i < len(b) && b[i] == '\n' {
			i++
		}
		if m--; m == 0 {
			return i
		}
	}
}

// Replace returns the text with bytes [start, end) replaced by s. It
// panics unless 0 ≤ start ≤ end ≤ Len(): callers check an editor's ranges
// first (see the index's ApplyEdits).
func (t *Text) Replace(start, end int, s string) *Text {
	if start < 0 || start > end || end > t.Len() {
		panic("buffer: Replace range out of bounds")
	}
	if t.Len() == 0 {
		return FromString(s)
	}
	size := t.size - (end - start) + len(s)
	want := target(size)
	chunks := t.chunks
	// The chunks the edit touches: i holds start (the last chunk when
	// start is the end of the text), j holds end (which may be j's end).
	i, iOff := 0, 0
	for i < len(chunks)-1 && iOff+len(chunks[i].b) <= start {
		iOff += len(chunks[i].b)
		i++
	}
	j, jOff := i, iOff
	for j < len(chunks)-1 && jOff+len(chunks[j].b) < end {
		jOff += len(chunks[j].b)
		j++
	}
	head, tail := chunks[i].b[:start-iOff], chunks[j].b[end-jOff:]
	// The rebuilt span is chunks[lo:i], head, s, tail and chunks[j+1:hi+1]:
	// neighbours join it while it is small, so that deletions leave no
	// crumbs, and when its edge would split a "\r\n".
	lo, hi := i, j
	n := len(head) + len(s) + len(tail)
	for n < want/2 && (hi+1 < len(chunks) || lo > 0) {
		if hi+1 < len(chunks) {
			hi++
			n += len(chunks[hi].b)
		} else {
			lo--
			n += len(chunks[lo].b)
		}
	}
	if lo > 0 && last(chunks[lo-1].b) == '\r' && spanFirst(chunks, lo, i, j, hi, head, s, tail) == '\n' {
		lo--
		n += len(chunks[lo].b)
	}
	b := make([]byte, 0, n)
	for _, c := range chunks[lo:i] {
		b = append(b, c.b...)
	}
	b = append(b, head...)
	b = append(b, s...)
	b = append(b, tail...)
	for _, c := range chunks[j+1 : hi+1] {
		b = append(b, c.b...)
	}
	if hi+1 < len(chunks) && last(b) == '\r' && chunks[hi+1].b[0] == '\n' {
		hi++
		b = append(b, chunks[hi].b...)
	}
	next := make([]chunk, 0, lo+len(chunks)-hi+len(b)/want+2)
	next = append(next, chunks[:lo]...)
	next = split(next, b, want)
	next = append(next, chunks[hi+1:]...)
	return &Text{chunks: next, size: size, breaks: sumBreaks(next)}
}

// spanFirst returns the first byte of the span Replace rebuilds
// (chunks[lo:i], head, s, tail, then the chunks up to hi), or of the chunk
// after it when the span is empty; 0 at the end of the text. Chunks are
// never empty.
func spanFirst(chunks []chunk, lo, i, j, hi int, head []byte, s string, tail []byte) byte {
	switch {
	case lo < i:
		return chunks[lo].b[0]
	case len(head) > 0:
		return head[0]
	case len(s) > 0:
		return s[0]
	case len(tail) > 0:
		return tail[0]
	case j < hi:
		return chunks[j+1].b[0]
	case hi+1 < len(chunks):
		return chunks[hi+1].b[0]
	}
	return 0
}

// last returns b's last byte, or 0 for an empty b.
func last(b []byte) byte {
	if len(b) == 0 {
		return 0
	}
	return b[len(b)-1]
}

// target is the chunk size for a text of size bytes: near the square root
// of size times the size of a chunk header, which balances what an edit
// copies (a chunk or two, and every header), and never under minChunk.
func target(size int) int {
	const header = 32 // unsafe.Sizeof(chunk{}) on 64-bit platforms
	return max(minChunk, int(math.Sqrt(float64(size)*header)))
}

// minChunk is the smallest chunk size a text aims for.
const minChunk = 512

// split appends b to dst as chunks of about want bytes (b itself when it
// is at most twice that), never cutting a "\r\n".
func split(dst []chunk, b []byte, want int) []chunk {
	if len(b) == 0 {
		return dst
	}
	if len(b) <= 2*want {
		return append(dst, chunk{b: b[:len(b):len(b)], breaks: countBreaks(b)})
	}
	pieces := (len(b) + want - 1) / want
	size := len(b) / pieces
	for len(b) > 0 {
		cut := min(size, len(b))
		if len(b)-cut < size/2 {
			cut = len(b) // no crumb at the end
		}
		if cut < len(b) && b[cut-1] == '\r' && b[cut] == '\n' {
			cut++
		}
		dst = append(dst, chunk{b: b[:cut:cut], breaks: countBreaks(b[:cut])})
		b = b[cut:]
	}
	return dst
}

// countBreaks counts b's line breaks: every "\n", and every "\r" that is
// not the first half of a "\r\n", the breaks classify.LineCount counts.
func countBreaks(b []byte) int { return classify.LineCount(b) - 1 }

func sumBreaks(chunks []chunk) int {
	n := 0
	for _, c := range chunks {
		n += c.breaks
	}
	return n
}

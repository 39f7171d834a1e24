package buffer

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// refLine is line n of b as ctxd splits lines everywhere ("\n", "\r\n" and
// a lone "\r" break): the model Text.Line is checked against.
func refLine(b []byte, n int) (start int, line []byte, ok bool) {
	for ; ; n-- {
		i := bytes.IndexAny(b[start:], "\r\n")
		if n == 0 {
			if i < 0 {
				return start, b[start:], true
			}
			return start, b[start : start+i], true
		}
		if i < 0 {
			return 0, nil, false
		}
		end := start + i
		start = end + 1
		if b[end] == '\r' && start < len(b) && b[start] == '\n' {
			start++
		}
	}
}

// check compares every answer of t with the flat text want, and t's
// chunks with the invariants its answers rely on.
func check(t *testing.T, got *Text, want []byte) {
	t.Helper()
	if !bytes.Equal(got.Bytes(), want) {
		t.Fatalf("Bytes() = %q, want %q", got.Bytes(), want)
	}
	if got.Len() != len(want) {
		t.Errorf("Len() = %d, want %d", got.Len(), len(want))
	}
	if n, w := got.LineCount(), countBreaks(want)+1; n != w {
		t.Errorf("LineCount() = %d, want %d", n, w)
	}
	if got.Sum256() != sha256.Sum256(want) {
		t.Errorf("Sum256() differs from the flat text's")
	}
	if !Equal(got, New(want)) || !Equal(New(want), got) {
		t.Errorf("Equal with a flat copy = false")
	}
	step := max(1, got.LineCount()/100)
	for n := -1; n <= got.LineCount(); n += step {
		s, l, ok := got.Line(n)
		ws, wl, wok := refLine(want, n)
		if n < 0 {
			ws, wl, wok = 0, nil, false
		}
		if s != ws || !bytes.Equal(l, wl) || ok != wok {
			t.Fatalf("Line(%d) = %d, %q, %v; want %d, %q, %v", n, s, l, ok, ws, wl, wok)
		}
	}
	size, breaks := 0, 0
	for k, c := range got.chunks {
		if len(c.b) == 0 {
			t.Fatalf("chunk %d is empty", k)
		}
		if c.breaks != countBreaks(c.b) {
			t.Fatalf("chunk %d counts %d breaks, holds %d", k, c.breaks, countBreaks(c.b))
		}
		if k > 0 && last(got.chunks[k-1].b) == '\r' && c.b[0] == '\n' {
			t.Fatalf("a \"\\r\\n\" straddles chunks %d and %d", k-1, k)
		}
		size += len(c.b)
		breaks += c.breaks
	}
	if size != got.size || breaks != got.breaks {
		t.Fatalf("chunks hold %d bytes and %d breaks, the text says %d and %d", size, breaks, got.size, got.breaks)
	}
}

func TestReplace(t *testing.T) {
	long := strings.Repeat("line of text\n", 2000) // many chunks
	crlf := strings.Repeat("ab\r\n", 3000)
	tests := []struct {
		name       string
		text       string
		start, end int
		s          string
	}{
		{"empty text", "", 0, 0, "hello\nworld"},
		{"to empty", "abc", 0, 3, ""},
		{"insert at start", long, 0, 0, "x"},
		{"insert at end", long, len(long), len(long), "tail\n"},
		{"insert in the middle", long, len(long) / 2, len(long) / 2, "x"},
		{"delete across many chunks", long, 100, len(long) - 100, ""},
		{"replace everything", long, 0, len(long), "short"},
		{"paste larger than a chunk", long, 7, 7, strings.Repeat("pasted\r\n", 5000)},
		{"join a CR to a following LF", crlf, 2, 3, ""},
		{"split a CRLF", crlf, 3, 3, "x"},
		{"insert LF after a CR", "a\rb" + long, 2, 2, "\n"},
		{"lone CRs", strings.Repeat("a\r", 4000), 4000, 4000, "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := New([]byte(tt.text))
			check(t, old, []byte(tt.text))
			got := old.Replace(tt.start, tt.end, tt.s)
			want := tt.text[:tt.start] + tt.s + tt.text[tt.end:]
			check(t, got, []byte(want))
			// The old version is untouched.
			check(t, old, []byte(tt.text))
		})
	}
}

// TestReplaceShares: a keystroke in a large text copies a chunk or two,
// not the text; every other chunk is the old version's own.
func TestReplaceShares(t *testing.T) {
	text := New([]byte(strings.Repeat("func f() { return }\n", 7500))) // 150 KB
	if len(text.chunks) < 20 {
		t.Fatalf("a %d-byte text has %d chunks", text.Len(), len(text.chunks))
	}
	for _, at := range []int{0, 1, text.Len() / 3, text.Len() - 1, text.Len()} {
		next := text.Replace(at, at, "x")
		old := map[*byte]bool{}
		for _, c := range text.chunks {
			old[&c.b[0]] = true
		}
		copied := 0
		for _, c := range next.chunks {
			if !old[&c.b[0]] {
				copied += len(c.b)
			}
		}
		if limit := 4 * target(next.Len()); copied > limit {
			t.Errorf("typing at %d copied %d bytes of a %d-byte text (limit %d)", at, copied, next.Len(), limit)
		}
	}
}

// TestChunkEdges: edits at a chunk's edge that would leave a "\r\n"
// across two chunks, or a crumb of a chunk, rebuild the neighbour too.
func TestChunkEdges(t *testing.T) {
	lfs := New([]byte(strings.Repeat("\n", 20000)))
	first := len(lfs.chunks[0].b)
	// A "\r" that ends chunk 0 while chunk 1 starts with "\n".
	check(t, lfs.Replace(first-1, first, "\r"), []byte(strings.Repeat("\n", first-1)+"\r"+strings.Repeat("\n", 20000-first)))
	// A "\n" inserted where chunk 1 starts, after a "\r" that ends chunk 0.
	cr := lfs.Replace(first-1, first, "\r")
	check(t, cr.Replace(first, first, "\n"), []byte(strings.Repeat("\n", first-1)+"\r\n"+strings.Repeat("\n", 20000-first)))

	// Every chunk cut down to one byte, from the last one back: the
	// crumbs join their neighbours.
	text := New([]byte(strings.Repeat("func f() { return }\n", 7500)))
	offs := []int{0}
	for _, c := range text.chunks {
		offs = append(offs, offs[len(offs)-1]+len(c.b))
	}
	for k := len(text.chunks) - 1; k >= 0; k-- {
		text = text.Replace(offs[k]+1, offs[k+1], "")
	}
	if limit := 1 + 2*text.Len()/target(text.Len()); len(text.chunks) > limit {
		t.Errorf("%d bytes left in %d chunks, want at most %d", text.Len(), len(text.chunks), limit)
	}
}

// TestRandomEdits replays random edits against a flat model.
func TestRandomEdits(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "\n", "\r", "\r\n", "é", "xyz\n", strings.Repeat("chunk of text ", 100)}
	for round := range 20 {
		flat := []byte{}
		text := New(nil)
		for step := range 300 {
			start := r.IntN(len(flat) + 1)
			end := start + r.IntN(min(len(flat)-start, 200)+1)
			if r.IntN(50) == 0 {
				end = start + r.IntN(len(flat)-start+1) // a large deletion
			}
			var s strings.Builder
			for range r.IntN(5) {
				s.WriteString(alphabet[r.IntN(len(alphabet))])
			}
			text = text.Replace(start, end, s.String())
			flat = append(append(append([]byte{}, flat[:start]...), s.String()...), flat[end:]...)
			if step%25 == 0 {
				t.Run(fmt.Sprintf("round %d step %d", round, step), func(t *testing.T) { check(t, text, flat) })
			}
		}
		check(t, text, flat)
	}
}

func TestNilAndEmpty(t *testing.T) {
	var zero *Text
	if diff := cmp.Diff([]any{0, 1, []byte{}}, []any{zero.Len(), zero.LineCount(), zero.Bytes()}); diff != "" {
		t.Errorf("nil Text (-want +got):\n%s", diff)
	}
	if !Equal(zero, New(nil)) || Equal(zero, FromString("a")) {
		t.Error("Equal of the empty texts")
	}
	check(t, &Text{}, []byte{})
	check(t, zero.Replace(0, 0, "a\r\nb"), []byte("a\r\nb"))
}

func TestReplacePanicsOutOfRange(t *testing.T) {
	for _, r := range [][2]int{{-1, 0}, {2, 1}, {0, 4}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Replace(%d, %d) of a 3-byte text did not panic", r[0], r[1])
				}
			}()
			FromString("abc").Replace(r[0], r[1], "")
		}()
	}
}

// FuzzReplace: any sequence of edits gives the flat model's text, lines
// and hash.
func FuzzReplace(f *testing.F) {
	f.Add([]byte("a\r\nb\rc\n"), []byte{1, 2, 0, 5, 3})
	f.Add([]byte(strings.Repeat("x\r\n", 700)), []byte{200, 0, 10, 255, 255, 7})
	f.Fuzz(func(t *testing.T, text []byte, ops []byte) {
		flat := append([]byte{}, text...)
		cur := New(append([]byte{}, text...))
		for len(ops) >= 3 {
			start := int(ops[0]) * len(flat) / 256
			end := min(start+int(ops[1]), len(flat))
			s := strings.Repeat(string("a\r\n"[int(ops[2])%3]), int(ops[2])/3%64)
			ops = ops[3:]
			cur = cur.Replace(start, end, s)
			flat = append(append(append([]byte{}, flat[:start]...), s...), flat[end:]...)
		}
		check(t, cur, flat)
	})
}

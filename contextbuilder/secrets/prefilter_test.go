package secrets

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

type occurrence struct{ keyword, end int }

// naiveFind is the reference: every (keyword, end) where the keyword
// occurs in the ASCII-lowercased text.
func naiveFind(keywords []string, text []byte) []occurrence {
	lower := []byte(asciiLowerString(string(text)))
	var out []occurrence
	for k, kw := range keywords {
		kb := []byte(asciiLowerString(kw))
		for i := 0; i+len(kb) <= len(lower); i++ {
			if bytes.Equal(lower[i:i+len(kb)], kb) {
				out = append(out, occurrence{k, i + len(kb)})
			}
		}
	}
	return out
}

func prefilterFind(t testing.TB, keywords []string, text []byte) []occurrence {
	p, err := newPrefilter(keywords)
	if err != nil {
		t.Fatal(err)
	}
	var out []occurrence
	last := 0
	p.scan(text, func(k, end int) {
		if end < last {
			t.Fatalf("hits out of order: end %d after %d", end, last)
		}
		last = end
		out = append(out, occurrence{k, end})
	})
	return out
}

func sortOcc(o []occurrence) []occurrence {
	slices.SortFunc(o, func(a, b occurrence) int {
		if a.end != b.end {
			return a.end - b.end
		}
		return a.keyword - b.keyword
	})
	return o
}

func TestPrefilterKnown(t *testing.T) {
	kw := []string{"he", "she", "his", "hers"}
	got := prefilterFind(t, kw, []byte("uSHErs ahishers"))
	want := naiveFind(kw, []byte("uSHErs ahishers"))
	if !slices.Equal(sortOcc(got), sortOcc(want)) {
		t.Errorf("got %v, want %v", got, want)
	}
	if len(want) != 7 {
		t.Errorf("reference found %v", want)
	}
	if _, err := newPrefilter([]string{"a", ""}); err == nil {
		t.Error("empty keyword accepted")
	}
}

// TestPrefilterProperty compares the automaton with naive search on random
// keyword sets (small alphabets, so that keywords overlap, share prefixes
// and suffixes, and repeat) and random texts with mixed case, newlines and
// bytes above 0x7f.
func TestPrefilterProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabets := []string{"ab", "abc", "aAbB_-", "abcdefghij", "ab\xc3\xa9\xff\n\r", "xyzXYZ01 "}
	for iter := range 3000 {
		alpha := alphabets[iter%len(alphabets)]
		pick := func(n int) []byte {
			b := make([]byte, n)
			for i := range b {
				b[i] = alpha[rng.IntN(len(alpha))]
			}
			return b
		}
		nk := 1 + rng.IntN(12)
		keywords := make([]string, nk)
		for i := range keywords {
			keywords[i] = string(pick(1 + rng.IntN(6)))
			if rng.IntN(8) == 0 && i > 0 {
				keywords[i] = keywords[rng.IntN(i)] // duplicate
			}
		}
		text := pick(rng.IntN(200))
		got := sortOcc(prefilterFind(t, keywords, text))
		want := sortOcc(naiveFind(keywords, text))
		if !slices.Equal(got, want) {
			t.Fatalf("keywords %q text %q:\n got %v\nwant %v", keywords, text, got, want)
		}
	}
}

// TestPrefilterAllBytes: every byte value passes through the class table,
// and only ASCII letters fold.
func TestPrefilterAllBytes(t *testing.T) {
	text := make([]byte, 0, 512)
	for b := range 256 {
		text = append(text, byte(b), byte(b))
	}
	keywords := []string{"aa", "zz", "\xc4\xc4", "\xe4\xe4", "@@", "[[", "``", "{{"}
	got := sortOcc(prefilterFind(t, keywords, text))
	want := sortOcc(naiveFind(keywords, text))
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	// "AA" and "aa" both match "aa"; "\xc4\xc4" matches only itself.
	if n := len(got); n != 2+2+1+1+1+1+1+1 {
		t.Errorf("%d occurrences: %v", n, got)
	}
}

func BenchmarkPrefilter(b *testing.B) {
	s := Default()
	text := bytes.Repeat([]byte("func (s *Server) handle(ctx context.Context, req *Request) error {\n\treturn nil\n}\n"), 1<<14)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		s.pf.scan(text, func(int, int) {})
	}
}

package main

// The leak scan: every planted secret is looked for in every frame the
// server sent, whole and as any needleLen-byte piece of its random parts,
// in the raw bytes and in the frame's unescaped JSON strings.

import (
	"bytes"
	"strings"
)

// needleLen is the length of the pieces looked for: long enough that no
// text holds a piece of a random value by chance, short enough that a
// secret cut by a slice, a line range or a wrapped line is still found.
const needleLen = 20

// secret is one planted credential.
type secret struct {
	Label string // what it is and where, for the report (never the value)
	Path  string // the workspace-relative file it is planted in
	Value string // the planted value, exactly as written
	// Parts are the value's distinctive parts: the random ones, without
	// what every such credential shares (a PEM header, the DER prefix
	// every key of a size starts with). Every needleLen-byte piece of a
	// part is looked for; a part shorter than that, whole.
	Parts []string
}

// leak is one secret found in one frame.
type leak struct {
	Frame  int    // index of the frame in the run
	What   string // the request the frame answered
	Secret string // the secret's label
	Whole  bool   // the whole value, not only a piece
}

// scanner looks for a set of secrets.
type scanner struct {
	secrets []secret
	// pieces maps every needleLen-byte piece of every part to its
	// secret, so that a text is scanned in one pass whatever the number
	// of pieces (a key has over a thousand).
	pieces map[string]int
	// short are the parts shorter than needleLen, looked for whole.
	short []shortPart
}

type shortPart struct {
	text   string
	secret int
}

func newScanner(secrets []secret) *scanner {
	s := &scanner{secrets: secrets, pieces: map[string]int{}}
	for i, sec := range secrets {
		for _, p := range sec.Parts {
			if len(p) < needleLen {
				s.short = append(s.short, shortPart{p, i})
				continue
			}
			for j := 0; j+needleLen <= len(p); j++ {
				s.pieces[p[j:j+needleLen]] = i
			}
		}
	}
	return s
}

// needles is the number of strings looked for.
func (s *scanner) needles() int { return len(s.pieces) + len(s.short) }

// found returns which secrets text holds (by index), whole or in part.
func (s *scanner) found(text []byte) map[int]bool {
	out := map[int]bool{}
	for i := 0; i+needleLen <= len(text); i++ {
		if k, ok := s.pieces[string(text[i:i+needleLen])]; ok {
			out[k] = true
		}
	}
	for _, p := range s.short {
		if !out[p.secret] && bytes.Contains(text, []byte(p.text)) {
			out[p.secret] = true
		}
	}
	return out
}

// scanFrame returns the secrets found in one frame, each once. The frame
// is read as bytes, then as its JSON strings unescaped, since an escape
// (\u0041, \/) would hide a secret from a byte search.
func (s *scanner) scanFrame(raw []byte) []leak {
	hits := s.found(raw)
	decoded := stringsOf(raw)
	for k := range s.found([]byte(decoded)) {
		hits[k] = true
	}
	return s.leaks(hits, string(raw)+"\n"+decoded)
}

// scanText returns the secrets found in a text that is not JSON (the
// server's log).
func (s *scanner) scanText(text []byte) []leak {
	return s.leaks(s.found(text), string(text))
}

// leaks turns found secrets into leaks, in the secrets' order.
func (s *scanner) leaks(hits map[int]bool, text string) []leak {
	var out []leak
	for i, sec := range s.secrets {
		if hits[i] {
			out = append(out, leak{Secret: sec.Label, Whole: strings.Contains(text, sec.Value)})
		}
	}
	return out
}

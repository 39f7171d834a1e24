package secrets

import "fmt"

// prefilter finds every occurrence of a set of keywords in one pass over a
// text, ASCII case-insensitively and without copying the text: an
// Aho-Corasick automaton compiled into a full DFA.
//
// Layout, chosen for the inner loop (one table load and one compare per
// byte):
//   - class maps a byte to its equivalence class: every byte that occurs in
//     no keyword shares class 0, and an ASCII upper-case letter shares the
//     class of its lower-case letter, which is how case is folded without a
//     lowered copy of the text;
//   - next holds the transitions, one row of nclass entries per state, and
//     stores the *row offset* of the target state (state × nclass), so the
//     loop needs no multiplication;
//   - states are numbered so that every state that ends a keyword (directly
//     or through its suffix links) comes after all others: a state is a hit
//     exactly when its row offset is >= firstHit.
type prefilter struct {
	class    [256]uint16
	nclass   int
	next     []uint32
	firstHit uint32
	// out lists, for each hit state (indexed by (offset-firstHit)/nclass),
	// the keywords that end there.
	out [][]int32
	// lens are the keyword lengths in bytes.
	lens []int
}

// newPrefilter compiles keywords. Keywords must be non-empty; they are
// folded to ASCII lower case. Duplicates are allowed (each reports its own
// index).
func newPrefilter(keywords []string) (*prefilter, error) {
	p := &prefilter{lens: make([]int, len(keywords))}
	folded := make([]string, len(keywords))
	for i, k := range keywords {
		if k == "" {
			return nil, fmt.Errorf("keyword %d is empty", i)
		}
		folded[i] = asciiLowerString(k)
		p.lens[i] = len(k)
	}

	// Equivalence classes: one per distinct (lower-case) byte of any
	// keyword, class 0 for every other byte.
	var seen [256]bool
	for _, k := range folded {
		for j := 0; j < len(k); j++ {
			seen[k[j]] = true
		}
	}
	n := 1
	for b := 0; b < 256; b++ {
		if seen[b] {
			p.class[b] = uint16(n)
			n++
		}
	}
	for b := 'A'; b <= 'Z'; b++ {
		p.class[b] = p.class[b+'a'-'A']
	}
	p.nclass = n

	// Trie, in construction numbering (0 = root). goto_ uses -1 for "no
	// edge".
	type node struct {
		edges []int32 // by class, -1 = none
		fail  int32
		out   []int32
	}
	newNode := func() node {
		e := make([]int32, n)
		for i := range e {
			e[i] = -1
		}
		return node{edges: e}
	}
	nodes := []node{newNode()}
	for id, k := range folded {
		s := int32(0)
		for j := 0; j < len(k); j++ {
			c := p.class[k[j]]
			if nodes[s].edges[c] < 0 {
				nodes = append(nodes, newNode())
				nodes[s].edges[c] = int32(len(nodes) - 1)
			}
			s = nodes[s].edges[c]
		}
		nodes[s].out = append(nodes[s].out, int32(id))
	}

	// Breadth-first: failure links, inherited outputs and the full DFA
	// (missing edges point where the failure link's edge points).
	queue := make([]int32, 0, len(nodes))
	for c := 0; c < n; c++ {
		t := nodes[0].edges[c]
		if t < 0 {
			nodes[0].edges[c] = 0
			continue
		}
		nodes[t].fail = 0
		queue = append(queue, t)
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		f := nodes[s].fail
		if len(nodes[f].out) > 0 {
			nodes[s].out = append(nodes[s].out, nodes[f].out...)
		}
		for c := 0; c < n; c++ {
			t := nodes[s].edges[c]
			if t < 0 {
				nodes[s].edges[c] = nodes[f].edges[c]
				continue
			}
			nodes[t].fail = nodes[f].edges[c]
			queue = append(queue, t)
		}
	}

	// Renumber: non-hit states first (the root stays 0), hit states last.
	order := make([]int32, len(nodes)) // construction id → final id
	final := 0
	for i := range nodes {
		if len(nodes[i].out) == 0 {
			order[i] = int32(final)
			final++
		}
	}
	firstHit := final
	for i := range nodes {
		if len(nodes[i].out) > 0 {
			order[i] = int32(final)
			final++
		}
	}
	p.firstHit = uint32(firstHit * n)
	p.next = make([]uint32, len(nodes)*n)
	p.out = make([][]int32, len(nodes)-firstHit)
	for i := range nodes {
		row := int(order[i]) * n
		for c := 0; c < n; c++ {
			p.next[row+c] = uint32(int(order[nodes[i].edges[c]]) * n)
		}
		if len(nodes[i].out) > 0 {
			p.out[int(order[i])-firstHit] = nodes[i].out
		}
	}
	return p, nil
}

// scan calls hit(keyword, end) for every occurrence of every keyword in
// text, in order of end, where text[end-len:end] is the occurrence.
// Occurrences ending at the same byte are reported in the order of the
// automaton's output list (longest first).
func (p *prefilter) scan(text []byte, hit func(keyword int, end int)) {
	next, class, firstHit := p.next, &p.class, p.firstHit
	var st uint32
	for i, b := range text {
		st = next[st+uint32(class[b])]
		if st >= firstHit {
			for _, k := range p.out[(st-firstHit)/uint32(p.nclass)] {
				hit(int(k), i+1)
			}
		}
	}
}

// asciiLowerString folds ASCII letters only (byte lengths unchanged).
func asciiLowerString(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

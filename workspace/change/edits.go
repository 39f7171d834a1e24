package change

// kept reports whether after line l is before's line l.origin, byte for
// byte (its line end included).
func kept(before *fileText, l oline) bool {
	if l.origin < 0 || l.origin >= len(before.lines) {
		return false
	}
	b := before.lines[l.origin]
	return b.text == l.text && b.eol == l.eol
}

// diffEdits returns the byte edits that turn before into after (whose
// lines carry their origins), one per run of lines that changed, trimmed
// of whole lines equal on both sides; and, per after line, whether the
// change touched it: a line it changed or added, or a line next to
// where it removed lines.
func diffEdits(before *fileText, after []oline) ([]Edit, []bool) {
	var edits []Edit
	touched := make([]bool, len(after))
	bi, ai := 0, 0
	for {
		aj := ai
		for aj < len(after) && !(kept(before, after[aj]) && after[aj].origin >= bi) {
			aj++
		}
		o := len(before.lines)
		if aj < len(after) {
			o = after[aj].origin
		}
		if e, a0, a1, ok := gapEdit(before, after, bi, o, ai, aj); ok {
			edits = append(edits, e)
			if a0 == a1 {
				// A pure deletion: the lines on both sides of it meet.
				if a0 > 0 {
					touched[a0-1] = true
				}
				if a0 < len(after) {
					touched[a0] = true
				}
			}
			for k := a0; k < a1; k++ {
				touched[k] = true
			}
		}
		if aj >= len(after) {
			return edits, touched
		}
		bi, ai = o+1, aj+1
	}
}

// gapEdit is the edit replacing before's lines [b0, b1) by after's lines
// [a0, a1), trimmed of equal leading and trailing lines; ok is false when
// nothing is left. It returns the after lines the edit writes.
func gapEdit(before *fileText, after []oline, b0, b1, a0, a1 int) (Edit, int, int, bool) {
	same := func(b int, a int) bool {
		l := before.lines[b]
		return l.text == after[a].text && l.eol == after[a].eol
	}
	for b0 < b1 && a0 < a1 && same(b0, a0) {
		b0++
		a0++
	}
	for b0 < b1 && a0 < a1 && same(b1-1, a1-1) {
		b1--
		a1--
	}
	if b0 == b1 && a0 == a1 {
		return Edit{}, a0, a1, false
	}
	n := 0
	for _, l := range after[a0:a1] {
		n += len(l.text) + len(l.eol)
	}
	b := make([]byte, 0, n)
	for _, l := range after[a0:a1] {
		b = append(b, l.text...)
		b = append(b, l.eol...)
	}
	return Edit{Start: before.starts[b0], End: before.starts[b1], NewText: string(b)}, a0, a1, true
}

// maxDiffCost bounds the Myers diff of a whole-file change: past that many
// differences, the lines between the common head and tail are replaced as
// one block (the result is the same, the edits only larger).
const maxDiffCost = 1000

// diffMatch pairs the lines of a new text (b, m lines) with the lines of
// an old one (a, n lines) they keep, by a longest common subsequence under
// eq: match[j] is the old line new line j keeps, or -1.
func diffMatch(n, m int, eq func(i, j int) bool) []int {
	match := make([]int, m)
	for j := range match {
		match[j] = -1
	}
	p := 0
	for p < n && p < m && eq(p, p) {
		match[p] = p
		p++
	}
	s := 0
	for s < n-p && s < m-p && eq(n-1-s, m-1-s) {
		match[m-1-s] = n - 1 - s
		s++
	}
	a0, b0 := p, p
	pairs := myers(n-s-a0, m-s-b0, func(i, j int) bool { return eq(a0+i, b0+j) }, maxDiffCost)
	for _, pr := range pairs {
		match[b0+pr[1]] = a0 + pr[0]
	}
	return match
}

// myers returns the pairs (i, j) of an n-line and an m-line sequence that
// a shortest edit script keeps (E. Myers, "An O(ND) difference algorithm",
// 1986), or nil when it needs more than maxD edits. It keeps the frontier
// of every round, O(D²) integers, to walk the path back.
func myers(n, m int, eq func(i, j int) bool, maxD int) [][2]int {
	if n == 0 || m == 0 {
		return nil
	}
	maxD = min(maxD, n+m)
	off := maxD + 1
	v := make([]int32, 2*maxD+3)
	var trace [][]int32
	for d := 0; d <= maxD; d++ {
		snap := make([]int32, 2*d+3)
		copy(snap, v[off-d-1:off+d+2])
		trace = append(trace, snap)
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = int(v[off+k+1])
			} else {
				x = int(v[off+k-1]) + 1
			}
			y := x - k
			for x < n && y < m && eq(x, y) {
				x++
				y++
			}
			v[off+k] = int32(x)
			if x >= n && y >= m {
				return backtrack(trace, d, n, m)
			}
		}
	}
	return nil
}

// backtrack walks the frontiers of myers back from (n, m) at cost d,
// collecting the diagonal moves.
func backtrack(trace [][]int32, d, n, m int) [][2]int {
	var pairs [][2]int
	x, y := n, m
	for ; d > 0; d-- {
		vp := trace[d]
		at := func(k int) int { return int(vp[k+d+1]) }
		k := x - y
		pk := k - 1
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			pk = k + 1
		}
		px := at(pk)
		py := px - pk
		sx := px
		if pk == k-1 {
			sx = px + 1
		}
		sy := sx - k
		for x > sx && y > sy {
			x--
			y--
			pairs = append(pairs, [2]int{x, y})
		}
		x, y = px, py
	}
	for x > 0 && y > 0 {
		x--
		y--
		pairs = append(pairs, [2]int{x, y})
	}
	return pairs
}

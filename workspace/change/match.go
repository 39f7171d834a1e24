package change

import "sort"

// maxCandidates is how many places of a hunk are collected: two make it
// ambiguous, and a message lists at most ten.
const maxCandidates = 32

// matchBudget bounds the line comparisons of one Apply. Only a
// pathologically repetitive file (the same lines thousands of times) with
// a long hunk reaches it; the hunk is then ambiguous.
const matchBudget = 1 << 26

// matcher finds the old lines of a hunk or block in a file's lines, by
// layers.
type matcher struct {
	lines []string
	norm  [layers][]string
	// index maps a normalized line to its positions, ascending; it is only
	// looked up, never iterated.
	index [layers]map[string][]int
	// budget is shared by every matcher of one Apply.
	budget *int
}

func newMatcher(lines []string, budget *int) *matcher {
	return &matcher{lines: lines, budget: budget}
}

// normLines returns the file's lines normalized for layer.
func (m *matcher) normLines(layer int) []string {
	if layer == layerExact {
		return m.lines
	}
	if m.norm[layer] == nil {
		n := make([]string, len(m.lines))
		for i, l := range m.lines {
			n[i] = normalize(l, layer)
		}
		m.norm[layer] = n
	}
	return m.norm[layer]
}

// positions returns where the normalized line s is in the file, ascending.
func (m *matcher) positions(layer int, s string) []int {
	if m.index[layer] == nil {
		idx := make(map[string][]int)
		for i, l := range m.normLines(layer) {
			idx[l] = append(idx[l], i)
		}
		m.index[layer] = idx
	}
	return m.index[layer][s]
}

// find returns the first layer at which old occurs at or after line from,
// and the starts of its occurrences there (at most maxCandidates,
// ascending). over reports that the comparison budget ran out.
func (m *matcher) find(old []pattern, from int) (starts []int, layer int, over bool) {
	for layer = range layers {
		starts, over = m.findAt(old, from, layer)
		if over || len(starts) > 0 {
			return starts, layer, over
		}
	}
	return nil, 0, false
}

// findAt is find at one layer. Candidates come from the old line (without
// a redaction marker) that the file holds the fewest times, so that a
// common line ("}", an empty line) does not make the search quadratic.
func (m *matcher) findAt(old []pattern, from, layer int) (starts []int, over bool) {
	n, k := len(m.lines), len(old)
	if k == 0 || from < 0 || k > n-from {
		return nil, false
	}
	anchor, count := -1, 0
	var anchorPos []int
	for j := range old {
		if old[j].glob {
			continue
		}
		pos := m.positions(layer, old[j].norm[layer])
		lo := sort.SearchInts(pos, from+j)
		hi := sort.SearchInts(pos, n-k+j+1)
		if anchor < 0 || hi-lo < count {
			anchor, count, anchorPos = j, hi-lo, pos[lo:hi]
		}
		if count == 0 {
			return nil, false
		}
	}
	try := func(s int) bool {
		if m.at(old, s, layer) {
			starts = append(starts, s)
		}
		return *m.budget < 0 || len(starts) >= maxCandidates
	}
	if anchor < 0 {
		for s := from; s <= n-k; s++ {
			if try(s) {
				break
			}
		}
	} else {
		for _, p := range anchorPos {
			if try(p - anchor) {
				break
			}
		}
	}
	return starts, *m.budget < 0
}

// at reports whether old matches the file's lines from s at layer.
func (m *matcher) at(old []pattern, s, layer int) bool {
	if s < 0 || s+len(old) > len(m.lines) {
		return false
	}
	lines := m.normLines(layer)
	for j := range old {
		*m.budget--
		if !old[j].matches(lines[s+j], layer) {
			return false
		}
	}
	return true
}

// closest returns the start of the window of len(old) file lines (fewer
// at the end of a short file) that has the most lines equal to old's at
// the loosest layer, the earliest on a tie, and how many. Lines the file
// holds more than a thousand times are not counted: they tell nothing
// about where a hunk belongs and would make this quadratic.
func (m *matcher) closest(old []pattern) (start, score int) {
	n, k := len(m.lines), len(old)
	last := max(n-k, 0)
	counts := make([]int32, last+1)
	for j := range old {
		if old[j].glob {
			continue
		}
		pos := m.positions(layerPunctuation, old[j].norm[layerPunctuation])
		if len(pos) > 1000 {
			continue
		}
		for _, p := range pos {
			if s := p - j; s >= 0 && s <= last {
				counts[s]++
			}
		}
	}
	for s, c := range counts {
		if int(c) > score {
			start, score = s, int(c)
		}
	}
	return start, score
}

// firstDiff returns the index in old of the first line that the window at
// start does not match at the loosest layer, or -1.
func (m *matcher) firstDiff(old []pattern, start int) int {
	lines := m.normLines(layerPunctuation)
	for j := range old {
		if start+j >= len(lines) || !old[j].matches(lines[start+j], layerPunctuation) {
			return j
		}
	}
	return -1
}

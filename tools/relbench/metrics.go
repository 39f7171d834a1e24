package main

import (
	"cmp"
	"math"
	"slices"
)

// Truth is what a compiler says about one target file: the files declaring
// objects it uses and the files using objects it declares, each with a use
// count. Neither map contains the target itself.
type Truth struct {
	Used  map[string]int
	Users map[string]int
}

// Selection is what one bundle (ctxd's or the baseline's) spends its tokens
// on, apart from the target: Files maps each included file other than the
// target to the tokens of its blocks (whole file or symbol slices), Unpathed
// counts the tokens of blocks that carry no path other than the fixed
// system and constraints blocks, Total is the whole bundle's token count.
type Selection struct {
	Files    map[string]int
	Unpathed int
	Total    int
}

// TopUsersK is how many users, the most frequent first, the top-users
// recall looks for.
const TopUsersK = 10

// Scores are one bundle's figures against one Truth. A figure whose
// denominator is zero (no used files, no users, no file besides the target)
// is NaN and left out of the means.
type Scores struct {
	UsedRecall     float64 // included used files / used files
	WeightedRecall float64 // use counts of included used files / all use counts
	TopUsersRecall float64 // included top-K users / min(K, users)
	Precision      float64 // included files in used ∪ users / included files
	NeitherShare   float64 // tokens on files in neither set (and unpathed blocks) / non-target tokens
	OutsideShare   float64 // included files the oracle did not compile / included files
	Tokens         float64 // whole bundle
}

// TopUsers returns the k users with the highest counts, ties broken by
// path, most frequent first.
func TopUsers(users map[string]int, k int) []string {
	paths := make([]string, 0, len(users))
	for p := range users {
		paths = append(paths, p)
	}
	slices.SortFunc(paths, func(a, b string) int {
		if c := cmp.Compare(users[b], users[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	if len(paths) > k {
		paths = paths[:k]
	}
	return paths
}

// ratio is n/d, NaN when d is zero.
func ratio(n, d int) float64 {
	if d == 0 {
		return math.NaN()
	}
	return float64(n) / float64(d)
}

// Score computes the figures of one bundle. known reports whether the oracle
// compiled a file (nil: every file is known); a file it did not compile can
// be in neither set whatever it contains, which OutsideShare makes visible.
func Score(t Truth, s Selection, known func(string) bool) Scores {
	var usedHit, usedWeight, usedWeightHit int
	for p, n := range t.Used {
		usedWeight += n
		if _, ok := s.Files[p]; ok {
			usedHit++
			usedWeightHit += n
		}
	}
	top := TopUsers(t.Users, TopUsersK)
	var topHit int
	for _, p := range top {
		if _, ok := s.Files[p]; ok {
			topHit++
		}
	}
	var relevant, outside, tokens, neither int
	for p, tok := range s.Files {
		tokens += tok
		_, u := t.Used[p]
		_, r := t.Users[p]
		if u || r {
			relevant++
		} else {
			neither += tok
		}
		if known != nil && !known(p) {
			outside++
		}
	}
	tokens += s.Unpathed
	neither += s.Unpathed
	return Scores{
		UsedRecall:     ratio(usedHit, len(t.Used)),
		WeightedRecall: ratio(usedWeightHit, usedWeight),
		TopUsersRecall: ratio(topHit, len(top)),
		Precision:      ratio(relevant, len(s.Files)),
		NeitherShare:   ratio(neither, tokens),
		OutsideShare:   ratio(outside, len(s.Files)),
		Tokens:         float64(s.Total),
	}
}

// Mean is the mean of each figure over the targets where it is defined,
// with the number of targets each mean is over.
type Mean struct {
	Scores
	N [7]int
}

// Average returns the per-figure means of a list of scores, skipping NaN.
func Average(list []Scores) Mean {
	var sum [7]float64
	var m Mean
	for _, s := range list {
		for i, v := range s.fields() {
			if !math.IsNaN(v) {
				sum[i] += v
				m.N[i]++
			}
		}
	}
	var avg [7]float64
	for i := range sum {
		avg[i] = math.NaN()
		if m.N[i] > 0 {
			avg[i] = sum[i] / float64(m.N[i])
		}
	}
	m.Scores = Scores{avg[0], avg[1], avg[2], avg[3], avg[4], avg[5], avg[6]}
	return m
}

func (s Scores) fields() [7]float64 {
	return [7]float64{s.UsedRecall, s.WeightedRecall, s.TopUsersRecall, s.Precision, s.NeitherShare, s.OutsideShare, s.Tokens}
}

// Sized is a file and the tokens of its block.
type Sized struct {
	Path   string
	Tokens int
}

// Baseline is the naive selection: the target's same-directory files of the
// same language, in path order, added while the bundle stays within the soft
// limit; the first that does not fit ends it (as ctxd's own fit step does).
// start is the tokens already spent: the fixed blocks and the target.
func Baseline(siblings []Sized, start, soft int) Selection {
	s := Selection{Files: map[string]int{}, Total: start}
	for _, f := range siblings {
		if s.Total+f.Tokens > soft {
			break
		}
		s.Files[f.Path] = f.Tokens
		s.Total += f.Tokens
	}
	return s
}

package change

import (
	"math/rand/v2"
	"testing"
)

// TestDiffMatch checks the Myers diff against the length of a longest
// common subsequence computed by dynamic programming, on random short
// sequences over a small alphabet.
func TestDiffMatch(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for iter := range 2000 {
		a := make([]int, r.IntN(12))
		b := make([]int, r.IntN(12))
		for i := range a {
			a[i] = r.IntN(3)
		}
		for j := range b {
			b[j] = r.IntN(3)
		}
		match := diffMatch(len(a), len(b), func(i, j int) bool { return a[i] == b[j] })
		n, last := 0, -1
		for j, i := range match {
			if i < 0 {
				continue
			}
			if i <= last || a[i] != b[j] {
				t.Fatalf("iteration %d: a=%v b=%v: bad match %v", iter, a, b, match)
			}
			last = i
			n++
		}
		if want := lcs(a, b); n != want {
			t.Fatalf("iteration %d: a=%v b=%v: %d pairs, the LCS has %d (%v)", iter, a, b, n, want, match)
		}
	}
}

// TestMyersGivesUp: past its cost bound myers returns nothing, and
// diffMatch keeps only the common head and tail.
func TestMyersGivesUp(t *testing.T) {
	a := []int{1, 2, 3, 4, 5, 6, 9}
	b := []int{1, 6, 5, 4, 3, 2, 9}
	eq := func(i, j int) bool { return a[i] == b[j] }
	if got := myers(len(a), len(b), eq, 2); got != nil {
		t.Errorf("myers with bound 2 = %v, want nil", got)
	}
	if got := myers(len(a), len(b), eq, 100); len(got) != 3 {
		t.Errorf("myers = %v, want 3 pairs", got)
	}
}

func lcs(a, b []int) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	return dp[0][0]
}

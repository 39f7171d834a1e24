package markdown

import "testing"

func TestLongestRun(t *testing.T) {
	for s, want := range map[string]int{"": 0, "a": 0, "`": 1, "a``b```c`": 3, "````": 4} {
		if got := longestRun(s, '`'); got != want {
			t.Errorf("longestRun(%q) = %d, want %d", s, got, want)
		}
	}
}

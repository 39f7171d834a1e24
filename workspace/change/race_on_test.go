//go:build race

package change

// raceEnabled reports a -race build, where the tests of Parse's linearity
// use smaller answers: the race detector slows every memory access, not
// the growth of the time with the size.
const raceEnabled = true

//go:build race

package syntax_test

// raceEnabled reports a -race build, where the GOROOT oracle samples files:
// it compares declarations, which the race detector does not make more
// trustworthy, and the parser pool's concurrency has tests of its own.
// `make test` runs the whole oracle once more without -race.
const raceEnabled = true

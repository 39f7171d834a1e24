//go:build race

package ledger

// raceEnabled reports a -race build, where the exhaustive tamper tests
// sample positions instead: they exercise no concurrency, and the race
// detector slows JSON canonicalization and SQLite twentyfold.
const raceEnabled = true

//go:build !race

package change

// raceEnabled reports a -race build (see race_on_test.go).
const raceEnabled = false

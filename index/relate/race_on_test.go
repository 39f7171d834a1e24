//go:build race

package relate

// raceEnabled reports a -race build, where the Go source tree tests sample
// fewer files.
const raceEnabled = true

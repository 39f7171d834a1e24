//go:build race

package server

// raceEnabled reports a -race build, where the edit storm is smaller: the
// race detector slows extraction and building about tenfold.
const raceEnabled = true

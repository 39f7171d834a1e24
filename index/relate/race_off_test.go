//go:build !race

package relate

const raceEnabled = false

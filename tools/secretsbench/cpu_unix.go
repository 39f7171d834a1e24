//go:build unix

package main

import (
	"syscall"
	"time"
)

// processCPU returns the user + system CPU time this process has used so
// far (all threads: the scan, the garbage collector, the runtime).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

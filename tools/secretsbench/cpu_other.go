//go:build !unix

package main

import "time"

// processCPU is not measured on this platform: CPU ratios are not
// reported.
func processCPU() time.Duration { return 0 }

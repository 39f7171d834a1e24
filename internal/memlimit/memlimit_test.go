package memlimit

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func TestLimit(t *testing.T) {
	tests := []struct {
		live uint64
		want int64
	}{
		{0, Floor},
		{100 << 20, Floor},
		{Floor * 2 / 3, Floor},
		{400 << 20, 600 << 20},
		{512 << 20, 768 << 20},
		{1 << 30, 1<<30 + MaxHeadroom},
		{1 << 40, 1<<40 + MaxHeadroom},
		{1 << 63, 1<<63 - 1},
	}
	for _, tt := range tests {
		if got := Limit(tt.live); got != tt.want {
			t.Errorf("Limit(%d) = %d, want %d", tt.live, got, tt.want)
		}
	}
}

// TestStartFollowsCollections: while a governor runs, every collection
// sets the limit from the live heap; stop restores the limit from before.
func TestStartFollowsCollections(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	t.Setenv("GOGC", "")
	before := debug.SetMemoryLimit(-1)
	stop := Start()
	if second := Start(); second == nil {
		t.Fatal("a second Start returned no stop function")
	}
	// Keep 300 MiB live, above the floor, so the limit must move over it.
	// The governor reads the live heap (/gc/heap/live:bytes), which counts
	// the allocation whether or not its pages were written: writing them
	// cost seconds under -race and a gigabyte of shadow memory.
	keep := make([]byte, 300<<20)
	want := int64(float64(len(keep)) * 1.5)
	ok := false
	for range 20 {
		runtime.GC()
		if got := debug.SetMemoryLimit(-1); got >= want {
			ok = true
			break
		}
	}
	runtime.KeepAlive(keep)
	if !ok {
		t.Errorf("limit %d after collections with %d bytes live, want at least %d", debug.SetMemoryLimit(-1), len(keep), want)
	}
	stop()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("limit after stop = %d, want %d", got, before)
	}
}

// TestStartLeavesUserSettings: GOGC or GOMEMLIMIT in the environment turns
// the governor off.
func TestStartLeavesUserSettings(t *testing.T) {
	for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
		t.Run(env, func(t *testing.T) {
			t.Setenv("GOGC", "")
			t.Setenv("GOMEMLIMIT", "")
			t.Setenv(env, "100")
			if env == "GOMEMLIMIT" {
				t.Setenv(env, "1GiB")
			}
			before := debug.SetMemoryLimit(-1)
			stop := Start()
			runtime.GC()
			runtime.GC()
			if got := debug.SetMemoryLimit(-1); got != before {
				t.Errorf("limit = %d with %s set, want it untouched (%d)", got, env, before)
			}
			stop()
		})
	}
}

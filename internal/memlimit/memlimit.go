// Package memlimit keeps a ctxd process's memory near what its index holds.
//
// With the Go default (GOGC=100) the heap grows to twice the live data
// before the collector runs, and an index's live data is most of the heap:
// on $(go env GOROOT)/src, 150 MB live became a 400 MB peak. [Start] makes
// the collector run earlier by setting a soft memory limit that follows the
// live heap: after every collection the limit becomes the larger of a
// floor and the heap that survived it plus half as much again, at most
// MaxHeadroom more. Small workspaces stay under the floor and collect as
// rarely as before; a large one pays some CPU for collecting at 1.5× its
// live heap instead of 2×, and a very large one for keeping its garbage
// within MaxHeadroom (a 100,000-file repository's 1 GB index then peaks
// near 1.25 GB, not 2 GB).
// The limit is soft: the runtime never fails an allocation for it and caps
// the CPU the collector may take when the live heap nears it.
//
// A user who sets GOMEMLIMIT or GOGC keeps full control: Start then does
// nothing.
package memlimit

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
)

// Floor is the limit below which Start never goes: under it the collector
// runs as the Go default has it.
const Floor = 256 << 20

// MaxHeadroom bounds the memory allowed on top of the live heap; below
// it the headroom is half the live heap.
const MaxHeadroom = 256 << 20

// Start follows the live heap until stop is called; it is a no-op (stop
// included) when GOMEMLIMIT or GOGC is set in the environment. Only one
// governor runs per process: later calls while one runs do nothing.
func Start() (stop func()) {
	if os.Getenv("GOMEMLIMIT") != "" || os.Getenv("GOGC") != "" {
		return func() {}
	}
	if !running.CompareAndSwap(false, true) {
		return func() {}
	}
	g := &governor{prev: debug.SetMemoryLimit(-1)}
	g.sample = []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	g.update()
	g.arm()
	return g.stop
}

var running atomic.Bool

type governor struct {
	mu      sync.Mutex
	stopped bool
	prev    int64 // the limit before Start, restored by stop
	sample  []metrics.Sample
}

// arm registers a cleanup on a fresh object: the collector runs it after
// the first cycle that finds the object unreachable, so it fires once per
// collection and re-arms itself.
func (g *governor) arm() {
	runtime.AddCleanup(new([16]byte), func(g *governor) {
		g.mu.Lock()
		stopped := g.stopped
		g.mu.Unlock()
		if stopped {
			return
		}
		g.update()
		g.arm()
	}, g)
}

// update sets the limit from the live heap of the last collection.
func (g *governor) update() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stopped {
		return
	}
	metrics.Read(g.sample)
	if v := g.sample[0].Value; v.Kind() == metrics.KindUint64 {
		debug.SetMemoryLimit(Limit(v.Uint64()))
	}
}

// Limit is the memory limit for a live heap of live bytes.
func Limit(live uint64) int64 {
	if live > math.MaxInt64/2 {
		return math.MaxInt64
	}
	l := int64(live) + min(int64(live)/2, MaxHeadroom)
	return max(l, Floor)
}

func (g *governor) stop() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stopped {
		return
	}
	g.stopped = true
	debug.SetMemoryLimit(g.prev)
	running.Store(false)
}

package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/index"
)

// Gate bounds how many builds run at once across a [Service]'s
// workspaces; the others wait in line, in no particular order, until a
// build ends or their context does. A build holds its slot from the
// builder through its record (artifact, ledger, audit line), which is
// where its memory is: a thousand requests at once cost a few builds'
// memory and a thousand small waiting goroutines, not a thousand builds'.
//
// When the last build of a burst ends (builds had to wait for a slot) and
// nothing waits any more, the gate gives the memory the burst used back to
// the operating system (a garbage collection and [debug.FreeOSMemory]), at
// most once a second: a server's resident size after a burst is its live
// heap, not the burst's peak. Builds that never queue (an editor's, one
// at a time, or ctxd.budget on every edit) never cause a collection. A nil
// *Gate bounds nothing.
type Gate struct {
	slots chan struct{}

	mu       sync.Mutex
	busy     int // builds holding or waiting for a slot
	peak     int // the most busy at once since the gate was last idle
	ran      bool
	lastFree time.Time
	// idle runs, in its own goroutine, when the gate becomes idle after a
	// build; nil means debug.FreeOSMemory.
	idle func()
}

// DefaultGateSize is the number of builds a [Service] runs at once: two per
// GOMAXPROCS, since a build both counts tokens (CPU) and fsyncs its record
// (I/O), and at least two.
func DefaultGateSize() int { return max(2, 2*runtime.GOMAXPROCS(0)) }

// NewGate returns a gate letting n builds run at once (n < 1 means 1).
func NewGate(n int) *Gate {
	return &Gate{slots: make(chan struct{}, max(n, 1))}
}

// acquire waits for a slot, or for ctx to end (its error is returned).
// release gives the slot back; it must be called exactly once.
func (g *Gate) acquire(ctx context.Context) (release func(), err error) {
	if g == nil {
		return func() {}, nil
	}
	g.mu.Lock()
	g.busy++
	g.peak = max(g.peak, g.busy)
	g.mu.Unlock()
	select {
	case g.slots <- struct{}{}:
	case <-ctx.Done():
		g.leave(false)
		return nil, ctx.Err()
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			<-g.slots
			g.leave(true)
		})
	}, nil
}

// leave ends one build's stay (ran: it held a slot) and, when the gate
// becomes idle after builds ran, gives their memory back.
func (g *Gate) leave(ran bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.busy--
	g.ran = g.ran || ran
	if g.busy > 0 {
		return
	}
	burst := g.ran && g.peak > cap(g.slots)
	g.ran, g.peak = false, 0
	if !burst || time.Since(g.lastFree) < time.Second {
		return
	}
	g.lastFree = time.Now()
	idle := g.idle
	if idle == nil {
		idle = debug.FreeOSMemory
	}
	go idle()
}

// flightKey names a build request identical to another in everything the
// builder reads: the same snapshot (pointer identity: open documents
// included) and the same request, including the selection's byte span,
// which the JSON form leaves out.
type flightKey struct {
	snap *index.Snapshot
	req  string
}

// flight is one builder run that identical concurrent requests share.
type flight struct {
	done   chan struct{}
	res    *contextbuilder.Result
	err    error
	joined int // callers waiting for it besides its runner; guarded by flights.mu
}

// flights are the builder runs in progress, by request.
type flights struct {
	mu sync.Mutex
	m  map[flightKey]*flight
}

// keyOf is the flight key of a request, ok false when it cannot be made
// (the request does not encode): such a build is not shared.
func keyOf(snap *index.Snapshot, req *contextbuilder.Request) (flightKey, bool) {
	data, err := json.Marshal(req)
	if err != nil {
		return flightKey{}, false
	}
	k := string(data)
	if req.Selection != nil && req.Selection.Span != nil {
		k += fmt.Sprintf("\x00span %d %d", req.Selection.Span.Start, req.Selection.Span.End)
	}
	return flightKey{snap: snap, req: k}, true
}

// sharedBuild runs build for req under the gate, or, when an identical
// request's build is already running, waits for that one and returns its
// result: the work identical concurrent builds have in common (reading,
// scanning and counting the same files) is done once. The result is
// shared read-only (nothing after the builder changes a Result); a
// refusal is copied for each caller, since front ends rewrite its
// candidates' ranges. Every caller records its own build afterwards, under
// the gate, with its slot: release (non-nil when err is nil) gives it back.
//
// A shared build carries the created_at of the build that ran, which
// started while the later request was already waiting for it. A run that
// ended with its own caller's cancellation is not shared: the others run
// again.
func (w *Workspace) sharedBuild(ctx context.Context, snap *index.Snapshot, req *contextbuilder.Request,
	build func() (*contextbuilder.Result, error)) (res *contextbuilder.Result, release func(), err error) {
	key, ok := keyOf(snap, req)
	if !ok {
		if release, err = w.gate.acquire(ctx); err != nil {
			return nil, nil, err
		}
		res, err = build()
		return res, release, err
	}
	for {
		w.flights.mu.Lock()
		f := w.flights.m[key]
		if f == nil {
			f = &flight{done: make(chan struct{})}
			if w.flights.m == nil {
				w.flights.m = map[flightKey]*flight{}
			}
			w.flights.m[key] = f
			w.flights.mu.Unlock()
			release, err = w.gate.acquire(ctx)
			if err == nil {
				f.res, f.err = build()
			} else {
				f.err = err
			}
			w.flights.mu.Lock()
			delete(w.flights.m, key)
			w.flights.mu.Unlock()
			close(f.done)
			if err != nil {
				return nil, nil, err
			}
			return f.res, release, f.err
		}
		f.joined++
		w.flights.mu.Unlock()
		select {
		case <-f.done:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		if errors.Is(f.err, context.Canceled) || errors.Is(f.err, context.DeadlineExceeded) {
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			continue // the runner's caller gave up; run it again
		}
		if release, err = w.gate.acquire(ctx); err != nil {
			return nil, nil, err
		}
		return f.res, release, copyRefusal(f.err)
	}
}

// copyRefusal returns err, or a copy of the refusal it is with its own
// candidates.
func copyRefusal(err error) error {
	var ref *contextbuilder.Refusal
	if !errors.As(err, &ref) {
		return err
	}
	c := *ref
	c.Candidates = append([]contextbuilder.Candidate(nil), ref.Candidates...)
	return &c
}

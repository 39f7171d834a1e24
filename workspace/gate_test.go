package workspace

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/google/go-cmp/cmp"
)

// TestGateBounds: no more than the gate's size run at once, the rest wait
// and all run; the idle hook runs once the burst is over, and never after
// builds that did not queue.
func TestGateBounds(t *testing.T) {
	g := NewGate(3)
	idle := make(chan struct{}, 10)
	g.idle = func() { idle <- struct{}{} }

	// One at a time: no burst, no collection.
	for range 5 {
		release, err := g.acquire(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		release()
	}
	g.mu.Lock()
	freed := !g.lastFree.IsZero()
	g.mu.Unlock()
	if freed {
		t.Error("builds one at a time caused a collection")
	}

	// The three slots held, 37 more queue behind them.
	var held []func()
	for range 3 {
		release, err := g.acquire(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, release)
	}
	var running, peak atomic.Int32
	var wg sync.WaitGroup
	for range 37 {
		wg.Go(func() {
			release, err := g.acquire(context.Background())
			if err != nil {
				t.Error(err)
				return
			}
			n := running.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			running.Add(-1)
			release()
			release() // a second call is a no-op
		})
	}
	for {
		g.mu.Lock()
		busy := g.busy
		g.mu.Unlock()
		if busy == 40 {
			break
		}
		runtime.Gosched()
	}
	for _, release := range held {
		release()
	}
	wg.Wait()
	if p := peak.Load(); p < 1 || p > 3 {
		t.Errorf("peak concurrency %d, want 1 to 3", p)
	}
	<-idle // the burst's memory is given back
	if got := len(g.slots); got != 0 {
		t.Errorf("%d slots still held", got)
	}
	select {
	case <-idle:
		t.Error("the idle hook ran more than once")
	default:
	}
}

// TestGateCancelWhileQueued: a build waiting for a slot ends with its
// context, holding nothing.
func TestGateCancelWhileQueued(t *testing.T) {
	g := NewGate(1)
	g.idle = func() {}
	release, err := g.acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		_, err := g.acquire(ctx)
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("queued acquire = %v, want context.Canceled", err)
	}
	release()
	if r, err := g.acquire(context.Background()); err != nil {
		t.Errorf("acquire after a cancelled wait: %v", err)
	} else {
		r()
	}
	var nilGate *Gate
	if r, err := nilGate.acquire(ctx); err != nil || r == nil {
		t.Errorf("nil gate: %v", err)
	}
}

// TestSharedBuild: identical concurrent requests run the builder once and
// share its result; a different request runs its own; a refusal is copied
// for each caller; a run its own caller cancelled is run again for the
// others.
func TestSharedBuild(t *testing.T) {
	w := &Workspace{gate: NewGate(4)}
	w.gate.idle = func() {}
	req := func(intent string) *contextbuilder.Request {
		return &contextbuilder.Request{Purpose: contextbuilder.PurposeIntent, Intent: &contextbuilder.Intent{Text: intent}}
	}
	// waitJoined waits until the flight of r runs and n callers wait for
	// it.
	waitJoined := func(r *contextbuilder.Request, n int) {
		key, _ := keyOf(nil, r)
		for {
			w.flights.mu.Lock()
			f := w.flights.m[key]
			ok := f != nil && f.joined >= n
			w.flights.mu.Unlock()
			if ok {
				return
			}
			runtime.Gosched()
		}
	}

	t.Run("identical requests share one run", func(t *testing.T) {
		var runs atomic.Int32
		unblock := make(chan struct{})
		want := &contextbuilder.Result{}
		build := func() (*contextbuilder.Result, error) {
			runs.Add(1)
			<-unblock
			return want, nil
		}
		results := make(chan *contextbuilder.Result, 5)
		var wg sync.WaitGroup
		call := func() {
			res, release, err := w.sharedBuild(context.Background(), nil, req("same"), build)
			if err != nil {
				t.Error(err)
				return
			}
			release()
			results <- res
		}
		wg.Go(call)
		waitJoined(req("same"), 0)
		for range 4 {
			wg.Go(call)
		}
		waitJoined(req("same"), 4)
		close(unblock)
		wg.Wait()
		close(results)
		for res := range results {
			if res != want {
				t.Error("a caller got another result")
			}
		}
		if n := runs.Load(); n != 1 {
			t.Errorf("builder ran %d times, want 1", n)
		}
		// Nothing is kept once the flight is over.
		if len(w.flights.m) != 0 {
			t.Errorf("%d flights left", len(w.flights.m))
		}
	})

	t.Run("refusal copied", func(t *testing.T) {
		unblock := make(chan struct{})
		orig := &contextbuilder.Refusal{Code: contextbuilder.RefuseAmbiguousTarget, Candidates: []contextbuilder.Candidate{{Path: "a.go"}}}
		build := func() (*contextbuilder.Result, error) { <-unblock; return nil, orig }
		errs := make(chan error, 2)
		var wg sync.WaitGroup
		wg.Go(func() { _, _, err := w.sharedBuild(context.Background(), nil, req("refused"), build); errs <- err })
		waitJoined(req("refused"), 0)
		wg.Go(func() { _, _, err := w.sharedBuild(context.Background(), nil, req("refused"), build); errs <- err })
		waitJoined(req("refused"), 1)
		close(unblock)
		wg.Wait()
		close(errs)
		var copies int
		for err := range errs {
			var ref *contextbuilder.Refusal
			if !errors.As(err, &ref) {
				t.Fatalf("err = %v, want a refusal", err)
			}
			if diff := cmp.Diff(orig, ref); diff != "" {
				t.Errorf("refusal (-want +got):\n%s", diff)
			}
			if ref != orig {
				copies++
				ref.Candidates[0].Path = "changed by a front end"
			}
		}
		if copies != 1 || orig.Candidates[0].Path != "a.go" {
			t.Errorf("copies %d, original candidate %q: want 1 copy and the original untouched", copies, orig.Candidates[0].Path)
		}
	})

	t.Run("cancelled runner", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		unblock := make(chan struct{})
		var runs atomic.Int32
		build := func() (*contextbuilder.Result, error) {
			if runs.Add(1) == 1 {
				<-unblock
				return nil, context.Canceled // the runner's caller went away
			}
			return &contextbuilder.Result{}, nil
		}
		var wg sync.WaitGroup
		wg.Go(func() { w.sharedBuild(ctx, nil, req("cancel"), build) })
		waitJoined(req("cancel"), 0)
		var got error = errors.New("not run")
		wg.Go(func() {
			_, release, err := w.sharedBuild(context.Background(), nil, req("cancel"), build)
			if release != nil {
				release()
			}
			got = err
		})
		waitJoined(req("cancel"), 1)
		cancel()
		close(unblock)
		wg.Wait()
		if got != nil || runs.Load() != 2 {
			t.Errorf("follower: err %v after %d runs, want nil after 2", got, runs.Load())
		}
	})
}

package index

import (
	"context"
	"sync"
	"sync/atomic"
)

// parallel calls fn(i, done) for every i in [0, n) on up to workers
// goroutines, where done counts the calls finished so far including this
// one (for progress reports). It stops handing out indexes once ctx ends
// and returns the number of calls made.
func parallel(ctx context.Context, n, workers int, fn func(i, done int)) int {
	var next, done atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, max(n, 1)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				fn(i, int(done.Add(1)))
			}
		})
	}
	wg.Wait()
	return int(done.Load())
}

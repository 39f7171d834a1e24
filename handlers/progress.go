package handlers

import (
	"context"
	"path"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/ctxd/ctxd/index"
)

// progressCallTimeout bounds the wait for the client to answer a request of
// the server (a progress token, the watcher registration): a client that
// never answers must not hold a goroutine forever.
const progressCallTimeout = 10 * time.Second

// reportInterval is the least time between two reports of one scan. The
// index reports every 1% of a scan, from several goroutines; an editor
// needs far fewer updates than that, and a slow one would fall behind.
const reportInterval = 250 * time.Millisecond

// maxQueuedScans bounds the scans remembered while the client is slow to
// accept tokens. Past it, a scan that already ended before anything of it
// was sent is forgotten: showing it now would only flash in the editor.
const maxQueuedScans = 16

// scanReports shows the index's initial scans as work-done progress.
//
// The index calls [Session.indexProgress] from its scanning goroutines,
// which must never wait for the editor: an event only updates a scan's
// counts under mu. One goroutine of its own, started when there is
// something to send and gone when there is not, asks for the token
// (window/workDoneProgress/create, a request) and sends $/progress. Reports
// coalesce: it sends the latest count, at most one per reportInterval per
// scan, so a 10,000-file scan sends tens of notifications whatever the
// client's speed, and the memory held is one small record per scan. A
// report held back by the interval goes out with the next event (the next
// 1%) or right before the end, so the last count shown is the final one.
type scanReports struct {
	// now and interval are the clock and period of the throttle; nil and
	// zero mean time.Now and reportInterval. Tests freeze the clock.
	now      func() time.Time
	interval time.Duration

	mu      sync.Mutex
	scans   []*scanReport // begun and not yet ended on the wire, in begin order
	sending bool          // the sender goroutine runs
}

// scanReport is one scan of one root, from its begin to its end.
type scanReport struct {
	id             uint64 // index.Progress.Scan
	title, message string // of the begin

	// The index's side: the highest count seen (the index's goroutines
	// report out of order) and the end.
	done, total, pct int
	phase            string
	ended            bool
	outcome          string // the end's

	// The sender's side: what it sent. Decided under mu so that the
	// index's side sees which scans started; p is the sender's alone.
	started  bool
	sentDone int
	sentAt   time.Time
	p        *Progress
}

// indexProgress turns the index's scan progress into $/progress (see
// scanReports). It never blocks on the client.
func (s *Session) indexProgress(p index.Progress) {
	if s.Client == nil || !s.Config().WorkDoneProgress {
		return
	}
	r := &s.idx.reports
	r.mu.Lock()
	defer r.mu.Unlock()
	switch p.Kind {
	case "begin":
		title, message := s.progressTitle(p.Root)
		r.forgetIdleLocked()
		r.scans = append(r.scans, &scanReport{id: p.Scan, title: title, message: message})
	case "report":
		sc := r.openLocked(p.Scan)
		if sc == nil || (p.Phase == sc.phase && p.Done <= sc.done) || p.Percentage < sc.pct {
			return
		}
		if p.Phase != sc.phase {
			sc.sentDone = -1 // the new phase's first count is news
		}
		sc.done, sc.total, sc.pct, sc.phase = p.Done, p.Total, p.Percentage, p.Phase
	case "end":
		sc := r.openLocked(p.Scan)
		if sc == nil {
			return
		}
		sc.ended, sc.outcome = true, p.Outcome
	default:
		return
	}
	if !r.sending {
		r.sending = true
		go r.send(s)
	}
}

// progressTitle is the begin's title and message for a root: the folder's
// name as the message, or in the title when several folders index at once
// (editors show one line per progress, and the lines must differ).
func (s *Session) progressTitle(root string) (title, message string) {
	name := path.Base(root)
	folders := s.Folders()
	for _, f := range folders {
		if f.URI == root && f.Name != "" {
			name = f.Name
		}
	}
	if len(folders) > 1 {
		return "ctxd: indexing " + name, ""
	}
	return "ctxd: indexing", name
}

// openLocked returns the scan id if it has begun and not ended.
func (r *scanReports) openLocked(id uint64) *scanReport {
	for _, sc := range r.scans {
		if sc.id == id && !sc.ended {
			return sc
		}
	}
	return nil
}

// forgetIdleLocked makes room for a scan when maxQueuedScans are queued.
func (r *scanReports) forgetIdleLocked() {
	if len(r.scans) < maxQueuedScans {
		return
	}
	if i := slices.IndexFunc(r.scans, func(sc *scanReport) bool { return !sc.started && sc.ended }); i >= 0 {
		r.scans = slices.Delete(r.scans, i, i+1)
	}
}

// send runs the sender: one message at a time, until nothing is left that
// may be sent now.
func (r *scanReports) send(s *Session) {
	ctx := context.Background()
	for {
		r.mu.Lock()
		next := r.nextLocked(s)
		if next == nil {
			r.sending = false
			r.mu.Unlock()
			return
		}
		r.mu.Unlock()
		next(ctx)
	}
}

// nextLocked picks the next message to send and records it as sent. A
// scan's begin comes first, then its reports, then its end; a scan whose
// report is held back by the interval does not hold back the others.
func (r *scanReports) nextLocked(s *Session) func(context.Context) {
	now := time.Now
	if r.now != nil {
		now = r.now
	}
	interval := r.interval
	if interval <= 0 {
		interval = reportInterval
	}
	t := now()
	for i, sc := range r.scans {
		switch {
		case !sc.started:
			sc.started = true
			return func(ctx context.Context) {
				ctx, cancel := context.WithTimeout(ctx, progressCallTimeout)
				defer cancel()
				sc.p = s.StartProgressPercent(ctx, sc.title, sc.message)
			}
		case sc.done > sc.sentDone && (sc.ended || sc.sentAt.IsZero() || t.Sub(sc.sentAt) >= interval):
			sc.sentDone, sc.sentAt = sc.done, t
			msg, pct := countMessage(sc.done, sc.total), uint32(min(max(sc.pct, 0), 100))
			if sc.phase != "" {
				msg = sc.phase + " " + msg
			}
			return func(ctx context.Context) { sc.p.Report(ctx, msg, pct) }
		case sc.ended:
			r.scans = slices.Delete(r.scans, i, i+1)
			msg := endMessage(sc)
			return func(ctx context.Context) { sc.p.End(ctx, msg) }
		}
	}
	return nil
}

// endMessage is the end's message: the files indexed, or where the scan
// stopped and why.
func endMessage(sc *scanReport) string {
	switch sc.outcome {
	case index.ScanDone:
		return thousands(sc.done) + " files indexed"
	case index.ScanFailed:
		return "failed at " + countMessage(sc.done, sc.total) + " (the folder could not be read; see ctxd.indexStatus)"
	}
	return "cancelled at " + countMessage(sc.done, sc.total)
}

// countMessage is a report's message: "1,234/10,595 files".
func countMessage(done, total int) string {
	return thousands(done) + "/" + thousands(total) + " files"
}

// thousands formats n with a comma every three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	var b []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, s[i])
	}
	if neg {
		return "-" + string(b)
	}
	return string(b)
}

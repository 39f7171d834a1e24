package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/workspace"
	"github.com/google/go-cmp/cmp"
)

// hangGuard bounds how long a broken test may hang; it is not a performance
// assertion: every wait ends as soon as its condition holds.
const hangGuard = 30 * time.Second

// progressClient records what the session sends as "method params-JSON".
// While gate is open (not closed), requests wait for it: a client slow to
// answer window/workDoneProgress/create.
type progressClient struct {
	gate   chan struct{}
	refuse bool

	mu      sync.Mutex
	sent    []string
	changed chan struct{}
}

func newProgressClient() *progressClient {
	return &progressClient{changed: make(chan struct{})}
}

func (c *progressClient) record(method string, params any) {
	b, err := json.Marshal(params)
	if err != nil {
		b = []byte(err.Error())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sent = append(c.sent, method+" "+string(b))
	close(c.changed)
	c.changed = make(chan struct{})
}

func (c *progressClient) Notify(ctx context.Context, method string, params any) error {
	c.record(method, params)
	return nil
}

func (c *progressClient) Call(ctx context.Context, method string, params, result any) error {
	c.record(method, params)
	if c.gate != nil {
		select {
		case <-c.gate:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if c.refuse {
		return errors.New("refused")
	}
	return nil
}

// waitSent waits until n messages were sent.
func (c *progressClient) waitSent(t *testing.T, n int) {
	t.Helper()
	timeout := time.After(hangGuard)
	for {
		c.mu.Lock()
		got, changed := len(c.sent), c.changed
		c.mu.Unlock()
		if got >= n {
			return
		}
		select {
		case <-changed:
		case <-timeout:
			t.Fatalf("the session sent %d messages, want %d", got, n)
		}
	}
}

func (c *progressClient) messages() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.sent...)
}

// waitIdle waits until the sender sent everything and stopped.
func waitIdle(t *testing.T, s *Session) {
	t.Helper()
	r := &s.idx.reports
	for deadline := time.Now().Add(hangGuard); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		r.mu.Lock()
		idle := !r.sending && len(r.scans) == 0
		r.mu.Unlock()
		if idle {
			return
		}
	}
	t.Fatal("the progress sender did not finish")
}

// step is one thing a test does: an index event, a move of the throttle's
// clock by its interval, or a wait until that many messages were sent.
type step struct {
	event   index.Progress
	advance bool
	wait    int
}

// begin is the begin of scan id of root.
func begin(root string, id uint64) step {
	return step{event: index.Progress{Kind: "begin", Root: root, Scan: id}}
}

// end is the end of scan id of root, with done files of total and the
// outcome.
func end(root string, id uint64, done, total int, outcome string) step {
	return step{event: index.Progress{Kind: "end", Root: root, Scan: id, Done: done, Total: total, Percentage: 100, Outcome: outcome}}
}

// reports are scan id's reports of files from to to (in that order,
// which may be descending) of total.
func reports(root string, id uint64, from, to, total int) []step {
	var out []step
	for n := from; ; {
		out = append(out, step{event: index.Progress{Kind: "report", Root: root, Scan: id, Done: n, Total: total, Percentage: n * 100 / total}})
		if n == to {
			return out
		}
		if from < to {
			n++
		} else {
			n--
		}
	}
}

func steps(parts ...any) []step {
	var out []step
	for _, p := range parts {
		switch p := p.(type) {
		case step:
			out = append(out, p)
		case []step:
			out = append(out, p...)
		}
	}
	return out
}

const (
	app = "file:///w/app"
	lib = "file:///w/lib"
)

func create(token string) string {
	return `window/workDoneProgress/create {"token":"` + token + `"}`
}

func progress(token, value string) string {
	return `$/progress {"token":"` + token + `","value":` + value + `}`
}

func TestScanReports(t *testing.T) {
	tests := []struct {
		name     string
		folders  []Folder
		noCaps   bool // the client did not announce window.workDoneProgress
		refuse   bool // the client refuses the token
		gated    bool // create waits until every step was taken
		steps    []step
		wantSent []string
	}{
		{
			name:    "a slow client gets the latest count, not every report",
			folders: []Folder{{URI: app, Name: "app"}},
			gated:   true,
			steps:   steps(begin(app, 1), reports(app, 1, 1, 10_000, 10_000), reports(app, 1, 9_000, 5_000, 10_000), end(app, 1, 10_000, 10_000, index.ScanDone)),
			wantSent: []string{
				create("ctxd/1"),
				progress("ctxd/1", `{"kind":"begin","title":"ctxd: indexing","message":"app","percentage":0}`),
				progress("ctxd/1", `{"kind":"report","message":"10,000/10,000 files","percentage":100}`),
				progress("ctxd/1", `{"kind":"end","message":"10,000 files indexed"}`),
			},
		},
		{
			name:    "reports are throttled; the last count is sent before the end",
			folders: []Folder{{URI: app, Name: "app"}},
			steps: steps(begin(app, 1), step{wait: 2}, reports(app, 1, 1, 1, 100), step{wait: 3},
				reports(app, 1, 2, 50, 100), step{advance: true}, reports(app, 1, 51, 51, 100), step{wait: 4},
				reports(app, 1, 52, 100, 100), end(app, 1, 100, 100, index.ScanDone)),
			wantSent: []string{
				create("ctxd/1"),
				progress("ctxd/1", `{"kind":"begin","title":"ctxd: indexing","message":"app","percentage":0}`),
				progress("ctxd/1", `{"kind":"report","message":"1/100 files","percentage":1}`),
				progress("ctxd/1", `{"kind":"report","message":"51/100 files","percentage":51}`),
				progress("ctxd/1", `{"kind":"report","message":"100/100 files","percentage":100}`),
				progress("ctxd/1", `{"kind":"end","message":"100 files indexed"}`),
			},
		},
		{
			name:    "a cancelled scan ends too",
			folders: []Folder{{URI: app, Name: "app"}},
			gated:   true,
			steps:   steps(begin(app, 1), reports(app, 1, 1, 1_234, 10_595), end(app, 1, 0, 10_595, index.ScanCancelled)),
			wantSent: []string{
				create("ctxd/1"),
				progress("ctxd/1", `{"kind":"begin","title":"ctxd: indexing","message":"app","percentage":0}`),
				progress("ctxd/1", `{"kind":"report","message":"1,234/10,595 files","percentage":11}`),
				progress("ctxd/1", `{"kind":"end","message":"cancelled at 1,234/10,595 files"}`),
			},
		},
		{
			name:    "a folder that could not be read",
			folders: []Folder{{URI: app, Name: "app"}},
			gated:   true,
			steps:   steps(begin(app, 1), reports(app, 1, 1, 40, 40), end(app, 1, 0, 40, index.ScanFailed)),
			wantSent: []string{
				create("ctxd/1"),
				progress("ctxd/1", `{"kind":"begin","title":"ctxd: indexing","message":"app","percentage":0}`),
				progress("ctxd/1", `{"kind":"report","message":"40/40 files","percentage":100}`),
				progress("ctxd/1", `{"kind":"end","message":"failed at 40/40 files (the folder could not be read; see ctxd.indexStatus)"}`),
			},
		},
		{
			name:    "an empty folder",
			folders: []Folder{{URI: app, Name: "app"}},
			gated:   true,
			steps:   steps(begin(app, 1), end(app, 1, 0, 0, index.ScanDone)),
			wantSent: []string{
				create("ctxd/1"),
				progress("ctxd/1", `{"kind":"begin","title":"ctxd: indexing","message":"app","percentage":0}`),
				progress("ctxd/1", `{"kind":"end","message":"0 files indexed"}`),
			},
		},
		{
			name:    "a root scanned again while its first scan runs: each scan ends",
			folders: []Folder{{URI: app, Name: "app"}},
			gated:   true,
			steps:   steps(begin(app, 1), reports(app, 1, 1, 10, 100), begin(app, 2), reports(app, 2, 1, 5, 100), end(app, 1, 0, 100, index.ScanCancelled), reports(app, 1, 11, 11, 100), reports(app, 2, 6, 100, 100), end(app, 2, 100, 100, index.ScanDone)),
			wantSent: []string{
				create("ctxd/1"),
				progress("ctxd/1", `{"kind":"begin","title":"ctxd: indexing","message":"app","percentage":0}`),
				progress("ctxd/1", `{"kind":"report","message":"10/100 files","percentage":10}`),
				progress("ctxd/1", `{"kind":"end","message":"cancelled at 10/100 files"}`),
				create("ctxd/2"),
				progress("ctxd/2", `{"kind":"begin","title":"ctxd: indexing","message":"app","percentage":0}`),
				progress("ctxd/2", `{"kind":"report","message":"100/100 files","percentage":100}`),
				progress("ctxd/2", `{"kind":"end","message":"100 files indexed"}`),
			},
		},
		{
			name:    "two folders: each has its own progress, named in the title",
			folders: []Folder{{URI: app, Name: "app"}, {URI: lib, Name: "lib"}},
			gated:   true,
			steps:   steps(begin(app, 1), begin(lib, 2), reports(lib, 2, 1, 2, 2), reports(app, 1, 1, 3, 3), end(lib, 2, 2, 2, index.ScanDone), end(app, 1, 3, 3, index.ScanDone)),
			wantSent: []string{
				create("ctxd/1"),
				progress("ctxd/1", `{"kind":"begin","title":"ctxd: indexing app","percentage":0}`),
				progress("ctxd/1", `{"kind":"report","message":"3/3 files","percentage":100}`),
				progress("ctxd/1", `{"kind":"end","message":"3 files indexed"}`),
				create("ctxd/2"),
				progress("ctxd/2", `{"kind":"begin","title":"ctxd: indexing lib","percentage":0}`),
				progress("ctxd/2", `{"kind":"report","message":"2/2 files","percentage":100}`),
				progress("ctxd/2", `{"kind":"end","message":"2 files indexed"}`),
			},
		},
		{
			name:     "the client refuses the token: nothing more is sent",
			folders:  []Folder{{URI: app, Name: "app"}},
			refuse:   true,
			gated:    true,
			steps:    steps(begin(app, 1), reports(app, 1, 1, 5, 5), end(app, 1, 5, 5, index.ScanDone)),
			wantSent: []string{create("ctxd/1")},
		},
		{
			name:    "a client without window.workDoneProgress gets nothing",
			folders: []Folder{{URI: app, Name: "app"}},
			noCaps:  true,
			steps:   steps(begin(app, 1), reports(app, 1, 1, 5, 5), end(app, 1, 5, 5, index.ScanDone)),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newProgressClient()
			c.refuse = tt.refuse
			if tt.gated {
				c.gate = make(chan struct{})
			}
			s := NewSession(slog.New(slog.NewTextHandler(io.Discard, nil)), "test", c, workspace.ServiceOptions{Index: index.Options{CacheDir: "off"}})
			t.Cleanup(func() { s.Index.Close() })
			s.setConfig(&ClientConfig{WorkDoneProgress: !tt.noCaps})
			s.updateFolders(func([]Folder) []Folder { return tt.folders })
			// The clock stands still unless a step moves it, so that
			// which reports are sent never depends on the machine's speed.
			var mu sync.Mutex
			now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
			s.idx.reports.now = func() time.Time {
				mu.Lock()
				defer mu.Unlock()
				return now
			}
			for _, st := range tt.steps {
				switch {
				case st.wait > 0:
					c.waitSent(t, st.wait)
				case st.advance:
					mu.Lock()
					now = now.Add(reportInterval)
					mu.Unlock()
				default:
					s.indexProgress(st.event)
				}
			}
			if c.gate != nil {
				close(c.gate)
			}
			waitIdle(t, s)
			if diff := cmp.Diff(tt.wantSent, c.messages()); diff != "" {
				t.Errorf("sent (-want +got):\n%s", diff)
			}
		})
	}
}

func TestThousands(t *testing.T) {
	for _, tt := range []struct {
		n    int
		want string
	}{{0, "0"}, {7, "7"}, {999, "999"}, {1000, "1,000"}, {10595, "10,595"}, {1234567, "1,234,567"}, {-1234, "-1,234"}} {
		if got := thousands(tt.n); got != tt.want {
			t.Errorf("thousands(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

package cli

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxd/ctxd/index"
	"github.com/google/go-cmp/cmp"
)

// fakeTimers stands in for time.AfterFunc: a test fires the timers by hand,
// in the order they were started, so no test waits for the delay.
type fakeTimers struct {
	pending []func()
	stopped int
}

func (f *fakeTimers) after(d time.Duration, fn func()) func() bool {
	f.pending = append(f.pending, fn)
	return func() bool { f.stopped++; return true }
}

// fire runs the oldest timer not yet fired, stopped or not: a timer may
// fire while the task it belongs to is being cleared.
func (f *fakeTimers) fire() {
	if len(f.pending) > 0 {
		fn := f.pending[0]
		f.pending = f.pending[1:]
		fn()
	}
}

func newTestProgress(terminal bool) (*progressLine, *bytes.Buffer, *fakeTimers) {
	var out bytes.Buffer
	timers := &fakeTimers{}
	p := newProgressLine(&out, terminal)
	p.after = timers.after
	return p, &out, timers
}

// run applies ops to p: "set TEXT", "fire", "clear", "cleartask N",
// "log TEXT" (a line written through p.Writer()).
func runProgressOps(t *testing.T, p *progressLine, timers *fakeTimers, ops []string) {
	t.Helper()
	for _, op := range ops {
		verb, arg, _ := strings.Cut(op, " ")
		switch verb {
		case "set":
			p.Set(arg)
		case "fire":
			timers.fire()
		case "clear":
			p.Clear()
		case "cleartask":
			n, err := strconv.Atoi(arg)
			if err != nil {
				t.Fatal(err)
			}
			p.ClearTask(n)
		case "log":
			if _, err := p.Writer().Write([]byte(arg + "\n")); err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatalf("unknown op %q", op)
		}
	}
}

func TestProgressLine(t *testing.T) {
	long := strings.Repeat("x", 100)
	tests := []struct {
		name     string
		terminal bool
		ops      []string
		want     string
	}{
		{
			name:     "a task that ends within the delay prints nothing",
			terminal: true,
			ops:      []string{"set abc", "clear", "fire"},
			want:     "",
		},
		{
			name:     "after the delay the line shows, is rewritten in place and cleared",
			terminal: true,
			ops:      []string{"set abc", "fire", "set ab", "set abcd", "set abcd", "clear"},
			want:     "\rabc" + "\rab " + "\rabcd" + "\r    \r",
		},
		{
			name:     "updates before the delay show as the latest text",
			terminal: true,
			ops:      []string{"set a", "set abc", "fire", "clear"},
			want:     "\rabc" + "\r   \r",
		},
		{
			name:     "logs are written around the line",
			terminal: true,
			ops:      []string{"log before", "set ab", "fire", "log during", "clear", "log after"},
			want:     "before\n" + "\rab" + "\r  \r" + "during\n" + "\rab" + "\r  \r" + "after\n",
		},
		{
			name:     "a late timer of an ended task shows nothing",
			terminal: true,
			ops:      []string{"set a", "clear", "set bc", "fire", "fire", "clear"},
			want:     "\rbc" + "\r  \r",
		},
		{
			name:     "the end of an earlier task does not clear the next one's line",
			terminal: true,
			ops:      []string{"set a", "clear", "set bc", "fire", "fire", "cleartask 1", "cleartask 2"},
			want:     "\rbc" + "\r  \r",
		},
		{
			name:     "a line wider than a narrow terminal is cut",
			terminal: true,
			ops:      []string{"set " + long, "fire"},
			want:     "\r" + long[:78] + "…",
		},
		{
			name:     "not a terminal: nothing but the logs",
			terminal: false,
			ops:      []string{"set abc", "fire", "log a log line", "set abcd", "clear"},
			want:     "a log line\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, out, timers := newTestProgress(tt.terminal)
			runProgressOps(t, p, timers, tt.ops)
			if diff := cmp.Diff(tt.want, out.String()); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
		})
	}
}

func TestProgressLineStopsItsTimer(t *testing.T) {
	p, _, timers := newTestProgress(true)
	p.Set("a")
	p.Clear()
	if timers.stopped != 1 {
		t.Errorf("timers stopped = %d, want 1", timers.stopped)
	}
	p, _, timers = newTestProgress(false)
	p.Set("a")
	if len(timers.pending) != 0 {
		t.Errorf("a timer started for a stream that is not a terminal")
	}
}

// TestIndexProgressLine: the index's events become "indexing <folder>:
// done/total files"; a report older than the one shown is dropped, the
// events of a scan that a newer one replaced are dropped, and the end of
// the newest clears the line.
func TestIndexProgressLine(t *testing.T) {
	p, out, timers := newTestProgress(true)
	on := p.indexProgress("app")
	const root = "file:///w/app"
	on(index.Progress{Kind: "begin", Root: root, Scan: 1})
	timers.fire()
	on(index.Progress{Kind: "report", Root: root, Scan: 1, Done: 700, Total: 10595, Percentage: 6})
	on(index.Progress{Kind: "begin", Root: root, Scan: 2}) // the root is scanned again
	for _, n := range []int{1234, 1000, 10595} {
		on(index.Progress{Kind: "report", Root: root, Scan: 2, Done: n, Total: 10595, Percentage: n * 100 / 10595})
		on(index.Progress{Kind: "report", Root: root, Scan: 1, Done: n + 1, Total: 10595, Percentage: n * 100 / 10595})
	}
	on(index.Progress{Kind: "end", Root: root, Scan: 1, Done: 701, Total: 10595, Percentage: 100, Outcome: index.ScanCancelled})
	want := "\rindexing app: listing files" +
		"\rindexing app: 700/10595 files" +
		"\rindexing app: listing files  " +
		"\rindexing app: 1234/10595 files" +
		"\rindexing app: 10595/10595 files"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("output before the end (-want +got):\n%s", diff)
	}
	on(index.Progress{Kind: "end", Root: root, Scan: 2, Done: 10595, Total: 10595, Percentage: 100, Outcome: index.ScanDone})
	want += "\r" + strings.Repeat(" ", len("indexing app: 10595/10595 files")) + "\r"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}

func TestIsTerminal(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for name, w := range map[string]io.Writer{"buffer": &bytes.Buffer{}, "pipe": w, "file": f} {
		if isTerminal(w) {
			t.Errorf("isTerminal(%s) = true", name)
		}
	}
}

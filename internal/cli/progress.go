package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/ctxd/ctxd/index"
)

// progressDelay is how long a task runs before its progress line appears:
// a command that finishes within it prints nothing more than its result.
const progressDelay = time.Second

// maxProgressWidth caps the line's length in characters: a line longer than
// the terminal wraps, and \r then returns to the start of its last row only,
// leaving the rows above behind. 80 columns is the narrowest terminal
// anyone uses.
const maxProgressWidth = 79

// progressLine shows what a long command is doing on one line of stderr,
// rewritten in place with \r and erased when the task ends. It writes
// nothing at all unless stderr is a terminal: in a pipe, a file or CI, a
// stream of \r-separated updates is noise in a log.
//
// A task starts with the first Set after a Clear; its line appears only
// once the task has run for progressDelay, so quick commands stay quiet.
// The methods may be called from any goroutine.
type progressLine struct {
	w        io.Writer
	terminal bool
	delay    time.Duration
	// after calls f once d has passed, unless the returned stop is called
	// first; tests fire it by hand rather than sleep.
	after func(d time.Duration, f func()) (stop func() bool)

	mu      sync.Mutex
	text    string      // the running task's line; "" when none runs
	visible bool        // the delay passed: text is on the screen
	width   int         // characters of the line on the screen
	stop    func() bool // the running task's timer
	task    int         // counts tasks, so that a late timer of an ended task does nothing
}

// newProgressLine returns a progress line on w; terminal says whether w is
// a terminal (see isTerminal).
func newProgressLine(w io.Writer, terminal bool) *progressLine {
	return &progressLine{
		w:        w,
		terminal: terminal,
		delay:    progressDelay,
		after: func(d time.Duration, f func()) func() bool {
			return time.AfterFunc(d, f).Stop
		},
	}
}

// isTerminal reports whether w is a terminal. A character device is taken
// for one (golang.org/x/term would ask the terminal driver, for one more
// dependency); the other character devices a program's stderr may be,
// such as /dev/null, swallow the line anyway. TERM=dumb terminals (an
// editor's shell buffer) do not handle \r, so they count as not one.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || os.Getenv("TERM") == "dumb" {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// Set starts a task, or updates the running task's line. It returns the
// task's number, for ClearTask.
func (p *progressLine) Set(text string) int {
	if !p.terminal || text == "" {
		return 0
	}
	text = truncate(text, maxProgressWidth)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.text == "" {
		p.task++
		task := p.task
		p.stop = p.after(p.delay, func() { p.show(task) })
	}
	if text != p.text {
		p.text = text
		if p.visible {
			p.draw()
		}
	}
	return p.task
}

// show puts the line of task on the screen, when that task still runs.
func (p *progressLine) show(task int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if task != p.task || p.text == "" || p.visible {
		return
	}
	p.visible = true
	p.draw()
}

// Clear ends the running task and erases its line.
func (p *progressLine) Clear() {
	if !p.terminal {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearLocked()
}

// ClearTask is Clear when task (a number Set returned) is still the
// running task: the end of one task must not erase the next one's line.
func (p *progressLine) ClearTask(task int) {
	if !p.terminal {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if task == p.task && p.text != "" {
		p.clearLocked()
	}
}

func (p *progressLine) clearLocked() {
	if p.stop != nil {
		p.stop()
		p.stop = nil
	}
	if p.visible {
		p.erase()
	}
	p.text, p.visible = "", false
}

// draw rewrites the line; spaces cover what a longer line left behind.
// Callers hold p.mu.
func (p *progressLine) draw() {
	n := utf8.RuneCountInString(p.text)
	fmt.Fprint(p.w, "\r"+p.text+strings.Repeat(" ", max(p.width-n, 0)))
	p.width = n
}

// erase blanks the line and leaves the cursor at its start. Callers hold
// p.mu.
func (p *progressLine) erase() {
	fmt.Fprint(p.w, "\r"+strings.Repeat(" ", p.width)+"\r")
	p.width = 0
}

// Writer returns a writer to the same stream for everything else printed
// there (logs, errors): it erases the line, writes, and draws the line
// again below, so that a message never ends up glued to the progress.
func (p *progressLine) Writer() io.Writer {
	if !p.terminal {
		return p.w
	}
	return progressWriter{p}
}

type progressWriter struct{ p *progressLine }

func (w progressWriter) Write(b []byte) (int, error) {
	p := w.p
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.visible {
		p.erase()
		defer p.draw()
	}
	return p.w.Write(b)
}

// indexProgress is an index.Options.OnProgress that shows the initial scan
// of the folder called name: "indexing <name>: 1234/10595 files". The index
// reports from several goroutines, out of order: a lower count than the
// one shown is dropped. The line follows the scan that began last; the
// events of an earlier one (cancelled by it) are dropped.
func (p *progressLine) indexProgress(name string) func(index.Progress) {
	var (
		mu         sync.Mutex
		done, task int
		phase      string
		scan       uint64
	)
	return func(ev index.Progress) {
		mu.Lock()
		defer mu.Unlock()
		if ev.Kind != "begin" && ev.Scan != scan {
			return
		}
		switch ev.Kind {
		case "begin":
			done, phase, scan = 0, "", ev.Scan
			task = p.Set(fmt.Sprintf("indexing %s: listing files", name))
		case "report":
			if ev.Phase != phase {
				phase, done = ev.Phase, 0
			}
			if ev.Done > done {
				done = ev.Done
				what := "files"
				if phase != "" {
					what = "files " + phase
				}
				task = p.Set(fmt.Sprintf("indexing %s: %d/%d %s", name, ev.Done, ev.Total, what))
			}
		case "end":
			// The command may have cleared the line and started
			// another task already (the end comes after the index
			// published the scan).
			p.ClearTask(task)
		}
	}
}

// truncate shortens s to at most n characters, marking the cut with "…".
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

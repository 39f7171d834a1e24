package main

// A minimal MCP client over a child's stdio, written against the wire
// format rather than an SDK: newline-delimited JSON-RPC 2.0, answers
// matched to requests by id (the server may answer out of order, since
// tool calls run concurrently), every frame kept for the leak scan, and a
// deadline on every request, so that a server that stops answering, or
// exits, is a finding of the report and never a hung bench.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"time"
)

// errTimeout and errExited are why a request got no answer.
var (
	errTimeout = errors.New("no answer")
	errExited  = errors.New("the server exited")
)

// received is a frame of the run, with what it answered.
type received struct {
	f    *frame
	what string // the request it answers ("tools/call read_file"), "no id", or "notification METHOD"
}

// server is a running ctxd mcp and its session.
type server struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	timeout time.Duration

	writeMu sync.Mutex

	mu      sync.Mutex
	nextID  int
	pending map[string]chan *frame // by id key; kept after a timeout so that a late answer is matched, not orphaned
	labels  map[string]string
	frames  []received

	// orphans are answers no pending request owns: a null or absent id,
	// as the answer to a line that could not be parsed has.
	orphans chan *frame

	readDone chan struct{} // stdout reached its end
	exited   chan struct{} // the process was waited for; cmd.ProcessState is set
	waitErr  error
	stderr   *capped
}

// capped keeps what is written to it up to a size; the server's log is
// kept for the report's last lines and the log leak scan.
type capped struct {
	mu        sync.Mutex
	buf       bytes.Buffer
	limit     int
	truncated bool
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	room := c.limit - c.buf.Len()
	if room < len(p) {
		c.truncated = true
		if room > 0 {
			c.buf.Write(p[:room])
		}
		return len(p), nil
	}
	c.buf.Write(p)
	return len(p), nil
}

func (c *capped) Bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.buf.Bytes())
}

// startServer runs bin with args, its stdout read by the session.
func startServer(bin string, args []string, timeout time.Duration) (*server, error) {
	cmd := exec.Command(bin, args...)
	// stdout is a pipe of our own rather than cmd.StdoutPipe, whose read
	// end Wait closes: the process may exit (and be waited for, to know it
	// exited) while its last frames are still being read.
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = pw
	s := &server{
		cmd:      cmd,
		timeout:  timeout,
		pending:  map[string]chan *frame{},
		labels:   map[string]string{},
		orphans:  make(chan *frame, 64),
		readDone: make(chan struct{}),
		exited:   make(chan struct{}),
		stderr:   &capped{limit: 16 << 20},
	}
	cmd.Stderr = s.stderr
	if s.stdin, err = cmd.StdinPipe(); err != nil {
		pr.Close()
		pw.Close()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return nil, err
	}
	pw.Close() // the child holds its copy; the read end sees EOF when it exits
	go s.read(pr)
	go func() {
		s.waitErr = cmd.Wait()
		close(s.exited)
	}()
	return s, nil
}

// read reads frames until the end of stdout, routing each answer to its
// request.
func (s *server) read(r *os.File) {
	defer close(s.readDone)
	defer r.Close()
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		line, err := br.ReadBytes('\n')
		line = bytes.TrimRight(line, "\r\n")
		if len(line) > 0 {
			s.dispatch(parseFrame(line))
		}
		if err != nil {
			return
		}
	}
}

func (s *server) dispatch(f *frame) {
	s.mu.Lock()
	key := f.IDKey()
	ch, ok := s.pending[key]
	what := s.labels[key]
	switch {
	case f.Method != "" && key == "":
		what = "notification " + f.Method
	case f.Method != "":
		what = "server request " + f.Method
	case !ok:
		what = "no id"
		if key != "" && key != "null" {
			what = "unknown id " + key
		}
	}
	s.frames = append(s.frames, received{f: f, what: what})
	s.mu.Unlock()

	switch {
	case f.Method != "" && key != "":
		// A request from the server (the bench declares no client
		// capability, so none is expected): answer it, so that the server
		// is never left waiting on the client.
		_ = s.write(map[string]any{"jsonrpc": "2.0", "id": f.ID, "error": map[string]any{"code": -32601, "message": "mcpbench handles no server requests"}})
	case f.Method != "":
	case ok:
		select {
		case ch <- f:
		default: // a second answer to the same id: kept in frames, not delivered
		}
	default:
		select {
		case s.orphans <- f:
		default:
		}
	}
}

// write sends one message as a line.
func (s *server) write(msg any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	return s.writeLine(b)
}

func (s *server) writeLine(b []byte) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	_, err := s.stdin.Write(append(bytes.Clone(b), '\n'))
	return err
}

// call sends a request and waits for its answer. label names it in the
// report (what a leaked frame answered).
func (s *server) call(method string, params any, label string) (*frame, time.Duration, error) {
	return s.callWithin(method, params, label, s.timeout)
}

// callWithin is call with its own deadline.
func (s *server) callWithin(method string, params any, label string, timeout time.Duration) (*frame, time.Duration, error) {
	s.mu.Lock()
	s.nextID++
	id := s.nextID
	key := strconv.Itoa(id)
	ch := make(chan *frame, 1)
	s.pending[key] = ch
	if label == "" {
		label = method
	}
	s.labels[key] = label
	s.mu.Unlock()

	msg := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	start := time.Now()
	if err := s.write(msg); err != nil {
		return nil, 0, s.writeFailed(method, err)
	}
	return s.await(ch, timeout, start)
}

// await waits for ch's frame, the deadline, or the end of the server's
// output, whichever comes first.
func (s *server) await(ch chan *frame, timeout time.Duration, start time.Time) (*frame, time.Duration, error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case f := <-ch:
		return f, time.Since(start), nil
	case <-timer.C:
		return nil, time.Since(start), fmt.Errorf("%w in %s", errTimeout, timeout)
	case <-s.readDone:
		select {
		case f := <-ch: // answered just before the end
			return f, time.Since(start), nil
		default:
			return nil, time.Since(start), errExited
		}
	}
}

// writeFailed explains a failed write: most often the server has exited
// (its stdin is a broken pipe), which is what the report should say.
func (s *server) writeFailed(what string, err error) error {
	if s.ended(2 * time.Second) {
		return errExited
	}
	return fmt.Errorf("sending %s: %w", what, err)
}

// ended says the server's output has ended, waiting up to grace for it.
func (s *server) ended(grace time.Duration) bool {
	select {
	case <-s.readDone:
		return true
	case <-time.After(grace):
		return false
	}
}

// notify sends a notification.
func (s *server) notify(method string, params any) error {
	msg := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		msg["params"] = params
	}
	return s.write(msg)
}

// sendRaw sends line as it is and waits up to timeout for an answer no
// request owns (the error answer to a line that is not a request).
func (s *server) sendRaw(line string, timeout time.Duration) (*frame, error) {
	s.drainOrphans()
	if err := s.writeLine([]byte(line)); err != nil {
		return nil, s.writeFailed("the line", err)
	}
	f, _, err := s.await(s.orphans, timeout, time.Now())
	return f, err
}

// drainOrphans drops answers no request owns that arrived earlier, so that
// the next sendRaw sees its own.
func (s *server) drainOrphans() {
	for {
		select {
		case <-s.orphans:
		default:
			return
		}
	}
}

// nextOrphan returns an orphan answer that has already arrived, or nil.
func (s *server) nextOrphan() *frame {
	select {
	case f := <-s.orphans:
		return f
	default:
		return nil
	}
}

// alive says the process has not exited. A process whose output has
// ended is given a moment to be reaped, so that a server that has just
// died is not reported as running.
func (s *server) alive() bool {
	select {
	case <-s.readDone:
		select {
		case <-s.exited:
		case <-time.After(2 * time.Second):
		}
	default:
	}
	select {
	case <-s.exited:
		return false
	default:
		return true
	}
}

// received returns the frames so far.
func (s *server) received() []received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]received(nil), s.frames...)
}

// stop ends the session as a host does, by closing the server's stdin,
// and waits for the exit; a server still running after grace is killed.
// It returns how the process ended and its CPU time (user + system).
func (s *server) stop(grace time.Duration) (string, time.Duration) {
	diedEarly := !s.alive()
	s.stdin.Close()
	how := "exited at the end of its input"
	select {
	case <-s.exited:
	case <-time.After(grace):
		_ = s.cmd.Process.Kill()
		<-s.exited
		how = fmt.Sprintf("killed: still running %s after its input ended", grace)
	}
	if diedEarly {
		how = "had exited before the session ended"
	}
	if s.waitErr != nil {
		how += " (" + s.waitErr.Error() + ")"
	}
	<-s.readDone
	ps := s.cmd.ProcessState
	if ps == nil {
		return how, 0
	}
	return how, ps.UserTime() + ps.SystemTime()
}

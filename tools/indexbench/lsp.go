package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// server is one `ctxd serve` process driven over stdio the way an editor
// drives it: Content-Length framed JSON-RPC, server requests (progress
// tokens, watcher registration) answered, notifications read and dropped.
// Its stderr goes to a log file that is shown when something fails.
type server struct {
	cmd   *exec.Cmd
	start time.Time // just before the process was started
	log   string    // the server's stderr

	wmu   sync.Mutex // one frame at a time on stdin
	stdin io.WriteCloser

	mu       sync.Mutex
	nextID   int
	pending  map[string]chan message
	ready    time.Time // the last $/progress "end": indexing finished
	closed   chan struct{}
	readErr  error
	exitErr  error
	exitDone chan struct{}
}

type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// rpcError is a JSON-RPC error answer; a ctxd refusal carries its code in
// data.code.
type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *rpcError) Error() string {
	var d struct {
		Code string `json:"code"`
	}
	if json.Unmarshal(e.Data, &d) == nil && d.Code != "" {
		return fmt.Sprintf("%s (%d)", d.Code, e.Code)
	}
	return fmt.Sprintf("%s (%d)", e.Message, e.Code)
}

// startServer starts `ctxd serve` on root with its own index cache
// directory; the timer of the figures that count from process start
// starts here.
func startServer(bin, cacheDir, logPath string) (*server, error) {
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "serve", "--cache-dir", cacheDir)
	cmd.Stderr = logFile
	stdin, err := cmd.StdinPipe()
	if err != nil {
		logFile.Close()
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		logFile.Close()
		return nil, err
	}
	s := &server{cmd: cmd, log: logPath, stdin: stdin, pending: map[string]chan message{},
		closed: make(chan struct{}), exitDone: make(chan struct{})}
	s.start = time.Now()
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("starting %s serve: %w", bin, err)
	}
	go s.read(bufio.NewReaderSize(stdout, 1<<16))
	go func() {
		s.exitErr = cmd.Wait()
		logFile.Close()
		close(s.exitDone)
	}()
	return s, nil
}

// read dispatches every frame the server writes until stdout closes.
func (s *server) read(r *bufio.Reader) {
	defer close(s.closed)
	for {
		body, err := readFrame(r)
		if err != nil {
			s.mu.Lock()
			s.readErr = err
			s.mu.Unlock()
			return
		}
		var m message
		if err := json.Unmarshal(body, &m); err != nil {
			s.mu.Lock()
			s.readErr = fmt.Errorf("a frame that is not JSON-RPC: %v", err)
			s.mu.Unlock()
			return
		}
		switch {
		case m.Method != "" && len(m.ID) > 0:
			// A server request: window/workDoneProgress/create and
			// client/registerCapability both take a null result. Answered
			// from a goroutine so that a blocked stdin never stalls reading.
			go s.write(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": nil})
		case m.Method == "$/progress":
			var p struct {
				Value struct {
					Kind string `json:"kind"`
				} `json:"value"`
			}
			if json.Unmarshal(m.Params, &p) == nil && p.Value.Kind == "end" {
				s.mu.Lock()
				s.ready = time.Now()
				s.mu.Unlock()
			}
		case m.Method != "":
			// window/logMessage, showMessage: nothing to do.
		default:
			s.mu.Lock()
			ch := s.pending[string(m.ID)]
			delete(s.pending, string(m.ID))
			s.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		}
	}
}

// readFrame reads one Content-Length framed body.
func readFrame(r *bufio.Reader) ([]byte, error) {
	n := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if ok && strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			if n, err = strconv.Atoi(strings.TrimSpace(value)); err != nil {
				return nil, fmt.Errorf("bad Content-Length %q", value)
			}
		}
	}
	if n < 0 {
		return nil, errors.New("a frame without Content-Length")
	}
	body := make([]byte, n)
	_, err := io.ReadFull(r, body)
	return body, err
}

func (s *server) write(v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	var frame bytes.Buffer
	fmt.Fprintf(&frame, "Content-Length: %d\r\n\r\n", len(body))
	frame.Write(body)
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_, err = s.stdin.Write(frame.Bytes())
	return err
}

// notify sends a notification.
func (s *server) notify(method string, params any) error {
	msg := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil { // "params": null is not a valid message
		msg["params"] = params
	}
	if err := s.write(msg); err != nil {
		return fmt.Errorf("sending %s: %w", method, s.why(err))
	}
	return nil
}

// call sends a request and waits at most timeout for its answer. An error
// answer is an *rpcError; a timeout or a dead server is another error.
func (s *server) call(method string, params any, timeout time.Duration) (json.RawMessage, error) {
	s.mu.Lock()
	s.nextID++
	id := strconv.Itoa(s.nextID)
	ch := make(chan message, 1)
	s.pending[id] = ch
	s.mu.Unlock()
	forget := func() {
		s.mu.Lock()
		delete(s.pending, id)
		s.mu.Unlock()
	}
	msg := map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "method": method}
	if params != nil {
		msg["params"] = params
	}
	if err := s.write(msg); err != nil {
		forget()
		return nil, fmt.Errorf("sending %s: %w", method, s.why(err))
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case m := <-ch:
		if m.Error != nil {
			return nil, m.Error
		}
		return m.Result, nil
	case <-s.closed:
		forget()
		return nil, fmt.Errorf("%s: %w", method, s.why(nil))
	case <-timer.C:
		forget()
		return nil, fmt.Errorf("%s: no answer in %s", method, timeout)
	}
}

// why explains a broken connection: the server's exit status when it died.
func (s *server) why(err error) error {
	select {
	case <-s.exitDone:
		return fmt.Errorf("the server exited: %v", s.exitErr)
	case <-time.After(500 * time.Millisecond):
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.readErr != nil {
		return fmt.Errorf("reading from the server: %v", s.readErr)
	}
	if err != nil {
		return err
	}
	return errors.New("the server closed its output")
}

// readyAt is when the last indexing progress ended, zero if none did.
func (s *server) readyAt() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ready
}

// fileURI is the file: URI of an absolute path.
func fileURI(p string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String()
}

// initialize sends initialize (as an editor would: work-done progress,
// dynamic watcher registration, UTF-16 positions, one workspace folder)
// and initialized.
func (s *server) initialize(root string, timeout time.Duration) error {
	uri := fileURI(root)
	params := map[string]any{
		"processId":  os.Getpid(),
		"clientInfo": map[string]any{"name": "indexbench"},
		"rootUri":    uri,
		"capabilities": map[string]any{
			"general":   map[string]any{"positionEncodings": []string{"utf-16"}},
			"window":    map[string]any{"workDoneProgress": true},
			"workspace": map[string]any{"didChangeWatchedFiles": map[string]any{"dynamicRegistration": true}, "workspaceFolders": true},
		},
		"workspaceFolders": []map[string]any{{"uri": uri, "name": filepath.Base(root)}},
	}
	if _, err := s.call("initialize", params, timeout); err != nil {
		return err
	}
	return s.notify("initialized", map[string]any{})
}

// shutdown ends the session as an editor does (shutdown, exit) and waits
// for the process; the server persists its index cache at shutdown, so a
// later warm start depends on this.
func (s *server) shutdown(timeout time.Duration) error {
	_, err := s.call("shutdown", nil, timeout)
	if err == nil {
		err = s.notify("exit", nil)
	}
	s.stdin.Close()
	select {
	case <-s.exitDone:
	case <-time.After(timeout):
		s.kill()
		if err == nil {
			err = fmt.Errorf("the server did not exit within %s of exit", timeout)
		}
	}
	if err == nil && s.exitErr != nil {
		err = fmt.Errorf("the server exited with %v", s.exitErr)
	}
	return err
}

// kill ends the process at once (after a failure) and waits for it.
func (s *server) kill() {
	if s.cmd.Process != nil {
		_ = s.cmd.Process.Kill()
	}
	s.stdin.Close()
	select {
	case <-s.exitDone:
	case <-time.After(10 * time.Second):
	}
}

// logTail is the last n lines of the server's stderr.
func (s *server) logTail(n int) string {
	data, err := os.ReadFile(s.log)
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	return tail(string(data), n)
}

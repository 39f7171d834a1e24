package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// The client is tested against this test binary run as a fake server
// (fakeServer), which answers as a server may: notifications and a server
// request before an answer, answers out of order, parse errors with a null
// id, silence, and an early exit.
func TestMain(m *testing.M) {
	if os.Getenv("MCPBENCH_FAKE_SERVER") == "1" {
		fakeServer()
		return
	}
	os.Exit(m.Run())
}

func fakeServer() {
	out := bufio.NewWriter(os.Stdout)
	send := func(v any) {
		b, _ := json.Marshal(v)
		out.Write(append(b, '\n'))
		out.Flush()
	}
	var held []map[string]any // answers to "later", sent after the next request's
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			send(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": -32700, "message": "Parse error"}})
			continue
		}
		if req.Method == "" {
			continue // the client's answer to our server request
		}
		answer := map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": map[string]any{}}
		switch req.Method {
		case "chatty":
			send(map[string]any{"jsonrpc": "2.0", "method": "notifications/message", "params": map[string]any{"data": "hi"}})
			send(map[string]any{"jsonrpc": "2.0", "id": "s1", "method": "roots/list"})
		case "later":
			held = append(held, answer)
			continue
		case "silent":
			continue
		case "exit":
			os.Exit(3)
		}
		send(answer)
		for _, h := range held {
			send(h)
		}
		held = nil
	}
}

func startFake(t *testing.T, timeout time.Duration) *server {
	t.Helper()
	t.Setenv("MCPBENCH_FAKE_SERVER", "1")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s, err := startServer(exe, []string{"-test.run=^$"}, timeout)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestClient(t *testing.T) {
	s := startFake(t, 5*time.Second)

	// A notification and a server request come first: neither is taken
	// for the answer, and the server request is answered.
	f, _, err := s.call("chatty", nil, "chatty call")
	if err != nil || !f.IsResponse() || f.IDKey() != "1" {
		t.Fatalf("chatty: %v %+v", err, f)
	}

	// An answer held back by the server arrives after later ones and is
	// still matched to its request by id: pings are sent until it comes.
	done := make(chan error, 1)
	go func() {
		f, _, err := s.call("later", nil, "")
		if err == nil && f.IDKey() != "2" {
			err = fmt.Errorf("later got the answer to id %s", f.IDKey())
		}
		done <- err
	}()
	var laterErr error
wait:
	for i := 0; ; i++ {
		select {
		case laterErr = <-done:
			break wait
		case <-time.After(20 * time.Millisecond):
		}
		if i == 100 {
			t.Fatal("the held answer never came")
		}
		if _, _, err := s.call("ping", nil, ""); err != nil {
			t.Fatalf("ping: %v", err)
		}
	}
	if laterErr != nil {
		t.Fatal(laterErr)
	}

	// A line that is not JSON is answered with a null id: an orphan.
	o, err := s.sendRaw("not json", 5*time.Second)
	if err != nil || o.Error == nil || o.Error.Code != -32700 || o.IDKey() != "null" {
		t.Fatalf("sendRaw: %v %+v", err, o)
	}

	// Silence is a timeout, not a hang.
	start := time.Now()
	if _, _, err := s.callWithin("silent", nil, "", 200*time.Millisecond); !errors.Is(err, errTimeout) {
		t.Fatalf("silent: %v", err)
	}
	if time.Since(start) > 2*time.Second {
		t.Error("the timeout took too long")
	}
	if !s.alive() {
		t.Fatal("the server is not alive")
	}

	// An exit ends every wait at once.
	if _, _, err := s.call("exit", nil, ""); !errors.Is(err, errExited) {
		t.Fatalf("exit: %v", err)
	}
	if _, _, err := s.call("ping", nil, ""); !errors.Is(err, errExited) {
		t.Fatalf("ping after the exit: %v", err)
	}
	if s.alive() {
		t.Error("alive after the exit")
	}
	how, _ := s.stop(time.Second)
	if !strings.HasPrefix(how, "had exited before the session ended") || !strings.Contains(how, "exit status 3") {
		t.Errorf("stop: %q", how)
	}

	// Every frame was kept, labelled with what it answered.
	var whats []string
	for _, r := range s.received() {
		whats = append(whats, r.what)
	}
	got := strings.Join(whats, "; ")
	for _, want := range []string{"notification notifications/message", "server request roots/list", "chatty call", "later", "ping", "no id"} {
		if !strings.Contains(got, want) {
			t.Errorf("frames %q lack %q", got, want)
		}
	}
}

func TestClientStop(t *testing.T) {
	s := startFake(t, 5*time.Second)
	if _, _, err := s.call("ping", nil, ""); err != nil {
		t.Fatal(err)
	}
	// The end of its input ends the server, as a host ends a session.
	how, cpu := s.stop(5 * time.Second)
	if how != "exited at the end of its input" {
		t.Errorf("stop: %q", how)
	}
	if cpu < 0 {
		t.Errorf("cpu = %v", cpu)
	}
}

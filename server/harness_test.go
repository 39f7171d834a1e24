package server

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/ctxd/ctxd/handlers"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/server/lsptest"
	"github.com/ctxd/ctxd/workspace"
)

// hangGuard bounds how long a broken test may hang; it is not a performance
// assertion: every wait ends as soon as the awaited message arrives.
const hangGuard = 30 * time.Second

// harness is an in-process server and test client joined by net.Pipe.
type harness struct {
	t    testing.TB
	ctx  context.Context
	srv  *Server
	c    *lsptest.Client
	code chan int
	cli  net.Conn
}

func newHarness(t testing.TB, setup ...func(*Server)) *harness {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	srvConn, cliConn := net.Pipe()
	srv := New(Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Version: "test", Index: index.Options{CacheDir: "off"}})
	for _, f := range setup {
		f(srv)
	}
	h := &harness{t: t, ctx: ctx, srv: srv, code: make(chan int, 1), cli: cliConn}
	go func() { h.code <- srv.Run(ctx, srvConn) }()
	h.c = lsptest.New(cliConn, cliConn)
	t.Cleanup(func() {
		cancel()
		cliConn.Close()
	})
	return h
}

// call sends a request and fails the test when no response arrives.
func (h *harness) call(id any, method string, params any) *lsptest.Message {
	h.t.Helper()
	m, err := h.c.Call(h.ctx, id, method, params)
	if err != nil {
		h.t.Fatalf("%s: %v", method, err)
	}
	return m
}

func (h *harness) notify(method string, params any) {
	h.t.Helper()
	if err := h.c.Notify(method, params); err != nil {
		h.t.Fatalf("%s: %v", method, err)
	}
}

// initialize performs initialize + initialized with the given capabilities.
func (h *harness) initialize(caps map[string]any) *lsptest.Message {
	h.t.Helper()
	if caps == nil {
		caps = map[string]any{}
	}
	m := h.call(1, "initialize", map[string]any{"processId": nil, "rootUri": "file:///work/ws", "capabilities": caps})
	if m.Error != nil {
		h.t.Fatalf("initialize: %v", m.Error)
	}
	h.notify("initialized", map[string]any{})
	return m
}

// exitCode waits for Run to return.
func (h *harness) exitCode() int {
	h.t.Helper()
	select {
	case code := <-h.code:
		return code
	case <-h.ctx.Done():
		h.t.Fatal("server did not stop")
		return -1
	}
}

// status calls ctxd.indexStatus.
func (h *harness) status(id any) workspace.IndexStatusResult {
	h.t.Helper()
	m := h.call(id, "workspace/executeCommand", map[string]any{"command": "ctxd.indexStatus"})
	if m.Error != nil {
		h.t.Fatalf("indexStatus: %v", m.Error)
	}
	var st workspace.IndexStatusResult
	if err := json.Unmarshal(m.Result, &st); err != nil {
		h.t.Fatal(err)
	}
	return st
}

// withContentRequest adds test/content, which returns an open document's
// text so tests can check edits byte for byte.
func withContentRequest(s *Server) {
	s.requests["test/content"] = func(ctx context.Context, sess *handlers.Session, raw json.RawMessage) (any, error) {
		var p struct{ URI string }
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, err
		}
		d, ok := sess.Index.Snapshot().Document(p.URI)
		if !ok {
			return nil, nil
		}
		return string(d.Content()), nil
	}
}

func errCode(m *lsptest.Message) int64 {
	if m.Error == nil {
		return 0
	}
	return m.Error.Code
}

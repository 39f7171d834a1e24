package server

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/ctxd/ctxd/handlers"
	"github.com/ctxd/ctxd/server/lsptest"
)

// blocker adds test/block, which waits until its context is cancelled or
// release is closed, and records each context so a test can check that it
// was released.
type blocker struct {
	mu      sync.Mutex
	started chan string
	release chan struct{}
	ctxs    []context.Context
}

func newBlocker() *blocker {
	return &blocker{started: make(chan string, 10), release: make(chan struct{})}
}

func (b *blocker) install(s *Server) {
	s.requests["test/block"] = func(ctx context.Context, _ *handlers.Session, raw json.RawMessage) (any, error) {
		b.mu.Lock()
		b.ctxs = append(b.ctxs, ctx)
		b.mu.Unlock()
		b.started <- string(raw)
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-b.release:
			return "released", nil
		}
	}
	s.requests["test/echo"] = func(_ context.Context, _ *handlers.Session, raw json.RawMessage) (any, error) {
		return json.RawMessage(raw), nil
	}
	s.requests["test/panic"] = func(context.Context, *handlers.Session, json.RawMessage) (any, error) {
		panic("boom")
	}
	s.notifications["test/panic"] = func(context.Context, *handlers.Session, json.RawMessage) error {
		panic("boom in a notification")
	}
}

func TestRequestsRunConcurrently(t *testing.T) {
	b := newBlocker()
	h := newHarness(t, b.install)
	h.initialize(nil)
	if err := h.c.Start(10, "test/block", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	<-b.started
	// test/block is still running: a later request must not wait for it.
	if m := h.call(11, "test/echo", map[string]any{"x": 1}); m.Error != nil || string(m.Result) != `{"x":1}` {
		t.Fatalf("echo while blocked = %s, %v", m.Result, m.Error)
	}
	close(b.release)
	m, err := h.c.Wait(h.ctx, 10)
	if err != nil || string(m.Result) != `"released"` {
		t.Fatalf("blocked request = %v, %v", m, err)
	}
	waitIdle(t, h)
	for i, ctx := range b.ctxs {
		if ctx.Err() == nil {
			t.Errorf("context of finished request %d was not released", i)
		}
	}
}

func TestCancelRequest(t *testing.T) {
	tests := []struct {
		name string
		id   any
	}{
		{"numeric id", 42},
		{"string id", "req-42"},
		{"large numeric id", 2147483647},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newBlocker()
			h := newHarness(t, b.install)
			h.initialize(nil)
			if err := h.c.Start(tt.id, "test/block", map[string]any{}); err != nil {
				t.Fatal(err)
			}
			<-b.started
			h.notify("$/cancelRequest", map[string]any{"id": tt.id})
			m, err := h.c.Wait(h.ctx, tt.id)
			if err != nil {
				t.Fatal(err)
			}
			if errCode(m) != -32800 {
				t.Fatalf("cancelled request answered %s %v, want -32800", m.Result, m.Error)
			}
			waitIdle(t, h)
			if b.ctxs[0].Err() == nil {
				t.Error("handler context not cancelled")
			}
			// Exactly one answer: the handler's own late reply is dropped.
			if m := h.call(99, "test/echo", map[string]any{}); m.Error != nil {
				t.Fatal(m.Error)
			}
			if _, err := h.c.Wait(cancelledCtx(), tt.id); err == nil {
				t.Error("a second response to the cancelled request was sent")
			}
		})
	}
}

func TestCancelUnknownOrMalformedIsHarmless(t *testing.T) {
	h := newHarness(t)
	h.initialize(nil)
	for _, p := range []any{map[string]any{"id": 12345}, map[string]any{"id": "nope"}, map[string]any{"id": 1.5}, map[string]any{}, "junk"} {
		h.notify("$/cancelRequest", p)
	}
	if m := h.call(2, "workspace/executeCommand", map[string]any{"command": "ctxd.indexStatus"}); m.Error != nil {
		t.Fatal(m.Error)
	}
}

func TestDuplicateRequestID(t *testing.T) {
	b := newBlocker()
	h := newHarness(t, b.install)
	h.initialize(nil)
	if err := h.c.Start(7, "test/block", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	<-b.started
	if m := h.call(7, "test/echo", map[string]any{}); errCode(m) != -32600 {
		t.Fatalf("duplicate id answered %s %v, want -32600", m.Result, m.Error)
	}
	close(b.release)
}

func TestPanicsAreRecovered(t *testing.T) {
	b := newBlocker()
	h := newHarness(t, b.install)
	h.initialize(nil)
	m := h.call(2, "test/panic", map[string]any{})
	if errCode(m) != -32603 || !strings.Contains(m.Error.Message, "test/panic") {
		t.Fatalf("panicking request answered %v, want -32603 naming the method", m.Error)
	}
	h.notify("test/panic", map[string]any{})
	if m := h.call(3, "test/echo", map[string]any{"alive": true}); m.Error != nil {
		t.Fatalf("server stopped serving after panics: %v", m.Error)
	}
}

func TestMalformedFrameKeepsConnection(t *testing.T) {
	h := newHarness(t)
	h.initialize(nil)
	if err := h.c.SendRaw([]byte("Content-Length: nope\r\n\r\n{}")); err != nil {
		t.Fatal(err)
	}
	if err := h.c.SendRaw(lsptest.Frame([]byte(`{"jsonrpc":"2.0","id":5,`))); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		m, err := h.c.Wait(h.ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if errCode(m) != -32700 {
			t.Errorf("bad frame answered %v, want -32700", m.Error)
		}
	}
	if m := h.call(3, "workspace/executeCommand", map[string]any{"command": "ctxd.indexStatus"}); m.Error != nil {
		t.Fatalf("after bad frames: %v", m.Error)
	}
}

// waitIdle waits until no request is in flight.
func waitIdle(t *testing.T, h *harness) {
	t.Helper()
	h.srv.calls.Wait()
	if n := h.srv.inflightCount(); n != 0 {
		t.Fatalf("%d requests still registered after they finished", n)
	}
}

func cancelledCtx() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

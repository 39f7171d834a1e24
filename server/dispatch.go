package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"

	"github.com/ctxd/ctxd/handlers"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// codeRequestCancelled is LSP's RequestCancelled (-32800).
const codeRequestCancelled = protocol.CodeRequestCancelled

// call is one request in flight.
type call struct {
	method string
	cancel context.CancelFunc
	reply  jsonrpc2.Replier
	once   sync.Once
}

// send replies once; later replies (the handler finishing after a cancel)
// are dropped. replyCtx must not be the request's own context: the stream
// refuses to write under a cancelled context.
func (c *call) send(replyCtx context.Context, result any, err error) {
	c.once.Do(func() { _ = c.reply(replyCtx, result, err) })
}

// handle is the connection's jsonrpc2.Handler. It always returns nil: an
// error would make the library close the connection.
func (s *Server) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	switch r := req.(type) {
	case *jsonrpc2.Call:
		s.handleCall(ctx, reply, r)
	case *jsonrpc2.Notification:
		s.handleNotification(ctx, r)
	}
	return nil
}

func (s *Server) handleCall(ctx context.Context, reply jsonrpc2.Replier, req *jsonrpc2.Call) {
	method, st := req.Method(), s.currentState()
	s.logger.Debug("request", "method", method, "id", fmt.Sprintf("%q", req.ID()))
	switch {
	case method == protocol.MethodInitialize && st == stateNew:
		result, err := s.safely(method, func() (any, error) {
			return handlers.Initialize(ctx, s.session, req.Params())
		})
		if err == nil {
			s.setState(stateRunning)
		}
		_ = reply(ctx, result, wireError(err))
	case method == protocol.MethodInitialize:
		_ = reply(ctx, nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "initialize was already received on this connection"))
	case st == stateNew:
		_ = reply(ctx, nil, jsonrpc2.Errorf(jsonrpc2.ServerNotInitialized, "%s before initialize: the server is not initialized", method))
	case st == stateShutdown:
		_ = reply(ctx, nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%s after shutdown: the server only accepts exit now", method))
	case method == protocol.MethodShutdown:
		s.setState(stateShutdown)
		_ = reply(ctx, nil, nil)
	default:
		h, ok := s.requests[method]
		if !ok {
			_ = reply(ctx, nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "method not found: %s", method))
			return
		}
		s.startCall(ctx, reply, req, h)
	}
}

// startCall runs one request on a goroutine of its own. It runs on the
// read loop, so the request's context carries the open documents exactly
// as the notifications before it left them (Service.Received): what the
// goroutine reads does not depend on when it gets to run.
func (s *Server) startCall(ctx context.Context, reply jsonrpc2.Replier, req *jsonrpc2.Call, h handlers.RequestFunc) {
	key := idKey(req.ID())
	cctx, cancel := context.WithCancel(s.session.Service.Received(ctx))
	c := &call{method: req.Method(), cancel: cancel, reply: reply}
	s.mu.Lock()
	_, dup := s.inflight[key]
	if !dup {
		s.inflight[key] = c
	}
	s.mu.Unlock()
	if dup {
		cancel()
		_ = reply(ctx, nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "request id %s is already in use by a request in flight", key))
		return
	}
	s.calls.Add(1)
	go func() {
		defer s.calls.Done()
		defer s.finish(key, c)
		result, err := s.safely(c.method, func() (any, error) { return h(cctx, s.session, req.Params()) })
		c.send(ctx, result, wireError(err))
	}()
}

// finish forgets a request and releases its context.
func (s *Server) finish(key string, c *call) {
	s.mu.Lock()
	if s.inflight[key] == c {
		delete(s.inflight, key)
	}
	s.mu.Unlock()
	c.cancel()
}

// inflightCount is the number of requests not yet finished.
func (s *Server) inflightCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.inflight)
}

// cancelAll cancels every request in flight; used at exit.
func (s *Server) cancelAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.inflight {
		c.cancel()
	}
}

func (s *Server) handleNotification(ctx context.Context, n *jsonrpc2.Notification) {
	method, st := n.Method(), s.currentState()
	switch {
	case method == protocol.MethodExit:
		code := exitCodeFor(st)
		s.logger.Info("exit", "state", st, "exit_code", code)
		// Whatever the client sends between exit and the close is refused
		// without starting work the process will not wait for.
		s.setState(stateShutdown)
		select {
		case s.exitCode <- code:
		default: // a second exit changes nothing
		}
	case st == stateNew:
		s.logger.Debug("notification before initialize dropped", "method", method)
	case method == protocol.MethodCancelRequest:
		s.cancelRequest(ctx, n.Params())
	case st == stateShutdown:
		s.logger.Debug("notification after shutdown dropped", "method", method)
	default:
		h, ok := s.notifications[method]
		if !ok {
			// Unknown notifications, $/ ones included, are ignored per spec.
			s.logger.Debug("unknown notification ignored", "method", method)
			return
		}
		if _, err := s.safely(method, func() (any, error) { return nil, h(ctx, s.session, n.Params()) }); err != nil {
			s.logger.Warn("notification not applied", "method", method, "err", err)
		}
	}
}

// cancelRequest handles $/cancelRequest. The id may be a number or a string
// (go.lsp.dev's own handler silently ignores numbers: they decode as
// float64). The request is answered with RequestCancelled at once; its
// handler sees a cancelled context and its eventual result is dropped.
func (s *Server) cancelRequest(ctx context.Context, raw json.RawMessage) {
	var p struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(raw, &p); err != nil || len(p.ID) == 0 {
		s.logger.Warn("malformed $/cancelRequest ignored", "err", err)
		return
	}
	key, err := rawIDKey(p.ID)
	if err != nil {
		s.logger.Warn("malformed $/cancelRequest ignored", "err", err)
		return
	}
	s.mu.Lock()
	c := s.inflight[key]
	s.mu.Unlock()
	if c == nil {
		s.logger.Debug("cancel for a request not in flight", "id", key)
		return
	}
	c.send(ctx, nil, jsonrpc2.Errorf(codeRequestCancelled, "request %s (%s) was cancelled", key, c.method))
	c.cancel()
}

// idKey renders a request id so that the number 5 and the string "5" differ.
func idKey(id jsonrpc2.ID) string { return fmt.Sprintf("%q", id) }

// rawIDKey renders an id from its JSON form exactly as idKey does.
func rawIDKey(raw json.RawMessage) (string, error) {
	var str string
	if err := json.Unmarshal(raw, &str); err == nil {
		return strconv.Quote(str), nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(raw)), 10, 32)
	if err != nil {
		return "", fmt.Errorf("id %s is neither a string nor an int32", raw)
	}
	return "#" + strconv.FormatInt(n, 10), nil
}

// safely runs f, turning a panic into an InternalError so that one bad
// request cannot take down a sidecar the user does not control.
func (s *Server) safely(method string, f func() (any, error)) (result any, err error) {
	defer func() {
		if r := recover(); r != nil {
			s.logger.Error("handler panicked", "method", method, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			result, err = nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "internal error in %s: the server logged the details and keeps serving", method)
		}
	}()
	return f()
}

// wireError gives every error a JSON-RPC code: a plain Go error would go out
// with code 0.
func wireError(err error) error {
	if err == nil {
		return nil
	}
	var wire *jsonrpc2.Error
	if errors.As(err, &wire) {
		return wire
	}
	if errors.Is(err, context.Canceled) {
		return jsonrpc2.NewError(codeRequestCancelled, err.Error())
	}
	return jsonrpc2.NewError(jsonrpc2.InternalError, err.Error())
}

// isEOF reports whether err means the peer or ctxd itself closed the
// stream, as opposed to a failure worth reporting.
func isEOF(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) || errors.Is(err, net.ErrClosed) || errors.Is(err, os.ErrClosed)
}

// Package lsptest is a test LSP client that speaks framed JSON-RPC over any
// byte stream: an in-process server over net.Pipe or the real binary over
// its stdin and stdout. It works at the wire level (raw ids, raw frames) so
// that tests can send exactly what a buggy or hostile client would.
//
// The main type is [Client]; it answers the server's own requests
// (window/workDoneProgress/create) and records every notification.
package lsptest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/textproto"
	"strconv"
	"sync"
)

// Message is any JSON-RPC message as seen on the wire.
type Message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *WireError      `json:"error,omitempty"`
}

// WireError is a JSON-RPC error object.
type WireError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Error makes a WireError usable as a Go error.
func (e *WireError) Error() string { return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message) }

// Client is a test LSP client. Its zero value is not usable; call [New].
type Client struct {
	w   io.Writer
	wmu sync.Mutex

	// AnswerServerRequest, when set before the server sends a request,
	// decides the answer; nil answers every server request with a null
	// result.
	AnswerServerRequest func(m *Message) (result any, err *WireError)

	mu            sync.Mutex
	changed       chan struct{}         // closed and replaced on every received message
	responses     map[string][]*Message // by id; a queue, since null ids repeat
	notifications []*Message
	requests      []*Message
	frames        int
	readErr       error
	done          chan struct{}
}

// New starts a client reading r and writing w.
func New(r io.Reader, w io.Writer) *Client {
	c := &Client{w: w, changed: make(chan struct{}), responses: map[string][]*Message{}, done: make(chan struct{})}
	go c.readLoop(bufio.NewReader(r))
	return c
}

// Done is closed when the server's output ends; [Client.Err] says why.
func (c *Client) Done() <-chan struct{} { return c.done }

// Err returns the error that ended the read loop (io.EOF for a clean end).
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.readErr
}

// Frames returns how many frames the server has sent so far.
func (c *Client) Frames() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.frames
}

// SendRaw writes b to the server as is: no framing is added.
func (c *Client) SendRaw(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.w.Write(b)
	return err
}

// Frame wraps body in an LSP Content-Length frame.
func Frame(body []byte) []byte {
	return append([]byte("Content-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"), body...)
}

// Send marshals msg and writes it as one frame.
func (c *Client) Send(msg any) error {
	body, err := json.Marshal(msg)
	if err != nil {
		return fmt.Errorf("marshaling message: %w", err)
	}
	return c.SendRaw(Frame(body))
}

// Notify sends a notification.
func (c *Client) Notify(method string, params any) error {
	return c.Send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// Start sends a request with the given id (a number or a string); params nil
// omits the member. Wait for its answer with [Client.Wait].
func (c *Client) Start(id any, method string, params any) error {
	msg := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	return c.Send(msg)
}

// Call sends a request and waits for its response.
func (c *Client) Call(ctx context.Context, id any, method string, params any) (*Message, error) {
	if err := c.Start(id, method, params); err != nil {
		return nil, err
	}
	return c.Wait(ctx, id)
}

// Wait returns the response with the given id (nil waits for a response
// with a null id, the answer to a frame the server could not parse).
func (c *Client) Wait(ctx context.Context, id any) (*Message, error) {
	raw, err := json.Marshal(id)
	if err != nil {
		return nil, err
	}
	key := idKey(raw)
	return c.waitFor(ctx, func() *Message {
		q := c.responses[key]
		if len(q) == 0 {
			return nil
		}
		c.responses[key] = q[1:]
		return q[0]
	})
}

// WaitNotification returns the first recorded notification of method for
// which match (nil matches all) is true, waiting for it if needed.
func (c *Client) WaitNotification(ctx context.Context, method string, match func(*Message) bool) (*Message, error) {
	return c.waitFor(ctx, func() *Message {
		for _, m := range c.notifications {
			if m.Method == method && (match == nil || match(m)) {
				return m
			}
		}
		return nil
	})
}

// Notifications returns the notifications received so far.
func (c *Client) Notifications() []*Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*Message(nil), c.notifications...)
}

// ServerRequests returns the requests the server sent so far.
func (c *Client) ServerRequests() []*Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*Message(nil), c.requests...)
}

// waitFor polls find under the lock each time a message arrives.
func (c *Client) waitFor(ctx context.Context, find func() *Message) (*Message, error) {
	for {
		c.mu.Lock()
		m, changed, readErr := find(), c.changed, c.readErr
		c.mu.Unlock()
		if m != nil {
			return m, nil
		}
		if readErr != nil {
			return nil, fmt.Errorf("server output ended: %w", readErr)
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func (c *Client) readLoop(r *bufio.Reader) {
	defer close(c.done)
	for {
		body, err := ReadFrame(r)
		if err != nil {
			c.record(func() { c.readErr = err })
			return
		}
		var m Message
		if err := json.Unmarshal(body, &m); err != nil {
			c.record(func() { c.readErr = fmt.Errorf("server sent a frame that is not a message: %w", err) })
			return
		}
		switch {
		case m.Method != "" && m.ID != nil:
			c.record(func() { c.requests = append(c.requests, &m) })
			c.answer(&m)
		case m.Method != "":
			c.record(func() { c.notifications = append(c.notifications, &m) })
		default:
			c.record(func() { c.responses[idKey(m.ID)] = append(c.responses[idKey(m.ID)], &m) })
		}
	}
}

func (c *Client) answer(m *Message) {
	var result any
	var werr *WireError
	if c.AnswerServerRequest != nil {
		result, werr = c.AnswerServerRequest(m)
	}
	reply := map[string]any{"jsonrpc": "2.0", "id": m.ID}
	if werr != nil {
		reply["error"] = werr
	} else {
		reply["result"] = result
	}
	_ = c.Send(reply)
}

// record applies f under the lock and wakes every waiter.
func (c *Client) record(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f()
	c.frames++
	close(c.changed)
	c.changed = make(chan struct{})
}

func idKey(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "null"
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

// ReadFrame reads one Content-Length framed body. It is strict: the server
// must always frame correctly.
func ReadFrame(r *bufio.Reader) ([]byte, error) {
	hdr, err := textproto.NewReader(r).ReadMIMEHeader()
	if err != nil {
		if errors.Is(err, io.EOF) && len(hdr) == 0 {
			return nil, io.EOF
		}
		return nil, fmt.Errorf("reading header: %w", err)
	}
	n, err := strconv.Atoi(hdr.Get("Content-Length"))
	if err != nil || n <= 0 {
		return nil, fmt.Errorf("bad Content-Length %q from server", hdr.Get("Content-Length"))
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, fmt.Errorf("reading body: %w", err)
	}
	return body, nil
}

// ProgressEvent is one $/progress notification of work-done progress,
// decoded: the token and the value's members. Percentage is nil when the
// value has none.
type ProgressEvent struct {
	Token      string
	Kind       string
	Title      string
	Message    string
	Percentage *int
}

// Progress decodes the $/progress notifications received so far, in order.
// A token that is not a string is kept as its JSON text.
func (c *Client) Progress() ([]ProgressEvent, error) {
	return decodeProgress(c.Notifications())
}

func decodeProgress(notifications []*Message) ([]ProgressEvent, error) {
	var out []ProgressEvent
	for _, n := range notifications {
		if n.Method != "$/progress" {
			continue
		}
		var p struct {
			Token json.RawMessage `json:"token"`
			Value struct {
				Kind       string `json:"kind"`
				Title      string `json:"title"`
				Message    string `json:"message"`
				Percentage *int   `json:"percentage"`
			} `json:"value"`
		}
		if err := json.Unmarshal(n.Params, &p); err != nil {
			return nil, fmt.Errorf("decoding $/progress %s: %w", n.Params, err)
		}
		token := string(p.Token)
		var s string
		if json.Unmarshal(p.Token, &s) == nil {
			token = s
		}
		out = append(out, ProgressEvent{Token: token, Kind: p.Value.Kind, Title: p.Value.Title, Message: p.Value.Message, Percentage: p.Value.Percentage})
	}
	return out, nil
}

// WaitProgressEnd waits for the first $/progress "end" whose token's begin
// has title and returns every event of that token, in order.
func (c *Client) WaitProgressEnd(ctx context.Context, title string) ([]ProgressEvent, error) {
	var events []ProgressEvent
	var decodeErr error
	_, err := c.waitFor(ctx, func() *Message {
		// Called under c.mu: decode the recorded notifications directly.
		all, err := decodeProgress(c.notifications)
		if err != nil {
			decodeErr = err
			return &Message{}
		}
		for _, e := range all {
			if e.Kind != "begin" || e.Title != title {
				continue
			}
			var mine []ProgressEvent
			for _, f := range all {
				if f.Token == e.Token {
					mine = append(mine, f)
				}
			}
			if mine[len(mine)-1].Kind == "end" {
				events = mine
				return &Message{}
			}
		}
		return nil
	})
	if decodeErr != nil {
		return nil, decodeErr
	}
	return events, err
}

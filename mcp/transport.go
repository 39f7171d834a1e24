package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxFrameBytes is the size limit of one incoming message when
// [StdioTransport].MaxFrameBytes is 0: far above any real request (a
// tool call's arguments), low enough that a client cannot make the
// server buffer an unbounded line.
const DefaultMaxFrameBytes = 16 << 20

// DefaultDrainTimeout is how long, when [StdioTransport].DrainTimeout is
// 0, the session outlives the end of its input for the requests still
// being handled: long enough for a context build on a large workspace.
const DefaultDrainTimeout = 2 * time.Minute

// StdioTransport is the [sdk.Transport] of `ctxd mcp`: the server side of
// MCP's stdio transport, newline-delimited JSON-RPC, made robust where
// the SDK's [sdk.IOTransport] is not (docs/dependency-defects.md).
//
//   - Framing is one message per line, not a JSON stream: a malformed
//     or truncated line cannot swallow the next one. CRLF and whitespace
//     around a message are tolerated, blank lines skipped.
//   - Every line is checked before the SDK sees it. One that is not a
//     JSON-RPC 2.0 message MCP allows (invalid JSON, a batch, a null or
//     fractional id, a line over MaxFrameBytes, …) is answered by the
//     transport with a JSON-RPC error response, and reading goes on; the
//     SDK would end the session or stay silent.
//   - The response to a request the client cancelled
//     (notifications/cancelled) is not sent, as the specification asks.
//   - At the end of the input, the requests being handled still get their
//     responses: the session ends once they are written, after
//     DrainTimeout, or as soon as the server waits for an answer from the
//     client, which can no longer come.
//
// Error responses and logs say what is wrong with a line, never what it
// holds: a request may carry secrets.
type StdioTransport struct {
	// Reader is the client's side of the conversation (stdin); closed
	// when the session ends.
	Reader io.ReadCloser
	// Writer receives the server's messages (stdout); closed when the
	// session ends.
	Writer io.WriteCloser
	// MaxFrameBytes is the size limit of one incoming line, not counting
	// its newline; 0 means [DefaultMaxFrameBytes]. A longer line is
	// skipped and answered with an error.
	MaxFrameBytes int
	// Logger receives what the transport refuses or drops (kinds and
	// sizes, never contents); nil means slog.Default().
	Logger *slog.Logger
	// DrainTimeout bounds the wait, at the end of the input, for the
	// responses of requests still being handled; 0 means
	// [DefaultDrainTimeout], a negative value not to wait.
	DrainTimeout time.Duration

	connected atomic.Bool
}

// Connect starts reading t.Reader and returns the connection the SDK
// serves the session on. A StdioTransport connects once.
func (t *StdioTransport) Connect(context.Context) (sdk.Connection, error) {
	if t.Reader == nil || t.Writer == nil {
		return nil, errors.New("stdio transport: Reader and Writer are required")
	}
	if t.connected.Swap(true) {
		return nil, errors.New("stdio transport: already connected")
	}
	c := &stdioConn{
		in:           t.Reader,
		out:          t.Writer,
		log:          t.Logger,
		max:          t.MaxFrameBytes,
		drainTimeout: t.DrainTimeout,
		lines:        make(chan stdioLine),
		closed:       make(chan struct{}),
		inflight:     make(map[string]bool),
		outgoing:     make(map[string]bool),
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	if c.max <= 0 {
		c.max = DefaultMaxFrameBytes
	}
	if c.drainTimeout == 0 {
		c.drainTimeout = DefaultDrainTimeout
	}
	// Reading happens on its own goroutine so that Read can return at
	// Close even when the stream's Read does not (a terminal's stdin
	// may not unblock when closed).
	go c.readLines()
	return c, nil
}

// stdioConn is the [sdk.Connection] of a [StdioTransport].
type stdioConn struct {
	in           io.ReadCloser
	out          io.WriteCloser
	log          *slog.Logger
	max          int
	drainTimeout time.Duration

	// lines carries what readLines read; it is closed at the end of the
	// input, after inErr is set.
	lines chan stdioLine
	inErr error // the input's error other than io.EOF

	// end is what Read returns once it has returned an error: the
	// connection does not read again. Only Read uses it, and the SDK
	// never calls Read concurrently.
	end error

	closeOnce sync.Once
	closed    chan struct{}
	closeErr  error

	writeMu sync.Mutex // one message at a time on out

	mu sync.Mutex
	// inflight holds the canonical ids of the requests read and not
	// answered yet, each with whether the client cancelled it.
	inflight map[string]bool
	// writing counts the responses taken out of inflight and still
	// being written, so that the drain at the end of input does not
	// end the session under them.
	writing int
	// outgoing holds the canonical ids of the server's own requests the
	// client has not answered yet.
	outgoing map[string]bool
	// drained, while Read waits at the end of input, is closed when it
	// can stop waiting.
	drained chan struct{}

	// initialized is set when the client's notifications/initialized
	// passes: before it, only initialize and ping are requests a client
	// may send (the MCP lifecycle). Only Read's goroutine uses it.
	initialized bool
}

// stdioLine is one line of input without its newline; an oversize line
// has nil data and its size.
type stdioLine struct {
	data []byte
	size int
}

// readLines reads the input line by line into c.lines until its end (or
// a read error, or Close).
func (c *stdioConn) readLines() {
	defer close(c.lines)
	br := bufio.NewReaderSize(c.in, 64<<10)
	for {
		l, consumed, err := readStdioLine(br, c.max)
		if consumed > 0 && (l.data == nil || len(bytes.Trim(l.data, jsonSpace)) > 0) {
			select {
			case c.lines <- l:
			case <-c.closed:
				return
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				c.inErr = err
			}
			return
		}
	}
}

// jsonSpace is JSON's whitespace: what may surround a message on its
// line (the CR of a CRLF among it).
const jsonSpace = " \t\r\n"

// readStdioLine reads up to and including the next newline, or to the end of
// the input, and returns the line without its newline; consumed is the
// number of bytes read. A line of more than max bytes is consumed whole
// but not kept: its data is nil. err is set when the input ended or
// failed (a last line without a newline is still returned).
func readStdioLine(br *bufio.Reader, max int) (l stdioLine, consumed int, err error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		consumed += len(chunk)
		// Keep at most max bytes and the newline: beyond that the line
		// is refused anyway, and memory stays bounded.
		if consumed <= max+1 {
			buf = append(buf, chunk...)
		} else {
			buf = nil
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		size := consumed
		if err == nil {
			size-- // the newline
		}
		if size > max {
			return stdioLine{size: size}, consumed, err
		}
		if buf == nil {
			buf = []byte{} // an empty line is not an oversize one
		}
		return stdioLine{data: bytes.TrimSuffix(buf, []byte("\n"))}, consumed, err
	}
}

// Read returns the next valid message. Invalid lines are answered here
// and skipped. At the end of the input it waits for the requests still
// in flight to be answered before it returns io.EOF, because the SDK
// stops writing responses once Read fails.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	if c.end != nil {
		return nil, c.end
	}
	for {
		select {
		case <-c.closed:
			return nil, io.EOF
		default:
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case l, ok := <-c.lines:
			if !ok {
				c.end = c.endOfInput(ctx)
				return nil, c.end
			}
			msg, err := c.accept(l)
			if err != nil {
				c.end = err
				return nil, err
			}
			if msg != nil {
				return msg, nil
			}
		}
	}
}

// endOfInput waits until the requests read have been answered, the
// drain timeout passed, or the connection closed, and returns the error
// that ends the session.
func (c *stdioConn) endOfInput(ctx context.Context) error {
	end := error(io.EOF)
	if c.inErr != nil {
		end = fmt.Errorf("reading input: %w", c.inErr)
	}
	c.mu.Lock()
	pending := len(c.inflight) + c.writing
	if c.drainDoneLocked() || c.drainTimeout < 0 {
		c.mu.Unlock()
		return end
	}
	wait := make(chan struct{})
	c.drained = wait
	c.mu.Unlock()
	c.log.Info("end of MCP input; finishing the requests in flight", "requests", pending)
	timer := time.NewTimer(c.drainTimeout)
	defer timer.Stop()
	select {
	case <-wait:
	case <-timer.C:
		c.mu.Lock()
		pending = len(c.inflight) + c.writing
		c.mu.Unlock()
		c.log.Warn("MCP requests still unanswered after the end of input; ending the session", "requests", pending, "waited", c.drainTimeout)
	case <-c.closed:
	case <-ctx.Done():
		return ctx.Err()
	}
	return end
}

// drainDoneLocked reports whether the end of input need not be held any
// longer: every request read was answered, or the server is waiting for
// an answer from the client, which can no longer come (the SDK fails
// those calls, and the handlers waiting on them, only once Read fails).
func (c *stdioConn) drainDoneLocked() bool {
	return len(c.inflight) == 0 && c.writing == 0 || len(c.outgoing) > 0
}

// signalLocked ends the wait of endOfInput if it is waiting and may stop.
func (c *stdioConn) signalLocked() {
	if c.drained != nil && c.drainDoneLocked() {
		close(c.drained)
		c.drained = nil
	}
}

// A lineRefusal is a line the transport does not pass on: answered with a
// JSON-RPC error unless drop is set, and logged by its kind.
type lineRefusal struct {
	kind string          // for the log
	id   json.RawMessage // the id echoed; nil is null
	code int64
	msg  string // the error's message: never quotes the line
	drop bool   // no answer (a response or a notification)
}

// accept checks one line and returns the message to pass on, or nil when
// the line was answered or dropped here. Its error ends the session: the
// transport's own answer could not be written.
func (c *stdioConn) accept(l stdioLine) (jsonrpc.Message, error) {
	var msg jsonrpc.Message
	var r *lineRefusal
	if l.data == nil {
		r = &lineRefusal{kind: "too large", code: jsonrpc.CodeInvalidRequest,
			msg: fmt.Sprintf("message too large: over %d bytes", c.max)}
	} else {
		data := bytes.Trim(l.data, jsonSpace)
		l.size = len(data)
		msg, r = c.check(data)
	}
	if r == nil {
		return msg, nil
	}
	if r.drop {
		c.log.Warn("dropped an MCP message", "reason", r.kind, "bytes", l.size)
		return nil, nil
	}
	c.log.Warn("refused an MCP message", "reason", r.kind, "bytes", l.size, "code", r.code)
	data, err := json.Marshal(stdioError{JSONRPC: "2.0", ID: r.id, Error: &jsonrpc.Error{Code: r.code, Message: r.msg}})
	if err != nil {
		return nil, fmt.Errorf("encoding an error response: %w", err)
	}
	if err := c.writeLine(data); err != nil {
		if errors.Is(err, sdk.ErrConnectionClosed) {
			return nil, io.EOF
		}
		return nil, fmt.Errorf("answering an invalid message: %w", err)
	}
	return nil, nil
}

// stdioError is a JSON-RPC error response as the transport writes it:
// unlike [jsonrpc.EncodeMessage], which omits a null id, it always has
// its "id", null when the request's could not be read (JSON-RPC 2.0,
// section 5).
type stdioError struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   *jsonrpc.Error  `json:"error"`
}

// MCP's methods the transport looks at: the cancellation notification,
// and the lifecycle's (a session is initialized by the initialize request
// and then the client's initialized notification; ping is answered at
// any time).
const (
	methodCancelled   = "notifications/cancelled"
	methodInitialize  = "initialize"
	methodInitialized = "notifications/initialized"
	methodPing        = "ping"
)

// check validates one trimmed, non-empty line and records the request it
// holds, or says why it is refused.
func (c *stdioConn) check(data []byte) (jsonrpc.Message, *lineRefusal) {
	invalid := func(kind string, id json.RawMessage, msg string) *lineRefusal {
		return &lineRefusal{kind: kind, id: id, code: jsonrpc.CodeInvalidRequest, msg: msg}
	}
	if !json.Valid(data) {
		// Also two values on one line, and a line cut short.
		return nil, &lineRefusal{kind: "invalid JSON", code: jsonrpc.CodeParseError, msg: "parse error: the line is not one JSON value"}
	}
	switch data[0] {
	case '{':
	case '[':
		return nil, invalid("batch", nil, "invalid request: batches are not supported; send one message per line")
	default:
		return nil, invalid("not an object", nil, "invalid request: a message must be a JSON object")
	}
	members, err := topLevelMembers(data)
	if err != nil {
		return nil, invalid("duplicate member", nil, "invalid request: a member appears twice")
	}
	rawID, hasID := members["id"]
	var id wireID
	if hasID {
		id = parseWireID(rawID)
	}
	if v, ok := members["jsonrpc"]; !ok || string(v) != `"2.0"` {
		return nil, invalid("not JSON-RPC 2.0", id.echo, `invalid request: "jsonrpc" must be "2.0"`)
	}
	method, hasMethod := members["method"]
	if hasMethod && method[0] != '"' {
		return nil, invalid("method not a string", id.echo, `invalid request: "method" must be a string`)
	}
	if hasID {
		switch id.problem {
		case idNull:
			if !hasMethod {
				// A client's answer to a message it could not read:
				// nothing to answer, nothing the SDK waits for.
				return nil, &lineRefusal{kind: "response with a null id", drop: true}
			}
			return nil, invalid("null id", nil, `invalid request: "id" must be a string or an integer, not null`)
		case idWrongType:
			return nil, invalid("id of a wrong type", nil, `invalid request: "id" must be a string or an integer`)
		case idOutOfRange:
			return nil, invalid("id out of range", id.echo, `invalid request: an integer "id" must be within ±(2^53-1)`)
		}
	}
	msg, err := jsonrpc.DecodeMessage(data)
	if err != nil {
		// Its error may quote the line: not repeated.
		return nil, invalid("undecodable", id.echo, "invalid request: not a JSON-RPC request, notification or response")
	}
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if m.IsCall() && !c.initialized && m.Method != methodInitialize && m.Method != methodPing {
			// The SDK answers these with an error of code 0, which is no
			// JSON-RPC error code; the request is invalid in this state.
			return nil, invalid("before initialization", id.echo,
				"invalid request: the session is not initialized; send initialize, then notifications/initialized, first (ping is allowed)")
		}
		if !m.IsCall() && m.Method == methodInitialized {
			c.initialized = true
		}
		if m.IsCall() {
			key := wireIDKey(m.ID)
			c.mu.Lock()
			_, busy := c.inflight[key]
			if !busy {
				c.inflight[key] = false
			}
			c.mu.Unlock()
			if busy {
				// The SDK would answer nothing, and the client could not
				// tell the two answers apart.
				return nil, invalid("id in use", id.echo, `invalid request: "id" is that of a request still in flight`)
			}
			return m, nil
		}
		if m.Method == methodCancelled {
			key, ok := cancelledID(m.Params)
			if !ok {
				// The SDK would cancel the request of the id rounded.
				return nil, &lineRefusal{kind: "cancellation without a valid requestId", drop: true}
			}
			c.mu.Lock()
			if _, ok := c.inflight[key]; ok {
				c.inflight[key] = true
			}
			c.mu.Unlock()
		}
	case *jsonrpc.Response:
		c.mu.Lock()
		delete(c.outgoing, wireIDKey(m.ID))
		c.mu.Unlock()
	}
	return msg, nil
}

// topLevelMembers splits a valid JSON object into its members, refusing a
// name that appears twice, which two decoders could read differently.
func topLevelMembers(data []byte) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil { // {
		return nil, fmt.Errorf("reading an object: %w", err)
	}
	members := make(map[string]json.RawMessage)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("reading a member's name: %w", err)
		}
		name, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("reading a member: %w", err)
		}
		if _, dup := members[name]; dup {
			return nil, errors.New("duplicate member")
		}
		members[name] = v
	}
	return members, nil
}

// Problems of a message's id.
const (
	idOK = iota
	idNull
	idWrongType  // an object, array, boolean or fractional number
	idOutOfRange // an integer a float64 does not hold exactly
)

// maxSafeID is the largest integer id the SDK keeps exactly: it decodes
// ids as float64 and would answer 2^53+1 with 2^53.
const maxSafeID = 1<<53 - 1

// wireID is an id as read from a line: echo is its canonical JSON for an
// error response (nil for null), key its tracking key.
type wireID struct {
	problem int
	echo    json.RawMessage
	key     string
}

// parseWireID reads the raw JSON of an id.
func parseWireID(raw json.RawMessage) wireID {
	switch {
	case raw[0] == 'n':
		return wireID{problem: idNull}
	case raw[0] == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return wireID{problem: idWrongType}
		}
		key := stringIDKey(s)
		return wireID{echo: json.RawMessage(key), key: key}
	case raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9':
		if bytes.ContainsAny(raw, ".eE") {
			return wireID{problem: idWrongType}
		}
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil || n > maxSafeID || n < -maxSafeID {
			return wireID{problem: idOutOfRange, echo: raw}
		}
		key := strconv.FormatInt(n, 10)
		return wireID{echo: json.RawMessage(key), key: key}
	}
	return wireID{problem: idWrongType}
}

// wireIDKey is the tracking key of an id the SDK decoded or writes: its
// canonical JSON, so that 1 and "1" are different ids.
func wireIDKey(id jsonrpc.ID) string {
	switch v := id.Raw().(type) {
	case int64:
		return strconv.FormatInt(v, 10)
	case string:
		return stringIDKey(v)
	}
	return "null"
}

// stringIDKey is the canonical JSON of a string id.
func stringIDKey(s string) string {
	data, _ := json.Marshal(s) // a string always encodes
	return string(data)
}

// cancelledID returns the tracking key of the requestId of a
// notifications/cancelled, and false when it has none that is valid.
func cancelledID(params json.RawMessage) (string, bool) {
	var p map[string]json.RawMessage
	if err := json.Unmarshal(params, &p); err != nil {
		return "", false
	}
	raw, ok := p["requestId"] // exact case, as the SDK reads it
	if !ok {
		return "", false
	}
	id := parseWireID(raw)
	return id.key, id.problem == idOK
}

// Write sends msg on its own line. A response to a request the client
// cancelled is dropped.
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding a message: %w", err)
	}
	switch m := msg.(type) {
	case *jsonrpc.Response:
		key := wireIDKey(m.ID)
		c.mu.Lock()
		cancelled, inflight := c.inflight[key]
		delete(c.inflight, key)
		if cancelled {
			c.signalLocked()
			c.mu.Unlock()
			c.log.Debug("dropped the response to a cancelled MCP request")
			return nil
		}
		if inflight {
			// The id is free again as soon as the client can see the
			// response; the drain still waits for the write.
			c.writing++
			defer func() {
				c.mu.Lock()
				c.writing--
				c.signalLocked()
				c.mu.Unlock()
			}()
		}
		c.mu.Unlock()
	case *jsonrpc.Request:
		if m.IsCall() {
			key := wireIDKey(m.ID)
			c.mu.Lock()
			c.outgoing[key] = true
			c.signalLocked()
			c.mu.Unlock()
			if err := c.writeLine(data); err != nil {
				c.mu.Lock()
				delete(c.outgoing, key)
				c.mu.Unlock()
				return err
			}
			return nil
		}
		if m.Method == methodCancelled {
			// The SDK gave up on one of its calls: no answer is awaited.
			if key, ok := cancelledID(m.Params); ok {
				c.mu.Lock()
				delete(c.outgoing, key)
				c.mu.Unlock()
			}
		}
	}
	return c.writeLine(data)
}

// writeLine writes data and a newline, one message at a time.
func (c *stdioConn) writeLine(data []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	select {
	case <-c.closed:
		return fmt.Errorf("writing a message: %w", sdk.ErrConnectionClosed)
	default:
	}
	if _, err := c.out.Write(append(data, '\n')); err != nil {
		select {
		case <-c.closed:
			return fmt.Errorf("writing a message: %w", sdk.ErrConnectionClosed)
		default:
		}
		return fmt.Errorf("writing a message: %w", err)
	}
	return nil
}

// Close closes both streams, which ends Read; it may be called more than
// once, and concurrently.
func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		if err := errors.Join(c.in.Close(), c.out.Close()); err != nil {
			c.closeErr = fmt.Errorf("closing stdio: %w", err)
		}
	})
	return c.closeErr
}

// SessionID is empty: a stdio connection is its own session.
func (c *stdioConn) SessionID() string { return "" }

package framing_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"

	"go.lsp.dev/jsonrpc2"
)

// pingBody is the valid message that follows every bad frame in the table
// tests: reading it proves the stream recovered.
const pingBody = `{"jsonrpc":"2.0","id":7,"method":"ping","params":{}}`

var discardLogger = slog.New(slog.DiscardHandler)

// frame wraps body in a correct LSP header.
func frame(body string) string {
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
}

// fakeConn reads from a fixed reader and records writes. Its writer has no
// locking of its own on purpose: under -race, that makes any write the
// stream fails to serialise a reported data race.
type fakeConn struct {
	r      io.Reader
	out    bytes.Buffer
	closed bool
}

func (c *fakeConn) Read(p []byte) (int, error)  { return c.r.Read(p) }
func (c *fakeConn) Write(p []byte) (int, error) { return c.out.Write(p) }
func (c *fakeConn) Close() error                { c.closed = true; return nil }

// readStrictFrame reads one frame in exactly the form the stream must
// write: a single "Content-Length: N" header, CRLF line ends, and an N-byte
// body that is valid JSON. It returns io.EOF only at a frame boundary.
func readStrictFrame(br *bufio.Reader) ([]byte, error) {
	line, err := br.ReadString('\n')
	if err != nil {
		if errors.Is(err, io.EOF) && line == "" {
			return nil, io.EOF
		}
		return nil, fmt.Errorf("truncated header %q: %w", line, err)
	}
	const prefix = "Content-Length: "
	if len(line) < len(prefix)+3 || line[:len(prefix)] != prefix || line[len(line)-2:] != "\r\n" {
		return nil, fmt.Errorf("bad header line %q", line)
	}
	n, err := strconv.Atoi(line[len(prefix) : len(line)-2])
	if err != nil || n <= 0 {
		return nil, fmt.Errorf("bad length in %q", line)
	}
	blank, err := br.ReadString('\n')
	if err != nil || blank != "\r\n" {
		return nil, fmt.Errorf("header not terminated by an empty line: %q, %v", blank, err)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(br, body); err != nil {
		return nil, fmt.Errorf("truncated body: %w", err)
	}
	if !json.Valid(body) {
		return nil, fmt.Errorf("body is not valid JSON: %q", body)
	}
	return body, nil
}

// parseFrames splits everything a stream wrote into frame bodies.
func parseFrames(out []byte) ([][]byte, error) {
	br := bufio.NewReader(bytes.NewReader(out))
	var bodies [][]byte
	for {
		body, err := readStrictFrame(br)
		if errors.Is(err, io.EOF) {
			return bodies, nil
		}
		if err != nil {
			return bodies, err
		}
		bodies = append(bodies, body)
	}
}

// wireOut is how the tests look at a frame the stream wrote.
type wireOut struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  *string         `json:"method"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// reply is the part of an error response the tests compare exactly.
type reply struct {
	ID   string
	Code int64
}

// errorReplies decodes output that must consist solely of error responses.
func errorReplies(out []byte) ([]reply, error) {
	bodies, err := parseFrames(out)
	if err != nil {
		return nil, err
	}
	var replies []reply
	for _, body := range bodies {
		var w wireOut
		if err := json.Unmarshal(body, &w); err != nil {
			return nil, fmt.Errorf("decoding reply %s: %w", body, err)
		}
		if w.JSONRPC != "2.0" || w.Error == nil || w.Method != nil || w.Result != nil {
			return nil, fmt.Errorf("not a JSON-RPC error response: %s", body)
		}
		if w.Error.Message == "" {
			return nil, fmt.Errorf("error response without a message: %s", body)
		}
		if w.ID == nil {
			return nil, fmt.Errorf("error response without an id member: %s", body)
		}
		replies = append(replies, reply{ID: string(w.ID), Code: w.Error.Code})
	}
	return replies, nil
}

// summary is a comparable view of a jsonrpc2.Message, whose fields are
// unexported.
type summary struct {
	Kind   string
	Method string
	ID     string // %q form: #7 for numbers, "x" for strings
	Params string
	Result string
	Err    string
}

func summarize(m jsonrpc2.Message) *summary {
	switch m := m.(type) {
	case *jsonrpc2.Call:
		return &summary{Kind: "call", Method: m.Method(), ID: fmt.Sprintf("%q", m.ID()), Params: string(m.Params())}
	case *jsonrpc2.Notification:
		return &summary{Kind: "notification", Method: m.Method(), Params: string(m.Params())}
	case *jsonrpc2.Response:
		s := &summary{Kind: "response", ID: fmt.Sprintf("%q", m.ID()), Result: string(m.Result())}
		if m.Err() != nil {
			s.Err = m.Err().Error()
		}
		return s
	case nil:
		return nil
	default:
		return &summary{Kind: fmt.Sprintf("%T", m)}
	}
}

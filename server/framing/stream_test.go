package framing_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/jsonrpc2"

	"github.com/ctxd/ctxd/server/framing"
)

var ping = &summary{Kind: "call", Method: "ping", ID: "#7", Params: "{}"}

// readCase is one input for TestRead; the fuzz target reuses the inputs as
// its seed corpus.
type readCase struct {
	name  string
	input string
	// max is Options.MaxContentLength.
	max int64
	// want is what the first Read returns; nil means it must fail with an
	// error satisfying errors.Is(err, io.EOF).
	want *summary
	// replies are the error responses the stream must have written by then.
	replies []reply
}

func parseErr() []reply         { return []reply{{ID: "null", Code: -32700}} }
func invalid(id string) []reply { return []reply{{ID: id, Code: -32600}} }

// oversized is a body above the 1 KiB test limit. It embeds a complete
// fake frame so that a stream that resynchronised instead of skipping the
// body exactly would read a message (and reply) it must not.
var oversized = `{"jsonrpc":"2.0","method":"big","params":{"text":"` +
	strings.Repeat("x", 1000) + "Content-Length: 2\\r\\n\\r\\n{}" + strings.Repeat("y", 1000) + `"}}`

// atCap is a valid notification of exactly 1024 bytes.
var (
	atCapPad = strings.Repeat("z", 1024-len(`{"jsonrpc":"2.0","method":"n","params":[""]}`))
	atCap    = `{"jsonrpc":"2.0","method":"n","params":["` + atCapPad + `"]}`
)

func readCases() []readCase {
	return []readCase{
		// Framing problems.
		{
			name:    "missing Content-Length",
			input:   "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n" + `{"jsonrpc":"2.0","id":1,"method":"lost"}` + frame(pingBody),
			want:    ping,
			replies: parseErr(),
		},
		{
			name:    "Content-Length abc",
			input:   "Content-Length: abc\r\n\r\n{}" + frame(pingBody),
			want:    ping,
			replies: parseErr(),
		},
		{
			name:    "Content-Length -5",
			input:   "Content-Length: -5\r\n\r\n{}" + frame(pingBody),
			want:    ping,
			replies: parseErr(),
		},
		{
			name:    "Content-Length 0",
			input:   "Content-Length: 0\r\n\r\n" + frame(pingBody),
			want:    ping,
			replies: parseErr(),
		},
		{
			name:    "Content-Length empty",
			input:   "Content-Length:\r\n\r\n{}" + frame(pingBody),
			want:    ping,
			replies: parseErr(),
		},
		{
			name:    "Content-Length beyond int64",
			input:   "Content-Length: 99999999999999999999\r\n\r\n{}" + frame(pingBody),
			want:    ping,
			replies: parseErr(),
		},
		{
			name:    "Content-Length above the cap is skipped exactly",
			input:   frame(oversized) + frame(pingBody),
			max:     1024,
			want:    ping,
			replies: invalid("null"),
		},
		{
			name:    "conflicting Content-Length headers",
			input:   "Content-Length: 5\r\nContent-Length: 6\r\n\r\n{}" + frame(pingBody),
			want:    ping,
			replies: parseErr(),
		},
		{
			name:    "header line without a colon",
			input:   "hello\r\n\r\n" + frame(pingBody),
			want:    ping,
			replies: parseErr(),
		},
		{
			name:    "space before the colon",
			input:   "Content-Length : 2\r\n\r\n{}" + frame(pingBody),
			want:    ping,
			replies: parseErr(),
		},
		{
			name:    "header line too long",
			input:   "X-Long: " + strings.Repeat("a", 9000) + "\r\n\r\n" + frame(pingBody),
			want:    ping,
			replies: parseErr(),
		},
		{
			name:    "too many header lines",
			input:   strings.Repeat("X-A: b\r\n", 40) + "\r\n" + frame(pingBody),
			want:    ping,
			replies: parseErr(),
		},
		{
			name:    "garbage glued before a header",
			input:   `garbage}` + frame(pingBody),
			want:    ping,
			replies: parseErr(),
		},
		{
			name:    "bad length then garbage glued to the next header",
			input:   "Content-Length: abc\r\n\r\n{\"half\":" + frame(pingBody),
			want:    ping,
			replies: parseErr(),
		},
		{
			name:    "unframed JSON before a frame",
			input:   pingBody + "\r\n" + frame(pingBody),
			want:    ping,
			replies: parseErr(),
		},
		{
			name:    "two bad frames in a row",
			input:   "Content-Length: x\r\n\r\n" + frame("nope") + frame(pingBody),
			want:    ping,
			replies: append(parseErr(), parseErr()...),
		},

		// Accepted framing variants.
		{
			name:  "lower-case header name",
			input: fmt.Sprintf("content-length: %d\r\n\r\n%s", len(pingBody), pingBody),
			want:  ping,
		},
		{
			name:  "upper-case header name",
			input: fmt.Sprintf("CONTENT-LENGTH: %d\r\n\r\n%s", len(pingBody), pingBody),
			want:  ping,
		},
		{
			name: "extra Content-Type header",
			input: fmt.Sprintf("Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: %d\r\nX-Other: 1\r\n\r\n%s",
				len(pingBody), pingBody),
			want: ping,
		},
		{
			name:  "bare LF line endings",
			input: fmt.Sprintf("Content-Length: %d\n\n%s", len(pingBody), pingBody),
			want:  ping,
		},
		{
			name:  "whitespace around the length",
			input: fmt.Sprintf("Content-Length:\t  %d  \r\n\r\n%s", len(pingBody), pingBody),
			want:  ping,
		},
		{
			name:  "repeated identical Content-Length",
			input: fmt.Sprintf("Content-Length: %d\r\nContent-Length: %[1]d\r\n\r\n%s", len(pingBody), pingBody),
			want:  ping,
		},
		{
			name:  "stray blank lines between frames",
			input: "\r\n\n\r\n" + frame(pingBody),
			want:  ping,
		},

		// Bodies that are not JSON or not a message.
		{
			name:    "invalid JSON",
			input:   frame(`{"jsonrpc":"2.0","id":1,`) + frame(pingBody),
			want:    ping,
			replies: parseErr(),
		},
		{
			name:    "batch",
			input:   frame(`[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","id":2,"method":"b"}]`) + frame(pingBody),
			want:    ping,
			replies: invalid("null"),
		},
		{
			name:    "empty batch",
			input:   frame(`[]`) + frame(pingBody),
			want:    ping,
			replies: invalid("null"),
		},
		{
			name:    "not an object",
			input:   frame(`"hello"`) + frame(pingBody),
			want:    ping,
			replies: invalid("null"),
		},
		{
			name:    "jsonrpc 1.0",
			input:   frame(`{"jsonrpc":"1.0","id":1,"method":"a"}`) + frame(pingBody),
			want:    ping,
			replies: invalid("1"),
		},
		{
			name:    "jsonrpc missing",
			input:   frame(`{"id":"req-2","method":"a"}`) + frame(pingBody),
			want:    ping,
			replies: invalid(`"req-2"`),
		},
		{
			name:    "jsonrpc a number",
			input:   frame(`{"jsonrpc":2.0,"id":2,"method":"a"}`) + frame(pingBody),
			want:    ping,
			replies: invalid("2"),
		},
		{
			name:    "id 3000000000",
			input:   frame(`{"jsonrpc":"2.0","id":3000000000,"method":"a"}`) + frame(pingBody),
			want:    ping,
			replies: invalid("3000000000"),
		},
		{
			name:    "id -2147483649",
			input:   frame(`{"jsonrpc":"2.0","id":-2147483649,"method":"a"}`) + frame(pingBody),
			want:    ping,
			replies: invalid("-2147483649"),
		},
		{
			name:    "id 1.5",
			input:   frame(`{"jsonrpc":"2.0","id":1.5,"method":"a"}`) + frame(pingBody),
			want:    ping,
			replies: invalid("1.5"),
		},
		{
			name:    "id 1e2",
			input:   frame(`{"jsonrpc":"2.0","id":1e2,"method":"a"}`) + frame(pingBody),
			want:    ping,
			replies: invalid("1e2"),
		},
		{
			name:    "id true",
			input:   frame(`{"jsonrpc":"2.0","id":true,"method":"a"}`) + frame(pingBody),
			want:    ping,
			replies: invalid("true"),
		},
		{
			name:    "id null",
			input:   frame(`{"jsonrpc":"2.0","id":null,"method":"a"}`) + frame(pingBody),
			want:    ping,
			replies: invalid("null"),
		},
		{
			name:    "id empty string",
			input:   frame(`{"jsonrpc":"2.0","id":"","method":"a"}`) + frame(pingBody),
			want:    ping,
			replies: invalid(`""`),
		},
		{
			name:    "id object is echoed compacted",
			input:   frame(`{"jsonrpc":"2.0","id":{ "a" : [1, 2] },"method":"a"}`) + frame(pingBody),
			want:    ping,
			replies: invalid(`{"a":[1,2]}`),
		},
		{
			name:    "id too long to echo",
			input:   frame(`{"jsonrpc":"1.0","id":"`+strings.Repeat("i", 2000)+`","method":"a"}`) + frame(pingBody),
			want:    ping,
			replies: invalid("null"),
		},
		{
			name:    "method 123",
			input:   frame(`{"jsonrpc":"2.0","id":4,"method":123}`) + frame(pingBody),
			want:    ping,
			replies: invalid("4"),
		},
		{
			name:    "method null",
			input:   frame(`{"jsonrpc":"2.0","id":4,"method":null}`) + frame(pingBody),
			want:    ping,
			replies: invalid("4"),
		},
		{
			name:    "method empty",
			input:   frame(`{"jsonrpc":"2.0","id":5,"method":""}`) + frame(pingBody),
			want:    ping,
			replies: invalid("5"),
		},
		{
			name:    `params "x"`,
			input:   frame(`{"jsonrpc":"2.0","id":6,"method":"a","params":"x"}`) + frame(pingBody),
			want:    ping,
			replies: invalid("6"),
		},
		{
			name:    "params a number",
			input:   frame(`{"jsonrpc":"2.0","id":6,"method":"a","params":12}`) + frame(pingBody),
			want:    ping,
			replies: invalid("6"),
		},
		{
			name:    "params without a method",
			input:   frame(`{"jsonrpc":"2.0","id":8,"params":{}}`) + frame(pingBody),
			want:    ping,
			replies: invalid("8"),
		},
		{
			name:    "neither method nor id",
			input:   frame(`{"jsonrpc":"2.0"}`) + frame(pingBody),
			want:    ping,
			replies: invalid("null"),
		},

		// Problems that must not be answered.
		{
			name:  "notification with bad params is dropped",
			input: frame(`{"jsonrpc":"2.0","method":"n","params":"x"}`) + frame(pingBody),
			want:  ping,
		},
		{
			name:  "notification with bad version is dropped",
			input: frame(`{"jsonrpc":"1.0","method":"n"}`) + frame(pingBody),
			want:  ping,
		},
		{
			name:  "notification with non-string method is dropped",
			input: frame(`{"jsonrpc":"2.0","method":123}`) + frame(pingBody),
			want:  ping,
		},
		{
			name:  "response without an id is dropped",
			input: frame(`{"jsonrpc":"2.0","result":1}`) + frame(pingBody),
			want:  ping,
		},
		{
			name:  "error response with a null id is dropped",
			input: frame(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`) + frame(pingBody),
			want:  ping,
		},
		{
			name:  "response with a bad version is dropped",
			input: frame(`{"jsonrpc":"1.0","id":1,"result":1}`) + frame(pingBody),
			want:  ping,
		},
		{
			name:  "response with a string error is dropped",
			input: frame(`{"jsonrpc":"2.0","id":1,"error":"boom"}`) + frame(pingBody),
			want:  ping,
		},
		{
			name:  "response with an undecodable error is dropped",
			input: frame(`{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}`) + frame(pingBody),
			want:  ping,
		},
		{
			name:  "response with id 3000000000 is dropped",
			input: frame(`{"jsonrpc":"2.0","id":3000000000,"result":1}`) + frame(pingBody),
			want:  ping,
		},

		// Valid messages.
		{
			name:  "members reordered and spaced",
			input: frame(` { "params" : { } , "method" : "ping" , "id" : 7 , "jsonrpc" : "2.0" } `),
			want:  &summary{Kind: "call", Method: "ping", ID: "#7", Params: "{ }"},
		},
		{
			name:  "string id",
			input: frame(`{"jsonrpc":"2.0","id":"7","method":"ping"}`),
			want:  &summary{Kind: "call", Method: "ping", ID: `"7"`},
		},
		{
			name:  "int32 extremes",
			input: frame(`{"jsonrpc":"2.0","id":-2147483648,"method":"ping"}`),
			want:  &summary{Kind: "call", Method: "ping", ID: "#-2147483648"},
		},
		{
			name:  "params null is treated as absent",
			input: frame(`{"jsonrpc":"2.0","id":7,"method":"ping","params":null}`),
			want:  &summary{Kind: "call", Method: "ping", ID: "#7"},
		},
		{
			name:  "array params",
			input: frame(`{"jsonrpc":"2.0","id":7,"method":"ping","params":[1,2]}`),
			want:  &summary{Kind: "call", Method: "ping", ID: "#7", Params: "[1,2]"},
		},
		{
			name:  "notification",
			input: frame(`{"jsonrpc":"2.0","method":"initialized","params":{}}`),
			want:  &summary{Kind: "notification", Method: "initialized", Params: "{}"},
		},
		{
			name:  "valid response passes through",
			input: frame(`{"jsonrpc":"2.0","id":9,"result":{"ok":true}}`),
			want:  &summary{Kind: "response", ID: "#9", Result: `{"ok":true}`},
		},
		{
			name:  "error response passes through",
			input: frame(`{"jsonrpc":"2.0","id":"s1","error":{"code":-32601,"message":"nope"}}`),
			want:  &summary{Kind: "response", ID: `"s1"`, Err: "nope"},
		},
		{
			name:  "response without result passes through",
			input: frame(`{"jsonrpc":"2.0","id":9}`),
			want:  &summary{Kind: "response", ID: "#9"},
		},
		{
			name:  "at the cap exactly",
			input: frame(atCap),
			max:   1024,
			want:  &summary{Kind: "notification", Method: "n", Params: `["` + atCapPad + `"]`},
		},

		// End of input.
		{name: "clean EOF", input: ""},
		{name: "EOF after blank lines", input: "\r\n\r\n"},
		{name: "EOF mid-header", input: "Content-Length: 5\r\nContent-Ty"},
		{name: "EOF after the header", input: "Content-Length: 5\r\n\r\n"},
		{name: "EOF mid-body", input: "Content-Length: 50\r\n\r\n{\"jsonrpc\""},
		{
			name:    "EOF while skipping an oversized body",
			input:   "Content-Length: 2000\r\n\r\n{}",
			max:     1024,
			replies: []reply{{ID: "null", Code: -32600}},
		},
		{
			name:    "EOF while resynchronising",
			input:   "Content-Length: abc\r\n\r\ngarbage",
			replies: parseErr(),
		},
	}
}

// readers deliver the same input in different chunkings, since the header
// and resynchronisation code must not depend on how reads split the bytes.
var readers = []struct {
	name string
	wrap func(io.Reader) io.Reader
}{
	{name: "whole", wrap: func(r io.Reader) io.Reader { return r }},
	{name: "one byte per read", wrap: iotest.OneByteReader},
	{name: "EOF with the last data", wrap: iotest.DataErrReader},
	{name: "half reads", wrap: iotest.HalfReader},
}

func TestRead(t *testing.T) {
	for _, rd := range readers {
		t.Run(rd.name, func(t *testing.T) {
			for _, tc := range readCases() {
				t.Run(tc.name, func(t *testing.T) {
					testRead(t, tc, rd.wrap(strings.NewReader(tc.input)))
				})
			}
		})
	}
}

func testRead(t *testing.T, tc readCase, r io.Reader) {
	t.Helper()
	conn := &fakeConn{r: r}
	s := framing.NewStream(conn, framing.Options{MaxContentLength: tc.max, Logger: discardLogger})
	ctx := context.Background()

	msg, n, err := s.Read(ctx)
	if tc.want == nil {
		if !errors.Is(err, io.EOF) {
			t.Fatalf("Read() error = %v, want one wrapping io.EOF", err)
		}
		if msg != nil {
			t.Errorf("Read() message = %+v, want nil", summarize(msg))
		}
	} else {
		if err != nil {
			t.Fatalf("Read() error = %v", err)
		}
		if diff := cmp.Diff(tc.want, summarize(msg)); diff != "" {
			t.Errorf("Read() message mismatch (-want +got):\n%s", diff)
		}
		// Everything was consumed up to the end of the message, so
		// the next Read is a clean EOF with nothing more written.
		if int(n) != len(tc.input) {
			t.Errorf("Read() consumed %d bytes, want %d", n, len(tc.input))
		}
		if _, _, err := s.Read(ctx); !errors.Is(err, io.EOF) {
			t.Errorf("second Read() error = %v, want io.EOF", err)
		}
	}

	got, err := errorReplies(conn.out.Bytes())
	if err != nil {
		t.Fatalf("output: %v\n%q", err, conn.out.String())
	}
	if diff := cmp.Diff(tc.replies, got); diff != "" {
		t.Errorf("error replies mismatch (-want +got):\n%s", diff)
	}
}

func TestReadCleanEOFIsIOEOF(t *testing.T) {
	s := framing.NewStream(&fakeConn{r: strings.NewReader("")}, framing.Options{Logger: discardLogger})
	_, n, err := s.Read(context.Background())
	if !errors.Is(err, io.EOF) || n != 0 {
		t.Fatalf("Read() = %d, %v; want 0, io.EOF", n, err)
	}
}

// errReader fails with a non-EOF error after its data.
type errReader struct {
	data []byte
	err  error
}

func (r *errReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestReadReturnsReaderError(t *testing.T) {
	boom := errors.New("boom")
	conn := &fakeConn{r: &errReader{data: []byte("Content-Length: 9\r\n\r\n{"), err: boom}}
	s := framing.NewStream(conn, framing.Options{Logger: discardLogger})
	_, _, err := s.Read(context.Background())
	if !errors.Is(err, boom) {
		t.Fatalf("Read() error = %v, want one wrapping %v", err, boom)
	}
}

func TestReadHonoursContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := framing.NewStream(&fakeConn{r: strings.NewReader(frame(pingBody))}, framing.Options{Logger: discardLogger})
	if _, _, err := s.Read(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Read() error = %v, want context.Canceled", err)
	}
}

// TestHugeAnnouncedLength checks that an announced length is never
// allocated up front: above the cap the body is skipped by streaming, and
// below it the buffer grows with the bytes that actually arrive.
func TestHugeAnnouncedLength(t *testing.T) {
	tests := []struct {
		name      string
		input     string
		wantReply bool
	}{
		{name: "10 GB above the cap", input: "Content-Length: 10000000000\r\n\r\n", wantReply: true},
		{name: "99999999999 above the cap", input: "Content-Length: 99999999999\r\n\r\n{\"jsonrpc\":", wantReply: true},
		{name: "60 MiB under the cap", input: "Content-Length: 62914560\r\n\r\n{\"jsonrpc\":"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			conn := &fakeConn{r: strings.NewReader(tc.input)}
			s := framing.NewStream(conn, framing.Options{Logger: discardLogger})

			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, _, err := s.Read(context.Background())
			runtime.ReadMemStats(&after)

			if !errors.Is(err, io.EOF) {
				t.Fatalf("Read() error = %v, want io.EOF", err)
			}
			if allocated := after.TotalAlloc - before.TotalAlloc; allocated > 4<<20 {
				t.Errorf("Read() allocated %d bytes for a body that never arrived", allocated)
			}
			// Above the cap the refusal goes out before the skip, so a client
			// that never sends the body still learns why; under the cap the
			// peer vanished mid-body and there is nothing to answer.
			if got := strings.Contains(conn.out.String(), `"code":-32600`); got != tc.wantReply {
				t.Errorf("output %q, want a -32600 reply: %v", conn.out.String(), tc.wantReply)
			}
		})
	}
}

func TestWriteFormat(t *testing.T) {
	conn := &fakeConn{r: strings.NewReader("")}
	s := framing.NewStream(conn, framing.Options{Logger: discardLogger})
	call, err := jsonrpc2.NewCall(jsonrpc2.NewNumberID(3), "textDocument/didOpen", map[string]string{"text": "héllo\n"})
	if err != nil {
		t.Fatal(err)
	}
	n, err := s.Write(context.Background(), call)
	if err != nil {
		t.Fatalf("Write() error = %v", err)
	}
	body := `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"text":"héllo\n"},"id":3}`
	want := frame(body)
	if diff := cmp.Diff(want, conn.out.String()); diff != "" {
		t.Errorf("Write() output mismatch (-want +got):\n%s", diff)
	}
	if int(n) != len(want) {
		t.Errorf("Write() = %d, want %d", n, len(want))
	}
}

func TestWriteErrors(t *testing.T) {
	s := framing.NewStream(&fakeConn{r: strings.NewReader("")}, framing.Options{Logger: discardLogger})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	note, _ := jsonrpc2.NewNotification("n", nil)
	if _, err := s.Write(ctx, note); !errors.Is(err, context.Canceled) {
		t.Errorf("Write(cancelled) error = %v, want context.Canceled", err)
	}
	if _, err := s.Write(context.Background(), nil); err == nil {
		t.Error("Write(nil) succeeded, want an error")
	}
}

func TestClose(t *testing.T) {
	conn := &fakeConn{r: strings.NewReader("")}
	s := framing.NewStream(conn, framing.Options{})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if !conn.closed {
		t.Error("Close() did not close the connection")
	}
}

// TestLogsNeverContainBodies feeds bad messages whose bodies carry a
// marker and checks that the records describe them without quoting it.
func TestLogsNeverContainBodies(t *testing.T) {
	const secret = "SECRET-FILE-CONTENT"
	inputs := []string{
		frame(`{"jsonrpc":"2.0","id":1,"method":"x","params":"` + secret + `"}`),
		frame(`{"jsonrpc":"2.0","method":"x","params":"` + secret + `"}`),
		frame(`{"jsonrpc":"2.0","id":{"text":"` + secret + `"},"method":"x"}`),
		frame(`{"jsonrpc":"2.0","id":1,"result":"` + secret + `","error":"` + secret + `"}`),
		frame(`{"jsonrpc":"` + secret + `","id":1,"method":"x"}`),
		frame(`{"text":"` + secret + `"`),
		frame(`["` + secret + `"]`),
		secret + ": yes\r\n\r\n",
		"Content-Length: " + secret + "\r\n\r\n",
		secret + "}" + frame(pingBody),
	}
	var logs bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	conn := &fakeConn{r: strings.NewReader(strings.Join(inputs, ""))}
	s := framing.NewStream(conn, framing.Options{Logger: logger})
	msg, _, err := s.Read(context.Background())
	if err != nil {
		t.Fatalf("Read() error = %v", err)
	}
	if diff := cmp.Diff(ping, summarize(msg)); diff != "" {
		t.Errorf("Read() message mismatch (-want +got):\n%s", diff)
	}
	if strings.Contains(logs.String(), secret) {
		t.Errorf("logs quote a message body:\n%s", logs.String())
	}
	if records := strings.Count(logs.String(), "\n"); records < len(inputs)-1 {
		t.Errorf("got %d log records, want at least %d:\n%s", records, len(inputs)-1, logs.String())
	}
}

// TestConcurrentWrites has many goroutines writing while Read answers bad
// frames. fakeConn's writer is unsynchronised, so -race reports any write
// the stream does not serialise, and every output frame must parse.
func TestConcurrentWrites(t *testing.T) {
	const (
		writers   = 8
		perWriter = 50
		badFrames = 200
	)
	bad := []string{
		frame("not json"),
		frame("[]"),
		"Content-Length: abc\r\n\r\n",
		frame(`{"jsonrpc":"2.0","id":3000000000,"method":"x"}`),
	}
	pr, pw := io.Pipe()
	conn := &fakeConn{r: pr}
	s := framing.NewStream(conn, framing.Options{Logger: discardLogger})
	ctx := context.Background()

	go func() {
		for i := range badFrames {
			if _, err := io.WriteString(pw, bad[i%len(bad)]); err != nil {
				pw.CloseWithError(err)
				return
			}
		}
		io.WriteString(pw, frame(pingBody))
		pw.Close()
	}()

	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			for i := range perWriter {
				note, err := jsonrpc2.NewNotification("$/progress", map[string]any{
					"writer": g, "seq": i, "pad": strings.Repeat("p", 100*(i%7)),
				})
				if err != nil {
					t.Error(err)
					return
				}
				if _, err := s.Write(ctx, note); err != nil {
					t.Errorf("Write() error = %v", err)
					return
				}
			}
		})
	}

	msg, _, err := s.Read(ctx)
	if err != nil {
		t.Fatalf("Read() error = %v", err)
	}
	if diff := cmp.Diff(ping, summarize(msg)); diff != "" {
		t.Errorf("Read() message mismatch (-want +got):\n%s", diff)
	}
	if _, _, err := s.Read(ctx); !errors.Is(err, io.EOF) {
		t.Errorf("second Read() error = %v, want io.EOF", err)
	}
	wg.Wait()

	bodies, err := parseFrames(conn.out.Bytes())
	if err != nil {
		t.Fatalf("output does not parse as frames: %v", err)
	}
	var got struct{ Notifications, Errors int }
	for _, body := range bodies {
		var w wireOut
		if err := json.Unmarshal(body, &w); err != nil {
			t.Fatalf("frame %s: %v", body, err)
		}
		switch {
		case w.Method != nil && *w.Method == "$/progress":
			got.Notifications++
		case w.Error != nil:
			got.Errors++
		default:
			t.Errorf("unexpected frame %s", body)
		}
	}
	want := struct{ Notifications, Errors int }{writers * perWriter, badFrames}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("frame counts mismatch (-want +got):\n%s", diff)
	}
}

// TestLargeBody reads bodies beyond the initial allocation, which grow as
// their bytes arrive.
func TestLargeBody(t *testing.T) {
	for _, size := range []int{1<<20 - 1, 1 << 20, 1<<20 + 1, 3<<20 + 12345} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			prefix, suffix := `{"jsonrpc":"2.0","method":"didOpen","params":{"text":"`, `"}}`
			text := strings.Repeat("t", size-len(prefix)-len(suffix))
			body := prefix + text + suffix
			for _, rd := range readers {
				conn := &fakeConn{r: rd.wrap(strings.NewReader(frame(body)))}
				s := framing.NewStream(conn, framing.Options{Logger: discardLogger})
				msg, _, err := s.Read(context.Background())
				if err != nil {
					t.Fatalf("%s: Read() error = %v", rd.name, err)
				}
				want := &summary{Kind: "notification", Method: "didOpen", Params: `{"text":"` + text + `"}`}
				if got := summarize(msg); *got != *want {
					t.Errorf("%s: Read() = %s message with %d bytes of params, want %d",
						rd.name, got.Kind, len(got.Params), len(want.Params))
				}
			}
		})
	}
}

// brokenWriter fails every write.
type brokenWriter struct{ r io.Reader }

func (c *brokenWriter) Read(p []byte) (int, error)  { return c.r.Read(p) }
func (c *brokenWriter) Write(p []byte) (int, error) { return 0, io.ErrClosedPipe }
func (c *brokenWriter) Close() error                { return nil }

// TestBrokenWriter checks that a failing writer does not stop Read (it
// only fails on the reader) but does fail Write.
func TestBrokenWriter(t *testing.T) {
	conn := &brokenWriter{r: strings.NewReader(frame("junk") + frame(pingBody))}
	s := framing.NewStream(conn, framing.Options{Logger: discardLogger})
	msg, _, err := s.Read(context.Background())
	if err != nil {
		t.Fatalf("Read() error = %v", err)
	}
	if diff := cmp.Diff(ping, summarize(msg)); diff != "" {
		t.Errorf("Read() message mismatch (-want +got):\n%s", diff)
	}
	if _, err := s.Write(context.Background(), msg); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("Write() error = %v, want one wrapping io.ErrClosedPipe", err)
	}
}

package framing_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/jsonrpc2"

	"github.com/ctxd/ctxd/server/framing"
)

// echoHandler answers "echo" with its params.
func echoHandler(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	if req.Method() != "echo" {
		return jsonrpc2.MethodNotFoundHandler(ctx, reply, req)
	}
	return reply(ctx, req.Params(), nil)
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestConnRoundTrip runs jsonrpc2 conns on both ends of a synchronous pipe
// over the stream, in both directions.
func TestConnRoundTrip(t *testing.T) {
	ctx := testContext(t)
	c1, c2 := net.Pipe()
	opts := framing.Options{Logger: discardLogger}
	client := jsonrpc2.NewConn(framing.NewStream(c1, opts))
	server := jsonrpc2.NewConn(framing.NewStream(c2, opts))
	client.Go(ctx, echoHandler)
	server.Go(ctx, echoHandler)

	for _, tc := range []struct {
		name string
		from jsonrpc2.Conn
	}{
		{name: "client to server", from: client},
		{name: "server to client", from: server},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := map[string]string{"text": "package main\n\nfunc main() {}\n"}
			var got map[string]string
			if _, err := tc.from.Call(ctx, "echo", want, &got); err != nil {
				t.Fatalf("Call() error = %v", err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Call() result mismatch (-want +got):\n%s", diff)
			}
			_, err := tc.from.Call(ctx, "missing", nil, nil)
			if code := errorCode(err); code != jsonrpc2.MethodNotFound {
				t.Errorf("Call(missing) error = %v (code %d), want code %d", err, code, jsonrpc2.MethodNotFound)
			}
		})
	}

	client.Close()
	server.Close()
	<-client.Done()
	<-server.Done()
}

func errorCode(err error) jsonrpc2.Code {
	if e, ok := err.(*jsonrpc2.Error); ok {
		return e.Code
	}
	return 0
}

// TestConnSurvivesGarbage talks raw bytes to a jsonrpc2 server conn: the
// server must answer each bad frame, keep its connection, and answer the
// call that follows.
func TestConnSurvivesGarbage(t *testing.T) {
	ctx := testContext(t)
	raw, c2 := net.Pipe()
	server := jsonrpc2.NewConn(framing.NewStream(c2, framing.Options{Logger: discardLogger}))
	server.Go(ctx, echoHandler)
	defer func() {
		server.Close()
		<-server.Done()
	}()

	// net.Pipe is synchronous: the server's error replies block until read,
	// so read concurrently with writing. The reader reports to the test
	// goroutine instead of calling t itself, and is drained before return.
	type frameOrErr struct {
		body []byte
		err  error
	}
	frames := make(chan frameOrErr)
	go func() {
		defer close(frames)
		br := bufio.NewReader(raw)
		for {
			body, err := readStrictFrame(br)
			frames <- frameOrErr{body, err}
			if err != nil {
				return
			}
		}
	}()
	defer func() {
		raw.Close()
		for range frames {
		}
	}()

	input := "Content-Length: abc\r\n\r\n{}" +
		frame(`{"jsonrpc":"2.0","id":3000000000,"method":"echo","params":{}}`) +
		frame(`[1,2]`) +
		frame(`{"jsonrpc":"2.0","method":"echo","params":"bad notification"}`) +
		frame(`{"jsonrpc":"2.0","id":1,"method":"echo","params":{"ok":true}}`)
	written := make(chan error, 1)
	go func() {
		_, err := io.WriteString(raw, input)
		written <- err
	}()

	type out struct {
		ID     string
		Code   int64
		Result string
	}
	want := []out{
		{ID: "null", Code: -32700},
		{ID: "3000000000", Code: -32600},
		{ID: "null", Code: -32600},
		{ID: "1", Result: `{"ok":true}`},
	}
	var got []out
	for range want {
		select {
		case f := <-frames:
			if f.err != nil {
				t.Fatalf("server output after %d frames: %v", len(got), f.err)
			}
			var w wireOut
			if err := json.Unmarshal(f.body, &w); err != nil {
				t.Fatalf("decoding %s: %v", f.body, err)
			}
			o := out{ID: string(w.ID), Result: string(w.Result)}
			if w.Error != nil {
				o.Code = w.Error.Code
			}
			got = append(got, o)
		case <-ctx.Done():
			t.Fatalf("timed out after %d frames", len(got))
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("server output mismatch (-want +got):\n%s", diff)
	}
	// The server answered the last frame, so it has read all the input.
	if err := <-written; err != nil {
		t.Errorf("writing input: %v", err)
	}
	select {
	case <-server.Done():
		t.Fatalf("server connection died: %v", server.Err())
	default:
	}
}

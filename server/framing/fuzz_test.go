package framing_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/jsonrpc2"

	"github.com/ctxd/ctxd/server/framing"
)

// FuzzRead feeds arbitrary bytes to a stream and reads until it fails. It
// must not panic or loop, fail only with EOF (the only error a
// bytes.Reader produces), account for every input byte, return messages
// that re-encode, write nothing but well-formed frames, and behave the same
// whether the input arrives whole or one byte per read.
func FuzzRead(f *testing.F) {
	for _, tc := range readCases() {
		f.Add([]byte(tc.input))
	}
	f.Add([]byte(frame(pingBody) + frame(`{"jsonrpc":"2.0","id":1,"result":null}`) + frame(`{"jsonrpc":"2.0","method":"n"}`)))
	f.Add([]byte("Content-Length: 4\r\n\r\nnull"))
	f.Add([]byte("content-LENGTH:3\n\n123"))
	f.Add([]byte("Content-Length: 100000\r\n\r\n{}"))

	f.Fuzz(func(t *testing.T, data []byte) {
		whole := fuzzStream(t, bytes.NewReader(data), len(data))
		// How reads split the input must not change anything observable.
		trickled := fuzzStream(t, iotest.OneByteReader(bytes.NewReader(data)), len(data))
		if diff := cmp.Diff(whole, trickled); diff != "" {
			t.Errorf("one-byte reads changed the outcome (-whole +trickled):\n%s", diff)
		}
	})
}

// fuzzRun is what one pass over a fuzz input observably did.
type fuzzRun struct {
	Messages []*summary
	Output   []byte
}

// fuzzStream reads r to the end through a stream, checking each step, and
// writes every message back.
func fuzzStream(t *testing.T, r io.Reader, size int) fuzzRun {
	t.Helper()
	conn := &fakeConn{r: r}
	// A small limit so that the oversized-body path is reachable.
	s := framing.NewStream(conn, framing.Options{MaxContentLength: 256, Logger: discardLogger})
	ctx := context.Background()

	var run fuzzRun
	var consumed int64
	var written [][]byte // bodies of the messages written back, in order
	for reads := 0; ; reads++ {
		// Every message takes at least one byte of input, so more reads
		// than bytes means Read is making up messages.
		if reads > size {
			t.Fatalf("%d reads from %d bytes of input", reads, size)
		}
		msg, n, err := s.Read(ctx)
		if n < 0 {
			t.Fatalf("Read() reported %d bytes consumed", n)
		}
		consumed += n
		if err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatalf("Read() error = %v, want one wrapping io.EOF", err)
			}
			if msg != nil {
				t.Fatalf("Read() returned a message with error %v", err)
			}
			break
		}
		if n == 0 {
			t.Fatal("Read() returned a message without consuming input")
		}
		checkReencodes(t, msg)
		run.Messages = append(run.Messages, summarize(msg))
		// Writing the message back interleaves ordinary frames with the
		// stream's error replies in the output checked below.
		if _, err := s.Write(ctx, msg); err != nil {
			t.Fatalf("Write(%T) error = %v", msg, err)
		}
		body, _ := json.Marshal(msg)
		written = append(written, body)
	}
	if consumed != int64(size) {
		t.Errorf("Read() accounted for %d bytes, input has %d", consumed, size)
	}

	run.Output = conn.out.Bytes()
	bodies, err := parseFrames(run.Output)
	if err != nil {
		t.Fatalf("output is not a sequence of frames: %v\n%q", err, run.Output)
	}
	// Each output frame is either the next message written back or one of
	// the stream's own error replies.
	for _, body := range bodies {
		if len(written) > 0 && bytes.Equal(body, written[0]) {
			written = written[1:]
			continue
		}
		if err := checkErrorReply(body); err != nil {
			t.Errorf("%v: %s", err, body)
		}
	}
	if len(written) > 0 {
		t.Errorf("%d written messages missing from the output", len(written))
	}
	return run
}

// checkReencodes requires msg to survive encoding and decoding unchanged
// in kind, method and id.
func checkReencodes(t *testing.T, msg jsonrpc2.Message) {
	t.Helper()
	encoded, err := json.Marshal(msg)
	if err != nil {
		t.Fatalf("json.Marshal(%T) error = %v", msg, err)
	}
	again, err := jsonrpc2.DecodeMessage(encoded)
	if err != nil {
		t.Fatalf("DecodeMessage(%s) error = %v", encoded, err)
	}
	before, after := summarize(msg), summarize(again)
	before.Params, after.Params = "", ""
	before.Result, after.Result = "", ""
	if *before != *after {
		t.Fatalf("message changed in a round trip: %+v became %+v", before, after)
	}
}

// checkErrorReply validates an error response the stream sent on its own.
func checkErrorReply(body []byte) error {
	var w wireOut
	if err := json.Unmarshal(body, &w); err != nil {
		return fmt.Errorf("not a JSON object: %w", err)
	}
	switch {
	case w.JSONRPC != "2.0":
		return errors.New(`"jsonrpc" is not "2.0"`)
	case w.Error == nil || w.Method != nil || w.Result != nil:
		return errors.New("not an error response")
	case w.ID == nil:
		return errors.New("error response without an id member")
	case w.Error.Message == "":
		return errors.New("error response without a message")
	case w.Error.Code != int64(jsonrpc2.ParseError) && w.Error.Code != int64(jsonrpc2.InvalidRequest):
		return fmt.Errorf("unexpected error code %d", w.Error.Code)
	}
	return nil
}

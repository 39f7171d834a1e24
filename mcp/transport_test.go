package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/internal/testenv"
	"github.com/ctxd/ctxd/workspace"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdioReply is what a test checks of a line the server wrote: its id as
// raw JSON ("<absent>" without one), and its error's code when it is an
// error response.
type stdioReply struct {
	ID    string
	Error bool
	Code  int64
}

// stdioOK and stdioErr are the expected replies.
func stdioOK(id string) stdioReply              { return stdioReply{ID: id} }
func stdioErr(id string, code int64) stdioReply { return stdioReply{ID: id, Error: true, Code: code} }

// stdioPeer is the client's end of a [StdioTransport] served over pipes:
// it writes raw lines to the server and reads the lines it writes back.
type stdioPeer struct {
	t     *testing.T
	ctx   context.Context
	in    *io.PipeWriter // client → server
	lines chan string    // server → client; closed when the server's output ends
	done  chan error     // the serve function's result
	all   *testenv.Buffer
}

// startStdio serves over tr, whose Reader and Writer it sets to pipes,
// with serve (Server.Run or sdk.Server.Run) until the test ends.
func startStdio(t *testing.T, tr *StdioTransport, serve func(context.Context, sdk.Transport) error, wrap func(sdk.Transport) sdk.Transport) *stdioPeer {
	t.Helper()
	// The deadline only keeps a broken test from hanging: no assertion
	// depends on timing.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	tr.Reader, tr.Writer = inR, outW
	p := &stdioPeer{t: t, ctx: ctx, in: inW, lines: make(chan string, 1024), done: make(chan error, 1), all: &testenv.Buffer{}}
	var transport sdk.Transport = tr
	if wrap != nil {
		transport = wrap(tr)
	}
	go func() {
		p.done <- serve(ctx, transport)
		outW.Close()
	}()
	stop := make(chan struct{})
	go func() {
		defer close(p.lines)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			fmt.Fprintln(p.all, sc.Text())
			select {
			case p.lines <- sc.Text():
			case <-stop:
				return
			}
		}
	}()
	t.Cleanup(func() {
		inW.Close()
		cancel()
		<-p.done
		close(stop)
		outR.Close()
	})
	return p
}

// send writes lines to the server as they are: newlines are the test's.
func (p *stdioPeer) send(text string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, text); err != nil {
		p.t.Fatalf("writing to the server: %v", err)
	}
}

// next returns the next line the server wrote.
func (p *stdioPeer) next() string {
	p.t.Helper()
	select {
	case l, ok := <-p.lines:
		if !ok {
			p.t.Fatal("the server's output ended")
		}
		return l
	case <-p.ctx.Done():
		p.t.Fatal("no line from the server")
	}
	return ""
}

// nextReply returns the next line as a reply.
func (p *stdioPeer) nextReply() stdioReply {
	p.t.Helper()
	return p.reply(p.next())
}

// rest returns the replies up to the end of the server's output.
func (p *stdioPeer) rest() []stdioReply {
	p.t.Helper()
	var got []stdioReply
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				return got
			}
			got = append(got, p.reply(l))
		case <-p.ctx.Done():
			p.t.Fatal("the server's output did not end")
		}
	}
}

// reply decodes a line as a reply; a server request or notification
// fails the test.
func (p *stdioPeer) reply(line string) stdioReply {
	p.t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		p.t.Fatalf("the server wrote a line that is not a JSON object: %v", err)
	}
	if _, ok := m["method"]; ok {
		p.t.Fatalf("the server wrote a request or notification: %s", line)
	}
	if v := string(m["jsonrpc"]); v != `"2.0"` {
		p.t.Errorf("a reply's jsonrpc is %s, want \"2.0\"", v)
	}
	r := stdioReply{ID: "<absent>"}
	if id, ok := m["id"]; ok {
		r.ID = string(id)
	}
	if raw, ok := m["error"]; ok {
		var e jsonrpc.Error
		if err := json.Unmarshal(raw, &e); err != nil {
			p.t.Fatalf("decoding an error: %v", err)
		}
		r.Error, r.Code = true, e.Code
	} else if _, ok := m["result"]; !ok {
		p.t.Errorf("a reply has neither result nor error: %s", line)
	}
	return r
}

// replies reads n replies.
func (p *stdioPeer) replies(n int) []stdioReply {
	p.t.Helper()
	var got []stdioReply
	for range n {
		got = append(got, p.nextReply())
	}
	return got
}

// initialize makes the MCP handshake.
func (p *stdioPeer) initialize() {
	p.t.Helper()
	p.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"stdio-test","version":"1"}}}` + "\n")
	if diff := cmp.Diff(stdioOK(`"init"`), p.nextReply()); diff != "" {
		p.t.Fatalf("initialize (-want +got):\n%s", diff)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
}

// initializedLine is the client's initialized notification: the raw
// connection tests send it first, as a session does, so that their
// requests are not refused as made before initialization.
const initializedLine = `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"

// transportSecret is in the invalid lines: no answer or log may quote it.
const transportSecret = "sk-TRANSPORTsecret0123456789"

// TestStdioInvalidFrames feeds ctxd's server every kind of invalid line,
// each followed by a ping: the line gets the transport's error response
// (or nothing), and the session goes on.
func TestStdioInvalidFrames(t *testing.T) {
	logs := &testenv.Buffer{}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv, err := New(Options{Root: t.TempDir(), Logger: logger, Service: workspace.ServiceOptions{Index: index.Options{CacheDir: "off"}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Error(err)
		}
	})
	const max = 1024
	p := startStdio(t, &StdioTransport{MaxFrameBytes: max, Logger: logger}, srv.Run, nil)
	p.initialize()

	oversize := `{"jsonrpc":"2.0","id":"big","method":"ping","params":{"pad":"` + strings.Repeat("x", 2*max) + `"}}`
	const (
		parse   = jsonrpc.CodeParseError
		invalid = jsonrpc.CodeInvalidRequest
	)
	tests := []struct {
		name string
		send string // lines with their newlines
		want []stdioReply
	}{
		{"invalid JSON", `{"jsonrpc":"2.0","id":1,"method":` + transportSecret + "\n", []stdioReply{stdioErr("null", parse)}},
		{"garbage", "not json at all " + transportSecret + "\n", []stdioReply{stdioErr("null", parse)}},
		{"two objects on one line", `{"jsonrpc":"2.0","id":2,"method":"ping"}{"jsonrpc":"2.0","id":3,"method":"ping"}` + "\n", []stdioReply{stdioErr("null", parse)}},
		{"object and trailing text", `{"jsonrpc":"2.0","id":2,"method":"ping"} ` + transportSecret + "\n", []stdioReply{stdioErr("null", parse)}},
		// The next line is the ping every case ends with: it is answered.
		{"truncated line", `{"jsonrpc":"2.0","id":4,"method":"pi` + "\n", []stdioReply{stdioErr("null", parse)}},
		{"bare number", "42\n", []stdioReply{stdioErr("null", invalid)}},
		{"bare string", `"` + transportSecret + `"` + "\n", []stdioReply{stdioErr("null", invalid)}},
		{"true", "true\n", []stdioReply{stdioErr("null", invalid)}},
		{"null", "null\n", []stdioReply{stdioErr("null", invalid)}},
		{"batch", `[{"jsonrpc":"2.0","id":5,"method":"ping"},{"jsonrpc":"2.0","id":6,"method":"ping"}]` + "\n", []stdioReply{stdioErr("null", invalid)}},
		{"empty batch", "[]\n", []stdioReply{stdioErr("null", invalid)}},
		{"no jsonrpc", `{"id":7,"method":"ping"}` + "\n", []stdioReply{stdioErr("7", invalid)}},
		{"no jsonrpc, string id", `{"id":"s7","method":"ping"}` + "\n", []stdioReply{stdioErr(`"s7"`, invalid)}},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":8,"method":"ping"}` + "\n", []stdioReply{stdioErr("8", invalid)}},
		{"jsonrpc a number", `{"jsonrpc":2.0,"id":9,"method":"ping"}` + "\n", []stdioReply{stdioErr("9", invalid)}},
		{"method not a string", `{"jsonrpc":"2.0","id":10,"method":5}` + "\n", []stdioReply{stdioErr("10", invalid)}},
		{"method null", `{"jsonrpc":"2.0","id":11,"method":null}` + "\n", []stdioReply{stdioErr("11", invalid)}},
		{"id null", `{"jsonrpc":"2.0","id":null,"method":"ping"}` + "\n", []stdioReply{stdioErr("null", invalid)}},
		{"id object", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}` + "\n", []stdioReply{stdioErr("null", invalid)}},
		{"id array", `{"jsonrpc":"2.0","id":[1],"method":"ping"}` + "\n", []stdioReply{stdioErr("null", invalid)}},
		{"id bool", `{"jsonrpc":"2.0","id":true,"method":"ping"}` + "\n", []stdioReply{stdioErr("null", invalid)}},
		{"id fractional", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}` + "\n", []stdioReply{stdioErr("null", invalid)}},
		{"id exponent", `{"jsonrpc":"2.0","id":1e3,"method":"ping"}` + "\n", []stdioReply{stdioErr("null", invalid)}},
		{"id beyond 2^53", `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}` + "\n", []stdioReply{stdioErr("9007199254740993", invalid)}},
		{"duplicate member", `{"jsonrpc":"2.0","id":12,"id":13,"method":"ping"}` + "\n", []stdioReply{stdioErr("null", invalid)}},
		{"neither method nor id", `{"jsonrpc":"2.0","result":{}}` + "\n", []stdioReply{stdioErr("null", invalid)}},
		{"response with a null id is dropped", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"` + transportSecret + `"}}` + "\n", nil},
		{"response to no request is passed on and ignored", `{"jsonrpc":"2.0","id":99,"result":{}}` + "\n", nil},
		{"cancellation of nothing", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":98}}` + "\n", nil},
		{"cancellation with a bad requestId", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1.5}}` + "\n", nil},
		{"oversize line", oversize + "\n", []stdioReply{stdioErr("null", invalid)}},
		{"oversize line without newline before the next", oversize + oversize + "\n", []stdioReply{stdioErr("null", invalid)}},
		{"blank lines", "\n\n   \n\t\r\n", nil},
		{"CRLF and whitespace", `  {"jsonrpc":"2.0","id":"crlf","method":"ping"}  ` + "\r\n", []stdioReply{stdioOK(`"crlf"`)}},
		{"1 and \"1\" are two ids", `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":"1","method":"ping"}` + "\n", []stdioReply{stdioOK("1"), stdioOK(`"1"`)}},
		{"valid tools/list", `{"jsonrpc":"2.0","id":"list","method":"tools/list"}` + "\r\n", []stdioReply{stdioOK(`"list"`)}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p.t = t
			ping := fmt.Sprintf(`"ping-%d"`, i)
			p.send(tt.send + `{"jsonrpc":"2.0","id":` + ping + `,"method":"ping"}` + "\n")
			want := append(tt.want, stdioOK(ping))
			// Requests are answered as they complete, in any order; the
			// transport's own answers come before the ping's.
			byID := cmpopts.SortSlices(func(a, b stdioReply) bool { return a.ID < b.ID })
			if diff := cmp.Diff(want, p.replies(len(want)), byID); diff != "" {
				t.Errorf("replies (-want +got):\n%s", diff)
			}
		})
	}
	p.t = t
	if strings.Contains(p.all.String(), transportSecret) || strings.Contains(logs.String(), transportSecret) {
		t.Errorf("an answer or a log quotes a refused line:\n%s\n%s", p.all, logs)
	}
	// A null id is written, not left out.
	if !strings.Contains(p.all.String(), `"id":null`) {
		t.Errorf("no error response has \"id\":null:\n%s", p.all)
	}
}

// TestStdioBeforeInitialize: a request other than initialize and ping
// made before the session is initialized (initialize, then the client's
// initialized notification) is an invalid request, answered by the
// transport (the SDK's own answer has code 0, no JSON-RPC code); ping is
// allowed; after initialization the same request is served.
func TestStdioBeforeInitialize(t *testing.T) {
	quiet := slog.New(slog.DiscardHandler)
	srv, err := New(Options{Root: t.TempDir(), Logger: quiet, Service: workspace.ServiceOptions{Index: index.Options{CacheDir: "off"}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Error(err)
		}
	})
	p := startStdio(t, &StdioTransport{Logger: quiet}, srv.Run, nil)
	steps := []struct {
		send string
		want stdioReply
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, stdioErr("1", jsonrpc.CodeInvalidRequest)},
		{`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"index_status","arguments":{}}}`, stdioErr("2", jsonrpc.CodeInvalidRequest)},
		{`{"jsonrpc":"2.0","id":3,"method":"resources/list"}`, stdioErr("3", jsonrpc.CodeInvalidRequest)},
		{`{"jsonrpc":"2.0","id":4,"method":"ping"}`, stdioOK("4")},
	}
	for _, s := range steps {
		p.send(s.send + "\n")
		if diff := cmp.Diff(s.want, p.nextReply()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", s.send, diff)
		}
	}
	p.initialize()
	p.send(`{"jsonrpc":"2.0","id":5,"method":"tools/list"}` + "\n")
	if diff := cmp.Diff(stdioOK("5"), p.nextReply()); diff != "" {
		t.Errorf("tools/list after initialize (-want +got):\n%s", diff)
	}
}

// stdioBlockingServer is an SDK server with one tool, "block", whose calls
// (by their argument "tag") report that they started, then wait for the
// test to release them or for their context to be cancelled.
type stdioBlockingServer struct {
	srv       *sdk.Server
	started   chan string
	cancelled chan string
	gates     map[string]chan struct{}
	release   map[string]func()
}

// newStdioBlockingServer creates the server; tags are the calls the
// test will make.
func newStdioBlockingServer(tags ...string) *stdioBlockingServer {
	b := &stdioBlockingServer{
		srv:       sdk.NewServer(&sdk.Implementation{Name: "blocking", Version: "1"}, nil),
		started:   make(chan string, len(tags)),
		cancelled: make(chan string, len(tags)),
		gates:     make(map[string]chan struct{}),
		release:   make(map[string]func()),
	}
	for _, tag := range tags {
		gate := make(chan struct{})
		b.gates[tag] = gate
		b.release[tag] = sync.OnceFunc(func() { close(gate) })
	}
	type args struct {
		Tag string `json:"tag"`
	}
	sdk.AddTool(b.srv, &sdk.Tool{Name: "block"}, func(ctx context.Context, _ *sdk.CallToolRequest, in args) (*sdk.CallToolResult, any, error) {
		b.started <- in.Tag
		select {
		case <-b.gates[in.Tag]:
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "released " + in.Tag}}}, nil, nil
		case <-ctx.Done():
			b.cancelled <- in.Tag
			return nil, nil, ctx.Err()
		}
	})
	return b
}

// releaseAll releases every call. A test registers it as a cleanup after
// startStdio's, so that it runs first: the session ends only once its
// calls returned.
func (b *stdioBlockingServer) releaseAll() {
	for _, release := range b.release {
		release()
	}
}

// stdioExpect receives from ch until it receives v.
func stdioExpect(t *testing.T, ctx context.Context, what string, ch <-chan string, v string) {
	t.Helper()
	for {
		select {
		case got := <-ch:
			if got == v {
				return
			}
		case <-ctx.Done():
			t.Fatalf("%s %s: never happened", what, v)
		}
	}
}

// stdioCallBlock is a tools/call of "block" with id and tag.
func stdioCallBlock(id, tag string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"block","arguments":{"tag":"` + tag + `"}}}` + "\n"
}

// stdioWatchedTransport reports the id of every response the SDK wrote
// through its connection, once the write returned.
type stdioWatchedTransport struct {
	sdk.Transport
	wrote chan string
}

func (w stdioWatchedTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := w.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return stdioWatchedConn{c, w.wrote}, nil
}

// stdioWatchedConn is the connection of a stdioWatchedTransport.
type stdioWatchedConn struct {
	sdk.Connection
	wrote chan<- string
}

func (c stdioWatchedConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := c.Connection.Write(ctx, msg)
	if r, ok := msg.(*jsonrpc.Response); ok {
		c.wrote <- wireIDKey(r.ID)
	}
	return err
}

// TestStdioCancelled: a request the client cancels is cancelled in the
// SDK and gets no response, another request whose id is the same value
// as a string is unaffected, and an id in flight cannot be reused.
func TestStdioCancelled(t *testing.T) {
	b := newStdioBlockingServer("int", "str")
	wrote := make(chan string, 64)
	p := startStdio(t, &StdioTransport{Logger: slog.New(slog.DiscardHandler)}, b.srv.Run, func(tr sdk.Transport) sdk.Transport {
		return stdioWatchedTransport{tr, wrote}
	})
	t.Cleanup(b.releaseAll)
	p.initialize()
	p.send(stdioCallBlock("2", "int"))
	stdioExpect(t, p.ctx, "call started:", b.started, "int")
	p.send(stdioCallBlock(`"2"`, "str"))
	stdioExpect(t, p.ctx, "call started:", b.started, "str")

	var got []stdioReply
	// Reusing the id of a request in flight.
	p.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n")
	got = append(got, p.nextReply())
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"test"}}` + "\n")
	stdioExpect(t, p.ctx, "handler cancelled:", b.cancelled, "int")
	// The SDK has written (and the transport dropped) the cancelled
	// call's response: had it been sent, it would come before any line
	// the server writes from now on.
	stdioExpect(t, p.ctx, "response written for id", wrote, "2")
	b.release["str"]()
	got = append(got, p.nextReply())
	// The id is free again.
	p.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n")
	got = append(got, p.nextReply())
	want := []stdioReply{stdioErr("2", jsonrpc.CodeInvalidRequest), stdioOK(`"2"`), stdioOK("2")}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("replies (-want +got):\n%s", diff)
	}
}

// stdioLogSignals is a slog.Handler that lets a test wait for a message.
type stdioLogSignals struct {
	mu   sync.Mutex
	seen map[string]chan struct{}
}

// ch returns the channel closed when msg is logged.
func (h *stdioLogSignals) ch(msg string) chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.seen == nil {
		h.seen = make(map[string]chan struct{})
	}
	c, ok := h.seen[msg]
	if !ok {
		c = make(chan struct{})
		h.seen[msg] = c
	}
	return c
}

func (h *stdioLogSignals) Enabled(context.Context, slog.Level) bool { return true }

func (h *stdioLogSignals) Handle(_ context.Context, r slog.Record) error {
	c := h.ch(r.Message)
	h.mu.Lock()
	defer h.mu.Unlock()
	select {
	case <-c:
	default:
		close(c)
	}
	return nil
}

func (h *stdioLogSignals) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *stdioLogSignals) WithGroup(string) slog.Handler      { return h }

// TestStdioDrainAtEndOfInput: a call in flight when the input ends is
// answered before the session ends.
func TestStdioDrainAtEndOfInput(t *testing.T) {
	b := newStdioBlockingServer("int")
	signals := &stdioLogSignals{}
	p := startStdio(t, &StdioTransport{Logger: slog.New(signals)}, b.srv.Run, nil)
	t.Cleanup(b.releaseAll)
	p.initialize()
	p.send(stdioCallBlock("5", "int"))
	stdioExpect(t, p.ctx, "call started:", b.started, "int")
	p.in.Close()
	// The transport has seen the end of input: the SDK alone would now
	// cancel the call and never send its response.
	select {
	case <-signals.ch("end of MCP input; finishing the requests in flight"):
	case <-p.ctx.Done():
		t.Fatal("the transport did not wait at the end of input")
	}
	b.release["int"]()
	select {
	case err := <-p.done:
		p.done <- err // for the cleanup
		if err != nil {
			t.Errorf("the session ended with %v", err)
		}
	case <-p.ctx.Done():
		t.Fatal("the session did not end")
	}
	// The server's output ends when the session does: the response is
	// in it, so it was written before.
	if diff := cmp.Diff([]stdioReply{stdioOK("5")}, p.rest()); diff != "" {
		t.Errorf("replies after the end of input (-want +got):\n%s", diff)
	}
}

// TestReadStdioLine: lines are split at newlines only, with a bounded buffer;
// an oversize line is skipped whole.
func TestReadStdioLine(t *testing.T) {
	tests := []struct {
		name  string
		input string
		max   int
		want  []string // each line quoted, or "<N bytes>" when oversize
	}{
		{"lines", "a\nbc\n", 10, []string{`"a"`, `"bc"`}},
		{"last line without newline", "a\nbc", 10, []string{`"a"`, `"bc"`}},
		{"CRLF kept for the trim", "a\r\nb\r\n", 10, []string{`"a\r"`, `"b\r"`}},
		{"blank lines", "\n \n", 10, []string{`""`, `" "`}},
		{"exactly max", "abcd\nx\n", 4, []string{`"abcd"`, `"x"`}},
		{"one over max", "abcde\nx\n", 4, []string{"<5 bytes>", `"x"`}},
		{"over max at the end", "x\nabcde", 4, []string{`"x"`, "<5 bytes>"}},
		{"longer than the reader's buffer", strings.Repeat("y", 100) + "\n" + strings.Repeat("z", 30) + "\n", 40,
			[]string{"<100 bytes>", `"` + strings.Repeat("z", 30) + `"`}},
		{"kept across buffer refills", strings.Repeat("z", 39) + "\n", 40, []string{`"` + strings.Repeat("z", 39) + `"`}},
		{"empty input", "", 10, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			br := bufio.NewReaderSize(strings.NewReader(tt.input), 16) // bufio's smallest
			var got []string
			for {
				l, consumed, err := readStdioLine(br, tt.max)
				if consumed > 0 {
					if l.data == nil {
						got = append(got, fmt.Sprintf("<%d bytes>", l.size))
					} else {
						got = append(got, fmt.Sprintf("%q", l.data))
					}
				}
				if err != nil {
					if err != io.EOF {
						t.Fatal(err)
					}
					break
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
		})
	}
}

// stdioRawConn connects a StdioTransport to pipes without a server, for the
// tests of the connection itself.
func stdioRawConn(t *testing.T, tr *StdioTransport) (conn sdk.Connection, in *io.PipeWriter, out *bufio.Scanner) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	tr.Reader, tr.Writer = inR, outW
	if tr.Logger == nil {
		tr.Logger = slog.New(slog.DiscardHandler)
	}
	conn, err := tr.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn.Close()
		outR.Close()
	})
	return conn, inW, bufio.NewScanner(outR)
}

// TestStdioEndOfInput: at the end of input, Read returns io.EOF once the
// requests read are answered, at once when told not to wait, or when the
// server waits for the client's answer, which can no longer come.
func TestStdioEndOfInput(t *testing.T) {
	tests := []struct {
		name       string
		drain      time.Duration
		serverCall bool // the server calls the client before the input ends
		respond    bool // the test answers the request after the input ended
	}{
		{name: "waits for the response", respond: true},
		{name: "negative drain timeout", drain: -1},
		{name: "server call pending", serverCall: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The deadline only keeps a broken test from hanging.
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			conn, in, out := stdioRawConn(t, &StdioTransport{DrainTimeout: tt.drain})
			lines := make(chan string, 8)
			go func() {
				for out.Scan() {
					lines <- out.Text()
				}
				close(lines)
			}()
			go func() {
				io.WriteString(in, initializedLine+`{"jsonrpc":"2.0","id":"r","method":"tools/list"}`+"\n")
				in.Close()
			}()
			if _, err := conn.Read(ctx); err != nil { // the initialized notification
				t.Fatal(err)
			}
			msg, err := conn.Read(ctx)
			if err != nil {
				t.Fatal(err)
			}
			req := msg.(*jsonrpc.Request)
			if tt.serverCall {
				id, _ := jsonrpc.MakeID(float64(1))
				if err := conn.Write(ctx, &jsonrpc.Request{ID: id, Method: "roots/list"}); err != nil {
					t.Fatal(err)
				}
				<-lines
			}
			read := make(chan error, 1)
			go func() {
				_, err := conn.Read(ctx)
				read <- err
			}()
			if tt.respond {
				if err := conn.Write(ctx, &jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`{}`)}); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(`{"jsonrpc":"2.0","id":"r","result":{}}`, <-lines); diff != "" {
					t.Errorf("response (-want +got):\n%s", diff)
				}
			}
			if err := <-read; err != io.EOF {
				t.Errorf("Read at the end of input = %v, want io.EOF", err)
			}
			if _, err := conn.Read(ctx); err != io.EOF {
				t.Errorf("Read again = %v, want io.EOF", err)
			}
		})
	}
}

// TestStdioClose: Close ends a Read waiting for input, and Write fails
// afterwards with sdk.ErrConnectionClosed.
func TestStdioClose(t *testing.T) {
	conn, _, _ := stdioRawConn(t, &StdioTransport{})
	read := make(chan error, 1)
	go func() {
		_, err := conn.Read(context.Background())
		read <- err
	}()
	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-read; err != io.EOF {
		t.Errorf("Read after Close = %v, want io.EOF", err)
	}
	id, _ := jsonrpc.MakeID("x")
	if err := conn.Write(context.Background(), &jsonrpc.Response{ID: id}); !errors.Is(err, sdk.ErrConnectionClosed) {
		t.Errorf("Write after Close = %v, want sdk.ErrConnectionClosed", err)
	}
	if err := conn.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// TestStdioConnect: a transport needs both streams and connects once.
func TestStdioConnect(t *testing.T) {
	r, w := io.Pipe()
	defer r.Close()
	tests := []struct {
		name string
		tr   *StdioTransport
	}{
		{"no reader", &StdioTransport{Writer: w}},
		{"no writer", &StdioTransport{Reader: r}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := tt.tr.Connect(context.Background()); err == nil {
				t.Error("Connect succeeded")
			}
		})
	}
	tr := &StdioTransport{}
	stdioRawConn(t, tr)
	if _, err := tr.Connect(context.Background()); err == nil {
		t.Error("second Connect succeeded")
	}
}

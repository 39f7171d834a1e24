package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/internal/testenv"
	"github.com/ctxd/ctxd/workspace"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// fixedNow pins created_at, so that two builds of the same request are
// the same bytes.
var fixedNow = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

// session is a server on root and an SDK client connected to it over the
// SDK's in-memory transport.
type session struct {
	t    *testing.T
	ctx  context.Context
	srv  *Server
	cs   *sdk.ClientSession
	logs *testenv.Buffer
	// outputs is every text and structuredContent the client received,
	// for the leak checks.
	outputs []string
}

// newServer creates a server on root with debug logs into a buffer, no
// persisted index and a pinned clock; setup may change it before the
// client connects.
func newServer(t *testing.T, root string) (*Server, *testenv.Buffer) {
	t.Helper()
	logs := &testenv.Buffer{}
	srv, err := New(Options{
		Root:    root,
		Logger:  slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Version: "test",
		Service: workspace.ServiceOptions{Index: index.Options{CacheDir: "off"}, Now: func() time.Time { return fixedNow }},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("closing the server: %v", err)
		}
	})
	return srv, logs
}

// connect connects an SDK client to srv.
func connect(t *testing.T, srv *Server, logs *testenv.Buffer) *session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	ct, st := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "ctxd-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Wait()
	})
	return &session{t: t, ctx: ctx, srv: srv, cs: cs, logs: logs}
}

// start is newServer and connect.
func start(t *testing.T, root string) *session {
	t.Helper()
	srv, logs := newServer(t, root)
	return connect(t, srv, logs)
}

// call calls a tool with args (any JSON value; nil sends none) and keeps
// what it returned for the leak checks.
func (s *session) call(name string, args any) *sdk.CallToolResult {
	s.t.Helper()
	res, err := s.cs.CallTool(s.ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		s.t.Fatalf("%s: %v", name, err)
	}
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			s.outputs = append(s.outputs, tc.Text)
		}
	}
	if res.StructuredContent != nil {
		s.outputs = append(s.outputs, string(mustJSON(s.t, res.StructuredContent)))
	}
	return res
}

// ok calls a tool that must succeed and returns its structuredContent as
// JSON.
func (s *session) ok(name string, args any) []byte {
	s.t.Helper()
	res := s.call(name, args)
	if res.IsError {
		s.t.Fatalf("%s: tool error %s", name, texts(res))
	}
	if res.StructuredContent == nil {
		s.t.Fatalf("%s: no structuredContent", name)
	}
	return mustJSON(s.t, res.StructuredContent)
}

// withFull is args with detail "full" and the largest budget.
func withFull(args map[string]any) map[string]any {
	a := map[string]any{argDetail: detailFull, argMaxResultTokens: MaxResultTokens}
	for k, v := range args {
		a[k] = v
	}
	return a
}

// full calls a tool that must succeed for its whole result, as the LSP
// command returns it: detail "full" where the tool has it, a budget large
// enough, and a one-page list's page info removed.
func (s *session) full(name string, args map[string]any) []byte {
	s.t.Helper()
	a := map[string]any{argMaxResultTokens: MaxResultTokens}
	for k, v := range args {
		a[k] = v
	}
	for _, tl := range tools {
		if tl.name == name && tl.detail {
			a[argDetail] = detailFull
		}
	}
	data := s.ok(name, a)
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		s.t.Fatal(err)
	}
	if raw, ok := obj["page"]; ok {
		var p pageInfo
		if err := json.Unmarshal(raw, &p); err != nil || p.Pages != 1 {
			s.t.Fatalf("%s: the whole result needs %d pages", name, p.Pages)
		}
		delete(obj, "page")
		return mustJSON(s.t, obj)
	}
	return data
}

// toolError is a tool error's two texts: the reader's, and the JSON one.
type toolErrorTexts struct {
	text string
	json []byte
}

// fails calls a tool that must answer with a tool error and returns its
// texts.
func (s *session) fails(name string, args any) toolErrorTexts {
	s.t.Helper()
	res := s.call(name, args)
	if !res.IsError {
		s.t.Fatalf("%s: got a result, want a tool error: %s", name, texts(res))
	}
	if res.StructuredContent != nil {
		s.t.Errorf("%s: a tool error carries structuredContent, which a client would validate against the output schema", name)
	}
	if len(res.Content) != 2 {
		s.t.Fatalf("%s: tool error with %d contents, want 2: %s", name, len(res.Content), texts(res))
	}
	first, _ := res.Content[0].(*sdk.TextContent)
	second, _ := res.Content[1].(*sdk.TextContent)
	if first == nil || second == nil {
		s.t.Fatalf("%s: tool error contents are not texts", name)
	}
	return toolErrorTexts{text: first.Text, json: []byte(second.Text)}
}

// refusal calls a tool that must be refused and returns the refusal,
// decoded strictly from the JSON text.
func (s *session) refusal(name string, args any) (*refusalSummary, string) {
	s.t.Helper()
	e := s.fails(name, args)
	dec := json.NewDecoder(bytes.NewReader(e.json))
	dec.DisallowUnknownFields()
	var out struct {
		Refusal *refusalSummary `json:"refusal"`
		Page    *pageInfo       `json:"page"`
	}
	if err := dec.Decode(&out); err != nil || out.Refusal == nil {
		s.t.Fatalf("%s: the JSON text is not {\"refusal\": …}: %v\n%s", name, err, e.json)
	}
	return out.Refusal, e.text
}

// texts joins a result's texts, for failure messages.
func texts(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n---\n")
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// member returns a top-level member of a JSON object.
func member(t *testing.T, data []byte, name string) json.RawMessage {
	t.Helper()
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		t.Fatal(err)
	}
	m, ok := obj[name]
	if !ok {
		t.Fatalf("no member %q in %.300s", name, data)
	}
	return m
}

// TestMain gives the tests a configuration and state directory of their
// own (testenv.Run): builds in workspaces that did not opt in record
// under the state directory.
func TestMain(m *testing.M) { os.Exit(testenv.Run(m)) }

package server

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// step is one message a lifecycle case sends before its probe.
type step struct {
	method string
	params any
	notify bool
}

func TestLifecycleErrors(t *testing.T) {
	initialize := step{method: "initialize", params: map[string]any{"capabilities": map[string]any{}}}
	shutdown := step{method: "shutdown"}
	status := map[string]any{"command": "ctxd.indexStatus"}
	tests := []struct {
		name     string
		before   []step
		method   string
		params   any
		wantCode int64
		wantMsg  string // substring of the error message
	}{
		{name: "request before initialize", method: "workspace/executeCommand", params: status, wantCode: -32002},
		{name: "shutdown before initialize", method: "shutdown", wantCode: -32002},
		{name: "unknown request before initialize", method: "foo/bar", wantCode: -32002},
		{name: "second initialize", before: []step{initialize}, method: "initialize", params: map[string]any{"capabilities": map[string]any{}}, wantCode: -32600},
		{name: "request after shutdown", before: []step{initialize, shutdown}, method: "workspace/executeCommand", params: status, wantCode: -32600},
		{name: "second shutdown", before: []step{initialize, shutdown}, method: "shutdown", wantCode: -32600},
		{name: "initialize after shutdown", before: []step{initialize, shutdown}, method: "initialize", params: map[string]any{}, wantCode: -32600},
		{name: "unknown request", before: []step{initialize}, method: "textDocument/hover", params: map[string]any{}, wantCode: -32601, wantMsg: "textDocument/hover"},
		{name: "unknown $/ request", before: []step{initialize}, method: "$/ctxd/nothing", wantCode: -32601},
		{name: "executeCommand without params", before: []step{initialize}, method: "workspace/executeCommand", wantCode: -32602, wantMsg: "params are missing"},
		{name: "executeCommand command of wrong type", before: []step{initialize}, method: "workspace/executeCommand", params: map[string]any{"command": 5}, wantCode: -32602, wantMsg: `field "command"`},
		{name: "executeCommand without command", before: []step{initialize}, method: "workspace/executeCommand", params: map[string]any{"arguments": []any{}}, wantCode: -32602, wantMsg: `"command"`},
		{name: "unknown command", before: []step{initialize}, method: "workspace/executeCommand", params: map[string]any{"command": "ctxd.nope"}, wantCode: -32602, wantMsg: "ctxd.indexStatus"},
		{name: "command argument with unknown field", before: []step{initialize}, method: "workspace/executeCommand", params: map[string]any{"command": "ctxd.indexStatus", "arguments": []any{map[string]any{"bogus": 1}}}, wantCode: -32602, wantMsg: `"bogus"`},
		{name: "initialize with positionEncodings of wrong type", method: "initialize", params: map[string]any{"capabilities": map[string]any{"general": map[string]any{"positionEncodings": "utf-8"}}}, wantCode: -32602, wantMsg: "capabilities.general.positionEncodings"},
		{name: "initialize with folder without uri", method: "initialize", params: map[string]any{"capabilities": map[string]any{}, "workspaceFolders": []any{map[string]any{"name": "x"}}}, wantCode: -32602, wantMsg: "workspaceFolders[0].uri"},
		{name: "initialize with null params", method: "initialize", wantCode: -32602, wantMsg: "missing"},
		{name: "shutdown succeeds", before: []step{initialize}, method: "shutdown", wantCode: 0},
		{name: "notifications before initialize are dropped, not fatal", before: []step{{method: "textDocument/didOpen", params: map[string]any{}, notify: true}, initialize}, method: "workspace/executeCommand", params: status, wantCode: 0},
		{name: "unknown notifications are ignored", before: []step{initialize, {method: "$/ctxd/unknown", notify: true}, {method: "custom/notify", params: []any{1}, notify: true}}, method: "workspace/executeCommand", params: status, wantCode: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			for i, s := range tt.before {
				if s.notify {
					h.notify(s.method, s.params)
					continue
				}
				if m := h.call(100+i, s.method, s.params); m.Error != nil {
					t.Fatalf("setup %s: %v", s.method, m.Error)
				}
			}
			m := h.call("probe", tt.method, tt.params)
			if got := errCode(m); got != tt.wantCode {
				t.Fatalf("code = %d (%v), want %d", got, m.Error, tt.wantCode)
			}
			if tt.wantMsg != "" && !strings.Contains(m.Error.Message, tt.wantMsg) {
				t.Errorf("message %q does not contain %q", m.Error.Message, tt.wantMsg)
			}
		})
	}
}

func TestExitCodes(t *testing.T) {
	tests := []struct {
		name  string
		steps func(h *harness)
		want  int
	}{
		{"shutdown then exit", func(h *harness) { h.initialize(nil); h.call(2, "shutdown", nil); h.notify("exit", nil) }, 0},
		{"exit without shutdown", func(h *harness) { h.initialize(nil); h.notify("exit", nil) }, 1},
		{"exit before initialize", func(h *harness) { h.notify("exit", nil) }, 1},
		{"end of input after shutdown", func(h *harness) { h.initialize(nil); h.call(2, "shutdown", nil); h.cli.Close() }, 0},
		{"end of input without shutdown", func(h *harness) { h.initialize(nil); h.cli.Close() }, 0},
		{"exit without shutdown, then end of input", func(h *harness) { h.initialize(nil); h.notify("exit", nil); h.cli.Close() }, 1},
		{"shutdown, exit, end of input", func(h *harness) { h.initialize(nil); h.call(2, "shutdown", nil); h.notify("exit", nil); h.cli.Close() }, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			tt.steps(h)
			if got := h.exitCode(); got != tt.want {
				t.Errorf("exit code = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestPositionEncodingNegotiation(t *testing.T) {
	tests := []struct {
		name    string
		offered any
		want    string
	}{
		{"absent", nil, "utf-16"},
		{"empty", []string{}, "utf-16"},
		{"utf-8 only", []string{"utf-8"}, "utf-8"},
		{"utf-8 preferred", []string{"utf-8", "utf-16"}, "utf-8"},
		{"utf-16 preferred", []string{"utf-16", "utf-8"}, "utf-16"},
		{"utf-32 preferred", []string{"utf-32", "utf-8"}, "utf-32"},
		{"unknown skipped", []string{"latin-1", "utf-8"}, "utf-8"},
		{"nothing supported", []string{"latin-1"}, "utf-16"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			caps := map[string]any{}
			if tt.offered != nil {
				caps["general"] = map[string]any{"positionEncodings": tt.offered}
			}
			m := h.initialize(caps)
			var res struct {
				Capabilities struct {
					PositionEncoding string `json:"positionEncoding"`
				} `json:"capabilities"`
			}
			if err := json.Unmarshal(m.Result, &res); err != nil {
				t.Fatal(err)
			}
			if res.Capabilities.PositionEncoding != tt.want {
				t.Errorf("positionEncoding = %q, want %q", res.Capabilities.PositionEncoding, tt.want)
			}
			if got := h.status(2).PositionEncoding; string(got) != tt.want {
				t.Errorf("session encoding = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestInitializeResult(t *testing.T) {
	h := newHarness(t)
	m := h.initialize(nil)
	var got map[string]any
	if err := json.Unmarshal(m.Result, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"capabilities": map[string]any{
			"positionEncoding":        "utf-16",
			"textDocumentSync":        map[string]any{"openClose": true, "change": float64(2), "save": map[string]any{}},
			"executeCommandProvider":  map[string]any{"commands": []any{"ctxd.buildContext", "ctxd.manifest", "ctxd.budget", "ctxd.renderPrompt", "ctxd.recordExecution", "ctxd.checkChange", "ctxd.verify", "ctxd.indexStatus"}},
			"workspace":               map[string]any{"workspaceFolders": map[string]any{"supported": true, "changeNotifications": true}},
			"documentSymbolProvider":  true,
			"workspaceSymbolProvider": true,
		},
		"serverInfo": map[string]any{"name": "ctxd", "version": "test"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("initialize result (-want +got):\n%s", diff)
	}
}

// TestSession drives one whole editor session in process: initialize,
// initialized, didOpen, didChange, a request that observes the edit,
// shutdown, exit.
func TestSession(t *testing.T) {
	h := newHarness(t, withContentRequest)
	h.initialize(map[string]any{"general": map[string]any{"positionEncodings": []string{"utf-8", "utf-16"}}})
	open(h, docURI, 1, "package main\n\nfunc main() {}\n")
	change(h, docURI, 2, map[string]any{"range": rng(2, 5, 2, 9), "text": "run"})
	if got := content(h, docURI); got != "package main\n\nfunc run() {}\n" {
		t.Fatalf("content = %q", got)
	}
	st := h.status(3)
	if st.PositionEncoding != "utf-8" || len(st.OpenDocuments) != 1 || st.OpenDocuments[0].Version != 2 {
		t.Fatalf("status = %+v", st)
	}
	if m := h.call(4, "shutdown", nil); m.Error != nil || string(m.Result) != "null" {
		t.Fatalf("shutdown = %s %v", m.Result, m.Error)
	}
	h.notify("exit", nil)
	if code := h.exitCode(); code != 0 {
		t.Errorf("exit code = %d, want 0", code)
	}
}

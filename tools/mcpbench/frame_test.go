package main

import (
	"strings"
	"testing"
)

func TestParseFrame(t *testing.T) {
	for _, c := range []struct {
		name, line      string
		id              string // IDKey
		method          string
		response        bool
		errCode         int
		invalidContains string
	}{
		{name: "result", line: `{"jsonrpc":"2.0","id":7,"result":{}}`, id: "7", response: true},
		{name: "id spacing is canonical", line: `{"jsonrpc":"2.0","id": 7 ,"result":{}}`, id: "7", response: true},
		{name: "string id", line: `{"jsonrpc":"2.0","id":"a","result":{}}`, id: `"a"`, response: true},
		{name: "parse error answer", line: `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, id: "null", response: true, errCode: -32700},
		{name: "error without id", line: `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"}}`, response: true, errCode: -32600},
		{name: "null error is no error", line: `{"jsonrpc":"2.0","id":1,"result":{},"error":null}`, id: "1", response: true},
		{name: "notification", line: `{"jsonrpc":"2.0","method":"notifications/message","params":{}}`, method: "notifications/message"},
		{name: "server request", line: `{"jsonrpc":"2.0","id":3,"method":"roots/list"}`, id: "3", method: "roots/list"},
		{name: "not JSON", line: `Listening on stdio`, invalidContains: "not a JSON-RPC object"},
		{name: "not an object", line: `42`, invalidContains: "not a JSON-RPC object"},
		{name: "wrong version", line: `{"jsonrpc":"1.0","id":1,"result":{}}`, invalidContains: `"1.0"`},
		{name: "error of the wrong type", line: `{"jsonrpc":"2.0","id":1,"error":"boom"}`, invalidContains: "not a JSON-RPC error object"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := parseFrame([]byte(c.line))
			if f.Size() != len(c.line) {
				t.Errorf("Size = %d, want %d", f.Size(), len(c.line))
			}
			if c.invalidContains != "" {
				if !strings.Contains(f.Invalid, c.invalidContains) {
					t.Fatalf("Invalid = %q, want it to contain %q", f.Invalid, c.invalidContains)
				}
				if f.IsResponse() {
					t.Error("an invalid frame is a response")
				}
				return
			}
			if f.Invalid != "" {
				t.Fatalf("Invalid = %q", f.Invalid)
			}
			if got := f.IDKey(); got != c.id {
				t.Errorf("IDKey = %q, want %q", got, c.id)
			}
			if f.Method != c.method {
				t.Errorf("Method = %q, want %q", f.Method, c.method)
			}
			if f.IsResponse() != c.response {
				t.Errorf("IsResponse = %v, want %v", f.IsResponse(), c.response)
			}
			switch {
			case c.errCode == 0 && f.Error != nil:
				t.Errorf("Error = %v, want none", f.Error)
			case c.errCode != 0 && (f.Error == nil || f.Error.Code != c.errCode):
				t.Errorf("Error = %v, want code %d", f.Error, c.errCode)
			}
		})
	}
}

func TestToolResult(t *testing.T) {
	f := parseFrame([]byte(`{"jsonrpc":"2.0","id":2,"result":{"isError":true,"content":[` +
		`{"type":"text","text":"ctxd refused read_file: REFUSE_OUTSIDE_SANDBOX: the path leaves the folder\nadvice: name a path inside it"},` +
		`{"type":"text","text":"{\"refusal\":{\"code\":\"REFUSE_OUTSIDE_SANDBOX\"}}"},` +
		`{"type":"resource_link","uri":"ctxd://bundle/1/blocks/2","name":"b"},` +
		`{"type":"resource_link","uri":"ctxd://bundle/1/manifest"},` +
		`{"type":"resource_link"}]}}`))
	r, err := decodeToolResult(f)
	if err != nil {
		t.Fatal(err)
	}
	if !r.IsError {
		t.Error("IsError = false")
	}
	if got := len(r.Texts()); got != 2 {
		t.Errorf("%d texts, want 2", got)
	}
	if got := strings.Join(r.Links(), " "); got != "ctxd://bundle/1/blocks/2 ctxd://bundle/1/manifest" {
		t.Errorf("Links = %q (a link without a uri is not one)", got)
	}
	if got := r.ContentKinds(); got != "text×2, resource_link×3" {
		t.Errorf("ContentKinds = %q", got)
	}
	if got := r.RefusalCode(); got != "REFUSE_OUTSIDE_SANDBOX" {
		t.Errorf("RefusalCode = %q", got)
	}
	if got := r.FirstLine(24); got != "ctxd refused read_file: …" {
		t.Errorf("FirstLine = %q", got)
	}

	if _, err := decodeToolResult(parseFrame([]byte(`{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"unknown tool"}}`))); err == nil {
		t.Error("an error frame decodes as a tool result")
	}
	if _, err := decodeToolResult(parseFrame([]byte(`{"jsonrpc":"2.0","id":2,"result":{"content":"text"}}`))); err == nil {
		t.Error("a result whose content is not a list decodes")
	}
	empty, err := decodeToolResult(parseFrame([]byte(`{"jsonrpc":"2.0","id":2,"result":{}}`)))
	if err != nil || empty.ContentKinds() != "no content" || empty.RefusalCode() != "" || empty.FirstLine(10) != "" {
		t.Errorf("empty result: %v %+v", err, empty)
	}
}

func TestToolsPage(t *testing.T) {
	p, err := decodeToolsPage(parseFrame([]byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[` +
		`{"name":"build_context","inputSchema":{"type":"object","properties":{"purpose":{},"max_result_tokens":{"type":"integer"}}}},` +
		`{"name":"verify","inputSchema":{"type":"object"}}],"nextCursor":"c2"}}`)))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Tools) != 2 || p.NextCursor != "c2" {
		t.Fatalf("page = %+v", p)
	}
	if _, ok := p.Tools[0].InputSchema.Properties["max_result_tokens"]; !ok {
		t.Error("build_context's max_result_tokens property not decoded")
	}
	if p.Tools[1].InputSchema.Properties != nil {
		t.Error("verify has properties")
	}
}

func TestStringsOf(t *testing.T) {
	got := stringsOf([]byte(`{"a\u0062":["x\u0041KIA\/y",{"k":"v"}],"n":1.5,"b":true}`))
	for _, want := range []string{"ab\n", "xAKIA/y\n", "k\n", "v\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("stringsOf = %q, missing %q", got, want)
		}
	}
	if stringsOf([]byte(`{"cut`)) != "" {
		t.Error("stringsOf of broken JSON is not empty")
	}
}

func TestCut(t *testing.T) {
	if got := cut("héllo", 3); got != "hél…" {
		t.Errorf("cut = %q", got)
	}
	if got := cut("abc", 3); got != "abc" {
		t.Errorf("cut = %q", got)
	}
}

package main

// Frames as the bench reads them: one JSON-RPC message per line, decoded
// only as far as a goal needs, so that a server answering in a shape the
// bench does not expect is measured and reported rather than crashing it.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *rpcError) String() string {
	return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message)
}

// frame is one message received from the server.
type frame struct {
	// Raw is the line as received, without its newline: what the frame
	// sizes count and the leak scan reads.
	Raw []byte
	// ID is the id as sent ("null" for a parse error's answer), nil when
	// the message has none (a notification).
	ID     json.RawMessage
	Method string // set for a request or notification from the server
	Result json.RawMessage
	Error  *rpcError
	// Invalid says why the line is not a JSON-RPC message at all; the
	// other fields are then empty.
	Invalid string
}

// Size is the frame's size in bytes, newline excluded: what an agent
// host reads into its context for one answer.
func (f *frame) Size() int { return len(f.Raw) }

// IsResponse says the frame answers a request (it has a result or an
// error and no method).
func (f *frame) IsResponse() bool {
	return f.Invalid == "" && f.Method == "" && (f.Result != nil || f.Error != nil)
}

// IDKey is the id in a canonical form for matching answers to requests:
// the compact JSON of the id; "" when absent, "null" for a null id.
func (f *frame) IDKey() string {
	if len(f.ID) == 0 {
		return ""
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, f.ID); err != nil {
		return string(f.ID)
	}
	return buf.String()
}

// parseFrame decodes one received line. It never fails: a line that is not
// a JSON object, or whose fields have the wrong types, is a frame with
// Invalid set, since what the server sends is what is being measured.
func parseFrame(line []byte) *frame {
	f := &frame{Raw: line}
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(line, &m); err != nil {
		f.Invalid = "not a JSON-RPC object: " + err.Error()
		return f
	}
	if m.JSONRPC != "2.0" {
		f.Invalid = fmt.Sprintf("jsonrpc is %q, not \"2.0\"", m.JSONRPC)
		return f
	}
	f.ID, f.Method, f.Result = m.ID, m.Method, m.Result
	if len(m.Error) > 0 && !bytes.Equal(bytes.TrimSpace(m.Error), []byte("null")) {
		var e rpcError
		if err := json.Unmarshal(m.Error, &e); err != nil {
			f.Invalid = "error is not a JSON-RPC error object: " + err.Error()
			return f
		}
		f.Error = &e
	}
	return f
}

// content is one item of a tool result's content.
type content struct {
	Type string `json:"type"`
	Text string `json:"text,omitempty"`
	URI  string `json:"uri,omitempty"`
}

// toolResult is a tools/call result.
type toolResult struct {
	Content           []content       `json:"content"`
	IsError           bool            `json:"isError"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
}

// decodeToolResult decodes a frame's result as a tools/call result.
func decodeToolResult(f *frame) (*toolResult, error) {
	if f.Result == nil {
		return nil, fmt.Errorf("no result")
	}
	var r toolResult
	if err := json.Unmarshal(f.Result, &r); err != nil {
		return nil, fmt.Errorf("the result is not a tool result: %v", err)
	}
	return &r, nil
}

// Texts are the texts of the result's text items, in order: what a model
// reads of a tool error.
func (r *toolResult) Texts() []string {
	var out []string
	for _, c := range r.Content {
		if c.Type == "text" {
			out = append(out, c.Text)
		}
	}
	return out
}

// Links are the URIs of the result's resource_link items.
func (r *toolResult) Links() []string {
	var out []string
	for _, c := range r.Content {
		if c.Type == "resource_link" && c.URI != "" {
			out = append(out, c.URI)
		}
	}
	return out
}

// ContentKinds summarizes the content items by type, in order of first
// appearance ("text×2, resource_link×3").
func (r *toolResult) ContentKinds() string {
	var order []string
	n := map[string]int{}
	for _, c := range r.Content {
		if n[c.Type] == 0 {
			order = append(order, c.Type)
		}
		n[c.Type]++
	}
	parts := make([]string, len(order))
	for i, t := range order {
		parts[i] = fmt.Sprintf("%s×%d", t, n[t])
	}
	if len(parts) == 0 {
		return "no content"
	}
	return strings.Join(parts, ", ")
}

// refuseCode finds the first REFUSE_* code in the texts.
var refuseCode = regexp.MustCompile(`\bREFUSE_[A-Z_]+\b`)

// RefusalCode is the first REFUSE_* code the result's texts carry, or "".
func (r *toolResult) RefusalCode() string {
	for _, t := range r.Texts() {
		if c := refuseCode.FindString(t); c != "" {
			return c
		}
	}
	return ""
}

// FirstLine is the first line of the first text, cut to n runes: enough
// to say what an error was in a table cell.
func (r *toolResult) FirstLine(n int) string {
	for _, t := range r.Texts() {
		line, _, _ := strings.Cut(t, "\n")
		return cut(line, n)
	}
	return ""
}

// cut shortens s to n runes, marking the cut.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// toolInfo is what tools/list says of one tool that the bench uses.
type toolInfo struct {
	Name        string `json:"name"`
	InputSchema struct {
		Properties map[string]json.RawMessage `json:"properties"`
	} `json:"inputSchema"`
}

// toolsPage is one tools/list result.
type toolsPage struct {
	Tools      []toolInfo `json:"tools"`
	NextCursor string     `json:"nextCursor,omitempty"`
}

// decodeToolsPage decodes a tools/list result.
func decodeToolsPage(f *frame) (*toolsPage, error) {
	if f.Result == nil {
		return nil, fmt.Errorf("no result")
	}
	var p toolsPage
	if err := json.Unmarshal(f.Result, &p); err != nil {
		return nil, fmt.Errorf("the result is not a tools/list result: %v", err)
	}
	return &p, nil
}

// stringsOf returns every string of a JSON document, object keys
// included, each unescaped, joined by newlines; "" when raw is not JSON.
// The leak scan reads it besides the raw bytes, since a JSON escape
// (\u0041, \/) would hide a secret from a byte search.
func stringsOf(raw []byte) string {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return ""
	}
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			b.WriteString(v)
			b.WriteByte('\n')
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for k, e := range v {
				b.WriteString(k)
				b.WriteByte('\n')
				walk(e)
			}
		}
	}
	walk(v)
	return b.String()
}

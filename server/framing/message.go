package framing

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strconv"

	"go.lsp.dev/jsonrpc2"
)

const (
	// maxEchoedID bounds the id copied into an error reply. Any sane id is
	// tiny; echoing a megabyte-long one would let a peer amplify traffic.
	maxEchoedID = 1 << 10

	// maxLoggedText bounds methods and ids in log records.
	maxLoggedText = 128
)

// wireFields is the validation view of a message. Members stay raw so that
// a member of the wrong type is a problem we can describe and answer rather
// than a decode failure that loses the id, and so that an absent member
// (nil) is distinguishable from null (the bytes "null").
type wireFields struct {
	JSONRPC json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// decode turns a well-framed body into a message, or answers or drops it
// and returns nil.
func (s *Stream) decode(ctx context.Context, body []byte) jsonrpc2.Message {
	size := len(body)
	if !json.Valid(body) {
		s.rejectMessage(ctx, nil, jsonrpc2.ParseError, "message body is not valid JSON", "", size)
		return nil
	}
	switch firstByte(body) {
	case '{':
	case '[':
		// LSP never batches, and jsonrpc2.Conn could not answer a batch as
		// one array anyway, so the whole batch gets the single error the
		// JSON-RPC spec prescribes for an unusable batch.
		s.rejectMessage(ctx, nil, jsonrpc2.InvalidRequest, "batch requests are not supported", "", size)
		return nil
	default:
		s.rejectMessage(ctx, nil, jsonrpc2.InvalidRequest, "message is not a JSON object", "", size)
		return nil
	}
	var w wireFields
	if err := json.Unmarshal(body, &w); err != nil {
		// Not expected once json.Valid has passed; handled anyway so that
		// a decoder change shows up as a reply rather than a silent drop.
		s.rejectMessage(ctx, nil, jsonrpc2.ParseError, "message body could not be decoded", "", size)
		return nil
	}
	if w.Method != nil {
		return s.decodeRequest(ctx, &w, size)
	}
	return s.decodeResponse(ctx, &w, size)
}

func (s *Stream) decodeRequest(ctx context.Context, w *wireFields, size int) jsonrpc2.Message {
	method, methodProblem := checkMethod(w.Method)
	idProblem := ""
	if w.ID != nil {
		idProblem = checkID(w.ID)
	}
	problem := firstProblem(checkVersion(w.JSONRPC), idProblem, methodProblem, checkParams(w.Params))
	if problem == "" {
		msg, err := jsonrpc2.DecodeMessage(canonicalRequest(w))
		switch msg.(type) {
		case *jsonrpc2.Call:
			if err == nil && w.ID != nil {
				return msg
			}
		case *jsonrpc2.Notification:
			if err == nil && w.ID == nil {
				return msg
			}
		}
		problem = "message could not be decoded as a request"
	}
	if w.ID == nil {
		// A notification must never be answered, so all we can do is log.
		s.drop(ctx, "framing: dropped invalid notification", problem, method, nil, size)
		return nil
	}
	s.rejectMessage(ctx, w.ID, jsonrpc2.InvalidRequest, problem, method, size)
	return nil
}

func (s *Stream) decodeResponse(ctx context.Context, w *wireFields, size int) jsonrpc2.Message {
	if w.ID == nil {
		if w.Result != nil || w.Error != nil {
			// It looks like a response that lost its id. Answering it
			// could start an error ping-pong with a peer that answers
			// responses too, and nothing is waiting for it by id.
			s.drop(ctx, "framing: dropped invalid response", "response has no id", "", nil, size)
			return nil
		}
		s.rejectMessage(ctx, nil, jsonrpc2.InvalidRequest, "message has neither a method nor an id", "", size)
		return nil
	}
	if w.Params != nil && w.Result == nil && w.Error == nil {
		// Params make it a request that lost its method; passing it on as
		// a response could complete an unrelated server call with that id.
		s.rejectMessage(ctx, w.ID, jsonrpc2.InvalidRequest, "message has params but no method", "", size)
		return nil
	}
	// A message with an id and neither method, result nor error is taken
	// as a response with a null result: clients that serialise a void
	// result by omitting it are common, and the server call waiting on that
	// id should complete rather than hang.
	problem := firstProblem(checkVersion(w.JSONRPC), checkID(w.ID), checkError(w.Error))
	if problem == "" {
		msg, err := jsonrpc2.DecodeMessage(canonicalResponse(w))
		if _, ok := msg.(*jsonrpc2.Response); ok && err == nil {
			return msg
		}
		problem = "message could not be decoded as a response"
	}
	// Responses are never answered (JSON-RPC forbids it); the pending call,
	// if any, is left to its own timeout.
	s.drop(ctx, "framing: dropped invalid response", problem, "", w.ID, size)
	return nil
}

// canonicalRequest rebuilds the message from the members that were
// validated. Handing jsonrpc2.DecodeMessage these bytes rather than the
// original body guarantees it sees exactly what was checked: both decoders
// match member names case-insensitively and resolve duplicates on their
// own, so the original could otherwise be read differently.
func canonicalRequest(w *wireFields) []byte {
	var b bytes.Buffer
	b.Grow(len(w.ID) + len(w.Method) + len(w.Params) + 48)
	b.WriteString(`{"jsonrpc":"2.0"`)
	if w.ID != nil {
		writeMember(&b, "id", w.ID)
	}
	writeMember(&b, "method", w.Method)
	if !isNull(w.Params) {
		// "params": null means the same as no params.
		writeMember(&b, "params", w.Params)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// canonicalResponse is canonicalRequest for responses.
func canonicalResponse(w *wireFields) []byte {
	var b bytes.Buffer
	b.Grow(len(w.ID) + len(w.Result) + len(w.Error) + 48)
	b.WriteString(`{"jsonrpc":"2.0"`)
	writeMember(&b, "id", w.ID)
	if !isNull(w.Result) {
		writeMember(&b, "result", w.Result)
	}
	if !isNull(w.Error) {
		writeMember(&b, "error", w.Error)
	}
	b.WriteByte('}')
	return b.Bytes()
}

func writeMember(b *bytes.Buffer, name string, raw json.RawMessage) {
	b.WriteString(`,"`)
	b.WriteString(name)
	b.WriteString(`":`)
	b.Write(raw)
}

// The check functions return "" when the member is acceptable, else a
// description for the peer. Descriptions never quote member values, which
// may contain file contents.

func checkVersion(raw json.RawMessage) string {
	if raw == nil {
		return `missing "jsonrpc" member`
	}
	var v string
	if firstByte(raw) != '"' || json.Unmarshal(raw, &v) != nil || v != jsonrpc2.Version {
		return `"jsonrpc" member must be "2.0"`
	}
	return ""
}

// checkID accepts exactly the ids that survive a round trip through
// jsonrpc2.ID: integers in int32 range and non-empty strings. An empty
// string would come back as the number 0, and null would silently turn a
// call into a notification that is never answered.
func checkID(raw json.RawMessage) string {
	switch c := firstByte(raw); {
	case c == '"':
		var v string
		if json.Unmarshal(raw, &v) != nil {
			return "id must be a string or an integer"
		}
		if v == "" {
			return "id must not be an empty string"
		}
		return ""
	case c == '-' || ('0' <= c && c <= '9'):
		if !isIntegerLiteral(raw) {
			return "id must be an integer, not a number with a fraction or exponent"
		}
		if _, err := strconv.ParseInt(string(raw), 10, 32); err != nil {
			return "id is outside the 32-bit integer range"
		}
		return ""
	case isNull(raw):
		return "id must be a string or an integer, not null"
	default:
		return "id must be a string or an integer"
	}
}

// isIntegerLiteral reports whether raw is a JSON number without fraction
// or exponent (raw is known to be a valid JSON value).
func isIntegerLiteral(raw []byte) bool {
	digits := bytes.TrimPrefix(raw, []byte("-"))
	return len(digits) > 0 && allDigits(digits)
}

func checkMethod(raw json.RawMessage) (method, problem string) {
	if firstByte(raw) != '"' || json.Unmarshal(raw, &method) != nil {
		return "", "method must be a string"
	}
	if method == "" {
		// jsonrpc2 tells requests from responses by a non-empty method, so
		// an empty one would turn this request into a bogus response.
		return "", "method must not be empty"
	}
	return method, ""
}

func checkParams(raw json.RawMessage) string {
	switch firstByte(raw) {
	case 0, '{', '[', 'n': // absent, object, array, null
		return ""
	}
	return "params must be an object or an array"
}

func checkError(raw json.RawMessage) string {
	switch firstByte(raw) {
	case 0, '{', 'n': // absent, object, null
		return ""
	}
	return "error must be an object"
}

func firstProblem(problems ...string) string {
	for _, p := range problems {
		if p != "" {
			return p
		}
	}
	return ""
}

// firstByte returns the first non-whitespace byte of a JSON text, or 0.
func firstByte(raw []byte) byte {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return c
	}
	return 0
}

func isNull(raw json.RawMessage) bool {
	return raw == nil || firstByte(raw) == 'n'
}

// errorReply is the JSON-RPC error response the stream sends on its own.
// It is built here rather than with jsonrpc2.NewResponse because the id to
// echo (3000000000, 1.5, null) is often one jsonrpc2.ID cannot hold.
type errorReply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   errorObject     `json:"error"`
}

type errorObject struct {
	Code    jsonrpc2.Code `json:"code"`
	Message string        `json:"message"`
}

// rejectFrame answers a framing problem. No id is known at that level, and
// size is only known (non-zero) for an oversized body.
func (s *Stream) rejectFrame(ctx context.Context, code jsonrpc2.Code, problem string, size int64) {
	attrs := []slog.Attr{
		slog.String("problem", problem),
		slog.Int64("code", int64(code)),
	}
	if size > 0 {
		attrs = append(attrs, slog.Int64("size", size))
	}
	s.log.LogAttrs(ctx, slog.LevelWarn, "framing: rejected malformed frame", attrs...)
	s.reply(ctx, nil, code, problem)
}

// rejectMessage answers an invalid message, echoing its id where it had a
// usable one so that a client waiting on that id is released.
func (s *Stream) rejectMessage(ctx context.Context, id json.RawMessage, code jsonrpc2.Code, problem, method string, size int) {
	attrs := []slog.Attr{
		slog.String("problem", problem),
		slog.Int64("code", int64(code)),
		slog.Int("size", size),
	}
	attrs = appendMethodAndID(attrs, method, id)
	s.log.LogAttrs(ctx, slog.LevelWarn, "framing: rejected invalid message", attrs...)
	if len(id) > maxEchoedID {
		id = nil
	}
	s.reply(ctx, id, code, problem)
}

// drop logs a message that must not be answered.
func (s *Stream) drop(ctx context.Context, what, problem, method string, id json.RawMessage, size int) {
	attrs := []slog.Attr{
		slog.String("problem", problem),
		slog.Int("size", size),
	}
	attrs = appendMethodAndID(attrs, method, id)
	s.log.LogAttrs(ctx, slog.LevelWarn, what, attrs...)
}

// reply writes an error response. A failed write is only logged: Read's
// contract is to fail on the reader alone, and a broken writer will fail
// the Conn's own next Write anyway.
func (s *Stream) reply(ctx context.Context, id json.RawMessage, code jsonrpc2.Code, message string) {
	body, err := json.Marshal(errorReply{
		JSONRPC: jsonrpc2.Version,
		ID:      id,
		Error:   errorObject{Code: code, Message: message},
	})
	if err != nil {
		s.log.LogAttrs(ctx, slog.LevelError, "framing: encoding error reply failed", slog.Any("error", err))
		return
	}
	if _, err := s.writeFrame(body); err != nil {
		s.log.LogAttrs(ctx, slog.LevelWarn, "framing: sending error reply failed", slog.Any("error", err))
	}
}

// appendMethodAndID adds a method and id to log attributes. Only string
// and number ids are logged, truncated: any other JSON value could carry
// body content.
func appendMethodAndID(attrs []slog.Attr, method string, id json.RawMessage) []slog.Attr {
	if method != "" {
		attrs = append(attrs, slog.String("method", truncate(method)))
	}
	switch c := firstByte(id); {
	case c == '"':
		var v string
		if json.Unmarshal(id, &v) == nil {
			attrs = append(attrs, slog.String("id", truncate(v)))
		}
	case c == '-' || ('0' <= c && c <= '9'):
		attrs = append(attrs, slog.String("id", truncate(string(id))))
	}
	return attrs
}

func truncate(s string) string {
	if len(s) <= maxLoggedText {
		return s
	}
	return s[:maxLoggedText] + "..."
}

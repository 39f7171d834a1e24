package handlers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"go.lsp.dev/jsonrpc2"
)

// validator is implemented by params types with required fields; validate
// names the first missing or invalid field.
type validator interface {
	validate() error
}

// decodeParams decodes LSP params leniently (unknown fields are allowed: LSP
// clients extend messages freely) and reports any problem as InvalidParams
// naming the field, so a client author can fix the request from the message.
func decodeParams(raw json.RawMessage, v any) error {
	return decode(raw, v, false)
}

// decodeStrict is decodeParams for ctxd's own command arguments, where an
// unknown field is a client bug that must not be silently ignored.
func decodeStrict(raw json.RawMessage, v any) error {
	return decode(raw, v, true)
}

func decode(raw json.RawMessage, v any, strict bool) error {
	if isAbsent(raw) {
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, "invalid params: params are missing")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, "invalid params: "+describeDecodeError(err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, "invalid params: trailing data after the params value")
	}
	if val, ok := v.(validator); ok {
		if err := val.validate(); err != nil {
			return jsonrpc2.NewError(jsonrpc2.InvalidParams, "invalid params: "+err.Error())
		}
	}
	return nil
}

// isAbsent reports whether params were omitted or null.
func isAbsent(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || bytes.Equal(t, []byte("null"))
}

// describeDecodeError turns encoding/json's errors into a message that names
// the offending field.
func describeDecodeError(err error) string {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		field := typeErr.Field
		if field == "" {
			return fmt.Sprintf("expected %s, got JSON %s", jsonKind(typeErr.Type.Kind().String()), typeErr.Value)
		}
		return fmt.Sprintf("field %q: expected %s, got JSON %s", field, jsonKind(typeErr.Type.Kind().String()), typeErr.Value)
	case errors.As(err, &syntaxErr):
		return fmt.Sprintf("malformed JSON at byte %d", syntaxErr.Offset)
	}
	// DisallowUnknownFields reports `json: unknown field "x"`.
	msg := err.Error()
	if after, ok := bytes.CutPrefix([]byte(msg), []byte("json: ")); ok {
		return string(after)
	}
	return msg
}

// jsonKind names a Go kind the way a JSON client thinks of it.
func jsonKind(kind string) string {
	switch kind {
	case "int", "int8", "int16", "int32", "int64":
		return "an integer"
	case "uint", "uint8", "uint16", "uint32", "uint64":
		return "a non-negative integer"
	case "float32", "float64":
		return "a number"
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice", "array":
		return "an array"
	case "struct", "map":
		return "an object"
	}
	return kind
}

// missing builds the error for an absent required field.
func missing(field string) error {
	return fmt.Errorf("missing required field %q", field)
}

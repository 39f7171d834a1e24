package workspace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/ctxd/ctxd/contextbuilder"
)

// invalidError is a malformed argument: its text is what the client sees,
// and it matches ErrInvalidArgs.
type invalidError struct{ msg string }

func (e *invalidError) Error() string { return e.msg }

func (e *invalidError) Is(target error) bool { return target == ErrInvalidArgs }

// invalid returns an error matching [ErrInvalidArgs] whose text is the
// formatted message as is.
func invalid(format string, args ...any) error {
	return &invalidError{msg: fmt.Sprintf(format, args...)}
}

// Validator is implemented by argument types with rules beyond their JSON
// shape; Validate names the first invalid field.
type Validator interface {
	Validate() error
}

// DecodeStrict is ctxd's strict JSON decoding of command arguments:
// [DecodeJSON] with unknown fields rejected. Build requests add their
// stricter key rules on top of it ([DecodeBuildRequest]).
func DecodeStrict(raw json.RawMessage, v any) error {
	return DecodeJSON(raw, v, true)
}

// DecodeJSON is ctxd's one JSON decoder of arguments and params: exactly
// one JSON value, no trailing data, types as declared, then the type's own
// validation ([Validator]); strict also rejects unknown fields (ctxd's own
// command arguments), while LSP params are decoded leniently, since LSP
// clients extend messages freely. Its errors match [ErrInvalidArgs] and
// read "invalid params: <what is wrong, naming the field>".
func DecodeJSON(raw json.RawMessage, v any, strict bool) error {
	if isAbsent(raw) {
		return invalid("invalid params: params are missing")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		return invalid("invalid params: %s", describeDecodeError(err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return invalid("invalid params: trailing data after the params value")
	}
	if val, ok := v.(Validator); ok {
		if err := val.Validate(); err != nil {
			return invalid("invalid params: %s", err.Error())
		}
	}
	return nil
}

// decodeArgs returns the decoder of a command's argument of type T;
// optional arguments decode an absent or null value as T's zero value.
func decodeArgs[T any](optional bool) func(json.RawMessage) (*T, error) {
	return func(raw json.RawMessage) (*T, error) {
		var v T
		if optional && isAbsent(raw) {
			return &v, nil
		}
		if err := DecodeStrict(raw, &v); err != nil {
			return nil, err
		}
		return &v, nil
	}
}

// isAbsent reports whether a value was omitted or null.
func isAbsent(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || bytes.Equal(t, []byte("null"))
}

// describeDecodeError turns encoding/json's errors into a message that
// names the offending field.
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

// DecodeBuildRequest decodes the argument of ctxd.buildContext,
// ctxd.manifest and ctxd.budget. Errors wrap
// contextbuilder.ErrInvalidRequest.
func DecodeBuildRequest(raw json.RawMessage) (*contextbuilder.Request, error) {
	return contextbuilder.DecodeRequest(raw)
}

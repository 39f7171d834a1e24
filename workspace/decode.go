package workspace

import (
	"encoding/json"
	"fmt"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/internal/strictjson"
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

// DecodeJSON decodes arguments and params with ctxd's one strict JSON
// decoder (internal/strictjson): exactly one JSON value, no trailing data,
// types as declared, then the type's own validation ([Validator]); strict
// also rejects unknown fields (ctxd's own command arguments), while LSP
// params are decoded leniently, since LSP clients extend messages freely.
// Its errors match [ErrInvalidArgs] and read "invalid params: <what is
// wrong, naming the field>".
func DecodeJSON(raw json.RawMessage, v any, strict bool) error {
	if strictjson.Absent(raw) {
		return invalid("invalid params: params are missing")
	}
	if err := strictjson.Decode(raw, v, strictjson.Options{Lenient: !strict}); err != nil {
		return invalid("invalid params: %s", err.Error())
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
		if optional && strictjson.Absent(raw) {
			return &v, nil
		}
		if err := DecodeStrict(raw, &v); err != nil {
			return nil, err
		}
		return &v, nil
	}
}

// DecodeBuildRequest decodes the argument of ctxd.buildContext,
// ctxd.manifest and ctxd.budget strictly: unknown fields, keys that are
// not exact snake_case field names and duplicate keys are rejected with
// their name, trailing data is rejected, and the request is validated.
// The thread object is checked for duplicates only here; its own decoder
// checks its names. Errors wrap contextbuilder.ErrInvalidRequest.
func DecodeBuildRequest(raw json.RawMessage) (*contextbuilder.Request, error) {
	if strictjson.Absent(raw) {
		return nil, fmt.Errorf("%w: the request object is missing (arguments[0])", contextbuilder.ErrInvalidRequest)
	}
	var r contextbuilder.Request
	if err := strictjson.Decode(raw, &r, strictjson.Options{ExactKeys: true, Opaque: []string{"thread"}}); err != nil {
		return nil, fmt.Errorf("%w: %w", contextbuilder.ErrInvalidRequest, err)
	}
	if err := r.Validate(); err != nil {
		return nil, err
	}
	return &r, nil
}

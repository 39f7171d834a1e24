// Package strictjson is ctxd's one strict JSON decoder. Command arguments
// (workspace), LSP params (handlers, leniently), the configuration file
// (workspace/policy), ledger lines (workspace/ledger) and the built-in
// secret rules (contextbuilder/secrets) all decode through [Decode], so
// that they accept the same documents and word their errors one way: what
// is wrong, naming the field.
//
// It is a leaf: it imports nothing of ctxd, so any layer may use it.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
)

// Options tune [Decode].
type Options struct {
	// Lenient accepts unknown object members (LSP params: clients extend
	// messages freely). ctxd's own formats are strict.
	Lenient bool
	// ExactKeys also rejects what encoding/json lets through: duplicate
	// keys (encoding/json keeps the last, other parsers the first) and
	// keys that match a field only case-insensitively ("PURPOSE", or
	// "purpoſe" by Unicode folding), for wire formats whose names are
	// exact lowercase snake_case.
	ExactKeys bool
	// Opaque names top-level members whose values are checked for
	// duplicate keys only (their own decoder checks their names).
	Opaque []string
}

// Error is a document that does not decode; its text says what is wrong,
// naming the field when there is one.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// Decode decodes exactly one JSON value from data into v: no trailing
// data, types as declared, and no unknown member unless opts.Lenient. An
// absent value (empty or null) is an error too. Errors are *Error.
func Decode(data []byte, v any, opts Options) error {
	if Absent(data) {
		return &Error{Msg: "the value is missing"}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if !opts.Lenient {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		return &Error{Msg: describe(err)}
	}
	if _, err := dec.Token(); err != io.EOF {
		return &Error{Msg: "trailing data after the JSON value"}
	}
	if opts.ExactKeys {
		d := json.NewDecoder(bytes.NewReader(data))
		d.UseNumber()
		if err := walkKeys(d, "", false, opts.Opaque); err != nil {
			return &Error{Msg: err.Error()}
		}
	}
	return nil
}

// Absent reports whether a value was omitted or null.
func Absent(data []byte) bool {
	t := bytes.TrimSpace(data)
	return len(t) == 0 || bytes.Equal(t, []byte("null"))
}

// describe turns encoding/json's errors into a message that names the
// offending field.
func describe(err error) string {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		field := jsonPath(typeErr.Field)
		if field == "" {
			return fmt.Sprintf("expected %s, got JSON %s", jsonKind(typeErr.Type.Kind().String()), typeErr.Value)
		}
		return fmt.Sprintf("field %q: expected %s, got JSON %s", field, jsonKind(typeErr.Type.Kind().String()), typeErr.Value)
	case errors.As(err, &syntaxErr):
		return fmt.Sprintf("malformed JSON at byte %d: %s", syntaxErr.Offset, syntaxErr.Error())
	}
	// DisallowUnknownFields reports `json: unknown field "x"`.
	msg := err.Error()
	if after, ok := bytes.CutPrefix([]byte(msg), []byte("json: ")); ok {
		return string(after)
	}
	return msg
}

// jsonPath is encoding/json's path of a field as the client wrote it:
// encoding/json names an embedded struct's fields through the Go type
// ("Execution.thread_id"), which a client never sees; field names are
// lowercase, so the capitalized segments are those types.
func jsonPath(field string) string {
	var out []string
	for seg := range strings.SplitSeq(field, ".") {
		if seg != "" && unicode.IsUpper(rune(seg[0])) {
			continue
		}
		out = append(out, seg)
	}
	return strings.Join(out, ".")
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

// walkKeys checks the keys of the JSON value that starts at dec's next
// token; path is its dotted field path. data is known to be one valid
// JSON value.
func walkKeys(dec *json.Decoder, path string, opaque bool, opaqueTop []string) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('{'):
		seen := map[string]bool{}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return err
			}
			key, _ := tok.(string)
			name := key
			if path != "" {
				name = path + "." + key
			}
			if seen[key] {
				return fmt.Errorf("duplicate field %q", name)
			}
			seen[key] = true
			if !opaque && !isFieldName(key) {
				return fmt.Errorf("unknown field %q (field names are lowercase snake_case)", name)
			}
			inner := opaque
			if path == "" {
				for _, o := range opaqueTop {
					inner = inner || key == o
				}
			}
			if err := walkKeys(dec, name, inner, opaqueTop); err != nil {
				return err
			}
		}
	case json.Delim('['):
		for dec.More() {
			if err := walkKeys(dec, path, opaque, opaqueTop); err != nil {
				return err
			}
		}
	default:
		return nil
	}
	_, err = dec.Token() // the closing delimiter
	return err
}

// isFieldName reports whether key can be a field name exactly: lowercase
// ASCII letters, digits and underscores.
func isFieldName(key string) bool {
	for i := 0; i < len(key); i++ {
		c := key[i]
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '_' {
			return false
		}
	}
	return key != ""
}

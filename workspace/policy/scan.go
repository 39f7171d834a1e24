package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"unicode/utf8"
)

// maxDepth bounds the nesting of the document. The deepest valid member
// (/policy/skills/<s>/namespaces/<n>/<i>) is six levels down; anything far
// deeper is not a configuration, and refusing it early keeps hostile input
// from costing stack or time.
const maxDepth = 32

// document is a JSON text decoded for validation, with what encoding/json
// forgets: where each member starts and how each number was written.
type document struct {
	data []byte
	// value is the decoded document: map[string]any, []any, string,
	// json.Number, bool or nil, the form the schema validator takes.
	value any
	// offsets maps the JSON pointer of every value to the byte offset
	// where it starts; for an object member, where its key starts.
	offsets map[string]int
}

// syntaxError is a defect of the JSON text itself.
type syntaxError struct {
	offset int
	field  string // pointer of the member involved, "" when none
	msg    string
}

// decodeDocument checks data as a strict JSON text and decodes it. It
// rejects what encoding/json tolerates: invalid UTF-8, duplicate members,
// data after the top-level value, and excessive nesting.
func decodeDocument(data []byte) (*document, *syntaxError) {
	if !utf8.Valid(data) {
		return nil, &syntaxError{offset: firstInvalidUTF8(data), msg: "the file is not valid UTF-8"}
	}
	if bytes.HasPrefix(data, []byte("\uFEFF")) {
		return nil, &syntaxError{msg: "the file starts with a byte order mark, which JSON does not allow; save it as UTF-8 without BOM"}
	}
	doc := &document{data: data, offsets: map[string]int{}}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()

	// frame is an open object or array: its pointer, the value being
	// built, and for an object the key whose value comes next.
	type frame struct {
		ptr    string
		obj    map[string]any
		arr    []any
		isObj  bool
		key    string
		hasKey bool
	}
	var stack []*frame
	done := false
	// place stores a finished value in the enclosing container, or as the
	// document when there is none.
	place := func(v any) {
		if len(stack) == 0 {
			doc.value = v
			done = true
			return
		}
		top := stack[len(stack)-1]
		if top.isObj {
			top.obj[top.key] = v
			top.hasKey = false
			return
		}
		top.arr = append(top.arr, v)
	}
	// childPtr is the pointer of the value about to be read.
	childPtr := func() string {
		if len(stack) == 0 {
			return ""
		}
		top := stack[len(stack)-1]
		if top.isObj {
			return top.ptr + "/" + escapePointer(top.key)
		}
		return fmt.Sprintf("%s/%d", top.ptr, len(top.arr))
	}

	for {
		before := int(dec.InputOffset())
		tok, err := dec.Token()
		if err == io.EOF {
			if done {
				return doc, nil
			}
			if len(bytes.TrimSpace(data)) == 0 {
				return nil, &syntaxError{offset: len(data), msg: `the file is empty; write {"schema_version": "1"} or delete the file`}
			}
			return nil, &syntaxError{offset: len(data), msg: "invalid JSON: unexpected end of file"}
		}
		if err != nil {
			return nil, jsonSyntaxError(data, before, err)
		}
		start := skipSeparators(data, before)
		if done {
			return nil, &syntaxError{offset: start, msg: "invalid JSON: data after the top-level object"}
		}
		if len(stack) > 0 {
			top := stack[len(stack)-1]
			if top.isObj && !top.hasKey {
				if d, ok := tok.(json.Delim); ok && d == '}' {
					stack = stack[:len(stack)-1]
					place(top.obj)
					continue
				}
				key, _ := tok.(string) // the decoder allows only a string or '}' here
				ptr := top.ptr + "/" + escapePointer(key)
				if _, dup := top.obj[key]; dup {
					return nil, &syntaxError{offset: start, field: ptr, msg: fmt.Sprintf("member %s appears more than once", quote(key))}
				}
				top.key, top.hasKey = key, true
				doc.offsets[ptr] = start
				continue
			}
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				ptr := childPtr()
				if _, ok := doc.offsets[ptr]; !ok {
					doc.offsets[ptr] = start
				}
				if len(stack) >= maxDepth {
					return nil, &syntaxError{offset: start, field: ptr, msg: fmt.Sprintf("nesting deeper than %d levels", maxDepth)}
				}
				f := &frame{ptr: ptr, isObj: t == '{'}
				if f.isObj {
					f.obj = map[string]any{}
				} else {
					f.arr = []any{}
				}
				stack = append(stack, f)
			default: // ']': '}' was handled with the keys
				top := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				place(top.arr)
			}
		default:
			ptr := childPtr()
			if _, ok := doc.offsets[ptr]; !ok {
				doc.offsets[ptr] = start
			}
			place(t)
		}
	}
}

// jsonSyntaxError converts an error of json.Decoder.Token, before being
// the input offset when the token was requested.
func jsonSyntaxError(data []byte, before int, err error) *syntaxError {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		// Offset is where the offending byte is (one byte later inside a
		// literal such as "tru}", close enough to find it).
		off := int(se.Offset)
		return &syntaxError{offset: min(off, len(data)), msg: "invalid JSON: " + se.Error()}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &syntaxError{offset: len(data), msg: "invalid JSON: unexpected end of file"}
	default:
		return &syntaxError{offset: skipSeparators(data, before), msg: "invalid JSON: " + err.Error()}
	}
}

// skipSeparators returns the offset of the first byte at or after off that
// is neither JSON whitespace nor a ':' or ',' separator: where the next
// token starts.
func skipSeparators(data []byte, off int) int {
	for off < len(data) {
		switch data[off] {
		case ' ', '\t', '\n', '\r', ':', ',':
			off++
		default:
			return off
		}
	}
	return off
}

// firstInvalidUTF8 returns the offset of the first byte that is not part of
// valid UTF-8.
func firstInvalidUTF8(data []byte) int {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(data)
}

// position returns the 1-based line and column (in characters) of offset.
func position(data []byte, offset int) (line, col int) {
	offset = min(max(offset, 0), len(data))
	head := data[:offset]
	line = bytes.Count(head, []byte("\n")) + 1
	lineStart := bytes.LastIndexByte(head, '\n') + 1
	col = utf8.RuneCount(head[lineStart:]) + 1
	return line, col
}

// escapePointer escapes one reference token of a JSON pointer (RFC 6901).
func escapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// plainInteger is how every number of the file must be written: the schema
// accepts 10.0 and 1e1 as integers, but encoding/json does not, and a
// reviewer should not have to wonder what 1e1 means.
var plainInteger = regexp.MustCompile(`^-?(?:0|[1-9][0-9]*)$`)

// firstNonInteger returns the pointer of the first number (in document
// order) not written as a plain integer, and its literal; ok is false when
// there is none.
func (d *document) firstNonInteger() (ptr, literal string, ok bool) {
	best := -1
	var walk func(p string, v any)
	walk = func(p string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, c := range v {
				walk(p+"/"+escapePointer(k), c)
			}
		case []any:
			for i, c := range v {
				walk(fmt.Sprintf("%s/%d", p, i), c)
			}
		case json.Number:
			if plainInteger.MatchString(string(v)) {
				return
			}
			off := d.offsets[p]
			if best < 0 || off < best {
				best, ptr, literal, ok = off, p, string(v), true
			}
		}
	}
	walk("", d.value)
	return ptr, literal, ok
}

// lookup returns the value at ptr (as produced by this package, so every
// token is escaped) and whether it exists.
func (d *document) lookup(ptr string) (any, bool) {
	v := d.value
	if ptr == "" {
		return v, true
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = c[tok]; !ok {
				return nil, false
			}
		case []any:
			i := 0
			if _, err := fmt.Sscanf(tok, "%d", &i); err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			v = c[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// offset returns where the value at ptr starts, or where its nearest
// existing ancestor starts (a missing member is reported at its object).
func (d *document) offset(ptr string) int {
	for {
		if off, ok := d.offsets[ptr]; ok {
			return off
		}
		i := strings.LastIndexByte(ptr, '/')
		if i < 0 {
			return 0
		}
		ptr = ptr[:i]
	}
}

// render describes a value for a message: scalars as written (strings
// quoted and bounded), containers by kind only, so that a message never
// echoes a large part of the file.
func render(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		if v {
			return "true"
		}
		return "false"
	case json.Number:
		s := string(v)
		if len(s) > maxQuoted {
			return s[:maxQuoted-3] + "…"
		}
		return s
	case string:
		return quote(v)
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	default:
		return fmt.Sprintf("%T", v)
	}
}

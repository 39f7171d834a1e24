package strictjson

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

type inner struct {
	N int `json:"n"`
}

// Embedded is embedded in doc: encoding/json names its fields through
// the Go type, which errors must not show.
type Embedded struct {
	ThreadID string `json:"thread_id,omitempty"`
}

type doc struct {
	Embedded
	Name  string          `json:"name"`
	In    inner           `json:"in"`
	List  []inner         `json:"list,omitempty"`
	Extra map[string]bool `json:"extra,omitempty"`
}

// TestDecode: one value, exact types, no unknown member unless lenient,
// exact keys when asked, and every error names what is wrong.
func TestDecode(t *testing.T) {
	tests := []struct {
		name string
		in   string
		opts Options
		want string // "" for success
	}{
		{"ok", `{"name": "a", "in": {"n": 1}}`, Options{}, ""},
		{"absent", ``, Options{}, "the value is missing"},
		{"null", `null`, Options{}, "the value is missing"},
		{"unknown field", `{"nme": "a"}`, Options{}, `unknown field "nme"`},
		{"unknown field lenient", `{"nme": "a"}`, Options{Lenient: true}, ""},
		{"type", `{"in": {"n": "1"}}`, Options{}, `field "in.n": expected an integer, got JSON string`},
		{"embedded field named as JSON", `{"thread_id": 5}`, Options{}, `field "thread_id": expected a string, got JSON number`},
		{"top-level type", `[1]`, Options{}, `expected an object, got JSON array`},
		{"trailing", `{} {}`, Options{}, "trailing data after the JSON value"},
		{"syntax", `{"name": }`, Options{}, "malformed JSON at byte 10: invalid character '}' looking for beginning of value"},
		{"case-folded key passes encoding/json", `{"NAME": "a"}`, Options{}, ""},
		{"case-folded key", `{"NAME": "a"}`, Options{ExactKeys: true}, `unknown field "NAME" (field names are lowercase snake_case)`},
		{"duplicate key", `{"name": "a", "name": "b"}`, Options{ExactKeys: true}, `duplicate field "name"`},
		{"nested duplicate", `{"list": [{"n": 1, "n": 2}]}`, Options{ExactKeys: true}, `duplicate field "list.n"`},
		{"opaque member names unchecked", `{"extra": {"X": true}}`, Options{ExactKeys: true, Opaque: []string{"extra"}}, ""},
		{"opaque member duplicates checked", `{"extra": {"x": true, "x": false}}`, Options{ExactKeys: true, Opaque: []string{"extra"}}, `duplicate field "extra.x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d doc
			err := Decode([]byte(tt.in), &d, tt.opts)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Decode(%s) error (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

package contextbuilder_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/workspace"
)

func ptr[T any](v T) *T { return &v }

func rng(sl, sc, el, ec int) contextbuilder.Range {
	return contextbuilder.Range{
		Start: contextbuilder.Position{Line: sl, Character: sc},
		End:   contextbuilder.Position{Line: el, Character: ec},
	}
}

// requestOpts compare requests by meaning: an empty slice equals an absent
// one (omitempty drops it), and thread is compared as JSON, not as bytes
// (encoding/json compacts and escapes a RawMessage when marshaling).
var requestOpts = cmp.Options{
	cmp.FilterPath(func(p cmp.Path) bool {
		return p.Last().Type() != reflect.TypeFor[json.RawMessage]()
	}, cmpopts.EquateEmpty()),
	cmp.Comparer(func(a, b json.RawMessage) bool {
		if len(a) == 0 || len(b) == 0 {
			return len(a) == len(b)
		}
		va, erra := decodeAny(a)
		vb, errb := decodeAny(b)
		if erra != nil || errb != nil {
			return bytes.Equal(a, b)
		}
		return cmp.Equal(va, vb)
	}),
}

func decodeAny(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

const fullRequest = `{
  "purpose": "diff",
  "correlation_id": "0b5e2c1a-3d4f-8a6b-9c7d-e8f901234567",
  "active_file": "file:///w/src/main.go",
  "selection": {"uri": "file:///w/src/main.go",
    "range": {"start": {"line": 1, "character": 0}, "end": {"line": 4, "character": 2}}},
  "intent": {"id": "INTENT-1", "text": "rename main"},
  "plan_step": {"id": "S1", "text": "rename", "target_files": ["src/main.go:1-4"], "target_symbols": ["main.main"]},
  "user_selected_targets": [{"path": "src/main.go", "symbol": "main.main"}, {"path": "src/b.go"}],
  "last_error": {"message": "syntax error", "path": "src/main.go",
    "range": {"start": {"line": 2, "character": 0}, "end": {"line": 2, "character": 5}}},
  "constraints": [{"scope": "user", "id": "C1", "text": "MUST_NOT add dependencies"},
    {"scope": "system", "id": "C0", "text": "no network"}],
  "model": {"provider": "openai", "model": "gpt-4.1", "max_input_tokens": 1000000,
    "max_output_tokens": 32000, "response_token_reserve": 0, "soft_limit_threshold_pct": 100},
  "skill": "refactor",
  "thread": {"thread_id": "T1", "turn_id": "2", "parent_turn_id": "1", "declared_refs": ["INTENT-1"]}
}`

func TestDecodeRequest(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  *contextbuilder.Request
	}{
		{
			name:  "minimal intent",
			input: `{"purpose": "intent"}`,
			want:  &contextbuilder.Request{Purpose: contextbuilder.PurposeIntent},
		},
		{
			name:  "minimal plan with whitespace",
			input: "\n\t {\"purpose\":\"plan\"} \r\n",
			want:  &contextbuilder.Request{Purpose: contextbuilder.PurposePlan},
		},
		{
			name:  "diff with a plan step",
			input: `{"purpose": "diff", "plan_step": {"id": "S1", "text": "edit", "target_files": ["a.go"]}}`,
			want: &contextbuilder.Request{Purpose: contextbuilder.PurposeDiff,
				PlanStep: &contextbuilder.PlanStep{ID: "S1", Text: "edit", TargetFiles: []string{"a.go"}}},
		},
		{
			name:  "diff with a plan step that has only an id",
			input: `{"purpose": "diff", "plan_step": {"id": "S2"}}`,
			want:  &contextbuilder.Request{Purpose: contextbuilder.PurposeDiff, PlanStep: &contextbuilder.PlanStep{ID: "S2"}},
		},
		{
			name:  "diff with the active file",
			input: `{"purpose": "diff", "active_file": "file:///w/a.go"}`,
			want:  &contextbuilder.Request{Purpose: contextbuilder.PurposeDiff, ActiveFile: "file:///w/a.go"},
		},
		{
			name:  "diff with an empty selection",
			input: `{"purpose": "diff", "selection": {"uri": "file:///w/a.go", "range": {"start": {"line": 3, "character": 4}, "end": {"line": 3, "character": 4}}}}`,
			want: &contextbuilder.Request{Purpose: contextbuilder.PurposeDiff,
				Selection: &contextbuilder.SelectionRange{URI: "file:///w/a.go", Range: rng(3, 4, 3, 4)}},
		},
		{
			name:  "diff with user-selected targets",
			input: `{"purpose": "diff", "user_selected_targets": [{"path": "a.go", "symbol": "a.F"}]}`,
			want: &contextbuilder.Request{Purpose: contextbuilder.PurposeDiff,
				UserSelectedTargets: []contextbuilder.UserTarget{{Path: "a.go", Symbol: "a.F"}}},
		},
		{
			name:  "nulls mean absent",
			input: `{"purpose": "plan", "intent": null, "plan_step": null, "last_error": null, "model": null, "constraints": null}`,
			want:  &contextbuilder.Request{Purpose: contextbuilder.PurposePlan},
		},
		{
			name:  "null thread",
			input: `{"purpose": "plan", "thread": null}`,
			want:  &contextbuilder.Request{Purpose: contextbuilder.PurposePlan, Thread: json.RawMessage(`null`)},
		},
		{
			name:  "thread is opaque",
			input: `{"purpose": "plan", "thread": {"Thread_ID": "T1", "anything": [1, {"x": null}]}}`,
			want: &contextbuilder.Request{Purpose: contextbuilder.PurposePlan,
				Thread: json.RawMessage(`{"Thread_ID": "T1", "anything": [1, {"x": null}]}`)},
		},
		{
			name:  "model fields",
			input: `{"purpose": "plan", "model": {"max_input_tokens": 8000, "response_token_reserve": 0}}`,
			want: &contextbuilder.Request{Purpose: contextbuilder.PurposePlan,
				Model: &contextbuilder.ModelRequest{MaxInputTokens: ptr(8000), ResponseTokenReserve: ptr(0)}},
		},
		{
			name:  "escaped key",
			input: `{"p\u0075rpose": "intent"}`,
			want:  &contextbuilder.Request{Purpose: contextbuilder.PurposeIntent},
		},
		{
			name:  "full",
			input: fullRequest,
			want: &contextbuilder.Request{
				Purpose:       contextbuilder.PurposeDiff,
				CorrelationID: "0b5e2c1a-3d4f-8a6b-9c7d-e8f901234567",
				ActiveFile:    "file:///w/src/main.go",
				Selection:     &contextbuilder.SelectionRange{URI: "file:///w/src/main.go", Range: rng(1, 0, 4, 2)},
				Intent:        &contextbuilder.Intent{ID: "INTENT-1", Text: "rename main"},
				PlanStep: &contextbuilder.PlanStep{ID: "S1", Text: "rename",
					TargetFiles: []string{"src/main.go:1-4"}, TargetSymbols: []string{"main.main"}},
				UserSelectedTargets: []contextbuilder.UserTarget{{Path: "src/main.go", Symbol: "main.main"}, {Path: "src/b.go"}},
				LastError:           &contextbuilder.LastError{Message: "syntax error", Path: "src/main.go", Range: ptr(rng(2, 0, 2, 5))},
				Constraints: []contextbuilder.Constraint{
					{Scope: contextbuilder.ScopeUser, ID: "C1", Text: "MUST_NOT add dependencies"},
					{Scope: contextbuilder.ScopeSystem, ID: "C0", Text: "no network"},
				},
				Model: &contextbuilder.ModelRequest{Provider: ptr("openai"), Model: ptr("gpt-4.1"), MaxInputTokens: ptr(1000000),
					MaxOutputTokens: ptr(32000), ResponseTokenReserve: ptr(0), SoftLimitThresholdPct: ptr(100)},
				Skill:  "refactor",
				Thread: json.RawMessage(`{"thread_id": "T1", "turn_id": "2", "parent_turn_id": "1", "declared_refs": ["INTENT-1"]}`),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := workspace.DecodeBuildRequest([]byte(tt.input))
			if err != nil {
				t.Fatalf("DecodeRequest: %v", err)
			}
			// Exact comparison: DecodeRequest keeps what it read.
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("DecodeRequest mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeRequestErrors(t *testing.T) {
	tests := []struct {
		name  string
		input string
		// want are substrings of the message: the field name first.
		want []string
	}{
		// Empty input.
		{"empty", ``, []string{"missing"}},
		{"blank", " \n\t", []string{"missing"}},
		{"null", `null`, []string{"missing"}},
		{"null with spaces", " null \n", []string{"missing"}},

		// Not an object, not JSON, trailing data.
		{"array", `[]`, []string{"request", "array"}},
		{"string", `"diff"`, []string{"request", "string"}},
		{"number", `3`, []string{"request", "number"}},
		{"truncated", `{"purpose": `, []string{"EOF"}},
		{"syntax error", `{"purpose" "plan"}`, []string{"invalid character"}},
		{"trailing object", `{"purpose": "plan"} {}`, []string{"trailing data"}},
		{"trailing garbage", `{"purpose": "plan"}x`, []string{"trailing data"}},
		{"trailing null", `{"purpose": "plan"} null`, []string{"trailing data"}},

		// Unknown fields, top level and nested.
		{"unknown top-level field", `{"purpose": "plan", "target": "a.go"}`, []string{`"target"`}},
		{"unknown field in plan_step", `{"purpose": "diff", "plan_step": {"id": "S", "text": "t", "foo": 1}}`, []string{`"foo"`}},
		{"unknown field in model", `{"purpose": "plan", "model": {"temperature": 0.2}}`, []string{`"temperature"`}},
		{"unknown field in selection range", `{"purpose": "diff", "selection": {"uri": "u", "range": {"start": {"line": 0, "character": 0, "offset": 3}, "end": {"line": 0, "character": 0}}}}`, []string{`"offset"`}},
		{"unknown field in constraint", `{"purpose": "plan", "constraints": [{"scope": "user", "id": "c", "text": "t", "weight": 2}]}`, []string{`"weight"`}},
		{"unknown field in user target", `{"purpose": "diff", "user_selected_targets": [{"path": "a.go", "line": 3}]}`, []string{`"line"`}},
		{"unknown field in last_error", `{"purpose": "plan", "last_error": {"message": "m", "code": 1}}`, []string{`"code"`}},
		{"unknown field in intent", `{"purpose": "plan", "intent": {"id": "i", "text": "t", "lang": "en"}}`, []string{`"lang"`}},
		// encoding/json matches names case-insensitively (and with Unicode
		// folding); the wire contract is exact snake_case.
		{"upper-case field", `{"PURPOSE": "plan"}`, []string{`"PURPOSE"`, "unknown field"}},
		{"mixed-case nested field", `{"purpose": "diff", "plan_step": {"ID": "S", "text": "t"}}`, []string{`"plan_step.ID"`}},
		{"unicode-folded field", `{"purpoſe": "plan"}`, []string{`"purpoſe"`}},
		{"kelvin-folded field", "{\"purpose\": \"plan\", \"s\u212aill\": \"x\"}", []string{"s\u212aill"}},
		{"duplicate field", `{"purpose": "diff", "purpose": "plan"}`, []string{`duplicate field "purpose"`}},
		{"duplicate nested field", `{"purpose": "plan", "intent": {"id": "a", "id": "b", "text": "t"}}`, []string{`duplicate field "intent.id"`}},
		{"duplicate field in thread", `{"purpose": "plan", "thread": {"turn_id": "1", "turn_id": "2"}}`, []string{`duplicate field "thread.turn_id"`}},

		// Wrong types.
		{"purpose number", `{"purpose": 3}`, []string{`"purpose"`, "number"}},
		{"target_files string", `{"purpose": "diff", "plan_step": {"target_files": "a.go"}}`, []string{`"plan_step.target_files"`, "string"}},
		{"max_input_tokens string", `{"purpose": "plan", "model": {"max_input_tokens": "1000"}}`, []string{`"model.max_input_tokens"`}},
		{"max_input_tokens fraction", `{"purpose": "plan", "model": {"max_input_tokens": 1.5}}`, []string{`"model.max_input_tokens"`}},
		{"max_input_tokens overflow", `{"purpose": "plan", "model": {"max_input_tokens": 1e100}}`, []string{`"model.max_input_tokens"`}},
		{"negative line", `{"purpose": "diff", "selection": {"uri": "u", "range": {"start": {"line": -1, "character": 0}, "end": {"line": 0, "character": 0}}}}`, []string{`"selection.range.start.line"`}},
		{"line overflows uint32", `{"purpose": "diff", "selection": {"uri": "u", "range": {"start": {"line": 4294967296, "character": 0}, "end": {"line": 0, "character": 0}}}}`, []string{`"selection.range.start.line"`}},
		{"last_error negative character", `{"purpose": "plan", "last_error": {"message": "m", "range": {"start": {"line": 0, "character": -2}, "end": {"line": 0, "character": 0}}}}`, []string{`"last_error.range.start.character"`}},
		{"last_error end overflows uint32", `{"purpose": "plan", "last_error": {"message": "m", "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 4294967296}}}}`, []string{`"last_error.range.end.character"`}},
		{"constraints object", `{"purpose": "plan", "constraints": {}}`, []string{`"constraints"`}},
		{"plan_step array", `{"purpose": "diff", "plan_step": []}`, []string{`"plan_step"`}},
		{"skill bool", `{"purpose": "plan", "skill": true}`, []string{`"skill"`}},

		// Validate.
		{"missing purpose", `{}`, []string{`"purpose"`, "required"}},
		{"empty purpose", `{"purpose": ""}`, []string{`"purpose"`, "required"}},
		{"bad purpose", `{"purpose": "chat"}`, []string{`"purpose"`, `"chat"`}},
		{"purpose wrong case", `{"purpose": "Diff"}`, []string{`"purpose"`, `"Diff"`}},
		{"correlation_id not a UUID", `{"purpose": "plan", "correlation_id": "req-1"}`, []string{`"correlation_id"`, `"req-1"`}},
		{"correlation_id upper case", `{"purpose": "plan", "correlation_id": "0B5E2C1A-3D4F-8A6B-9C7D-E8F901234567"}`, []string{`"correlation_id"`}},
		{"correlation_id without dashes", `{"purpose": "plan", "correlation_id": "0b5e2c1a3d4f8a6b9c7de8f901234567"}`, []string{`"correlation_id"`}},
		{"correlation_id braces", `{"purpose": "plan", "correlation_id": "{0b5e2c1a-3d4f-8a6b-9c7d-e8f901234567}"}`, []string{`"correlation_id"`}},
		{"selection without uri", `{"purpose": "diff", "selection": {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}}}`, []string{`"selection.uri"`, "required"}},
		{"selection uri not the active file", `{"purpose": "diff", "active_file": "file:///a.go", "selection": {"uri": "file:///b.go", "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}}}`, []string{`"selection.uri"`, `"active_file"`}},
		{"selection end line before start", `{"purpose": "diff", "selection": {"uri": "u", "range": {"start": {"line": 5, "character": 0}, "end": {"line": 4, "character": 9}}}}`, []string{`"selection.range"`, "before"}},
		{"selection end character before start", `{"purpose": "diff", "selection": {"uri": "u", "range": {"start": {"line": 5, "character": 3}, "end": {"line": 5, "character": 2}}}}`, []string{`"selection.range"`, "before"}},
		{"diff without target", `{"purpose": "diff"}`, []string{`"diff"`, `"plan_step"`, `"active_file"`, `"selection"`, `"user_selected_targets"`}},
		{"diff with empty targets", `{"purpose": "diff", "plan_step": null, "active_file": "", "user_selected_targets": []}`, []string{`"plan_step"`}},
		{"user target without path", `{"purpose": "diff", "user_selected_targets": [{"path": "a.go"}, {"symbol": "F"}]}`, []string{`"user_selected_targets[1].path"`, "required"}},
		{"last_error without message", `{"purpose": "plan", "last_error": {"path": "a.go"}}`, []string{`"last_error.message"`, "required"}},
		{"constraint bad scope", `{"purpose": "plan", "constraints": [{"scope": "team", "id": "c", "text": "t"}]}`, []string{`"constraints[0].scope"`, `"team"`}},
		{"constraint missing scope", `{"purpose": "plan", "constraints": [{"scope": "user", "id": "a", "text": "a"}, {"text": "b"}]}`, []string{`"constraints[1].scope"`}},
		{"constraint missing id", `{"purpose": "plan", "constraints": [{"scope": "user", "text": "a"}]}`, []string{`"constraints[0].id"`, "required"}},
		{"plan step missing id", `{"purpose": "diff", "plan_step": {"text": "x"}}`, []string{`"plan_step.id"`, "required"}},
		{"intent missing text", `{"purpose": "intent", "intent": {"id": "i"}}`, []string{`"intent.text"`, "required"}},
		{"constraint blank text", `{"purpose": "plan", "constraints": [{"scope": "user", "id": "c", "text": " \t\n"}]}`, []string{`"constraints[0].text"`, "required"}},
		{"thread array", `{"purpose": "plan", "thread": [1]}`, []string{`"thread"`, "object"}},
		{"thread string", `{"purpose": "plan", "thread": "T1"}`, []string{`"thread"`, "object"}},
		{"thread number", `{"purpose": "plan", "thread": 1}`, []string{`"thread"`, "object"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := workspace.DecodeBuildRequest([]byte(tt.input))
			if err == nil {
				t.Fatalf("DecodeRequest(%s) = %+v, want an error", tt.input, got)
			}
			if got != nil {
				t.Errorf("DecodeRequest returned a request with its error: %+v", got)
			}
			if !errors.Is(err, contextbuilder.ErrInvalidRequest) {
				t.Errorf("error %q does not wrap ErrInvalidRequest", err)
			}
			for _, want := range tt.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not mention %s", err, want)
				}
			}
		})
	}
}

// TestDecodeValidate calls Validate on requests built in Go, as handlers
// that do not decode JSON do.
func TestDecodeValidate(t *testing.T) {
	tests := []struct {
		name string
		req  contextbuilder.Request
		want string // substring of the error; "" means valid
	}{
		{"zero", contextbuilder.Request{}, `"purpose"`},
		{"intent", contextbuilder.Request{Purpose: contextbuilder.PurposeIntent}, ""},
		{"diff with target", contextbuilder.Request{Purpose: contextbuilder.PurposeDiff, ActiveFile: "file:///a.go"}, ""},
		{"selection same uri", contextbuilder.Request{Purpose: contextbuilder.PurposeDiff, ActiveFile: "u",
			Selection: &contextbuilder.SelectionRange{URI: "u", Range: rng(0, 0, 0, 1)}}, ""},
		{"empty thread means absent", contextbuilder.Request{Purpose: contextbuilder.PurposePlan, Thread: json.RawMessage{}}, ""},
		{"thread object", contextbuilder.Request{Purpose: contextbuilder.PurposePlan, Thread: json.RawMessage(` {}`)}, ""},
		{"thread scalar", contextbuilder.Request{Purpose: contextbuilder.PurposePlan, Thread: json.RawMessage(`true`)}, `"thread"`},
		{"empty constraint scope", contextbuilder.Request{Purpose: contextbuilder.PurposePlan,
			Constraints: []contextbuilder.Constraint{{Text: "t"}}}, `"constraints[0].scope"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.req.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Validate: %v", err)
			case tt.want != "" && err == nil:
				t.Errorf("Validate succeeded, want an error mentioning %s", tt.want)
			case tt.want != "" && (!errors.Is(err, contextbuilder.ErrInvalidRequest) || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Validate = %v, want an ErrInvalidRequest mentioning %s", err, tt.want)
			}
		})
	}
}

// FuzzDecodeRequest: DecodeRequest never panics, and a request it accepts
// survives a marshal/decode round trip unchanged.
func FuzzDecodeRequest(f *testing.F) {
	for _, seed := range []string{
		``,
		`null`,
		`{}`,
		`[]`,
		`{"purpose": "intent"}`,
		`{"purpose": "diff", "active_file": "file:///a.go"}`,
		`{"purpose": "diff", "plan_step": {"id": "S", "text": "t", "target_files": ["a.go:1-3"]}}`,
		`{"purpose": "plan", "thread": {"thread_id": "T", "declared_refs": ["INTENT-1"]}}`,
		`{"purpose": "plan", "thread": null}`,
		`{"purpose": "plan", "thread": {"a": "<&>", "b": "\u2028"}}`,
		`{"purpose": "plan", "constraints": [], "user_selected_targets": []}`,
		`{"purpose": "plan", "model": {"max_input_tokens": -1}}`,
		`{"purpose": "diff", "selection": {"uri": "u", "range": {"start": {"line": 1, "character": 2}, "end": {"line": 0, "character": 0}}}}`,
		`{"PURPOSE": "plan"}`,
		`{"purpose": "plan", "purpose": "diff"}`,
		`{"purpose": "plan"} {}`,
		`{"purpose": "plan", "skill": "\xff"}`,
		fullRequest,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := workspace.DecodeBuildRequest(data)
		if err != nil {
			if r != nil {
				t.Fatalf("DecodeRequest returned both a request and %v", err)
			}
			if !errors.Is(err, contextbuilder.ErrInvalidRequest) {
				t.Fatalf("error %v does not wrap ErrInvalidRequest", err)
			}
			return
		}
		out, err := json.Marshal(r)
		if err != nil {
			t.Fatalf("marshaling an accepted request: %v", err)
		}
		r2, err := workspace.DecodeBuildRequest(out)
		if err != nil {
			t.Fatalf("decoding the re-marshaled request %s: %v", out, err)
		}
		if diff := cmp.Diff(r, r2, requestOpts); diff != "" {
			t.Fatalf("round trip changed the request (-first +second):\n%s", diff)
		}
	})
}

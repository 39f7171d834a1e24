package mcp

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/workspace"
	"github.com/ctxd/ctxd/workspace/ledger"
	"github.com/google/jsonschema-go/jsonschema"
)

// The tools' JSON Schemas are inferred from the Go types the LSP commands
// decode and return (workspace.Commands), with the SDK's own inference
// library, so that an MCP tool and its LSP command cannot drift apart.
// Inference says what Go types say: JSON types, closed objects, required
// = fields without omitempty. The few things they cannot say are patched
// here, each by the field's path: enumerations, fields the decoder accepts
// absent although their Go field has no omitempty, descriptions for an
// agent, and the editor fields an agent never sends.

// folderField is the LSP commands' choice among an editor's workspace
// folders; ctxd mcp serves one folder (--root), so its tools leave it out.
const folderField = "workspace_folder"

// threadSchema is the schema of the request's thread member: the Go field
// is a json.RawMessage that the ledger decodes strictly as a
// [ledger.Thread] (opaque to the builder), which inference cannot see.
func threadSchema() (*jsonschema.Schema, error) {
	s, err := jsonschema.For[ledger.Thread](nil)
	if err != nil {
		return nil, err
	}
	s.Types, s.Type = []string{"null", "object"}, ""
	s.Required = []string{"thread_id", "turn_id"} // declared_refs: absent means none
	return s, nil
}

// infer returns the schema of T, with the thread member's schema for
// json.RawMessage (the only raw member of a request).
func infer[T any]() (*jsonschema.Schema, error) {
	th, err := threadSchema()
	if err != nil {
		return nil, err
	}
	return jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[json.RawMessage](): th,
	}})
}

// property returns the schema of the property at a dotted path
// ("plan_step.target_files"), stepping into array items on the way.
func property(s *jsonschema.Schema, path string) (*jsonschema.Schema, error) {
	for name := range strings.SplitSeq(path, ".") {
		if s.Items != nil {
			s = s.Items
		}
		next, ok := s.Properties[name]
		if !ok {
			return nil, fmt.Errorf("schema has no property %q (of %q)", name, path)
		}
		s = next
	}
	return s, nil
}

// patch is one change of an inferred schema, at a dotted property path
// ("" is the root).
type patch struct {
	path string
	// drop removes the property.
	drop bool
	// description, enum and required replace the inferred ones when set;
	// optional empties the required list.
	description string
	enum        []any
	required    []string
	optional    bool
}

// apply applies patches to s, failing on a path the schema does not have,
// so that a renamed Go field breaks the build of the schemas (and a test)
// rather than silently losing a description.
func apply(s *jsonschema.Schema, patches []patch) error {
	for _, p := range patches {
		if p.drop {
			parent, name := s, p.path
			if i := strings.LastIndexByte(p.path, '.'); i >= 0 {
				var err error
				if parent, err = property(s, p.path[:i]); err != nil {
					return err
				}
				name = p.path[i+1:]
			}
			if parent.Items != nil {
				parent = parent.Items
			}
			if _, ok := parent.Properties[name]; !ok {
				return fmt.Errorf("schema has no property %q", p.path)
			}
			delete(parent.Properties, name)
			parent.Required = remove(parent.Required, name)
			parent.PropertyOrder = remove(parent.PropertyOrder, name)
			continue
		}
		target := s
		if p.path != "" {
			var err error
			if target, err = property(s, p.path); err != nil {
				return err
			}
		}
		if p.description != "" {
			target.Description = p.description
		}
		if p.enum != nil {
			target.Enum = p.enum
		}
		obj := target
		if obj.Items != nil {
			obj = obj.Items
		}
		if p.required != nil {
			obj.Required = p.required
		}
		if p.optional {
			obj.Required = nil
		}
	}
	return nil
}

func remove(list []string, name string) []string {
	out := list[:0:0]
	for _, v := range list {
		if v != name {
			out = append(out, v)
		}
	}
	return out
}

// requestPatches turn the inferred schema of contextbuilder.Request into
// the MCP tools' build request: the same fields as ctxd.buildContext's
// argument (docs/schemas/build_request.schema.json) minus the editor's.
var requestPatches = []patch{
	{path: "active_file", drop: true},
	{path: "selection", drop: true},
	{path: "last_error.range", drop: true},
	{path: "purpose", enum: []any{"intent", "plan", "diff"}, description: "intent, plan, or diff (writing the change; needs a target)."},
	{path: "correlation_id", description: "A UUID; absent: derived from the request."},
	{path: "intent", description: "The user's request."},
	{path: "plan_step", required: []string{"id"}, description: "The step the bundle is for; name what to change here."},
	{path: "plan_step.target_files", description: "Workspace-relative paths to change; \"path:L1-L2\" names a region (1-based lines)."},
	{path: "plan_step.new_files", description: "Paths the step creates, so that check_change accepts them."},
	{path: "plan_step.target_symbols", description: "Symbols to change (\"Store.List\")."},
	{path: "user_selected_targets", description: "The answer to REFUSE_AMBIGUOUS_TARGET: candidates as {path, symbol}."},
	{path: "last_error", description: "A retry's error, e.g. check_change's failure.error_context."},
	{path: "constraints", description: "Rules the change must follow."},
	{path: "constraints.scope", enum: []any{"system", "project", "session", "user"}},
	{path: "model", description: "Overrides of the configured model and budget."},
	{path: "skill", description: "A skill of the workspace policy to build under."},
	{path: "thread", description: "Records the turn; declared_refs bring earlier turns back."},
}

// buildRequestSchema is the input schema of build_context: the build
// request, with a description for each field.
func buildRequestSchema() (*jsonschema.Schema, error) {
	s, err := infer[contextbuilder.Request]()
	if err != nil {
		return nil, err
	}
	return s, apply(s, requestPatches)
}

// sharedRequestSchema is the input schema of the other tools taking
// build_context's request (manifest, budget, render_prompt): the request
// is described once, in build_context's schema, and these name only its
// required member and point there, so that tools/list does not repeat
// the request in every tool. The server decodes their arguments with the
// same strict decoder as build_context's, so an unknown or mistyped field
// is still an invalid-argument error naming it.
func sharedRequestSchema() (*jsonschema.Schema, error) {
	full, err := buildRequestSchema()
	if err != nil {
		return nil, err
	}
	purpose := *full.Properties["purpose"]
	purpose.Description = ""
	return &jsonschema.Schema{
		Type:        "object",
		Description: "build_context's request: purpose, plan_step, user_selected_targets, model, … (see its schema).",
		Properties:  map[string]*jsonschema.Schema{"purpose": &purpose},
		Required:    []string{"purpose"},
	}, nil
}

// compactSchema removes what tools/list need not carry: a nullable
// member's "null" type (an optional field is absent, never null, for an
// agent), the property order, and the closing of nested objects (the
// server's strict decoder rejects an unknown field with its name; the
// top level stays closed, so a client sees which arguments exist).
func compactSchema(s *jsonschema.Schema) {
	compactBelow(s)
}

func compactBelow(s *jsonschema.Schema) {
	for _, p := range s.Properties {
		compactNested(p)
	}
	if s.Items != nil {
		compactNested(s.Items)
	}
}

func compactNested(s *jsonschema.Schema) {
	s.AdditionalProperties = nil
	compactOne(s)
	compactBelow(s)
}

func compactOne(s *jsonschema.Schema) {
	if len(s.Types) == 2 && slices.Contains(s.Types, "null") {
		s.Type = s.Types[0]
		if s.Type == "null" {
			s.Type = s.Types[1]
		}
		s.Types = nil
	}
	s.PropertyOrder = nil
}

// addResultArgs adds the result arguments a tool takes to its schema.
func addResultArgs(s *jsonschema.Schema, t tool) {
	if s.Properties == nil {
		s.Properties = map[string]*jsonschema.Schema{}
	}
	// The server checks the bounds and says them in its error; the
	// schema stays short because tools/list repeats it in every tool.
	s.Properties[argMaxResultTokens] = &jsonschema.Schema{Type: "integer", Description: "Result cap (default 8000 tokens)."}
	if t.detail {
		s.Properties[argDetail] = &jsonschema.Schema{Type: "string", Enum: []any{detailSummary, detailFull}}
	}
	if t.paged {
		s.Properties[argPage] = &jsonschema.Schema{Type: "integer"}
	}
	compactOne(s)
	compactSchema(s)
}

// promptRequestSchema is render_prompt's: build_context's request (as
// [sharedRequestSchema] names it) plus template_id.
func promptRequestSchema() (*jsonschema.Schema, error) {
	s, err := sharedRequestSchema()
	if err != nil {
		return nil, err
	}
	s.Properties["template_id"] = &jsonschema.Schema{Type: "string", Description: "The prompt template (the MCP prompts list them); absent: default-<purpose>."}
	return s, nil
}

// recordSchema is record_execution's, ctxd.recordExecution's argument
// without the folder choice.
func recordSchema() (*jsonschema.Schema, error) {
	s, err := infer[workspace.RecordExecutionArgs]()
	if err != nil {
		return nil, err
	}
	return s, apply(s, []patch{
		{path: folderField, drop: true},
		{path: "thread_id", description: "build_context's thread.thread_id."},
		{path: "turn_id", description: "The turn the output answers, built with this thread."},
		{path: "output", description: "The model's output, verbatim (at most 4 MiB)."},
	})
}

// checkChangeSchema is check_change's, ctxd.checkChange's argument
// without the folder choice.
func checkChangeSchema() (*jsonschema.Schema, error) {
	s, err := infer[workspace.CheckChangeArgs]()
	if err != nil {
		return nil, err
	}
	return s, apply(s, []patch{
		{path: folderField, drop: true},
		{path: "answer", description: "The model's answer, verbatim (at most 4 MiB)."},
		{path: "bundle_id", description: "The bundle the answer was made from; absent: check against the files as they are."},
		{path: "thread_id", description: "With turn_id: the thread turn whose EXECUTION records the verdict."},
		{path: "turn_id", description: "The turn the answer answers."},
	})
}

// verifySchema is verify's, ctxd.verify's argument without the folder
// choice.
func verifySchema() (*jsonschema.Schema, error) {
	s, err := infer[workspace.VerifyArgs]()
	if err != nil {
		return nil, err
	}
	return s, apply(s, []patch{
		{path: folderField, drop: true},
		{path: "mode", enum: []any{"stream", "ledger"},
			description: "stream (default): the ledger file; ledger: its SQLite projection."},
	})
}

// indexStatusSchema is index_status's, ctxd.indexStatus's argument.
func indexStatusSchema() (*jsonschema.Schema, error) {
	s, err := infer[workspace.IndexStatusArgs]()
	if err != nil {
		return nil, err
	}
	return s, apply(s, []patch{
		{path: "", optional: true},
		{path: "skipped", description: "List each skipped path with its reason."},
	})
}

// agentSchema is the schema of an agent tool's argument type A, without
// the folder choice (one folder is served), with patches.
func agentSchema[A any](patches ...patch) func() (*jsonschema.Schema, error) {
	return func() (*jsonschema.Schema, error) {
		s, err := infer[A]()
		if err != nil {
			return nil, err
		}
		return s, apply(s, append([]patch{{path: folderField, drop: true}}, patches...))
	}
}

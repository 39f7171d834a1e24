package mcp

import (
	"encoding/json"
	"fmt"
	"reflect"
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

// editorFields are the build request's fields that address the editor (a
// document URI, LSP positions). An agent names its targets by path
// (plan_step.target_files, plan_step.target_symbols,
// user_selected_targets), so the MCP schemas leave these out and the tools
// reject them (see pathsOnly).
var editorFields = []string{"active_file", "selection", "last_error.range"}

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
	{path: "purpose", enum: []any{"intent", "plan", "diff"},
		description: "What the bundle is for: intent (clarify a request; project metadata only), plan (plan a change) or diff (write the change; needs a target)."},
	{path: "correlation_id", description: "A UUID echoed in the bundle and manifest; absent means ctxd derives one from the request, so the same request gets the same id."},
	{path: "intent", description: "The user's request in words: {id, text}."},
	{path: "plan_step", required: []string{"id"},
		description: "The step the bundle is for: {id, text, target_files, target_symbols}. Name what to change here."},
	{path: "plan_step.target_files", description: "Files to change, as workspace-relative paths with / separators (\"internal/store/store.go\"); \"path:L1-L2\" names lines L1 to L2 (1-based, inclusive) as the region to change. A path outside the workspace is refused."},
	{path: "plan_step.new_files", description: "Files the step creates, as workspace-relative paths: listed in the bundle's target_files without content, so that check_change accepts a change creating them."},
	{path: "plan_step.target_symbols", description: "Symbols to change, by name or qualified name (\"Store.List\"). A name with several definitions is refused as REFUSE_AMBIGUOUS_TARGET, listing candidates."},
	{path: "user_selected_targets", description: "The answer to a REFUSE_AMBIGUOUS_TARGET refusal: one or more of its candidates as {path, symbol}. Retry the same call with this field added."},
	{path: "last_error", description: "The error of a previous attempt, for a retry: {message, path}. Put the location in the message (\"main.go:12:5: undefined: x\")."},
	{path: "constraints", description: "Rules the change must follow, each {scope, id, text}; they become the bundle's constraints block."},
	{path: "constraints.scope", enum: []any{"system", "project", "session", "user"}},
	{path: "model", description: "Overrides of the workspace config's model and budget, field by field: provider, model, max_input_tokens, max_output_tokens, response_token_reserve, soft_limit_threshold_pct (1-100)."},
	{path: "skill", description: "A skill of the workspace policy (.ctxd/config.json) to build under; it can only narrow what may be sent."},
	{path: "thread", description: "Seed 000 thread reference {thread_id, turn_id, parent_turn_id, declared_refs}: the build records INTENT and DECISION events in the workspace ledger; declared_refs (intent:<turn>, execution:<turn>) bring earlier turns back as context."},
}

// buildRequestSchema is the input schema of build_context, manifest and
// budget.
func buildRequestSchema() (*jsonschema.Schema, error) {
	s, err := infer[contextbuilder.Request]()
	if err != nil {
		return nil, err
	}
	return s, apply(s, requestPatches)
}

// promptRequestSchema is render_prompt's: a build request plus
// template_id, as ctxd.renderPrompt's argument.
func promptRequestSchema() (*jsonschema.Schema, error) {
	s, err := infer[workspace.PromptRequest]()
	if err != nil {
		return nil, err
	}
	return s, apply(s, append(requestPatches[:len(requestPatches):len(requestPatches)],
		patch{path: "template_id", description: "The prompt template to render (see the MCP prompts, or .ctxd/templates); absent means default-<purpose>."}))
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
		{path: "thread_id", description: "The thread of the turn, as given to build_context or render_prompt in thread.thread_id."},
		{path: "turn_id", description: "The turn the output answers; it must have been built with this thread_id and turn_id."},
		{path: "output", description: "The model's output for the turn, verbatim (at most 4 MiB of UTF-8)."},
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
		{path: "answer", description: "The model's answer, verbatim (at most 4 MiB of UTF-8)."},
		{path: "bundle_id", description: "The bundle_id of the build_context result the answer was made from; absent checks against the files as they are."},
		{path: "thread_id", description: "With turn_id: the thread turn (built with build_context's thread) whose EXECUTION records the answer and its verdict."},
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
			description: "stream (default) replays the ledger file; ledger verifies from SQL queries on its SQLite projection."},
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
		{path: "skipped", description: "List every skipped path with its reason (ignored, deny_rule, binary, too_large, …)."},
	})
}

// outputSchema is the schema of a tool's structuredContent: the inferred
// schema of the LSP command's result type.
func outputSchema[T any]() (*jsonschema.Schema, error) {
	return infer[T]()
}

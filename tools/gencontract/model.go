package main

import (
	"encoding/json"
	"fmt"
	"github.com/ctxd/ctxd/workspace/change"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/workspace"
	"github.com/ctxd/ctxd/workspace/ledger"
	"github.com/ctxd/ctxd/workspace/policy"
	"github.com/ctxd/ctxd/workspace/prompt"
)

// root is a top-level type of the contract.
type root struct {
	name string
	t    reflect.Type
}

// extraRoots are the contract types that are no command's argument or
// result, so workspace.Commands cannot name them, but that the clients
// decode or build all the same:
//
//   - Refusal is the data of every refused command (error -32803) and the
//     CLI's refusal output, not a result;
//   - Thread is the `thread` member of a build request, which the Go
//     request carries as opaque JSON (see fieldOverrides) so that the
//     builder need not know the ledger's types.
var extraRoots = []root{
	{"Refusal", reflect.TypeFor[contextbuilder.Refusal]()},
	{"Thread", reflect.TypeFor[ledger.Thread]()},
}

// roots returns the top-level types of the contract: the argument and
// result types of workspace.Commands in declaration order (each once),
// then extraRoots.
func roots() []root {
	var out []root
	seen := map[reflect.Type]bool{}
	add := func(t reflect.Type) {
		if !seen[t] {
			seen[t] = true
			out = append(out, root{typeName(t), t})
		}
	}
	for _, c := range workspace.Commands {
		add(c.Arg)
		add(c.Result)
	}
	for _, r := range extraRoots {
		add(r.t)
	}
	return out
}

// typeName is the wire name of a named type: its rename, else its Go name.
func typeName(t reflect.Type) string {
	if n, ok := renames[t]; ok {
		return n
	}
	return t.Name()
}

// renames gives types whose Go names collide or mislead a wire name. The
// build request and result are contextbuilder.Request and Result in Go,
// which says nothing outside their package; the editor code has always
// called them BuildRequest and BuildResult.
var renames = map[reflect.Type]string{
	reflect.TypeFor[contextbuilder.Request](): "BuildRequest",
	reflect.TypeFor[contextbuilder.Result]():  "BuildResult",
	reflect.TypeFor[workspace.Counts]():       "VerifyCounts",
	reflect.TypeFor[workspace.Check]():        "VerifyCheck",
	reflect.TypeFor[contextbuilder.Counts]():  "BudgetCounts",
	reflect.TypeFor[prompt.Prompt]():          "Prompt",
}

// special maps field types that are not plain structs.
var special = map[reflect.Type]string{
	reflect.TypeFor[json.RawMessage](): "unknown",
	reflect.TypeFor[time.Time]():       "string",
	reflect.TypeFor[time.Duration]():   "number",
}

// fieldOverrides gives the wire type of a field whose Go type is opaque
// on purpose: the builder carries a request's thread as raw JSON, which
// the workspace decodes strictly into a ledger.Thread.
var fieldOverrides = map[string]reflect.Type{
	"BuildRequest.thread": reflect.TypeFor[ledger.Thread](),
}

// lenient lists, as Type.field, the argument fields that have no
// omitempty but that a client may leave out: the server writes them
// (plan_step.text is part of the canonical request it records), while its
// decoder takes an absent one as the zero value and its validation does
// not ask for it. They are optional in the TypeScript and Lua contracts
// and not required by the JSON Schemas, which describe what a client may
// send.
var lenient = map[string]string{
	"PlanStep.text":           "Request.Validate requires only plan_step.id",
	"IndexStatusArgs.skipped": "absent means false: no list of skipped paths",
	"Thread.declared_refs":    "absent and empty are the same: the turn declares no reference",
}

// enums are the named string types whose values are listed as constants.
// Their values become TypeScript unions, Lua lists and schema enums; a
// test checks each list holds every constant its package declares.
func enums() []enum {
	return []enum{
		{"Purposes", "Purpose", reflect.TypeFor[contextbuilder.Purpose](), strs(contextbuilder.PurposeIntent, contextbuilder.PurposePlan, contextbuilder.PurposeDiff)},
		{"Decisions", "Decision", reflect.TypeFor[contextbuilder.Decision](), strs(contextbuilder.DecisionOK, contextbuilder.DecisionWarn, contextbuilder.DecisionRefuse)},
		{"Priorities", "Priority", reflect.TypeFor[contextbuilder.Priority](), strs(contextbuilder.P0, contextbuilder.P1, contextbuilder.P2, contextbuilder.P3)},
		{"BlockTypes", "BlockType", reflect.TypeFor[contextbuilder.BlockType](), strs(contextbuilder.BlockSystem, contextbuilder.BlockConstraints, contextbuilder.BlockProjectMeta,
			contextbuilder.BlockFile, contextbuilder.BlockSymbol, contextbuilder.BlockErrorContext, contextbuilder.BlockDiffHint)},
		{"RefusalCodes", "RefusalCode", reflect.TypeFor[contextbuilder.RefusalCode](), refusalCodes()},
		{"VerifyModes", "VerifyMode", reflect.TypeFor[ledger.Mode](), strs(ledger.ModeStream, ledger.ModeLedger)},
		{"IndexStates", "IndexState", reflect.TypeFor[index.State](), strs(index.StateIndexing, index.StateReady, index.StateFailed)},
		{"DocumentSyntaxes", "DocumentSyntax", reflect.TypeFor[workspace.DocumentSyntax](), strs(workspace.SyntaxStale, workspace.SyntaxTextOnly)},
		{"ChangeStatuses", "ChangeStatus", reflect.TypeFor[workspace.ChangeStatus](), strs(workspace.ChangeAccepted, workspace.ChangeRejected)},
		{"ChangeFormats", "ChangeFormat", reflect.TypeFor[change.Format](), strs(change.FormatUnified, change.FormatSearchReplace, change.FormatWholeFile)},
		{"ChangeActions", "ChangeAction", reflect.TypeFor[change.Action](), strs(change.ActionModify, change.ActionCreate, change.ActionDelete)},
		{"ChangeCodes", "ChangeCode", reflect.TypeFor[change.Code](), strs(change.Codes()...)},
		{"SkipReasons", "SkipReason", reflect.TypeFor[index.SkipReason](), strs(index.SkipDenyRule, index.SkipGitignore, index.SkipBinary, index.SkipEncoding,
			index.SkipTooLarge, index.SkipOutsideSandbox, index.SkipUnreadable, index.SkipDuplicate)},
	}
}

// enum is a named string type with its constants: consts and typ name
// the TypeScript list and union.
type enum struct {
	consts, typ string
	t           reflect.Type
	values      []string
}

// refusalCodes lists every code a refusal may carry, in the order of
// docs/schemas/refusal.schema.json.
func refusalCodes() []string {
	return strs(
		contextbuilder.RefuseContextTooLarge, contextbuilder.RefuseSecretRisk, contextbuilder.RefuseAmbiguousTarget,
		contextbuilder.RefuseUnsupportedTarget, contextbuilder.RefuseOutsideSandbox, contextbuilder.RefuseTargetNotFound,
		policy.ReasonReadFailed, policy.ReasonInvalid, policy.ReasonOverrideInvalid,
		contextbuilder.RefuseNamespaceDenied, contextbuilder.RefuseExceedsMaxItems, contextbuilder.RefuseExceedsMaxBytes,
		workspace.RefuseMaxUserMessages, workspace.RefuseSelectionFailed, workspace.RefuseRecordDiskFull,
		prompt.ReasonBuildFailed, prompt.ReasonWriteFailed,
		ledger.CodeRefNotFound, ledger.CodeCrossThreadRef, ledger.CodeMaxRefsExceeded, ledger.CodeEmptyRefsDenied,
	)
}

func strs[T ~string](vs ...T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// field is one JSON member of an interface.
type field struct {
	name     string
	typ      string // TypeScript type
	optional bool
	goType   reflect.Type
	// wire is the type the JSON has: goType, or its fieldOverrides entry.
	wire   reflect.Type
	goName string
	// owner is the interface that declares the field (a base's name for
	// promoted fields).
	owner string
}

// iface is one struct type of the contract.
type iface struct {
	name string
	t    reflect.Type
	// bases are the embedded structs whose fields encoding/json promotes;
	// TypeScript writes them as `extends`.
	bases []string
	// own are the fields the struct declares itself.
	own []field
	// all are every JSON member in encoding/json's order: own fields and
	// promoted ones where their embedding sits.
	all []field
}

// model is the contract: interfaces in a stable order.
type model struct {
	roots  []root
	order  []string
	ifaces map[string]*iface
	named  map[reflect.Type]string
	enums  map[reflect.Type]enum
}

func build() (*model, error) {
	m := &model{roots: roots(), ifaces: map[string]*iface{}, named: map[reflect.Type]string{}, enums: map[reflect.Type]enum{}}
	for _, e := range enums() {
		m.enums[e.t] = e
	}
	for t, n := range renames {
		m.named[t] = n
	}
	for _, r := range m.roots {
		if r.t.Kind() != reflect.Struct {
			return nil, fmt.Errorf("gencontract: root %v is not a struct", r.t)
		}
		m.named[r.t] = r.name
	}
	for _, r := range m.roots {
		if _, err := m.visit(r.t); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// visit returns the TypeScript type of t, adding interfaces for structs.
func (m *model) visit(t reflect.Type) (string, error) {
	if s, ok := special[t]; ok {
		return s, nil
	}
	if e, ok := m.enums[t]; ok {
		return e.typ, nil
	}
	switch t.Kind() {
	case reflect.Pointer:
		return m.visit(t.Elem())
	case reflect.String:
		return "string", nil
	case reflect.Bool:
		return "boolean", nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "number", nil
	case reflect.Slice, reflect.Array:
		el, err := m.visit(t.Elem())
		return el + "[]", err
	case reflect.Map:
		el, err := m.visit(t.Elem())
		return "Record<string, " + el + ">", err
	case reflect.Interface:
		return "unknown", nil
	case reflect.Struct:
		return m.visitStruct(t)
	}
	return "", fmt.Errorf("gencontract: no TypeScript type for %v", t)
}

func (m *model) visitStruct(t reflect.Type) (string, error) {
	name, ok := m.named[t]
	if !ok {
		name = t.Name()
		if name == "" {
			return "", fmt.Errorf("gencontract: anonymous struct %v needs a name", t)
		}
		for other, n := range m.named {
			if n == name && other != t {
				return "", fmt.Errorf("gencontract: %v and %v are both named %s; add one to renames", t, other, name)
			}
		}
		m.named[t] = name
	}
	if _, done := m.ifaces[name]; done {
		return name, nil
	}
	it := &iface{name: name, t: t}
	m.ifaces[name] = it // before recursing: cycles end here
	m.order = append(m.order, name)
	if err := m.structFields(it); err != nil {
		return "", err
	}
	return name, nil
}

// structFields fills it's bases and fields the way encoding/json sees
// them. A field of the struct that shadows a promoted one is an error
// rather than encoding/json's silent rule, since TypeScript's extends
// could not express it.
func (m *model) structFields(it *iface) error {
	t := it.t
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			et := f.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() != reflect.Struct {
				if !f.IsExported() {
					continue
				}
			} else {
				base, err := m.visit(et)
				if err != nil {
					return fmt.Errorf("%s: %w", it.name, err)
				}
				it.bases = append(it.bases, base)
				it.all = append(it.all, m.ifaces[base].all...)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		wire, ok := fieldOverrides[it.name+"."+name]
		if !ok {
			wire = f.Type
		}
		typ, err := m.visit(wire)
		if err != nil {
			return fmt.Errorf("%s.%s: %w", it.name, name, err)
		}
		optional := strings.Contains(opts, "omitempty")
		if _, ok := lenient[it.name+"."+name]; ok {
			optional = true
		}
		if f.Type.Kind() == reflect.Pointer && !strings.Contains(opts, "omitempty") {
			typ += " | null"
		}
		fd := field{name: name, typ: typ, optional: optional, goType: f.Type, wire: wire, goName: f.Name, owner: it.name}
		it.own = append(it.own, fd)
		it.all = append(it.all, fd)
	}
	seen := map[string]bool{}
	for _, f := range it.all {
		if seen[f.name] {
			return fmt.Errorf("gencontract: %s has two JSON members %q (a field shadows an embedded one)", it.name, f.name)
		}
		seen[f.name] = true
	}
	return nil
}

// fieldNames returns the JSON names of fs.
func fieldNames(fs []field) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.name
	}
	return out
}

// sortedNames returns the JSON names of fs, sorted, keeping those keep
// accepts.
func sortedNames(fs []field, keep func(field) bool) []string {
	var out []string
	for _, f := range fs {
		if keep(f) {
			out = append(out, f.name)
		}
	}
	slices.Sort(out)
	return out
}

package policy

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// SchemaID is the $id of the configuration's JSON Schema, published as
// docs/schemas/config.schema.json.
const SchemaID = "https://ctxd.dev/schemas/config.schema.json"

// schemaJSON is a copy of docs/schemas/config.schema.json (go:embed cannot
// reach outside the package); a test fails when the two differ.
//
//go:embed config.schema.json
var schemaJSON []byte

// compiledSchema is the schema compiled once, with its raw form, used to
// describe what a failing member must be.
type compiledSchema struct {
	sch *jsonschema.Schema
	raw any
	// name is the pattern of $defs/name, which the validator applies
	// through propertyNames; see nameErrors for why it is applied again.
	name *regexp.Regexp
}

var loadSchema = sync.OnceValues(func() (*compiledSchema, error) {
	raw, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return nil, fmt.Errorf("decoding the embedded config schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	if err := c.AddResource(SchemaID, raw); err != nil {
		return nil, fmt.Errorf("adding the embedded config schema: %w", err)
	}
	sch, err := c.Compile(SchemaID)
	if err != nil {
		return nil, fmt.Errorf("compiling the embedded config schema: %w", err)
	}
	cs := &compiledSchema{sch: sch, raw: raw}
	pattern, _ := cs.node(SchemaID + "#/$defs/name").(map[string]any)["pattern"].(string)
	if cs.name, err = regexp.Compile(pattern); err != nil || pattern == "" {
		return nil, fmt.Errorf("compiling the pattern of $defs/name %q: %v", pattern, err)
	}
	return cs, nil
})

// noLoader refuses every URL: the schema is added as a resource and the
// metaschemas are built into the library, so anything else would be a
// mistake in the schema, never a reason to read a file or the network.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("the config schema refers to %s, which is not built in", url)
}

// stringShapes says in words what the string definitions with a pattern
// accept, where the pattern itself would be no help to a user.
var stringShapes = map[string]string{
	"nonblank": "a non-blank string of at most 128 characters without control characters",
	"name":     "a name of 1 to 64 ASCII letters, digits, '.', '_' or '-', starting with a letter or digit",
	"glob":     "a path glob of 1 to 512 characters without control characters",
	"denyRule": "a .gitignore pattern of 1 to 1024 characters without control characters",
}

// why adds the reason behind a constraint a user may find surprising.
var why = map[string]string{
	"/schema_version":                 "this version of ctxd reads version \"1\"",
	"/context/enforce_scope_bound":    "ctxd never supports cross-thread refs (a seed 000 non-goal)",
	"/context/canonical_sort":         "refs are always sorted by event index (seed 000)",
	"/policy/schema":                  "this version of ctxd reads the seed 001 policy format " + PolicySchema,
	"/normalization/rules":            "ctxd always applies all three rules",
	"/model/soft_limit_threshold_pct": "it is a percentage of the hard limit",
}

// fieldError is a candidate error: the first in document order is
// reported.
type fieldError struct {
	offset int
	field  string
	msg    string
	// advice replaces the generic advice when set.
	advice string
}

// first returns the error that comes first in the document, ties broken by
// pointer then message so that the choice never depends on map order.
func first(errs []fieldError) fieldError {
	return slices.MinFunc(errs, func(a, b fieldError) int {
		if a.offset != b.offset {
			return a.offset - b.offset
		}
		if c := strings.Compare(a.field, b.field); c != 0 {
			return c
		}
		return strings.Compare(a.msg, b.msg)
	})
}

// validateSchema checks doc against the schema and returns its violations;
// none means valid. err is set only when the embedded schema is broken.
func validateSchema(doc *document) ([]fieldError, error) {
	cs, err := loadSchema()
	if err != nil {
		return nil, err
	}
	verr := cs.sch.Validate(doc.value)
	if verr == nil {
		return nil, nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(verr, &ve) {
		return nil, fmt.Errorf("validating against the config schema: %w", verr)
	}
	var out []fieldError
	cs.collect(doc, ve, &out)
	out = append(out, cs.nameErrors(doc)...)
	if len(out) == 0 {
		// Not expected: a failure without a leaf. Still fail closed.
		out = append(out, fieldError{field: "", msg: "does not match the config schema"})
	}
	return out, nil
}

// collect appends one fieldError per violated keyword below ve.
func (cs *compiledSchema) collect(doc *document, ve *jsonschema.ValidationError, out *[]fieldError) {
	if _, isNames := ve.ErrorKind.(*kind.PropertyNames); len(ve.Causes) > 0 && !isNames {
		for _, c := range ve.Causes {
			cs.collect(doc, c, out)
		}
		return
	}
	at := pointerOf(ve.InstanceLocation)
	node := cs.node(ve.SchemaURL)
	got := func() string {
		v, _ := doc.lookup(at)
		return render(v)
	}
	must := func() fieldError {
		msg := fmt.Sprintf("must be %s, got %s", cs.describe(node, ve.SchemaURL), got())
		if w, ok := why[at]; ok {
			msg += ": " + w
		}
		return fieldError{offset: doc.offset(at), field: at, msg: msg}
	}
	switch k := ve.ErrorKind.(type) {
	case *kind.AdditionalProperties:
		allowed := cs.memberNames(node)
		for _, p := range k.Properties {
			f := at + "/" + escapePointer(p)
			*out = append(*out, fieldError{
				offset: doc.offset(f), field: f,
				msg:    fmt.Sprintf("unknown member %s; expected one of: %s", quote(p), strings.Join(allowed, ", ")),
				advice: fmt.Sprintf("Remove %s from %s or correct its spelling; docs/schemas/config.schema.json describes every member.", f, ConfigPath),
			})
		}
	case *kind.Required:
		for _, m := range k.Missing {
			f := at + "/" + escapePointer(m)
			msg := fmt.Sprintf("missing required member %s", quote(m))
			if w, ok := why[f]; ok {
				msg += ": " + w
			}
			*out = append(*out, fieldError{offset: doc.offset(at), field: f, msg: msg,
				advice: fmt.Sprintf("Add %s to %s; docs/schemas/config.schema.json describes every member.", f, ConfigPath)})
		}
	case *kind.PropertyNames:
		// Reported by nameErrors: the validator (v6.0.3) hands out this
		// error's instance location without copying it, and later
		// validation may overwrite it.
	case *kind.UniqueItems:
		f := fmt.Sprintf("%s/%d", at, k.Duplicates[1])
		v, _ := doc.lookup(f)
		*out = append(*out, fieldError{offset: doc.offset(f), field: f,
			msg: fmt.Sprintf("%s is listed twice (items %d and %d); list each once", render(v), k.Duplicates[0], k.Duplicates[1])})
	case *kind.MinItems:
		msg := fmt.Sprintf("must list at least %d items, got %d", k.Want, k.Got)
		if k.Want == 1 {
			msg = "must not be empty"
		}
		*out = append(*out, fieldError{offset: doc.offset(at), field: at, msg: msg})
	case *kind.MaxItems:
		*out = append(*out, fieldError{offset: doc.offset(at), field: at,
			msg: fmt.Sprintf("must list at most %d items, got %d", k.Want, k.Got)})
	case *kind.MaxProperties:
		*out = append(*out, fieldError{offset: doc.offset(at), field: at,
			msg: fmt.Sprintf("must have at most %d members, got %d", k.Want, k.Got)})
	case *kind.Type, *kind.Enum, *kind.Const, *kind.Minimum, *kind.Maximum,
		*kind.ExclusiveMinimum, *kind.ExclusiveMaximum, *kind.MinLength,
		*kind.MaxLength, *kind.Pattern:
		*out = append(*out, must())
	default:
		*out = append(*out, fieldError{offset: doc.offset(at), field: at, msg: "is invalid: " + ve.Error()})
	}
}

// nameMaps are the objects whose member names are namespace or skill
// names ("*" standing for any skill), as the schema's propertyNames say.
var nameMaps = []string{"/policy/namespaces", "/policy/skills", "/policy/skills/*/namespaces"}

// nameErrors checks the member names of the name maps against $defs/name,
// one error per invalid name.
func (cs *compiledSchema) nameErrors(doc *document) []fieldError {
	var out []fieldError
	check := func(ptr string) {
		v, _ := doc.lookup(ptr)
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		for _, name := range sortedKeys(m) {
			if cs.name.MatchString(name) {
				continue
			}
			f := ptr + "/" + escapePointer(name)
			out = append(out, fieldError{offset: doc.offset(f), field: f,
				msg: fmt.Sprintf("the name %s is invalid: it must be %s", quote(name), stringShapes["name"])})
		}
	}
	for _, pattern := range nameMaps {
		head, tail, wild := strings.Cut(pattern, "/*/")
		if !wild {
			check(pattern)
			continue
		}
		v, _ := doc.lookup(head)
		skills, _ := v.(map[string]any)
		for _, s := range sortedKeys(skills) {
			check(head + "/" + escapePointer(s) + "/" + tail)
		}
	}
	return out
}

// pointerOf builds a JSON pointer from the validator's unescaped tokens.
func pointerOf(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(escapePointer(t))
	}
	return b.String()
}

// node returns the raw schema object at an absolute schema location
// ("<id>#/json/pointer"), nil when it cannot be found.
func (cs *compiledSchema) node(loc string) any {
	_, frag, ok := strings.Cut(loc, "#")
	if !ok {
		return cs.raw
	}
	if f, err := url.PathUnescape(frag); err == nil {
		frag = f
	}
	v := cs.raw
	if frag == "" {
		return v
	}
	for _, tok := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[tok]
	}
	return v
}

// resolveRef returns the target of a local "#/..." reference.
func (cs *compiledSchema) resolveRef(ref string) any {
	return cs.node(SchemaID + ref)
}

// memberNames lists the properties an object schema defines, sorted.
func (cs *compiledSchema) memberNames(node any) []string {
	m, _ := node.(map[string]any)
	props, _ := m["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// describe says in words what a schema node accepts, e.g. "an integer from
// 1 to 1000" or `one of "DENY", "ALLOW"`. loc is the node's location, used
// to name string definitions.
func (cs *compiledSchema) describe(node any, loc string) string {
	m, ok := node.(map[string]any)
	if !ok {
		return "valid"
	}
	if ref, ok := m["$ref"].(string); ok {
		return cs.describe(cs.resolveRef(ref), ref)
	}
	if c, ok := m["const"]; ok {
		return jsonText(c)
	}
	if e, ok := m["enum"].([]any); ok {
		parts := make([]string, len(e))
		for i, v := range e {
			parts[i] = jsonText(v)
		}
		return "one of " + strings.Join(parts, ", ")
	}
	switch m["type"] {
	case "integer":
		lo, hasLo := bound(m["minimum"])
		hi, hasHi := bound(m["maximum"])
		switch {
		case hasLo && hasHi && hi < 1<<31-1:
			return fmt.Sprintf("an integer from %d to %d", lo, hi)
		case hasLo && lo == 0:
			return "a non-negative integer"
		case hasLo && lo == 1:
			return "a positive integer"
		case hasLo:
			return fmt.Sprintf("an integer of at least %d", lo)
		}
		return "an integer"
	case "boolean":
		return "true or false"
	case "string":
		if i := strings.LastIndex(loc, "/$defs/"); i >= 0 {
			if s, ok := stringShapes[loc[i+len("/$defs/"):]]; ok {
				return s
			}
		}
		return "a string"
	case "array":
		return "an array"
	case "object":
		return "an object"
	}
	return "valid"
}

// bound reads a numeric schema keyword.
func bound(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	r, ok := new(big.Rat).SetString(string(n))
	if !ok || !r.IsInt() || !r.Num().IsInt64() {
		return 0, false
	}
	return r.Num().Int64(), true
}

// jsonText renders a schema constant as JSON.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/workspace"
)

// schemaDir holds the JSON Schemas, relative to the module root.
const schemaDir = "docs/schemas"

// draft is the JSON Schema dialect of every schema file.
const draft = "https://json-schema.org/draft/2020-12/schema"

// generatedSchemas are the command schemas gencontract writes from the Go
// types. They describe types whose constraints are all in the Go types
// (field names, JSON types, which fields may be absent, enums), so
// writing them by hand would only add a copy to keep in step. Every other
// schema a command names is hand-written, because it carries what Go
// cannot say (patterns, bounds, conditionals, prose), and is checked
// against its Go type by TestSchemasMatchGoTypes.
var generatedSchemas = []string{
	"render_prompt_request.schema.json",
	"record_execution_args.schema.json",
	"check_change_args.schema.json",
	"check_change_result.schema.json",
	"verify_args.schema.json",
	"index_status_args.schema.json",
	"index_status_result.schema.json",
}

// extraSchemas pair the hand-written schemas of the extra roots with
// their Go types, for the drift test; commands pair their own.
var extraSchemas = []schemaPair{
	{"refusal.schema.json", reflect.TypeFor[contextbuilder.Refusal]()},
}

// schemaPair is a schema file and the Go type it describes.
type schemaPair struct {
	file string
	t    reflect.Type
}

// commandSchemas returns every schema file a command names with the Go
// type it describes, in declaration order, each file once. Two commands
// naming one file for different types is an error: one schema cannot
// describe both.
func commandSchemas() ([]schemaPair, error) {
	var out []schemaPair
	seen := map[string]reflect.Type{}
	for _, c := range workspace.Commands {
		for _, p := range []schemaPair{{c.ArgSchema, c.Arg}, {c.ResultSchema, c.Result}} {
			if p.file == "" {
				return nil, fmt.Errorf("gencontract: %s names no schema for %v", c.Name, p.t)
			}
			if prev, ok := seen[p.file]; ok {
				if prev != p.t {
					return nil, fmt.Errorf("gencontract: %s describes both %v and %v", p.file, prev, p.t)
				}
				continue
			}
			seen[p.file] = p.t
			out = append(out, p)
		}
	}
	return out, nil
}

// schemas returns the generated schema files, by path relative to the
// module root.
func (m *model) schemas(root string, src *goSource) (map[string][]byte, error) {
	pairs, err := commandSchemas()
	if err != nil {
		return nil, err
	}
	hand := map[reflect.Type]string{}
	gen := map[string]reflect.Type{}
	for _, p := range append(pairs, extraSchemas...) {
		if slices.Contains(generatedSchemas, p.file) {
			gen[p.file] = p.t
		} else {
			hand[p.t] = p.file
		}
	}
	out := map[string][]byte{}
	for _, file := range generatedSchemas {
		t, ok := gen[file]
		if !ok {
			return nil, fmt.Errorf("gencontract: %s is listed as generated but no command names it", file)
		}
		g := &schemaGen{m: m, src: src, root: root, file: file, top: t, hand: hand, defNames: map[reflect.Type]string{}}
		doc, err := g.document()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		var b bytes.Buffer
		if err := writeJSON(&b, doc, ""); err != nil {
			return nil, err
		}
		b.WriteByte('\n')
		out[schemaDir+"/"+file] = b.Bytes()
	}
	return out, nil
}

// object is a JSON object that keeps its members' order, so generated
// files are stable and read like the hand-written ones; writeJSON writes
// it.
type object []member

type member struct {
	key   string
	value any
}

// get returns the value of key.
func (o object) get(key string) (any, bool) {
	for _, mb := range o {
		if mb.key == key {
			return mb.value, true
		}
	}
	return nil, false
}

// schemaGen writes one generated schema.
type schemaGen struct {
	m    *model
	src  *goSource
	root string       // module root
	file string       // the schema's file name
	top  reflect.Type // the type it describes
	// hand maps the types that have a hand-written schema to its file:
	// they are referenced, not described again.
	hand     map[reflect.Type]string
	defs     object
	defNames map[reflect.Type]string
}

// document is the whole schema file.
func (g *schemaGen) document() (object, error) {
	body, err := g.structSchema(g.top)
	if err != nil {
		return nil, err
	}
	doc := object{
		{"$schema", draft},
		{"$id", "https://ctxd.dev/schemas/" + g.file},
		{"$comment", fmt.Sprintf("%s Source: %s.%s.", generatedMarker, g.top.PkgPath(), g.top.Name())},
		{"title", g.m.named[g.top]},
	}
	desc, err := g.topDescription()
	if err != nil {
		return nil, err
	}
	doc = append(doc, member{"description", desc})
	for _, mb := range body {
		if mb.key != "description" {
			doc = append(doc, mb)
		}
	}
	if len(g.defs) > 0 {
		doc = append(doc, member{"$defs", g.defs})
	}
	return doc, nil
}

// generatedMarker opens the $comment of every generated schema; a
// hand-written schema must not carry it.
const generatedMarker = "Code generated by tools/gencontract from the Go types; DO NOT EDIT."

// topDescription says which commands take or return the type, unless
// the type's doc comment, which follows, names them already.
func (g *schemaGen) topDescription() (string, error) {
	doc, err := g.typeDoc(g.top)
	if err != nil {
		return "", err
	}
	var uses []string
	named := true
	for _, c := range workspace.Commands {
		var use string
		switch {
		case c.ArgSchema == g.file && c.ArgOptional:
			use = "arguments[0] of " + c.Name + ", which may be absent or null"
		case c.ArgSchema == g.file:
			use = "arguments[0] of " + c.Name
		case c.ResultSchema == g.file:
			use = "the result of " + c.Name
		default:
			continue
		}
		uses = append(uses, use)
		named = named && strings.Contains(doc, c.Name)
	}
	s := upperFirst(strings.Join(uses, "; ")) + " (docs/protocol.md)."
	switch {
	case doc == "":
		return s, nil
	case named:
		return doc + " See docs/protocol.md.", nil
	}
	return s + " " + doc, nil
}

// typeDoc is the doc comment of a named type.
func (g *schemaGen) typeDoc(t reflect.Type) (string, error) {
	p, err := g.src.pkg(t.PkgPath())
	if err != nil {
		return "", err
	}
	return p.typeDocs[t.Name()], nil
}

// fieldDoc is the doc comment of a struct field, its Go name at the start
// replaced by its JSON name unless the comment names that (snake_case,
// so unmistakable) already.
func (g *schemaGen) fieldDoc(owner reflect.Type, f field) (string, error) {
	p, err := g.src.pkg(owner.PkgPath())
	if err != nil {
		return "", err
	}
	doc := p.fieldDocs[owner.Name()][f.goName]
	if rest, ok := strings.CutPrefix(doc, f.goName+" "); ok && !(strings.Contains(f.name, "_") && strings.Contains(rest, f.name)) {
		doc = f.name + " " + rest
	}
	return doc, nil
}

// structSchema describes a struct as a closed object. Fields promoted
// from an embedded struct with a hand-written schema refer to that
// schema's properties, and its conditionals apply too, so the generated
// schema accepts exactly what the hand-written one does plus the
// embedding struct's own fields.
func (g *schemaGen) structSchema(t reflect.Type) (object, error) {
	it, ok := g.m.ifaces[g.m.named[t]]
	if !ok || it.t != t {
		return nil, fmt.Errorf("gencontract: %v is not in the model", t)
	}
	props := object{}
	required := []string{}
	var conds []any
	baseFiles := map[string]string{} // interface name → hand-written schema
	for _, b := range it.bases {
		bt := g.m.ifaces[b].t
		if file, ok := g.hand[bt]; ok {
			baseFiles[b] = file
			c, err := g.conditionals(file)
			if err != nil {
				return nil, err
			}
			if len(c) > 0 {
				conds = append(conds, c)
			}
		}
	}
	for _, f := range it.all {
		if !f.optional {
			required = append(required, f.name)
		}
		if file, ok := baseFiles[f.owner]; ok {
			props = append(props, member{f.name, object{{"$ref", file + "#/properties/" + f.name}}})
			continue
		}
		s, err := g.typeSchema(f.wire)
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", it.name, f.name, err)
		}
		if f.goType.Kind() == reflect.Pointer && !f.optional {
			s = nullable(s)
		}
		doc, err := g.fieldDoc(g.m.ifaces[f.owner].t, f)
		if err != nil {
			return nil, err
		}
		if doc != "" {
			s = append(object{{"description", doc}}, s...)
		}
		props = append(props, member{f.name, s})
	}
	doc, err := g.typeDoc(t)
	if err != nil {
		return nil, err
	}
	var out object
	if doc != "" {
		out = append(out, member{"description", doc})
	}
	out = append(out, member{"type", "object"}, member{"additionalProperties", false})
	if len(required) > 0 {
		out = append(out, member{"required", required})
	}
	out = append(out, member{"properties", props})
	if len(conds) > 0 {
		out = append(out, member{"allOf", conds})
	}
	return out, nil
}

// conditionals refers to the root-level conditionals (if, then, else,
// not) of a hand-written schema. Other root-level assertions could not be
// referred to one by one, so they are an error rather than dropped.
func (g *schemaGen) conditionals(file string) (object, error) {
	data, err := os.ReadFile(filepath.Join(g.root, filepath.FromSlash(schemaDir), file))
	if err != nil {
		return nil, err
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	var out object
	for _, k := range []string{"if", "then", "else", "not"} {
		if _, ok := doc[k]; ok {
			out = append(out, member{k, object{{"$ref", file + "#/" + k}}})
		}
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf", "dependentRequired", "dependentSchemas", "minProperties", "maxProperties"} {
		if _, ok := doc[k]; ok {
			return nil, fmt.Errorf("gencontract: %s has a root-level %s that a generated schema embedding it cannot refer to", file, k)
		}
	}
	return out, nil
}

// typeSchema describes a Go type.
func (g *schemaGen) typeSchema(t reflect.Type) (object, error) {
	switch t {
	case reflect.TypeFor[json.RawMessage]():
		return object{}, nil
	case reflect.TypeFor[time.Time]():
		return object{{"type", "string"}, {"format", "date-time"}}, nil
	case reflect.TypeFor[time.Duration]():
		return object{{"type", "integer"}}, nil
	}
	if e, ok := g.m.enums[t]; ok {
		return object{{"enum", e.values}}, nil
	}
	switch t.Kind() {
	case reflect.Pointer:
		return g.typeSchema(t.Elem())
	case reflect.String:
		return object{{"type", "string"}}, nil
	case reflect.Bool:
		return object{{"type", "boolean"}}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return object{{"type", "integer"}}, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return object{{"type", "integer"}, {"minimum", 0}}, nil
	case reflect.Float32, reflect.Float64:
		return object{{"type", "number"}}, nil
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return nil, fmt.Errorf("gencontract: no schema for %v (encoding/json writes base64)", t)
		}
		el, err := g.typeSchema(t.Elem())
		if err != nil {
			return nil, err
		}
		return object{{"type", "array"}, {"items", el}}, nil
	case reflect.Map:
		el, err := g.typeSchema(t.Elem())
		if err != nil {
			return nil, err
		}
		s := object{{"type", "object"}}
		if e, ok := g.m.enums[t.Key()]; ok {
			s = append(s, member{"propertyNames", object{{"enum", e.values}}})
		}
		return append(s, member{"additionalProperties", el}), nil
	case reflect.Interface:
		return object{}, nil
	case reflect.Struct:
		return g.structRef(t)
	}
	return nil, fmt.Errorf("gencontract: no schema for %v", t)
}

// structRef refers to a struct's schema: its hand-written file, the
// document itself, or a $defs entry named after its interface.
func (g *schemaGen) structRef(t reflect.Type) (object, error) {
	if t == g.top {
		return object{{"$ref", "#"}}, nil
	}
	if file, ok := g.hand[t]; ok {
		return object{{"$ref", file}}, nil
	}
	name, ok := g.defNames[t]
	if !ok {
		name = g.m.named[t]
		g.defNames[t] = name
		g.defs = append(g.defs, member{name, nil}) // reserve: first use decides the order
		s, err := g.structSchema(t)
		if err != nil {
			return nil, err
		}
		for i := range g.defs {
			if g.defs[i].key == name {
				g.defs[i].value = s
			}
		}
	}
	return object{{"$ref", "#/$defs/" + name}}, nil
}

// nullable lets a schema also accept null (a pointer field without
// omitempty).
func nullable(s object) object {
	if t, ok := s.get("type"); ok {
		if ts, ok := t.(string); ok {
			out := slices.Clone(s)
			for i := range out {
				if out[i].key == "type" {
					out[i].value = []string{ts, "null"}
				}
			}
			return out
		}
	}
	return object{{"oneOf", []any{object{{"type", "null"}}, s}}}
}

// writeJSON writes v indented by two spaces per level like the
// hand-written schemas: one member per line, but arrays of scalars (enums,
// required) on one line.
func writeJSON(b *bytes.Buffer, v any, indent string) error {
	switch v := v.(type) {
	case object:
		if len(v) == 0 {
			b.WriteString("{}")
			return nil
		}
		if line, ok := oneLine(v); ok && len(indent)+len(line) <= 100 {
			b.WriteString(line)
			return nil
		}
		b.WriteString("{\n")
		for i, mb := range v {
			b.WriteString(indent + "  ")
			if err := writeScalar(b, mb.key); err != nil {
				return err
			}
			b.WriteString(": ")
			if err := writeJSON(b, mb.value, indent+"  "); err != nil {
				return err
			}
			if i < len(v)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "}")
		return nil
	case []any:
		if len(v) == 0 {
			b.WriteString("[]")
			return nil
		}
		b.WriteString("[\n")
		for i, e := range v {
			b.WriteString(indent + "  ")
			if err := writeJSON(b, e, indent+"  "); err != nil {
				return err
			}
			if i < len(v)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "]")
		return nil
	case []string:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteString(", ")
			}
			if err := writeScalar(b, e); err != nil {
				return err
			}
		}
		b.WriteByte(']')
		return nil
	}
	return writeScalar(b, v)
}

// oneLine renders an object of scalars as `{ "type": "string" }`, the
// way the hand-written schemas write small leaves.
func oneLine(o object) (string, bool) {
	var b bytes.Buffer
	b.WriteString("{ ")
	for i, mb := range o {
		switch mb.value.(type) {
		case object, []any:
			return "", false
		}
		if i > 0 {
			b.WriteString(", ")
		}
		if err := writeScalar(&b, mb.key); err != nil {
			return "", false
		}
		b.WriteString(": ")
		if err := writeJSON(&b, mb.value, ""); err != nil {
			return "", false
		}
	}
	b.WriteString(" }")
	return b.String(), true
}

// writeScalar writes a string, number, boolean or null, without
// escaping <, > and &.
func writeScalar(b *bytes.Buffer, v any) error {
	var vb bytes.Buffer
	enc := json.NewEncoder(&vb)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	b.Write(bytes.TrimSuffix(vb.Bytes(), []byte("\n")))
	return nil
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

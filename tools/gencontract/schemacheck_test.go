package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// schemaChecker walks a JSON Schema alongside the Go type it describes
// and records every disagreement about the shape of the JSON: object
// properties missing on either side, "required" differing from the
// fields a client must send (model's non-optional fields: no omitempty,
// not lenient), JSON types, and enumerations of the Go enum types. It
// follows $ref within a file and into sibling files of dir. Constraints
// only the schema can state (patterns, bounds, conditionals) are not its
// business.
type schemaChecker struct {
	dir   string
	m     *model
	files map[string]any
	seen  map[string]bool
	errs  []string
}

func newSchemaChecker(dir string, m *model) *schemaChecker {
	return &schemaChecker{dir: dir, m: m, files: map[string]any{}, seen: map[string]bool{}}
}

// loc is a schema node and where it is.
type loc struct {
	file, ptr string
	n         any
}

func (l loc) String() string { return l.file + "#" + l.ptr }

// obj is the node as a JSON object (nil for true, false and non-schemas).
func (l loc) obj() map[string]any {
	o, _ := l.n.(map[string]any)
	return o
}

// child descends into key of the node.
func (l loc) child(keys ...string) loc {
	for _, k := range keys {
		var v any
		switch n := l.n.(type) {
		case map[string]any:
			v = n[k]
		case []any:
			if i, err := strconv.Atoi(k); err == nil && i >= 0 && i < len(n) {
				v = n[i]
			}
		}
		l = loc{l.file, l.ptr + "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(k), v}
	}
	return l
}

// check compares the schema file with t.
func (c *schemaChecker) check(file string, t reflect.Type) {
	doc, err := c.load(file)
	if err != nil {
		c.errorf("%s: %v", file, err)
		return
	}
	name, err := c.m.visit(t)
	if err != nil {
		c.errorf("%s: %v", file, err)
		return
	}
	c.walk(loc{file, "", doc}, t, name)
}

func (c *schemaChecker) errorf(format string, args ...any) {
	c.errs = append(c.errs, fmt.Sprintf(format, args...))
}

func (c *schemaChecker) load(file string) (any, error) {
	if doc, ok := c.files[file]; ok {
		return doc, nil
	}
	data, err := os.ReadFile(filepath.Join(c.dir, file))
	if err != nil {
		return nil, err
	}
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	c.files[file] = doc
	return doc, nil
}

// resolve follows $ref (relative to the node's file) until a node
// without one. Keywords beside a $ref only refine the target (prompt's
// messages constrain "role" there), so the target is the shape.
func (c *schemaChecker) resolve(l loc) (loc, error) {
	for range 32 {
		ref, ok := l.obj()["$ref"].(string)
		if !ok {
			return l, nil
		}
		file, ptr, _ := strings.Cut(ref, "#")
		if file == "" {
			file = l.file
		}
		doc, err := c.load(file)
		if err != nil {
			return l, fmt.Errorf("%s: $ref %q: %w", l, ref, err)
		}
		next := loc{file, "", doc}
		for _, k := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
			if k == "" {
				continue
			}
			k = strings.NewReplacer("~1", "/", "~0", "~").Replace(k)
			next = next.child(k)
			if next.n == nil {
				return l, fmt.Errorf("%s: $ref %q points at nothing", l, ref)
			}
		}
		l = next
	}
	return l, fmt.Errorf("%s: $ref chain too long", l)
}

// alternatives returns the resolved node, or the resolved branches of
// its oneOf or anyOf (recursively), which is where a nullable object or
// a choice of strings keeps its shapes.
func (c *schemaChecker) alternatives(l loc) []loc {
	r, err := c.resolve(l)
	if err != nil {
		c.errorf("%v", err)
		return nil
	}
	var out []loc
	for _, k := range []string{"oneOf", "anyOf"} {
		if alts, ok := r.obj()[k].([]any); ok {
			for i := range alts {
				out = append(out, c.alternatives(r.child(k, strconv.Itoa(i)))...)
			}
		}
	}
	if len(out) == 0 {
		out = append(out, r)
	}
	return out
}

// jsonTypes returns the JSON types a node admits as far as its type,
// const, enum, properties and items say; empty means unconstrained.
func jsonTypes(o map[string]any) []string {
	var out []string
	switch t := o["type"].(type) {
	case string:
		out = append(out, t)
	case []any:
		for _, e := range t {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
	}
	if len(out) > 0 {
		return out
	}
	vals, _ := o["enum"].([]any)
	if cv, ok := o["const"]; ok {
		vals = append(vals, cv)
	}
	for _, v := range vals {
		out = append(out, valueType(v))
	}
	if len(out) > 0 {
		return out
	}
	if _, ok := o["properties"]; ok {
		return []string{"object"}
	}
	if _, ok := o["items"]; ok {
		return []string{"array"}
	}
	if _, ok := o["prefixItems"]; ok {
		return []string{"array"}
	}
	return nil
}

// valueType is the JSON type of a decoded value; a whole float64 is an
// integer as well, which "integer" names.
func valueType(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		if v == float64(int64(v)) {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}

// goJSONType is the JSON type encoding/json writes for t ("" when
// anything goes: raw JSON, interfaces). A pointer may also be null, and
// a nil slice or map is null too, which the schemas leave out on purpose
// (ctxd writes empty ones), so null is never asked for.
func goJSONType(t reflect.Type) []string {
	switch t {
	case reflect.TypeFor[json.RawMessage]():
		return nil
	case reflect.TypeFor[time.Time]():
		return []string{"string"}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return goJSONType(t.Elem())
	case reflect.String:
		return []string{"string"}
	case reflect.Bool:
		return []string{"boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return []string{"integer", "number"}
	case reflect.Float32, reflect.Float64:
		return []string{"number"}
	case reflect.Slice, reflect.Array:
		return []string{"array"}
	case reflect.Map, reflect.Struct:
		return []string{"object"}
	}
	return nil
}

// walk checks one node against t; path names the place in Go terms
// (BuildRequest.plan_step.text).
func (c *schemaChecker) walk(l loc, t reflect.Type, path string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	want := goJSONType(t)
	if want == nil {
		return // opaque on purpose: its schema may say anything
	}
	alts := c.alternatives(l)
	var matching []loc
	for _, a := range alts {
		got := jsonTypes(a.obj())
		if len(got) == 0 || slices.ContainsFunc(got, func(g string) bool { return slices.Contains(want, g) }) {
			matching = append(matching, a)
		}
	}
	if len(matching) == 0 {
		var got []string
		for _, a := range alts {
			got = append(got, jsonTypes(a.obj())...)
		}
		c.errorf("%s (%s): schema admits %v, Go %v is written as %s", l, path, got, t, want[0])
		return
	}
	for _, a := range matching {
		key := fmt.Sprintf("%s|%v", a, t)
		if c.seen[key] {
			continue // a cycle, or a definition checked already
		}
		c.seen[key] = true
		c.walkShape(a, t, path)
	}
}

// walkShape checks a node whose JSON type fits t.
func (c *schemaChecker) walkShape(l loc, t reflect.Type, path string) {
	o := l.obj()
	if e, ok := c.m.enums[t]; ok {
		c.checkEnum(l, o, e, path)
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		c.walkStruct(l, t, path)
	case reflect.Slice, reflect.Array:
		if _, ok := o["items"].(map[string]any); ok {
			c.walk(l.child("items"), t.Elem(), path+"[]")
		}
		if pre, ok := o["prefixItems"].([]any); ok {
			for i := range pre {
				c.walk(l.child("prefixItems", strconv.Itoa(i)), t.Elem(), path+"["+strconv.Itoa(i)+"]")
			}
		}
	case reflect.Map:
		if props, ok := o["properties"].(map[string]any); ok {
			if e, ok := c.m.enums[t.Key()]; ok {
				c.compareNames(l, path, "keys", sortedKeys(props), e.values, "the "+e.typ+" constants")
			}
			for _, k := range sortedKeys(props) {
				c.walk(l.child("properties", k), t.Elem(), path+"."+k)
			}
		}
		if _, ok := o["additionalProperties"].(map[string]any); ok {
			c.walk(l.child("additionalProperties"), t.Elem(), path+".*")
		}
	}
}

// checkEnum compares the values a schema lists with a Go enum's
// constants: the schema may list them in its own order, but not others.
func (c *schemaChecker) checkEnum(l loc, o map[string]any, e enum, path string) {
	var got []string
	for _, v := range anySlice(o["enum"]) {
		if s, ok := v.(string); ok {
			got = append(got, s)
		}
	}
	if _, ok := o["const"]; ok {
		if !slices.Contains(e.values, fmt.Sprint(o["const"])) {
			c.errorf("%s (%s): const %v is not a %s constant", l, path, o["const"], e.typ)
		}
		return
	}
	if _, ok := o["enum"]; ok {
		c.compareNames(l, path, "enum", got, e.values, "the "+e.typ+" constants")
	}
}

func anySlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// walkStruct compares an object schema's properties and required list
// with the struct's JSON members, then each property's schema with its
// field.
func (c *schemaChecker) walkStruct(l loc, t reflect.Type, path string) {
	o := l.obj()
	props, ok := o["properties"].(map[string]any)
	if !ok {
		c.errorf("%s (%s): schema has no properties for Go struct %v", l, path, t)
		return
	}
	it, err := c.iface(t)
	if err != nil {
		c.errorf("%s (%s): %v", l, path, err)
		return
	}
	c.compareNames(l, path, "properties", sortedKeys(props), sortedNames(it.all, func(field) bool { return true }), "Go "+it.name+"'s JSON fields")
	var required []string
	for _, r := range anySlice(o["required"]) {
		if s, ok := r.(string); ok {
			required = append(required, s)
		}
	}
	c.compareNames(l, path, "required", required, sortedNames(it.all, func(f field) bool { return !f.optional }), "Go "+it.name+"'s fields without omitempty")
	for _, f := range it.all {
		if _, ok := props[f.name]; ok {
			c.walk(l.child("properties", f.name), f.wire, path+"."+f.name)
		}
	}
}

// iface is the model's interface of t, adding it when no root reaches it.
func (c *schemaChecker) iface(t reflect.Type) (*iface, error) {
	name, err := c.m.visit(t)
	if err != nil {
		return nil, err
	}
	return c.m.ifaces[name], nil
}

// compareNames records the names on one side only.
func (c *schemaChecker) compareNames(l loc, path, what string, schema, goNames []string, goSide string) {
	var onlySchema, onlyGo []string
	for _, s := range schema {
		if !slices.Contains(goNames, s) {
			onlySchema = append(onlySchema, s)
		}
	}
	for _, g := range goNames {
		if !slices.Contains(schema, g) {
			onlyGo = append(onlyGo, g)
		}
	}
	slices.Sort(onlySchema)
	slices.Sort(onlyGo)
	if len(onlySchema) > 0 {
		c.errorf("%s (%s): %s %v in the schema, not in %s", l, path, what, onlySchema, goSide)
	}
	if len(onlyGo) > 0 {
		c.errorf("%s (%s): %s %v missing from the schema (%s)", l, path, what, onlyGo, goSide)
	}
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

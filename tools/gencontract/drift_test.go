package main

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/contextbuilder"
)

// TestSchemasMatchGoTypes walks every schema a command names (and the
// extra roots' schemas) alongside its Go type, following $ref within the
// file and into sibling files, and fails on a property missing on either
// side, a "required" list that differs from the fields without omitempty
// (lenient ones aside), a JSON type or an enumeration that disagrees. For
// the hand-written schemas this is the drift test; for the generated ones
// it checks the generator.
func TestSchemasMatchGoTypes(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	m, err := build()
	if err != nil {
		t.Fatal(err)
	}
	pairs, err := commandSchemas()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range append(pairs, extraSchemas...) {
		t.Run(strings.TrimSuffix(p.file, ".schema.json"), func(t *testing.T) {
			c := newSchemaChecker(filepath.Join(root, schemaDir), m)
			c.check(p.file, p.t)
			for _, e := range c.errs {
				t.Error(e)
			}
		})
	}
}

// Types for TestSchemaCheckerCatchesDrift.
type (
	driftRoot struct {
		ID      string                 `json:"id"`
		Note    string                 `json:"note,omitempty"`
		Inner   driftInner             `json:"inner"`
		Items   []driftInner           `json:"items"`
		Counts  map[string]int         `json:"counts"`
		Purpose contextbuilder.Purpose `json:"purpose"`
		Gone    int                    `json:"gone"`
	}
	driftInner struct {
		Name string `json:"name"`
		Size int    `json:"size,omitempty"`
	}
)

// TestSchemaCheckerCatchesDrift runs the checker on a schema that drifted
// in every way it must catch, across a $ref into a sibling file, and on
// the same schema fixed.
func TestSchemaCheckerCatchesDrift(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("inner.schema.json", `{
		"type": "object", "additionalProperties": false,
		"required": ["name", "size"],
		"properties": {"name": {"type": "string"}, "size": {"type": "integer"}, "extra": {"type": "string"}}
	}`)
	write("root.schema.json", `{
		"type": "object", "additionalProperties": false,
		"required": ["id", "note", "inner", "items", "counts", "purpose"],
		"properties": {
			"id": {"type": "integer"},
			"note": {"type": "string"},
			"inner": {"oneOf": [{"type": "null"}, {"$ref": "inner.schema.json"}]},
			"items": {"type": "array", "items": {"$ref": "#/$defs/item"}},
			"counts": {"type": "object", "additionalProperties": {"type": "string"}},
			"purpose": {"enum": ["intent", "plan", "review"]}
		},
		"$defs": {"item": {"type": "object", "properties": {"name": {"type": "string"}}}}
	}`)
	m, err := build()
	if err != nil {
		t.Fatal(err)
	}
	c := newSchemaChecker(dir, m)
	c.check("root.schema.json", reflect.TypeFor[driftRoot]())
	want := []string{
		"root.schema.json# (driftRoot): properties [gone] missing from the schema",
		"root.schema.json# (driftRoot): required [note] in the schema, not in",
		"root.schema.json# (driftRoot): required [gone] missing from the schema",
		"root.schema.json#/properties/id (driftRoot.id): schema admits [integer], Go string",
		"inner.schema.json# (driftRoot.inner): properties [extra] in the schema, not in",
		"inner.schema.json# (driftRoot.inner): required [size] in the schema, not in",
		"root.schema.json#/$defs/item (driftRoot.items[]): properties [size] missing from the schema",
		"root.schema.json#/$defs/item (driftRoot.items[]): required [name] missing from the schema",
		"root.schema.json#/properties/counts/additionalProperties (driftRoot.counts.*): schema admits [string], Go int",
		"root.schema.json#/properties/purpose (driftRoot.purpose): enum [review] in the schema",
		"root.schema.json#/properties/purpose (driftRoot.purpose): enum [diff] missing from the schema",
	}
	var missed []string
	for _, w := range want {
		if !slices.ContainsFunc(c.errs, func(e string) bool { return strings.HasPrefix(e, w) }) {
			missed = append(missed, w)
		}
	}
	if len(missed) > 0 || len(c.errs) != len(want) {
		t.Errorf("checker errors (-want prefixes +got):\n%s", cmp.Diff(want, c.errs))
	}

	write("inner.schema.json", `{
		"type": "object", "additionalProperties": false,
		"required": ["name"],
		"properties": {"name": {"type": "string"}, "size": {"type": "integer", "minimum": 0}}
	}`)
	write("root.schema.json", `{
		"type": "object", "additionalProperties": false,
		"required": ["id", "inner", "items", "counts", "purpose", "gone"],
		"properties": {
			"id": {"type": "string", "pattern": "^x"},
			"note": {"type": "string"},
			"inner": {"oneOf": [{"type": "null"}, {"$ref": "inner.schema.json"}]},
			"items": {"type": "array", "items": {"$ref": "inner.schema.json"}},
			"counts": {"type": "object", "additionalProperties": {"type": "integer"}},
			"purpose": {"enum": ["diff", "plan", "intent"]},
			"gone": {"type": "integer"}
		}
	}`)
	c = newSchemaChecker(dir, m)
	c.check("root.schema.json", reflect.TypeFor[driftRoot]())
	if len(c.errs) > 0 {
		t.Errorf("checker errors on a matching schema:\n%s", strings.Join(c.errs, "\n"))
	}
}

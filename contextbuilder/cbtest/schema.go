// Package cbtest holds test helpers for the outputs of the context
// builder. It is imported only by _test.go files.
//
// [Validate] checks JSON bytes against one of the JSON Schemas in
// docs/schemas (for example "build_result.schema.json") and fails the test
// with every validation error; [ValidateValue] marshals a Go value with
// encoding/json first. [SchemaNames] lists the schema files.
//
// Schemas are read from the repository's docs/schemas directory, found by
// walking up from the working directory to the directory holding go.mod.
// References between schemas resolve to those local files only: nothing
// is ever fetched from the network. Each schema is compiled once per
// process.
package cbtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// BaseURL is the prefix of every schema's $id; a schema file named
// <name> has the $id BaseURL+<name>.
const BaseURL = "https://ctxd.dev/schemas/"

// SchemaDir is the schema directory relative to the module root.
const SchemaDir = "docs/schemas"

// Validate fails t (t.Fatalf) when data is not a JSON document valid
// against docs/schemas/<schema>, listing every validation error with its
// location in data.
func Validate(t testing.TB, schema string, data []byte) {
	t.Helper()
	if err := validate(schema, data); err != nil {
		t.Fatalf("%v\ndocument: %s", err, truncate(data, 4096))
	}
}

// ValidateValue marshals v with encoding/json and validates the result as
// [Validate] does.
func ValidateValue(t testing.TB, schema string, v any) {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshaling %T for %s: %v", v, schema, err)
		return
	}
	Validate(t, schema, data)
}

// SchemaNames returns the file names of the schemas in docs/schemas,
// sorted.
func SchemaNames() ([]string, error) {
	r := load()
	if r.err != nil {
		return nil, r.err
	}
	return slices.Clone(r.names), nil
}

// validate is Validate without a testing.TB: nil when data is valid, an
// error naming every violation otherwise.
func validate(schema string, data []byte) error {
	sch, err := compiled(schema)
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("%s: the document is not JSON: %w", schema, err)
	}
	err = sch.Validate(inst)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return fmt.Errorf("validating against %s: %w", schema, err)
	}
	var msgs []string
	leaves(ve.DetailedOutput(), &msgs)
	return fmt.Errorf("not valid against %s:\n  %s", schema, strings.Join(msgs, "\n  "))
}

// leaves appends one line per leaf of a detailed output tree: the leaves
// are the violated keywords, their ancestors only group them.
func leaves(u *jsonschema.OutputUnit, out *[]string) {
	if len(u.Errors) == 0 {
		msg := "invalid"
		if u.Error != nil {
			msg = u.Error.String()
		}
		*out = append(*out, fmt.Sprintf("at %q (%s): %s", u.InstanceLocation, u.KeywordLocation, msg))
		return
	}
	for i := range u.Errors {
		leaves(&u.Errors[i], out)
	}
}

func truncate(data []byte, n int) string {
	if len(data) <= n {
		return string(data)
	}
	return string(data[:n]) + "…"
}

// registry is the process-wide compiler: all schema files are added as
// resources once, then each schema is compiled on first use.
type registry struct {
	err   error // error finding or reading the schema files
	names []string

	mu       sync.Mutex // guards c, compiled and failed
	c        *jsonschema.Compiler
	compiled map[string]*jsonschema.Schema
	failed   map[string]error
}

var (
	regOnce sync.Once
	reg     *registry
)

func load() *registry {
	regOnce.Do(func() {
		reg = &registry{compiled: map[string]*jsonschema.Schema{}, failed: map[string]error{}}
		reg.err = reg.init()
	})
	return reg
}

func (r *registry) init() error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	dir := filepath.Join(root, filepath.FromSlash(SchemaDir))
	files, err := filepath.Glob(filepath.Join(dir, "*.schema.json"))
	if err != nil {
		return fmt.Errorf("listing %s: %w", dir, err)
	}
	if len(files) == 0 {
		return fmt.Errorf("no *.schema.json file in %s", dir)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.UseLoader(localOnly{})
	for _, f := range files {
		name := filepath.Base(f)
		doc, err := readSchema(f)
		if err != nil {
			return err
		}
		obj, ok := doc.(map[string]any)
		if !ok {
			return fmt.Errorf("schema %s: not a JSON object", name)
		}
		if id, _ := obj["$id"].(string); id != BaseURL+name {
			return fmt.Errorf("schema %s: $id is %q, want %q", name, id, BaseURL+name)
		}
		if err := c.AddResource(BaseURL+name, doc); err != nil {
			return fmt.Errorf("adding schema %s: %w", name, err)
		}
		r.names = append(r.names, name)
	}
	slices.Sort(r.names)
	r.c = c
	return nil
}

func readSchema(path string) (any, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading schema: %w", err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		return nil, fmt.Errorf("parsing schema %s: %w", filepath.Base(path), err)
	}
	return doc, nil
}

// compiled returns the compiled schema of a file name, compiling it on
// first use.
func compiled(name string) (*jsonschema.Schema, error) {
	r := load()
	if r.err != nil {
		return nil, r.err
	}
	if _, ok := slices.BinarySearch(r.names, name); !ok {
		return nil, fmt.Errorf("no schema %q in %s (have %s)", name, SchemaDir, strings.Join(r.names, ", "))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if s, ok := r.compiled[name]; ok {
		return s, nil
	}
	if err, ok := r.failed[name]; ok {
		return nil, err
	}
	s, err := r.c.Compile(BaseURL + name)
	if err != nil {
		err = fmt.Errorf("compiling schema %s: %w", name, err)
		r.failed[name] = err
		return nil, err
	}
	r.compiled[name] = s
	return s, nil
}

// localOnly is the compiler's URL loader: every schema is added as a
// resource up front and the metaschemas are embedded in the library, so
// any other URL is an error (a typo in a $ref), never a download.
type localOnly struct{}

func (localOnly) Load(url string) (any, error) {
	return nil, fmt.Errorf("%s is not a schema in %s (cbtest never loads from the network)", url, SchemaDir)
}

// moduleRoot walks up from the working directory to the directory holding
// go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("finding the module root: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("finding the module root: no go.mod above the working directory")
		}
		dir = parent
	}
}

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/internal/testenv"
	"github.com/ctxd/ctxd/workspace"
)

// TestGeneratedFilesUpToDate fails when a Go type, command or enum of the
// contract changed and the generated files (editor contracts, generated
// schemas, the command table of docs/protocol.md) were not regenerated.
func TestGeneratedFilesUpToDate(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	out, err := outputs(root)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range out {
		got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(path)))
		if err != nil {
			t.Errorf("%s: %v (run go generate ./...)", path, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run go generate ./... (-want +got):\n%s", path, cmp.Diff(string(want), string(got)))
		}
	}
}

// TestOutputsIdempotent checks that generating over generated files
// changes nothing: the command table is rewritten in place, not added
// again.
func TestOutputsIdempotent(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	out, err := outputs(root)
	if err != nil {
		t.Fatal(err)
	}
	again, err := protocol(out[protocolFile])
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(out[protocolFile]), string(again)); diff != "" {
		t.Errorf("regenerating docs/protocol.md changes it (-want +got):\n%s", diff)
	}
}

// TestRefusalCodesMatchSchema keeps the generated refusal codes and the
// JSON Schema of a refusal in step, order included.
func TestRefusalCodesMatchSchema(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, "docs", "schemas", "refusal.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Properties struct {
			Code struct {
				Enum []string `json:"enum"`
			} `json:"code"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(schema.Properties.Code.Enum, refusalCodes()); diff != "" {
		t.Errorf("refusal codes differ from refusal.schema.json (-schema +go):\n%s", diff)
	}
}

// TestEnumsListEveryConstant fails when a package declares a constant of
// an enum type that the enum's list lacks: a client would not know the
// value, and a generated schema would reject it.
func TestEnumsListEveryConstant(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	src := newGoSource(root)
	for _, e := range enums() {
		p, err := src.pkg(e.t.PkgPath())
		if err != nil {
			t.Fatal(err)
		}
		declared := p.consts[e.t.Name()]
		if len(declared) == 0 {
			t.Errorf("%v: no constants found in its package's source", e.t)
		}
		for _, v := range declared {
			if !slices.Contains(e.values, v) {
				t.Errorf("%v constant %q is not in the %s list", e.t, v, e.consts)
			}
		}
	}
}

// TestModelCoversRoots checks every command's argument and result and
// every extra root became an interface, that the names the editor code
// imports stay, and that a request field lost in Go would show.
func TestModelCoversRoots(t *testing.T) {
	m, err := build()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range workspace.Commands {
		for _, typ := range []reflect.Type{c.Arg, c.Result} {
			if _, ok := m.ifaces[m.named[typ]]; !ok {
				t.Errorf("%s: no interface for %v", c.Name, typ)
			}
		}
	}
	// grep editors/vscode/src editors/nvim for these before renaming one.
	for _, name := range []string{
		"BuildRequest", "BuildResult", "ManifestResult", "BudgetResult", "PromptResult", "Recorded", "Report",
		"IndexStatusResult", "Execution", "Refusal", "Thread", "Candidate", "ModelRequest", "Block", "Bundle",
	} {
		if _, ok := m.ifaces[name]; !ok {
			t.Errorf("no interface %s", name)
		}
	}
	want := []string{"purpose", "correlation_id", "active_file", "selection", "intent", "plan_step", "user_selected_targets", "last_error", "constraints", "model", "skill", "thread"}
	if diff := cmp.Diff(want, fieldNames(m.ifaces["BuildRequest"].all)); diff != "" {
		t.Errorf("BuildRequest fields (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(append(slices.Clone(want), "template_id"), fieldNames(m.ifaces["PromptRequest"].all)); diff != "" {
		t.Errorf("PromptRequest fields (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"BuildRequest"}, m.ifaces["PromptRequest"].bases); diff != "" {
		t.Errorf("PromptRequest bases (-want +got):\n%s", diff)
	}
}

// TestLenientFieldsExist keeps the lenient table from naming fields that
// are gone or that omitempty already makes optional.
func TestLenientFieldsExist(t *testing.T) {
	m, err := build()
	if err != nil {
		t.Fatal(err)
	}
	for key := range lenient {
		typ, name, _ := strings.Cut(key, ".")
		it, ok := m.ifaces[typ]
		if !ok {
			t.Errorf("lenient %s: no interface %s", key, typ)
			continue
		}
		i := slices.IndexFunc(it.own, func(f field) bool { return f.name == name })
		if i < 0 {
			t.Errorf("lenient %s: %s has no field %s", key, typ, name)
			continue
		}
		if tag := it.t.Field(fieldIndex(it.t, it.own[i].goName)).Tag.Get("json"); strings.Contains(tag, "omitempty") {
			t.Errorf("lenient %s: the field has omitempty already", key)
		}
	}
}

func fieldIndex(t reflect.Type, goName string) int {
	f, _ := t.FieldByName(goName)
	return f.Index[0]
}

// TestCommandSchemaKinds checks every schema a command names is either
// generated (listed, with the generated marker) or hand-written (present,
// without it), so the drift test knows which is which.
func TestCommandSchemaKinds(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	pairs, err := commandSchemas()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range append(pairs, extraSchemas...) {
		data, err := os.ReadFile(filepath.Join(root, schemaDir, p.file))
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		var doc struct {
			Comment string `json:"$comment"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Errorf("%s: %v", p.file, err)
		}
		generated := slices.Contains(generatedSchemas, p.file)
		if marked := strings.HasPrefix(doc.Comment, generatedMarker); marked != generated {
			t.Errorf("%s: listed as generated %t, carries the generated marker %t", p.file, generated, marked)
		}
	}
}

// TestProtocolTable checks the command table replaces exactly the text
// between the markers, and that missing markers are an error rather than
// a silently unchanged document.
func TestProtocolTable(t *testing.T) {
	doc := "# P\n\nintro\n\n" + beginCommands + "\nold table\n" + endCommands + "\n\nrest\n"
	got, err := protocol([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := "# P\n\nintro\n\n" + beginCommands + "\n" + commandTable() + endCommands + "\n\nrest\n"
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("protocol (-want +got):\n%s", diff)
	}
	for _, c := range workspace.Commands {
		if !strings.Contains(string(got), "| `"+c.Name+"` |") {
			t.Errorf("no row for %s", c.Name)
		}
	}
	for _, bad := range []string{"no markers\n", beginCommands + "\n", endCommands + "\n" + beginCommands + "\n", doc + doc} {
		if _, err := protocol([]byte(bad)); err == nil {
			t.Errorf("protocol(%q) = nil error, want one", bad)
		}
	}
}

// TestLuaString checks the Lua literals LuaJIT reads back as the string.
func TestLuaString(t *testing.T) {
	for in, want := range map[string]string{
		`plain`:          `"plain"`,
		`a "b" \c`:       `"a \"b\" \\c"`,
		"line\nnext\x01": `"line\nnext\001"`,
		"ünï <x>":        `"ünï <x>"`,
	} {
		if got := luaString(in); got != want {
			t.Errorf("luaString(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestMain gives the tests a configuration and state directory of their
// own (testenv.Run): builds in workspaces that did not opt in record
// under the state directory.
func TestMain(m *testing.M) { os.Exit(testenv.Run(m)) }

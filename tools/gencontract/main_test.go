package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestGeneratedFilesUpToDate fails when a Go type, command or enum of the
// contract changed and the editor clients' generated files were not
// regenerated.
func TestGeneratedFilesUpToDate(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	out, err := outputs()
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

// TestRefusalCodesMatchSchema keeps the generated refusal codes and the
// JSON Schema of a refusal in step.
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

// TestModelCoversRoots checks every root type became an interface with
// its wire fields, and that a request field lost in Go would show.
func TestModelCoversRoots(t *testing.T) {
	m, err := build()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range roots {
		if _, ok := m.fields[r.name]; !ok {
			t.Errorf("no interface %s", r.name)
		}
	}
	var names []string
	for _, f := range m.fields["BuildRequest"] {
		names = append(names, f.name)
	}
	want := []string{"purpose", "correlation_id", "active_file", "selection", "intent", "plan_step", "user_selected_targets", "last_error", "constraints", "model", "skill", "thread"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("BuildRequest fields (-want +got):\n%s", diff)
	}
}

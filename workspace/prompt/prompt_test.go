package prompt

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/contextbuilder/cbtest"
	"github.com/ctxd/ctxd/contextbuilder/tokens"
	"github.com/ctxd/ctxd/index/indextest"
)

var update = indextest.UpdateFlag("testdata/*.golden")

const (
	testFingerprint = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	testBundleID    = "3f2b8c1e-9d4a-8b7c-8e6f-1a2b3c4d5e6f"
	testCorrID      = "7a6b5c4d-3e2f-8a1b-9c0d-e1f2a3b4c5d6"
)

func ptr(s string) *string { return &s }

func block(id string, typ contextbuilder.BlockType, prio contextbuilder.Priority, title string, path *string, content string) contextbuilder.Block {
	src := contextbuilder.SourceSystem
	if path != nil {
		src = contextbuilder.SourceIndex
	}
	return contextbuilder.Block{
		BlockID: id, BlockType: typ, Priority: prio, Title: title, Content: content,
		Meta: contextbuilder.BlockMeta{Path: path, Encoding: "utf-8", ByteSize: int64(len(content)), LineCount: strings.Count(content, "\n"), Source: src},
	}
}

// testBundle is a small bundle of the given purpose with blocks of every
// shape Render distinguishes: no path, a known and an unknown extension,
// backtick runs, content without a final newline, empty content.
func testBundle(purpose contextbuilder.Purpose) *contextbuilder.Bundle {
	return &contextbuilder.Bundle{
		BundleID: testBundleID, BundleVersion: 1, CreatedAt: "2025-01-02T03:04:05Z",
		Purpose: purpose, CorrelationID: testCorrID,
		Model: contextbuilder.Model{Provider: "openai", Model: "gpt-4o", MaxInputTokens: 128000, MaxOutputTokens: 4096, ResponseTokenReserve: 4096, SoftLimitThresholdPct: 80},
		Blocks: []contextbuilder.Block{
			block("00000000-0000-8000-8000-000000000001", contextbuilder.BlockSystem, contextbuilder.P0, "Intent", nil, "Make Add saturate."),
			block("00000000-0000-8000-8000-000000000002", contextbuilder.BlockConstraints, contextbuilder.P0, "Constraints", nil, "- project: keep the API stable\n"),
			block("00000000-0000-8000-8000-000000000003", contextbuilder.BlockFile, contextbuilder.P1, "calc/add.go", ptr("calc/add.go"),
				"package calc\n\n// Add adds. See ```docs``` and ````more````.\nfunc Add(a, b int) int { return a + b }\n"),
			block("00000000-0000-8000-8000-000000000004", contextbuilder.BlockSymbol, contextbuilder.P2, "calc.Sub\nsecond line", ptr("calc/sub.go"), "func Sub(a, b int) int { return a - b }"),
			block("00000000-0000-8000-8000-000000000005", contextbuilder.BlockFile, contextbuilder.P3, "NOTES", ptr("docs/NOTES.unknownext"), ""),
		},
	}
}

func testInput(purpose contextbuilder.Purpose) Input {
	return Input{
		Bundle:            testBundle(purpose),
		BundleFingerprint: testFingerprint,
		IntentText:        "Make Add saturate at the int bounds.",
		PlanStepText:      "1. Change calc/add.go",
		Estimator:         tokens.ForModel("gpt-4o"),
		HardLimit:         123904,
	}
}

func defaultTemplate(t *testing.T, purpose string) (Template, string) {
	t.Helper()
	tpl, sha, err := (*Set)(nil).Resolve(purpose, "")
	if err != nil {
		t.Fatalf("Resolve(%s): %v", purpose, err)
	}
	return tpl, sha
}

func TestDefaultsValid(t *testing.T) {
	ds := Defaults()
	var ids []string
	for _, d := range ds {
		ids = append(ids, d.ID)
		if err := d.check(); err != nil {
			t.Errorf("default %s: %v", d.ID, err)
		}
		if want := "default-" + d.Purpose; d.ID != want {
			t.Errorf("default %s has purpose %s", d.ID, d.Purpose)
		}
		if !strings.Contains(d.System, "{{context}}") {
			t.Errorf("default %s: {{context}} not in the system text", d.ID)
		}
		data, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		cbtest.Validate(t, "prompt_template.schema.json", data)
		// A default written to a file loads as itself.
		got, err := parseTemplate(data, "x.json")
		if err != nil {
			t.Errorf("default %s does not parse back: %v", d.ID, err)
		}
		if diff := cmp.Diff(d, got); diff != "" {
			t.Errorf("default %s round trip (-want +got):\n%s", d.ID, diff)
		}
	}
	if diff := cmp.Diff([]string{"default-intent", "default-plan", "default-diff"}, ids); diff != "" {
		t.Errorf("Defaults ids (-want +got):\n%s", diff)
	}
	ds[0].System = "changed"
	if Defaults()[0].System == "changed" {
		t.Error("Defaults returns shared state")
	}
	if diff := cmp.Diff([]string{"default-diff", "default-intent", "default-plan"}, (*Set)(nil).IDs()); diff != "" {
		t.Errorf("nil Set IDs (-want +got):\n%s", diff)
	}
}

// tplJSON returns a valid template file with fields replaced by over
// ("-" removes a field).
func tplJSON(over map[string]string) string {
	fields := map[string]string{
		"schema": TemplateSchema, "id": "my-diff", "purpose": "diff",
		"system": "Context:\n{{context}}", "user": "Do {{intent}} for {{plan_step}}.",
	}
	for k, v := range over {
		if v == "-" {
			delete(fields, k)
		} else {
			fields[k] = v
		}
	}
	var b strings.Builder
	b.WriteString("{\n")
	first := true
	for _, k := range []string{"schema", "id", "purpose", "system", "user"} {
		v, ok := fields[k]
		if !ok {
			continue
		}
		if !first {
			b.WriteString(",\n")
		}
		first = false
		kj, _ := json.Marshal(k)
		vj, _ := json.Marshal(v)
		b.WriteString("  " + string(kj) + ": " + string(vj))
	}
	b.WriteString("\n}\n")
	return b.String()
}

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, ".ctxd", "templates", filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLoadDir(t *testing.T) {
	defaultIDs := []string{"default-diff", "default-intent", "default-plan"}
	type wantErr struct {
		Reason, Path, Field string
		msg                 string // substring of Message
	}
	tests := []struct {
		name    string
		files   map[string]string
		setup   func(t *testing.T, root string)
		wantIDs []string
		wantErr *wantErr
	}{
		{name: "absent .ctxd", wantIDs: defaultIDs},
		{name: "empty dir", setup: func(t *testing.T, root string) {
			os.MkdirAll(filepath.Join(root, ".ctxd", "templates"), 0o755)
		}, wantIDs: defaultIDs},
		{name: "extra template", files: map[string]string{"a.json": tplJSON(nil), "README.md": "not a template", ".#a.json": "lock"},
			wantIDs: []string{"default-diff", "default-intent", "default-plan", "my-diff"}},
		{name: "override default", files: map[string]string{"d.json": tplJSON(map[string]string{"id": "default-diff"})}, wantIDs: defaultIDs},
		{name: "invalid JSON with line and column", files: map[string]string{"a.json": "{\n  \"schema\": \"x\",\n  oops\n}"},
			wantErr: &wantErr{ReasonBuildFailed, ".ctxd/templates/a.json", "", "line 3, column 3"}},
		{name: "truncated JSON", files: map[string]string{"a.json": "{\n  \"schema\": "},
			wantErr: &wantErr{ReasonBuildFailed, ".ctxd/templates/a.json", "", "line 2, column 13"}},
		{name: "empty file", files: map[string]string{"a.json": ""},
			wantErr: &wantErr{ReasonBuildFailed, ".ctxd/templates/a.json", "", "unexpected end of file"}},
		{name: "not an object", files: map[string]string{"a.json": "[1]"},
			wantErr: &wantErr{ReasonBuildFailed, ".ctxd/templates/a.json", "", "not a JSON object"}},
		{name: "trailing data", files: map[string]string{"a.json": tplJSON(nil) + "{}"},
			wantErr: &wantErr{ReasonBuildFailed, ".ctxd/templates/a.json", "", "data after the template object (at line 8, column 1)"}},
		{name: "unknown field", files: map[string]string{"a.json": strings.Replace(tplJSON(nil), "{\n", "{\n  \"model/x\": \"gpt\",\n", 1)},
			wantErr: &wantErr{ReasonBuildFailed, ".ctxd/templates/a.json", "/model~1x", `unknown member "model/x" (at line 2, column 3)`}},
		{name: "duplicate member", files: map[string]string{"a.json": strings.Replace(tplJSON(nil), "{\n", "{\n  \"id\": \"x\",\n", 1)},
			wantErr: &wantErr{ReasonBuildFailed, ".ctxd/templates/a.json", "/id", "occurs twice"}},
		{name: "non-string member", files: map[string]string{"a.json": strings.Replace(tplJSON(nil), `"id": "my-diff"`, `"id": null`, 1)},
			wantErr: &wantErr{ReasonBuildFailed, ".ctxd/templates/a.json", "/id", "not a string (at line 3, column 9)"}},
		{name: "object member", files: map[string]string{"a.json": strings.Replace(tplJSON(nil), `"id": "my-diff"`, `"id": {"a": 1}`, 1)},
			wantErr: &wantErr{ReasonBuildFailed, ".ctxd/templates/a.json", "/id", "not a string"}},
		{name: "missing member", files: map[string]string{"a.json": tplJSON(map[string]string{"user": "-"})},
			wantErr: &wantErr{ReasonBuildFailed, ".ctxd/templates/a.json", "/user", "missing"}},
		{name: "bad schema", files: map[string]string{"a.json": tplJSON(map[string]string{"schema": "serverd.prompt_template.v1"})},
			wantErr: &wantErr{ReasonBuildFailed, ".ctxd/templates/a.json", "/schema", "serverd.prompt_template.v1"}},
		{name: "bad id", files: map[string]string{"a.json": tplJSON(map[string]string{"id": "My Diff"})},
			wantErr: &wantErr{ReasonBuildFailed, ".ctxd/templates/a.json", "/id", "not a valid template id"}},
		{name: "id too long", files: map[string]string{"a.json": tplJSON(map[string]string{"id": strings.Repeat("a", 65)})},
			wantErr: &wantErr{ReasonBuildFailed, ".ctxd/templates/a.json", "/id", "not a valid template id"}},
		{name: "bad purpose", files: map[string]string{"a.json": tplJSON(map[string]string{"purpose": "review"})},
			wantErr: &wantErr{ReasonBuildFailed, ".ctxd/templates/a.json", "/purpose", `"review"`}},
		{name: "blank user", files: map[string]string{"a.json": tplJSON(map[string]string{"user": " \n"})},
			wantErr: &wantErr{ReasonBuildFailed, ".ctxd/templates/a.json", "/user", "empty"}},
		{name: "missing context", files: map[string]string{"a.json": tplJSON(map[string]string{"system": "No context here."})},
			wantErr: &wantErr{ReasonBuildFailed, ".ctxd/templates/a.json", "/system", "neither system nor user"}},
		{name: "duplicate context", files: map[string]string{"a.json": tplJSON(map[string]string{"user": "Again: {{context}}"})},
			wantErr: &wantErr{ReasonBuildFailed, ".ctxd/templates/a.json", "/user", "more than once"}},
		{name: "duplicate context in one text", files: map[string]string{"a.json": tplJSON(map[string]string{"system": "{{context}}{{context}}"})},
			wantErr: &wantErr{ReasonBuildFailed, ".ctxd/templates/a.json", "/system", "more than once"}},
		{name: "unknown placeholder", files: map[string]string{"a.json": tplJSON(map[string]string{"system": "{{context}} {{file}}"})},
			wantErr: &wantErr{ReasonBuildFailed, ".ctxd/templates/a.json", "/system", `unknown placeholder "{{file}}" at character 13`}},
		{name: "placeholder with spaces", files: map[string]string{"a.json": tplJSON(map[string]string{"user": "{{ intent }}"})},
			wantErr: &wantErr{ReasonBuildFailed, ".ctxd/templates/a.json", "/user", `unknown placeholder "{{ intent }}"`}},
		{name: "unterminated placeholder", files: map[string]string{"a.json": tplJSON(map[string]string{"user": "Do {{intent"})},
			wantErr: &wantErr{ReasonBuildFailed, ".ctxd/templates/a.json", "/user", "no closing"}},
		{name: "duplicate id across files", files: map[string]string{"a.json": tplJSON(nil), "b.json": tplJSON(nil)},
			wantErr: &wantErr{ReasonBuildFailed, ".ctxd/templates/b.json", "/id", "already defined by .ctxd/templates/a.json"}},
		{name: "default id with another purpose", files: map[string]string{"a.json": tplJSON(map[string]string{"id": "default-plan"})},
			wantErr: &wantErr{ReasonBuildFailed, ".ctxd/templates/a.json", "/purpose", "replaces the default for plan"}},
		{name: "oversize", files: map[string]string{"a.json": tplJSON(map[string]string{"user": strings.Repeat("x", MaxTemplateSize)})},
			wantErr: &wantErr{ReasonBuildFailed, ".ctxd/templates/a.json", "", "over 256 KiB"}},
		{name: "directory named .json", setup: func(t *testing.T, root string) {
			os.MkdirAll(filepath.Join(root, ".ctxd", "templates", "d.json"), 0o755)
		}, wantErr: &wantErr{ReasonBuildFailed, ".ctxd/templates/d.json", "", "not a regular file"}},
		{name: "templates is a file", setup: func(t *testing.T, root string) {
			os.MkdirAll(filepath.Join(root, ".ctxd"), 0o755)
			os.WriteFile(filepath.Join(root, ".ctxd", "templates"), nil, 0o644)
		}, wantErr: &wantErr{ReasonBuildFailed, ".ctxd/templates", "", "not a directory"}},
		{name: "symlink outside root", setup: func(t *testing.T, root string) {
			outside := filepath.Join(t.TempDir(), "evil.json")
			os.WriteFile(outside, []byte(tplJSON(nil)), 0o644)
			os.MkdirAll(filepath.Join(root, ".ctxd", "templates"), 0o755)
			if err := os.Symlink(outside, filepath.Join(root, ".ctxd", "templates", "a.json")); err != nil {
				t.Skipf("symlinks unavailable: %v", err)
			}
		}, wantErr: &wantErr{ReasonBuildFailed, ".ctxd/templates/a.json", "", "cannot open the file inside the workspace"}},
		{name: "templates dir symlinked outside root", setup: func(t *testing.T, root string) {
			outside := t.TempDir()
			os.WriteFile(filepath.Join(outside, "a.json"), []byte(tplJSON(nil)), 0o644)
			os.MkdirAll(filepath.Join(root, ".ctxd"), 0o755)
			if err := os.Symlink(outside, filepath.Join(root, ".ctxd", "templates")); err != nil {
				t.Skipf("symlinks unavailable: %v", err)
			}
		}, wantErr: &wantErr{ReasonBuildFailed, ".ctxd/templates", "", "cannot read the directory"}},
		{name: "symlink inside root", setup: func(t *testing.T, root string) {
			os.MkdirAll(filepath.Join(root, ".ctxd", "templates"), 0o755)
			os.WriteFile(filepath.Join(root, "shared.json"), []byte(tplJSON(nil)), 0o644)
			if err := os.Symlink(filepath.Join("..", "..", "shared.json"), filepath.Join(root, ".ctxd", "templates", "a.json")); err != nil {
				t.Skipf("symlinks unavailable: %v", err)
			}
		}, wantIDs: []string{"default-diff", "default-intent", "default-plan", "my-diff"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			writeFiles(t, root, tt.files)
			if tt.setup != nil {
				tt.setup(t, root)
			}
			s, err := LoadDir(root)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("LoadDir: %v", err)
				}
				if diff := cmp.Diff(tt.wantIDs, s.IDs()); diff != "" {
					t.Errorf("IDs (-want +got):\n%s", diff)
				}
				return
			}
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("LoadDir: err %v (%T), want *Error", err, err)
			}
			got := wantErr{pe.Reason, pe.Path, pe.Field, tt.wantErr.msg}
			if diff := cmp.Diff(*tt.wantErr, got, cmp.AllowUnexported(wantErr{})); diff != "" {
				t.Errorf("error %q (-want +got):\n%s", err, diff)
			}
			if !strings.Contains(pe.Message, tt.wantErr.msg) {
				t.Errorf("message %q lacks %q", pe.Message, tt.wantErr.msg)
			}
			if pe.Advice == "" {
				t.Errorf("error %q has no advice", err)
			}
			if strings.Contains(pe.Error(), root) {
				t.Errorf("error %q names the absolute root", err)
			}
		})
	}
}

func TestLoadDirOverride(t *testing.T) {
	root := t.TempDir()
	custom := tplJSON(map[string]string{"id": "default-diff", "system": "Mine.\n{{context}}"})
	writeFiles(t, root, map[string]string{"d.json": custom, "x.json": tplJSON(map[string]string{"id": "x-plan", "purpose": "plan"})})
	s, err := LoadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	tpl, sha, err := s.Resolve("diff", "")
	if err != nil {
		t.Fatal(err)
	}
	if tpl.System != "Mine.\n{{context}}" {
		t.Errorf("Resolve(diff, \"\") = %+v, want the workspace's default-diff", tpl)
	}
	_, builtinSHA := defaultTemplate(t, "diff")
	if sha == builtinSHA || !isSHA256(sha) {
		t.Errorf("override hash %s (built-in %s)", sha, builtinSHA)
	}
	if wantSHA, _ := tpl.hash(); sha != wantSHA {
		t.Errorf("Resolve hash %s, want %s", sha, wantSHA)
	}
	// The other purposes keep their built-in defaults.
	if tpl, _, err := s.Resolve("plan", ""); err != nil || tpl.ID != "default-plan" || tpl.System != Defaults()[1].System {
		t.Errorf("Resolve(plan) = %+v, %v", tpl, err)
	}
	if tpl, _, err := s.Resolve("plan", "x-plan"); err != nil || tpl.ID != "x-plan" {
		t.Errorf("Resolve(plan, x-plan) = %+v, %v", tpl, err)
	}
}

func TestResolveErrors(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"x.json": tplJSON(map[string]string{"id": "x-plan", "purpose": "plan"})})
	s, err := LoadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, purpose, id string
		want              Error
	}{
		{"unknown id", "plan", "nope", Error{Reason: ReasonBuildFailed, Message: `no template "nope"`, Advice: "use one of the templates for plan: default-plan, x-plan"}},
		{"purpose mismatch", "diff", "x-plan", Error{Reason: ReasonBuildFailed, Path: ".ctxd/templates/x.json", Message: `template "x-plan" is for purpose "plan", not "diff"`, Advice: "use one of the templates for diff: default-diff"}},
		{"builtin purpose mismatch", "intent", "default-diff", Error{Reason: ReasonBuildFailed, Message: `template "default-diff" is for purpose "diff", not "intent"`, Advice: "use one of the templates for intent: default-intent"}},
		{"unknown purpose", "review", "", Error{Reason: ReasonBuildFailed, Message: `purpose "review" is not intent, plan or diff`, Advice: `use "intent", "plan" or "diff"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := s.Resolve(tt.purpose, tt.id)
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("err %v, want *Error", err)
			}
			if diff := cmp.Diff(tt.want, *pe); diff != "" {
				t.Errorf("Resolve(%q, %q) (-want +got):\n%s", tt.purpose, tt.id, diff)
			}
		})
	}
}

func TestErrorString(t *testing.T) {
	tests := []struct {
		err  Error
		want string
	}{
		{Error{Reason: ReasonBuildFailed, Path: ".ctxd/templates/x.json", Field: "/id", Message: "bad"}, "prompt_build_failed: .ctxd/templates/x.json /id: bad"},
		{Error{Reason: ReasonBuildFailed, Path: ".ctxd/templates/x.json", Message: "bad"}, "prompt_build_failed: .ctxd/templates/x.json: bad"},
		{Error{Reason: ReasonWriteFailed, Field: "/user", Message: "bad"}, "prompt_write_failed: /user: bad"},
		{Error{Reason: ReasonBuildFailed, Message: "bad"}, "prompt_build_failed: bad"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

func renderGolden(t *testing.T, p *Prompt) []byte {
	t.Helper()
	var js bytes.Buffer
	enc := json.NewEncoder(&js)
	enc.SetEscapeHTML(false) // keep "<path>" readable
	enc.SetIndent("", "  ")
	if err := enc.Encode(p); err != nil {
		t.Fatal(err)
	}
	ar := &txtar.Archive{
		Comment: []byte("Render output: the two messages, then the prompt artifact (-update rewrites this file).\n"),
		Files: []txtar.File{
			{Name: "system", Data: []byte(p.Messages[0].Content + "\n")},
			{Name: "user", Data: []byte(p.Messages[1].Content + "\n")},
			{Name: "prompt.json", Data: js.Bytes()},
		},
	}
	return txtar.Format(ar)
}

func TestRenderGolden(t *testing.T) {
	custom := Template{
		Schema: TemplateSchema, ID: "all-placeholders", Purpose: "plan",
		System: "purpose={{purpose}} correlation={{correlation_id}}",
		User:   "intent={{intent}}\nstep={{plan_step}}\n{{context}}\n[end]",
	}
	tests := []struct {
		name   string
		tpl    func(t *testing.T) (Template, string)
		mutate func(in *Input)
	}{
		{"default_diff", func(t *testing.T) (Template, string) { return defaultTemplate(t, "diff") }, nil},
		{"default_plan", func(t *testing.T) (Template, string) { return defaultTemplate(t, "plan") }, func(in *Input) { in.Bundle.Purpose = "plan" }},
		{"default_intent_no_intent", func(t *testing.T) (Template, string) { return defaultTemplate(t, "intent") }, func(in *Input) {
			in.Bundle.Purpose = "intent"
			in.IntentText, in.PlanStepText = "", ""
			in.HardLimit = 0
		}},
		{"custom_all_placeholders", func(t *testing.T) (Template, string) { return custom, "" }, func(in *Input) {
			in.Bundle.Purpose = "plan"
			in.Estimator = tokens.ForModel("gpt-4")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tpl, sha := tt.tpl(t)
			in := testInput("diff")
			if tt.mutate != nil {
				tt.mutate(&in)
			}
			p, err := Render(tpl, sha, in)
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			got := renderGolden(t, p)
			file := filepath.Join("testdata", tt.name+".golden")
			if *update {
				if err := os.WriteFile(file, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("%s (-want +got):\n%s", file, diff)
			}
			data, err := json.Marshal(p)
			if err != nil {
				t.Fatal(err)
			}
			cbtest.Validate(t, "prompt.schema.json", data)
		})
	}
}

func TestRenderContextSections(t *testing.T) {
	got, err := renderContext(testBundle("diff").Blocks)
	if err != nil {
		t.Fatal(err)
	}
	want := "### Intent (system, P0)\n```\nMake Add saturate.\n```\n\n" +
		"### Constraints (constraints, P0)\n```\n- project: keep the API stable\n```\n\n" +
		"### calc/add.go (file, P1, calc/add.go)\n`````go\npackage calc\n\n// Add adds. See ```docs``` and ````more````.\nfunc Add(a, b int) int { return a + b }\n`````\n\n" +
		"### calc.Sub second line (symbol, P2, calc/sub.go)\n```go\nfunc Sub(a, b int) int { return a - b }\n```\n\n" +
		"### NOTES (file, P3, docs/NOTES.unknownext)\n```\n```"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("context (-want +got):\n%s", diff)
	}
}

func TestLanguage(t *testing.T) {
	tests := map[string]string{
		"a/b.go": "go", "x.PY": "python", "web/App.tsx": "tsx", "Dockerfile": "dockerfile", "sub/Makefile": "makefile",
		"go.mod": "go-mod", "README": "", "x.unknown": "", "dir.go/file": "", ".bashrc": "",
	}
	for p, want := range tests {
		if got := language(p); got != want {
			t.Errorf("language(%q) = %q, want %q", p, got, want)
		}
	}
}

// TestSinglePass checks that substituted text is never expanded again.
func TestSinglePass(t *testing.T) {
	tpl, sha := defaultTemplate(t, "diff")
	in := testInput("diff")
	in.Bundle.Blocks[2].Content = "literal {{intent}} and {{context}} and {{plan_step}}\n"
	in.IntentText = "my intent says {{context}} and {{intent}}"
	in.PlanStepText = "{{correlation_id}}"
	p, err := Render(tpl, sha, in)
	if err != nil {
		t.Fatal(err)
	}
	sys, user := p.Messages[0].Content, p.Messages[1].Content
	if !strings.Contains(sys, in.Bundle.Blocks[2].Content) {
		t.Errorf("system message lacks the block content verbatim:\n%s", sys)
	}
	if !strings.Contains(user, "Intent: "+in.IntentText+"\n") || !strings.Contains(user, "Plan step: {{correlation_id}}\n") {
		t.Errorf("user message did not keep substituted text literal:\n%s", user)
	}
	if strings.Count(sys+user, "### calc/add.go") != 1 {
		t.Errorf("the context was expanded more than once")
	}
}

func TestRenderDeterministic(t *testing.T) {
	tpl, sha := defaultTemplate(t, "diff")
	first, err := Render(tpl, sha, testInput("diff"))
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(first)
	for range 5 {
		p, err := Render(tpl, "", testInput("diff"))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(p)
		if !bytes.Equal(a, b) {
			t.Fatalf("Render output differs between runs:\n%s\n%s", a, b)
		}
	}
}

func TestTokenCounts(t *testing.T) {
	for _, model := range []string{"gpt-4o", "gpt-4"} {
		t.Run(model, func(t *testing.T) {
			tpl, sha := defaultTemplate(t, "plan")
			in := testInput("plan")
			in.Estimator = tokens.ForModel(model)
			p, err := Render(tpl, sha, in)
			if err != nil {
				t.Fatal(err)
			}
			est := tokens.ForModel(model)
			want := TokenCounts{
				System: est.Count(p.Messages[0].Content), User: est.Count(p.Messages[1].Content),
				HardLimit: in.HardLimit, Estimator: est.Name(),
			}
			want.Total = want.System + want.User
			if diff := cmp.Diff(want, p.TokenCounts); diff != "" {
				t.Errorf("token counts (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("nil estimator uses the bundle model", func(t *testing.T) {
		tpl, sha := defaultTemplate(t, "plan")
		in := testInput("plan")
		in.Estimator = nil
		in.Bundle.Model.Model = "gpt-3.5-turbo"
		p, err := Render(tpl, sha, in)
		if err != nil {
			t.Fatal(err)
		}
		if p.TokenCounts.Estimator != tokens.Cl100kBase {
			t.Errorf("estimator %q, want %q", p.TokenCounts.Estimator, tokens.Cl100kBase)
		}
	})
}

func TestRenderHardLimit(t *testing.T) {
	tpl, sha := defaultTemplate(t, "diff")
	in := testInput("diff")
	in.HardLimit = 0
	p, err := Render(tpl, sha, in)
	if err != nil {
		t.Fatal(err)
	}
	total := p.TokenCounts.Total
	in.HardLimit = total
	if _, err := Render(tpl, sha, in); err != nil {
		t.Errorf("Render at exactly the limit: %v", err)
	}
	in.HardLimit = total - 10
	_, err = Render(tpl, sha, in)
	var pe *Error
	if !errors.As(err, &pe) || pe.Reason != ReasonBuildFailed {
		t.Fatalf("Render over the limit: err %v, want a prompt_build_failed *Error", err)
	}
	ctx, _ := renderContext(in.Bundle.Blocks)
	ctxTokens := in.Estimator.Count(ctx)
	for _, want := range []string{
		"adds " + itoa(total-ctxTokens) + " tokens to the context's " + itoa(ctxTokens),
		"at " + itoa(total) + " tokens: 10 over the hard limit of " + itoa(total-10),
	} {
		if !strings.Contains(pe.Message, want) {
			t.Errorf("message %q lacks %q", pe.Message, want)
		}
	}
	if !strings.Contains(pe.Advice, "smaller template") {
		t.Errorf("advice %q", pe.Advice)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestRenderErrors(t *testing.T) {
	good, sha := defaultTemplate(t, "diff")
	tests := []struct {
		name   string
		tpl    Template
		sha    string
		mutate func(in *Input)
		field  string
		msg    string
	}{
		{"nil bundle", good, sha, func(in *Input) { in.Bundle = nil }, "", "missing or has no blocks"},
		{"no blocks", good, sha, func(in *Input) { in.Bundle.Blocks = nil }, "", "has no blocks"},
		{"purpose mismatch", good, sha, func(in *Input) { in.Bundle.Purpose = "plan" }, "", `is for purpose "diff" but the bundle is for "plan"`},
		{"bad fingerprint", good, sha, func(in *Input) { in.BundleFingerprint = "sha256:abc" }, "", "fingerprint"},
		{"wrong template hash", good, strings.Repeat("0", 64), nil, "", "is not the hash of template"},
		{"negative limit", good, sha, func(in *Input) { in.HardLimit = -1 }, "", "negative"},
		{"invalid UTF-8 content", good, sha, func(in *Input) { in.Bundle.Blocks[2].Content = "a\xffb" }, "", "block 2 (00000000-0000-8000-8000-000000000003) is not valid UTF-8"},
		{"invalid UTF-8 intent", good, sha, func(in *Input) { in.IntentText = "\xc3" }, "", "not valid UTF-8"},
		{"invalid template", Template{Schema: TemplateSchema, ID: "x", Purpose: "diff", System: "s", User: "u"}, "", nil, "/system", `template "x": {{context}} occurs in neither`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := testInput("diff")
			if tt.mutate != nil {
				tt.mutate(&in)
			}
			p, err := Render(tt.tpl, tt.sha, in)
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("Render = %v, %v; want *Error", p, err)
			}
			if pe.Reason != ReasonBuildFailed || pe.Field != tt.field || !strings.Contains(pe.Message, tt.msg) || pe.Advice == "" {
				t.Errorf("error %+v, want field %q and message containing %q", *pe, tt.field, tt.msg)
			}
		})
	}
}

func TestParseTemplateErrorsNeverEchoLongContent(t *testing.T) {
	long := strings.Repeat("s", 1000)
	_, err := parseTemplate([]byte(tplJSON(map[string]string{"schema": long})), "a.json")
	if err == nil || strings.Contains(err.Error(), long[:100]) {
		t.Errorf("error %v echoes the whole value", err)
	}
}

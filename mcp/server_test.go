package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/contextbuilder/cbtest"
	"github.com/ctxd/ctxd/index/indextest"
	"github.com/ctxd/ctxd/internal/testenv"
	"github.com/ctxd/ctxd/workspace"
	"github.com/ctxd/ctxd/workspace/markdown"
	"github.com/google/go-cmp/cmp"
	"github.com/gowebpki/jcs"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// shopWorkspace is a small Go module: a cart package used by main, a
// function Add defined twice (an ambiguous symbol), and a .env that must
// never reach an output.
const shopWorkspace = `
-- go.mod --
module example.com/shop

go 1.22
-- cart/cart.go --
// Package cart holds a shopping cart.
package cart

// Cart is a list of SKUs.
type Cart struct {
	Items []string
}

// Add appends a SKU.
func (c *Cart) Add(sku string) {
	c.Items = append(c.Items, sku)
}

// Len is the number of items.
func (c *Cart) Len() int { return len(c.Items) }
-- main.go --
package main

import "example.com/shop/cart"

func main() {
	var c cart.Cart
	c.Add("A-1")
	println(c.Len())
}
-- calc/add.go --
package calc

// Add adds.
func Add(a, b int) int { return a + b }
-- tax/add.go --
package tax

// Add adds a tax.
func Add(a, b int) int { return a + b*2 }
-- .env --
API_KEY=sk-mcp0test0secret0value0123456789abcdef
`

// envSecret is part of the .env value; no output may contain it.
const envSecret = "sk-mcp0test0secret"

func diffRequest(files []string, symbols ...string) map[string]any {
	step := map[string]any{"id": "step-1", "text": "count items twice"}
	if files != nil {
		step["target_files"] = files
	}
	if symbols != nil {
		step["target_symbols"] = symbols
	}
	return map[string]any{"purpose": "diff", "intent": map[string]any{"id": "i1", "text": "count items twice"}, "plan_step": step}
}

// TestToolsList: the eight tools, each with a description, an object
// input schema that names targets by path only, and an output schema.
func TestToolsList(t *testing.T) {
	s := start(t, indextest.WriteTree(t, shopWorkspace))
	res, err := s.cs.ListTools(s.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	byName := map[string]*sdk.Tool{}
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
		byName[tl.Name] = tl
	}
	want := []string{"budget", "build_context", "check_change", "find_references", "index_status", "list_files", "manifest", "read_file",
		"record_execution", "render_prompt", "search_symbols", "verify"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Fatalf("tools (-want +got):\n%s", diff)
	}
	type schemaShape struct {
		Type       string                     `json:"type"`
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	shape := func(v any) schemaShape {
		var sh schemaShape
		if err := json.Unmarshal(mustJSON(t, v), &sh); err != nil {
			t.Fatal(err)
		}
		return sh
	}
	keys := func(m map[string]json.RawMessage) []string {
		var out []string
		for k := range m {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	request := []string{"constraints", "correlation_id", "intent", "last_error", "model", "plan_step", "purpose", "skill", "thread", "user_selected_targets"}
	budget := []string{argMaxResultTokens}
	paged := []string{argMaxResultTokens, argPage}
	detailed := []string{argDetail, argMaxResultTokens, argPage}
	tests := []struct {
		tool         string
		wantInput    []string
		wantRequired []string
		readOnly     bool
	}{
		{"build_context", append(slices.Clone(request), detailed...), []string{"purpose"}, false},
		{"manifest", append([]string{"purpose"}, detailed...), []string{"purpose"}, true},
		{"budget", append([]string{"purpose"}, detailed...), []string{"purpose"}, true},
		{"render_prompt", append([]string{"purpose", "template_id"}, detailed...), []string{"purpose"}, false},
		{"record_execution", append([]string{"output", "thread_id", "turn_id"}, budget...), []string{"output", "thread_id", "turn_id"}, false},
		{"check_change", append([]string{"answer", "bundle_id", "thread_id", "turn_id"}, budget...), []string{"answer"}, false},
		{"verify", append([]string{"mode"}, paged...), nil, true},
		{"index_status", append([]string{"skipped"}, paged...), nil, true},
		{"search_symbols", append([]string{"kind", "limit", "query"}, paged...), []string{"query"}, true},
		{"find_references", append([]string{"limit", "path", "symbol"}, paged...), []string{"symbol"}, true},
		{"read_file", append([]string{"end_line", "path", "start_line"}, budget...), []string{"path"}, true},
		{"list_files", append([]string{"glob", "limit", "path"}, paged...), nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			tl := byName[tt.tool]
			slices.Sort(tt.wantInput)
			in := shape(tl.InputSchema)
			if in.Type != "object" || tl.OutputSchema != nil {
				t.Errorf("input schema type %q, output schema %v; want an object and none (results are fitted to a budget)", in.Type, tl.OutputSchema)
			}
			if diff := cmp.Diff(tt.wantInput, keys(in.Properties)); diff != "" {
				t.Errorf("input properties (-want +got):\n%s", diff)
			}
			slices.Sort(in.Required)
			if diff := cmp.Diff(tt.wantRequired, in.Required); diff != "" {
				t.Errorf("input required (-want +got):\n%s", diff)
			}
			if len(tl.Description) < 100 || tl.Title == "" {
				t.Errorf("description %q, title %q: want a description telling an agent when to call it", tl.Description, tl.Title)
			}
			if tl.Annotations == nil || tl.Annotations.ReadOnlyHint != tt.readOnly ||
				tl.Annotations.DestructiveHint == nil || *tl.Annotations.DestructiveHint ||
				tl.Annotations.OpenWorldHint == nil || *tl.Annotations.OpenWorldHint {
				t.Errorf("annotations %+v, want read-only %v, not destructive, closed world", tl.Annotations, tt.readOnly)
			}
			// Agents name targets by path: no URI or editor position
			// anywhere in an input schema; optional fields are absent,
			// never null.
			raw := string(mustJSON(t, tl.InputSchema))
			for _, field := range []string{`"active_file"`, `"selection"`, `"range"`, `"character"`, `"workspace_folder"`, `"null"`} {
				if strings.Contains(raw, field) {
					t.Errorf("input schema has %s", field)
				}
			}
		})
	}
	// build_context's schema describes the request once, for all.
	raw := string(mustJSON(t, byName["build_context"].InputSchema))
	for _, w := range []string{"target_files", "target_symbols", "user_selected_targets", "path:L1-L2", `"enum":["intent","plan","diff"]`} {
		if !strings.Contains(raw, w) {
			t.Errorf("build_context's input schema lacks %s", w)
		}
	}
	for _, w := range []string{"plan_step.target_files", "resource link", "max_result_tokens"} {
		if !strings.Contains(byName["build_context"].Description, w) {
			t.Errorf("build_context's description lacks %s", w)
		}
	}
	// The whole list costs a conversation little.
	if n := len(mustJSON(t, res)); n > 12*1024 {
		t.Errorf("tools/list is %d bytes, want at most 12 KiB", n)
	}
}

// TestBuildByPath builds the example workspace's store for a diff, by
// path, and checks every surface of the result: the outputs validate
// against the published schemas, the text is the bundle's Markdown, the
// never-send .env is excluded and never read, and the session's
// resources hold the bundle and manifest.
func TestBuildByPath(t *testing.T) {
	s := start(t, testenv.ExampleCopy(t))
	args := diffRequest([]string{"internal/store/store.go", ".env"}, "List")
	data := s.full("build_context", args)
	cbtest.Validate(t, "build_result.schema.json", data)

	var res contextbuilder.Result
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(res.Manifest.Selection.TargetFiles, "internal/store/store.go") {
		t.Errorf("target_files = %v", res.Manifest.Selection.TargetFiles)
	}
	if !slices.ContainsFunc(res.Manifest.Selection.ExcludedCandidates, func(e contextbuilder.Excluded) bool {
		return e.Path == ".env" && e.Reason == contextbuilder.ExcludeDenyRule
	}) {
		t.Errorf("excluded = %+v, want .env as deny_rule", res.Manifest.Selection.ExcludedCandidates)
	}
	// In full detail structuredContent is the canonical form the LSP
	// command replies with: re-canonicalizing it changes nothing; the
	// text is the bundle as Markdown, exactly as ctxd build prints it.
	canon, err := jcs.Transform(data)
	if err != nil {
		t.Fatal(err)
	}
	if want := res.AppendCanonical(nil); !bytes.Equal(canon, want) {
		t.Errorf("structuredContent is not the result's canonical JSON")
	}
	fullArgs := map[string]any{argDetail: detailFull, argMaxResultTokens: MaxResultTokens}
	for k, v := range args {
		fullArgs[k] = v
	}
	var md bytes.Buffer
	if err := markdown.Write(&md, &res); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(md.String(), texts(s.call("build_context", fullArgs))); diff != "" {
		t.Errorf("text content (-want +got):\n%s", diff)
	}

	// In summary detail (the default), the example's small bundle is
	// shown whole: every block's section is in the text, none is linked.
	sum := s.call("build_context", args)
	var got bundleSummary
	if err := json.Unmarshal(mustJSON(t, sum.StructuredContent), &got); err != nil {
		t.Fatal(err)
	}
	if got.BundleID != res.Bundle.BundleID || got.Blocks.Total != len(res.Bundle.Blocks) || got.Blocks.Shown != fmt.Sprintf("1-%d", got.Blocks.Total) || got.Blocks.Linked != 0 {
		t.Errorf("summary %+v, want bundle %s with all %d blocks shown", got, res.Bundle.BundleID, len(res.Bundle.Blocks))
	}
	for i := range res.Bundle.Blocks {
		if !strings.Contains(texts(sum), markdown.Block(&res.Bundle.Blocks[i])) {
			t.Errorf("block %d is not in the text", i+1)
		}
	}
	if got.Manifest.ExcludedByReason["deny_rule"] == 0 || got.Manifest.URI != bundleURI(got.BundleID, "manifest") {
		t.Errorf("manifest summary %+v", got.Manifest)
	}

	// The recorded bundle's parts are resources.
	for part, want := range map[string]string{
		"blocks/1":   markdown.Block(&res.Bundle.Blocks[0]),
		"blocks":     blockURI(res.Bundle.BundleID, len(res.Bundle.Blocks)),
		"manifest":   "excluded `.env`: deny_rule",
		"redactions": "path_excluded `.env`",
		"budget":     "decision ok",
	} {
		rr, err := s.cs.ReadResource(s.ctx, &sdk.ReadResourceParams{URI: bundleURI(res.Bundle.BundleID, part)})
		if err != nil {
			t.Fatalf("%s: %v", part, err)
		}
		if len(rr.Contents) != 1 || rr.Contents[0].MIMEType != "text/markdown" || !strings.Contains(rr.Contents[0].Text, want) {
			t.Errorf("%s = %.400v, want it to hold %q", part, rr.Contents, want)
		}
	}

	for _, tool := range []string{"manifest", "budget"} {
		cbtest.Validate(t, tool+"_result.schema.json", s.full(tool, args))
	}
	cbtest.Validate(t, "render_prompt_result.schema.json", s.full("render_prompt", args))
	cbtest.Validate(t, "index_status_result.schema.json", s.full("index_status", map[string]any{"skipped": true}))
	cbtest.Validate(t, "verify_report.schema.json", s.full("verify", nil))

	for _, o := range s.outputs {
		if strings.Contains(o, "not-a-real-password") {
			t.Fatal("the content of .env reached a result")
		}
	}
}

// TestSameFingerprintTwice: the same request twice gives the same bundle
// bytes (created_at is pinned) and the same fingerprints.
func TestSameFingerprintTwice(t *testing.T) {
	s := start(t, indextest.WriteTree(t, shopWorkspace))
	args := diffRequest([]string{"cart/cart.go"})
	first := s.full("build_context", args)
	second := s.full("build_context", args)
	if !bytes.Equal(member(t, first, "bundle"), member(t, second, "bundle")) {
		t.Error("two builds of the same request differ")
	}
	fp := func(data []byte) string {
		var m contextbuilder.Manifest
		if err := json.Unmarshal(member(t, data, "manifest"), &m); err != nil {
			t.Fatal(err)
		}
		return m.Fingerprints.BundleFingerprint
	}
	if fp(first) == "" || fp(first) != fp(second) {
		t.Errorf("bundle_fingerprint %q then %q", fp(first), fp(second))
	}
	manifest := s.ok("manifest", args)
	if fp(manifest) != fp(first) {
		t.Errorf("manifest's bundle_fingerprint %q, build's %q", fp(manifest), fp(first))
	}
}

// TestInvalidArguments: a malformed argument is a tool error whose text
// names the field, and the JSON text says invalid_arguments.
func TestInvalidArguments(t *testing.T) {
	s := start(t, indextest.WriteTree(t, shopWorkspace))
	rangeOf := map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 1, "character": 0}}
	tests := []struct {
		name, tool string
		args       any
		wantField  string
	}{
		{"no arguments", "build_context", nil, `"purpose"`},
		{"purpose missing", "budget", map[string]any{}, `"purpose"`},
		{"bad purpose", "build_context", map[string]any{"purpose": "poem"}, `"purpose"`},
		{"unknown field", "build_context", map[string]any{"purpose": "plan", "nope": 1}, "nope"},
		{"field in another case", "manifest", map[string]any{"Purpose": "plan"}, "Purpose"},
		{"plan step without id", "build_context", map[string]any{"purpose": "diff", "plan_step": map[string]any{"target_files": []string{"main.go"}}}, "plan_step.id"},
		{"target files not a list", "build_context", map[string]any{"purpose": "diff", "plan_step": map[string]any{"id": "s", "target_files": "main.go"}}, "target_files"},
		{"blank constraint", "build_context", map[string]any{"purpose": "plan", "constraints": []any{map[string]any{"scope": "user", "id": "c", "text": " "}}}, "constraints[0].text"},
		{"active file", "build_context", map[string]any{"purpose": "diff", "active_file": "file:///tmp/main.go"}, `"active_file"`},
		{"selection", "manifest", map[string]any{"purpose": "diff", "selection": map[string]any{"uri": "file:///tmp/main.go", "range": rangeOf}}, `"selection"`},
		{"last error range", "budget", map[string]any{"purpose": "plan", "last_error": map[string]any{"message": "boom", "range": rangeOf}}, `"last_error.range"`},
		{"template id not a string", "render_prompt", map[string]any{"purpose": "plan", "template_id": 5}, `"template_id"`},
		{"render prompt active file", "render_prompt", map[string]any{"purpose": "diff", "active_file": "file:///tmp/main.go"}, `"active_file"`},
		{"verify mode", "verify", map[string]any{"mode": "fast"}, `"mode"`},
		{"verify folder", "verify", map[string]any{"workspace_folder": "file:///tmp"}, `"workspace_folder"`},
		{"record without output", "record_execution", map[string]any{"thread_id": "t", "turn_id": "u", "output": 5}, "output"},
		{"record unknown field", "record_execution", map[string]any{"thread_id": "t", "turn_id": "u", "output": "x", "extra": true}, "extra"},
		{"index status skipped", "index_status", map[string]any{"skipped": "yes"}, "skipped"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := s.fails(tt.tool, tt.args)
			if !strings.Contains(e.text, tt.wantField) {
				t.Errorf("message %q does not name %s", e.text, tt.wantField)
			}
			var got map[string]toolError
			if err := json.Unmarshal(e.json, &got); err != nil {
				t.Fatalf("JSON text %s: %v", e.json, err)
			}
			if diff := cmp.Diff(map[string]toolError{"error": {Kind: kindInvalid, Message: e.text}}, got); diff != "" {
				t.Errorf("JSON text (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRefusals: refusals are tool errors carrying the code, message,
// advice and (for an ambiguous target) candidates, in the CLI's
// {"refusal": …} shape; a path outside the root is refused and never
// read.
func TestRefusals(t *testing.T) {
	parent := indextest.TempDir(t)
	root := filepath.Join(parent, "ws")
	writeTree(t, root, shopWorkspace)
	const outsideMarker = "OUTSIDE_MARKER_31f"
	if err := os.WriteFile(filepath.Join(parent, "outside.go"), []byte("package x // "+outsideMarker+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := start(t, root)
	tests := []struct {
		name     string
		args     map[string]any
		wantCode contextbuilder.RefusalCode
	}{
		{"relative path outside the root", diffRequest([]string{"../outside.go"}), contextbuilder.RefuseOutsideSandbox},
		{"absolute path outside the root", diffRequest([]string{filepath.Join(parent, "outside.go")}), contextbuilder.RefuseOutsideSandbox},
		{"never-send target", diffRequest([]string{".env"}), contextbuilder.RefuseUnsupportedTarget},
		{"missing target", diffRequest([]string{"nope.go"}), contextbuilder.RefuseTargetNotFound},
		{"too large", func() map[string]any {
			a := diffRequest([]string{"cart/cart.go"})
			a["model"] = map[string]any{"max_input_tokens": 60, "response_token_reserve": 10}
			return a
		}(), contextbuilder.RefuseContextTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, tool := range []string{"build_context", "manifest"} {
				r, text := s.refusal(tool, tt.args)
				if r.Code != tt.wantCode || r.Message == "" || r.Advice == "" {
					t.Errorf("%s: refusal %s %q advice %q, want %s with a message and advice", tool, r.Code, r.Message, r.Advice, tt.wantCode)
				}
				for _, w := range []string{string(tt.wantCode), "advice: "} {
					if !strings.Contains(text, w) {
						t.Errorf("%s: text %q lacks %q", tool, text, w)
					}
				}
				if cliFlag.MatchString(r.Advice) || strings.Contains(r.Advice, "active_file") {
					t.Errorf("%s: advice %q names a CLI flag or an editor field", tool, r.Advice)
				}
				// In full detail the JSON text is the CLI's refusal.
				cbtest.Validate(t, "cli_refusal.schema.json", s.fails(tool, withFull(tt.args)).json)
			}
		})
	}
	for _, o := range s.outputs {
		if strings.Contains(o, outsideMarker) {
			t.Fatal("a file outside the root reached a result")
		}
		if strings.Contains(o, envSecret) {
			t.Fatal("the never-send .env reached a result")
		}
	}
	if strings.Contains(s.logs.String(), outsideMarker) {
		t.Fatal("a file outside the root reached the log")
	}
}

// writeTree writes a txtar archive's files under dir.
func writeTree(t *testing.T, dir, archive string) {
	t.Helper()
	src := indextest.WriteTree(t, archive)
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
}

// TestAmbiguousTargetRetry: an ambiguous symbol is refused with its
// candidates, and the retry an agent makes with one of them in
// user_selected_targets builds.
func TestAmbiguousTargetRetry(t *testing.T) {
	s := start(t, indextest.WriteTree(t, shopWorkspace))
	args := diffRequest(nil, "Add")
	r, text := s.refusal("build_context", args)
	if r.Code != contextbuilder.RefuseAmbiguousTarget {
		t.Fatalf("code %s, want %s", r.Code, contextbuilder.RefuseAmbiguousTarget)
	}
	var paths []string
	for _, c := range r.Candidates {
		paths = append(paths, c.Path)
	}
	// The method Cart.Add is an Add too.
	if diff := cmp.Diff([]string{"calc/add.go", "cart/cart.go", "tax/add.go"}, paths); diff != "" {
		t.Fatalf("candidates (-want +got):\n%s", diff)
	}
	for _, w := range []string{"candidates", `{"path":"calc/add.go","symbol":"Add"}`, `{"path":"cart/cart.go","symbol":"Cart.Add"}`, `{"path":"tax/add.go","symbol":"Add"}`, "user_selected_targets"} {
		if !strings.Contains(text, w) {
			t.Errorf("text %q lacks %q", text, w)
		}
	}
	// The candidate's range is the declaration's: 0-based line, byte
	// column (index_status reports the "utf-8" encoding).
	if c := r.Candidates[0]; c.Range.Start.Line != 3 || c.Range.Start.Character != 0 {
		t.Errorf("candidate range %+v, want line 3 (0-based), character 0", c.Range)
	}
	args["user_selected_targets"] = []map[string]string{{"path": r.Candidates[2].Path, "symbol": r.Candidates[2].Symbol}}
	data := s.full("build_context", args)
	var res contextbuilder.Result
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(res.Manifest.Selection.TargetFiles, "tax/add.go") || slices.Contains(res.Manifest.Selection.TargetFiles, "calc/add.go") {
		t.Errorf("target_files = %v, want tax/add.go only", res.Manifest.Selection.TargetFiles)
	}
}

// TestNewTargetFile: a file an agent writes after the server started is
// read from disk when a build names it, as an editor's watcher would
// report it.
func TestNewTargetFile(t *testing.T) {
	root := indextest.WriteTree(t, shopWorkspace)
	s := start(t, root)
	if _, err := s.srv.svc.Index().WaitListed(s.ctx); err != nil {
		t.Fatal(err)
	}
	const marker = "NEW_FILE_MARKER_77"
	if err := os.WriteFile(filepath.Join(root, "cart", "discount.go"), []byte("package cart\n\n// Discount is "+marker+".\nfunc Discount() int { return 1 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	data := s.full("build_context", diffRequest([]string{"cart/discount.go:3-4"}))
	if !strings.Contains(string(data), marker) {
		t.Errorf("the new file is not in the bundle: %.400s", data)
	}
}

// leakWorkspace plants secrets in files a build reads (redacted) and in a
// never-send .env, and content markers that may appear in bundle blocks
// only, never in a log.
const leakWorkspace = `
-- go.mod --
module example.com/leak
-- main.go --
package main

import "example.com/leak/config"

// CONTENT_MARKER_MAIN_5d2 says hello.
func main() { println(config.Settings()) }
-- config/settings.go --
package config

const password = "p@ss-LEAK-1"

const apiKey = "sk-LEAKabcdefghijklmnopqrstuvwxyz0123456789"

// Settings returns CONTENT_MARKER_CFG_8e1.
func Settings() string { return password + apiKey }
-- .env --
DATABASE_URL=postgres://admin:LEAKPASS-ENV-5@db.example.com:5432/app
AWS_ACCESS_KEY_ID=AKIALEAKEXAMPLE7XYZ
`

var (
	leakSecrets = []string{"p@ss-LEAK-1", "sk-LEAKabcdefghijklmnopqrstuvwxyz0123456789", "LEAKPASS-ENV-5", "AKIALEAKEXAMPLE7XYZ"}
	leakMarkers = []string{"CONTENT_MARKER_MAIN_5d2", "CONTENT_MARKER_CFG_8e1"}
)

// TestSecretsNeverLeak runs every tool, resource and prompt on a
// workspace full of planted secrets: no secret appears in any result,
// error or log, file contents appear in no log, and the secrets of the
// files a bundle shows are redacted.
func TestSecretsNeverLeak(t *testing.T) {
	s := start(t, indextest.WriteTree(t, leakWorkspace))
	args := diffRequest([]string{"main.go", "config/settings.go"})
	args["thread"] = map[string]any{"thread_id": "th-1", "turn_id": "turn-1"}
	bundle := string(s.full("build_context", args))
	if !strings.Contains(bundle, "[REDACTED:") || !strings.Contains(bundle, "CONTENT_MARKER_CFG_8e1") {
		t.Errorf("the bundle does not show config/settings.go redacted: %.600s", bundle)
	}
	s.ok("manifest", args)
	s.ok("budget", args)
	s.ok("render_prompt", args)
	s.ok("record_execution", map[string]any{"thread_id": "th-1", "turn_id": "turn-1", "output": "--- a/main.go\n+++ b/main.go\n"})
	s.ok("verify", map[string]any{"mode": "ledger"})
	s.ok("index_status", map[string]any{"skipped": true})
	s.refusal("build_context", diffRequest([]string{".env"}))
	s.refusal("build_context", diffRequest([]string{"config/settings.go"}, "password", "Nope"))
	// The agent tools read inside the same boundary.
	if text := texts(s.call("read_file", map[string]any{"path": "config/settings.go"})); !strings.Contains(text, "[REDACTED:") || !strings.Contains(text, "CONTENT_MARKER_CFG_8e1") {
		t.Errorf("read_file of config/settings.go is not redacted: %.400s", text)
	}
	for path, code := range map[string]contextbuilder.RefusalCode{".env": contextbuilder.RefuseUnsupportedTarget, "../outside.go": contextbuilder.RefuseOutsideSandbox, "/etc/passwd": contextbuilder.RefuseOutsideSandbox} {
		if r, text := s.refusal("read_file", map[string]any{"path": path}); r.Code != code || !strings.Contains(text, string(code)) {
			t.Errorf("read_file %s: refusal %s, want %s", path, r.Code, code)
		}
	}
	var listed workspace.ListFilesResult
	if err := json.Unmarshal(s.ok("list_files", nil), &listed); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(listed.Excluded, func(e workspace.ExcludedPath) bool { return e.Path == ".env" && e.Rule != "" }) {
		t.Errorf("list_files does not name .env as excluded with its rule: %+v", listed.Excluded)
	}
	var found workspace.SearchSymbolsResult
	if err := json.Unmarshal(s.ok("search_symbols", map[string]any{"query": "Settings"}), &found); err != nil {
		t.Fatal(err)
	}
	if len(found.Symbols) == 0 || found.Symbols[0].Path != "config/settings.go" {
		t.Errorf("search_symbols Settings: %+v", found.Symbols)
	}
	var refs workspace.FindReferencesResult
	if err := json.Unmarshal(s.ok("find_references", map[string]any{"symbol": "Settings"}), &refs); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(refs.References, func(r workspace.Reference) bool { return r.Path == "main.go" }) {
		t.Errorf("find_references Settings: %+v, want the call in main.go", refs.References)
	}
	s.fails("build_context", map[string]any{"purpose": "diff", "plan_step": map[string]any{"id": "s", "target_files": []string{"main.go"}}, "skill": 3})
	var sum bundleSummary
	if err := json.Unmarshal(s.ok("build_context", args), &sum); err != nil {
		t.Fatal(err)
	}
	parts := []string{"blocks", "manifest", "redactions", "budget"}
	for n := 1; n <= sum.Blocks.Total; n++ {
		parts = append(parts, "blocks/"+strconv.Itoa(n))
	}
	for _, part := range parts {
		rr, err := s.cs.ReadResource(s.ctx, &sdk.ReadResourceParams{URI: bundleURI(sum.BundleID, part)})
		if err != nil {
			t.Fatal(err)
		}
		s.outputs = append(s.outputs, rr.Contents[0].Text)
	}
	gp, err := s.cs.GetPrompt(s.ctx, &sdk.GetPromptParams{Name: "default-diff", Arguments: map[string]string{"target_files": "config/settings.go"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range gp.Messages {
		s.outputs = append(s.outputs, m.Content.(*sdk.TextContent).Text)
	}
	if _, err := s.cs.GetPrompt(s.ctx, &sdk.GetPromptParams{Name: "default-diff", Arguments: map[string]string{"target_files": ".env"}}); err == nil {
		t.Error("a prompt of the never-send .env was rendered")
	} else {
		s.outputs = append(s.outputs, err.Error())
	}

	logs := s.logs.String()
	for _, secret := range leakSecrets {
		for _, o := range s.outputs {
			if strings.Contains(o, secret) {
				t.Errorf("secret %q reached a result: %.300s", secret, o)
			}
		}
		if strings.Contains(logs, secret) {
			t.Errorf("secret %q reached the log", secret)
		}
	}
	for _, marker := range leakMarkers {
		if strings.Contains(logs, marker) {
			t.Errorf("file content %q reached the log", marker)
		}
	}
	if !strings.Contains(logs, "level=DEBUG") {
		t.Error("no debug log: the log check checked nothing")
	}
}

// TestThreadRecordAndVerify: a thread's turn is built, its output
// recorded and brought back by the next turn, and the records verify; an
// output for a turn never built is refused with the ledger's code.
func TestThreadRecordAndVerify(t *testing.T) {
	s := start(t, indextest.WriteTree(t, shopWorkspace))
	first := diffRequest([]string{"cart/cart.go"})
	first["thread"] = map[string]any{"thread_id": "th-1", "turn_id": "turn-1"}
	s.ok("build_context", first)
	var rec struct {
		RefID string `json:"ref_id"`
	}
	if err := json.Unmarshal(s.ok("record_execution", map[string]any{"thread_id": "th-1", "turn_id": "turn-1", "output": "PREVIOUS_ATTEMPT_MARKER"}), &rec); err != nil {
		t.Fatal(err)
	}
	if rec.RefID != "execution:turn-1" {
		t.Errorf("ref_id %q, want execution:turn-1", rec.RefID)
	}
	// A turn records one output; the output is required; errors name JSON
	// fields, never Go types.
	if r, _ := s.refusal("record_execution", map[string]any{"thread_id": "th-1", "turn_id": "turn-1", "output": "again"}); r.Code != workspace.CodeDuplicateExecution {
		t.Errorf("second record of a turn: code %s, want %s", r.Code, workspace.CodeDuplicateExecution)
	}
	for args, want := range map[string]string{
		`{"thread_id": "th-1", "turn_id": "turn-1"}`:                 `field "output" is required`,
		`{"thread_id": 5, "turn_id": "turn-1", "output": "x"}`:       `field "thread_id": expected a string`,
		`{"thread_id": "th-1", "turn_id": "turn-1", "output": null}`: `field "output" is required`,
	} {
		if e := s.fails("record_execution", json.RawMessage(args)); !strings.Contains(e.text, want) {
			t.Errorf("record_execution %s: %q, want %q", args, e.text, want)
		}
	}
	second := diffRequest([]string{"cart/cart.go"})
	second["thread"] = map[string]any{"thread_id": "th-1", "turn_id": "turn-2", "parent_turn_id": "turn-1", "declared_refs": []string{"intent:turn-1", "execution:turn-1"}}
	if data := s.full("build_context", second); !strings.Contains(string(data), "PREVIOUS_ATTEMPT_MARKER") {
		t.Error("the recorded output is not in the next turn's bundle")
	}
	r, _ := s.refusal("record_execution", map[string]any{"thread_id": "th-1", "turn_id": "never", "output": "x"})
	if r.Code != "REF_NOT_FOUND" {
		t.Errorf("code %s, want REF_NOT_FOUND", r.Code)
	}
	for _, mode := range []string{"stream", "ledger"} {
		var rep struct {
			OK bool `json:"ok"`
		}
		if err := json.Unmarshal(s.ok("verify", map[string]any{"mode": mode}), &rep); err != nil || !rep.OK {
			t.Errorf("verify %s: ok %v (%v)", mode, rep.OK, err)
		}
	}
}

// TestPanicKeepsServing: a tool that panics answers an internal tool
// error without the panic's text, and the server keeps serving.
func TestPanicKeepsServing(t *testing.T) {
	srv, logs := newServer(t, indextest.WriteTree(t, shopWorkspace))
	err := srv.addTool(tool{
		name: "boom", title: "panics", readOnly: true,
		in: indexStatusSchema,
		call: func(context.Context, *Server, json.RawMessage, resultArgs) (*sdk.CallToolResult, error) {
			panic("PANIC_DETAIL_5")
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	s := connect(t, srv, logs)
	e := s.fails("boom", nil)
	if !strings.Contains(e.text, "internal error in boom") || strings.Contains(e.text, "PANIC_DETAIL_5") {
		t.Errorf("text %q, want an internal error without the panic's text", e.text)
	}
	if !strings.Contains(logs.String(), "PANIC_DETAIL_5") {
		t.Error("the panic is not in the log")
	}
	s.ok("index_status", nil)
}

// TestBundleResourcesUnknown: a bundle's parts are one resource
// template; a bundle never recorded, a block out of range or an unknown
// part is not found, with a message that says what exists.
func TestBundleResourcesUnknown(t *testing.T) {
	s := start(t, indextest.WriteTree(t, shopWorkspace))
	res, err := s.cs.ListResourceTemplates(s.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.ResourceTemplates) != 1 || res.ResourceTemplates[0].URITemplate != bundleTemplate {
		t.Errorf("templates %+v, want %s", res.ResourceTemplates, bundleTemplate)
	}
	var sum bundleSummary
	if err := json.Unmarshal(s.ok("build_context", diffRequest([]string{"cart/cart.go"})), &sum); err != nil {
		t.Fatal(err)
	}
	for uri, want := range map[string]string{
		bundleURI("00000000-0000-0000-0000-000000000000", "blocks"): "no bundle",
		bundleURI(sum.BundleID, "blocks", "999"):                    "has blocks 1 to",
		bundleURI(sum.BundleID, "blocks", "1", "pages", "9"):        "has 1 pages",
		bundleURI(sum.BundleID, "secrets"):                          "a bundle's parts are",
	} {
		if _, err := s.cs.ReadResource(s.ctx, &sdk.ReadResourceParams{URI: uri}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error saying %q", uri, err, want)
		}
	}
}

// TestPrompts: the prompt templates are MCP prompts, rendered with a
// fresh bundle; a bad argument or a refusal is a JSON-RPC error.
func TestPrompts(t *testing.T) {
	s := start(t, testenv.ExampleCopy(t))
	res, err := s.cs.ListPrompts(s.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range res.Prompts {
		names = append(names, p.Name)
	}
	if diff := cmp.Diff([]string{"default-diff", "default-intent", "default-plan"}, names); diff != "" {
		t.Errorf("prompts (-want +got):\n%s", diff)
	}
	gp, err := s.cs.GetPrompt(s.ctx, &sdk.GetPromptParams{Name: "default-diff", Arguments: map[string]string{
		"target_files": "internal/store/store.go", "target_symbols": "List", "intent": "sort the items by name"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(gp.Messages) != 2 || gp.Messages[0].Role != "user" || gp.Messages[1].Role != "user" {
		t.Fatalf("messages %+v, want two user messages", gp.Messages)
	}
	system, user := gp.Messages[0].Content.(*sdk.TextContent).Text, gp.Messages[1].Content.(*sdk.TextContent).Text
	if !strings.Contains(system, "internal/store/store.go") || !strings.Contains(user, "sort the items by name") {
		t.Errorf("system message %.200q, user message %.200q", system, user)
	}
	tests := []struct {
		name string
		args map[string]string
		want string
	}{
		{"unknown argument", map[string]string{"target_files": "main.go", "colour": "red"}, `"colour"`},
		{"refused", map[string]string{"target_files": "nope.go"}, "REFUSE_TARGET_NOT_FOUND"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.cs.GetPrompt(s.ctx, &sdk.GetPromptParams{Name: "default-diff", Arguments: tt.args})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one naming %s", err, tt.want)
			}
		})
	}
}

// TestSchemaPatchesFollowTheGoTypes: a patch of a property the Go type no
// longer has fails the schema's construction instead of being lost, and
// every tool's schemas build.
func TestSchemaPatchesFollowTheGoTypes(t *testing.T) {
	for _, tl := range tools {
		if _, err := tl.in(); err != nil {
			t.Errorf("%s: input schema: %v", tl.name, err)
		}
	}
	s, err := buildRequestSchema()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		p    patch
		want string
	}{
		{"describe a missing property", patch{path: "plan_step.target_dirs", description: "x"}, `no property "target_dirs"`},
		{"drop a missing property", patch{path: "active_file", drop: true}, `no property "active_file"`},
		{"enum under a missing parent", patch{path: "nope.scope", enum: []any{"a"}}, `no property "nope"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := apply(s, []patch{tt.p}); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("apply = %v, want an error with %s", err, tt.want)
			}
		})
	}
}

// TestCheckChange: check_change accepts a diff of a file the bundle
// carried, answers a rejection as a result with the error_context for
// the retry (not a tool error), and writes nothing.
func TestCheckChange(t *testing.T) {
	root := indextest.WriteTree(t, shopWorkspace)
	s := start(t, root)
	var built struct {
		Bundle struct {
			BundleID string `json:"bundle_id"`
		} `json:"bundle"`
	}
	if err := json.Unmarshal(s.full("build_context", diffRequest([]string{"cart/cart.go"})), &built); err != nil {
		t.Fatal(err)
	}
	diff := "--- a/cart/cart.go\n+++ b/cart/cart.go\n@@ @@\n // Add appends a SKU.\n func (c *Cart) Add(sku string) {\n-\tc.Items = append(c.Items, sku)\n+\tc.Items = append(c.Items, sku, sku)\n }\n"
	type verdict struct {
		Status   string `json:"status"`
		BundleID string `json:"bundle_id"`
		Files    []struct {
			Path        string  `json:"path"`
			SHA256After *string `json:"sha256_after"`
		} `json:"files"`
		Failure *struct {
			Code         string `json:"code"`
			ErrorContext struct {
				Message string `json:"message"`
			} `json:"error_context"`
		} `json:"failure"`
	}
	var ok verdict
	if err := json.Unmarshal(s.ok("check_change", map[string]any{"answer": diff, "bundle_id": built.Bundle.BundleID}), &ok); err != nil {
		t.Fatal(err)
	}
	if ok.Status != "accepted" || ok.BundleID != built.Bundle.BundleID || len(ok.Files) != 1 || ok.Files[0].Path != "cart/cart.go" || ok.Files[0].SHA256After == nil {
		t.Errorf("verdict %+v", ok)
	}
	var rej verdict
	if err := json.Unmarshal(s.ok("check_change", map[string]any{"answer": strings.ReplaceAll(diff, "Add appends", "Add adds")}), &rej); err != nil {
		t.Fatal(err)
	}
	if rej.Status != "rejected" || rej.Failure == nil || rej.Failure.Code != "CHANGE_CONTEXT_MISMATCH" || !strings.Contains(rej.Failure.ErrorContext.Message, "Add appends a SKU") {
		t.Errorf("rejection %+v", rej)
	}
	data, err := os.ReadFile(filepath.Join(root, "cart", "cart.go"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "sku, sku") {
		t.Error("check_change wrote the change")
	}
	if e := s.fails("check_change", map[string]any{"answer": diff, "workspace_folder": "file:///x"}); !strings.Contains(e.text, "workspace_folder") {
		t.Errorf("a folder choice: %s", e.text)
	}
}

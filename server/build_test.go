package server

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/contextbuilder/cbtest"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/index/indextest"
	"github.com/ctxd/ctxd/server/lsptest"
	"github.com/google/go-cmp/cmp"
)

// The context commands over LSP: ctxd.buildContext, ctxd.manifest and
// ctxd.budget decode their request strictly, wait for the index, build
// from the editor's buffers, and send refusals as -32803 with data.

const buildWorkspace = `
-- go.mod --
module example.com/shop
-- store/store.go --
package store

// Store keeps items.
type Store struct {
	items map[string]int
}

// Get returns an item.
func (s *Store) Get(name string) int { return s.items[name] }
`

// storeBuffer is store/store.go as the editor holds it: unsaved, with a
// method the disk does not have.
const storeBuffer = `package store

// Store keeps items.
type Store struct {
	items map[string]int
}

// Get returns an item.
func (s *Store) Get(name string) int { return s.items[name] }

// Put stores an item. BUFFER_ONE
func (s *Store) Put(name string, n int) { s.items[name] = n }
`

// buildHarness is a harness initialized on a workspace written from a
// txtar archive, with the given position encoding ("" offers none).
type buildHarness struct {
	*harness
	dir  string
	next int // next request id
}

func newBuildHarness(t *testing.T, archive, encoding string, setup ...func(*Server)) (*buildHarness, *lsptest.Message) {
	t.Helper()
	dir := indextest.WriteTree(t, archive)
	h := &buildHarness{harness: newHarness(t, setup...), dir: dir, next: 100}
	caps := map[string]any{}
	if encoding != "" {
		caps["general"] = map[string]any{"positionEncodings": []string{encoding}}
	}
	m := h.call(1, "initialize", map[string]any{
		"processId":        nil,
		"workspaceFolders": []map[string]any{{"uri": index.PathToURI(dir), "name": "shop"}},
		"capabilities":     caps,
	})
	if m.Error != nil {
		t.Fatal(m.Error)
	}
	h.notify("initialized", map[string]any{})
	return h, m
}

func (h *buildHarness) uri(rel string) string { return index.PathToURI(filepath.Join(h.dir, rel)) }

// command calls a ctxd command with req as arguments[0].
func (h *buildHarness) command(name string, req any) *lsptest.Message {
	h.t.Helper()
	h.next++
	return h.call(h.next, "workspace/executeCommand", map[string]any{"command": name, "arguments": []any{req}})
}

// result calls a command that must succeed, validates its result against
// the schema and decodes it into v.
func (h *buildHarness) result(name, schema string, req, v any) {
	h.t.Helper()
	cbtest.ValidateValue(h.t, "build_request.schema.json", req)
	m := h.command(name, req)
	if m.Error != nil {
		h.t.Fatalf("%s: %v (data %s)", name, m.Error, m.Error.Data)
	}
	cbtest.ValidateValue(h.t, schema, m.Result)
	if err := json.Unmarshal(m.Result, v); err != nil {
		h.t.Fatalf("%s: decoding %s: %v", name, m.Result, err)
	}
}

func (h *buildHarness) build(req any) *contextbuilder.Result {
	h.t.Helper()
	var r contextbuilder.Result
	h.result("ctxd.buildContext", "build_result.schema.json", req, &r)
	return &r
}

func (h *buildHarness) open(rel, text string) {
	h.t.Helper()
	h.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": h.uri(rel), "languageId": "go", "version": 1, "text": text,
	}})
}

// selectionOf is the LSP range of the first occurrence of needle in text,
// in the given encoding.
func selectionOf(t *testing.T, text, needle, encoding string) map[string]any {
	t.Helper()
	i := strings.Index(text, needle)
	if i < 0 {
		t.Fatalf("%q not in the text", needle)
	}
	return rangeAt(text, i, i+len(needle), encoding)
}

// rangeAt converts byte offsets to an LSP range in the given encoding.
func rangeAt(text string, start, end int, encoding string) map[string]any {
	pos := func(off int) map[string]any {
		line := strings.Count(text[:off], "\n")
		prefix := text[strings.LastIndex(text[:off], "\n")+1 : off]
		var char int
		switch encoding {
		case "utf-8":
			char = len(prefix)
		case "utf-32":
			char = utf8.RuneCountInString(prefix)
		default:
			char = len(utf16.Encode([]rune(prefix)))
		}
		return map[string]any{"line": line, "character": char}
	}
	return map[string]any{"start": pos(start), "end": pos(end)}
}

// fileBlock returns the content of the file block of path; it fails the
// test when there is none.
func fileBlock(t *testing.T, r *contextbuilder.Result, path string) contextbuilder.Block {
	t.Helper()
	for _, b := range r.Bundle.Blocks {
		if b.BlockType == contextbuilder.BlockFile && b.Meta.Path != nil && *b.Meta.Path == path {
			return b
		}
	}
	t.Fatalf("no file block for %s in %d blocks", path, len(r.Bundle.Blocks))
	return contextbuilder.Block{}
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func TestContextCommandsAdvertised(t *testing.T) {
	_, m := newBuildHarness(t, buildWorkspace, "")
	var init struct {
		Capabilities struct {
			ExecuteCommandProvider struct{ Commands []string }
		}
	}
	if err := json.Unmarshal(m.Result, &init); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"ctxd.buildContext", "ctxd.manifest", "ctxd.budget"} {
		if !slices.Contains(init.Capabilities.ExecuteCommandProvider.Commands, name) {
			t.Errorf("executeCommandProvider.commands = %v, missing %s", init.Capabilities.ExecuteCommandProvider.Commands, name)
		}
	}
}

// TestBuildContextUsesEditorBuffer builds right after initialized (the
// index is awaited), then from an unsaved buffer, then after an edit; the
// manifest and budget commands agree with the build.
func TestBuildContextUsesEditorBuffer(t *testing.T) {
	h, _ := newBuildHarness(t, buildWorkspace, "")
	uri := h.uri("store/store.go")
	disk := strings.SplitN(buildWorkspace, "-- store/store.go --\n", 2)[1]

	// Before didOpen the file comes from the disk, once the scan is done.
	r := h.build(map[string]any{
		"purpose": "diff", "correlation_id": "00000000-0000-4000-8000-000000000001", "active_file": uri,
		"selection": map[string]any{"uri": uri, "range": selectionOf(t, disk, "Get(name", "utf-16")},
	})
	if got := r.Manifest.Selection.TargetSymbols; !slices.Equal(got, []string{"Store.Get"}) {
		t.Errorf("target_symbols from disk = %v, want [Store.Get]", got)
	}
	if b := fileBlock(t, r, "store/store.go"); strings.Contains(b.Content, "BUFFER_ONE") || b.Meta.Hash == nil || *b.Meta.Hash != sha(disk) {
		t.Errorf("block from disk: hash %v, want %s; content %q", b.Meta.Hash, sha(disk), b.Content)
	}

	// The open buffer replaces the disk.
	h.open("store/store.go", storeBuffer)
	const corr = "00000000-0000-4000-8000-000000000002"
	req := map[string]any{
		"purpose": "diff", "correlation_id": corr, "active_file": uri,
		"selection": map[string]any{"uri": uri, "range": selectionOf(t, storeBuffer, "Put(name", "utf-16")},
	}
	first := h.build(req)
	if got := first.Manifest.Selection.TargetFiles; !slices.Equal(got, []string{"store/store.go"}) {
		t.Errorf("target_files = %v", got)
	}
	if got := first.Manifest.Selection.TargetSymbols; !slices.Equal(got, []string{"Store.Put"}) {
		t.Errorf("target_symbols = %v, want [Store.Put]", got)
	}
	b := fileBlock(t, first, "store/store.go")
	if !strings.Contains(b.Content, "BUFFER_ONE") || !strings.Contains(b.Content, "func (s *Store) Put(") {
		t.Errorf("target block does not hold the editor's buffer: %q", b.Content)
	}
	if b.Meta.Hash == nil || *b.Meta.Hash != sha(storeBuffer) {
		t.Errorf("target block hash = %v, want the buffer's %s", b.Meta.Hash, sha(storeBuffer))
	}
	if first.Bundle.CorrelationID != corr || first.Manifest.CorrelationID != corr {
		t.Errorf("correlation_id not echoed: bundle %q, manifest %q", first.Bundle.CorrelationID, first.Manifest.CorrelationID)
	}

	// Same inputs, same bundle (INV-CONTEXT-2).
	again := h.build(req)
	if again.Manifest.Fingerprints != first.Manifest.Fingerprints || again.Bundle.BundleID != first.Bundle.BundleID {
		t.Errorf("rebuild without changes: fingerprints %+v, then %+v", first.Manifest.Fingerprints, again.Manifest.Fingerprints)
	}

	// ctxd.manifest is the build without blocks: the same manifest and reports.
	var man map[string]json.RawMessage
	h.result("ctxd.manifest", "manifest_result.schema.json", req, &man)
	if _, ok := man["bundle"]; ok {
		t.Error("ctxd.manifest returned a bundle")
	}
	for key, want := range map[string]any{"manifest": first.Manifest, "redaction_report": first.RedactionReport, "budget_report": first.BudgetReport} {
		wantJSON, _ := json.Marshal(want)
		if diff := cmp.Diff(decodeAny(t, wantJSON), decodeAny(t, man[key])); diff != "" {
			t.Errorf("ctxd.manifest %s differs from ctxd.buildContext's (-build +manifest):\n%s", key, diff)
		}
	}

	// ctxd.budget reports what the build would cost.
	var bud contextbuilder.BudgetResult
	h.result("ctxd.budget", "budget_result.schema.json", req, &bud)
	if bud.BudgetReport.Decision != first.BudgetReport.Decision || bud.BudgetReport.EstimatedInputTokens != first.BudgetReport.EstimatedInputTokens {
		t.Errorf("budget_report = %+v, build's = %+v", bud.BudgetReport, first.BudgetReport)
	}
	if bud.Counts.TargetFiles != 1 || bud.Counts.Files < 1 || bud.Counts.Blocks[contextbuilder.P0] < 1 {
		t.Errorf("counts = %+v", bud.Counts)
	}
	for _, p := range []contextbuilder.Priority{contextbuilder.P0, contextbuilder.P1, contextbuilder.P2, contextbuilder.P3} {
		if _, ok := bud.Counts.Blocks[p]; !ok {
			t.Errorf("counts.blocks has no %s: %v", p, bud.Counts.Blocks)
		}
	}

	// An edit is reflected at once and changes the fingerprints.
	h.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"range": selectionOf(t, storeBuffer, "BUFFER_ONE", "utf-16"), "text": "BUFFER_TWO"}},
	})
	edited := strings.Replace(storeBuffer, "BUFFER_ONE", "BUFFER_TWO", 1)
	second := h.build(req)
	b = fileBlock(t, second, "store/store.go")
	if !strings.Contains(b.Content, "BUFFER_TWO") || strings.Contains(b.Content, "BUFFER_ONE") {
		t.Errorf("target block after the edit: %q", b.Content)
	}
	if b.Meta.Hash == nil || *b.Meta.Hash != sha(edited) {
		t.Errorf("target block hash after the edit = %v, want %s", b.Meta.Hash, sha(edited))
	}
	f1, f2 := first.Manifest.Fingerprints, second.Manifest.Fingerprints
	if f1.BundleFingerprint == f2.BundleFingerprint || f1.ProjectIndexFingerprint == f2.ProjectIndexFingerprint {
		t.Errorf("fingerprints unchanged by the edit: %+v", f2)
	}
	if f1.ConfigFingerprint != f2.ConfigFingerprint {
		t.Errorf("config_fingerprint changed by an edit: %s → %s", f1.ConfigFingerprint, f2.ConfigFingerprint)
	}
	if second.Bundle.BundleID == first.Bundle.BundleID {
		t.Error("bundle_id unchanged by the edit")
	}
}

func decodeAny(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("decoding %s: %v", data, err)
	}
	return v
}

// TestBuildContextRefusal: a target that cannot fit is refused with
// -32803 and the refusal as data; ctxd.budget reports the same selection
// as refuse_hard_limit instead of failing. No file content reaches the
// error.
func TestBuildContextRefusal(t *testing.T) {
	h, _ := newBuildHarness(t, buildWorkspace, "")
	uri := h.uri("store/store.go")
	var big strings.Builder
	big.WriteString(storeBuffer)
	for i := range 200 {
		fmt.Fprintf(&big, "\n// Get%d returns item %d. CONTENT_MARKER\nfunc (s *Store) Get%d() int { return s.items[\"k%d\"] + %d }\n", i, i, i, i, i)
	}
	h.open("store/store.go", big.String())
	req := map[string]any{
		"purpose": "diff", "active_file": uri,
		"selection": map[string]any{"uri": uri, "range": selectionOf(t, big.String(), "Get150", "utf-16")},
		"model":     map[string]any{"max_input_tokens": 60, "max_output_tokens": 10, "response_token_reserve": 10},
	}

	m := h.command("ctxd.buildContext", req)
	if m.Error == nil {
		t.Fatalf("ctxd.buildContext of a target far above 50 tokens succeeded: %.300s", m.Result)
	}
	if m.Error.Code != -32803 {
		t.Fatalf("error = %d %q, want -32803", m.Error.Code, m.Error.Message)
	}
	cbtest.ValidateValue(t, "refusal.schema.json", m.Error.Data)
	var ref contextbuilder.Refusal
	if err := json.Unmarshal(m.Error.Data, &ref); err != nil {
		t.Fatalf("error data %s: %v", m.Error.Data, err)
	}
	if ref.Code != contextbuilder.RefuseContextTooLarge || ref.Message == "" || ref.Advice == "" {
		t.Errorf("refusal = %+v", ref)
	}
	if ref.BudgetReport == nil || ref.BudgetReport.Decision != contextbuilder.DecisionRefuse || ref.BudgetReport.HardLimitTokens != 50 {
		t.Errorf("refusal budget_report = %+v", ref.BudgetReport)
	}
	if want := string(ref.Code) + ": " + ref.Message; m.Error.Message != want {
		t.Errorf("error message = %q, want %q", m.Error.Message, want)
	}
	if strings.Contains(m.Error.Message, "CONTENT_MARKER") || strings.Contains(string(m.Error.Data), "CONTENT_MARKER") {
		t.Error("the refusal carries file contents")
	}

	var bud contextbuilder.BudgetResult
	h.result("ctxd.budget", "budget_result.schema.json", req, &bud)
	if bud.BudgetReport.Decision != contextbuilder.DecisionRefuse || bud.BudgetReport.EstimatedInputTokens <= 50 {
		t.Errorf("ctxd.budget of a refused selection = %+v", bud.BudgetReport)
	}

	m = h.command("ctxd.manifest", req)
	if m.Error == nil || m.Error.Code != -32803 {
		t.Errorf("ctxd.manifest of a refused selection = %v, want -32803", m.Error)
	}
}

func TestBuildContextInvalidParams(t *testing.T) {
	h, _ := newBuildHarness(t, buildWorkspace, "")
	uri := h.uri("store/store.go")
	tests := []struct {
		name    string
		command string
		arg     any
		want    string // in the message
	}{
		{"unknown field", "ctxd.buildContext", map[string]any{"purpose": "intent", "active_file": uri, "bogus_field": 1}, `unknown field "bogus_field"`},
		{"unknown nested field", "ctxd.manifest", map[string]any{"purpose": "intent", "model": map[string]any{"max_tokens": 5}}, `"max_tokens"`},
		{"missing purpose", "ctxd.budget", map[string]any{"active_file": uri}, `"purpose"`},
		{"bad purpose", "ctxd.buildContext", map[string]any{"purpose": "chat"}, `"purpose"`},
		{"wrong type", "ctxd.buildContext", map[string]any{"purpose": "intent", "active_file": 7}, `"active_file"`},
		{"absent", "ctxd.buildContext", nil, "arguments[0]"},
		{"selection elsewhere", "ctxd.buildContext", map[string]any{"purpose": "diff", "active_file": uri,
			"selection": map[string]any{"uri": h.uri("other.go"), "range": rangeAt("", 0, 0, "utf-16")}}, `"selection.uri"`},
		{"reserve above the input", "ctxd.buildContext", map[string]any{"purpose": "diff", "active_file": uri,
			"model": map[string]any{"max_input_tokens": 60}}, `"model.response_token_reserve"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m *lsptest.Message
			if tt.arg == nil {
				h.next++
				m = h.call(h.next, "workspace/executeCommand", map[string]any{"command": tt.command})
			} else {
				m = h.command(tt.command, tt.arg)
			}
			if m.Error == nil || m.Error.Code != -32602 || !strings.Contains(m.Error.Message, tt.want) {
				t.Errorf("%s = %v, want -32602 naming %s", tt.command, m.Error, tt.want)
			}
		})
	}
}

// TestBuildContextSelectionEncoding: the selection is read in the
// negotiated encoding on a line where UTF-8, UTF-16 and code point columns
// differ, so a wrong conversion selects the neighbouring function.
func TestBuildContextSelectionEncoding(t *testing.T) {
	const text = "package text\n\n// Pair: héllo 😀.\nfunc Alpha() string { return \"é😀é😀é😀\" }; func Beta() int { return 1 }\n"
	archive := "-- go.mod --\nmodule example.com/text\n-- text/text.go --\n" + text
	// Alpha's closing brace, Beta's name and Beta's "func" keyword. Read
	// in an encoding with fewer units per character than the client's, a
	// column lands earlier (Beta's name moves into Alpha); with more, later
	// (Alpha's brace moves into Beta).
	alphaEnd := strings.Index(text, "\" }") + 2
	beta := strings.Index(text, "Beta")
	betaFunc := strings.Index(text, "func Beta")
	tests := []struct {
		encoding   string
		start, end int
		want       string
	}{
		{"utf-16", beta, beta + 4, "Beta"},
		{"utf-16", alphaEnd, alphaEnd + 1, "Alpha"},
		{"utf-8", alphaEnd, alphaEnd + 1, "Alpha"},
		{"utf-32", betaFunc, betaFunc + 4, "Beta"},
	}
	for _, tt := range tests {
		t.Run(tt.encoding+"/"+tt.want, func(t *testing.T) {
			h, _ := newBuildHarness(t, archive, tt.encoding)
			uri := h.uri("text/text.go")
			h.open("text/text.go", text)
			r := h.build(map[string]any{
				"purpose": "diff", "active_file": uri,
				"selection": map[string]any{"uri": uri, "range": rangeAt(text, tt.start, tt.end, tt.encoding)},
			})
			if got := r.Manifest.Selection.TargetSymbols; !slices.Equal(got, []string{tt.want}) {
				t.Errorf("target_symbols = %v, want [%s]", got, tt.want)
			}
		})
	}
}

// TestBuildContextOutOfSync: while an open document is out of sync (a
// change that could not be applied), nothing is built; a full-content
// change repairs it.
func TestBuildContextOutOfSync(t *testing.T) {
	h, _ := newBuildHarness(t, buildWorkspace, "")
	uri := h.uri("store/store.go")
	h.open("store/store.go", storeBuffer)
	h.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"range": rangeOf(3, 4, 1, 0), "text": "x"}}, // start after end
	})
	req := map[string]any{"purpose": "diff", "active_file": uri}
	for _, name := range []string{"ctxd.buildContext", "ctxd.manifest", "ctxd.budget"} {
		if m := h.command(name, req); m.Error == nil || m.Error.Code != -32801 || !strings.Contains(m.Error.Message, uri) {
			t.Errorf("%s with %s out of sync = %v, want -32801 naming it", name, uri, m.Error)
		}
	}
	h.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": 3},
		"contentChanges": []any{map[string]any{"text": storeBuffer}},
	})
	r := h.build(req)
	if b := fileBlock(t, r, "store/store.go"); !strings.Contains(b.Content, "BUFFER_ONE") {
		t.Errorf("target block after the repair: %q", b.Content)
	}
}

func rangeOf(l1, c1, l2, c2 int) map[string]any {
	return map[string]any{"start": map[string]any{"line": l1, "character": c1}, "end": map[string]any{"line": l2, "character": c2}}
}

// TestBuildBetweenInitializeAndInitialized sends context commands after
// initialize but before initialized: the folders are known from initialize,
// so an in-workspace file must resolve (not be refused as outside the
// sandbox), and a path outside the folder is still refused. initialized
// arriving afterwards changes nothing.
func TestBuildBetweenInitializeAndInitialized(t *testing.T) {
	for _, tc := range []struct {
		name   string
		params func(dir string) map[string]any
	}{
		{"workspaceFolders", func(dir string) map[string]any {
			return map[string]any{"workspaceFolders": []map[string]any{{"uri": index.PathToURI(dir), "name": "shop"}}}
		}},
		{"rootUri", func(dir string) map[string]any { return map[string]any{"rootUri": index.PathToURI(dir)} }},
		{"rootPath", func(dir string) map[string]any { return map[string]any{"rootPath": dir} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := indextest.WriteTree(t, buildWorkspace)
			h := &buildHarness{harness: newHarness(t), dir: dir, next: 100}
			params := tc.params(dir)
			params["processId"] = nil
			params["capabilities"] = map[string]any{}
			if m := h.call(1, "initialize", params); m.Error != nil {
				t.Fatal(m.Error)
			}
			uri := h.uri("store/store.go")
			req := map[string]any{"purpose": "diff", "correlation_id": "00000000-0000-4000-8000-000000000011", "active_file": uri}
			r := h.build(req)
			if got := r.Manifest.Selection.TargetFiles; !slices.Equal(got, []string{"store/store.go"}) {
				t.Errorf("target_files = %v, want [store/store.go]", got)
			}
			outside := map[string]any{"purpose": "diff", "correlation_id": "00000000-0000-4000-8000-000000000012",
				"active_file": index.PathToURI(filepath.Join(filepath.Dir(dir), "elsewhere.go"))}
			if m := h.command("ctxd.buildContext", outside); m.Error == nil || !strings.Contains(string(m.Error.Data), string(contextbuilder.RefuseOutsideSandbox)) {
				t.Errorf("a file outside the folder before initialized: %+v, want %s", m.Error, contextbuilder.RefuseOutsideSandbox)
			}

			h.notify("initialized", map[string]any{})
			again := h.build(req)
			if again.Manifest.Fingerprints != r.Manifest.Fingerprints {
				t.Errorf("after initialized: fingerprints %+v, before %+v", again.Manifest.Fingerprints, r.Manifest.Fingerprints)
			}
		})
	}
}

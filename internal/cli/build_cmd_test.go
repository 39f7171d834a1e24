package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/contextbuilder/cbtest"
	"github.com/ctxd/ctxd/index/indextest"
	"github.com/ctxd/ctxd/internal/testenv"
	"github.com/ctxd/ctxd/workspace"
	"github.com/ctxd/ctxd/workspace/markdown"
)

// buildWorkspace is a small Go module with a dependency between two
// files, a file whose content holds a run of backticks, and a .env that
// must never reach an output.
const buildWorkspace = `
-- go.mod --
module example.com/shop

go 1.22
-- cart/cart.go --
// Package cart holds a shopping cart.
//
// Example: ` + "```go c.Add(\"x\") ```" + `
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
package cli

import "example.com/shop/cart"

func main() {
	var c cart.Cart
	c.Add("A-1")
	println(c.Len())
}
-- .env --
API_KEY=sk-cli0test0secret0value0123456789abcdef
`

// secretMarker is part of the .env value; no output may contain it.
const secretMarker = "sk-cli0test0secret"

// contentMarker is block content of cart.go; logs may never contain it.
const contentMarker = "c.Items = append(c.Items, sku)"

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(""), &out, &errb)
	if strings.Contains(out.String(), secretMarker) || strings.Contains(errb.String(), secretMarker) {
		t.Errorf("ctxd %s: the content of .env reached an output", strings.Join(args, " "))
	}
	return code, out.String(), errb.String()
}

func TestBuildUsage(t *testing.T) {
	dir := indextest.WriteTree(t, buildWorkspace)
	base := []string{"build", "--root", dir, "--cache-dir", "off"}
	tests := []cliCase{
		{name: "help", args: []string{"build", "--help"}, wantStdout: "-purpose"},
		{name: "help lists index flags", args: []string{"help", "build"}, wantStdout: "-cache-dir"},
		{name: "unknown flag", args: append(base, "--purpose", "plan", "--nope"), wantCode: 2, wantStderr: "-nope"},
		{name: "stray argument", args: append(base, "--purpose", "plan", "extra"), wantCode: 2, wantStderr: `unexpected argument "extra"`},
		{name: "missing root", args: []string{"build", "--purpose", "plan", "--cache-dir", "off"}, wantCode: 2, wantStderr: "--root is required"},
		{name: "root does not exist", args: []string{"build", "--root", "testdata/nope", "--purpose", "plan"}, wantCode: 2, wantStderr: "no such file"},
		{name: "root is a file", args: []string{"build", "--root", "cli.go", "--purpose", "plan"}, wantCode: 2, wantStderr: "not a directory"},
		{name: "missing purpose", args: base, wantCode: 2, wantStderr: "--purpose is required"},
		{name: "bad purpose", args: append(base, "--purpose", "poem"), wantCode: 2, wantStderr: `"poem" is not one of intent, plan, diff`},
		{name: "bad format", args: append(base, "--purpose", "plan", "--format", "yaml"), wantCode: 2, wantStderr: `invalid --format "yaml"`},
		{name: "max input tokens not a number", args: append(base, "--purpose", "plan", "--max-input-tokens", "lots"), wantCode: 2, wantStderr: "-max-input-tokens"},
		{name: "bad log level", args: append(base, "--purpose", "plan", "--log-level", "loud"), wantCode: 2, wantStderr: "--log-level"},
		{name: "diff without a target", args: append(base, "--purpose", "diff"), wantCode: 2, wantStderr: "needs a target"},
		{name: "blank constraint", args: append(base, "--purpose", "plan", "--constraint", " "), wantCode: 2, wantStderr: "--constraint #1 is blank"},
		{name: "malformed line range", args: append(base, "--purpose", "diff", "--target", "main.go:5-2"), wantCode: 2, wantStderr: "invalid build request"},
		{name: "line range not numbers", args: append(base, "--purpose", "diff", "--target", "main.go:abc"), wantCode: 2, wantStderr: `--target main.go:abc: "abc" is not a line range`},
		{name: "empty line range", args: append(base, "--purpose", "diff", "--target", "main.go:"), wantCode: 2, wantStderr: "is not a line range"},
		{name: "target does not exist", args: append(base, "--purpose", "diff", "--target", "nope.go"), wantCode: 2, wantStderr: "--target nope.go: no such file under --root"},
		{name: "target with range does not exist", args: append(base, "--purpose", "diff", "--target", "nope.go:1-2"), wantCode: 2, wantStderr: "--target nope.go: no such file"},
		{name: "select does not exist", args: append(base, "--purpose", "diff", "--select", "nope.go#Cart.Add"), wantCode: 2, wantStderr: "--select nope.go: no such file"},
		{name: "select without path", args: append(base, "--purpose", "diff", "--select", "#Cart.Add"), wantCode: 2, wantStderr: "want PATH#SYMBOL"},
		{name: "select with empty symbol", args: append(base, "--purpose", "diff", "--select", "cart/cart.go#"), wantCode: 2, wantStderr: "the symbol after # is empty"},
		{name: "cache dir inside root", args: []string{"build", "--root", dir, "--purpose", "plan", "--cache-dir", filepath.Join(dir, "cache")}, wantCode: 2, wantStderr: "is inside --root"},
		{name: "cache dir is root", args: []string{"build", "--root", dir, "--purpose", "plan", "--cache-dir", dir}, wantCode: 2, wantStderr: "--cache-dir " + dir + " is inside --root"},
		{name: "help lists exit codes", args: []string{"build", "--help"}, wantStdout: "Exit codes:\n  0  built"},
		{name: "help names refused", args: []string{"build", "--help"}, wantStdout: "3  refused"},
		{name: "help names select", args: []string{"build", "--help"}, wantStdout: "-select"},
		{name: "reserve not below max input", args: append(base, "--purpose", "plan", "--max-input-tokens", "100", "--response-token-reserve", "100"), wantCode: 2, wantStderr: "--response-token-reserve (100) must be less than --max-input-tokens (100)"},
		// Issue 32: errors name the flags, never the JSON fields of the
		// request the flags make.
		{name: "negative max input", args: append(base, "--purpose", "plan", "--max-input-tokens", "-5"), wantCode: 2, wantStderr: "ctxd build: invalid build request: --max-input-tokens must be positive, got -5\n"},
		{name: "empty model", args: append(base, "--purpose", "plan", "--model", ""), wantCode: 2, wantStderr: "ctxd build: invalid build request: --model must not be empty\n"},
		{name: "diff names the target flags", args: append(base, "--purpose", "diff"), wantCode: 2, wantStderr: "--purpose diff needs a target: --target PATH[:L1-L2], --symbol NAME, --select PATH[#SYMBOL] or --new-file PATH"},
		{name: "thread id without turn id", args: append(base, "--purpose", "plan", "--thread-id", "T"), wantCode: 2, wantStderr: "--thread-id needs --turn-id"},
		{name: "turn id without thread id", args: append(base, "--purpose", "plan", "--turn-id", "2"), wantCode: 2, wantStderr: "need --thread-id"},
		{name: "ref without thread id", args: append(base, "--purpose", "plan", "--ref", "intent:1"), wantCode: 2, wantStderr: "need --thread-id"},
		{name: "blank intent", args: append(base, "--purpose", "plan", "--intent", " "), wantCode: 2, wantStderr: "--intent is blank"},
		{name: "blank last error", args: append(base, "--purpose", "plan", "--last-error", ""), wantCode: 2, wantStderr: "--last-error is blank"},
		{name: "second constraint blank", args: append(base, "--purpose", "plan", "--constraint", "ok", "--constraint", ""), wantCode: 2, wantStderr: "--constraint #2 is blank"},
		{name: "line past the end", args: append(base, "--purpose", "diff", "--target", "main.go:90"), wantCode: 2, wantStderr: "line 90 is past the end of the file"},
		// Issue 32: a directory is not a missing file.
		{name: "target is a directory", args: append(base, "--purpose", "diff", "--target", "cart"), wantCode: 2, wantStderr: "--target cart is a directory: name a file in it"},
		{name: "target is a directory with a range", args: append(base, "--purpose", "diff", "--target", "cart:1-2"), wantCode: 2, wantStderr: "--target cart is a directory"},
		{name: "select is a directory", args: append(base, "--purpose", "diff", "--select", "cart#Cart.Add"), wantCode: 2, wantStderr: "--select cart is a directory"},
		{name: "new file is a directory", args: append(base, "--purpose", "diff", "--new-file", "cart"), wantCode: 2, wantStderr: "--new-file cart is a directory"},
		// Issue 32: flags that would be ignored or mean nothing are errors.
		{name: "template without prompt", args: append(base, "--purpose", "plan", "--template", "default-plan"), wantCode: 2, wantStderr: "--template default-plan applies to --format prompt only (got --format summary)"},
		{name: "template with json", args: append(base, "--purpose", "plan", "--format", "json", "--template", "default-plan"), wantCode: 2, wantStderr: "applies to --format prompt only"},
		{name: "max file size zero", args: append(base, "--purpose", "plan", "--max-file-size", "0"), wantCode: 2, wantStderr: "must be a positive number of bytes, got 0"},
		{name: "max file size negative", args: append(base, "--purpose", "plan", "--max-file-size", "-1"), wantCode: 2, wantStderr: "must be a positive number of bytes, got -1"},
		{name: "max file size not a number", args: append(base, "--purpose", "plan", "--max-file-size", "big"), wantCode: 2, wantStderr: "not a number of bytes"},
		{name: "help shows max file size default", args: []string{"build", "--help"}, wantStdout: "-max-file-size BYTES"},
		// Issue 32: a model ctxd does not know needs its window.
		{name: "unknown model", args: append(base, "--purpose", "plan", "--model", "my-llama"), wantCode: 2, wantStderr: `--max-input-tokens is required for model "my-llama"`},
		{name: "unknown model lists the known", args: append(base, "--purpose", "plan", "--model", "my-llama"), wantCode: 2, wantStderr: "name a model ctxd knows: claude-3-5-haiku, "},
		{name: "soft limit out of range", args: append(base, "--purpose", "plan", "--soft-limit-pct", "101"), wantCode: 2, wantStderr: "--soft-limit-pct must be between 1 and 100"},
	}
	runCLICases(t, tests)
}

// TestFlagTerms: the request fields an error names become the flags that
// set them, an index the flag's occurrence; a field without a flag stays.
func TestFlagTerms(t *testing.T) {
	tests := []struct{ in, want string }{
		{`field "model.max_input_tokens" must be positive, got -5`, `--max-input-tokens must be positive, got -5`},
		{`field "model.response_token_reserve" (9) must be less than "model.max_input_tokens" (8)`, `--response-token-reserve (9) must be less than --max-input-tokens (8)`},
		{`field "constraints[1].text" is required`, `--constraint #2 is required`},
		{`invalid thread: field "thread.turn_id" is empty`, `invalid thread: --turn-id is empty`},
		{`invalid thread: field "thread.declared_refs[2]" is empty`, `invalid thread: --ref #3 is empty`},
		{`field "user_selected_targets[0].path" is required`, `--select #1 is required`},
		{`field "model.provider" must not be empty`, `field "model.provider" must not be empty`},
		{`target "a.go" does not exist`, `target "a.go" does not exist`},
	}
	for _, tt := range tests {
		if got := flagTerms(tt.in, requestFlags); got != tt.want {
			t.Errorf("flagTerms(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// decodeResult decodes --format json output strictly and validates it
// against the schema of ctxd.buildContext's result.
func decodeResult(t *testing.T, stdout string) *contextbuilder.Result {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	var res contextbuilder.Result
	if err := dec.Decode(&res); err != nil {
		t.Fatalf("decoding the output: %v\n%s", err, stdout)
	}
	if res.Bundle == nil || res.Manifest == nil || res.RedactionReport == nil || res.BudgetReport == nil {
		t.Fatalf("incomplete result:\n%s", stdout)
	}
	// The exact bytes printed, not a re-encoding of what decoded.
	cbtest.Validate(t, "build_result.schema.json", []byte(stdout))
	return &res
}

func TestBuildJSON(t *testing.T) {
	dir := indextest.WriteTree(t, buildWorkspace)
	code, stdout, stderr := runCLI(t, "build", "--root", dir, "--cache-dir", "off", "--format", "json",
		"--purpose", "diff", "--target", "main.go", "--symbol", "Add", "--intent", "count items twice",
		"--constraint", "MUST_NOT add dependencies", "--constraint", "keep the API", "--last-error", "main.go:7: undefined: x",
		"--model", "gpt-4o-mini", "--max-input-tokens", "64000", "--log-level", "debug")
	if code != exitOK {
		t.Fatalf("exit code = %d, want 0; stderr:\n%s", code, stderr)
	}
	if !strings.HasPrefix(stdout, "{\n  \"bundle\": {") || !strings.HasSuffix(stdout, "}\n") {
		t.Errorf("output is not an indented object with a trailing newline:\n%.200s", stdout)
	}
	res := decodeResult(t, stdout)
	b := res.Bundle
	if b.Purpose != contextbuilder.PurposeDiff {
		t.Errorf("purpose = %q", b.Purpose)
	}
	if b.Model.Model != "gpt-4o-mini" || b.Model.MaxInputTokens != 64000 {
		t.Errorf("model = %+v, want the flags over the defaults", b.Model)
	}
	// The named model's provider and output limit come from ctxd's
	// table, the reserve and soft limit from the defaults.
	def := contextbuilder.DefaultConfig().Model
	known, _ := contextbuilder.LookupModel("gpt-4o-mini")
	if b.Model.Provider != known.Provider || b.Model.MaxOutputTokens != known.MaxOutputTokens || b.Model.ResponseTokenReserve != def.ResponseTokenReserve || b.Model.SoftLimitThresholdPct != def.SoftLimitThresholdPct {
		t.Errorf("model = %+v, want the table's and the defaults for the flags not given", b.Model)
	}
	if res.BudgetReport.MaxInputTokens != 64000 {
		t.Errorf("budget_report.max_input_tokens = %d, want 64000", res.BudgetReport.MaxInputTokens)
	}
	var sawMain, sawConstraint bool
	for _, blk := range b.Blocks {
		if blk.Meta.Path != nil && *blk.Meta.Path == "main.go" {
			sawMain = true
		}
		if blk.BlockType == contextbuilder.BlockConstraints && strings.Contains(blk.Content, "MUST_NOT add dependencies") && strings.Contains(blk.Content, "keep the API") {
			sawConstraint = true
		}
	}
	if !sawMain || !sawConstraint {
		t.Errorf("blocks lack the target file (%v) or the constraints (%v):\n%s", sawMain, sawConstraint, stdout)
	}
	if got := res.Manifest.Selection.TargetFiles; !slices.Contains(got, "main.go") {
		t.Errorf("target_files = %q, want main.go among them", got)
	}
	if res.Manifest.Fingerprints.BundleFingerprint == "" || res.Manifest.BundleID != b.BundleID {
		t.Errorf("manifest = %+v", res.Manifest)
	}
	if strings.Contains(stderr, contentMarker) {
		t.Errorf("the logs contain file content:\n%s", stderr)
	}
	if !strings.Contains(stderr, "context built") {
		t.Errorf("no build log at --log-level debug:\n%s", stderr)
	}
}

// TestBuildExample builds on the example workspace with .env as a second
// target: .env is excluded by its deny rule and the other target is
// built.
func TestBuildExample(t *testing.T) {
	code, stdout, stderr := runCLI(t, "build", "--root", testenv.ExampleCopy(t), "--cache-dir", "off", "--format", "json",
		"--purpose", "diff", "--target", "internal/store/store.go", "--target", ".env", "--symbol", "Store.List",
		"--intent", "return the items sorted by name")
	if code != exitOK {
		t.Fatalf("exit code = %d, want 0; stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if strings.Contains(stdout, "postgres") {
		t.Fatal("the content of .env reached the bundle")
	}
	res := decodeResult(t, stdout)
	found := false
	for _, e := range res.Manifest.Selection.ExcludedCandidates {
		if e.Path == ".env" && e.Reason == contextbuilder.ExcludeDenyRule {
			found = true
		}
	}
	if !found {
		t.Errorf("excluded_candidates = %+v, want .env as deny_rule", res.Manifest.Selection.ExcludedCandidates)
	}
	for _, f := range res.Manifest.Selection.IncludedFiles {
		if f.Path == ".env" {
			t.Errorf(".env is an included file")
		}
	}
}

func TestBuildRefusal(t *testing.T) {
	dir := indextest.WriteTree(t, buildWorkspace)
	base := []string{"build", "--root", dir, "--cache-dir", "off"}
	tests := []struct {
		name     string
		args     []string
		wantCode contextbuilder.RefusalCode // "" means any REFUSE_ code
	}{
		{name: "only target denied", args: []string{"--purpose", "diff", "--target", ".env"}},
		{name: "only target denied, summary", args: []string{"--purpose", "diff", "--target", ".env", "--format", "summary"}},
		{name: "too large", args: []string{"--purpose", "diff", "--target", "cart/cart.go", "--max-input-tokens", "60", "--response-token-reserve", "10", "--format", "json"},
			wantCode: contextbuilder.RefuseContextTooLarge},
		{name: "too large, markdown", args: []string{"--purpose", "diff", "--target", "cart/cart.go", "--max-input-tokens", "60", "--response-token-reserve", "10", "--format", "markdown"},
			wantCode: contextbuilder.RefuseContextTooLarge},
		{name: "symbol not found", args: []string{"--purpose", "diff", "--target", "main.go", "--symbol", "Nope"}, wantCode: contextbuilder.RefuseTargetNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, append(base, tt.args...)...)
			if code != exitRefused {
				t.Fatalf("exit code = %d, want %d; stdout:\n%s\nstderr:\n%s", code, exitRefused, stdout, stderr)
			}
			dec := json.NewDecoder(strings.NewReader(stdout))
			dec.DisallowUnknownFields()
			var out struct {
				Refusal *contextbuilder.Refusal `json:"refusal"`
			}
			if err := dec.Decode(&out); err != nil || out.Refusal == nil {
				t.Fatalf("stdout is not {\"refusal\": …}: %v\n%s", err, stdout)
			}
			cbtest.Validate(t, "cli_refusal.schema.json", []byte(stdout))
			r := out.Refusal
			if !strings.HasPrefix(string(r.Code), "REFUSE_") || (tt.wantCode != "" && r.Code != tt.wantCode) {
				t.Errorf("code = %q, want %q", r.Code, tt.wantCode)
			}
			if r.Message == "" || r.Advice == "" {
				t.Errorf("refusal without message or advice: %+v", r)
			}
			if tt.wantCode == contextbuilder.RefuseContextTooLarge && (r.BudgetReport == nil || r.BudgetReport.Decision != contextbuilder.DecisionRefuse) {
				t.Errorf("budget_report = %+v, want decision refuse_hard_limit", r.BudgetReport)
			}
			if !strings.Contains(stderr, "refused: "+string(r.Code)) {
				t.Errorf("stderr %q does not name the refusal", stderr)
			}
		})
	}
}

var createdAt = regexp.MustCompile(`"created_at": "[^"]*"`)

// TestBuildDeterministic: two builds of the same inputs print the same
// bytes, created_at aside, in every format.
func TestBuildDeterministic(t *testing.T) {
	dir := indextest.WriteTree(t, buildWorkspace)
	for _, format := range []string{"json", "markdown", "summary"} {
		t.Run(format, func(t *testing.T) {
			var outs [2]string
			for i := range outs {
				code, stdout, stderr := runCLI(t, "build", "--root", dir, "--cache-dir", "off", "--format", format,
					"--purpose", "diff", "--target", "cart/cart.go", "--intent", "add Remove", "--constraint", "no new files")
				if code != exitOK {
					t.Fatalf("exit code = %d; stderr:\n%s", code, stderr)
				}
				outs[i] = createdAt.ReplaceAllString(stdout, `"created_at": ""`)
				outs[i] = regexp.MustCompile(`, created [^\n]*`).ReplaceAllString(outs[i], "")
			}
			if outs[0] != outs[1] {
				t.Errorf("two builds differ:\n--- first\n%s\n--- second\n%s", outs[0], outs[1])
			}
		})
	}
}

func TestBuildFormats(t *testing.T) {
	dir := indextest.WriteTree(t, buildWorkspace)
	args := []string{"build", "--root", dir, "--cache-dir", "off", "--purpose", "diff",
		"--target", "cart/cart.go", "--target", ".env", "--intent", "add Remove"}
	tests := []struct {
		format string
		want   []string
	}{
		{"markdown", []string{"# ctxd context bundle (diff)", "- decision: ", "- tokens: ", "## Excluded", "`.env`: deny_rule",
			"## Redactions", "## Fingerprints", "path `cart/cart.go`", "````go\n// Package cart", "\n````\n"}},
		{"summary", []string{"decision:  ", "tokens:    ", "estimator: ", "blocks (", "cart/cart.go", " bytes",
			"left out (", ".env", "deny_rule", "redactions (", "recorded:", "fingerprints (", "bundle id:"}},
		// The default format is summary.
		{"", []string{"decision:  ", "blocks ("}},
	}
	for _, tt := range tests {
		t.Run(tt.format, func(t *testing.T) {
			a := args
			if tt.format != "" {
				a = append(append([]string(nil), args...), "--format", tt.format)
			}
			code, stdout, stderr := runCLI(t, a...)
			if code != exitOK {
				t.Fatalf("exit code = %d; stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("output lacks %q:\n%s", w, stdout)
				}
			}
		})
	}
}

// sampleResult is a hand-made result for the renderers' own tests.
func sampleResult() *contextbuilder.Result {
	str := func(s string) *string { return &s }
	id := "01234567-89ab-8cde-8f01-23456789abcd"
	return &contextbuilder.Result{
		Bundle: &contextbuilder.Bundle{
			BundleID: id, BundleVersion: 1, CreatedAt: "2025-01-02T03:04:05Z", Purpose: contextbuilder.PurposeDiff,
			CorrelationID: "corr-1",
			Model:         contextbuilder.DefaultConfig().Model,
			Blocks: []contextbuilder.Block{
				{BlockID: "b1", BlockType: contextbuilder.BlockSystem, Priority: contextbuilder.P0, Title: "System rules",
					Content: "You write diffs.", Meta: contextbuilder.BlockMeta{Encoding: "utf-8", Source: contextbuilder.SourceSystem}},
				{BlockID: "b2", BlockType: contextbuilder.BlockFile, Priority: contextbuilder.P0, Title: "a`b.go",
					Content: "package a\n// ```` four\n",
					Meta:    contextbuilder.BlockMeta{Path: str("a`b.go"), Hash: str("abc"), Encoding: "utf-8", ByteSize: 99, Source: contextbuilder.SourceFilesystem}},
				{BlockID: "b3", BlockType: contextbuilder.BlockSymbol, Priority: contextbuilder.P1, Title: "dep\x1b[31m.go\nSig",
					Content: "func Sig()",
					Meta:    contextbuilder.BlockMeta{Path: str("dep.go"), Symbol: str("Sig"), Encoding: "utf-8", Source: contextbuilder.SourceIndex}},
			},
		},
		Manifest: &contextbuilder.Manifest{
			BundleID: id, CorrelationID: "corr-1", Purpose: contextbuilder.PurposeDiff,
			Selection: contextbuilder.Selection{
				TargetFiles: []string{"a`b.go"}, TargetSymbols: []string{},
				IncludedFiles: []contextbuilder.IncludedFile{
					{Path: "a`b.go", Hash: "abc", Encoding: "utf-8", ByteSize: 99, Reason: contextbuilder.ReasonTarget},
					{Path: "dep.go", Hash: "def", Encoding: "utf-8", ByteSize: 10, Reason: contextbuilder.ReasonDependency},
				},
				ExcludedCandidates: []contextbuilder.Excluded{{Path: ".env", Reason: contextbuilder.ExcludeDenyRule}},
			},
			Fingerprints: contextbuilder.Fingerprints{ProjectIndexFingerprint: "fp-index", ConfigFingerprint: "fp-config", BundleFingerprint: "fp-bundle"},
		},
		RedactionReport: &contextbuilder.RedactionReport{BundleID: id, Redactions: []contextbuilder.Redaction{
			{Type: contextbuilder.RedactPathExcluded, Target: ".env", Reason: contextbuilder.RedactReasonDenyRule, Details: "deny:20: *.env"},
			{Type: contextbuilder.RedactContentSliced, Target: "dep.go", Reason: contextbuilder.RedactReasonBudget, Details: "SIGNATURES_ONLY"},
		}},
		BudgetReport: &contextbuilder.BudgetReport{BundleID: id, EstimatedInputTokens: 1234, MaxInputTokens: 128000,
			SoftLimitTokens: 99200, HardLimitTokens: 124000, ReserveOutputTokens: 4000, Decision: contextbuilder.DecisionOK,
			Notes: []string{"estimator: test-bpe v1", "sliced dep.go to fit"}},
	}
}

func TestFormatMarkdown(t *testing.T) {
	var buf bytes.Buffer
	if err := markdown.Write(&buf, sampleResult()); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, w := range []string{
		"# ctxd context bundle (diff)\n",
		"- model: openai/gpt-4o (max input 128000",
		"- decision: ok\n",
		"- tokens: 1234 estimated, soft limit 99200, hard limit 124000\n",
		"- target files: ``a`b.go``\n",
		"- sliced dep.go to fit\n",
		"## System rules\n\n`system` · P0 · 16 bytes\n\n```\nYou write diffs.\n```\n",
		// A fence longer than the content's longest backtick run.
		"## a`b.go\n\n`file` · P0 · path ``a`b.go`` · 23 bytes\n\n`````go\npackage a\n// ```` four\n`````\n",
		// Control characters never reach the terminal.
		"## dep [31m.go Sig\n",
		"symbol `Sig`",
		"## Excluded\n\n- `.env`: deny_rule — deny:20: *.env\n",
		"## Redactions\n\n- path_excluded `.env`: deny_rule — deny:20: *.env\n- content_sliced `dep.go`: budget — SIGNATURES_ONLY\n",
		"## Fingerprints\n\n- project index: `fp-index`\n- config: `fp-config`\n- bundle: `fp-bundle`\n",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("markdown lacks %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "\x1b") {
		t.Error("markdown contains an escape character")
	}
}

// recordsDir is where a build in root records: the user's state
// directory for a workspace that did not opt in.
func recordsDir(t *testing.T, root string) string {
	t.Helper()
	rec, err := workspace.Locate(root)
	if err != nil {
		t.Fatal(err)
	}
	return rec.Dir
}

// TestFormatSummaryOptedIn: a workspace with .ctxd/config.json records in
// its own .ctxd/, and the summary says so.
func TestFormatSummaryOptedIn(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".ctxd"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".ctxd", "config.json"), []byte(`{"schema_version": "1"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := formatSummary(&buf, sampleResult(), root); err != nil {
		t.Fatal(err)
	}
	if want := "recorded:  " + filepath.Join(root, ".ctxd") + "/ "; !strings.Contains(buf.String(), want) {
		t.Errorf("summary lacks %q:\n%s", want, buf.String())
	}
}

func TestFormatSummary(t *testing.T) {
	var buf bytes.Buffer
	if err := formatSummary(&buf, sampleResult(), "ws"); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, w := range []string{
		"ctxd build: diff bundle for openai/gpt-4o, 3 blocks\n",
		"decision:  ok (under the soft limit)\n",
		"tokens:    1234 estimated; soft limit 99200, hard limit 124000 (max input 128000 - reserve 4000)\n",
		"estimator: test-bpe v1\n",
		"note:      sliced dep.go to fit\n",
		"blocks (3):\n  P0  system  System rules  16 bytes\n",
		"  P0  file    a`b.go        23 bytes  (target)\n",
		"  P1  symbol  dep.go Sig    10 bytes  (dependency) sliced: SIGNATURES_ONLY\n",
		"left out (1): not sent to the model\n  .env  deny_rule  the never-send rule \"**/*.env\" of the context contract (environment files, which hold secrets)\n",
		// The count is the report's (issue 32, item 19: "redactions (0)"
		// with one in the report); the excluded path is shown above.
		"redactions (2): 1 under \"left out\" above; 1 sent, but changed (secrets masked, bodies sliced)\n  content_sliced  dep.go  budget  SIGNATURES_ONLY\n",
		"recorded:  " + recordsDir(t, "ws") + "/ (the bundle under artifacts/contexts/, the event in audit.jsonl)\n           'ctxd verify --root ws' checks what was recorded\n",
		"fingerprints (sha256; the same inputs give the same values):\n  files     fp-index  the workspace's files and contents (project_index_fingerprint)\n",
		"  settings  fp-config  model, limits, deny rules, policy, estimator and secret rules (config_fingerprint)\n",
		"  bundle    fp-bundle  the blocks above (bundle_fingerprint)\n",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("summary lacks %q:\n%s", w, out)
		}
	}
	var again bytes.Buffer
	if err := formatSummary(&again, sampleResult(), "ws"); err != nil || again.String() != out {
		t.Errorf("summary is not deterministic (err %v)", err)
	}
}

// ambiguousWorkspace defines Add three times, twice in b/b.go.
const ambiguousWorkspace = `
-- go.mod --
module example.com/amb

go 1.22
-- a/a.go --
package a

// A is a.
type A struct{}

// Add adds.
func (A) Add() {}
-- b/b.go --
package b

// B is b.
type B struct{}

// Add adds to B.
func (B) Add() {}

// C is c.
type C struct{}

// Add adds to C.
func (C) Add() {}
`

// TestBuildSelect: an ambiguous --symbol is refused with candidates that
// a person can paste back as --select (1-based lines on stderr, LSP's
// 0-based ones in the JSON), those in the --target file first, and the
// retry with --select builds, also when it keeps the --target.
func TestBuildSelect(t *testing.T) {
	dir := indextest.WriteTree(t, ambiguousWorkspace)
	base := []string{"build", "--root", dir, "--cache-dir", "off", "--purpose", "diff", "--symbol", "Add"}

	refused := func(t *testing.T, args ...string) (*contextbuilder.Refusal, string) {
		t.Helper()
		code, stdout, stderr := runCLI(t, append(base, args...)...)
		if code != exitRefused {
			t.Fatalf("exit code = %d, want %d; stderr:\n%s", code, exitRefused, stderr)
		}
		var out struct {
			Refusal *contextbuilder.Refusal `json:"refusal"`
		}
		if err := json.Unmarshal([]byte(stdout), &out); err != nil || out.Refusal == nil || out.Refusal.Code != contextbuilder.RefuseAmbiguousTarget {
			t.Fatalf("stdout is not an ambiguity refusal: %v\n%s", err, stdout)
		}
		return out.Refusal, stderr
	}

	t.Run("without target", func(t *testing.T) {
		r, stderr := refused(t)
		var lines []int
		for _, c := range r.Candidates {
			lines = append(lines, c.Range.Start.Line)
		}
		if diff := cmp.Diff([]int{6, 6, 12}, lines); diff != "" {
			t.Errorf("JSON candidate lines are not LSP's 0-based ones (-want +got):\n%s", diff)
		}
		want := "  candidates (retry with one as --select PATH#SYMBOL):\n" +
			"    --select a/a.go#A.Add  method  line 7\n" +
			"    --select b/b.go#B.Add  method  line 7\n" +
			"    --select b/b.go#C.Add  method  line 13\n"
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks the candidates as --select values with 1-based lines:\nwant %s\ngot:\n%s", want, stderr)
		}
		// The advice is in the command line's words (issue 32, item 11).
		for _, w := range []string{"--select a/a.go#A.Add", "with --target", "ctxd explain REFUSE_AMBIGUOUS_TARGET"} {
			if !strings.Contains(stderr, w) {
				t.Errorf("stderr lacks %q:\n%s", w, stderr)
			}
		}
		if strings.Contains(stderr, "user_selected_targets") {
			t.Errorf("stderr names a request field, not a flag:\n%s", stderr)
		}
	})
	t.Run("target file first", func(t *testing.T) {
		r, stderr := refused(t, "--target", "b/b.go")
		if !strings.Contains(stderr, "    --select b/b.go#B.Add  method  line 7\n    --select b/b.go#C.Add  method  line 13\n    --select a/a.go#A.Add  method  line 7\n") {
			t.Errorf("the candidates of the --target file are not listed first:\n%s", stderr)
		}
		if !strings.Contains(r.Advice, "--select b/b.go#B.Add") {
			t.Errorf("advice's example is not in the --target file: %s", r.Advice)
		}
	})
	for name, args := range map[string][]string{
		"select":            {"--select", "b/b.go#C.Add", "--format", "json"},
		"select and target": {"--target", "b/b.go", "--select", "b/b.go#C.Add", "--format", "json"},
		// A file alone answers "which file" when it holds one of them.
		"select path alone": {"--select", "a/a.go", "--format", "json"},
	} {
		t.Run(name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, append(base, args...)...)
			if code != exitOK {
				t.Fatalf("exit code = %d, want 0; stderr:\n%s", code, stderr)
			}
			res := decodeResult(t, stdout)
			want := []string{"C.Add"}
			if name == "select path alone" {
				want = []string{"A.Add"}
			}
			if diff := cmp.Diff(want, res.Manifest.Selection.TargetSymbols); diff != "" {
				t.Errorf("target symbols (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("path alone still ambiguous", func(t *testing.T) {
		// b/b.go defines B.Add and C.Add: the file does not say which.
		r, _ := refused(t, "--select", "b/b.go")
		if len(r.Candidates) != 3 {
			t.Errorf("candidates %+v, want all three", r.Candidates)
		}
	})
}

// TestBuildModelTable: --model sets the budget from ctxd's table, not only
// the label; an unknown model builds with --max-input-tokens.
func TestBuildModelTable(t *testing.T) {
	dir := indextest.WriteTree(t, buildWorkspace)
	base := []string{"build", "--root", dir, "--cache-dir", "off", "--purpose", "diff", "--target", "main.go", "--format", "json"}
	tests := []struct {
		args []string
		want contextbuilder.Model
	}{
		{[]string{"--model", "anthropic/claude-sonnet-4"}, contextbuilder.Model{Provider: "anthropic", Model: "anthropic/claude-sonnet-4",
			MaxInputTokens: 160000, MaxOutputTokens: 64000, ResponseTokenReserve: 4000, SoftLimitThresholdPct: 80}},
		{[]string{"--model", "gpt-4.1"}, contextbuilder.Model{Provider: "openai", Model: "gpt-4.1",
			MaxInputTokens: 1047576, MaxOutputTokens: 32768, ResponseTokenReserve: 4000, SoftLimitThresholdPct: 80}},
		{[]string{"--model", "my-llama", "--max-input-tokens", "8000"}, contextbuilder.Model{Provider: "openai", Model: "my-llama",
			MaxInputTokens: 8000, MaxOutputTokens: 16000, ResponseTokenReserve: 4000, SoftLimitThresholdPct: 80}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCLI(t, append(base, tt.args...)...)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			res := decodeResult(t, stdout)
			if diff := cmp.Diff(tt.want, res.Bundle.Model); diff != "" {
				t.Errorf("bundle model (-want +got):\n%s", diff)
			}
			if res.BudgetReport.MaxInputTokens != tt.want.MaxInputTokens {
				t.Errorf("budget_report.max_input_tokens = %d, want %d", res.BudgetReport.MaxInputTokens, tt.want.MaxInputTokens)
			}
		})
	}
}

// TestBuildRefusalNamesFlags: a refusal's line on stderr names the --ref
// the user typed, not the request field it became; stdout keeps the JSON.
func TestBuildRefusalNamesFlags(t *testing.T) {
	dir := indextest.WriteTree(t, buildWorkspace)
	code, stdout, stderr := runCLI(t, "build", "--root", dir, "--cache-dir", "off", "--purpose", "plan",
		"--thread-id", "th", "--turn-id", "t1", "--ref", "intent:t0")
	if code != exitRefused {
		t.Fatalf("exit %d, want %d: %s", code, exitRefused, stderr)
	}
	if !strings.Contains(stderr, `ref "intent:t0" (--ref #1)`) || strings.Contains(stderr, "declared_refs[0]") {
		t.Errorf("stderr does not name --ref #1:\n%s", stderr)
	}
	if !strings.Contains(stdout, "declared_refs[0]") {
		t.Errorf("stdout's refusal lost the wire's terms:\n%s", stdout)
	}
}

// TestBuildPromptIntentOnce: the command line's --intent is the intent,
// not also the plan step's text: the prompt does not repeat it as the plan
// step.
func TestBuildPromptIntentOnce(t *testing.T) {
	dir := indextest.WriteTree(t, buildWorkspace)
	const intent = "make Add reject an empty SKU"
	code, stdout, stderr := runCLI(t, "build", "--root", dir, "--cache-dir", "off", "--purpose", "diff",
		"--target", "cart/cart.go", "--intent", intent, "--format", "prompt")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var out struct {
		Prompt struct {
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
		} `json:"prompt"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil || len(out.Prompt.Messages) == 0 {
		t.Fatalf("decoding the prompt: %v\n%s", err, stdout)
	}
	for i, m := range out.Prompt.Messages {
		if strings.Contains(m.Content, "Plan step (cli):") || strings.Contains(m.Content, "Plan step: "+intent) {
			t.Errorf("message %d repeats the intent as the plan step:\n%s", i, m.Content)
		}
		if n := strings.Count(m.Content, intent); n > 1 {
			t.Errorf("message %d holds the intent %d times:\n%s", i, n, m.Content)
		}
	}
}

// TestBuildSelectWithoutSymbol: --select PATH#SYMBOL without --symbol
// narrows the file to the symbol, and a symbol the file does not define is
// refused naming it and its close matches, never built as the whole file.
func TestBuildSelectWithoutSymbol(t *testing.T) {
	dir := indextest.WriteTree(t, ambiguousWorkspace)
	base := []string{"build", "--root", dir, "--cache-dir", "off", "--purpose", "diff"}
	code, stdout, stderr := runCLI(t, append(base, "--select", "b/b.go#C.Add", "--format", "json")...)
	if code != exitOK {
		t.Fatalf("exit code = %d, want 0; stderr:\n%s", code, stderr)
	}
	res := decodeResult(t, stdout)
	got := [2][]string{res.Manifest.Selection.TargetFiles, res.Manifest.Selection.TargetSymbols}
	if diff := cmp.Diff([2][]string{{"b/b.go"}, {"C.Add"}}, got); diff != "" {
		t.Errorf("target files and symbols (-want +got):\n%s", diff)
	}

	code, stdout, stderr = runCLI(t, append(base, "--select", "b/b.go#C.Ad")...)
	if code != exitRefused {
		t.Fatalf("exit code = %d, want %d; stderr:\n%s", code, exitRefused, stderr)
	}
	for _, w := range []string{`REFUSE_TARGET_NOT_FOUND`, `"C.Ad" is not defined in b/b.go`, "close matches: C.Add"} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr)
		}
	}
	if !strings.Contains(stdout, `"refusal"`) {
		t.Errorf("stdout holds no refusal:\n%s", stdout)
	}
}

// TestBuildRefusalNeverSend: a target under a directory named obj is
// refused naming the contract's rule in words, not as "deny:10".
func TestBuildRefusalNeverSend(t *testing.T) {
	dir := indextest.WriteTree(t, "-- go.mod --\nmodule example.com/x\n\ngo 1.22\n-- cmd/internal/obj/link.go --\npackage obj\n")
	code, _, stderr := runCLI(t, "build", "--root", dir, "--cache-dir", "off", "--purpose", "diff", "--target", "cmd/internal/obj/link.go")
	if code != exitRefused {
		t.Fatalf("exit code = %d, want %d; stderr:\n%s", code, exitRefused, stderr)
	}
	for _, w := range []string{`the never-send rule "**/obj/**" of the context contract`, "cannot be switched off", "ctxd explain REFUSE_UNSUPPORTED_TARGET"} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr)
		}
	}
	if strings.Contains(stderr, "deny:") || strings.Contains(stderr, "docs/contract.md") {
		t.Errorf("stderr shows the rule file's form or a document the user may not have:\n%s", stderr)
	}
}

// TestFormatSummaryBudgetRemovals: blocks removed for the budget are
// "left out", also when another block of their file is sent, with how
// many were removed, and not "sent, but changed"; each block shows its
// own slice, not every slice of its file (issue 32, item 15).
func TestFormatSummaryBudgetRemovals(t *testing.T) {
	r := sampleResult()
	str := func(s string) *string { return &s }
	sym := func(id, name string) contextbuilder.Block {
		return contextbuilder.Block{BlockID: id, BlockType: contextbuilder.BlockSymbol, Priority: contextbuilder.P1, Title: name, Content: "func " + name + "()",
			Meta: contextbuilder.BlockMeta{Path: str("h.go"), Symbol: str(name), Encoding: "utf-8", Source: contextbuilder.SourceIndex}}
	}
	r.Bundle.Blocks = append(r.Bundle.Blocks[:2], sym("b4", "Header.Add"), sym("b5", "Header.Get"))
	r.Manifest.Selection.IncludedFiles = append(r.Manifest.Selection.IncludedFiles[:1], contextbuilder.IncludedFile{Path: "h.go", Reason: contextbuilder.ReasonDependency})
	r.Manifest.Selection.ExcludedCandidates = []contextbuilder.Excluded{{Path: "h.go", Reason: contextbuilder.ExcludeTokenBudget}, {Path: "x.go", Reason: contextbuilder.ExcludeTokenBudget}}
	r.RedactionReport.Redactions = []contextbuilder.Redaction{
		{Type: contextbuilder.RedactContentSliced, Target: "a`b.go", Reason: contextbuilder.RedactReasonBudget, Details: "TARGET_REGION_ONLY: target, lines 1-2 of 9"},
		{Type: contextbuilder.RedactBlockRemoved, Target: "h.go", Reason: contextbuilder.RedactReasonBudget, Details: "P1 dependency Header.Del in h.go: removed"},
		{Type: contextbuilder.RedactBlockRemoved, Target: "h.go", Reason: contextbuilder.RedactReasonBudget, Details: "P1 dependency Header.Set in h.go: removed"},
		{Type: contextbuilder.RedactContentSliced, Target: "h.go", Reason: contextbuilder.RedactReasonBudget, Details: "dependency Header.Add: SIGNATURES_ONLY, line 30 of 274"},
		{Type: contextbuilder.RedactContentSliced, Target: "h.go", Reason: contextbuilder.RedactReasonBudget, Details: "dependency Header.Get: SIGNATURES_ONLY, line 49 of 274"},
		{Type: contextbuilder.RedactBlockRemoved, Target: "x.go", Reason: contextbuilder.RedactReasonBudget, Details: "P2 caller x.go: not included"},
	}
	var buf bytes.Buffer
	if err := formatSummary(&buf, r, ""); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, w := range []string{
		"  P0  file    a`b.go           23 bytes  (target) sliced: TARGET_REGION_ONLY: target, lines 1-2 of 9\n",
		"  P1  symbol  h.go Header.Add  17 bytes  (dependency) sliced: SIGNATURES_ONLY, line 30 of 274\n",
		"  P1  symbol  h.go Header.Get  17 bytes  (dependency) sliced: SIGNATURES_ONLY, line 49 of 274\n",
		"left out (2): not sent to the model\n" +
			"  h.go  token_budget  other blocks of this file are sent; 2 blocks removed; first: P1 dependency Header.Del in h.go: removed\n" +
			"  x.go  token_budget  P2 caller x.go: not included\n",
		"redactions (6): 3 under \"left out\" above; 3 sent, but changed (secrets masked, bodies sliced)\n",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("summary lacks %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "block_removed") {
		t.Errorf("a removed block is listed as sent, but changed:\n%s", out)
	}
}

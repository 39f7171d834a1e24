package cbtest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/workspace"
)

const (
	uuidA = "01234567-89ab-8cde-8f01-23456789abcd"
	uuidB = "fedcba98-7654-8321-9fed-cba987654321"
)

var (
	hashA = strings.Repeat("ab", 32)
	hashB = strings.Repeat("0f", 32)
)

// Sample documents, valid against their schema. The negative cases are
// one edit away from them.

var blockFile = `{
  "block_id": "` + uuidA + `",
  "block_type": "file",
  "priority": "P0",
  "title": "src/main.go",
  "content": "package main\n",
  "meta": {
    "path": "src/main.go",
    "symbol": null,
    "hash": "` + hashA + `",
    "encoding": "utf-8",
    "byte_size": 13,
    "line_count": 2,
    "source": "filesystem"
  }
}`

var blockSystem = `{
  "block_id": "` + uuidB + `",
  "block_type": "system",
  "priority": "P0",
  "title": "system",
  "content": "You edit code.",
  "meta": {
    "path": null,
    "symbol": null,
    "hash": null,
    "encoding": "utf-8",
    "byte_size": 0,
    "line_count": 0,
    "source": "system"
  }
}`

var bundle = `{
  "bundle_id": "` + uuidA + `",
  "bundle_version": 1,
  "created_at": "2025-01-02T03:04:05Z",
  "purpose": "diff",
  "correlation_id": "` + uuidB + `",
  "model": {
    "provider": "openai",
    "model": "gpt-4o",
    "max_input_tokens": 128000,
    "max_output_tokens": 16000,
    "response_token_reserve": 4000,
    "soft_limit_threshold_pct": 80
  },
  "blocks": [` + blockSystem + `, ` + blockFile + `]
}`

var manifest = `{
  "bundle_id": "` + uuidA + `",
  "correlation_id": "` + uuidB + `",
  "purpose": "diff",
  "selection": {
    "target_files": ["src/main.go"],
    "target_symbols": ["main.main"],
    "included_files": [
      {"path": "src/main.go", "hash": "` + hashA + `", "encoding": "utf-8", "byte_size": 13, "reason": "target"}
    ],
    "excluded_candidates": [
      {"path": ".env", "reason": "deny_rule"},
      {"path": "docs/big.md", "reason": "policy"}
    ]
  },
  "fingerprints": {
    "project_index_fingerprint": "` + hashA + `",
    "config_fingerprint": "` + hashB + `",
    "bundle_fingerprint": "` + hashA + `"
  }
}`

var redactionReport = `{
  "bundle_id": "` + uuidA + `",
  "redactions": [
    {"type": "path_excluded", "target": ".env", "reason": "deny_rule", "details": "never-send path **/*.env"},
    {"type": "content_sliced", "target": "src/big.go", "reason": "budget", "details": "SIGNATURES_ONLY"}
  ]
}`

var budgetReport = `{
  "bundle_id": "` + uuidA + `",
  "estimated_input_tokens": 1200,
  "max_input_tokens": 128000,
  "soft_limit_tokens": 99200,
  "hard_limit_tokens": 124000,
  "reserve_output_tokens": 4000,
  "decision": "ok",
  "notes": ["estimator: tiktoken-go/tokenizer v0.10.0 o200k_base"]
}`

var buildResult = `{"bundle": ` + bundle + `, "manifest": ` + manifest +
	`, "redaction_report": ` + redactionReport + `, "budget_report": ` + budgetReport + `}`

var manifestResult = `{"manifest": ` + manifest + `, "redaction_report": ` + redactionReport +
	`, "budget_report": ` + budgetReport + `}`

var budgetResult = `{"budget_report": ` + budgetReport + `, "counts": {
  "blocks": {"P0": 3, "P1": 1, "P2": 0, "P3": 0},
  "files": 2, "excluded": 1, "redactions": 2, "target_files": 1
}}`

var refusalMinimal = `{"code": "REFUSE_SECRET_RISK", "message": "src/a.go holds a private key", "advice": "move the key out of the project"}`

var refusalFull = `{
  "code": "REFUSE_AMBIGUOUS_TARGET",
  "message": "symbol Login has 2 definitions",
  "advice": "retry with one of the candidates in user_selected_targets",
  "budget_report": ` + budgetReport + `,
  "redaction_report": ` + redactionReport + `,
  "manifest": ` + manifest + `,
  "candidates": [
    {"path": "a/user.go", "symbol": "a.Login", "kind": "function",
     "range": {"start": {"line": 3, "character": 0}, "end": {"line": 9, "character": 1}}}
  ]
}`

var requestMinimal = `{"purpose": "intent"}`

var requestFull = `{
  "purpose": "diff",
  "correlation_id": "` + uuidB + `",
  "active_file": "file:///w/src/main.go",
  "selection": {"uri": "file:///w/src/main.go",
    "range": {"start": {"line": 1, "character": 0}, "end": {"line": 4, "character": 2}}},
  "intent": {"id": "INTENT-1", "text": "rename main"},
  "plan_step": {"id": "S1", "text": "rename", "target_files": ["src/main.go:1-4"], "target_symbols": ["main.main"]},
  "user_selected_targets": [{"path": "src/main.go", "symbol": "main.main"}, {"path": "src/b.go"}],
  "last_error": {"message": "syntax error", "path": "src/main.go",
    "range": {"start": {"line": 2, "character": 0}, "end": {"line": 2, "character": 5}}},
  "constraints": [{"scope": "user", "id": "C1", "text": "MUST_NOT add dependencies"}],
  "model": {"provider": "openai", "model": "gpt-4.1", "max_input_tokens": 1000000,
    "max_output_tokens": 32000, "response_token_reserve": 0, "soft_limit_threshold_pct": 100},
  "skill": "refactor",
  "thread": {"thread_id": "T1", "turn_id": "2", "parent_turn_id": "1", "declared_refs": ["INTENT-1"]}
}`

var requestNulls = `{"purpose": "plan", "intent": null, "plan_step": null, "last_error": null, "thread": null}`

func TestSchemasCompile(t *testing.T) {
	names, err := SchemaNames()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"budget_report.schema.json",
		"budget_result.schema.json",
		"build_request.schema.json",
		"build_result.schema.json",
		"check_change_args.schema.json",
		"check_change_result.schema.json",
		"cli_refusal.schema.json",
		"config.schema.json",
		"context_artifact.schema.json",
		"context_block.schema.json",
		"context_bundle.schema.json",
		"context_manifest.schema.json",
		"index_status_args.schema.json",
		"index_status_result.schema.json",
		"manifest_result.schema.json",
		"prompt.schema.json",
		"prompt_template.schema.json",
		"record_execution_args.schema.json",
		"record_execution_result.schema.json",
		"redaction_report.schema.json",
		"refusal.schema.json",
		"render_prompt_request.schema.json",
		"render_prompt_result.schema.json",
		"verify_args.schema.json",
		"verify_report.schema.json",
	}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("schema files mismatch (-want +got):\n%s", diff)
	}
	for _, name := range names {
		if _, err := compiled(name); err != nil {
			t.Errorf("%v", err)
		}
	}
}

// TestSchemaFiles checks what the compiler does not: every file declares
// draft 2020-12 and every object schema closes itself.
func TestSchemaFiles(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	names, err := SchemaNames()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join(root, SchemaDir, name))
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := doc["$schema"]; got != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("%s: $schema = %v, want draft 2020-12", name, got)
		}
		walkObjects(doc, "", func(at string, o map[string]any) {
			if o["type"] != "object" {
				return
			}
			if _, ok := o["properties"]; !ok {
				return // a free-form object: no properties to close
			}
			if o["additionalProperties"] != false {
				t.Errorf("%s: object schema at %s does not set additionalProperties: false", name, at)
			}
		})
	}
}

func walkObjects(v any, at string, f func(string, map[string]any)) {
	switch v := v.(type) {
	case map[string]any:
		f(at, v)
		for k, c := range v {
			walkObjects(c, at+"/"+k, f)
		}
	case []any:
		for i, c := range v {
			walkObjects(c, at+"/"+strconv.Itoa(i), f)
		}
	}
}

func TestValidDocuments(t *testing.T) {
	tests := []struct {
		schema string
		doc    string
	}{
		{"context_block.schema.json", blockFile},
		{"context_block.schema.json", blockSystem},
		{"context_bundle.schema.json", bundle},
		{"context_manifest.schema.json", manifest},
		{"redaction_report.schema.json", redactionReport},
		{"budget_report.schema.json", budgetReport},
		{"build_result.schema.json", buildResult},
		{"manifest_result.schema.json", manifestResult},
		{"budget_result.schema.json", budgetResult},
		{"refusal.schema.json", refusalMinimal},
		{"refusal.schema.json", refusalFull},
		{"cli_refusal.schema.json", `{"refusal": ` + refusalFull + `}`},
		{"build_request.schema.json", requestMinimal},
		{"build_request.schema.json", requestFull},
		{"build_request.schema.json", requestNulls},
		{"build_request.schema.json", `{"purpose": "diff", "active_file": "file:///a.go"}`},
		{"build_request.schema.json", `{"purpose": "diff", "user_selected_targets": [{"path": "a.go"}]}`},
		{"build_request.schema.json", `{"purpose": "plan", "model": {}}`},
		{"context_bundle.schema.json", edit(t, bundle, set("created_at", "2025-01-02T03:04:05.123456789+02:00"))},
		{"context_bundle.schema.json", edit(t, bundle, set("blocks", []any{}))},
		{"budget_report.schema.json", edit(t, budgetReport, set("decision", "warn_soft_limit"))},
		{"budget_report.schema.json", edit(t, budgetReport, set("notes", []any{"estimator: x", "warning"}))},
	}
	for i, tt := range tests {
		t.Run(fmt.Sprintf("%d_%s", i, strings.TrimSuffix(tt.schema, ".schema.json")), func(t *testing.T) {
			Validate(t, tt.schema, []byte(tt.doc))
		})
	}
}

func TestInvalidDocuments(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		doc    string
		// at is the JSON pointer of the instance the error must name.
		at string
	}{
		// context_block
		{"block unknown field", "context_block.schema.json", edit(t, blockFile, set("extra", 1)), ""},
		{"block meta unknown field", "context_block.schema.json", edit(t, blockFile, set("meta/language", "go")), "/meta"},
		{"block bad block_type", "context_block.schema.json", edit(t, blockFile, set("block_type", "summary")), "/block_type"},
		{"block bad priority", "context_block.schema.json", edit(t, blockFile, set("priority", "P4")), "/priority"},
		{"block missing content", "context_block.schema.json", edit(t, blockFile, del("content")), ""},
		{"block missing meta.path", "context_block.schema.json", edit(t, blockFile, del("meta/path")), "/meta"},
		{"block null title", "context_block.schema.json", edit(t, blockFile, set("title", nil)), "/title"},
		{"block uppercase hash", "context_block.schema.json", edit(t, blockFile, set("meta/hash", strings.ToUpper(hashA))), "/meta/hash"},
		{"block short hash", "context_block.schema.json", edit(t, blockFile, set("meta/hash", hashA[:63])), "/meta/hash"},
		{"block sha256-prefixed hash", "context_block.schema.json", edit(t, blockFile, set("meta/hash", "sha256:"+hashA)), "/meta/hash"},
		{"block bad encoding", "context_block.schema.json", edit(t, blockFile, set("meta/encoding", "latin1")), "/meta/encoding"},
		{"block bad source", "context_block.schema.json", edit(t, blockFile, set("meta/source", "network")), "/meta/source"},
		{"block negative byte_size", "context_block.schema.json", edit(t, blockFile, set("meta/byte_size", -1)), "/meta/byte_size"},
		{"block fractional line_count", "context_block.schema.json", edit(t, blockFile, set("meta/line_count", 1.5)), "/meta/line_count"},
		{"block uppercase uuid", "context_block.schema.json", edit(t, blockFile, set("block_id", strings.ToUpper(uuidA))), "/block_id"},
		{"block uuid without dashes", "context_block.schema.json", edit(t, blockFile, set("block_id", strings.ReplaceAll(uuidA, "-", ""))), "/block_id"},
		{"block path not string", "context_block.schema.json", edit(t, blockFile, set("meta/path", 3)), "/meta/path"},

		// context_bundle
		{"bundle version 2", "context_bundle.schema.json", edit(t, bundle, set("bundle_version", 2)), "/bundle_version"},
		{"bundle version string", "context_bundle.schema.json", edit(t, bundle, set("bundle_version", "1")), "/bundle_version"},
		{"bundle bad purpose", "context_bundle.schema.json", edit(t, bundle, set("purpose", "review")), "/purpose"},
		{"bundle created_at not RFC 3339", "context_bundle.schema.json", edit(t, bundle, set("created_at", "2025-01-02 03:04:05")), "/created_at"},
		{"bundle created_at without zone", "context_bundle.schema.json", edit(t, bundle, set("created_at", "2025-01-02T03:04:05")), "/created_at"},
		{"bundle created_at impossible date", "context_bundle.schema.json", edit(t, bundle, set("created_at", "2025-13-02T03:04:05Z")), "/created_at"},
		{"bundle null blocks", "context_bundle.schema.json", edit(t, bundle, set("blocks", nil)), "/blocks"},
		{"bundle null correlation_id", "context_bundle.schema.json", edit(t, bundle, set("correlation_id", nil)), "/correlation_id"},
		{"bundle model missing field", "context_bundle.schema.json", edit(t, bundle, del("model/response_token_reserve")), "/model"},
		{"bundle model unknown field", "context_bundle.schema.json", edit(t, bundle, set("model/temperature", 0)), "/model"},
		{"bundle model pct over 100", "context_bundle.schema.json", edit(t, bundle, set("model/soft_limit_threshold_pct", 101)), "/model/soft_limit_threshold_pct"},
		{"bundle bad nested block", "context_bundle.schema.json", edit(t, bundle, set("blocks/1/meta/hash", "x")), "/blocks/1/meta/hash"},

		// context_manifest
		{"manifest bad include reason", "context_manifest.schema.json", edit(t, manifest, set("selection/included_files/0/reason", "policy")), "/selection/included_files/0/reason"},
		{"manifest bad exclude reason", "context_manifest.schema.json", edit(t, manifest, set("selection/excluded_candidates/0/reason", "secret")), "/selection/excluded_candidates/0/reason"},
		{"manifest null included hash", "context_manifest.schema.json", edit(t, manifest, set("selection/included_files/0/hash", nil)), "/selection/included_files/0/hash"},
		{"manifest null target_files", "context_manifest.schema.json", edit(t, manifest, set("selection/target_files", nil)), "/selection/target_files"},
		{"manifest missing fingerprint", "context_manifest.schema.json", edit(t, manifest, del("fingerprints/config_fingerprint")), "/fingerprints"},
		{"manifest bad fingerprint", "context_manifest.schema.json", edit(t, manifest, set("fingerprints/bundle_fingerprint", hashA+"00")), "/fingerprints/bundle_fingerprint"},
		{"manifest selection unknown field", "context_manifest.schema.json", edit(t, manifest, set("selection/ranks", []any{})), "/selection"},

		// redaction_report
		{"redaction bad type", "redaction_report.schema.json", edit(t, redactionReport, set("redactions/0/type", "masked")), "/redactions/0/type"},
		{"redaction bad reason", "redaction_report.schema.json", edit(t, redactionReport, set("redactions/1/reason", "too_large")), "/redactions/1/reason"},
		{"redaction missing details", "redaction_report.schema.json", edit(t, redactionReport, del("redactions/0/details")), "/redactions/0"},
		{"redaction null redactions", "redaction_report.schema.json", edit(t, redactionReport, set("redactions", nil)), "/redactions"},

		// budget_report
		{"budget bad decision", "budget_report.schema.json", edit(t, budgetReport, set("decision", "refuse")), "/decision"},
		{"budget negative tokens", "budget_report.schema.json", edit(t, budgetReport, set("estimated_input_tokens", -5)), "/estimated_input_tokens"},
		{"budget missing hard limit", "budget_report.schema.json", edit(t, budgetReport, del("hard_limit_tokens")), ""},
		{"budget empty notes", "budget_report.schema.json", edit(t, budgetReport, set("notes", []any{})), "/notes"},
		{"budget estimator not first", "budget_report.schema.json", edit(t, budgetReport, set("notes", []any{"warning", "estimator: x"})), "/notes/0"},
		{"budget note not string", "budget_report.schema.json", edit(t, budgetReport, set("notes", []any{"estimator: x", 7})), "/notes/1"},

		// results
		{"build result missing bundle", "build_result.schema.json", edit(t, buildResult, del("bundle")), ""},
		{"build result null manifest", "build_result.schema.json", edit(t, buildResult, set("manifest", nil)), "/manifest"},
		{"build result unknown field", "build_result.schema.json", edit(t, buildResult, set("refusal", nil)), ""},
		{"build result bad nested enum", "build_result.schema.json", edit(t, buildResult, set("bundle/blocks/0/priority", "p0")), "/bundle/blocks/0/priority"},
		{"manifest result with bundle", "manifest_result.schema.json", edit(t, manifestResult, set("bundle", map[string]any{})), ""},
		{"budget result missing P3", "budget_result.schema.json", edit(t, budgetResult, del("counts/blocks/P3")), "/counts/blocks"},
		{"budget result extra priority", "budget_result.schema.json", edit(t, budgetResult, set("counts/blocks/P4", 0)), "/counts/blocks"},
		{"budget result negative count", "budget_result.schema.json", edit(t, budgetResult, set("counts/files", -1)), "/counts/files"},

		// refusal
		{"refusal unknown code", "refusal.schema.json", edit(t, refusalMinimal, set("code", "REFUSE_BECAUSE")), "/code"},
		{"refusal empty advice", "refusal.schema.json", edit(t, refusalMinimal, set("advice", "")), "/advice"},
		{"refusal missing message", "refusal.schema.json", edit(t, refusalMinimal, del("message")), ""},
		{"refusal null manifest", "refusal.schema.json", edit(t, refusalMinimal, set("manifest", nil)), "/manifest"},
		{"refusal bad candidate range", "refusal.schema.json", edit(t, refusalFull, set("candidates/0/range/start/line", -1)), "/candidates/0/range/start/line"},
		{"refusal candidate missing kind", "refusal.schema.json", edit(t, refusalFull, del("candidates/0/kind")), "/candidates/0"},
		{"refusal bad nested report", "refusal.schema.json", edit(t, refusalFull, set("budget_report/decision", "maybe")), "/budget_report/decision"},
		{"cli refusal bare", "cli_refusal.schema.json", refusalMinimal, ""},

		// build_request
		{"request missing purpose", "build_request.schema.json", `{}`, ""},
		{"request bad purpose", "build_request.schema.json", `{"purpose": "chat"}`, "/purpose"},
		{"request unknown field", "build_request.schema.json", `{"purpose": "plan", "target": "a.go"}`, ""},
		{"request unknown nested field", "build_request.schema.json", edit(t, requestFull, set("plan_step/foo", 1)), "/plan_step"},
		{"request bad scope", "build_request.schema.json", edit(t, requestFull, set("constraints/0/scope", "team")), "/constraints/0/scope"},
		{"request blank constraint", "build_request.schema.json", edit(t, requestFull, set("constraints/0/text", "  ")), "/constraints/0/text"},
		{"request selection without uri", "build_request.schema.json", edit(t, requestFull, del("selection/uri")), "/selection"},
		{"request negative character", "build_request.schema.json", edit(t, requestFull, set("selection/range/end/character", -1)), "/selection/range/end/character"},
		{"request model string tokens", "build_request.schema.json", edit(t, requestFull, set("model/max_input_tokens", "1000")), "/model/max_input_tokens"},
		{"request model zero pct", "build_request.schema.json", edit(t, requestFull, set("model/soft_limit_threshold_pct", 0)), "/model/soft_limit_threshold_pct"},
		{"request model unknown", "build_request.schema.json", edit(t, requestFull, set("model/temperature", 1)), "/model"},
		{"request thread array", "build_request.schema.json", edit(t, requestFull, set("thread", []any{})), "/thread"},
		{"request correlation not uuid", "build_request.schema.json", edit(t, requestFull, set("correlation_id", "req-1")), "/correlation_id"},
		{"request last_error without message", "build_request.schema.json", edit(t, requestFull, del("last_error/message")), "/last_error"},
		{"request empty target path", "build_request.schema.json", edit(t, requestFull, set("user_selected_targets/1/path", "")), "/user_selected_targets/1/path"},
		{"request diff without target", "build_request.schema.json", `{"purpose": "diff", "plan_step": null, "user_selected_targets": []}`, ""},
		{"request diff with empty active_file", "build_request.schema.json", `{"purpose": "diff", "active_file": ""}`, ""},

		// not JSON
		{"not json", "budget_report.schema.json", `{"bundle_id": `, ""},
		{"trailing data", "budget_report.schema.json", budgetReport + ` {}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := validate(tt.schema, []byte(tt.doc))
			if err == nil {
				t.Fatalf("validate(%s) accepted an invalid document:\n%s", tt.schema, tt.doc)
			}
			if want := fmt.Sprintf("at %q", tt.at); tt.at != "" && !strings.Contains(err.Error(), want) {
				t.Errorf("validate(%s) error does not name %s:\n%v", tt.schema, want, err)
			}
		})
	}
}

func TestUnknownSchema(t *testing.T) {
	err := validate("nope.schema.json", []byte(`{}`))
	if err == nil || !strings.Contains(err.Error(), "nope.schema.json") {
		t.Errorf("validate(nope.schema.json) = %v, want an error naming the schema", err)
	}
}

func TestLoaderIsLocalOnly(t *testing.T) {
	_, err := localOnly{}.Load("https://example.com/x.json")
	if err == nil {
		t.Error("localOnly.Load succeeded; it must never load")
	}
}

// fakeTB records Fatalf so that Validate's failure path can be tested.
type fakeTB struct {
	testing.TB
	msg string
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
}

func TestValidateReportsEveryError(t *testing.T) {
	doc := edit(t, blockFile, set("priority", "P9"), set("meta/hash", "nope"), del("title"))
	f := &fakeTB{TB: t}
	Validate(f, "context_block.schema.json", []byte(doc))
	for _, want := range []string{`at "/priority"`, `at "/meta/hash"`, "title"} {
		if !strings.Contains(f.msg, want) {
			t.Errorf("Validate's failure message does not contain %s:\n%s", want, f.msg)
		}
	}
	f = &fakeTB{TB: t}
	ValidateValue(f, "context_block.schema.json", func() {})
	if !strings.Contains(f.msg, "marshaling") {
		t.Errorf("ValidateValue(func) message = %q, want a marshaling error", f.msg)
	}
}

// The Go types of the contract must marshal to documents valid against the
// schemas, with every enum constant.

func ptr[T any](v T) *T { return &v }

func goManifest(ex contextbuilder.ExcludeReason, in contextbuilder.IncludeReason) *contextbuilder.Manifest {
	return &contextbuilder.Manifest{
		BundleID:      uuidA,
		CorrelationID: uuidB,
		Purpose:       contextbuilder.PurposeDiff,
		Selection: contextbuilder.Selection{
			TargetFiles:        []string{"a.go"},
			TargetSymbols:      []string{},
			IncludedFiles:      []contextbuilder.IncludedFile{{Path: "a.go", Hash: hashA, Encoding: "utf-8", ByteSize: 3, Reason: in}},
			ExcludedCandidates: []contextbuilder.Excluded{{Path: "b.go", Reason: ex}},
		},
		Fingerprints: contextbuilder.Fingerprints{ProjectIndexFingerprint: hashA, ConfigFingerprint: hashA, BundleFingerprint: hashB},
	}
}

func goRedactions(typ contextbuilder.RedactionType, reason contextbuilder.RedactionReason) *contextbuilder.RedactionReport {
	return &contextbuilder.RedactionReport{BundleID: uuidA, Redactions: []contextbuilder.Redaction{{Type: typ, Target: "a.go", Reason: reason, Details: "rule x"}}}
}

func goBudget(d contextbuilder.Decision) *contextbuilder.BudgetReport {
	return &contextbuilder.BudgetReport{
		BundleID: uuidA, EstimatedInputTokens: 10, MaxInputTokens: 100, SoftLimitTokens: 76,
		HardLimitTokens: 96, ReserveOutputTokens: 4, Decision: d, Notes: []string{"estimator: test"},
	}
}

func goBlock(typ contextbuilder.BlockType, p contextbuilder.Priority, src contextbuilder.Source) contextbuilder.Block {
	return contextbuilder.Block{
		BlockID: uuidB, BlockType: typ, Priority: p, Title: "t", Content: "c",
		Meta: contextbuilder.BlockMeta{Path: ptr("a.go"), Hash: ptr(hashA), Encoding: "utf-8", ByteSize: 1, LineCount: 1, Source: src},
	}
}

func TestGoTypesMatchSchemas(t *testing.T) {
	var blocks []contextbuilder.Block
	for _, bt := range []contextbuilder.BlockType{
		contextbuilder.BlockSystem, contextbuilder.BlockConstraints, contextbuilder.BlockProjectMeta, contextbuilder.BlockFile,
		contextbuilder.BlockSymbol, contextbuilder.BlockErrorContext, contextbuilder.BlockDiffHint,
	} {
		blocks = append(blocks, goBlock(bt, contextbuilder.P0, contextbuilder.SourceIndex))
	}
	for _, p := range []contextbuilder.Priority{contextbuilder.P1, contextbuilder.P2, contextbuilder.P3} {
		blocks = append(blocks, goBlock(contextbuilder.BlockFile, p, contextbuilder.SourceFilesystem))
	}
	for _, s := range []contextbuilder.Source{contextbuilder.SourceUser, contextbuilder.SourceSystem} {
		b := goBlock(contextbuilder.BlockSystem, contextbuilder.P0, s)
		b.Meta.Path, b.Meta.Hash = nil, nil
		blocks = append(blocks, b)
	}
	for _, purpose := range []contextbuilder.Purpose{contextbuilder.PurposeIntent, contextbuilder.PurposePlan, contextbuilder.PurposeDiff} {
		m := contextbuilder.DefaultConfig().Model
		ValidateValue(t, "context_bundle.schema.json", &contextbuilder.Bundle{
			BundleID: uuidA, BundleVersion: contextbuilder.BundleVersion, CreatedAt: "1970-01-01T00:00:00Z",
			Purpose: purpose, CorrelationID: uuidB, Model: m, Blocks: blocks,
		})
	}

	for _, in := range []contextbuilder.IncludeReason{
		contextbuilder.ReasonTarget, contextbuilder.ReasonDependency, contextbuilder.ReasonInterface, contextbuilder.ReasonCaller,
		contextbuilder.ReasonBaseType, contextbuilder.ReasonConfig, contextbuilder.ReasonUserSelected,
	} {
		ValidateValue(t, "context_manifest.schema.json", goManifest(contextbuilder.ExcludeDuplicate, in))
	}
	for _, ex := range []contextbuilder.ExcludeReason{
		contextbuilder.ExcludeDenyRule, contextbuilder.ExcludeBinary, contextbuilder.ExcludeTooLarge, contextbuilder.ExcludeTokenBudget,
		contextbuilder.ExcludeOutsideSandbox, contextbuilder.ExcludeSecretRisk, contextbuilder.ExcludeDuplicate, contextbuilder.ExcludePolicy,
	} {
		ValidateValue(t, "context_manifest.schema.json", goManifest(ex, contextbuilder.ReasonTarget))
	}
	for _, typ := range []contextbuilder.RedactionType{
		contextbuilder.RedactPathExcluded, contextbuilder.RedactPatternRedacted, contextbuilder.RedactBlockRemoved, contextbuilder.RedactContentSliced,
	} {
		for _, reason := range []contextbuilder.RedactionReason{
			contextbuilder.RedactReasonSecret, contextbuilder.RedactReasonDenyRule, contextbuilder.RedactReasonBudget,
			contextbuilder.RedactReasonBinary, contextbuilder.RedactReasonPolicy,
		} {
			ValidateValue(t, "redaction_report.schema.json", goRedactions(typ, reason))
		}
	}
	for _, d := range []contextbuilder.Decision{contextbuilder.DecisionOK, contextbuilder.DecisionWarn, contextbuilder.DecisionRefuse} {
		ValidateValue(t, "budget_report.schema.json", goBudget(d))
	}

	ValidateValue(t, "build_result.schema.json", &contextbuilder.Result{
		Bundle: &contextbuilder.Bundle{
			BundleID: uuidA, BundleVersion: contextbuilder.BundleVersion, CreatedAt: "2025-06-01T12:00:00Z",
			Purpose: contextbuilder.PurposePlan, CorrelationID: uuidB, Model: contextbuilder.DefaultConfig().Model, Blocks: []contextbuilder.Block{},
		},
		Manifest:        goManifest(contextbuilder.ExcludeBinary, contextbuilder.ReasonTarget),
		RedactionReport: &contextbuilder.RedactionReport{BundleID: uuidA, Redactions: []contextbuilder.Redaction{}},
		BudgetReport:    goBudget(contextbuilder.DecisionOK),
	})
	ValidateValue(t, "manifest_result.schema.json", &contextbuilder.ManifestResult{
		Manifest:        goManifest(contextbuilder.ExcludeBinary, contextbuilder.ReasonTarget),
		RedactionReport: goRedactions(contextbuilder.RedactContentSliced, contextbuilder.RedactReasonBudget),
		BudgetReport:    goBudget(contextbuilder.DecisionWarn),
	})
	ValidateValue(t, "budget_result.schema.json", &contextbuilder.BudgetResult{
		BudgetReport: goBudget(contextbuilder.DecisionRefuse),
		Counts: contextbuilder.Counts{
			Blocks: map[contextbuilder.Priority]int{contextbuilder.P0: 2, contextbuilder.P1: 0, contextbuilder.P2: 0, contextbuilder.P3: 0},
			Files:  1, Excluded: 1, Redactions: 1, TargetFiles: 1,
		},
	})

	for _, code := range []contextbuilder.RefusalCode{
		contextbuilder.RefuseContextTooLarge, contextbuilder.RefuseSecretRisk, contextbuilder.RefuseAmbiguousTarget,
		contextbuilder.RefuseUnsupportedTarget, contextbuilder.RefuseOutsideSandbox, contextbuilder.RefuseTargetNotFound,
	} {
		r := &contextbuilder.Refusal{Code: code, Message: "m", Advice: "a"}
		ValidateValue(t, "refusal.schema.json", r)
		ValidateValue(t, "cli_refusal.schema.json", map[string]any{"refusal": r})
	}
	ValidateValue(t, "refusal.schema.json", &contextbuilder.Refusal{
		Code: contextbuilder.RefuseAmbiguousTarget, Message: "m", Advice: "a",
		BudgetReport:    goBudget(contextbuilder.DecisionRefuse),
		RedactionReport: goRedactions(contextbuilder.RedactBlockRemoved, contextbuilder.RedactReasonSecret),
		Manifest:        goManifest(contextbuilder.ExcludeSecretRisk, contextbuilder.ReasonTarget),
		Candidates: []contextbuilder.Candidate{{Path: "a.go", Symbol: "a.F", Kind: "function",
			Range: contextbuilder.Range{Start: contextbuilder.Position{Line: 1}, End: contextbuilder.Position{Line: 2, Character: 1}}}},
	})

	for _, doc := range []string{requestMinimal, requestFull, requestNulls} {
		req, err := workspace.DecodeBuildRequest([]byte(doc))
		if err != nil {
			t.Fatalf("DecodeRequest(%s): %v", doc, err)
		}
		ValidateValue(t, "build_request.schema.json", req)
	}
}

// Editing sample documents.

type docEdit struct {
	path  string
	value any
	del   bool
}

func set(path string, v any) docEdit { return docEdit{path: path, value: v} }
func del(path string) docEdit        { return docEdit{path: path, del: true} }

// edit applies edits to a JSON document; a path is "/"-separated object
// keys and array indexes.
func edit(t testing.TB, doc string, edits ...docEdit) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatalf("sample document: %v", err)
	}
	for _, e := range edits {
		toks := strings.Split(e.path, "/")
		parent := v
		for _, tok := range toks[:len(toks)-1] {
			parent = child(t, parent, tok)
		}
		last := toks[len(toks)-1]
		switch p := parent.(type) {
		case map[string]any:
			if e.del {
				delete(p, last)
			} else {
				p[last] = e.value
			}
		case []any:
			i, err := strconv.Atoi(last)
			if err != nil || i >= len(p) || e.del {
				t.Fatalf("edit %q: bad array edit", e.path)
			}
			p[i] = e.value
		default:
			t.Fatalf("edit %q: %T is not a container", e.path, parent)
		}
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func child(t testing.TB, v any, tok string) any {
	t.Helper()
	switch v := v.(type) {
	case map[string]any:
		c, ok := v[tok]
		if !ok {
			t.Fatalf("edit: no key %q", tok)
		}
		return c
	case []any:
		i, err := strconv.Atoi(tok)
		if err != nil || i >= len(v) {
			t.Fatalf("edit: bad index %q", tok)
		}
		return v[i]
	}
	t.Fatalf("edit: %T is not a container", v)
	return nil
}

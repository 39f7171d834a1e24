package workspace_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/workspace"
)

// The agent workspace: a small Go module with a package used from two
// others, a same-named function elsewhere, planted credentials, and every
// kind of path the read tools must not show.
const (
	agentStoreGo = `package store

// Store keeps values by key.
type Store struct {
	m map[string]string
}

// NewStore returns an empty store.
func NewStore() *Store { return &Store{m: map[string]string{}} }

// Get returns the value of k.
func (s *Store) Get(k string) string {
	return s.m[k]
}

// StoreKey is the default key.
const StoreKey = "default"

// Getter gets values.
type Getter interface {
	Get(k string) string
}
`
	agentMainGo = `package main

import "example.com/agent/store"

func main() {
	s := store.NewStore()
	println(s.Get(store.StoreKey))
}

func restore() *store.Store {
	return store.NewStore()
}
`
	agentCacheGo = `package cache

import "example.com/agent/store"

// Cache wraps a getter.
type Cache struct {
	store.Getter
}
`
	agentOtherGo = `package other

// Get is another Get, unrelated to Store.Get.
func Get() string { return "" }

func use() string { return Get() }
`
	// awsKey is a planted AWS access key id (AKIA and 16 characters).
	awsKey   = "AKIAZ7Q3XKWM5TNE2RLV"
	agentAWS = "package creds\n\n// Key is a planted credential.\nconst Key = \"" + awsKey + "\"\n"
	// pemBody is the body of a planted private key: no part of it may
	// ever be returned.
	pemBody  = "MIIEowIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi1Ld9kXxh5mNq8V6cQ2Y4nLw8b\nq2Xy7bNfPq9WvK3mZtR8sLx4uYh1eGjD6cVbA9nS0pQrT5wXzYkH2mN7jLf3vB1c\nZ8aWq4Rt6YuI0oP5sD2fG7hJ9kL3zX1cV8bN4mQ6wE0rT2yU5iO7pA9sD3fG5hJ\n"
	agentPEM = "first line\nsecond line\n-----BEGIN RSA PRIVATE KEY-----\n" + pemBody + "-----END RSA PRIVATE KEY-----\nafter the key\nlast line\n"
	// agentTruncated holds a key without its END line: ctxd cannot prove
	// a redaction removes all of it.
	agentTruncated = "notes\n-----BEGIN RSA PRIVATE KEY-----\n" + pemBody
	agentEnv       = "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMIK7MDENGbPxRfiCYzEXAMPLEKEY\n"
	// agentMaxFileSize is the index's size cap in these tests.
	agentMaxFileSize = 4096
)

// agentEnvDir writes the agent workspace and a file outside it, and
// returns the workspace's directory.
func agentEnvDir(t *testing.T, config string) string {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(base, "ws")
	var big strings.Builder
	for i := 1; big.Len() <= 2*agentMaxFileSize; i++ {
		big.WriteString("big line " + strings.Repeat("x", 40) + "\n")
	}
	writeFiles(t, dir, map[string]string{
		"go.mod":            "module example.com/agent\n\ngo 1.22\n",
		"store/store.go":    agentStoreGo,
		"cmd/main.go":       agentMainGo,
		"cache/cache.go":    agentCacheGo,
		"other/other.go":    agentOtherGo,
		"creds/aws.go":      agentAWS,
		"certs/notes.txt":   agentPEM,
		"bad/truncated.txt": agentTruncated,
		".env":              agentEnv,
		".gitignore":        "build/\n*.log\n",
		"build/out.txt":     "built\n",
		"debug.log":         "log\n",
		"img.bin":           "\x00\x01\x02binary\x00",
		"big.txt":           big.String(),
		"secrets/x.txt":     "workspace secret\n",
		"secrets/hidden.go": "package secrets\n\n// Hidden is declared in a never-send file of the workspace.\nfunc Hidden() {}\n",
		".ctxd/config.json": config,
		"docs/readme.md":    "# Agent\n",
	})
	writeFiles(t, base, map[string]string{"outside.txt": "outside the workspace\n"})
	for link, target := range map[string]string{
		"escape.txt":     filepath.Join(base, "outside.txt"),
		"envlink.txt":    ".env",
		"secretlink.txt": "secrets/x.txt",
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// agentService opens dir as the only folder of a service, as `ctxd mcp`
// does.
func agentService(t *testing.T, dir string) *workspace.Service {
	t.Helper()
	s := workspace.NewService(workspace.ServiceOptions{
		Logger: slog.New(slog.DiscardHandler), Now: fixedNow,
		Index: index.Options{CacheDir: "off", MaxFileSize: agentMaxFileSize},
	})
	t.Cleanup(func() { s.Close() })
	s.SetRoots([]index.Root{{URI: index.PathToURI(dir), Name: "ws", Dir: dir}})
	return s
}

// agentDenyConfig makes secrets/** a never-send path of the workspace.
const agentDenyConfig = `{"schema_version": "1", "deny_rules": ["secrets/**"]}`

// agentCall is what every test calls the service as: a front end without
// positions, as the MCP server is.
var agentCall = workspace.Caller{}

// failure classifies err for the assertions: the kind, the refusal code
// ("" unless refused) and the message a front end would show.
func failure(t *testing.T, err error) (workspace.FailureKind, contextbuilder.RefusalCode, string) {
	t.Helper()
	if err == nil {
		t.Fatal("the call succeeded, want a failure")
	}
	f := workspace.Classify(err)
	if f.Kind == workspace.FailRefused {
		return f.Kind, f.Refusal.Code, f.Refusal.Message + "\nadvice: " + f.Refusal.Advice
	}
	return f.Kind, "", f.Message
}

// TestSearchSymbols: ranking (exact, prefix, substring; ties by path and
// line), the limit against the total, the kind filter, and no symbol of a
// file the tools may not show.
func TestSearchSymbols(t *testing.T) {
	s := agentService(t, agentEnvDir(t, agentDenyConfig))
	hit := func(name, qual, kind, path string, line, end int) workspace.SymbolHit {
		return workspace.SymbolHit{Name: name, QualifiedName: qual, Kind: kind, Path: path, Line: line, EndLine: end, Language: "go"}
	}
	store := hit("Store", "", "struct", "store/store.go", 4, 6)
	storeKey := hit("StoreKey", "", "const", "store/store.go", 17, 17)
	restore := hit("restore", "", "function", "cmd/main.go", 10, 12)
	field := hit("m", "Store.m", "field", "store/store.go", 5, 5)
	newStore := hit("NewStore", "", "function", "store/store.go", 9, 9)
	get := hit("Get", "Store.Get", "method", "store/store.go", 12, 14)
	for _, tc := range []struct {
		scenario string
		args     workspace.SearchSymbolsArgs
		want     *workspace.SearchSymbolsResult
	}{
		{scenario: "exact, then prefix, then substring of a name or qualified name",
			args: workspace.SearchSymbolsArgs{Query: "store"},
			want: &workspace.SearchSymbolsResult{Symbols: []workspace.SymbolHit{store, storeKey, restore, field, newStore, get}, Total: 6}},
		{scenario: "case-insensitive, and the limit keeps the best",
			args: workspace.SearchSymbolsArgs{Query: "STORE", Limit: 2},
			want: &workspace.SearchSymbolsResult{Symbols: []workspace.SymbolHit{store, storeKey}, Total: 6}},
		{scenario: "a kind keeps its symbols only",
			args: workspace.SearchSymbolsArgs{Query: "store", Kind: "function"},
			want: &workspace.SearchSymbolsResult{Symbols: []workspace.SymbolHit{restore, newStore}, Total: 2}},
		{scenario: "a qualified query matches qualified names",
			args: workspace.SearchSymbolsArgs{Query: "store.get"},
			want: &workspace.SearchSymbolsResult{Symbols: []workspace.SymbolHit{get}, Total: 1}},
		{scenario: "a symbol of a never-send file of the workspace is not found",
			args: workspace.SearchSymbolsArgs{Query: "Hidden"},
			want: &workspace.SearchSymbolsResult{Symbols: []workspace.SymbolHit{}, Total: 0}},
		{scenario: "a symbol of the planted credential file is a name, never its value",
			args: workspace.SearchSymbolsArgs{Query: "key", Kind: "const"},
			want: &workspace.SearchSymbolsResult{Symbols: []workspace.SymbolHit{hit("Key", "", "const", "creds/aws.go", 4, 4), storeKey}, Total: 2}},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			got, err := s.SearchSymbols(context.Background(), agentCall, &tc.args)
			wantResult(t, "SearchSymbols", tc.want, got, err)
		})
	}
}

// TestAgentInvalidArgs: malformed arguments are invalid (never refusals),
// and the message names the JSON field.
func TestAgentInvalidArgs(t *testing.T) {
	s := agentService(t, agentEnvDir(t, agentDenyConfig))
	ctx := context.Background()
	for _, tc := range []struct {
		scenario string
		call     func() error
		want     []string // in the message
	}{
		{scenario: "search without a query", want: []string{`field "query"`},
			call: func() error {
				_, err := s.SearchSymbols(ctx, agentCall, &workspace.SearchSymbolsArgs{Query: " "})
				return err
			}},
		{scenario: "an unknown kind lists the kinds", want: []string{`field "kind"`, `"func"`, "function", "method", "struct"},
			call: func() error {
				_, err := s.SearchSymbols(ctx, agentCall, &workspace.SearchSymbolsArgs{Query: "x", Kind: "func"})
				return err
			}},
		{scenario: "a limit over the maximum", want: []string{`field "limit"`, "500"},
			call: func() error {
				_, err := s.SearchSymbols(ctx, agentCall, &workspace.SearchSymbolsArgs{Query: "x", Limit: 501})
				return err
			}},
		{scenario: "a negative limit", want: []string{`field "limit"`},
			call: func() error {
				_, err := s.FindReferences(ctx, agentCall, &workspace.FindReferencesArgs{Symbol: "Get", Limit: -1})
				return err
			}},
		{scenario: "references without a symbol", want: []string{`field "symbol"`},
			call: func() error { _, err := s.FindReferences(ctx, agentCall, &workspace.FindReferencesArgs{}); return err }},
		{scenario: "read without a path", want: []string{`field "path"`},
			call: func() error { _, err := s.ReadFile(ctx, agentCall, &workspace.ReadFileArgs{}); return err }},
		{scenario: "a negative start line", want: []string{`field "start_line"`},
			call: func() error {
				_, err := s.ReadFile(ctx, agentCall, &workspace.ReadFileArgs{Path: "go.mod", StartLine: -1})
				return err
			}},
		{scenario: "a negative end line", want: []string{`field "end_line"`},
			call: func() error {
				_, err := s.ReadFile(ctx, agentCall, &workspace.ReadFileArgs{Path: "go.mod", EndLine: -2})
				return err
			}},
		{scenario: "an end before the start", want: []string{`field "end_line"`, "before start_line 5"},
			call: func() error {
				_, err := s.ReadFile(ctx, agentCall, &workspace.ReadFileArgs{Path: "store/store.go", StartLine: 5, EndLine: 4})
				return err
			}},
		{scenario: "a start past the end of the file", want: []string{`field "start_line"`, "past the end of store/store.go (22 lines)"},
			call: func() error {
				_, err := s.ReadFile(ctx, agentCall, &workspace.ReadFileArgs{Path: "store/store.go", StartLine: 23})
				return err
			}},
		{scenario: "a directory is not a file", want: []string{`field "path"`, "store is a directory"},
			call: func() error { _, err := s.ReadFile(ctx, agentCall, &workspace.ReadFileArgs{Path: "store"}); return err }},
		{scenario: "the folder itself is not a file", want: []string{`field "path"`},
			call: func() error { _, err := s.ReadFile(ctx, agentCall, &workspace.ReadFileArgs{Path: "."}); return err }},
		{scenario: "a glob that can never match", want: []string{`field "glob"`},
			call: func() error { _, err := s.ListFiles(ctx, agentCall, &workspace.ListFilesArgs{Glob: "[a-"}); return err }},
		{scenario: "an absolute glob", want: []string{`field "glob"`},
			call: func() error { _, err := s.ListFiles(ctx, agentCall, &workspace.ListFilesArgs{Glob: "/x"}); return err }},
		{scenario: "a list limit over the maximum", want: []string{`field "limit"`, "10000"},
			call: func() error {
				_, err := s.ListFiles(ctx, agentCall, &workspace.ListFilesArgs{Limit: 10001})
				return err
			}},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			kind, _, msg := failure(t, tc.call())
			if kind != workspace.FailInvalid {
				t.Fatalf("kind %v (%s), want FailInvalid", kind, msg)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q does not contain %q", msg, w)
				}
			}
			if strings.Contains(msg, "Args") || strings.Contains(msg, "workspace.") {
				t.Errorf("message %q names a Go type", msg)
			}
		})
	}
}

// TestDecodeAgentArgs: the argument types decode strictly, snake_case, and
// validate on decoding as the commands' do.
func TestDecodeAgentArgs(t *testing.T) {
	var r workspace.ReadFileArgs
	if err := workspace.DecodeStrict([]byte(`{"path": "a.go", "start_line": 2, "end_line": 3, "workspace_folder": "file:///w"}`), &r); err != nil {
		t.Fatalf("DecodeStrict: %v", err)
	}
	if diff := cmp.Diff(workspace.ReadFileArgs{Path: "a.go", StartLine: 2, EndLine: 3, WorkspaceFolder: "file:///w"}, r); diff != "" {
		t.Errorf("decoded (-want +got):\n%s", diff)
	}
	for _, tc := range []struct {
		raw  string
		v    any
		want string
	}{
		{raw: `{"path": "a.go", "startLine": 2}`, v: &workspace.ReadFileArgs{}, want: "startLine"},
		{raw: `{"path": "a.go", "end_line": 1, "start_line": 2}`, v: &workspace.ReadFileArgs{}, want: `field "end_line"`},
		{raw: `{"query": "x", "kind": "klass"}`, v: &workspace.SearchSymbolsArgs{}, want: `field "kind"`},
		{raw: `{"symbol": ""}`, v: &workspace.FindReferencesArgs{}, want: `field "symbol"`},
		{raw: `{"glob": "[z-"}`, v: &workspace.ListFilesArgs{}, want: `field "glob"`},
	} {
		err := workspace.DecodeStrict([]byte(tc.raw), tc.v)
		if f := workspace.Classify(err); f.Kind != workspace.FailInvalid || !strings.Contains(f.Message, tc.want) {
			t.Errorf("DecodeStrict(%s) = %v, want an invalid argument naming %s", tc.raw, err, tc.want)
		}
	}
}

// TestFindReferences: callers in other files, placed on their lines with
// the enclosing declaration; uses resolved, so a same-named function of
// another package is not a reference of Store.Get; several definitions
// and their references; a type's implementations (base_type); a path
// restricting the definitions.
func TestFindReferences(t *testing.T) {
	s := agentService(t, agentEnvDir(t, agentDenyConfig))
	def := func(name, qual, kind, path string, line, end int) workspace.SymbolHit {
		return workspace.SymbolHit{Name: name, QualifiedName: qual, Kind: kind, Path: path, Line: line, EndLine: end, Language: "go"}
	}
	ref := func(path string, line int, kind, from, target string) workspace.Reference {
		return workspace.Reference{Path: path, Line: line, Kind: kind, From: from, Target: target}
	}
	otherGet := def("Get", "", "function", "other/other.go", 4, 4)
	for _, tc := range []struct {
		scenario string
		args     workspace.FindReferencesArgs
		want     *workspace.FindReferencesResult
	}{
		{scenario: "callers in another package",
			args: workspace.FindReferencesArgs{Symbol: "NewStore"},
			want: &workspace.FindReferencesResult{
				Definitions: []workspace.SymbolHit{def("NewStore", "", "function", "store/store.go", 9, 9)},
				References: []workspace.Reference{
					ref("cmd/main.go", 6, workspace.RefReference, "main", "store/store.go#NewStore"),
					ref("cmd/main.go", 11, workspace.RefReference, "restore", "store/store.go#NewStore"),
				},
				Total: 2}},
		{scenario: "several definitions, each reference naming its own",
			args: workspace.FindReferencesArgs{Symbol: "Get"},
			want: &workspace.FindReferencesResult{
				Definitions: []workspace.SymbolHit{otherGet,
					def("Get", "Store.Get", "method", "store/store.go", 12, 14), def("Get", "Getter.Get", "method", "store/store.go", 21, 21)},
				References: []workspace.Reference{
					ref("cmd/main.go", 7, workspace.RefReference, "main", "store/store.go#Store.Get"),
					ref("other/other.go", 6, workspace.RefReference, "use", "other/other.go#Get"),
				},
				Total: 2}},
		{scenario: "a path restricts the definitions",
			args: workspace.FindReferencesArgs{Symbol: "Get", Path: "other/other.go"},
			want: &workspace.FindReferencesResult{
				Definitions: []workspace.SymbolHit{otherGet},
				References:  []workspace.Reference{ref("other/other.go", 6, workspace.RefReference, "use", "other/other.go#Get")},
				Total:       1}},
		{scenario: "a qualified name",
			args: workspace.FindReferencesArgs{Symbol: "Store.Get"},
			want: &workspace.FindReferencesResult{
				Definitions: []workspace.SymbolHit{def("Get", "Store.Get", "method", "store/store.go", 12, 14)},
				References:  []workspace.Reference{ref("cmd/main.go", 7, workspace.RefReference, "main", "store/store.go#Store.Get")},
				Total:       1}},
		{scenario: "an interface embedded by a type: base_type and the use",
			args: workspace.FindReferencesArgs{Symbol: "Getter"},
			want: &workspace.FindReferencesResult{
				Definitions: []workspace.SymbolHit{def("Getter", "", "interface", "store/store.go", 20, 22)},
				References: []workspace.Reference{
					ref("cache/cache.go", 6, workspace.RefBaseType, "Cache", "store/store.go#Getter"),
					ref("cache/cache.go", 7, workspace.RefReference, "Cache", "store/store.go#Getter"),
				},
				Total: 2}},
		{scenario: "uses in the definition's own file, and the limit",
			args: workspace.FindReferencesArgs{Symbol: "Store", Limit: 2},
			want: &workspace.FindReferencesResult{
				Definitions: []workspace.SymbolHit{def("Store", "", "struct", "store/store.go", 4, 6)},
				References: []workspace.Reference{
					ref("cmd/main.go", 10, workspace.RefReference, "restore", "store/store.go#Store"),
					ref("store/store.go", 9, workspace.RefReference, "NewStore", "store/store.go#Store"),
				},
				Total: 3}},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			got, err := s.FindReferences(context.Background(), agentCall, &tc.args)
			wantResult(t, "FindReferences", tc.want, got, err)
		})
	}
}

// TestFindReferencesRefusals: an unknown symbol (or one only a never-send
// file declares) is REFUSE_TARGET_NOT_FOUND with advice in the tool's
// argument names; a path outside the folder is REFUSE_OUTSIDE_SANDBOX.
func TestFindReferencesRefusals(t *testing.T) {
	s := agentService(t, agentEnvDir(t, agentDenyConfig))
	for _, tc := range []struct {
		scenario string
		args     workspace.FindReferencesArgs
		code     contextbuilder.RefusalCode
		want     []string
	}{
		{scenario: "unknown symbol", args: workspace.FindReferencesArgs{Symbol: "Nowhere"},
			code: contextbuilder.RefuseTargetNotFound, want: []string{`"Nowhere"`, `"symbol"`, "search_symbols"}},
		{scenario: "declared only in a never-send file of the workspace", args: workspace.FindReferencesArgs{Symbol: "Hidden"},
			code: contextbuilder.RefuseTargetNotFound, want: []string{`"Hidden"`}},
		{scenario: "not declared in the path", args: workspace.FindReferencesArgs{Symbol: "NewStore", Path: "other/other.go"},
			code: contextbuilder.RefuseTargetNotFound, want: []string{"other/other.go", `"symbol"`, `"path"`}},
		{scenario: "a path outside the folder", args: workspace.FindReferencesArgs{Symbol: "Get", Path: "../other.go"},
			code: contextbuilder.RefuseOutsideSandbox, want: []string{`field "path"`, "../other.go"}},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			_, err := s.FindReferences(context.Background(), agentCall, &tc.args)
			kind, code, msg := failure(t, err)
			if kind != workspace.FailRefused || code != tc.code {
				t.Fatalf("got %v %s (%s), want refusal %s", kind, code, msg, tc.code)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("refusal %q does not contain %q", msg, w)
				}
			}
			if strings.Contains(msg, "--") {
				t.Errorf("refusal %q speaks of command-line flags", msg)
			}
		})
	}
}

func hashOf(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// assertNoSecret fails when content holds any of the planted secrets.
func assertNoSecret(t *testing.T, content string) {
	t.Helper()
	secrets := []string{awsKey, "wJalrXUtnFEMIK7MDENGbPxRfiCYzEXAMPLEKEY", "workspace secret"}
	for _, l := range strings.Split(strings.TrimSpace(pemBody), "\n") {
		secrets = append(secrets, l, l[:16], l[len(l)-16:])
	}
	for _, sec := range secrets {
		if strings.Contains(content, sec) {
			t.Errorf("content holds secret bytes %q:\n%s", sec, content)
		}
	}
}

// TestReadFile: whole files and ranges, as the builder would redact them:
// a planted AWS key and a private key replaced by their markers, also
// when the range cuts the key, and the sha256 the manifest records.
func TestReadFile(t *testing.T) {
	dir := agentEnvDir(t, agentDenyConfig)
	s := agentService(t, dir)
	big := mustRead(t, filepath.Join(dir, "big.txt"))
	bigLine := "big line " + strings.Repeat("x", 40)
	redactedAWS := strings.Replace(agentAWS, awsKey, "[REDACTED:aws-access-key-id]", 1)
	pemRedaction := func(line int) []contextbuilder.Redaction {
		return []contextbuilder.Redaction{{Type: contextbuilder.RedactPatternRedacted, Target: "certs/notes.txt", Reason: contextbuilder.RedactReasonSecret,
			Details: fmt.Sprintf("rule private-key at line %d", line)}}
	}
	for _, tc := range []struct {
		scenario string
		args     workspace.ReadFileArgs
		want     *workspace.ReadFileResult
	}{
		{scenario: "a whole file, exactly",
			args: workspace.ReadFileArgs{Path: "store/store.go"},
			want: &workspace.ReadFileResult{Path: "store/store.go", StartLine: 1, EndLine: 22, TotalLines: 22, SHA256: hashOf([]byte(agentStoreGo)),
				Content: agentStoreGo, Redactions: []contextbuilder.Redaction{}}},
		{scenario: "a line range, without its last line break",
			args: workspace.ReadFileArgs{Path: "store/store.go", StartLine: 8, EndLine: 9},
			want: &workspace.ReadFileResult{Path: "store/store.go", StartLine: 8, EndLine: 9, TotalLines: 22, SHA256: hashOf([]byte(agentStoreGo)),
				Content: "// NewStore returns an empty store.\nfunc NewStore() *Store { return &Store{m: map[string]string{}} }", Redactions: []contextbuilder.Redaction{}}},
		{scenario: "an end past the last line reads to the end, final line break included",
			args: workspace.ReadFileArgs{Path: "other/other.go", StartLine: 6, EndLine: 600},
			want: &workspace.ReadFileResult{Path: "other/other.go", StartLine: 6, EndLine: 6, TotalLines: 6, SHA256: hashOf([]byte(agentOtherGo)),
				Content: "func use() string { return Get() }\n", Redactions: []contextbuilder.Redaction{}}},
		{scenario: "an absolute path inside the folder",
			args: workspace.ReadFileArgs{Path: filepath.Join(dir, "go.mod")},
			want: &workspace.ReadFileResult{Path: "go.mod", StartLine: 1, EndLine: 3, TotalLines: 3, SHA256: hashOf([]byte("module example.com/agent\n\ngo 1.22\n")),
				Content: "module example.com/agent\n\ngo 1.22\n", Redactions: []contextbuilder.Redaction{}}},
		{scenario: "a file URI",
			args: workspace.ReadFileArgs{Path: index.PathToURI(filepath.Join(dir, "other/other.go")), StartLine: 4, EndLine: 4},
			want: &workspace.ReadFileResult{Path: "other/other.go", StartLine: 4, EndLine: 4, TotalLines: 6, SHA256: hashOf([]byte(agentOtherGo)),
				Content: `func Get() string { return "" }`, Redactions: []contextbuilder.Redaction{}}},
		{scenario: "a ./ path",
			args: workspace.ReadFileArgs{Path: "./other//other.go", StartLine: 4, EndLine: 4},
			want: &workspace.ReadFileResult{Path: "other/other.go", StartLine: 4, EndLine: 4, TotalLines: 6, SHA256: hashOf([]byte(agentOtherGo)),
				Content: `func Get() string { return "" }`, Redactions: []contextbuilder.Redaction{}}},
		{scenario: "a planted AWS key is redacted",
			args: workspace.ReadFileArgs{Path: "creds/aws.go"},
			want: &workspace.ReadFileResult{Path: "creds/aws.go", StartLine: 1, EndLine: 4, TotalLines: 4, SHA256: hashOf([]byte(agentAWS)),
				Content: redactedAWS,
				Redactions: []contextbuilder.Redaction{{Type: contextbuilder.RedactPatternRedacted, Target: "creds/aws.go", Reason: contextbuilder.RedactReasonSecret,
					Details: "rule aws-access-key-id at line 4"}}}},
		{scenario: "a private key is redacted whole",
			args: workspace.ReadFileArgs{Path: "certs/notes.txt"},
			want: &workspace.ReadFileResult{Path: "certs/notes.txt", StartLine: 1, EndLine: 9, TotalLines: 9, SHA256: hashOf([]byte(agentPEM)),
				Content: "first line\nsecond line\n[REDACTED:private-key]\nafter the key\nlast line\n", Redactions: pemRedaction(3)}},
		{scenario: "a range starting inside the key still redacts it",
			args: workspace.ReadFileArgs{Path: "certs/notes.txt", StartLine: 5, EndLine: 8},
			want: &workspace.ReadFileResult{Path: "certs/notes.txt", StartLine: 5, EndLine: 8, TotalLines: 9, SHA256: hashOf([]byte(agentPEM)),
				Content: "[REDACTED:private-key]\nafter the key", Redactions: pemRedaction(5)}},
		{scenario: "a range ending inside the key still redacts it",
			args: workspace.ReadFileArgs{Path: "certs/notes.txt", StartLine: 2, EndLine: 4},
			want: &workspace.ReadFileResult{Path: "certs/notes.txt", StartLine: 2, EndLine: 4, TotalLines: 9, SHA256: hashOf([]byte(agentPEM)),
				Content: "second line\n[REDACTED:private-key]", Redactions: pemRedaction(3)}},
		{scenario: "a range inside the key's body",
			args: workspace.ReadFileArgs{Path: "certs/notes.txt", StartLine: 5, EndLine: 5},
			want: &workspace.ReadFileResult{Path: "certs/notes.txt", StartLine: 5, EndLine: 5, TotalLines: 9, SHA256: hashOf([]byte(agentPEM)),
				Content: "[REDACTED:private-key]", Redactions: pemRedaction(5)}},
		{scenario: "a range of a file over the index's size cap",
			args: workspace.ReadFileArgs{Path: "big.txt", StartLine: 2, EndLine: 3},
			want: &workspace.ReadFileResult{Path: "big.txt", StartLine: 2, EndLine: 3, TotalLines: strings.Count(string(big), "\n"), SHA256: hashOf(big),
				Content: bigLine + "\n" + bigLine, Redactions: []contextbuilder.Redaction{}}},
		{scenario: "lines of a file with a truncated key, away from it",
			args: workspace.ReadFileArgs{Path: "bad/truncated.txt", StartLine: 1, EndLine: 1},
			want: &workspace.ReadFileResult{Path: "bad/truncated.txt", StartLine: 1, EndLine: 1, TotalLines: 5, SHA256: hashOf([]byte(agentTruncated)),
				Content: "notes", Redactions: []contextbuilder.Redaction{}}},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			got, err := s.ReadFile(context.Background(), agentCall, &tc.args)
			wantResult(t, "ReadFile", tc.want, got, err)
			assertNoSecret(t, got.Content)
			if strings.Contains(tc.scenario, "redact") && !strings.Contains(got.Content, "[REDACTED:") {
				t.Errorf("content holds no redaction marker:\n%s", got.Content)
			}
		})
	}
}

// TestReadFileRefusals: every path a read may not show is refused with
// its code, and the message names the rule; none returns content.
func TestReadFileRefusals(t *testing.T) {
	s := agentService(t, agentEnvDir(t, agentDenyConfig))
	for _, tc := range []struct {
		scenario string
		args     workspace.ReadFileArgs
		code     contextbuilder.RefusalCode
		want     []string
	}{
		{scenario: "a parent segment", args: workspace.ReadFileArgs{Path: "../x"},
			code: contextbuilder.RefuseOutsideSandbox, want: []string{"../x", `".." segment`}},
		{scenario: "an absolute path outside", args: workspace.ReadFileArgs{Path: "/etc/passwd"},
			code: contextbuilder.RefuseOutsideSandbox, want: []string{"/etc/passwd"}},
		{scenario: "a symbolic link out of the folder", args: workspace.ReadFileArgs{Path: "escape.txt"},
			code: contextbuilder.RefuseOutsideSandbox, want: []string{"escape.txt", "symbolic link"}},
		{scenario: "a never-send file of the contract", args: workspace.ReadFileArgs{Path: ".env"},
			code: contextbuilder.RefuseUnsupportedTarget, want: []string{".env", "never-send rule", "**/.env"}},
		{scenario: "a never-send file in a subdirectory", args: workspace.ReadFileArgs{Path: "certs/.env.local"},
			code: contextbuilder.RefuseUnsupportedTarget, want: []string{"certs/.env.local", "never-send rule"}},
		{scenario: "a link to a never-send file", args: workspace.ReadFileArgs{Path: "envlink.txt"},
			code: contextbuilder.RefuseUnsupportedTarget, want: []string{"envlink.txt is a symbolic link to .env", "**/.env"}},
		{scenario: "a never-send file of the workspace", args: workspace.ReadFileArgs{Path: "secrets/x.txt"},
			code: contextbuilder.RefuseUnsupportedTarget, want: []string{"secrets/**", "deny_rules"}},
		{scenario: "a link to a never-send file of the workspace", args: workspace.ReadFileArgs{Path: "secretlink.txt"},
			code: contextbuilder.RefuseUnsupportedTarget, want: []string{"secretlink.txt is a symbolic link to secrets/x.txt", "deny_rules"}},
		{scenario: "ctxd's own records", args: workspace.ReadFileArgs{Path: ".ctxd/config.json"},
			code: contextbuilder.RefuseUnsupportedTarget, want: []string{".ctxd"}},
		{scenario: "an ignored directory's file", args: workspace.ReadFileArgs{Path: "build/out.txt"},
			code: contextbuilder.RefuseUnsupportedTarget, want: []string{"ignored", ".gitignore:1: build/"}},
		{scenario: "an ignored file", args: workspace.ReadFileArgs{Path: "debug.log"},
			code: contextbuilder.RefuseUnsupportedTarget, want: []string{"ignored", "*.log"}},
		{scenario: "a binary file", args: workspace.ReadFileArgs{Path: "img.bin"},
			code: contextbuilder.RefuseUnsupportedTarget, want: []string{"binary", "nul byte"}},
		{scenario: "a missing file", args: workspace.ReadFileArgs{Path: "missing.go"},
			code: contextbuilder.RefuseTargetNotFound, want: []string{"missing.go", `"path"`}},
		{scenario: "a whole file over the index's size cap", args: workspace.ReadFileArgs{Path: "big.txt"},
			code: contextbuilder.RefuseContextTooLarge, want: []string{"big.txt", "start_line", "end_line"}},
		{scenario: "a key that cannot be redacted safely", args: workspace.ReadFileArgs{Path: "bad/truncated.txt"},
			code: contextbuilder.RefuseSecretRisk, want: []string{"bad/truncated.txt", "private-key"}},
		{scenario: "a range cutting such a key", args: workspace.ReadFileArgs{Path: "bad/truncated.txt", StartLine: 3, EndLine: 3},
			code: contextbuilder.RefuseSecretRisk, want: []string{"private-key"}},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			res, err := s.ReadFile(context.Background(), agentCall, &tc.args)
			if res != nil {
				t.Fatalf("ReadFile returned content:\n%s", res.Content)
			}
			kind, code, msg := failure(t, err)
			if kind != workspace.FailRefused || code != tc.code {
				t.Fatalf("got %v %s (%s), want refusal %s", kind, code, msg, tc.code)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("refusal %q does not contain %q", msg, w)
				}
			}
			assertNoSecret(t, msg)
			if strings.Contains(msg, filepath.Dir(s.Index().Snapshot().Roots()[0].Root.Dir)) {
				t.Errorf("refusal %q names the folder's location", msg)
			}
		})
	}
}

// TestReadFileFresh: read_file reads what is there now: a file created or
// changed since indexing (re-read into the index first), a deleted one
// (missing), and an open document's buffer, redacted too.
func TestReadFileFresh(t *testing.T) {
	dir := agentEnvDir(t, agentDenyConfig)
	s := agentService(t, dir)
	ctx := context.Background()
	if _, err := s.ReadFile(ctx, agentCall, &workspace.ReadFileArgs{Path: "go.mod"}); err != nil {
		t.Fatalf("ReadFile before the changes: %v", err)
	}
	changed := "package other\n\nfunc Changed() {}\n"
	writeFiles(t, dir, map[string]string{"new/new.go": "package new\n", "other/other.go": changed})
	if err := os.Remove(filepath.Join(dir, "cache/cache.go")); err != nil {
		t.Fatal(err)
	}
	buffer := "package main\n\nconst token = \"" + awsKey + "\"\n"
	uri := index.PathToURI(filepath.Join(dir, "cmd/main.go"))
	s.Index().OpenDocument(ctx, uri, "go", 3, []byte(buffer))
	for _, tc := range []struct {
		path, want, sha string
	}{
		{path: "new/new.go", want: "package new\n", sha: hashOf([]byte("package new\n"))},
		{path: "other/other.go", want: changed, sha: hashOf([]byte(changed))},
		{path: "cmd/main.go", want: strings.Replace(buffer, awsKey, "[REDACTED:aws-access-key-id]", 1), sha: hashOf([]byte(buffer))},
	} {
		got, err := s.ReadFile(ctx, agentCall, &workspace.ReadFileArgs{Path: tc.path})
		if err != nil {
			t.Errorf("ReadFile(%s): %v", tc.path, err)
			continue
		}
		if got.Content != tc.want || got.SHA256 != tc.sha {
			t.Errorf("ReadFile(%s) = %q (sha256 %s), want %q (%s)", tc.path, got.Content, got.SHA256, tc.want, tc.sha)
		}
	}
	_, err := s.ReadFile(ctx, agentCall, &workspace.ReadFileArgs{Path: "cache/cache.go"})
	if _, code, msg := failure(t, err); code != contextbuilder.RefuseTargetNotFound {
		t.Errorf("reading a deleted file: %s (%s), want %s", code, msg, contextbuilder.RefuseTargetNotFound)
	}
}

// TestReadFileContentCap: a range of more text than one read returns is
// refused with advice to read fewer lines.
func TestReadFileContentCap(t *testing.T) {
	dir := agentEnvDir(t, agentDenyConfig)
	writeFiles(t, dir, map[string]string{"huge.txt": strings.Repeat(strings.Repeat("y", 99)+"\n", 3000)})
	s := agentService(t, dir)
	_, err := s.ReadFile(context.Background(), agentCall, &workspace.ReadFileArgs{Path: "huge.txt", StartLine: 1, EndLine: 3000})
	if _, code, msg := failure(t, err); code != contextbuilder.RefuseContextTooLarge || !strings.Contains(msg, "start_line") {
		t.Errorf("got %s (%s), want %s advising start_line", code, msg, contextbuilder.RefuseContextTooLarge)
	}
	got, err := s.ReadFile(context.Background(), agentCall, &workspace.ReadFileArgs{Path: "huge.txt", StartLine: 2999})
	if err != nil || got.Content != strings.Repeat("y", 99)+"\n"+strings.Repeat("y", 99)+"\n" || got.TotalLines != 3000 {
		t.Errorf("the last two lines: %+v, %v", got, err)
	}
}

// excludedRow is an excluded path with its rule's line number left out,
// so that the table does not depend on the order of the built-in rules.
type excludedRow struct {
	Path, Reason, Rule, Detail string
}

func excludedRows(ex []workspace.ExcludedPath) []excludedRow {
	out := []excludedRow{}
	for _, e := range ex {
		rule := e.Rule
		if src, rest, ok := strings.Cut(rule, ":"); ok {
			if _, text, ok := strings.Cut(rest, ": "); ok {
				rule = src + ": " + text
			}
		}
		out = append(out, excludedRow{Path: e.Path, Reason: string(e.Reason), Rule: rule, Detail: e.Detail})
	}
	return out
}

func listedPaths(files []workspace.ListedFile) []string {
	out := []string{}
	for _, f := range files {
		out = append(out, f.Path)
	}
	return out
}

// TestListFiles: the folder's files and, with reasons and rules, every
// path not shown (.env among them, named by its never-send rule); a
// directory, a glob with "**", a limit; an excluded directory.
func TestListFiles(t *testing.T) {
	s := agentService(t, agentEnvDir(t, agentDenyConfig))
	allExcluded := []excludedRow{
		{Path: ".ctxd/", Reason: "deny_rule", Rule: "deny: .ctxd"},
		{Path: ".env", Reason: "deny_rule", Rule: "deny: .env"},
		{Path: "big.txt", Reason: "too_large", Detail: "8200 bytes, cap 4096"},
		{Path: "build/", Reason: "gitignore", Rule: ".gitignore: build/"},
		{Path: "debug.log", Reason: "gitignore", Rule: ".gitignore: *.log"},
		{Path: "envlink.txt", Reason: "deny_rule", Rule: "deny: .env", Detail: "symbolic link to .env"},
		{Path: "escape.txt", Reason: "outside_sandbox", Detail: "symbolic link to a path outside the workspace root"},
		{Path: "img.bin", Reason: "binary", Detail: "nul byte"},
		{Path: "secretlink.txt", Reason: "deny_rule", Rule: "deny_rules: secrets/**", Detail: "symbolic link to secrets/x.txt"},
		{Path: "secrets/hidden.go", Reason: "deny_rule", Rule: "deny_rules: secrets/**"},
		{Path: "secrets/x.txt", Reason: "deny_rule", Rule: "deny_rules: secrets/**"},
	}
	for _, tc := range []struct {
		scenario      string
		args          workspace.ListFilesArgs
		files         []string
		excluded      []excludedRow
		total, totalX int
	}{
		{scenario: "the whole folder",
			files: []string{".gitignore", "bad/truncated.txt", "cache/cache.go", "certs/notes.txt", "cmd/main.go", "creds/aws.go",
				"docs/readme.md", "go.mod", "other/other.go", "store/store.go"},
			excluded: allExcluded, total: 10, totalX: 11},
		{scenario: "a directory",
			args:  workspace.ListFilesArgs{Path: "store/"},
			files: []string{"store/store.go"}, excluded: []excludedRow{}, total: 1},
		{scenario: "a glob relative to the directory",
			args:  workspace.ListFilesArgs{Path: "cmd", Glob: "*.go"},
			files: []string{"cmd/main.go"}, excluded: []excludedRow{}, total: 1},
		{scenario: "a glob at any depth, excluded files it matches and every excluded directory",
			args:  workspace.ListFilesArgs{Glob: "**/*.go"},
			files: []string{"cache/cache.go", "cmd/main.go", "creds/aws.go", "other/other.go", "store/store.go"},
			excluded: []excludedRow{allExcluded[0], allExcluded[3],
				{Path: "secrets/hidden.go", Reason: "deny_rule", Rule: "deny_rules: secrets/**"}},
			total: 5, totalX: 3},
		{scenario: "a glob of one directory level",
			args:  workspace.ListFilesArgs{Glob: "*.go"},
			files: []string{}, excluded: []excludedRow{allExcluded[0], allExcluded[3]}, totalX: 2},
		{scenario: "the limit",
			args:  workspace.ListFilesArgs{Limit: 2},
			files: []string{".gitignore", "bad/truncated.txt"}, excluded: allExcluded[:2], total: 10, totalX: 11},
		{scenario: "a directory of never-send files of the workspace",
			args:  workspace.ListFilesArgs{Path: "secrets"},
			files: []string{}, excluded: allExcluded[9:], totalX: 2},
		{scenario: "an ignored directory",
			args:  workspace.ListFilesArgs{Path: "build"},
			files: []string{}, excluded: []excludedRow{allExcluded[3]}, totalX: 1},
		{scenario: "a never-send directory",
			args:  workspace.ListFilesArgs{Path: ".ctxd"},
			files: []string{}, excluded: []excludedRow{allExcluded[0]}, totalX: 1},
		{scenario: "a never-send file",
			args:  workspace.ListFilesArgs{Path: ".env"},
			files: []string{}, excluded: []excludedRow{allExcluded[1]}, totalX: 1},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			got, err := s.ListFiles(context.Background(), agentCall, &tc.args)
			if err != nil {
				t.Fatalf("ListFiles: %v", err)
			}
			if diff := cmp.Diff(tc.files, listedPaths(got.Files)); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.excluded, excludedRows(got.Excluded)); diff != "" {
				t.Errorf("excluded (-want +got):\n%s", diff)
			}
			if got.Total != tc.total || got.TotalExcluded != tc.totalX {
				t.Errorf("totals %d, %d, want %d, %d", got.Total, got.TotalExcluded, tc.total, tc.totalX)
			}
		})
	}
	got, err := s.ListFiles(context.Background(), agentCall, &workspace.ListFilesArgs{Path: "store"})
	if err != nil {
		t.Fatal(err)
	}
	want := []workspace.ListedFile{{Path: "store/store.go", Language: "go", Bytes: int64(len(agentStoreGo))}}
	if diff := cmp.Diff(want, got.Files); diff != "" {
		t.Errorf("listed file (-want +got):\n%s", diff)
	}
}

// TestListFilesRefusals: a directory outside the folder, and one that does
// not exist.
func TestListFilesRefusals(t *testing.T) {
	s := agentService(t, agentEnvDir(t, agentDenyConfig))
	for _, tc := range []struct {
		path string
		code contextbuilder.RefusalCode
	}{
		{path: "..", code: contextbuilder.RefuseOutsideSandbox},
		{path: "../ws", code: contextbuilder.RefuseOutsideSandbox},
		{path: "/etc", code: contextbuilder.RefuseOutsideSandbox},
		{path: "nowhere", code: contextbuilder.RefuseTargetNotFound},
	} {
		_, err := s.ListFiles(context.Background(), agentCall, &workspace.ListFilesArgs{Path: tc.path})
		if kind, code, msg := failure(t, err); kind != workspace.FailRefused || code != tc.code {
			t.Errorf("ListFiles(%q): %v %s (%s), want refusal %s", tc.path, kind, code, msg, tc.code)
		}
	}
}

// TestAgentPolicy: a path outside the namespaces the workspace policy
// allows is refused (context_namespace_denied), listed as excluded with
// reason policy, and its symbols are not found.
func TestAgentPolicy(t *testing.T) {
	s := agentService(t, agentEnvDir(t, `{"schema_version": "1", "policy": {"schema": "ctxd.context_policy.v1",
		"namespaces": {"lib": ["store/**", "go.mod"]}, "allowed_context_namespaces": ["lib"]}}`))
	ctx := context.Background()
	_, err := s.ReadFile(ctx, agentCall, &workspace.ReadFileArgs{Path: "cmd/main.go"})
	if _, code, msg := failure(t, err); code != contextbuilder.RefuseNamespaceDenied {
		t.Errorf("ReadFile outside the namespaces: %s (%s), want %s", code, msg, contextbuilder.RefuseNamespaceDenied)
	}
	if _, err := s.ReadFile(ctx, agentCall, &workspace.ReadFileArgs{Path: "store/store.go"}); err != nil {
		t.Errorf("ReadFile inside the namespaces: %v", err)
	}
	list, err := s.ListFiles(ctx, agentCall, &workspace.ListFilesArgs{Path: "cmd"})
	if err != nil {
		t.Fatal(err)
	}
	want := []excludedRow{{Path: "cmd/main.go", Reason: string(workspace.SkipPolicy), Rule: "policy.allowed_context_namespaces"}}
	if diff := cmp.Diff(want, excludedRows(list.Excluded)); diff != "" || len(list.Files) != 0 {
		t.Errorf("listing cmd: files %v, excluded (-want +got):\n%s", list.Files, diff)
	}
	syms, err := s.SearchSymbols(ctx, agentCall, &workspace.SearchSymbolsArgs{Query: "restore"})
	if err != nil || syms.Total != 0 {
		t.Errorf("SearchSymbols outside the namespaces = %+v, %v; want none", syms, err)
	}
	_, err = s.FindReferences(ctx, agentCall, &workspace.FindReferencesArgs{Symbol: "restore"})
	if _, code, _ := failure(t, err); code != contextbuilder.RefuseTargetNotFound {
		t.Errorf("FindReferences of a symbol outside the namespaces: %s, want %s", code, contextbuilder.RefuseTargetNotFound)
	}
	refs, err := s.FindReferences(ctx, agentCall, &workspace.FindReferencesArgs{Symbol: "NewStore"})
	if err != nil || refs.Total != 0 {
		t.Errorf("references from outside the namespaces = %+v, %v; want none", refs, err)
	}
}

// TestAgentBrokenConfig: with a configuration that cannot be loaded, the
// workspace's rules are unknown, so the read tools refuse as builds do.
func TestAgentBrokenConfig(t *testing.T) {
	s := agentService(t, agentEnvDir(t, `{"schema_version": "1", "deny_rules": [`))
	_, err := s.ReadFile(context.Background(), agentCall, &workspace.ReadFileArgs{Path: "go.mod"})
	if kind, code, msg := failure(t, err); kind != workspace.FailRefused {
		t.Errorf("ReadFile with a broken config: %v %s (%s), want a refusal", kind, code, msg)
	}
	_, err = s.ListFiles(context.Background(), agentCall, &workspace.ListFilesArgs{})
	if kind, _, _ := failure(t, err); kind != workspace.FailRefused {
		t.Errorf("ListFiles with a broken config: %v, want a refusal", kind)
	}
}

// TestReadFileRulesUnusable: when the secret rules could not be loaded,
// read_file refuses: it cannot prove what it returns holds no secret.
func TestReadFileRulesUnusable(t *testing.T) {
	dir := agentEnvDir(t, agentDenyConfig)
	s := workspace.NewService(workspace.ServiceOptions{Logger: slog.New(slog.DiscardHandler), Index: index.Options{CacheDir: "off"},
		RedactorErr: errors.New("rules.json: bad")})
	t.Cleanup(func() { s.Close() })
	s.SetRoots([]index.Root{{URI: index.PathToURI(dir), Name: "ws", Dir: dir}})
	_, err := s.ReadFile(context.Background(), agentCall, &workspace.ReadFileArgs{Path: "go.mod"})
	if _, code, _ := failure(t, err); code != contextbuilder.RefuseSecretRisk {
		t.Errorf("code %s, want %s", code, contextbuilder.RefuseSecretRisk)
	}
}

// TestAgentSeveralFolders: with several folders, a relative path needs
// workspace_folder, and a file URI or absolute path picks its folder.
func TestAgentSeveralFolders(t *testing.T) {
	a, b := agentEnvDir(t, agentDenyConfig), agentEnvDir(t, agentDenyConfig)
	writeFiles(t, b, map[string]string{"only_b.txt": "b\n"})
	s := workspace.NewService(workspace.ServiceOptions{Logger: slog.New(slog.DiscardHandler), Index: index.Options{CacheDir: "off"}})
	t.Cleanup(func() { s.Close() })
	s.SetRoots([]index.Root{{URI: index.PathToURI(a), Name: "a", Dir: a}, {URI: index.PathToURI(b), Name: "b", Dir: b}})
	ctx := context.Background()
	_, err := s.ReadFile(ctx, agentCall, &workspace.ReadFileArgs{Path: "only_b.txt"})
	if kind, _, msg := failure(t, err); kind != workspace.FailInvalid || !strings.Contains(msg, `field "workspace_folder"`) {
		t.Errorf("a relative path with two folders: %v (%s), want an invalid argument naming workspace_folder", kind, msg)
	}
	for _, args := range []workspace.ReadFileArgs{
		{Path: filepath.Join(b, "only_b.txt")},
		{Path: "only_b.txt", WorkspaceFolder: index.PathToURI(b)},
	} {
		got, err := s.ReadFile(ctx, agentCall, &args)
		if err != nil || got.Content != "b\n" {
			t.Errorf("ReadFile(%+v) = %+v, %v", args, got, err)
		}
	}
}

// wantResult fails the test when a call failed or its result is not want.
func wantResult[R any](t *testing.T, call string, want, got *R, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", call, err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s result (-want +got):\n%s", call, diff)
	}
}

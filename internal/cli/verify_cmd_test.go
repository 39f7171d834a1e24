package cli

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/contextbuilder/cbtest"
	"github.com/ctxd/ctxd/index/indextest"
	"github.com/ctxd/ctxd/workspace"
)

// verifyConfig defines one skill, so that any other name is refused.
const verifyConfig = `{
  "schema_version": "1",
  "policy": {
    "schema": "ctxd.context_policy.v1",
    "namespaces": {"code": ["*.go", "go.mod"]},
    "allowed_context_namespaces": ["code"],
    "skills": {"review": {"max_items": 6}}
  }
}
`

// verifyWorkspace is a one-file module with a policy.
const verifyWorkspace = `
-- go.mod --
module example.com/a
-- a.go --
package a

// Twice doubles n.
func Twice(n int) int { return 2 * n }
-- .ctxd/config.json --
` + verifyConfig

// buildTurn runs ctxd build for one turn of thread th and returns its exit
// code and stdout.
func buildTurn(t *testing.T, dir string, extra ...string) (int, string) {
	t.Helper()
	args := append([]string{"build", "--root", dir, "--purpose", "diff", "--target", "a.go", "--cache-dir", "off"}, extra...)
	code, stdout, stderr := runCLI(t, args...)
	if code != exitOK && code != exitRefused {
		t.Fatalf("ctxd %s: exit %d\nstderr:\n%s", strings.Join(args, " "), code, stderr)
	}
	return code, stdout
}

// verifyJSON runs ctxd verify --json, validates its output and decodes it.
func verifyJSON(t *testing.T, dir string, args ...string) (int, workspace.Report) {
	t.Helper()
	code, stdout, stderr := runCLI(t, append([]string{"verify", "--root", dir, "--json"}, args...)...)
	if code != exitOK && code != exitMismatch && code != exitIncomplete {
		t.Fatalf("ctxd verify --json: exit %d\nstderr:\n%s", code, stderr)
	}
	cbtest.Validate(t, "verify_report.schema.json", []byte(stdout))
	var r workspace.Report
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("decoding the report: %v\n%s", err, stdout)
	}
	return code, r
}

func TestVerifyUsage(t *testing.T) {
	dir := indextest.WriteTree(t, verifyWorkspace)
	file := filepath.Join(dir, "a.go")
	tests := []cliCase{
		{name: "help", args: []string{"verify", "--help"}, wantStdout: "-mode"},
		{name: "missing root", args: []string{"verify"}, wantCode: 2, wantStderr: "--root is required"},
		{name: "bad mode", args: []string{"verify", "--root", dir, "--mode", "replay"}, wantCode: 2, wantStderr: `invalid --mode "replay"`},
		{name: "root is a file", args: []string{"verify", "--root", file}, wantCode: 2, wantStderr: "not a directory"},
		{name: "root does not exist", args: []string{"verify", "--root", filepath.Join(dir, "nope")}, wantCode: 2, wantStderr: "no such file"},
		{name: "stray argument", args: []string{"verify", "--root", dir, "extra"}, wantCode: 2, wantStderr: `unexpected argument "extra"`},
		{name: "unknown flag", args: []string{"verify", "--root", dir, "--nope"}, wantCode: 2, wantStderr: "-nope"},
		// Issue 32: --verbose shapes the text report; JSON lists every check.
		{name: "json and verbose", args: []string{"verify", "--root", dir, "--json", "--verbose"}, wantCode: 2, wantStderr: "--verbose applies to the text report; the --json report always lists every check"},
		{name: "help says json lists every check", args: []string{"verify", "--help"}, wantStdout: "always lists every check"},
	}
	runCLICases(t, tests)
	if _, err := os.Stat(filepath.Join(dir, ".ctxd", "ledger")); err == nil {
		t.Error("a usage error created state under .ctxd")
	}
}

// TestVerifyNothingRecorded: a workspace ctxd never wrote to verifies, and
// verifying writes nothing.
func TestVerifyNothingRecorded(t *testing.T) {
	dir := indextest.WriteTree(t, "-- go.mod --\nmodule example.com/a\n-- a.go --\npackage a\n")
	code, stdout, stderr := runCLI(t, "verify", "--root", dir)
	if code != exitOK || !strings.Contains(stdout, "verified") || strings.Contains(stdout, "NOT verified") {
		t.Errorf("exit %d, stdout %q, stderr %q; want 0 and verified", code, stdout, stderr)
	}
	code, r := verifyJSON(t, dir, "--mode", "ledger")
	if code != exitOK || !r.OK || r.Counts != (workspace.Counts{}) {
		t.Errorf("--json --mode ledger: exit %d, ok %v, counts %+v; want 0, ok, all zero", code, r.OK, r.Counts)
	}
	if _, err := os.Lstat(filepath.Join(dir, ".ctxd")); err == nil {
		t.Error("ctxd verify created .ctxd")
	}
}

// TestVerifyRecordsWithoutConfig: in a workspace without a
// .ctxd/config.json, verify says which records directory it read (the
// state directory's) and that the digest the ledger pins is that of ctxd's
// defaults, not of a file that does not exist; in one with a config, the
// workspace's .ctxd and the file's digest.
func TestVerifyRecordsWithoutConfig(t *testing.T) {
	bare := indextest.WriteTree(t, "-- go.mod --\nmodule example.com/a\n-- a.go --\npackage a\n\nfunc A() {}\n")
	rec, err := workspace.Locate(bare)
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "verify", "--root", bare)
	if want := "no .ctxd/config.json\nrecords: none yet (builds record in " + rec.Dir + ")\n"; code != exitOK || !strings.HasSuffix(stdout, want) {
		t.Errorf("before any build: exit %d, stdout does not end with %q:\n%s%s", code, want, stdout, stderr)
	}
	if code, _ := buildTurn(t, bare, "--thread-id", "th", "--turn-id", "t1", "--intent", "x"); code != exitOK {
		t.Fatalf("build: exit %d", code)
	}
	code, stdout, stderr = runCLI(t, "verify", "--root", bare)
	_, r := verifyJSON(t, bare)
	want := "; no .ctxd/config.json: ctxd's defaults, " + r.ContextConfigDigest + " (context_config_digest)\nrecords: " + rec.Dir + "\n"
	if code != exitOK || r.ContextConfigDigest == "" || !strings.HasSuffix(stdout, want) || strings.Contains(stdout, ".ctxd/config.json sha256") {
		t.Errorf("exit %d, stdout does not end with %q:\n%s%s", code, want, stdout, stderr)
	}

	opted := indextest.WriteTree(t, verifyWorkspace)
	if code, _ := buildTurn(t, opted, "--thread-id", "th", "--turn-id", "t1", "--intent", "x"); code != exitOK {
		t.Fatalf("build: exit %d", code)
	}
	code, stdout, _ = runCLI(t, "verify", "--root", opted)
	_, r = verifyJSON(t, opted)
	want = "; .ctxd/config.json " + r.ContextConfigDigest + " (context_config_digest)\nrecords: " + filepath.Join(opted, ".ctxd") + "\n"
	if code != exitOK || !strings.HasSuffix(stdout, want) {
		t.Errorf("with a config: exit %d, stdout does not end with %q:\n%s", code, want, stdout)
	}
}

// TestVerifyThreadCLI records a thread with ctxd build, verifies it in
// both modes, then changes what was recorded.
func TestVerifyThreadCLI(t *testing.T) {
	dir := indextest.WriteTree(t, verifyWorkspace)
	if code, _ := buildTurn(t, dir, "--thread-id", "th", "--turn-id", "t1", "--intent", "double faster"); code != exitOK {
		t.Fatalf("turn t1: exit %d", code)
	}
	if code, _ := buildTurn(t, dir, "--thread-id", "th", "--turn-id", "t2", "--parent-turn-id", "t1", "--ref", "intent:t1"); code != exitOK {
		t.Fatalf("turn t2: exit %d", code)
	}
	for _, mode := range []string{"stream", "ledger"} {
		code, stdout, stderr := runCLI(t, "verify", "--root", dir, "--mode", mode)
		if code != exitOK || !strings.Contains(stdout, "verified ("+mode+" replay): 4 ledger events") || strings.Contains(stdout, "MISMATCH") {
			t.Errorf("--mode %s: exit %d\nstdout:\n%s\nstderr:\n%s", mode, code, stdout, stderr)
		}
		code, r := verifyJSON(t, dir, "--mode", mode)
		if code != exitOK || !r.OK || r.Mode != mode || r.Counts.LedgerEvents != 4 || r.Counts.Mismatches != 0 || r.ContextConfigDigest == "" {
			t.Errorf("--json --mode %s: exit %d, ok %v, mode %q, counts %+v, config %q", mode, code, r.OK, r.Mode, r.Counts, r.ContextConfigDigest)
		}
	}

	// A refused turn is a DENY decision: recorded, and it verifies.
	code, stdout := buildTurn(t, dir, "--thread-id", "th", "--turn-id", "t3", "--ref", "execution:t2")
	if code != exitRefused || !strings.Contains(stdout, `"code": "REF_NOT_FOUND"`) {
		t.Errorf("turn t3 with an unknown ref: exit %d, stdout:\n%s", code, stdout)
	}
	code, r := verifyJSON(t, dir)
	if code != exitOK || !r.OK || r.Counts.LedgerEvents != 6 {
		t.Errorf("after a refused turn: exit %d, ok %v, counts %+v; want ok with 6 ledger events", code, r.OK, r.Counts)
	}

	t.Run("tampered artifact", func(t *testing.T) {
		cp := t.TempDir()
		if err := os.CopyFS(cp, os.DirFS(dir)); err != nil {
			t.Fatal(err)
		}
		names, err := filepath.Glob(filepath.Join(cp, ".ctxd", "artifacts", "contexts", "*.json"))
		if err != nil || len(names) == 0 {
			t.Fatalf("no contexts artifact (%v)", err)
		}
		data, err := os.ReadFile(names[0])
		if err != nil {
			t.Fatal(err)
		}
		data[len(data)/2] ^= 0x01
		if err := os.WriteFile(names[0], data, 0o600); err != nil {
			t.Fatal(err)
		}
		rel := ".ctxd/artifacts/contexts/" + filepath.Base(names[0])
		code, stdout, _ := runCLI(t, "verify", "--root", cp)
		if code != exitMismatch || !strings.Contains(stdout, "MISMATCH  artifact contexts "+rel) || !strings.Contains(stdout, "NOT verified") {
			t.Errorf("exit %d, want %d naming %s:\n%s", code, exitMismatch, rel, stdout)
		}
		code, r := verifyJSON(t, cp)
		if code != exitMismatch || r.OK || r.Counts.Mismatches == 0 {
			t.Errorf("--json: exit %d, ok %v, counts %+v", code, r.OK, r.Counts)
		}
		var named bool
		for _, c := range r.Checks {
			if c.Status == workspace.StatusMismatch && c.Source == "artifact" && c.Name == rel {
				named = true
			}
		}
		if !named {
			t.Errorf("--json: no mismatch check names %s: %+v", rel, r.Checks)
		}
	})

	// seed 000: DECISION.boundary.context_config_digest must equal the
	// digest of the config as it is now.
	t.Run("config changed", func(t *testing.T) {
		cp := t.TempDir()
		if err := os.CopyFS(cp, os.DirFS(dir)); err != nil {
			t.Fatal(err)
		}
		changed := strings.Replace(verifyConfig, `"max_items": 6`, `"max_items": 5`, 1)
		if err := os.WriteFile(filepath.Join(cp, ".ctxd", "config.json"), []byte(changed), 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, _ := runCLI(t, "verify", "--root", cp, "--mode", "ledger")
		if code != exitMismatch || !strings.Contains(stdout, "boundary.context_config_digest") {
			t.Errorf("exit %d, want %d naming boundary.context_config_digest:\n%s", code, exitMismatch, stdout)
		}
	})
}

// TestBuildUnknownSkill: a skill the config does not define is refused
// with exit 3 and seed 001's reason, naming the defined ones.
func TestBuildUnknownSkill(t *testing.T) {
	dir := indextest.WriteTree(t, verifyWorkspace)
	code, stdout, stderr := runCLI(t, "build", "--root", dir, "--purpose", "diff", "--target", "a.go", "--cache-dir", "off", "--skill", "nope")
	if code != exitRefused {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitRefused, stdout, stderr)
	}
	cbtest.Validate(t, "cli_refusal.schema.json", []byte(stdout))
	var out struct{ Refusal contextbuilder.Refusal }
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	if out.Refusal.Code != "context_policy_override_invalid" || !strings.Contains(out.Refusal.Message, "review") || out.Refusal.Advice == "" {
		t.Errorf("refusal = %+v, want context_policy_override_invalid naming the defined skill review", out.Refusal)
	}
	if !strings.Contains(stderr, "refused: context_policy_override_invalid") {
		t.Errorf("stderr %q does not name the refusal", stderr)
	}
	if code, _, stderr := runCLI(t, "build", "--root", dir, "--purpose", "diff", "--target", "a.go", "--cache-dir", "off", "--skill", "review"); code != exitOK {
		t.Errorf("--skill review: exit %d, stderr %q", code, stderr)
	}
}

// TestVerifyProjectionCLI: .ctxd/ledger.sqlite is checked by both modes
// against a fresh projection of the ledger: a row forged through SQL and
// flipped bytes are mismatches (exit 4) naming the table and row,
// verification never overwrites the file, and --repair rebuilds it and
// says so.
func TestVerifyProjectionCLI(t *testing.T) {
	dir := indextest.WriteTree(t, verifyWorkspace)
	if code, _ := buildTurn(t, dir, "--thread-id", "th", "--turn-id", "t1", "--intent", "double faster"); code != exitOK {
		t.Fatalf("turn t1: exit %d", code)
	}
	proj := filepath.Join(dir, ".ctxd", "ledger.sqlite")
	if code, stdout, stderr := runCLI(t, "verify", "--root", dir, "--mode", "ledger"); code != exitOK {
		t.Fatalf("--mode ledger: exit %d\n%s\n%s", code, stdout, stderr)
	}
	// A later build keeps the projection current.
	if code, _ := buildTurn(t, dir, "--thread-id", "th", "--turn-id", "t2", "--parent-turn-id", "t1", "--ref", "intent:t1"); code != exitOK {
		t.Fatalf("turn t2: exit %d", code)
	}
	clean, err := os.ReadFile(proj)
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"stream", "ledger"} {
		if code, stdout, _ := runCLI(t, "verify", "--root", dir, "--mode", mode); code != exitOK {
			t.Errorf("--mode %s after a build: exit %d\n%s", mode, code, stdout)
		}
	}

	db, err := sql.Open("sqlite", proj)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE decisions SET result = 'DENY' WHERE event_index = 1`); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	forged, err := os.ReadFile(proj)
	if err != nil {
		t.Fatal(err)
	}
	want := `MISMATCH  ledger: projection.decisions: ledger.sqlite: table decisions: row event_index=1: result is "DENY", the ledger gives "ALLOW"`
	for _, mode := range []string{"stream", "ledger"} {
		code, stdout, _ := runCLI(t, "verify", "--root", dir, "--mode", mode)
		if code != exitMismatch || !strings.Contains(stdout, want) {
			t.Errorf("--mode %s of a forged row: exit %d, want %d with %q:\n%s", mode, code, exitMismatch, want, stdout)
		}
		if after, _ := os.ReadFile(proj); string(after) != string(forged) {
			t.Errorf("--mode %s overwrote the forged projection", mode)
		}
	}

	for _, at := range []int{0, 17, 100, len(clean) / 3, len(clean) / 2, len(clean) - 1} {
		flipped := []byte(string(clean))
		flipped[at] ^= 0x01
		if err := os.WriteFile(proj, flipped, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, mode := range []string{"stream", "ledger"} {
			code, r := verifyJSON(t, dir, "--mode", mode)
			named := false
			for _, c := range r.Checks {
				named = named || c.Status == workspace.StatusMismatch && strings.HasPrefix(c.Field, "projection")
			}
			if code != exitMismatch || r.OK || !named {
				t.Errorf("byte %d of the projection flipped, --mode %s: exit %d, ok %v, projection named %v", at, mode, code, r.OK, named)
			}
		}
	}

	code, stdout, stderr := runCLI(t, "verify", "--root", dir, "--repair")
	if code != exitOK || !strings.Contains(stdout, "repaired: .ctxd/ledger.sqlite rebuilt from the ledger") {
		t.Errorf("--repair: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if after, _ := os.ReadFile(proj); string(after) != string(clean) {
		t.Error("--repair did not restore the projection's bytes")
	}
	code, r := verifyJSON(t, dir, "--repair", "--mode", "ledger")
	if code != exitOK || !r.OK || len(r.Checks) == 0 || r.Checks[0].Field != "projection" || !strings.Contains(r.Checks[0].Message, "--repair") {
		t.Errorf("--json --repair: exit %d, ok %v, first check %+v", code, r.OK, r.Checks)
	}
}

// TestVerifyInterruptedCLI: what a process killed while recording leaves
// (the ledger's or the audit trail's last line cut short, the projection
// behind the ledger) exits 6, not 4; --repair completes it and exits 0;
// a real tamper exits 4, with or without --repair, and --repair leaves the
// tampered journal as it is.
func TestVerifyInterruptedCLI(t *testing.T) {
	dir := indextest.WriteTree(t, verifyWorkspace)
	if code, _ := buildTurn(t, dir, "--thread-id", "th", "--turn-id", "t1", "--intent", "double faster"); code != exitOK {
		t.Fatalf("turn t1: exit %d", code)
	}
	if code, stdout, stderr := runCLI(t, "verify", "--root", dir, "--repair"); code != exitOK {
		t.Fatalf("writing the projection: exit %d\n%s%s", code, stdout, stderr)
	}
	// cut keeps the file up to the middle of its last line.
	cut := func(t *testing.T, path string) {
		t.Helper()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		start := strings.LastIndexByte(string(data[:len(data)-1]), '\n') + 1
		if err := os.Truncate(path, int64(start+(len(data)-start)/2)); err != nil {
			t.Fatal(err)
		}
	}
	copyOf := func(t *testing.T) string {
		t.Helper()
		cp := t.TempDir()
		if err := os.CopyFS(cp, os.DirFS(dir)); err != nil {
			t.Fatal(err)
		}
		return cp
	}
	// unprojected records turn t2 and puts the projection back as it was
	// before: what a kill between the ledger's append and the
	// projection's rewrite leaves.
	unprojected := func(t *testing.T, cp string) {
		t.Helper()
		old, err := os.ReadFile(filepath.Join(cp, ".ctxd", "ledger.sqlite"))
		if err != nil {
			t.Fatal(err)
		}
		if code, _ := buildTurn(t, cp, "--thread-id", "th", "--turn-id", "t2", "--parent-turn-id", "t1", "--ref", "intent:t1"); code != exitOK {
			t.Fatalf("turn t2: exit %d", code)
		}
		if err := os.WriteFile(filepath.Join(cp, ".ctxd", "ledger.sqlite"), old, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, cp string)
	}{
		{"projection behind", unprojected},
		{"ledger cut mid-line", func(t *testing.T, cp string) {
			// Killed in the middle of writing turn t2's INTENT and
			// DECISION: the projection was not rewritten either.
			unprojected(t, cp)
			cut(t, filepath.Join(cp, ".ctxd", "ledger", "events.jsonl"))
		}},
		{"audit cut mid-line", func(t *testing.T, cp string) { cut(t, filepath.Join(cp, ".ctxd", "audit.jsonl")) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cp := copyOf(t)
			tc.setup(t, cp)
			for _, mode := range []string{"stream", "ledger"} {
				code, stdout, _ := runCLI(t, "verify", "--root", cp, "--mode", mode)
				if code != exitIncomplete || !strings.Contains(stdout, "INCOMPLETE ") || strings.Contains(stdout, "MISMATCH") || !strings.Contains(stdout, "--repair") {
					t.Errorf("--mode %s: exit %d, want %d with INCOMPLETE and no MISMATCH:\n%s", mode, code, exitIncomplete, stdout)
				}
			}
			code, r := verifyJSON(t, cp)
			if code != exitIncomplete || r.OK || r.Counts.Mismatches != 0 || r.Counts.Incomplete == 0 {
				t.Errorf("--json: exit %d, ok %v, counts %+v; want %d, not ok, incomplete only", code, r.OK, r.Counts, exitIncomplete)
			}
			code, stdout, stderr := runCLI(t, "verify", "--root", cp, "--repair")
			if code != exitOK || !strings.Contains(stdout, "repaired: ") || strings.Contains(stdout, "INCOMPLETE") {
				t.Errorf("--repair: exit %d, want 0:\n%s%s", code, stdout, stderr)
			}
			if code, stdout, _ := runCLI(t, "verify", "--root", cp, "--mode", "ledger"); code != exitOK {
				t.Errorf("after --repair: exit %d:\n%s", code, stdout)
			}
		})
	}

	t.Run("tamper", func(t *testing.T) {
		cp := copyOf(t)
		path := filepath.Join(cp, ".ctxd", "ledger", "events.jsonl")
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		data[len(data)/3] ^= 0x01
		cut(t, filepath.Join(cp, ".ctxd", "audit.jsonl")) // a crash as well
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if code, stdout, _ := runCLI(t, "verify", "--root", cp); code != exitMismatch || !strings.Contains(stdout, "NOT verified") {
			t.Errorf("exit %d, want %d:\n%s", code, exitMismatch, stdout)
		}
		if code, stdout, _ := runCLI(t, "verify", "--root", cp, "--repair"); code != exitMismatch {
			t.Errorf("--repair: exit %d, want %d:\n%s", code, exitMismatch, stdout)
		}
		if after, _ := os.ReadFile(path); string(after) != string(data) {
			t.Error("--repair changed a tampered journal")
		}
	})
}

package ledger

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// verifyBoth runs both replay modes and fails when they disagree.
func verifyBoth(t *testing.T, dir string, opts VerifyOptions) []Check {
	t.Helper()
	opts.Mode = ModeStream
	stream, err := VerifyLedger(dir, opts)
	if err != nil {
		t.Fatalf("VerifyLedger(stream): %v", err)
	}
	opts.Mode = ModeLedger
	if opts.SQLitePath == "" {
		opts.SQLitePath = filepath.Join(t.TempDir(), "ledger.sqlite")
	}
	ledger, err := VerifyLedger(dir, opts)
	if err != nil {
		t.Fatalf("VerifyLedger(ledger): %v", err)
	}
	if diff := cmp.Diff(stream, ledger); diff != "" {
		t.Fatalf("stream and ledger replay disagree (-stream +ledger):\n%s", diff)
	}
	return stream
}

func TestVerifyFixtureAllOK(t *testing.T) {
	l, dir := openTestLedger(t)
	writeFixture(t, l, defaultTexts())
	checks := verifyBoth(t, dir, fullOptions("", ""))
	kinds := []string{"INTENT", "DECISION", "EXECUTION", "INTENT", "DECISION", "INTENT", "DECISION", "INTENT", "DECISION"}
	var want []Check
	for i, k := range kinds {
		want = append(want, Check{Source: SourceLedger, EventIndex: i, Kind: k, Status: StatusOK})
	}
	if diff := cmp.Diff(want, checks); diff != "" {
		t.Errorf("checks (-want +got):\n%s", diff)
	}
}

func TestVerifyMissingFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ledger")
	for _, mode := range []Mode{ModeStream, ModeLedger} {
		sqlitePath := filepath.Join(t.TempDir(), "ledger.sqlite")
		checks, err := VerifyLedger(dir, VerifyOptions{Mode: mode, SQLitePath: sqlitePath})
		if err != nil || len(checks) != 0 {
			t.Errorf("VerifyLedger(%s) of a missing ledger = %v, %v; want no checks, no error", mode, checks, err)
		}
		if _, err := os.Stat(sqlitePath); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("VerifyLedger(%s) of a missing ledger wrote a projection", mode)
		}
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("verification created the ledger directory")
	}
	checks, err := VerifyAudit(filepath.Join(dir, "audit.jsonl"))
	if err != nil || len(checks) != 0 {
		t.Errorf("VerifyAudit of a missing file = %v, %v; want no checks, no error", checks, err)
	}
}

func TestVerifyOptionsErrors(t *testing.T) {
	l, dir := openTestLedger(t)
	writeFixture(t, l, defaultTexts())
	for _, opts := range []VerifyOptions{{Mode: "replay"}, {Mode: ModeLedger}} {
		if _, err := VerifyLedger(dir, opts); !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("VerifyLedger(%+v) error = %v, want ErrInvalidOptions", opts, err)
		}
	}
}

func TestVerifySkippedChecks(t *testing.T) {
	l, dir := openTestLedger(t)
	writeFixture(t, l, defaultTexts())
	checks := verifyBoth(t, dir, VerifyOptions{})
	var got []Check
	for _, c := range checks {
		if c.Status != StatusOK {
			got = append(got, c)
		}
	}
	want := []Check{
		{Source: SourceLedger, EventIndex: -1, Status: StatusSkipped, Field: "boundary.context_config_digest",
			Message: "no current config digest was given; pinned config digests were not compared"},
		{Source: SourceLedger, EventIndex: -1, Status: StatusSkipped, Field: "bundle", Message: "bundle artifacts were not checked"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("non-ok checks (-want +got):\n%s", diff)
	}
}

func TestVerifyCheckBundle(t *testing.T) {
	l, dir := openTestLedger(t)
	writeFixture(t, l, defaultTexts())
	opts := fullOptions("", "")
	opts.CheckBundle = func(ref BundleRef) (string, string) {
		if ref.BundleID == "bundle-t2" {
			return "bundle_fingerprint", "the artifact was rebuilt differently"
		}
		return "", ""
	}
	got := mismatches(verifyBoth(t, dir, opts))
	want := []Check{{Source: SourceLedger, EventIndex: 6, Kind: "DECISION", Status: StatusMismatch,
		Field: "bundle_fingerprint", Message: "the artifact was rebuilt differently"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mismatches (-want +got):\n%s", diff)
	}
}

// TestVerifyResealedTampering edits events the way someone who knows the
// format would, recomputing the whole hash chain: only the semantic
// replay can catch these. Each case names the check that must catch it.
func TestVerifyResealedTampering(t *testing.T) {
	const allowDecision = 6  // A/t2, refs [execution:t1, intent:t1]
	var leak json.RawMessage // the EXECUTION payload, carried from line 2 to line 6
	tests := []struct {
		name      string
		edit      func(t testing.TB, i int, m map[string]json.RawMessage)
		wantIndex int
		wantField string
		wantIn    string
	}{
		{
			name: "intent text changed after its own decision",
			edit: func(t testing.TB, i int, m map[string]json.RawMessage) {
				if i == 0 {
					editPayload(t, m, func(p *IntentPayload) { p.UserInput = "What is 2+3?" })
				}
			},
			wantIndex: 1, wantField: "context_spec.intent",
		},
		{
			name: "intent text changed after a decision referring to it",
			edit: func(t testing.TB, i int, m map[string]json.RawMessage) {
				if i == 0 {
					editPayload(t, m, func(p *IntentPayload) { p.UserInput = "What is 2+3?" })
				}
			},
			wantIndex: allowDecision, wantField: "resolved_refs", wantIn: "resolving again gives",
		},
		{
			name: "stored context digest changed",
			edit: func(t testing.TB, i int, m map[string]json.RawMessage) {
				if i == allowDecision {
					editPayload(t, m, func(p *DecisionPayload) { p.ContextDigest = sha256Digest([]byte("x")) })
				}
			},
			wantIndex: allowDecision, wantField: "context_digest",
		},
		{
			name: "resolved refs reordered, digest recomputed",
			edit: func(t testing.TB, i int, m map[string]json.RawMessage) {
				if i == allowDecision {
					editPayload(t, m, func(p *DecisionPayload) {
						r := p.ContextSpec.Retrieval.ResolvedRefs
						r[0], r[1] = r[1], r[0]
						p.ContextDigest, _ = ContextDigest(p.ContextSpec, p.AssembledContext)
					})
				}
			},
			wantIndex: allowDecision, wantField: "resolved_refs",
		},
		{
			name: "execution output leaked into normative digests",
			edit: func(t testing.TB, i int, m map[string]json.RawMessage) {
				if i == 2 {
					leak = m["payload"]
				}
				if i == allowDecision {
					editPayload(t, m, func(p *DecisionPayload) {
						d, _ := PayloadDigest(leak)
						p.ContextSpec.NormativeInputDigests = append([]string{d}, p.ContextSpec.NormativeInputDigests...)
						p.ContextDigest, _ = ContextDigest(p.ContextSpec, p.AssembledContext)
					})
				}
			},
			wantIndex: allowDecision, wantField: "normative_input_digests", wantIn: "an observation leaked",
		},
		{
			name: "execution output copied into the assembled context",
			edit: func(t testing.TB, i int, m map[string]json.RawMessage) {
				if i == allowDecision {
					editPayload(t, m, func(p *DecisionPayload) {
						p.AssembledContext.NormativeInputs = append(p.AssembledContext.NormativeInputs,
							NormativeInput{RefID: "execution:t1", EventIndex: 2, UserInput: "2+2 equals 4"})
						p.ContextDigest, _ = ContextDigest(p.ContextSpec, p.AssembledContext)
					})
				}
			},
			wantIndex: allowDecision, wantField: "assembled_context.normative_inputs",
		},
		{
			name: "cross-thread refusal turned into an allow",
			edit: func(t testing.TB, i int, m map[string]json.RawMessage) {
				if i == 8 {
					editPayload(t, m, func(p *DecisionPayload) { p.Result, p.Reason = ResultAllow, "" })
				}
			},
			wantIndex: 8, wantField: "resolved_refs", wantIn: "CROSS_THREAD_REF",
		},
		{
			name: "boundary differs from the spec's config digest",
			edit: func(t testing.TB, i int, m map[string]json.RawMessage) {
				if i == 1 {
					editPayload(t, m, func(p *DecisionPayload) { p.Boundary.ContextConfigDigest = sha256Digest([]byte("other")) })
				}
			},
			wantIndex: 1, wantField: "context_spec.retrieval.normalization.config_digest",
		},
		{
			name: "execution output changed",
			edit: func(t testing.TB, i int, m map[string]json.RawMessage) {
				if i == 2 {
					editPayload(t, m, func(p *ExecutionPayload) { p.Output = "2+2 equals 5" })
				}
			},
			wantIndex: 2, wantField: "payload.output_digest",
		},
		{
			name: "member name in another case",
			edit: func(t testing.TB, i int, m map[string]json.RawMessage) {
				if i == 3 {
					m["Kind"] = m["kind"]
					delete(m, "kind")
				}
			},
			wantIndex: 3, wantField: "line", wantIn: "differ from the format",
		},
		{
			name: "null instead of an empty list",
			edit: func(t testing.TB, i int, m map[string]json.RawMessage) {
				if i == 1 {
					m["payload"] = json.RawMessage(strings.Replace(string(m["payload"]), `"declared_refs":[]`, `"declared_refs":null`, 1))
				}
			},
			wantIndex: 1, wantField: "payload", wantIn: "differ from the format",
		},
		{
			name: "decision moved to another turn",
			edit: func(t testing.TB, i int, m map[string]json.RawMessage) {
				if i == 4 {
					m["turn_id"] = json.RawMessage(`"u9"`)
				}
			},
			wantIndex: 4, wantField: "intent_event_index",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, dir := openTestLedger(t)
			writeFixture(t, l, defaultTexts())
			reseal(t, filepath.Join(dir, JournalFile), func(i int, m map[string]json.RawMessage) { tc.edit(t, i, m) })
			checks := verifyBoth(t, dir, fullOptions("", ""))
			got := checks[tc.wantIndex]
			if got.Status != StatusMismatch || got.Field != tc.wantField || !strings.Contains(got.Message, tc.wantIn) {
				t.Errorf("check of event %d = %+v, want a mismatch of %q with %q in the message", tc.wantIndex, got, tc.wantField, tc.wantIn)
			}
		})
	}
}

// tamperStride is the distance between flipped positions: every byte
// normally, a fixed sample under -race and -short (see raceEnabled).
func tamperStride() int {
	if raceEnabled || testing.Short() {
		return 17
	}
	return 1
}

// TestTamperLedger flips every byte of a ledger with INTENT, EXECUTION and
// DECISION events across two threads, one at a time (XOR 0x01), and
// requires each flip to be reported (a mismatch, or an error saying the
// file is corrupt). Stream replay is cheap and covers the whole file; ledger
// replay builds a SQLite database per flip and covers the first 4 KiB (the
// brief's bound), while TestModesAgreeOnTampering compares both modes on a
// sample of the whole file.
func TestTamperLedger(t *testing.T) {
	l, dir := openTestLedger(t)
	writeFixture(t, l, defaultTexts())
	orig, err := os.ReadFile(filepath.Join(dir, JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		mode  Mode
		limit int
	}{{ModeStream, len(orig)}, {ModeLedger, min(len(orig), 4<<10)}} {
		t.Run(string(tc.mode), func(t *testing.T) {
			t.Parallel()
			stride := tamperStride()
			t.Logf("ledger is %d bytes; flipping positions 0 to %d with stride %d", len(orig), tc.limit-1, stride)
			work := filepath.Join(t.TempDir(), "ledger")
			if err := os.MkdirAll(work, 0o700); err != nil {
				t.Fatal(err)
			}
			opts := fullOptions(tc.mode, filepath.Join(work, "ledger.sqlite"))
			for pos := 0; pos < tc.limit; pos += stride {
				tampered := append([]byte(nil), orig...)
				tampered[pos] ^= 0x01
				if err := os.WriteFile(filepath.Join(work, JournalFile), tampered, 0o600); err != nil {
					t.Fatal(err)
				}
				checks, err := VerifyLedger(work, opts)
				if err != nil {
					if !errors.Is(err, ErrCorrupt) {
						t.Fatalf("flip at %d: VerifyLedger: %v", pos, err)
					}
					continue
				}
				if len(mismatches(checks)) == 0 {
					t.Fatalf("flip at %d (%q → %q) was not reported", pos, orig[pos], tampered[pos])
				}
			}
		})
	}
}

// TestModesAgreeOnTampering compares the two replay modes check by check on
// a sample of flips over the whole file (every 11th byte; every 187th under
// -race and -short). verifyBoth also compares them in every other test.
func TestModesAgreeOnTampering(t *testing.T) {
	l, dir := openTestLedger(t)
	writeFixture(t, l, defaultTexts())
	orig, err := os.ReadFile(filepath.Join(dir, JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(t.TempDir(), "ledger")
	if err := os.MkdirAll(work, 0o700); err != nil {
		t.Fatal(err)
	}
	for pos := 0; pos < len(orig); pos += 11 * tamperStride() {
		tampered := append([]byte(nil), orig...)
		tampered[pos] ^= 0x01
		if err := os.WriteFile(filepath.Join(work, JournalFile), tampered, 0o600); err != nil {
			t.Fatal(err)
		}
		t.Run(fmt.Sprint(pos), func(t *testing.T) {
			verifyBoth(t, work, fullOptions("", filepath.Join(work, "ledger.sqlite")))
		})
	}
}

func TestTamperAudit(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".ctxd", "audit.jsonl")
	a, err := OpenAudit(path, fixedClock)
	if err != nil {
		t.Fatal(err)
	}
	writeAuditFixture(t, a)
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	limit := min(len(orig), 4<<10)
	work := filepath.Join(t.TempDir(), "audit.jsonl")
	for pos := 0; pos < limit; pos++ { // cheap enough to flip every byte even under -race
		tampered := append([]byte(nil), orig...)
		tampered[pos] ^= 0x01
		if err := os.WriteFile(work, tampered, 0o600); err != nil {
			t.Fatal(err)
		}
		checks, err := VerifyAudit(work)
		if err != nil {
			t.Fatalf("flip at %d: VerifyAudit: %v", pos, err)
		}
		if len(mismatches(checks)) == 0 {
			t.Fatalf("flip at %d (%q → %q) was not reported", pos, orig[pos], tampered[pos])
		}
	}
}

// TestProjectionTables checks that the projection is plain SQL, from the
// sqlite3 shell when it is installed.
func TestProjectionTables(t *testing.T) {
	l, dir := openTestLedger(t)
	writeFixture(t, l, defaultTexts())
	dbPath := filepath.Join(t.TempDir(), "ledger.sqlite")
	if err := Project(dir, dbPath); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o600 {
		t.Errorf("projection mode = %o, want 600", perm)
	}
	leftovers, _ := filepath.Glob(dbPath + ".tmp-*")
	if len(leftovers) != 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
	db, err := openProjection(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	queries := []struct {
		query string
		want  string
	}{
		{`SELECT count(*) FROM events`, "9"},
		{`SELECT group_concat(kind, ',') FROM (SELECT kind FROM events ORDER BY event_index)`,
			"INTENT,DECISION,EXECUTION,INTENT,DECISION,INTENT,DECISION,INTENT,DECISION"},
		{`SELECT group_concat(result || ':' || reason, ',') FROM (SELECT * FROM decisions ORDER BY event_index)`,
			"ALLOW:,ALLOW:,ALLOW:,DENY:CROSS_THREAD_REF"},
		{`SELECT group_concat(ref_id || '@' || event_index || '/' || admitted_for, ',') FROM (SELECT * FROM resolved_refs ORDER BY decision_index, position)`,
			"intent:t1@0/governance,execution:t1@2/execution_only"},
		{`SELECT value FROM meta WHERE key = 'event_count'`, "9"},
		{`SELECT value FROM meta WHERE key = 'torn_tail_bytes'`, "0"},
		{`SELECT json_extract(payload, '$.output') FROM events WHERE kind = 'EXECUTION'`, "2+2 equals 4"},
	}
	for _, q := range queries {
		var got string
		if err := db.QueryRow(q.query).Scan(&got); err != nil {
			t.Errorf("%s: %v", q.query, err)
			continue
		}
		if got != q.want {
			t.Errorf("%s = %q, want %q", q.query, got, q.want)
		}
	}
	var sourceDigest string
	if err := db.QueryRow(`SELECT value FROM meta WHERE key = 'source_sha256'`).Scan(&sourceDigest); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, JournalFile))
	if want := sha256Digest(data); sourceDigest != want {
		t.Errorf("meta source_sha256 = %s, want %s", sourceDigest, want)
	}

	shell, err := exec.LookPath("sqlite3")
	if err != nil {
		t.Log("sqlite3 shell not installed; shell check skipped")
		return
	}
	out, err := exec.Command(shell, dbPath, `SELECT count(*) FROM decisions d JOIN resolved_refs r ON r.decision_index = d.event_index WHERE r.admitted_for = 'execution_only';`).CombinedOutput()
	if err != nil {
		t.Fatalf("sqlite3: %v: %s", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != "1" {
		t.Errorf("sqlite3 count = %q, want 1", got)
	}
}

// TestVerifyTornTail reports an interrupted write as incomplete, not as a
// mismatch, without moving it: verification writes nothing.
func TestVerifyTornTail(t *testing.T) {
	l, dir := openTestLedger(t)
	writeFixture(t, l, defaultTexts())
	path := filepath.Join(dir, JournalFile)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"_obs":{"recorded_at":"20`)
	f.Close()
	before, _ := os.ReadFile(path)
	got := notOK(verifyBoth(t, dir, fullOptions("", "")))
	want := []Check{{Source: SourceLedger, EventIndex: -1, Status: StatusIncomplete, Field: "line",
		Message: "the file ends with an incomplete line of 26 bytes, a write interrupted by a crash; it was never chained to and is not trusted. " +
			"`ctxd verify --repair` (or the next append) moves it to events.jsonl.torn-<time>"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	after, _ := os.ReadFile(path)
	if string(before) != string(after) {
		t.Errorf("verification changed the journal")
	}
}

package ledger

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testConfigDigest stands for the digest of .ctxd/config.json.
var testConfigDigest = "sha256:" + strings.Repeat("c", 64)

// fixedClock is the injected clock of every test: one instant, so that
// torn-tail names and _obs are reproducible.
func fixedClock() time.Time { return time.Date(2025, 1, 2, 3, 4, 5, 6, time.UTC) }

// testSettings is seed 000's example configuration, with empty refs allowed
// so that first turns resolve.
func testSettings() Settings {
	return Settings{
		MaxRefs:                     50,
		EmptyRefsPolicy:             ResultAllow,
		ExpandLastN:                 10,
		AllowExecutionRefsForPrompt: true,
		CanonicalSort:               OrderingEventIndexAsc,
		EnforceScopeBound:           true,
		NormalizationRules:          []string{RuleFilterIntentOnly, RuleScopeBound, RuleSortCanonical},
		ConfigDigest:                testConfigDigest,
	}
}

func openTestLedger(t testing.TB) (*Ledger, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), ".ctxd", "ledger")
	l, err := Open(dir, fixedClock)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return l, dir
}

// testBundle is the bundle an ALLOW decision of turn names.
func testBundle(turn string) *BundleRef {
	return &BundleRef{
		BundleID:          "bundle-" + turn,
		BundleFingerprint: sha256Digest([]byte("bundle " + turn)),
		ArtifactSHA256:    sha256Digest([]byte("artifact " + turn)),
	}
}

// buildDrafts does what a build with a thread does: resolve the refs, take
// the normative inputs, and draft INTENT + DECISION (DENY with the seed code
// when resolution fails).
func buildDrafts(v *View, th Thread, userInput, correlationID string, s Settings) ([]Draft, error) {
	intentIndex := v.Len()
	refs, err := v.Resolve(th, s)
	dp := DecisionPayload{IntentIndex: intentIndex, Result: ResultAllow, Boundary: Boundary{ContextConfigDigest: s.ConfigDigest}}
	var inputs []NormativeInput
	var digests []string
	var re *RefError
	switch {
	case errors.As(err, &re):
		dp.Result, dp.Reason, refs = ResultDeny, re.Code, nil
	case err != nil:
		return nil, err
	default:
		if inputs, digests, err = v.Intents(refs); err != nil {
			return nil, err
		}
		dp.Bundle = testBundle(th.TurnID)
	}
	dp.ContextSpec = NewContextSpec(th, "diff", userInput, refs, digests, s)
	dp.AssembledContext = AssembledContext{NormativeInputs: inputs}
	if dp.Result == ResultAllow {
		dp.AssembledContext.Workspace = WorkspaceInputs{
			ProjectIndexFingerprint: sha256Digest([]byte("index")),
			ConfigFingerprint:       sha256Digest([]byte("config")),
		}
	}
	return []Draft{
		{Kind: KindIntent, ThreadID: th.ThreadID, TurnID: th.TurnID, ParentTurnID: th.ParentTurnID, CorrelationID: correlationID,
			Payload: IntentPayload{IntentType: "diff", UserInput: userInput, RequestFingerprint: sha256Digest([]byte(correlationID))}},
		{Kind: KindDecision, ThreadID: th.ThreadID, TurnID: th.TurnID, ParentTurnID: th.ParentTurnID, CorrelationID: correlationID,
			Payload: dp},
	}, nil
}

func mustBuild(t testing.TB, l *Ledger, th Thread, userInput, correlationID string, s Settings) []Event {
	t.Helper()
	evs, err := l.Transact(context.Background(), func(v *View) ([]Draft, error) {
		return buildDrafts(v, th, userInput, correlationID, s)
	})
	if err != nil {
		t.Fatalf("build %s/%s: %v", th.ThreadID, th.TurnID, err)
	}
	return evs
}

func mustExecute(t testing.TB, l *Ledger, thread, turn, output string) Event {
	t.Helper()
	evs, err := l.Transact(context.Background(), func(v *View) ([]Draft, error) {
		if !v.HasIntent(thread, turn) {
			return nil, errors.New("no such turn")
		}
		return []Draft{{Kind: KindExecution, ThreadID: thread, TurnID: turn, Payload: ExecutionPayload{Output: output}}}, nil
	})
	if err != nil {
		t.Fatalf("execution %s/%s: %v", thread, turn, err)
	}
	return evs[0]
}

// fixture is the ledger of the tamper and replay tests: INTENT, DECISION
// and EXECUTION events across two threads, an ALLOW with both kinds of
// refs, and a DENY for a cross-thread ref.
type fixtureTexts struct {
	firstInput, output, secondInput string
}

func defaultTexts() fixtureTexts {
	return fixtureTexts{firstInput: "What is 2+2? ≈", output: "2+2 equals 4", secondInput: "Explain more"}
}

func writeFixture(t testing.TB, l *Ledger, tx fixtureTexts) {
	t.Helper()
	s := testSettings()
	mustBuild(t, l, Thread{ThreadID: "A", TurnID: "t1"}, tx.firstInput, "corr-a1", s)
	mustExecute(t, l, "A", "t1", tx.output)
	mustBuild(t, l, Thread{ThreadID: "B", TurnID: "u1"}, "Other thread", "corr-b1", s)
	mustBuild(t, l, Thread{ThreadID: "A", TurnID: "t2", ParentTurnID: "t1", DeclaredRefs: []string{"execution:t1", "intent:t1"}}, tx.secondInput, "corr-a2", s)
	mustBuild(t, l, Thread{ThreadID: "B", TurnID: "u2", ParentTurnID: "u1", DeclaredRefs: []string{"corr-a1"}}, "Peek", "corr-b2", s)
}

// fixtureBundles checks bundles against what testBundle made.
func fixtureBundles(ref BundleRef) (string, string) {
	turn := strings.TrimPrefix(ref.BundleID, "bundle-")
	want := testBundle(turn)
	switch {
	case ref.BundleID != want.BundleID:
		return "bundle_id", "unknown bundle"
	case ref.BundleFingerprint != want.BundleFingerprint:
		return "bundle_fingerprint", "the artifact's fingerprint differs"
	case ref.ArtifactSHA256 != want.ArtifactSHA256:
		return "artifact_sha256", "the artifact's sha256 differs"
	}
	return "", ""
}

func fullOptions(mode Mode, sqlitePath string) VerifyOptions {
	return VerifyOptions{Mode: mode, ConfigDigest: testConfigDigest, CheckBundle: fixtureBundles, SQLitePath: sqlitePath}
}

// mismatches returns the checks that are not ok or skipped.
func mismatches(checks []Check) []Check {
	var out []Check
	for _, c := range checks {
		if c.Status == StatusMismatch {
			out = append(out, c)
		}
	}
	return out
}

// reseal rewrites a journal through edit (called with each line's members
// but the chain ones) and recomputes the whole chain, as a tamperer who
// knows the format would.
func reseal(t testing.TB, path string, edit func(i int, m map[string]json.RawMessage)) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines, _ := splitLines(data)
	var out bytes.Buffer
	prev := genesisDigest
	for i, line := range lines {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatal(err)
		}
		delete(m, memberIndex)
		delete(m, memberPrev)
		delete(m, memberDigest)
		edit(i, m)
		rec, err := seal(m, i, prev)
		if err != nil {
			t.Fatal(err)
		}
		prev = rec.digest
		out.Write(rec.line)
		out.WriteByte('\n')
	}
	if err := os.WriteFile(path, out.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
}

// editPayload decodes a line's payload, lets edit change it, and stores it
// back.
func editPayload[T any](t testing.TB, m map[string]json.RawMessage, edit func(p *T)) {
	t.Helper()
	var p T
	if err := json.Unmarshal(m["payload"], &p); err != nil {
		t.Fatal(err)
	}
	edit(&p)
	raw, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	m["payload"] = raw
}

// notOK returns the checks that are neither ok nor skipped: mismatches and
// incomplete findings.
func notOK(checks []Check) []Check {
	var out []Check
	for _, c := range checks {
		if c.Status == StatusMismatch || c.Status == StatusIncomplete {
			out = append(out, c)
		}
	}
	return out
}

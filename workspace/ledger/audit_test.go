package ledger

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func writeAuditFixture(t testing.TB, a *Audit) {
	t.Helper()
	events := []struct {
		name string
		data any
	}{
		{AuditPolicyLoaded, map[string]any{"policy_digest": sha256Digest([]byte("policy")), "namespaces": []string{"src", "docs"}}},
		{AuditContextSelected, map[string]any{"total_items": 3, "total_bytes": 4096, "refs": []string{"src/a.go", "src/b.go"}}},
		{AuditPromptBuilt, map[string]any{"prompt_sha256": sha256Digest([]byte("prompt")), "template": "diff ≈ v1"}},
		{AuditContextSelected, nil},
	}
	for _, e := range events {
		if err := a.Append(e.name, e.data); err != nil {
			t.Fatalf("Append(%s): %v", e.name, err)
		}
	}
}

func TestAuditAppendAndVerify(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".ctxd", "audit.jsonl")
	a, err := OpenAudit(path, fixedClock)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("OpenAudit created the file")
	}
	writeAuditFixture(t, a)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines, tail := splitLines(data)
	if len(lines) != 4 || len(tail) != 0 {
		t.Fatalf("%d lines and %d tail bytes, want 4 and 0", len(lines), len(tail))
	}
	type line struct {
		Index int             `json:"event_index"`
		Event string          `json:"event"`
		Data  json.RawMessage `json:"data"`
		Obs   obs             `json:"_obs"`
	}
	var got []line
	for _, raw := range lines {
		var l line
		if err := json.Unmarshal(raw, &l); err != nil {
			t.Fatal(err)
		}
		got = append(got, l)
	}
	at := obs{RecordedAt: "2025-01-02T03:04:05.000000006Z"}
	want := []line{
		{0, AuditPolicyLoaded, json.RawMessage(`{"namespaces":["src","docs"],"policy_digest":"` + sha256Digest([]byte("policy")) + `"}`), at},
		{1, AuditContextSelected, json.RawMessage(`{"refs":["src/a.go","src/b.go"],"total_bytes":4096,"total_items":3}`), at},
		{2, AuditPromptBuilt, json.RawMessage(`{"prompt_sha256":"` + sha256Digest([]byte("prompt")) + `","template":"diff ≈ v1"}`), at},
		{3, AuditContextSelected, json.RawMessage(`null`), at},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("audit lines (-want +got):\n%s", diff)
	}
	checks, err := VerifyAudit(path)
	if err != nil {
		t.Fatal(err)
	}
	var wantChecks []Check
	for i, name := range []string{AuditPolicyLoaded, AuditContextSelected, AuditPromptBuilt, AuditContextSelected} {
		wantChecks = append(wantChecks, Check{Source: SourceAudit, EventIndex: i, Kind: name, Status: StatusOK})
	}
	if diff := cmp.Diff(wantChecks, checks); diff != "" {
		t.Errorf("checks (-want +got):\n%s", diff)
	}
}

func TestAuditRejects(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	a, err := OpenAudit(path, fixedClock)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"", "bad\nname", strings.Repeat("x", MaxAuditEventBytes+1)} {
		if err := a.Append(name, nil); !errors.Is(err, ErrInvalidAuditEvent) {
			t.Errorf("Append(%q) error = %v, want ErrInvalidAuditEvent", name, err)
		}
	}
	if err := a.Append(AuditPromptBuilt, func() {}); err == nil {
		t.Errorf("Append with unencodable data succeeded")
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("rejected appends created the file")
	}
}

// TestAuditConcurrent appends from goroutines sharing one Audit and from a
// second Audit on the same file (another process, as far as locking goes).
func TestAuditConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	a1, err := OpenAudit(path, fixedClock)
	if err != nil {
		t.Fatal(err)
	}
	a2, err := OpenAudit(path, fixedClock)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := a1
			if g%2 == 1 {
				a = a2
			}
			for i := range 10 {
				if err := a.Append(AuditContextSelected, map[string]int{"goroutine": g, "i": i}); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	checks, err := VerifyAudit(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(checks) != 40 || len(mismatches(checks)) != 0 {
		t.Errorf("%d checks, mismatches %v; want 40 ok", len(checks), mismatches(checks))
	}
}

func TestAuditCorruptRefusesAppend(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	a, err := OpenAudit(path, fixedClock)
	if err != nil {
		t.Fatal(err)
	}
	writeAuditFixture(t, a)
	data, _ := os.ReadFile(path)
	i := strings.Index(string(data), "src/b.go")
	data[i] = 'X'
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	a2, err := OpenAudit(path, fixedClock)
	if err != nil {
		t.Fatalf("OpenAudit of a corrupt trail: %v", err)
	}
	for n, a := range []*Audit{a, a2} {
		err := a.Append(AuditPromptBuilt, nil)
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "ctxd verify") {
			t.Errorf("audit %d: Append to a corrupt trail: %v, want ErrCorrupt mentioning ctxd verify", n, err)
		}
	}
	after, _ := os.ReadFile(path)
	if string(after) != string(data) {
		t.Errorf("a refused append changed the file")
	}
	checks, _ := VerifyAudit(path)
	want := []Check{{Source: SourceAudit, EventIndex: 1, Kind: AuditContextSelected, Status: StatusMismatch, Field: "event_digest"}}
	got := mismatches(checks)
	for i := range got {
		got[i].Message = ""
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mismatches (-want +got):\n%s", diff)
	}
}

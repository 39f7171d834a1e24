package ledger

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// FuzzJournalRead feeds arbitrary bytes as a ledger and as an audit trail:
// verification, opening (with torn-tail recovery) and reading never panic,
// every line gets exactly one check, and reading either fails with
// ErrCorrupt or returns only events that verification found sound.
func FuzzJournalRead(f *testing.F) {
	l, dir := openTestLedger(f)
	writeFixture(f, l, defaultTexts())
	good, err := os.ReadFile(filepath.Join(dir, JournalFile))
	if err != nil {
		f.Fatal(err)
	}
	// Small seeds: the fuzzer minimizes every input that finds new
	// coverage, which is slow for a whole ledger.
	lines, _ := splitLines(good)
	f.Add(append(append([]byte(nil), lines[0]...), '\n'))
	f.Add(append(append(append(append([]byte(nil), lines[0]...), '\n'), lines[1]...), '\n'))
	f.Add(lines[2])
	f.Add([]byte{})
	f.Add([]byte("\n\n"))
	f.Add([]byte(`{"event_index":0}` + "\n"))
	f.Add([]byte(`{"event_digest":"x","event_index":0,"prev_digest":"` + genesisDigest + `"}` + "\n"))
	f.Add([]byte("{\"a\":\"\xff\"}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := filepath.Join(t.TempDir(), "ledger")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, JournalFile)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		lines, _ := splitLines(data)
		checks, err := VerifyLedger(dir, fullOptions(ModeStream, ""))
		if err != nil {
			t.Fatalf("VerifyLedger: %v", err)
		}
		perLine := 0
		for _, c := range checks {
			if c.EventIndex >= 0 {
				if c.EventIndex != perLine {
					t.Fatalf("check for line %d out of order", c.EventIndex)
				}
				perLine++
			}
		}
		if perLine != len(lines) {
			t.Fatalf("%d per-line checks for %d lines", perLine, len(lines))
		}
		audit, err := VerifyAudit(path)
		if err != nil {
			t.Fatalf("VerifyAudit: %v", err)
		}
		if len(audit) < len(lines) {
			t.Fatalf("%d audit checks for %d lines", len(audit), len(lines))
		}

		l, err := Open(dir, fixedClock)
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		evs, err := l.Events()
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Events: %v", err)
			}
			return
		}
		for i, ev := range evs {
			if ev.Index != i {
				t.Fatalf("event %d has index %d", i, ev.Index)
			}
			// Events promises the chain; semantic findings are verification's.
			switch f := checks[i].Field; f {
			case "line", memberIndex, memberPrev, memberDigest:
				t.Fatalf("Events returned event %d, which fails %s", i, f)
			}
		}
	})
}

// FuzzResolve resolves arbitrary refs against a fixed ledger: it never
// panics, and it either fails with a seed code or an input error, or
// returns refs sorted by event_index, each event once, naming events of the
// thread with the right admission.
func FuzzResolve(f *testing.F) {
	l := resolveFixture(f)
	evs, err := l.Events()
	if err != nil {
		f.Fatal(err)
	}
	src := &memSource{base: evs}
	indexed := &memSource{base: evs}
	indexed.buildIndex()
	f.Add("A", "intent:t1", "execution:t1", "ca1", 50, true)
	f.Add("B", "intent:t1", "ca1", "", 2, false)
	f.Add("A", "", "", "", 0, false)
	f.Add("A", "intent:", "execution:", "shared", 3, true)
	f.Add("A\x00", "intent:t1", "x", "y", 5, true)
	f.Fuzz(func(t *testing.T, thread, r1, r2, r3 string, maxRefs int, allowEmpty bool) {
		var refs []string
		for _, r := range []string{r1, r2, r3} {
			if r != "" {
				refs = append(refs, r)
			}
		}
		s := testSettings()
		s.MaxRefs = maxRefs
		if !allowEmpty {
			s.EmptyRefsPolicy = ResultDeny
		}
		th := Thread{ThreadID: thread, TurnID: "now", DeclaredRefs: refs}
		got, err := resolve(src, th, s, len(evs))
		got2, err2 := resolve(indexed, th, s, len(evs))
		if (err == nil) != (err2 == nil) || !slices.Equal(got, got2) {
			t.Fatalf("scan and index disagree: %v %v / %v %v", got, err, got2, err2)
		}
		if err != nil {
			var re *RefError
			switch {
			case errors.As(err, &re):
				if !isRefCode(re.Code) {
					t.Fatalf("unknown code %q", re.Code)
				}
			case errors.Is(err, ErrInvalidThread), errors.Is(err, ErrInvalidSettings):
			default:
				t.Fatalf("unexpected error: %v", err)
			}
			return
		}
		if got == nil {
			t.Fatalf("nil result without an error")
		}
		for i, r := range got {
			if i > 0 && got[i-1].EventIndex >= r.EventIndex {
				t.Fatalf("not strictly sorted: %+v", got)
			}
			ev := evs[r.EventIndex]
			if ev.ThreadID != thread || ev.Digest != r.EventDigest {
				t.Fatalf("ref %+v names event %+v", r, ev)
			}
			want := AdmittedGovernance
			if ev.Kind == KindExecution {
				want = AdmittedExecutionOnly
			}
			if r.AdmittedFor != want || !slices.Contains(refs, r.RefID) {
				t.Fatalf("ref %+v: admitted %s, want %s", r, r.AdmittedFor, want)
			}
		}
		// Through the public API too.
		_, _ = l.Transact(context.Background(), func(v *View) ([]Draft, error) {
			got3, err3 := v.Resolve(th, s)
			if (err3 == nil) != (err == nil) || !slices.Equal(got, got3) {
				t.Errorf("View.Resolve differs")
			}
			return nil, nil
		})
	})
}

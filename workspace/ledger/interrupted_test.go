package ledger

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// finding is a check reduced to what tells an interrupted write from
// tampering.
type finding struct {
	Source, Status, Field string
}

func findings(checks []Check) []finding {
	var out []finding
	for _, c := range notOK(checks) {
		out = append(out, finding{c.Source, c.Status, c.Field})
	}
	return out
}

// cutLastLine appends one more event with l and then cuts the journal back
// to keep bytes of that event's line: what a process killed in the middle
// of the append's write(2) leaves.
func cutLastLine(t *testing.T, l *Ledger, dir string, keep func(line int) int) {
	t.Helper()
	path := filepath.Join(dir, JournalFile)
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	mustExecute(t, l, "A", "t1", "the output of an append that a crash cut short")
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n := keep(len(after) - len(before))
	if err := os.Truncate(path, int64(len(before)+n)); err != nil {
		t.Fatal(err)
	}
}

// appendRaw appends b to the file at path.
func appendRaw(t *testing.T, path string, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
}

// TestInterruptedWrites: every state an interrupted write can leave is
// reported as incomplete, never as a mismatch, in both replay modes; the
// look-alikes a tamperer makes stay mismatches. The states: a journal's
// last line cut anywhere (after its first byte, in the middle, before its
// newline), a projection one or more appends behind, a projection written
// with a torn tail that an append later moved aside, and an audit trail's
// last line cut short.
func TestInterruptedWrites(t *testing.T) {
	incompleteLine := []finding{{SourceLedger, StatusIncomplete, "line"}}
	incompleteProjection := []finding{{SourceLedger, StatusIncomplete, FieldProjection}}
	for _, tc := range []struct {
		name string
		// setup writes the files into dir and returns the projection's
		// path ("" for none).
		setup func(t *testing.T, l *Ledger, dir string) string
		want  []finding
	}{
		{"cut after the first byte", func(t *testing.T, l *Ledger, dir string) string {
			cutLastLine(t, l, dir, func(int) int { return 1 })
			return ""
		}, incompleteLine},
		{"cut in the middle", func(t *testing.T, l *Ledger, dir string) string {
			cutLastLine(t, l, dir, func(n int) int { return n / 2 })
			return ""
		}, incompleteLine},
		{"cut before the newline", func(t *testing.T, l *Ledger, dir string) string {
			cutLastLine(t, l, dir, func(n int) int { return n - 1 })
			return ""
		}, incompleteLine},
		{"projection one append behind", func(t *testing.T, l *Ledger, dir string) string {
			proj := filepath.Join(filepath.Dir(dir), "ledger.sqlite")
			if err := Project(dir, proj); err != nil {
				t.Fatal(err)
			}
			mustExecute(t, l, "B", "u2", "appended, then killed before the projection was rewritten")
			return proj
		}, incompleteProjection},
		{"projection two appends behind, journal cut too", func(t *testing.T, l *Ledger, dir string) string {
			proj := filepath.Join(filepath.Dir(dir), "ledger.sqlite")
			if err := Project(dir, proj); err != nil {
				t.Fatal(err)
			}
			mustExecute(t, l, "B", "u2", "one")
			cutLastLine(t, l, dir, func(n int) int { return n / 3 })
			return proj
		}, append(append([]finding{}, incompleteLine...), incompleteProjection...)},
		{"projection of a torn tail moved aside since", func(t *testing.T, l *Ledger, dir string) string {
			cutLastLine(t, l, dir, func(n int) int { return n / 2 })
			proj := filepath.Join(filepath.Dir(dir), "ledger.sqlite")
			if err := Project(dir, proj); err != nil { // as `ctxd verify --mode ledger` writes a missing one
				t.Fatal(err)
			}
			l2, err := Open(dir, func() time.Time { return time.Unix(1700000000, 0) }) // moves the tail aside
			if err != nil {
				t.Fatal(err)
			}
			mustExecute(t, l2, "B", "u2", "appended, then killed before the projection was rewritten")
			return proj
		}, incompleteProjection},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, dir := openTestLedger(t)
			writeFixture(t, l, defaultTexts())
			proj := tc.setup(t, l, dir)
			journal, _ := os.ReadFile(filepath.Join(dir, JournalFile))
			var projBefore []byte
			if proj != "" {
				projBefore, _ = os.ReadFile(proj)
			}
			got := findings(verifyBoth(t, dir, fullOptions("", proj)))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
			if after, _ := os.ReadFile(filepath.Join(dir, JournalFile)); !bytes.Equal(after, journal) {
				t.Error("verification changed the journal")
			}
			if proj != "" {
				if after, _ := os.ReadFile(proj); !bytes.Equal(after, projBefore) {
					t.Error("verification changed the projection")
				}
			}
		})
	}
}

// TestInterruptedLookAlikes: what no interrupted write leaves is still a
// mismatch, even where it resembles one.
func TestInterruptedLookAlikes(t *testing.T) {
	mismatchLine := []finding{{SourceLedger, StatusMismatch, "line"}}
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, l *Ledger, dir string) string
		want  []finding
	}{
		{"tail that starts no object", func(t *testing.T, l *Ledger, dir string) string {
			appendRaw(t, filepath.Join(dir, JournalFile), []byte(`"event_index":5}`))
			return ""
		}, mismatchLine},
		{"tail with a syntax error", func(t *testing.T, l *Ledger, dir string) string {
			appendRaw(t, filepath.Join(dir, JournalFile), []byte(`{"event_index":5,,`))
			return ""
		}, mismatchLine},
		{"whole line without newline that does not chain", func(t *testing.T, l *Ledger, dir string) string {
			path := filepath.Join(dir, JournalFile)
			data, _ := os.ReadFile(path)
			lines, _ := splitLines(data)
			appendRaw(t, path, lines[0]) // a copy of line 0: wrong index and prev_digest
			return ""
		}, mismatchLine},
		{"whole line followed by other bytes", func(t *testing.T, l *Ledger, dir string) string {
			path := filepath.Join(dir, JournalFile)
			cutLastLine(t, l, dir, func(n int) int { return n })
			data, _ := os.ReadFile(path)
			data[len(data)-1] = ' ' // the newline replaced
			os.WriteFile(path, data, 0o600)
			return ""
		}, mismatchLine},
		{"projection behind with a forged row", func(t *testing.T, l *Ledger, dir string) string {
			proj := filepath.Join(filepath.Dir(dir), "ledger.sqlite")
			if err := Project(dir, proj); err != nil {
				t.Fatal(err)
			}
			db, err := sql.Open("sqlite", proj)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(`UPDATE decisions SET result = 'DENY' WHERE event_index = 1`); err != nil {
				t.Fatal(err)
			}
			db.Close()
			mustExecute(t, l, "B", "u2", "appended after the forgery")
			return proj
		}, nil},
		{"projection of another journal", func(t *testing.T, l *Ledger, dir string) string {
			proj := filepath.Join(filepath.Dir(dir), "ledger.sqlite")
			if err := Project(dir, proj); err != nil {
				t.Fatal(err)
			}
			// The journal is resealed with other words: the projection's
			// prefix is no longer this journal's.
			reseal(t, filepath.Join(dir, JournalFile), func(i int, m map[string]json.RawMessage) {
				if i == 0 {
					editPayload(t, m, func(p *IntentPayload) { p.UserInput = "rewritten" })
				}
			})
			return proj
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, dir := openTestLedger(t)
			writeFixture(t, l, defaultTexts())
			proj := tc.setup(t, l, dir)
			got := findings(verifyBoth(t, dir, fullOptions("", proj)))
			if tc.want == nil { // any mismatch, none incomplete
				if len(got) == 0 {
					t.Fatal("nothing reported")
				}
				for _, f := range got {
					if f.Status != StatusMismatch {
						t.Errorf("finding %+v, want only mismatches", f)
					}
				}
				return
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestInterruptedAudit: an audit trail whose last line was cut short is
// incomplete; other tails stay mismatches.
func TestInterruptedAudit(t *testing.T) {
	for _, tc := range []struct {
		name string
		cut  func(line []byte) []byte
		want []finding
	}{
		{"cut in the middle", func(line []byte) []byte { return line[:len(line)/2] }, []finding{{SourceAudit, StatusIncomplete, "line"}}},
		{"cut before the newline", func(line []byte) []byte { return line[:len(line)-1] }, []finding{{SourceAudit, StatusIncomplete, "line"}}},
		{"newline replaced", func(line []byte) []byte { return append(line[:len(line)-1:len(line)-1], 'x') }, []finding{{SourceAudit, StatusMismatch, "line"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), ".ctxd", "audit.jsonl")
			a, err := OpenAudit(path, fixedClock)
			if err != nil {
				t.Fatal(err)
			}
			writeAuditFixture(t, a)
			data, _ := os.ReadFile(path)
			start := bytes.LastIndexByte(data[:len(data)-1], '\n') + 1
			out := append(append([]byte{}, data[:start]...), tc.cut(append([]byte{}, data[start:]...))...)
			if err := os.WriteFile(path, out, 0o600); err != nil {
				t.Fatal(err)
			}
			checks, err := VerifyAudit(path)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, findings(checks)); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

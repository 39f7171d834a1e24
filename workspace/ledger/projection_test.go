package ledger

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// projectedFixture writes the fixture ledger and its projection next to
// it, as `ctxd verify --mode ledger` would, and returns the ledger's
// directory and the projection's path.
func projectedFixture(t *testing.T) (*Ledger, string, string) {
	t.Helper()
	l, dir := openTestLedger(t)
	writeFixture(t, l, defaultTexts())
	proj := filepath.Join(filepath.Dir(dir), "ledger.sqlite")
	if err := Project(dir, proj); err != nil {
		t.Fatal(err)
	}
	return l, dir, proj
}

// projectionMismatches returns the mismatches about the projection.
func projectionMismatches(checks []Check) []Check {
	var out []Check
	for _, c := range mismatches(checks) {
		if c.Field == FieldProjection || strings.HasPrefix(c.Field, FieldProjection+".") {
			out = append(out, c)
		}
	}
	return out
}

// TestProjectionDeterministic: the projection of the same journal is the
// same bytes every time, and Project writes exactly those bytes; the
// untouched projection verifies in both modes.
func TestProjectionDeterministic(t *testing.T) {
	_, dir, proj := projectedFixture(t)
	data, err := os.ReadFile(filepath.Join(dir, JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	a, err := projectionImage(data)
	if err != nil {
		t.Fatal(err)
	}
	b, err := projectionImage(bytes.Clone(data))
	if err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile(proj)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) || !bytes.Equal(a, file) {
		t.Fatalf("projection bytes differ: two images equal %v, image and file equal %v (at byte %d)", bytes.Equal(a, b), bytes.Equal(a, file), firstDiff(a, file))
	}
	checks := verifyBoth(t, dir, fullOptions("", proj))
	if got := mismatches(checks); len(got) != 0 {
		t.Errorf("untouched projection: mismatches %+v", got)
	}
	after, _ := os.ReadFile(proj)
	if !bytes.Equal(after, file) {
		t.Error("verification changed the projection")
	}
}

// TestProjectionForgedRow: a row changed through SQL (a decision's result
// forged to DENY, an event's kind, a meta value, a deleted ref, an added
// row) is a mismatch naming the table and the row in both modes; the
// forged file is never overwritten by verification, and Project (`ctxd
// verify --repair`) restores it.
func TestProjectionForgedRow(t *testing.T) {
	for _, tc := range []struct {
		name, sql string
		want      []Check
	}{
		{"decision result", `UPDATE decisions SET result = 'DENY' WHERE event_index = 1`, []Check{{
			Source: SourceLedger, EventIndex: -1, Status: StatusMismatch, Field: "projection.decisions",
			Message: `ledger.sqlite: table decisions: row event_index=1: result is "DENY", the ledger gives "ALLOW"`}}},
		{"event kind", `UPDATE events SET kind = 'INTENT' WHERE event_index = 2`, []Check{{
			Source: SourceLedger, EventIndex: -1, Status: StatusMismatch, Field: "projection.events",
			Message: `ledger.sqlite: table events: row event_index=2: kind is "INTENT", the ledger gives "EXECUTION"`}}},
		{"event payload", `UPDATE events SET payload = '{}' WHERE event_index = 0`, []Check{{
			Source: SourceLedger, EventIndex: -1, Status: StatusMismatch, Field: "projection.events",
			Message: `ledger.sqlite: table events: row event_index=0: payload differs from the ledger's`}}},
		{"meta", `UPDATE meta SET value = '8' WHERE key = 'event_count'`, []Check{{
			Source: SourceLedger, EventIndex: -1, Status: StatusMismatch, Field: "projection.meta",
			Message: `ledger.sqlite: table meta: row key="event_count": value is "8", the ledger gives "9"`}}},
		{"deleted ref", `DELETE FROM resolved_refs WHERE position = 1`, []Check{{
			Source: SourceLedger, EventIndex: -1, Status: StatusMismatch, Field: "projection.resolved_refs",
			Message: `ledger.sqlite: table resolved_refs: row decision_index=6, position=1 is missing`}}},
		{"added row", `INSERT INTO decisions VALUES (2, 0, 'ALLOW', '', 'x', 'y', NULL, NULL, NULL)`, []Check{{
			Source: SourceLedger, EventIndex: -1, Status: StatusMismatch, Field: "projection.decisions",
			Message: `ledger.sqlite: table decisions: row event_index=2 is not in the ledger`}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, dir, proj := projectedFixture(t)
			db, err := sql.Open("sqlite", proj)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(tc.sql); err != nil {
				t.Fatal(err)
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			forged, _ := os.ReadFile(proj)
			checks := verifyBoth(t, dir, fullOptions("", proj))
			if diff := cmp.Diff(tc.want, mismatches(checks)); diff != "" {
				t.Errorf("mismatches (-want +got):\n%s", diff)
			}
			if after, _ := os.ReadFile(proj); !bytes.Equal(after, forged) {
				t.Error("verification overwrote the forged projection")
			}
			if err := Project(dir, proj); err != nil {
				t.Fatal(err)
			}
			if got := mismatches(verifyBoth(t, dir, fullOptions("", proj))); len(got) != 0 {
				t.Errorf("after Project: mismatches %+v", got)
			}
		})
	}
}

// TestProjectionUnreadable: a file SQLite cannot read (not a database, an
// empty file, a cut-off one) is a projection mismatch, not an error.
func TestProjectionUnreadable(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func([]byte) []byte
	}{
		{"garbage", func([]byte) []byte { return []byte("not a database at all, not even close to one\n") }},
		{"empty", func([]byte) []byte { return []byte{} }},
		{"truncated", func(b []byte) []byte { return b[:len(b)/2+100] }},
		{"header magic", func(b []byte) []byte { b[0] = 'X'; return b }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, dir, proj := projectedFixture(t)
			b, _ := os.ReadFile(proj)
			if err := os.WriteFile(proj, tc.edit(b), 0o600); err != nil {
				t.Fatal(err)
			}
			got := projectionMismatches(verifyBoth(t, dir, fullOptions("", proj)))
			if len(got) == 0 {
				t.Fatal("an unreadable projection was not reported")
			}
		})
	}
}

// TestTamperProjection flips bytes of the projection one at a time (XOR
// 0x01) and requires each flip to be a projection mismatch: every byte of
// the file through the comparison itself (which is what both modes run),
// and a sample through VerifyLedger in both modes. Flips in free space or
// padding change no row and are reported as differing bytes.
func TestTamperProjection(t *testing.T) {
	_, dir, proj := projectedFixture(t)
	orig, err := os.ReadFile(proj)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := projectionImage(data)
	if err != nil {
		t.Fatal(err)
	}
	want, err := imageTables(fresh)
	if err != nil {
		t.Fatal(err)
	}
	stride := 1
	if raceEnabled || testing.Short() {
		stride = 251
	}
	t.Logf("projection is %d bytes; flipping every %d", len(orig), stride)
	kinds := map[string]int{}
	for pos := 0; pos < len(orig); pos += stride {
		tampered := bytes.Clone(orig)
		tampered[pos] ^= 0x01
		got := compareProjection("ledger.sqlite", tampered, fresh, want)
		if len(got) == 0 {
			t.Fatalf("flip at %d was not reported", pos)
		}
		kinds[got[0].Field]++
	}
	t.Logf("first findings by field: %v", kinds)
	sample := 1031
	if raceEnabled || testing.Short() {
		sample = 4099
	}
	for pos := 0; pos < len(orig); pos += sample {
		t.Run(fmt.Sprint(pos), func(t *testing.T) {
			tampered := bytes.Clone(orig)
			tampered[pos] ^= 0x01
			if err := os.WriteFile(proj, tampered, 0o600); err != nil {
				t.Fatal(err)
			}
			if got := projectionMismatches(verifyBoth(t, dir, fullOptions("", proj))); len(got) == 0 {
				t.Fatalf("flip at %d was not reported", pos)
			}
			if after, _ := os.ReadFile(proj); !bytes.Equal(after, tampered) {
				t.Fatal("verification overwrote the projection")
			}
		})
	}
}

// TestProjectionKeptCurrent: with KeepProjection, an append rewrites an
// existing projection, so it still verifies; without a projection file
// nothing is created.
func TestProjectionKeptCurrent(t *testing.T) {
	l, dir, proj := projectedFixture(t)
	l.KeepProjection(proj)
	mustExecute(t, l, "B", "u2", "more output")
	if got := mismatches(verifyBoth(t, dir, fullOptions("", proj))); len(got) != 0 {
		t.Errorf("after an append with KeepProjection: mismatches %+v", got)
	}

	l2, dir2 := openTestLedger(t)
	proj2 := filepath.Join(filepath.Dir(dir2), "ledger.sqlite")
	l2.KeepProjection(proj2)
	writeFixture(t, l2, defaultTexts())
	if _, err := os.Stat(proj2); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("KeepProjection created a projection: %v", err)
	}

	// Without KeepProjection an append leaves the projection behind, which
	// verification reports as incomplete (TestInterruptedWrites has more).
	l3, dir3, proj3 := projectedFixture(t)
	mustExecute(t, l3, "B", "u2", "more output")
	got := notOK(verifyBoth(t, dir3, fullOptions("", proj3)))
	if len(got) != 1 || got[0].Status != StatusIncomplete || got[0].Field != FieldProjection {
		t.Errorf("a projection that misses an event: findings %+v, want one incomplete %s", got, FieldProjection)
	}
}

// openProjection opens an existing projection and checks its schema
// version.
func openProjection(path string) (*sql.DB, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("opening projection: %w", err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return nil, fmt.Errorf("opening projection %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	var v string
	if err := db.QueryRow(`SELECT value FROM meta WHERE key = 'schema_version'`).Scan(&v); err != nil {
		db.Close()
		return nil, fmt.Errorf("opening projection %s: reading schema_version: %w", path, err)
	}
	if v != strconv.Itoa(ProjectionSchemaVersion) {
		db.Close()
		return nil, fmt.Errorf("opening projection %s: schema_version %s, want %d", path, v, ProjectionSchemaVersion)
	}
	return db, nil
}
